#include "wl_pcap.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static wl_pcap_api table;
static int loaded;
static char reason[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/// Debian's soname first, then other distributions' and the development link.
static const char *const library_names[] = {"libpcap.so.0.8", "libpcap.so.1", "libpcap.so"};

/// Opens libpcap (kept open for the life of the process: the table points into it) and binds every member.
static void load(void) {
    void *library = NULL;
    for (size_t i = 0; i < sizeof library_names / sizeof library_names[0] && library == NULL; i++) {
        library = dlopen(library_names[i], RTLD_NOW | RTLD_LOCAL);
    }
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(reason, sizeof reason, "libpcap cannot be loaded (%s); install libpcap0.8",
                 why ? why : "no libpcap.so.0.8 on the library path");
        return;
    }
#define WL_BIND(member, symbol)                                                                          \
    table.member = (__typeof__(table.member))dlsym(library, #symbol);                                   \
    if (table.member == NULL) {                                                                          \
        snprintf(reason, sizeof reason, "the libpcap found lacks %s; install libpcap0.8 1.5 or later", #symbol); \
        return;                                                                                          \
    }
    WL_BIND(lib_version, pcap_lib_version)
    WL_BIND(fopen_offline_with_tstamp_precision, pcap_fopen_offline_with_tstamp_precision)
    WL_BIND(create, pcap_create)
    WL_BIND(set_snaplen, pcap_set_snaplen)
    WL_BIND(set_immediate_mode, pcap_set_immediate_mode)
    WL_BIND(set_buffer_size, pcap_set_buffer_size)
    WL_BIND(set_timeout, pcap_set_timeout)
    WL_BIND(set_tstamp_precision, pcap_set_tstamp_precision)
    WL_BIND(activate, pcap_activate)
    WL_BIND(setnonblock, pcap_setnonblock)
    WL_BIND(get_selectable_fd, pcap_get_selectable_fd)
    WL_BIND(datalink, pcap_datalink)
    WL_BIND(datalink_val_to_name, pcap_datalink_val_to_name)
    WL_BIND(snapshot, pcap_snapshot)
    WL_BIND(next_ex, pcap_next_ex)
    WL_BIND(dispatch, pcap_dispatch)
    WL_BIND(stats, pcap_stats)
    WL_BIND(geterr, pcap_geterr)
    WL_BIND(compile, pcap_compile)
    WL_BIND(setfilter, pcap_setfilter)
    WL_BIND(freecode, pcap_freecode)
    WL_BIND(dump_open, pcap_dump_open)
    WL_BIND(dump, pcap_dump)
    WL_BIND(dump_flush, pcap_dump_flush)
    WL_BIND(dump_close, pcap_dump_close)
    WL_BIND(close, pcap_close)
#undef WL_BIND
    loaded = 1;
}

const wl_pcap_api *_Nullable wl_pcap_api_get(const char *_Nullable *_Nullable error) {
    pthread_once(&once, load);
    if (!loaded) {
        if (error != NULL) *error = reason;
        return NULL;
    }
    return &table;
}
