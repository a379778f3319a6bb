/*
 * flowcsv.c -- flow records from text: nfdump CSV, Zeek conn.log and any
 * CSV (or TSV) whose header names its columns.
 *
 * The first line decides.  Zeek files start with '#separator' and name
 * their fields on a '#fields' line; nfdump's `-o csv` header starts
 * "ts,te,td,sa,da"; any other header is matched column by column against
 * the usual names (start/ts/time/first, src/srcaddr/sa/src_ip, bytes/
 * octets, ... and tshark's field names), and must name at least a time,
 * a source and a destination.  Zeek and nfdump records carry both
 * directions and become two records.  Times are epoch seconds
 * (milliseconds and microseconds are recognised by size) or ISO 8601;
 * an ISO time without a zone is UTC.  A row that does not fit its header
 * is skipped with a FILE:LINE warning and the rest of the file is used.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <zlib.h>

#include "flows/flowread.h"
#include "base/util.h"

#define MAX_ROW_WARNINGS 10
#define MAX_FIELDS 256
#define MAX_LINE (1 << 20)

enum col {
	C_START, C_END, C_DUR, C_SRC, C_DST, C_SPORT, C_DPORT, C_PROTO,
	C_BYTES, C_PKTS, C_PAYLOAD, C_FLAGS, C_QP, C_ECN, C_CE, C_CNP,
	C_OPCODE,
	/* the reverse direction (Zeek, nfdump bidirectional records) */
	C_RBYTES, C_RPKTS, C_RPAYLOAD, C_HISTORY,
	C_NCOLS
};

enum kind { K_GENERIC, K_NFDUMP, K_ZEEK };

struct flowcsv {
	char *name;
	enum kind kind;
	int have_header;
	int done;		/* nfdump's trailing summary reached */
	char sep;
	int ncols;		/* fields per row */
	int col[C_NCOLS];	/* field index of each column, -1 absent */
	uint8_t default_proto;
	uint64_t bad;
};

/* Names for the generic header; Zeek and nfdump use their own below. */
static const struct {
	enum col col;
	const char *names;	/* space separated, lowercase */
} generic_names[] = {
	{ C_START, "start ts time first start_time starttime stime "
	    "timestamp first_seen first_switched flow_start bin_start_epoch "
	    "frame.time_epoch time_start" },
	{ C_END, "end te last end_time endtime etime last_seen "
	    "last_switched flow_end time_end" },
	{ C_DUR, "duration dur td bin_s" },
	{ C_SRC, "src srcaddr sa src_ip srcip source saddr src_addr ip.src "
	    "ipv6.src ipv4_src_addr source_ip id.orig_h" },
	{ C_DST, "dst dstaddr da dst_ip dstip destination daddr dst_addr "
	    "ip.dst ipv6.dst ipv4_dst_addr destination_ip dest id.resp_h" },
	{ C_SPORT, "sport sp src_port srcport tcp.srcport udp.srcport "
	    "l4_src_port source_port id.orig_p" },
	{ C_DPORT, "dport dp dst_port dstport tcp.dstport udp.dstport "
	    "l4_dst_port destination_port dest_port id.resp_p" },
	{ C_PROTO, "proto protocol pr ip.proto ip_proto l4_proto" },
	{ C_BYTES, "bytes octets ibyt byt in_bytes doctets frame.len ip.len "
	    "bytes_total" },
	{ C_PKTS, "packets pkts ipkt in_pkts dpkts packet_count frames" },
	{ C_PAYLOAD, "payload payload_bytes tcp.len" },
	{ C_FLAGS, "flags tcp_flags tcp_flags_or tcp.flags flg" },
	{ C_QP, "qp dest_qp destqp infiniband.bth.destqp" },
	{ C_ECN, "ecn ip.dsfield.ecn tos" },
	{ C_CE, "ce ecn_ce ce_pkts" },
	{ C_CNP, "cnp cnp_pkts" },
	{ C_OPCODE, "opcode infiniband.bth.opcode bth_opcode" },
};

