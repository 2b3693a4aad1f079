/* The physical limit for the GET benchmark: libcurl's multi interface with nothing else.
 * N GETs of one URL, P in flight, easy handles reused, bodies discarded, no verbose output,
 * no timing. Usage: libcurl-floor URL N P. Prints the number of transfers that succeeded. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>

static size_t discard(char *data, size_t size, size_t count, void *user) {
    (void)data; (void)user;
    return size * count;
}

static void start(CURLM *multi, CURL *easy, const char *url) {
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
    curl_multi_add_handle(multi, easy);
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: %s URL N P\n", argv[0]); return 2; }
    const char *url = argv[1];
    long total = atol(argv[2]), parallel = atol(argv[3]), started = 0, ok = 0, done = 0;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, parallel);
    for (; started < parallel && started < total; started++) start(multi, curl_easy_init(), url);
    while (done < total) {
        int running = 0, left = 0;
        curl_multi_perform(multi, &running);
        CURLMsg *msg;
        while ((msg = curl_multi_info_read(multi, &left))) {
            if (msg->msg != CURLMSG_DONE) continue;
            CURL *easy = msg->easy_handle;
            if (msg->data.result == CURLE_OK) ok++;
            done++;
            curl_multi_remove_handle(multi, easy);
            if (started < total) {
                curl_easy_reset(easy);
                start(multi, easy, url);
                started++;
            } else {
                curl_easy_cleanup(easy);
            }
        }
        if (done < total) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    curl_multi_cleanup(multi);
    printf("%ld\n", ok);
    return ok == total ? 0 : 1;
}
