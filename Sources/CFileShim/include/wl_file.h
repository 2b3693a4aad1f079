#ifndef WL_FILE_H
#define WL_FILE_H

#include <stdint.h>

/* Starts writing a file's dirty pages in [offset, offset + length) out to its device without waiting for the
 * writes (sync_file_range with SYNC_FILE_RANGE_WRITE, which Glibc declares only for _GNU_SOURCE, hidden from
 * Swift). Returns 0, or -1 with errno set (a file system or file kind without it: the hint is dropped). */
int wl_start_writeback(int fd, int64_t offset, int64_t length);

#endif
