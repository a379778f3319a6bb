/*
 * pcapread.c -- packets from pcap and pcapng files: classic pcap of the
 * common link types read here in large blocks, the rest through libpcap.
 *
 * Each frame becomes one flow record: link layer (Ethernet with any depth
 * of 802.1Q/802.1ad tags, Linux cooked SLL and SLL2, raw IP, BSD loopback)
 * is peeled off, then IPv4 or IPv6 (extension headers walked), then TCP,
 * UDP or RoCEv2 (UDP 4791 followed by the InfiniBand base transport
 * header: opcode, destination QP, PSN).  Sizes come from the IP header,
 * not from the captured length, so a capture with a small snap length
 * still counts every byte; only a frame whose headers themselves were cut
 * is skipped.  ECN CE marks and RoCE CNPs (BTH opcode 0x81) are counted.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "flows/flowread.h"
#include "base/util.h"

#define ROCE_PORT 4791
#define BTH_LEN 12
#define BTH_CNP 0x81
#define MAX_CUT_WARNINGS 5

static uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
rd24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)rd16(p) << 16 | rd16(p + 2);
}

/*
 * RoCE opcodes (RC or UC) that carry a RETH: RDMA WRITE FIRST and ONLY
 * (with or without immediate).  Its DMA length is the whole message.
 */
static int
has_reth(uint8_t op)
{
	unsigned low = op & 0x1f;

	return op < 0x40 && (low == 6 || low == 10 || low == 11);
}

int
pcapread_dlt_ok(int dlt)
{
	switch (dlt) {
	case DLT_EN10MB:
	case DLT_LINUX_SLL:
	case DLT_LINUX_SLL2:
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
	case DLT_NULL:
		return 1;
	}
	return 0;
}

/*
 * Find the network layer: set *off to its offset and return its
 * ethertype (0x0800 or 0x86dd), 0 when it is not IP, -1 when cut.
 */
static int
link_layer(int dlt, const uint8_t *p, uint32_t caplen, uint32_t *off)
{
	uint32_t o, fam;
	int type, tags;

	switch (dlt) {
	case DLT_EN10MB:
		if (caplen < 14)
			return -1;
		type = rd16(p + 12);
		o = 14;
		for (tags = 0; tags < 4 && (type == 0x8100 || type == 0x88a8 ||
		    type == 0x9100); tags++) {
			if (caplen < o + 4)
				return -1;
			type = rd16(p + o + 2);
			o += 4;
		}
		break;
	case DLT_LINUX_SLL:
		if (caplen < 16)
			return -1;
		type = rd16(p + 14);
		o = 16;
		break;
	case DLT_LINUX_SLL2:
		if (caplen < 20)
			return -1;
		type = rd16(p);
		o = 20;
		break;
	case DLT_NULL:
		if (caplen < 4)
			return -1;
		memcpy(&fam, p, 4);
		if (fam > 0xffff)	/* written on a host of the other order */
			fam = __builtin_bswap32(fam);
		o = 4;
		type = fam == 2 ? 0x0800 : (fam == 10 || fam == 24 ||
		    fam == 28 || fam == 30) ? 0x86dd : 0;
		break;
	default:		/* raw IP: the version nibble tells */
		if (caplen < 1)
			return -1;
		o = 0;
		type = (p[0] >> 4) == 4 ? 0x0800 : (p[0] >> 4) == 6 ? 0x86dd : 0;
		break;
	}
	*off = o;
	return type == 0x0800 || type == 0x86dd ? type : 0;
}

/* IPv4 header at p: fill addresses, protocol, sizes; *l4 = its length. */
static int
ipv4(const uint8_t *p, uint32_t cap, uint32_t wire, struct flow_rec *r,
    uint32_t *l4, int *fragment)
{
	uint32_t ihl, total;

	if (cap < 20)
		return PCAP_DEC_CUT;
	ihl = (uint32_t)(p[0] & 0x0f) * 4;
	if ((p[0] >> 4) != 4 || ihl < 20)
		return PCAP_DEC_IGNORE;
	if (cap < ihl)
		return PCAP_DEC_CUT;
	total = rd16(p + 2);
	if (total == 0)		/* segmentation offload: trust the frame */
		total = wire;
	if (total < ihl)
		return PCAP_DEC_IGNORE;
	flow_addr_v4(&r->src, p + 12);
	flow_addr_v4(&r->dst, p + 16);
	r->proto = p[9];
	r->bytes = total;
	if ((p[1] & 3) == 3)
		r->ce = 1;
	*fragment = (rd16(p + 6) & 0x1fff) != 0;
	*l4 = ihl;
	return PCAP_DEC_OK;
}

