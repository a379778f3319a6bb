/*
 * flowread.h -- the capture readers behind flow_set_load().
 *
 * A reader turns one file into a stream of flow records handed to a sink,
 * one at a time, in file order; memory stays bounded whatever the file
 * size.  flow_read_file() detects the format from the content (pcap and
 * pcapng magic numbers, gzip, Zeek's #separator/#fields header, nfdump's
 * CSV header, any other CSV header naming flow columns) and dispatches.
 * Damaged records are skipped with a warning naming file and record; the
 * rest of the file is still used.
 */
#ifndef TS_FLOWREAD_H
#define TS_FLOWREAD_H

#include <stdint.h>
#include <stdio.h>

#include "flows/flow.h"

/* Where records and warnings go.  warn may be NULL. */
struct flow_sink {
	void (*emit)(void *arg, const struct flow_rec *r);
	void *arg;
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
	uint64_t nwarn;		/* warnings issued so far (counted here) */
};

/* What a reader found in one file. */
struct flow_readinfo {
	const char *format;	/* static: "pcap", "pcapng", "nfdump-csv", ... */
	uint64_t records;	/* records emitted */
	uint64_t skipped;	/* records skipped with a warning */
	uint64_t ignored;	/* records silently ignored (not IP, ARP, ...) */
	double first, last;	/* time span of emitted records; 0 when none */
};

/* Issue a warning through the sink (counted even when warn is NULL). */
void flow_sink_warn(struct flow_sink *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Account a record in info and hand it to the sink. */
void flow_sink_emit(struct flow_sink *s, struct flow_readinfo *info,
    const struct flow_rec *r);

/*
 * Read any supported capture or flow file.  Returns 0 (possibly with
 * warnings), or -1 with *cause when the file cannot be opened or is not a
 * format we know.
 */
int flow_read_file(const char *path, struct flow_sink *s,
    struct flow_readinfo *info, char **cause);

/*
 * pcap/pcapng from a stdio stream (which the reader closes) or a path;
 * `name` is used in messages.  An unknown link type fails with -1.
 */
int pcapread_fp(FILE *fp, const char *name, struct flow_sink *s,
    struct flow_readinfo *info, char **cause);
int pcapread_file(const char *path, struct flow_sink *s,
    struct flow_readinfo *info, char **cause);

enum {
	PCAP_DEC_OK = 0,	/* *r filled */
	PCAP_DEC_IGNORE = 1,	/* not IP, or a transport we do not count */
	PCAP_DEC_CUT = 2	/* the snap length cut the headers */
};
/* 1 when libpcap link type `dlt` is one we decode, else 0. */
int pcapread_dlt_ok(int dlt);
/*
 * Decode one frame of link type `dlt` (caplen bytes captured of wirelen)
 * at time ts into *r; returns a PCAP_DEC_* value.
 */
int pcapread_decode(int dlt, const uint8_t *p, uint32_t caplen,
    uint32_t wirelen, double ts, struct flow_rec *r);

/*
 * Text flow files: one parser per file, fed line by line (without the
 * newline; the line may be modified).  flowcsv_new() takes the file name
 * for messages; flowcsv_line() returns 0, or -1 with *cause when the
 * header is not one we understand (the file cannot be read at all).
 */
struct flowcsv;
struct flowcsv *flowcsv_new(const char *name);
int flowcsv_line(struct flowcsv *c, char *line, uint64_t lineno,
    struct flow_sink *s, struct flow_readinfo *info, char **cause);
/* The format once the header was seen ("zeek-conn", ...), else NULL. */
const char *flowcsv_format(const struct flowcsv *c);
/* Summarise warnings that were not printed one by one. */
void flowcsv_end(struct flowcsv *c, struct flow_sink *s);
void flowcsv_free(struct flowcsv *c);
/* Read a text flow file (plain or gzip). */
int flowcsv_file(const char *path, struct flow_sink *s,
    struct flow_readinfo *info, char **cause);

#endif
