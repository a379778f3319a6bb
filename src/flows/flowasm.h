/*
 * flowasm.h -- from flow records to flows and messages.
 *
 * Records (packets or collector flow records, see flow.h) are grouped into
 * flows by 5-tuple plus RoCE destination QP with an idle timeout, and each
 * flow's traffic into messages: runs of records separated by less than
 * `msg_gap` seconds.  Hosts are numbered in order of first appearance.
 * Memory is bounded by the number of live flows, not by the input size:
 * finished messages are handed to the caller (or kept in a flow_set).
 */
#ifndef TS_FLOWASM_H
#define TS_FLOWASM_H

#include <stddef.h>
#include <stdint.h>

#include "flows/flow.h"
#include "flows/flowset.h"

struct stat;

/*
 * Pure ACKs (TCP without payload, SYN, FIN or RST; RoCE RC ACKNOWLEDGE
 * packets) never open a message: one that arrives while a message of its
 * flow is open (within msg_gap of the message's last data) is counted in
 * it without extending it; any other is only counted in
 * ack_pkts/ack_bytes.  Records whose payload is unknown
 * (collector flow records) are always data.  Flows are per file: the end
 * of a file closes every flow it opened.
 */

/*
 * Read every capture in paths[0..n) (format detected from content) and
 * assemble them into *set (initialised here; free with flow_set_free()).
 * Unreadable records are skipped with a warning line written to `warn`
 * (may be NULL) naming file and record; a file that cannot be read at all
 * fails with -1 and *cause.  Returns 0.
 */
int flow_set_load(struct flow_set *set, const char *const *paths, size_t n,
    const struct flow_params *p, void (*warn)(void *arg, const char *msg),
    void *warn_arg, char **cause);
/*
 * The format of the capture or flow file at path, judged from its content
 * ("pcap", "pcapng", "nfdump-csv", "zeek-conn", "flow-csv", "flow-tsv";
 * static), or NULL when it is not one flow_set_load() reads.
 */
const char *flow_probe(const char *path);

/*
 * The captures under directory dir (searched 4 levels deep, hidden
 * entries skipped), sorted by path, in *paths (allocated array of
 * allocated strings; free with flow_paths_free()).  When packet captures
 * (pcap/pcapng) are found, flow-record files are left out: they are
 * usually made from the same packets.  Returns 0 (with *n possibly 0), or
 * -1 with *cause when dir cannot be read.
 */
int flow_find_captures(const char *dir, char ***paths, size_t *n,
    char **cause);
/*
 * flow_find_captures(), but a regular file for which skip(arg, rel, sb)
 * returns 1 is taken as no capture without being opened: rel is its path
 * relative to dir, sb what stat() said of it.  The caller answers 1 only
 * for a file flow_probe() is known to find no capture in.
 */
int flow_find_captures_but(const char *dir,
    int (*skip)(void *arg, const char *rel, const struct stat *sb),
    void *arg, char ***paths, size_t *n, char **cause);
void flow_paths_free(char **paths, size_t n);

/*
 * Lower level, for callers with their own record source: start an empty
 * set, feed records (any order within a file, ideally by time), close
 * each file with flow_asm_end_file(), and flow_asm_finish() to sort.
 */
struct flow_asm;
struct flow_asm *flow_asm_new(struct flow_set *set, const struct flow_params *p);
void flow_asm_add(struct flow_asm *a, const struct flow_rec *r);
void flow_asm_end_file(struct flow_asm *a);
/* Flows alive now, and the most alive at once so far (memory bound). */
size_t flow_asm_live(const struct flow_asm *a);
size_t flow_asm_peak(const struct flow_asm *a);
/* Flush, sort the messages and free a (the set stays). */
void flow_asm_finish(struct flow_asm *a);

#endif
