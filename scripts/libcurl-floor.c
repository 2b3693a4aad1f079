/* The physical limit for the GET benchmark: libcurl's multi interface with nothing else.
 * N GETs of one URL, P in flight, easy handles reused, bodies discarded, no timing.
 * Usage: libcurl-floor URL N P [instrumented]. Prints the number of transfers that succeeded.
 *
 * With "instrumented", every transfer also gets the libcurl options Wirelens itself sets for a GET
 * (verbose text through a debug callback, header and prerequest callbacks, an error buffer and a
 * User-Agent header list), with callbacks that do no work: the gap between the two modes is
 * libcurl's own cost of what Wirelens asks of it, the rest of Wirelens' distance is its own. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int instrumented;
static struct curl_slist *headers;

static size_t discard(char *data, size_t size, size_t count, void *user) {
    (void)data; (void)user;
    return size * count;
}

static int quiet_debug(CURL *easy, curl_infotype type, char *data, size_t size, void *user) {
    (void)easy; (void)type; (void)data; (void)size; (void)user;
    return 0;
}

static int ready(void *user, char *remote_ip, char *local_ip, int remote_port, int local_port) {
    (void)user; (void)remote_ip; (void)local_ip; (void)remote_port; (void)local_port;
    return CURL_PREREQFUNC_OK;
}

static void start(CURLM *multi, CURL *easy, const char *url, char *error_buffer) {
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
    if (instrumented) {
        curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, error_buffer);
        curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, discard);
        curl_easy_setopt(easy, CURLOPT_PREREQFUNCTION, ready);
        curl_easy_setopt(easy, CURLOPT_DEBUGFUNCTION, quiet_debug);
        curl_easy_setopt(easy, CURLOPT_VERBOSE, 1L);
        curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    }
    curl_multi_add_handle(multi, easy);
}

int main(int argc, char **argv) {
    if (argc != 4 && argc != 5) { fprintf(stderr, "usage: %s URL N P [instrumented]\n", argv[0]); return 2; }
    const char *url = argv[1];
    long total = atol(argv[2]), parallel = atol(argv[3]), started = 0, ok = 0, done = 0;
    instrumented = argc == 5 && strcmp(argv[4], "instrumented") == 0;
    if (parallel < 1 || parallel > 1024) { fprintf(stderr, "P must be 1..1024\n"); return 2; }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    headers = curl_slist_append(NULL, "User-Agent: wirelens-floor");
    static char error_buffers[1024][CURL_ERROR_SIZE];
    CURL *handles[1024];
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, parallel);
    for (; started < parallel && started < total; started++) {
        handles[started] = curl_easy_init();
        curl_easy_setopt(handles[started], CURLOPT_PRIVATE, error_buffers[started]);
        start(multi, handles[started], url, error_buffers[started]);
    }
    while (done < total) {
        int running = 0, left = 0;
        curl_multi_perform(multi, &running);
        CURLMsg *msg;
        while ((msg = curl_multi_info_read(multi, &left))) {
            if (msg->msg != CURLMSG_DONE) continue;
            CURL *easy = msg->easy_handle;
            char *error_buffer = NULL;
            curl_easy_getinfo(easy, CURLINFO_PRIVATE, &error_buffer);
            if (msg->data.result == CURLE_OK) ok++;
            done++;
            curl_multi_remove_handle(multi, easy);
            if (started < total) {
                curl_easy_reset(easy);
                curl_easy_setopt(easy, CURLOPT_PRIVATE, error_buffer);
                start(multi, easy, url, error_buffer);
                started++;
            }
        }
        if (done < total) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    for (long i = 0; i < parallel && i < total; i++) curl_easy_cleanup(handles[i]);
    curl_multi_cleanup(multi);
    curl_slist_free_all(headers);
    printf("%ld\n", ok);
    return ok == total ? 0 : 1;
}