static const struct {
	enum col col;
	const char *name;
} zeek_names[] = {
	{ C_START, "ts" }, { C_DUR, "duration" }, { C_SRC, "id.orig_h" },
	{ C_DST, "id.resp_h" }, { C_SPORT, "id.orig_p" },
	{ C_DPORT, "id.resp_p" }, { C_PROTO, "proto" },
	{ C_BYTES, "orig_ip_bytes" }, { C_PKTS, "orig_pkts" },
	{ C_PAYLOAD, "orig_bytes" }, { C_RBYTES, "resp_ip_bytes" },
	{ C_RPKTS, "resp_pkts" }, { C_RPAYLOAD, "resp_bytes" },
	{ C_HISTORY, "history" },
};

static const struct {
	enum col col;
	const char *name;
} nfdump_names[] = {
	{ C_START, "ts" }, { C_END, "te" }, { C_DUR, "td" },
	{ C_SRC, "sa" }, { C_DST, "da" }, { C_SPORT, "sp" },
	{ C_DPORT, "dp" }, { C_PROTO, "pr" }, { C_FLAGS, "flg" },
	{ C_ECN, "stos" }, { C_PKTS, "ipkt" }, { C_BYTES, "ibyt" },
	{ C_RPKTS, "opkt" }, { C_RBYTES, "obyt" },
};

struct flowcsv *
flowcsv_new(const char *name)
{
	struct flowcsv *c = xcalloc(1, sizeof *c);

	c->name = xstrdup(name);
	return c;
}

void
flowcsv_free(struct flowcsv *c)
{
	if (c == NULL)
		return;
	free(c->name);
	free(c);
}

const char *
flowcsv_format(const struct flowcsv *c)
{
	if (!c->have_header)
		return NULL;
	switch (c->kind) {
	case K_ZEEK:
		return "zeek-conn";
	case K_NFDUMP:
		return "nfdump-csv";
	default:
		return c->sep == '\t' ? "flow-tsv" : "flow-csv";
	}
}

/*
 * Split line in place at sep into f[]; double quotes group (with ""
 * for a quote).  Returns the number of fields, or -1 past MAX_FIELDS.
 */
static int
split(char *line, char sep, char **f)
{
	char *r = line, *w;
	int n = 0, q;

	for (;;) {
		if (n == MAX_FIELDS)
			return -1;
		f[n++] = w = r;
		for (q = 0; *r != '\0'; r++) {
			if (*r == '"' && q && r[1] == '"')
				*w++ = *r++;
			else if (*r == '"')
				q = !q;
			else if (*r == sep && !q)
				break;
			else
				*w++ = *r;
		}
		if (*r == '\0') {
			*w = '\0';
			return n;
		}
		*w = '\0';
		r++;
	}
}

static void
trim(char *s)
{
	size_t n = strlen(s), i = 0;

	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (isspace((unsigned char)s[i]))
		i++;
	memmove(s, s + i, n - i + 1);
}

static int
name_in(const char *name, const char *list)
{
	size_t n = strlen(name);
	const char *p = list;

	if (n == 0)
		return 0;
	while ((p = strstr(p, name)) != NULL) {
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' ||
		    p[n] == '\0'))
			return 1;
		p++;
	}
	return 0;
}

static void
map_generic(struct flowcsv *c, char **f, int n)
{
	size_t k;
	int i;
	char *s;

	for (i = 0; i < n; i++) {
		s = f[i];
		trim(s);
		for (; *s != '\0'; s++)	/* "Start Time" is start_time */
			*s = *s == ' ' || *s == '-' ? '_' :
			    (char)tolower((unsigned char)*s);
		if (ts_startswith(f[i], "tcp"))
			c->default_proto = IPPROTO_TCP;
		for (k = 0; k < TS_NELEM(generic_names); k++)
			if (c->col[generic_names[k].col] < 0 &&
			    name_in(f[i], generic_names[k].names)) {
				c->col[generic_names[k].col] = i;
				break;
			}
	}
}

