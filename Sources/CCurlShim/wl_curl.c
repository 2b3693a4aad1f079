#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include "wl_curl.h"

CURLcode wl_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
CURLcode wl_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
CURLcode wl_easy_setopt_ptr(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
CURLcode wl_easy_setopt_str(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
CURLcode wl_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }

CURLcode wl_easy_setopt_data_cb(CURL *h, CURLoption o, curl_write_callback cb) { return curl_easy_setopt(h, o, cb); }
CURLcode wl_easy_setopt_debug_cb(CURL *h, curl_debug_callback cb) { return curl_easy_setopt(h, CURLOPT_DEBUGFUNCTION, cb); }
CURLcode wl_easy_setopt_prereq_cb(CURL *h, curl_prereq_callback cb) { return curl_easy_setopt(h, CURLOPT_PREREQFUNCTION, cb); }
CURLcode wl_easy_setopt_seek_cb(CURL *h, curl_seek_callback cb) { return curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, cb); }
CURLcode wl_easy_setopt_sockopt_cb(CURL *h, curl_sockopt_callback cb) { return curl_easy_setopt(h, CURLOPT_SOCKOPTFUNCTION, cb); }
CURLcode wl_easy_setopt_xferinfo_cb(CURL *h, curl_xferinfo_callback cb) { return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, cb); }
CURLcode wl_easy_setopt_closesocket_cb(CURL *h, curl_closesocket_callback cb) { return curl_easy_setopt(h, CURLOPT_CLOSESOCKETFUNCTION, cb); }
CURLcode wl_easy_setopt_opensocket_cb(CURL *h, curl_opensocket_callback cb) { return curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, cb); }

CURLcode wl_easy_getinfo_long(CURL *h, CURLINFO i, long *out) { return curl_easy_getinfo(h, i, out); }
CURLcode wl_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *out) { return curl_easy_getinfo(h, i, out); }
CURLcode wl_easy_getinfo_double(CURL *h, CURLINFO i, double *out) { return curl_easy_getinfo(h, i, out); }
CURLcode wl_easy_getinfo_str(CURL *h, CURLINFO i, const char **out) { return curl_easy_getinfo(h, i, out); }
CURLcode wl_easy_getinfo_ptr(CURL *h, CURLINFO i, void **out) { return curl_easy_getinfo(h, i, out); }
CURLcode wl_easy_getinfo_socket(CURL *h, CURLINFO i, curl_socket_t *out) { return curl_easy_getinfo(h, i, out); }

int wl_curl_sockaddr_ip(const struct curl_sockaddr *a, unsigned char out[16]) {
    if (a->family == AF_INET && a->addrlen >= sizeof(struct sockaddr_in)) {
        memcpy(out, &((const struct sockaddr_in *)&a->addr)->sin_addr, 4);
        return 4;
    }
    if (a->family == AF_INET6 && a->addrlen >= sizeof(struct sockaddr_in6)) {
        memcpy(out, &((const struct sockaddr_in6 *)&a->addr)->sin6_addr, 16);
        return 16;
    }
    return 0;
}

curl_socket_t wl_curl_open_socket(const struct curl_sockaddr *a) {
    return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}

curl_socket_t wl_curl_open_socket_protocol(const struct curl_sockaddr *a, int protocol) {
    if (a->protocol == IPPROTO_TCP && protocol != IPPROTO_TCP) {
        curl_socket_t s = socket(a->family, a->socktype | SOCK_CLOEXEC, protocol);
        /* A kernel without the protocol (built without MPTCP, or net.mptcp.enabled=0) refuses it: plain TCP then. */
        if (s != CURL_SOCKET_BAD || (errno != EPROTONOSUPPORT && errno != EINVAL && errno != ENOPROTOOPT)) return s;
    }
    return wl_curl_open_socket(a);
}

curl_socket_t wl_socket_bad(void) { return CURL_SOCKET_BAD; }

CURLMcode wl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }

