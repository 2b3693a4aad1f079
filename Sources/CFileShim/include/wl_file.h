#ifndef WL_FILE_H
#define WL_FILE_H

/* Turns O_DIRECT (writes straight from the caller's memory to the device, no page cache) on or off for an open
 * file: Glibc declares O_DIRECT only for _GNU_SOURCE, which Swift does not see. Returns 0, or -1 with errno set
 * (a file system without O_DIRECT: EINVAL). */
int wl_set_direct(int fd, int on);

#endif