/* IPv6 header at p, walking extension headers up to the transport. */
static int
ipv6(const uint8_t *p, uint32_t cap, struct flow_rec *r, uint32_t *l4,
    int *fragment)
{
	uint32_t o = 40, len;
	uint8_t nh;
	int i;

	if (cap < 40)
		return PCAP_DEC_CUT;
	memcpy(r->src.b, p + 8, 16);
	memcpy(r->dst.b, p + 24, 16);
	r->bytes = 40 + (uint32_t)rd16(p + 4);
	if ((((p[0] & 0x0f) << 4 | p[1] >> 4) & 3) == 3)
		r->ce = 1;
	nh = p[6];
	for (i = 0; i < 8; i++) {
		if (nh != 0 && nh != 43 && nh != 44 && nh != 60 && nh != 51)
			break;
		if (cap < o + 8)
			return PCAP_DEC_CUT;
		if (nh == 44) {
			len = 8;
			if ((rd16(p + o + 2) & 0xfff8) != 0)
				*fragment = 1;
		} else if (nh == 51)
			len = ((uint32_t)p[o + 1] + 2) * 4;
		else
			len = ((uint32_t)p[o + 1] + 1) * 8;
		nh = p[o];
		o += len;
		if (*fragment)
			break;
	}
	r->proto = nh;
	*l4 = o;
	return PCAP_DEC_OK;
}

/* TCP or UDP (and BTH) at p; `left` bytes of IP payload on the wire. */
static int
transport(const uint8_t *p, uint32_t cap, uint32_t left, struct flow_rec *r)
{
	uint32_t doff;

	if (r->proto == IPPROTO_TCP) {
		if (cap < 14)
			return PCAP_DEC_CUT;
		r->sport = rd16(p);
		r->dport = rd16(p + 2);
		doff = (uint32_t)(p[12] >> 4) * 4;
		r->payload = left > doff ? left - doff : 0;
		r->seq = rd32(p + 4);
		r->flags |= FLOW_F_PAYLOAD | FLOW_F_SEQ;
		if (p[13] & 0x02)
			r->flags |= FLOW_F_SYN;
		if (p[13] & 0x01)
			r->flags |= FLOW_F_FIN;
		if (p[13] & 0x04)
			r->flags |= FLOW_F_RST;
		return PCAP_DEC_OK;
	}
	if (r->proto != IPPROTO_UDP)
		return PCAP_DEC_OK;
	if (cap < 8)
		return PCAP_DEC_CUT;
	r->sport = rd16(p);
	r->dport = rd16(p + 2);
	r->payload = left > 8 ? left - 8 : 0;
	r->flags |= FLOW_F_PAYLOAD;
	if (r->dport != ROCE_PORT)
		return PCAP_DEC_OK;
	if (cap < 8 + BTH_LEN)
		return PCAP_DEC_CUT;
	r->flags |= FLOW_F_ROCE;
	r->bth_opcode = p[8];
	r->qp = rd24(p + 8 + 5);
	r->psn = rd24(p + 8 + 9);
	if (r->bth_opcode == BTH_CNP) {
		r->flags |= FLOW_F_CNP;
		r->cnp = 1;
	}
	if (has_reth(r->bth_opcode) && cap >= 8 + BTH_LEN + 16)
		r->rdma_len = rd32(p + 8 + BTH_LEN + 12);
	return PCAP_DEC_OK;
}

int
pcapread_decode(int dlt, const uint8_t *p, uint32_t caplen, uint32_t wirelen,
    double ts, struct flow_rec *r)
{
	uint32_t off, l4;
	int type, rc, fragment = 0;

	memset(r, 0, sizeof *r);
	r->start = r->end = ts;
	r->pkts = 1;
	if ((type = link_layer(dlt, p, caplen, &off)) <= 0)
		return type < 0 ? PCAP_DEC_CUT : PCAP_DEC_IGNORE;
	p += off;
	caplen -= off;
	wirelen = wirelen > off ? wirelen - off : 0;
	if (type == 0x0800)
		rc = ipv4(p, caplen, wirelen, r, &l4, &fragment);
	else
		rc = ipv6(p, caplen, r, &l4, &fragment);
	if (rc != PCAP_DEC_OK)
		return rc;
	if (l4 > caplen && !fragment)	/* extension headers past the snap */
		return PCAP_DEC_CUT;
	if (fragment) {		/* no transport header: count the bytes */
		r->payload = r->bytes > l4 ? r->bytes - l4 : 0;
		return PCAP_DEC_OK;
	}
	return transport(p + l4, caplen - l4, r->bytes > l4 ?
	    (uint32_t)(r->bytes - l4) : 0, r);
}