int wl_prereq_ok(void) { return CURL_PREREQFUNC_OK; }
size_t wl_readfunc_abort(void) { return CURL_READFUNC_ABORT; }
int wl_sockopt_ok(void) { return CURL_SOCKOPT_OK; }
int wl_sockopt_error(void) { return CURL_SOCKOPT_ERROR; }
int wl_seekfunc_ok(void) { return CURL_SEEKFUNC_OK; }
int wl_seekfunc_cantseek(void) { return CURL_SEEKFUNC_CANTSEEK; }
long wl_http_version_1_1(void) { return CURL_HTTP_VERSION_1_1; }
long wl_http_version_2tls(void) { return CURL_HTTP_VERSION_2TLS; }
long wl_http_version_2_0(void) { return CURL_HTTP_VERSION_2_0; }
long wl_http_version_2_prior_knowledge(void) { return CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE; }
long wl_http_version_3(void) { return CURL_HTTP_VERSION_3; }
long wl_http_version_3only(void) { return CURL_HTTP_VERSION_3ONLY; }

long wl_sslversion_min(int minor) {
    switch (minor) {
    case 0: return CURL_SSLVERSION_TLSv1_0;
    case 1: return CURL_SSLVERSION_TLSv1_1;
    case 2: return CURL_SSLVERSION_TLSv1_2;
    case 3: return CURL_SSLVERSION_TLSv1_3;
    default: return CURL_SSLVERSION_DEFAULT;
    }
}

long wl_sslversion_max(int minor) {
    switch (minor) {
    case 0: return CURL_SSLVERSION_MAX_TLSv1_0;
    case 1: return CURL_SSLVERSION_MAX_TLSv1_1;
    case 2: return CURL_SSLVERSION_MAX_TLSv1_2;
    case 3: return CURL_SSLVERSION_MAX_TLSv1_3;
    default: return CURL_SSLVERSION_MAX_DEFAULT;
    }
}

long wl_pipe_nothing(void) { return CURLPIPE_NOTHING; }
long wl_pipe_multiplex(void) { return CURLPIPE_MULTIPLEX; }

int wl_socket_local_port(int fd) {
    struct sockaddr_storage address;
    socklen_t length = sizeof address;
    if (getsockname(fd, (struct sockaddr *)&address, &length) != 0) return -1;
    if (address.ss_family == AF_INET) return ntohs(((struct sockaddr_in *)&address)->sin_port);
    if (address.ss_family == AF_INET6) return ntohs(((struct sockaddr_in6 *)&address)->sin6_port);
    return -1;
}

int wl_socket_unacknowledged(int fd) {
    int bytes = 0;
    /* SIOCOUTQ (linux/sockios.h, = TIOCOUTQ): bytes in the send queue the peer has not acknowledged yet. */
    if (ioctl(fd, TIOCOUTQ, &bytes) != 0) return -1;
    return bytes;
}

int wl_socket_unread(int fd) {
    int bytes = 0;
    /* SIOCINQ (linux/sockios.h, = FIONREAD): bytes in the receive queue the application has not read yet. */
    if (ioctl(fd, FIONREAD, &bytes) != 0) return -1;
    return bytes;
}

int wl_wake_create(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }
void wl_wake_signal(int fd) { eventfd_write(fd, 1); }
void wl_wake_drain(int fd) { eventfd_t value; (void)eventfd_read(fd, &value); }

CURLSH *wl_share_cookies(void) {
    CURLSH *share = curl_share_init();
    if(!share) return NULL;
    if(curl_share_setopt(share, CURLSHOPT_SHARE, (long)CURL_LOCK_DATA_COOKIE) != CURLSHE_OK) {
        curl_share_cleanup(share);
        return NULL;
    }
    return share;
}

static FILE *wl_null_stream;
static pthread_once_t wl_null_stream_once = PTHREAD_ONCE_INIT;
static void wl_open_null_stream(void) { wl_null_stream = fopen("/dev/null", "w"); }

CURLcode wl_easy_setopt_stderr_null(CURL *h) {
    pthread_once(&wl_null_stream_once, wl_open_null_stream);
    if (wl_null_stream == NULL) return CURLE_WRITE_ERROR;
    return curl_easy_setopt(h, CURLOPT_STDERR, wl_null_stream);
}
