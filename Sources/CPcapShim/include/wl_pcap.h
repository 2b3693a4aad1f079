/// libpcap's functions that Wirelens calls, bound at run time.
///
/// libpcap and the libraries it needs (libdbus, libsystemd, libgcrypt, liblz4, liblzma, libcap...) are not linked
/// into the binary: loading them cost every process about 1.1 ms of its start, where only capture reading and
/// writing use them. The table is filled on its first request; each member has the exact type of the function the
/// header declares (`__typeof__`), so a call through it is checked as a direct call would be.
#ifndef WL_PCAP_H
#define WL_PCAP_H

#include <pcap/pcap.h>

typedef struct wl_pcap_api {
    __typeof__(pcap_lib_version) *_Nonnull lib_version;
    __typeof__(pcap_fopen_offline_with_tstamp_precision) *_Nonnull fopen_offline_with_tstamp_precision;
    __typeof__(pcap_create) *_Nonnull create;
    __typeof__(pcap_set_snaplen) *_Nonnull set_snaplen;
    __typeof__(pcap_set_immediate_mode) *_Nonnull set_immediate_mode;
    __typeof__(pcap_set_buffer_size) *_Nonnull set_buffer_size;
    __typeof__(pcap_set_timeout) *_Nonnull set_timeout;
    __typeof__(pcap_set_tstamp_precision) *_Nonnull set_tstamp_precision;
    __typeof__(pcap_activate) *_Nonnull activate;
    __typeof__(pcap_setnonblock) *_Nonnull setnonblock;
    __typeof__(pcap_get_selectable_fd) *_Nonnull get_selectable_fd;
    __typeof__(pcap_datalink) *_Nonnull datalink;
    __typeof__(pcap_datalink_val_to_name) *_Nonnull datalink_val_to_name;
    __typeof__(pcap_snapshot) *_Nonnull snapshot;
    __typeof__(pcap_next_ex) *_Nonnull next_ex;
    __typeof__(pcap_dispatch) *_Nonnull dispatch;
    __typeof__(pcap_stats) *_Nonnull stats;
    __typeof__(pcap_geterr) *_Nonnull geterr;
    __typeof__(pcap_compile) *_Nonnull compile;
    __typeof__(pcap_setfilter) *_Nonnull setfilter;
    __typeof__(pcap_freecode) *_Nonnull freecode;
    __typeof__(pcap_dump_open) *_Nonnull dump_open;
    __typeof__(pcap_dump) *_Nonnull dump;
    __typeof__(pcap_dump_flush) *_Nonnull dump_flush;
    __typeof__(pcap_dump_close) *_Nonnull dump_close;
    __typeof__(pcap_close) *_Nonnull close;
} wl_pcap_api;

/// The table (every member set), loaded on the first call (once per process, safe from any thread); NULL when libpcap cannot be
/// loaded or lacks one of the functions, with the reason in `*error` (a string that lives as long as the process).
const wl_pcap_api *_Nullable wl_pcap_api_get(const char *_Nullable *_Nullable error);

#endif