/* Fill c->col from the header fields f[0..n) for kind c->kind. */
static int
map_header(struct flowcsv *c, char **f, int n, char **cause)
{
	size_t k;
	int i;

	for (k = 0; k < C_NCOLS; k++)
		c->col[k] = -1;
	c->ncols = n;
	if (c->kind == K_GENERIC)
		map_generic(c, f, n);
	for (i = 0; c->kind != K_GENERIC && i < n; i++) {
		trim(f[i]);
		for (k = 0; c->kind == K_ZEEK && k < TS_NELEM(zeek_names); k++)
			if (strcmp(f[i], zeek_names[k].name) == 0)
				c->col[zeek_names[k].col] = i;
		for (k = 0; c->kind == K_NFDUMP && k < TS_NELEM(nfdump_names);
		    k++)
			if (strcmp(f[i], nfdump_names[k].name) == 0)
				c->col[nfdump_names[k].col] = i;
	}
	if ((c->col[C_START] < 0 && c->col[C_END] < 0) ||
	    c->col[C_SRC] < 0 || c->col[C_DST] < 0)
		return ts_fail(cause, "%s: not a capture or flow file "
		    "trainscope knows (the header names no time, source and "
		    "destination columns)", c->name);
	c->have_header = 1;
	return 0;
}

/* Zeek's "#separator \x09" line. */
static char
zeek_sep(const char *line)
{
	const char *p = line + strlen("#separator");
	unsigned int v;

	while (*p == ' ')
		p++;
	if (p[0] == '\\' && p[1] == 'x' && sscanf(p + 2, "%2x", &v) == 1 &&
	    v > 0 && v < 128)
		return (char)v;
	return *p != '\0' ? *p : '\t';
}

static int
header_line(struct flowcsv *c, char *line, char **cause)
{
	char *f[MAX_FIELDS];
	int n;

	if (ts_startswith(line, "#separator")) {
		c->kind = K_ZEEK;
		c->sep = zeek_sep(line);
		return 0;
	}
	if (c->kind == K_ZEEK) {
		if (!ts_startswith(line, "#fields"))
			return 0;	/* #set_separator, #path, #types ... */
		if ((n = split(line, c->sep, f)) < 2)
			return ts_fail(cause, "%s: empty #fields line", c->name);
		return map_header(c, f + 1, n - 1, cause);
	}
	if (ts_startswith(line, "ts,te,td,sa,da"))
		c->kind = K_NFDUMP;
	c->sep = strchr(line, '\t') != NULL && strchr(line, ',') == NULL ?
	    '\t' : strchr(line, ';') != NULL && strchr(line, ',') == NULL ?
	    ';' : ',';
	if ((n = split(line, c->sep, f)) < 0)
		return ts_fail(cause, "%s: header has too many fields",
		    c->name);
	return map_header(c, f, n, cause);
}

/* Epoch seconds (or ms/us by size), or ISO 8601 date and time. */
static int
parse_time(const char *s, double *out)
{
	struct tm tm;
	double sec, v;
	int y, mo, d, h, mi, used = 0, zh, zm;
	char sign;

	if (ts_parse_double(s, &v) == 0 && isfinite(v) && v >= 0) {
		*out = v > 1e14 ? v / 1e6 : v > 1e11 ? v / 1e3 : v;
		return 0;
	}
	if (sscanf(s, "%4d-%2d-%2d%*1[T ]%2d:%2d:%lf%n", &y, &mo, &d, &h, &mi,
	    &sec, &used) != 6 || sec < 0 || sec >= 61)
		return -1;
	memset(&tm, 0, sizeof tm);
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	v = (double)timegm(&tm) + sec;
	s += used;
	if (*s == 'Z' && s[1] == '\0')
		s++;
	else if (sscanf(s, "%c%2d:%2d", &sign, &zh, &zm) == 3 &&
	    (sign == '+' || sign == '-')) {
		v -= (sign == '+' ? 1 : -1) * (zh * 3600.0 + zm * 60.0);
		s += 6;
	}
	if (*s != '\0')
		return -1;
	*out = v;
	return 0;
}

