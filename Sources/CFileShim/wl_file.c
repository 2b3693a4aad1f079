#define _GNU_SOURCE
#include <fcntl.h>

#include "wl_file.h"

int wl_set_direct(int fd, int on) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFL, on ? (flags | O_DIRECT) : (flags & ~O_DIRECT));
}
