#define _GNU_SOURCE
#include <fcntl.h>

#include "wl_file.h"

int wl_start_writeback(int fd, int64_t offset, int64_t length) {
    return sync_file_range(fd, (off64_t)offset, (off64_t)length, SYNC_FILE_RANGE_WRITE);
}