static int
parse_u64(const char *s, uint64_t *out)
{
	char *end;
	double d;

	if (*s == '\0' || strcmp(s, "-") == 0 || strcmp(s, "(empty)") == 0) {
		*out = 0;
		return 0;
	}
	errno = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		*out = strtoull(s + 2, &end, 16);
	else if (isdigit((unsigned char)*s))
		*out = strtoull(s, &end, 10);
	else
		return -1;
	if (errno != 0)
		return -1;
	if (*end == '.' || *end == 'e' || *end == 'E') {	/* 1.5e3 */
		d = strtod(s, &end);
		if (!isfinite(d) || d < 0 || d > 1.8e19)
			return -1;
		*out = (uint64_t)d;
	}
	while (*end == ' ')
		end++;
	if (*end == 'M' || *end == 'G') {	/* nfdump "1.2 M" */
		d = strtod(s, NULL) * (*end == 'M' ? 1e6 : 1e9);
		if (!isfinite(d) || d < 0 || d > 1.8e19)
			return -1;
		*out = (uint64_t)d;
		end++;
	}
	return *end == '\0' ? 0 : -1;
}

static int
parse_proto(const char *s, uint8_t *out)
{
	uint64_t v;

	if (strcasecmp(s, "tcp") == 0)
		*out = IPPROTO_TCP;
	else if (strcasecmp(s, "udp") == 0)
		*out = IPPROTO_UDP;
	else if (strcasecmp(s, "icmp") == 0)
		*out = IPPROTO_ICMP;
	else if (strcasecmp(s, "icmp6") == 0 || strcasecmp(s, "ipv6-icmp") == 0)
		*out = IPPROTO_ICMPV6;
	else if (parse_u64(s, &v) == 0 && v < 256)
		*out = (uint8_t)v;
	else
		return -1;
	return 0;
}

/* TCP flags as a number (0x012) or nfdump letters ("...AP.SF"). */
static uint8_t
parse_flags(const char *s)
{
	uint64_t v;
	uint8_t f = 0;

	if (parse_u64(s, &v) == 0)
		return (uint8_t)((v & 2 ? FLOW_F_SYN : 0) |
		    (v & 1 ? FLOW_F_FIN : 0) | (v & 4 ? FLOW_F_RST : 0));
	if (strchr(s, 'S') != NULL)
		f |= FLOW_F_SYN;
	if (strchr(s, 'F') != NULL)
		f |= FLOW_F_FIN;
	if (strchr(s, 'R') != NULL)
		f |= FLOW_F_RST;
	return f;
}

/* Zeek history: upper case for the originator, lower for the responder. */
static uint8_t
history_flags(const char *h, int orig)
{
	uint8_t f = 0;

	for (; *h != '\0'; h++) {
		if ((isupper((unsigned char)*h) != 0) != orig)
			continue;
		switch (toupper((unsigned char)*h)) {
		case 'S':
			f |= FLOW_F_SYN;
			break;
		case 'F':
			f |= FLOW_F_FIN;
			break;
		case 'R':
			f |= FLOW_F_RST;
			break;
		}
	}
	return f;
}

static const char *
fld(const struct flowcsv *c, char **f, enum col k)
{
	return c->col[k] >= 0 ? f[c->col[k]] : NULL;
}

/* Field k as a number; absent is `dflt`, unparsable sets *bad. */
static uint64_t
num(const struct flowcsv *c, char **f, enum col k, uint64_t dflt, int *bad)
{
	const char *s = fld(c, f, k);
	uint64_t v;

	if (s == NULL)
		return dflt;
	if (parse_u64(s, &v) != 0) {
		*bad = 1;
		return 0;
	}
	return v;
}

/* Start and end of the row; -1 when neither parses. */
static int
row_times(const struct flowcsv *c, char **f, struct flow_rec *r)
{
	const char *s = fld(c, f, C_START), *e = fld(c, f, C_END);
	const char *d = fld(c, f, C_DUR);
	double dur = 0;

	if (d != NULL && (ts_parse_double(d, &dur) != 0 || !isfinite(dur) ||
	    dur < 0))
		dur = 0;
	if (s != NULL && parse_time(s, &r->start) != 0)
		return -1;
	if (e != NULL && parse_time(e, &r->end) != 0)
		return -1;
	if (s == NULL)
		r->start = r->end - dur;
	else if (e == NULL)
		r->end = r->start + dur;
	if (r->end < r->start)
		r->end = r->start;
	return 0;
}