/*
 * Decode frame `recno` (1-based) and hand it to the sink, or count it
 * ignored, or skipped with a warning (the first MAX_CUT_WARNINGS; *cut
 * counts them).
 */
static void
emit_frame(int dlt, const uint8_t *p, uint32_t caplen, uint32_t wire,
    double ts, uint64_t recno, const char *name, struct flow_sink *s,
    struct flow_readinfo *info, uint64_t *cut)
{
	struct flow_rec r;
	int rc = pcapread_decode(dlt, p, caplen, wire, ts, &r);

	if (rc == PCAP_DEC_OK)
		flow_sink_emit(s, info, &r);
	else if (rc == PCAP_DEC_IGNORE)
		info->ignored++;
	else {
		info->skipped++;
		if (++*cut <= MAX_CUT_WARNINGS)
			flow_sink_warn(s, "%s: record %llu: headers cut by the "
			    "snap length (%u of %u bytes), skipped", name,
			    (unsigned long long)recno, caplen, wire);
	}
}

/* The loop over packets of an open handle. */
static int
read_packets(pcap_t *pc, const char *name, struct flow_sink *s,
    struct flow_readinfo *info, double scale)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	uint64_t recno = 0, cut = 0;
	int dlt = pcap_datalink(pc), rc;

	while ((rc = pcap_next_ex(pc, &h, &data)) == 1)
		emit_frame(dlt, data, h->caplen, h->len, (double)h->ts.tv_sec +
		    (double)h->ts.tv_usec * scale, ++recno, name, s, info, &cut);
	if (cut > MAX_CUT_WARNINGS)
		flow_sink_warn(s, "%s: %llu packets in all had headers cut "
		    "by the snap length and were skipped", name,
		    (unsigned long long)cut);
	if (rc == PCAP_ERROR)
		flow_sink_warn(s, "%s: record %llu: %s; keeping the %llu "
		    "records before it", name, (unsigned long long)recno + 1,
		    pcap_geterr(pc), (unsigned long long)recno);
	return 0;
}

/* Open, check the link type, read everything; pc is closed here. */
static int
read_handle(pcap_t *pc, const char *name, int ng, struct flow_sink *s,
    struct flow_readinfo *info, char **cause)
{
	int dlt = pcap_datalink(pc), rc;
	double scale = 1e-6;

	info->format = ng ? "pcapng" : "pcap";
	if (!pcapread_dlt_ok(dlt)) {
		rc = ts_fail(cause, "%s: unsupported link type %d (%s); "
		    "trainscope reads Ethernet, Linux cooked (SLL, SLL2), raw "
		    "IP and loopback captures", name, dlt,
		    pcap_datalink_val_to_name(dlt) != NULL ?
		    pcap_datalink_val_to_name(dlt) : "unknown");
		pcap_close(pc);
		return rc;
	}
	if (pcap_get_tstamp_precision(pc) == PCAP_TSTAMP_PRECISION_NANO)
		scale = 1e-9;
	rc = read_packets(pc, name, s, info, scale);
	pcap_close(pc);
	return rc;
}

int
pcapread_fp(FILE *fp, const char *name, struct flow_sink *s,
    struct flow_readinfo *info, char **cause)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *pc;
	int c, ng;

	c = getc(fp);
	ng = c == 0x0a;
	if (c != EOF)
		ungetc(c, fp);
	err[0] = '\0';
	pc = pcap_fopen_offline_with_tstamp_precision(fp,
	    PCAP_TSTAMP_PRECISION_NANO, err);
	if (pc == NULL) {
		fclose(fp);
		return ts_fail(cause, "%s: not a readable capture: %s", name,
		    err);
	}
	return read_handle(pc, name, ng, s, info, cause);
}

/*
 * Classic pcap files of the common link types are read here, without
 * libpcap: records are decoded where they lie in large read() blocks
 * (libpcap copies each one from stdio's buffer into its own, which costs
 * as much as the decoding).  Anything else, pcapng included, goes
 * through libpcap.
 */
#define FAST_BUF	(4 << 20)
#define FAST_MAXCAP	(256 * 1024)

struct fast {
	int fd;
	uint8_t *buf;
	size_t len, off;	/* bytes in buf, bytes used */
	int swap;
	double scale;		/* of the fraction of a second */
	int dlt;
};

