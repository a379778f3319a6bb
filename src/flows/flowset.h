/*
 * flowset.h -- a job's flows as they are kept: hosts, messages, the
 * captures they came from, and the parameters that made them.
 *
 * The data model shared by the flow assembly that makes a set
 * (flowasm.h), the analysis that reads one (flowan.h) and the cache that
 * stores one (db/flowdb.h).  It reads nothing: what makes a set from
 * capture files is flowasm.h's flow_set_load().
 */
#ifndef TS_FLOWSET_H
#define TS_FLOWSET_H

#include <stddef.h>
#include <stdint.h>

#include "flows/flow.h"

/* One message (burst) from host `src` to host `dst`. */
struct flow_msg {
	uint32_t src, dst;	/* indices into flow_set.hosts */
	double start, end;	/* epoch seconds: first and last record */
	uint64_t bytes;		/* IP bytes */
	uint64_t payload;	/* transport payload bytes (0 when unknown) */
	uint64_t pkts;
	uint16_t sport, dport;
	uint8_t proto;
	uint8_t flags;		/* FLOW_F_* seen in the message */
	uint32_t qp;
	uint32_t ce, cnp;
};

struct flow_params {
	double idle_timeout;	/* seconds without traffic that end a flow (default 2.0) */
	double msg_gap;		/* gap that splits a flow into messages (default 0.001) */
};

/* One input file of a flow_set: what was read from it. */
struct flow_capture {
	char *path;
	const char *format;	/* static: "pcap", "pcapng", "nfdump-csv", ... */
	uint64_t size;		/* file size and mtime when read */
	double mtime;
	uint64_t records;	/* records used */
	uint64_t skipped;	/* damaged records skipped with a warning */
	double first, last;	/* time span of its records (0 when none) */
};

/* All messages of a capture, sorted by start time, and the host table. */
struct flow_set {
	struct flow_addr *hosts;
	size_t nhosts;
	struct flow_msg *msgs;
	size_t nmsgs;
	uint64_t nrecs;		/* records read */
	uint64_t nflows;	/* flows formed */
	double first, last;	/* time span of the records */
	uint64_t bytes, pkts;	/* totals over all records, pure ACKs too */
	uint64_t ack_pkts;	/* pure ACKs (TCP, RoCE) that joined no message */
	uint64_t ack_bytes;
	uint64_t nwarn;		/* warnings issued while reading */
	struct flow_capture *caps;	/* one per input file */
	size_t ncaps;
};

/* The default parameters: idle timeout 2 s, message gap 1 ms. */
void flow_params_default(struct flow_params *p);
/* Free everything a flow_set holds and zero it; NULL-safe. */
void flow_set_free(struct flow_set *set);

/*
 * The version of message assembly (readers included): a flow set stored
 * in the cache by another version is made again from its captures.  Raise
 * it with every change to what a capture assembles into.
 */
#define FLOW_ASM_VERSION	1

#endif