/* Counters and markers of one direction. */
static int
row_counts(const struct flowcsv *c, char **f, struct flow_rec *r)
{
	uint64_t v;
	int bad = 0;

	r->bytes = num(c, f, C_BYTES, 0, &bad);
	r->pkts = num(c, f, C_PKTS, 1, &bad);
	if (c->col[C_PAYLOAD] >= 0) {
		r->payload = num(c, f, C_PAYLOAD, 0, &bad);
		r->flags |= FLOW_F_PAYLOAD;
	}
	if (c->col[C_FLAGS] >= 0)
		r->flags |= parse_flags(fld(c, f, C_FLAGS));
	r->qp = (uint32_t)num(c, f, C_QP, 0, &bad);
	if (c->kind == K_GENERIC && (num(c, f, C_ECN, 0, &bad) & 3) == 3)
		r->ce = (uint32_t)r->pkts;
	if ((v = num(c, f, C_CE, 0, &bad)) != 0)
		r->ce = (uint32_t)v;
	r->cnp = (uint32_t)num(c, f, C_CNP, 0, &bad);
	if ((v = num(c, f, C_OPCODE, 0, &bad)) == 0x81 && r->cnp == 0)
		r->cnp = (uint32_t)r->pkts;
	if (r->proto == IPPROTO_UDP && r->dport == 4791)
		r->flags |= FLOW_F_ROCE;
	if (r->cnp != 0)
		r->flags |= FLOW_F_CNP;
	return bad ? -1 : 0;
}

/* Parse the fields of one row into *r; a message on failure. */
static const char *
row_parse(const struct flowcsv *c, char **f, struct flow_rec *r)
{
	const char *p;
	uint64_t sp, dp;
	int bad = 0;

	memset(r, 0, sizeof *r);
	if (row_times(c, f, r) != 0)
		return "bad time";
	if (flow_addr_parse(fld(c, f, C_SRC), &r->src) != 0)
		return "bad source address";
	if (flow_addr_parse(fld(c, f, C_DST), &r->dst) != 0)
		return "bad destination address";
	sp = num(c, f, C_SPORT, 0, &bad);
	dp = num(c, f, C_DPORT, 0, &bad);
	if (bad || sp > 65535 || dp > 65535)
		return "bad port";
	r->sport = (uint16_t)sp;
	r->dport = (uint16_t)dp;
	r->proto = c->default_proto;
	if ((p = fld(c, f, C_PROTO)) != NULL && parse_proto(p, &r->proto) != 0)
		return "bad protocol";
	if (row_counts(c, f, r) != 0)
		return "bad number";
	if (c->kind == K_ZEEK && c->col[C_HISTORY] >= 0)
		r->flags |= history_flags(fld(c, f, C_HISTORY), 1);
	return NULL;
}

/* The other direction of a Zeek or nfdump record, if it has traffic. */
static int
row_reverse(const struct flowcsv *c, char **f, const struct flow_rec *fw,
    struct flow_rec *r)
{
	int bad = 0;

	memset(r, 0, sizeof *r);
	r->start = fw->start;
	r->end = fw->end;
	r->src = fw->dst;
	r->dst = fw->src;
	r->sport = fw->dport;
	r->dport = fw->sport;
	r->proto = fw->proto;
	r->bytes = num(c, f, C_RBYTES, 0, &bad);
	r->pkts = num(c, f, C_RPKTS, 0, &bad);
	if (bad || (r->bytes == 0 && r->pkts == 0))
		return 0;
	if (c->kind == K_ZEEK) {
		r->payload = num(c, f, C_RPAYLOAD, 0, &bad);
		r->flags |= FLOW_F_PAYLOAD;
		if (c->col[C_HISTORY] >= 0)
			r->flags |= history_flags(fld(c, f, C_HISTORY), 0);
	}
	return 1;
}

