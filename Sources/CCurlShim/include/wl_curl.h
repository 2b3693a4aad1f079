/// Typed wrappers for libcurl's variadic setopt/getinfo calls.
///
/// Swift cannot call C variadic functions, and passing a value of the wrong
/// width through `...` is undefined behaviour. Each wrapper takes exactly the
/// type libcurl documents for its option family (`long`, `curl_off_t`, a
/// pointer, a string, or a callback of the right prototype).
#ifndef WL_CURL_H
#define WL_CURL_H

#include <curl/curl.h>

CURLcode wl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode wl_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
CURLcode wl_easy_setopt_ptr(CURL *handle, CURLoption option, void *value);
CURLcode wl_easy_setopt_str(CURL *handle, CURLoption option, const char *value);
CURLcode wl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);

/// WRITEFUNCTION, HEADERFUNCTION and READFUNCTION share this prototype.
CURLcode wl_easy_setopt_data_cb(CURL *handle, CURLoption option, curl_write_callback cb);
CURLcode wl_easy_setopt_debug_cb(CURL *handle, curl_debug_callback cb);
CURLcode wl_easy_setopt_prereq_cb(CURL *handle, curl_prereq_callback cb);
CURLcode wl_easy_setopt_seek_cb(CURL *handle, curl_seek_callback cb);
CURLcode wl_easy_setopt_sockopt_cb(CURL *handle, curl_sockopt_callback cb);
CURLcode wl_easy_setopt_xferinfo_cb(CURL *handle, curl_xferinfo_callback cb);
CURLcode wl_easy_setopt_closesocket_cb(CURL *handle, curl_closesocket_callback cb);
CURLcode wl_easy_setopt_opensocket_cb(CURL *handle, curl_opensocket_callback cb);

CURLcode wl_easy_getinfo_long(CURL *handle, CURLINFO info, long *out);
CURLcode wl_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *out);
CURLcode wl_easy_getinfo_double(CURL *handle, CURLINFO info, double *out);
CURLcode wl_easy_getinfo_str(CURL *handle, CURLINFO info, const char **out);
CURLcode wl_easy_getinfo_ptr(CURL *handle, CURLINFO info, void **out);
CURLcode wl_easy_getinfo_socket(CURL *handle, CURLINFO info, curl_socket_t *out);

/* The local port a socket is bound to, or -1 (getsockname, IPv4 or IPv6). */
int wl_socket_local_port(int fd);
/* Bytes written to a TCP socket that its peer has not acknowledged yet (SIOCOUTQ), or -1. */
int wl_socket_unacknowledged(int fd);
/* Bytes that arrived on a TCP socket and were not read yet (SIOCINQ), or -1. */
int wl_socket_unread(int fd);

/* The IP address an OPENSOCKETFUNCTION is asked to connect to: its 4 (IPv4) or 16 (IPv6) bytes, network order, copied
   to out; returns the count, 0 for another family. */
int wl_curl_sockaddr_ip(const struct curl_sockaddr *address, unsigned char out[16]);
/* The socket libcurl would have made for the address itself (close-on-exec), or CURL_SOCKET_BAD. */
curl_socket_t wl_curl_open_socket(const struct curl_sockaddr *address);
/* The same, but a TCP socket (IPPROTO_TCP) made with `protocol` instead (IPPROTO_MPTCP); when the kernel refuses
   it (EPROTONOSUPPORT, EINVAL, ENOPROTOOPT) a plain TCP socket as libcurl would make. */
curl_socket_t wl_curl_open_socket_protocol(const struct curl_sockaddr *address, int protocol);
/// The value of CURL_SOCKET_BAD.
curl_socket_t wl_socket_bad(void);

/* A descriptor other threads make readable to wake a curl_multi_poll (eventfd, non-blocking, close-on-exec), -1 on
   failure; signal makes it readable, drain makes it quiet again. */
int wl_wake_create(void);
void wl_wake_signal(int fd);
void wl_wake_drain(int fd);

CURLMcode wl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);

/* A share handle that shares cookies (CURLSHOPT_SHARE, CURL_LOCK_DATA_COOKIE), or NULL. */
CURLSH *wl_share_cookies(void);

/// The value of the CURL_PREREQFUNC_OK macro (Swift does not import it).
int wl_prereq_ok(void);
/// The value of CURL_READFUNC_ABORT.
size_t wl_readfunc_abort(void);
/// The value of CURL_SEEKFUNC_OK / CURL_SEEKFUNC_FAIL / CURL_SEEKFUNC_CANTSEEK.
int wl_seekfunc_ok(void);
int wl_sockopt_ok(void);
int wl_sockopt_error(void);
int wl_seekfunc_cantseek(void);
/// CURL_HTTP_VERSION_* and CURLPIPE_* constants as plain longs.
long wl_http_version_1_1(void);
long wl_http_version_2tls(void);
long wl_http_version_2_0(void);
long wl_http_version_2_prior_knowledge(void);
long wl_http_version_3(void);
long wl_http_version_3only(void);
/// CURLOPT_SSLVERSION's CURL_SSLVERSION_TLSv1_<minor> (the lowest version) and CURL_SSLVERSION_MAX_TLSv1_<minor>
/// (the highest); a minor outside 0...3 gives CURL_SSLVERSION_DEFAULT and CURL_SSLVERSION_MAX_DEFAULT.
long wl_sslversion_min(int minor);
/// CURLOPT_STDERR set to /dev/null (opened once for the process). libcurl 7.88's DNS-over-HTTPS transfers take
/// CURLOPT_VERBOSE and CURLOPT_STDERR from the transfer they resolve for, but not its debug callback: without this
/// they would print their verbose text to the process's stderr.
CURLcode wl_easy_setopt_stderr_null(CURL *h);
long wl_sslversion_max(int minor);
long wl_pipe_nothing(void);
long wl_pipe_multiplex(void);

#endif