static uint32_t
fast32(const struct fast *f, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return f->swap ? __builtin_bswap32(v) : v;
}

/*
 * Make `need` bytes available at f->buf + f->off; 1 when they are, 0 at a
 * clean end of file, -1 when the file ends inside them (errno 0) or a
 * read fails.
 */
static int
fast_fill(struct fast *f, size_t need)
{
	ssize_t got;

	if (f->len - f->off >= need)
		return 1;
	memmove(f->buf, f->buf + f->off, f->len - f->off);
	f->len -= f->off;
	f->off = 0;
	while (f->len < need) {
		got = read(f->fd, f->buf + f->len, FAST_BUF - f->len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -1;
		if (got == 0) {
			errno = 0;
			return f->len == 0 ? 0 : -1;
		}
		f->len += (size_t)got;
	}
	return 1;
}

/*
 * The global header of a classic pcap whose link type the fast path
 * knows (Ethernet, Linux cooked v1 and v2, which have the same numbers
 * as libpcap's): fills f, returns 1; 0 to leave the file to libpcap.
 */
static int
fast_open(struct fast *f, const uint8_t *h)
{
	uint32_t magic, link;

	memcpy(&magic, h, 4);
	f->swap = magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1;
	if (magic != 0xa1b2c3d4 && magic != 0xa1b23c4d && !f->swap)
		return 0;
	f->scale = magic == 0xa1b23c4d || magic == 0x4d3cb2a1 ? 1e-9 : 1e-6;
	link = fast32(f, h + 20);
	if ((fast32(f, h + 4) & 0xffff) != 2 || (link != DLT_EN10MB &&
	    link != DLT_LINUX_SLL && link != DLT_LINUX_SLL2))
		return 0;
	f->dlt = (int)link;
	return 1;
}

/* The records of an open fast path, as read_packets() does them. */
static int
fast_packets(struct fast *f, const char *name, struct flow_sink *s,
    struct flow_readinfo *info)
{
	uint64_t done = 0, cut = 0;	/* records read whole, headers cut */
	const uint8_t *h;
	uint32_t caplen, wire;
	int rc;

	while ((rc = fast_fill(f, 16)) == 1) {
		caplen = fast32(f, f->buf + f->off + 8);
		wire = fast32(f, f->buf + f->off + 12);
		if (caplen > FAST_MAXCAP) {
			errno = EINVAL;
			rc = -1;
			break;
		}
		if ((rc = fast_fill(f, 16 + (size_t)caplen)) != 1) {
			rc = -1;	/* a header and no frame: cut */
			break;
		}
		h = f->buf + f->off;
		emit_frame(f->dlt, h + 16, caplen, wire, (double)fast32(f, h) +
		    (double)fast32(f, h + 4) * f->scale, ++done, name, s, info,
		    &cut);
		f->off += 16 + (size_t)caplen;
	}
	if (cut > MAX_CUT_WARNINGS)
		flow_sink_warn(s, "%s: %llu packets in all had headers cut "
		    "by the snap length and were skipped", name,
		    (unsigned long long)cut);
	if (rc < 0)
		flow_sink_warn(s, "%s: record %llu: %s; keeping the %llu "
		    "records before it", name, (unsigned long long)done + 1,
		    errno == EINVAL ? "invalid capture length" : errno ?
		    strerror(errno) : "truncated: the file ends inside it",
		    (unsigned long long)done);
	return 0;
}

int
pcapread_file(const char *path, struct flow_sink *s,
    struct flow_readinfo *info, char **cause)
{
	struct fast f;
	FILE *fp;
	int rc;

	memset(&f, 0, sizeof f);
	if ((f.fd = open(path, O_RDONLY)) < 0)
		return ts_fail(cause, "cannot open '%s': %s", path,
		    strerror(errno));
	f.buf = xmalloc(FAST_BUF);
	if (fast_fill(&f, 24) == 1 && fast_open(&f, f.buf)) {
		f.off = 24;
		info->format = "pcap";
		rc = fast_packets(&f, path, s, info);
		free(f.buf);
		close(f.fd);
		return rc;
	}
	free(f.buf);
	if (lseek(f.fd, 0, SEEK_SET) != 0 || (fp = fdopen(f.fd, "rb")) == NULL) {
		rc = ts_fail(cause, "cannot read '%s': %s", path,
		    strerror(errno));
		close(f.fd);
		return rc;
	}
	setvbuf(fp, NULL, _IOFBF, 1 << 18);
	return pcapread_fp(fp, path, s, info, cause);
}