static void
bad_row(struct flowcsv *c, struct flow_sink *s, struct flow_readinfo *info,
    uint64_t lineno, const char *what, int n)
{
	info->skipped++;
	if (++c->bad > MAX_ROW_WARNINGS)
		return;
	if (n >= 0)
		flow_sink_warn(s, "%s:%llu: expected %d fields, found %d; row "
		    "skipped", c->name, (unsigned long long)lineno, c->ncols,
		    n);
	else
		flow_sink_warn(s, "%s:%llu: %s; row skipped", c->name,
		    (unsigned long long)lineno, what);
}

static void
data_line(struct flowcsv *c, char *line, uint64_t lineno,
    struct flow_sink *s, struct flow_readinfo *info)
{
	char *f[MAX_FIELDS];
	struct flow_rec r, rev;
	const char *why;
	int n;

	if ((n = split(line, c->sep, f)) != c->ncols) {
		bad_row(c, s, info, lineno, NULL, n < 0 ? MAX_FIELDS + 1 : n);
		return;
	}
	if ((why = row_parse(c, f, &r)) != NULL) {
		bad_row(c, s, info, lineno, why, -1);
		return;
	}
	flow_sink_emit(s, info, &r);
	if (c->kind != K_GENERIC && row_reverse(c, f, &r, &rev))
		flow_sink_emit(s, info, &rev);
}

int
flowcsv_line(struct flowcsv *c, char *line, uint64_t lineno,
    struct flow_sink *s, struct flow_readinfo *info, char **cause)
{
	size_t n = strlen(line);

	if (n > 0 && line[n - 1] == '\r')
		line[--n] = '\0';
	if (c->done)
		return 0;
	if (!c->have_header) {
		if (n == 0)
			return 0;
		return header_line(c, line, cause);
	}
	if (n == 0 || line[0] == '#')
		return 0;
	if (c->kind == K_NFDUMP && strcmp(line, "Summary") == 0) {
		c->done = 1;
		return 0;
	}
	data_line(c, line, lineno, s, info);
	return 0;
}

void
flowcsv_end(struct flowcsv *c, struct flow_sink *s)
{
	if (c->bad > MAX_ROW_WARNINGS)
		flow_sink_warn(s, "%s: %llu rows in all were skipped",
		    c->name, (unsigned long long)c->bad);
}

/* Read one line (any length up to MAX_LINE) into b; 0 at end of file. */
static int
read_line(gzFile gz, struct buf *b, int *toolong)
{
	char chunk[65536];
	size_t n;

	buf_reset(b);
	*toolong = 0;
	while (gzgets(gz, chunk, sizeof chunk) != NULL) {
		n = strlen(chunk);
		if (b->len < MAX_LINE)
			buf_add(b, chunk, n);
		else
			*toolong = 1;
		if (n > 0 && chunk[n - 1] == '\n') {
			b->s[--b->len] = '\0';
			return 1;
		}
	}
	return b->len > 0 || *toolong;
}

int
flowcsv_file(const char *path, struct flow_sink *s,
    struct flow_readinfo *info, char **cause)
{
	struct flowcsv *c;
	struct buf b = BUF_INIT;
	uint64_t lineno = 0;
	gzFile gz;
	int rc = 0, toolong;

	if ((gz = gzopen(path, "rb")) == NULL)
		return ts_fail(cause, "cannot open '%s': %s", path,
		    strerror(errno));
	gzbuffer(gz, 1 << 17);
	c = flowcsv_new(path);
	while (rc == 0 && read_line(gz, &b, &toolong)) {
		lineno++;
		if (toolong && c->have_header)
			bad_row(c, s, info, lineno, "line too long", -1);
		else if (toolong)
			rc = ts_fail(cause, "%s: not a capture or flow file "
			    "trainscope knows", path);
		else
			rc = flowcsv_line(c, b.s, lineno, s, info, cause);
	}
	if (rc == 0 && !c->have_header)
		rc = ts_fail(cause, "%s: no header line", path);
	if (rc == 0) {
		flowcsv_end(c, s);
		info->format = flowcsv_format(c);
	}
	buf_release(&b);
	flowcsv_free(c);
	gzclose(gz);
	return rc;
}
