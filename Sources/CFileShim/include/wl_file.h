#ifndef WL_FILE_H
#define WL_FILE_H

#include <stdint.h>

/* sync_file_range, which Glibc declares only for _GNU_SOURCE (hidden from Swift). Each returns 0, or -1 with
 * errno set (a file system or file kind without it: the caller drops the hint). */

/* Starts writing a file's dirty pages in [offset, offset + length) out to its device, without waiting. */
int wl_start_writeback(int fd, int64_t offset, int64_t length);

/* Waits until the pages in [offset, offset + length) are written out (starting what is not yet), then tells the
 * kernel they will not be read again (posix_fadvise DONTNEED), which frees them. */
int wl_release_written(int fd, int64_t offset, int64_t length);

#endif
