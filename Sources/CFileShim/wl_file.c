#define _GNU_SOURCE
#include <fcntl.h>

#include "wl_file.h"

int wl_start_writeback(int fd, int64_t offset, int64_t length) {
    return sync_file_range(fd, (off64_t)offset, (off64_t)length, SYNC_FILE_RANGE_WRITE);
}

int wl_release_written(int fd, int64_t offset, int64_t length) {
    unsigned int flags = SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER;
    if (sync_file_range(fd, (off64_t)offset, (off64_t)length, flags) != 0) return -1;
    return posix_fadvise(fd, (off_t)offset, (off_t)length, POSIX_FADV_DONTNEED) == 0 ? 0 : -1;
}
