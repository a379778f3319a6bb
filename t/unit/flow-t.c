/*
 * flow-t.c -- packets to records (pcap, pcapng, link layers, RoCE, ECN,
 * damaged files) and records to flows and messages.
 *
 * Captures are written byte by byte here, so every header is known.
 */
#include "config.h"

#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "flows/flowasm.h"
#include "flows/flowread.h"
#include "tap.h"
#include "base/util.h"

static char tmpdir[] = "/tmp/flow-t.XXXXXX";

/* ------------------------------------------------------------ frames */

struct frame {
	uint8_t b[2048];
	size_t n;
};

static void
put(struct frame *f, const void *p, size_t n)
{
	memcpy(f->b + f->n, p, n);
	f->n += n;
}

static void
put16(struct frame *f, unsigned v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };

	put(f, b, 2);
}

static void
put32(struct frame *f, uint32_t v)
{
	put16(f, v >> 16);
	put16(f, v & 0xffff);
}

static void
eth(struct frame *f, unsigned type, int tags)
{
	static const uint8_t macs[12] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1 };
	int i;

	put(f, macs, 12);
	for (i = 0; i < tags; i++) {
		put16(f, i == 0 && tags > 1 ? 0x88a8 : 0x8100);
		put16(f, 100 + i);
	}
	put16(f, type);
}

static void
ipv4(struct frame *f, const char *src, const char *dst, int proto, int tos,
    size_t l4len)
{
	struct flow_addr a, b;

	flow_addr_parse(src, &a);
	flow_addr_parse(dst, &b);
	put16(f, 0x4500 | (unsigned)tos);
	put16(f, (unsigned)(20 + l4len));
	put32(f, 0x4000);	/* id 0, DF */
	put16(f, (unsigned)(64 << 8 | proto));
	put16(f, 0);
	put(f, a.b + 12, 4);
	put(f, b.b + 12, 4);
}

static void
udp_bth(struct frame *f, unsigned sport, int opcode, uint32_t qp,
    uint32_t psn, size_t plen)
{
	static const uint8_t zero[1024];

	put16(f, sport);
	put16(f, 4791);
	put16(f, (unsigned)(8 + 12 + plen + 4));
	put16(f, 0);
	put16(f, (unsigned)opcode << 8 | 0x40);
	put16(f, 0xffff);
	put32(f, qp & 0xffffff);
	put32(f, psn & 0xffffff);
	put(f, zero, plen + 4);
}

static void
tcp(struct frame *f, unsigned sport, unsigned dport, int flags, size_t plen)
{
	static const uint8_t zero[1024];

	put16(f, sport);
	put16(f, dport);
	put32(f, 1);
	put32(f, 0);
	put16(f, (unsigned)(5 << 12 | flags));
	put16(f, 65535);
	put32(f, 0);
	put(f, zero, plen);
}

/* RoCE over Ethernet/IPv4 with `tags` VLAN tags. */
static struct frame
roce_frame(int tags, int tos, int opcode, uint32_t qp, uint32_t psn,
    size_t plen)
{
	struct frame f = { .n = 0 };

	eth(&f, 0x0800, tags);
	ipv4(&f, "10.0.0.1", "10.0.0.2", IPPROTO_UDP, tos, 8 + 12 + plen + 4);
	udp_bth(&f, 49152, opcode, qp, psn, plen);
	return f;
}

/* An RDMA WRITE FIRST: BTH, then a RETH whose DMA length is `len`. */
static struct frame
reth_frame(uint32_t len)
{
	static const uint8_t zero[68];
	struct frame f = { .n = 0 };

	eth(&f, 0x0800, 0);
	ipv4(&f, "10.0.0.1", "10.0.0.2", IPPROTO_UDP, 2, 8 + 12 + 16 + 64 + 4);
	put16(&f, 49152);
	put16(&f, 4791);
	put16(&f, 8 + 12 + 16 + 64 + 4);
	put16(&f, 0);
	put16(&f, 0x06 << 8);
	put16(&f, 0xffff);
	put32(&f, 0x42);
	put32(&f, 9);
	put32(&f, 0);		/* virtual address */
	put32(&f, 0x1000);
	put32(&f, 0x77);	/* R_Key */
	put32(&f, len);
	put(&f, zero, 64 + 4);
	return f;
}

/* ------------------------------------------------------------ files */

struct pkt {
	double ts;
	struct frame f;
	size_t caplen;		/* 0: all of it */
};

static void
le32(FILE *fp, uint32_t v)
{
	fwrite(&v, 4, 1, fp);	/* the tests run on little-endian hosts */
}

static char *
write_pcap(const char *name, int dlt, const struct pkt *p, size_t n,
    long cut_tail)
{
	char *path = xasprintf("%s/%s", tmpdir, name);
	FILE *fp = fopen(path, "wb");
	size_t i, cap;
	uint16_t ver[2] = { 2, 4 };
	long len;

	le32(fp, 0xa1b2c3d4);
	fwrite(ver, 2, 2, fp);
	le32(fp, 0);
	le32(fp, 0);
	le32(fp, 65535);
	le32(fp, (uint32_t)dlt);
	for (i = 0; i < n; i++) {
		cap = p[i].caplen != 0 ? p[i].caplen : p[i].f.n;
		le32(fp, (uint32_t)p[i].ts);
		le32(fp, (uint32_t)((p[i].ts - (uint32_t)p[i].ts) * 1e6 + 0.5));
		le32(fp, (uint32_t)cap);
		le32(fp, (uint32_t)p[i].f.n);
		fwrite(p[i].f.b, 1, cap, fp);
	}
	len = ftell(fp);
	fclose(fp);
	if (cut_tail > 0 && truncate(path, len - cut_tail) != 0)
		return NULL;
	return path;
}

static void
ng_block(FILE *fp, uint32_t type, const void *body, size_t n)
{
	static const uint8_t pad[4];
	uint32_t len = (uint32_t)(12 + ((n + 3) & ~(size_t)3));

	le32(fp, type);
	le32(fp, len);
	fwrite(body, 1, n, fp);
	fwrite(pad, 1, ((n + 3) & ~(size_t)3) - n, fp);
	le32(fp, len);
}

static char *
write_pcapng(const char *name, const struct pkt *p, size_t n)
{
	char *path = xasprintf("%s/%s", tmpdir, name);
	FILE *fp = fopen(path, "wb");
	uint8_t shb[16] = { 0x4d, 0x3c, 0x2b, 0x1a, 1, 0, 0, 0,
	    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t idb[8] = { 1, 0, 0, 0, 0xff, 0xff, 0, 0 };
	uint8_t epb[2048 + 20];
	uint64_t us;
	uint32_t w[5];
	size_t i;

	ng_block(fp, 0x0a0d0d0a, shb, sizeof shb);
	ng_block(fp, 1, idb, sizeof idb);
	for (i = 0; i < n; i++) {
		us = (uint64_t)(p[i].ts * 1e6 + 0.5);
		w[0] = 0;
		w[1] = (uint32_t)(us >> 32);
		w[2] = (uint32_t)us;
		w[3] = w[4] = (uint32_t)p[i].f.n;
		memcpy(epb, w, 20);
		memcpy(epb + 20, p[i].f.b, p[i].f.n);
		ng_block(fp, 6, epb, 20 + p[i].f.n);
	}
	fclose(fp);
	return path;
}

/* ------------------------------------------------------------ reading */

struct got {
	struct flow_rec r[64];
	size_t n;
	struct buf warn;
	int nwarn;
};

static void
got_emit(void *arg, const struct flow_rec *r)
{
	struct got *g = arg;

	if (g->n < TS_NELEM(g->r))
		g->r[g->n++] = *r;
}

static void
got_warn(void *arg, const char *msg)
{
	struct got *g = arg;

	buf_adds(&g->warn, msg);
	buf_addc(&g->warn, '\n');
	g->nwarn++;
}

static int
read_into(const char *path, struct got *g, struct flow_readinfo *info,
    char **cause)
{
	struct flow_sink s = { got_emit, g, got_warn, g, 0 };

	memset(g, 0, sizeof *g);
	return flow_read_file(path, &s, info, cause);
}

static void
test_roce(void)
{
	struct pkt p[4];
	struct flow_readinfo info;
	struct got g;
	char *path, *cause = NULL;

	p[0].ts = 1714564800.5;
	p[0].f = roce_frame(0, 0x03, 0x0a, 0x123456, 77, 100);
	p[1].ts = 1714564800.6;
	p[1].f = roce_frame(0, 0x02, 0x81, 0x000101, 0, 16);
	p[2].ts = 1714564800.7;
	p[2].f = roce_frame(2, 0x02, 0x0a, 0x42, 78, 100);
	p[3].ts = 1714564800.8;
	p[3].f = reth_frame(1 << 20);
	p[0].caplen = p[1].caplen = p[2].caplen = p[3].caplen = 0;
	path = write_pcap("roce.pcap", 1, p, 4, 0);
	ok(read_into(path, &g, &info, &cause) == 0, "roce pcap reads");
	is_str(info.format, "pcap", "format detected as pcap");
	is_int(g.n, 4, "four records");
	is_int(g.r[3].rdma_len, 1 << 20, "RETH DMA length of an RDMA WRITE");
	is_int(g.r[0].rdma_len, 0, "no RETH on a SEND");
	ok(g.r[0].flags & FLOW_F_ROCE, "UDP 4791 is RoCE");
	is_int(g.r[0].qp, 0x123456, "destination QP from the BTH");
	is_int(g.r[0].psn, 77, "PSN from the BTH");
	is_int(g.r[0].bth_opcode, 0x0a, "BTH opcode");
	is_int(g.r[0].ce, 1, "ECN CE counted");
	is_int(g.r[0].bytes, 20 + 8 + 12 + 100 + 4, "IP bytes");
	is_int(g.r[0].payload, 12 + 100 + 4, "UDP payload");
	ok(g.r[0].start > 1714564800.49 && g.r[0].start < 1714564800.51,
	    "timestamp");
	ok((g.r[1].flags & FLOW_F_CNP) && g.r[1].cnp == 1, "CNP found");
	is_int(g.r[1].ce, 0, "ECT(0) is not CE");
	is_int(g.r[2].qp, 0x42, "QinQ-tagged frame decoded");
	is_int(g.nwarn, 0, "no warnings");
	free(path);
}

static struct frame
tcp4_frame(size_t plen, int flags)
{
	struct frame f = { .n = 0 };

	eth(&f, 0x0800, 0);
	ipv4(&f, "10.0.0.3", "10.0.0.4", IPPROTO_TCP, 0, 20 + plen);
	tcp(&f, 40000, 29500, flags, plen);
	return f;
}

/* The same TCP packet behind Linux cooked headers v1 and v2. */
static void
test_sll(void)
{
	struct pkt p[1];
	struct frame t = tcp4_frame(10, 0x18);
	struct flow_readinfo info;
	struct got g;
	char *path, *cause = NULL;

	memset(p, 0, sizeof p);
	put16(&p[0].f, 0);
	put16(&p[0].f, 1);
	put16(&p[0].f, 6);
	put(&p[0].f, t.b, 8);
	put16(&p[0].f, 0x0800);
	put(&p[0].f, t.b + 14, t.n - 14);
	path = write_pcap("sll.pcap", 113, p, 1, 0);
	ok(read_into(path, &g, &info, &cause) == 0 && g.n == 1 &&
	    g.r[0].proto == IPPROTO_TCP && g.r[0].payload == 10 &&
	    g.r[0].dport == 29500, "Linux cooked (SLL) TCP packet");
	ok((g.r[0].flags & FLOW_F_SEQ) && g.r[0].seq == 1,
	    "TCP sequence number");
	free(path);

	memset(p, 0, sizeof p);
	put16(&p[0].f, 0x0800);
	put16(&p[0].f, 0);
	put32(&p[0].f, 3);
	put16(&p[0].f, 1);
	put16(&p[0].f, 6 << 8);
	put(&p[0].f, t.b, 8);
	put(&p[0].f, t.b + 14, t.n - 14);
	path = write_pcap("sll2.pcap", 276, p, 1, 0);
	ok(read_into(path, &g, &info, &cause) == 0 && g.n == 1 &&
	    g.r[0].sport == 40000 && g.r[0].bytes == 50, "SLL2 TCP packet");
	free(path);

	memset(p, 0, sizeof p);
	put(&p[0].f, t.b + 14, t.n - 14);
	path = write_pcap("raw.pcap", 101, p, 1, 0);
	ok(read_into(path, &g, &info, &cause) == 0 && g.n == 1 &&
	    g.r[0].payload == 10, "raw IP packet");
	free(path);
}

static void
test_ipv6(void)
{
	struct pkt p[1];
	struct flow_addr a, b;
	struct flow_readinfo info;
	struct got g;
	char *path, *cause = NULL, s[64];
	uint8_t hbh[8] = { IPPROTO_TCP, 0, 1, 4, 0, 0, 0, 0 };

	memset(p, 0, sizeof p);
	flow_addr_parse("fe80::1", &a);
	flow_addr_parse("fe80::2", &b);
	eth(&p[0].f, 0x86dd, 1);
	put16(&p[0].f, 0x6030);		/* traffic class 0x03: CE */
	put16(&p[0].f, 0);
	put16(&p[0].f, 8 + 20 + 50);
	put16(&p[0].f, 0 << 8 | 64);	/* hop-by-hop options first */
	put(&p[0].f, a.b, 16);
	put(&p[0].f, b.b, 16);
	put(&p[0].f, hbh, 8);
	tcp(&p[0].f, 5000, 6000, 0x02, 50);
	path = write_pcap("v6.pcap", 1, p, 1, 0);
	ok(read_into(path, &g, &info, &cause) == 0 && g.n == 1, "IPv6 reads");
	is_int(g.r[0].proto, IPPROTO_TCP, "extension header walked to TCP");
	is_int(g.r[0].payload, 50, "TCP payload behind an extension header");
	is_int(g.r[0].bytes, 40 + 8 + 20 + 50, "IPv6 bytes");
	ok(g.r[0].flags & FLOW_F_SYN, "SYN flag");
	is_int(g.r[0].ce, 1, "IPv6 CE");
	is_str(flow_addr_str(&g.r[0].src, s, sizeof s), "fe80::1",
	    "IPv6 source");
	ok(!flow_addr_is_v4(&g.r[0].src), "not an IPv4 address");
	free(path);
}

static void
test_damage(void)
{
	struct pkt p[3];
	struct flow_readinfo info;
	struct got g;
	char *path, *cause = NULL;

	memset(p, 0, sizeof p);
	p[0].ts = 1;
	p[0].f = tcp4_frame(1000, 0x18);
	p[0].caplen = 54;	/* headers only, like tcpdump -s 54 */
	p[1].ts = 2;
	p[1].f = tcp4_frame(100, 0x18);
	p[1].caplen = 20;	/* cuts the IP header */
	p[2].ts = 3;
	p[2].f = tcp4_frame(0, 0x10);
	path = write_pcap("cut.pcap", 1, p, 3, 0);
	ok(read_into(path, &g, &info, &cause) == 0, "snaplen-cut capture reads");
	is_int(g.n, 2, "the packet with cut headers is skipped");
	is_int(g.r[0].payload, 1000, "payload from the IP length, not caplen");
	is_int(info.skipped, 1, "skip counted");
	ok(strstr(buf_str(&g.warn), "record 2: headers cut") != NULL,
	    "warning names the record");
	free(path);
	buf_release(&g.warn);

	p[1].caplen = 0;
	path = write_pcap("trunc.pcap", 1, p, 3, 10);
	ok(read_into(path, &g, &info, &cause) == 0, "truncated capture reads");
	is_int(g.n, 2, "records before the cut are kept");
	ok(strstr(buf_str(&g.warn), "record 3:") != NULL,
	    "truncation warning names the record");
	free(path);
	buf_release(&g.warn);

	path = write_pcap("dlt.pcap", 147, p, 1, 0);
	ok(read_into(path, &g, &info, &cause) == -1 && cause != NULL &&
	    strstr(cause, "unsupported link type 147") != NULL,
	    "unknown link type is one clear error");
	free(cause);
	cause = NULL;
	free(path);
}

static void
test_pcapng_gzip(void)
{
	struct pkt p[2];
	struct flow_readinfo info;
	struct got g;
	char *path, *gzpath, *cause = NULL, buf[4096];
	FILE *fp;
	gzFile gz;
	size_t n;

	memset(p, 0, sizeof p);
	p[0].ts = 1714564800.25;
	p[0].f = roce_frame(1, 0x03, 0x0a, 7, 1, 64);
	p[1].ts = 1714564801.75;
	p[1].f = tcp4_frame(10, 0x18);
	path = write_pcapng("ng.pcapng", p, 2);
	ok(read_into(path, &g, &info, &cause) == 0, "pcapng reads");
	is_str(info.format, "pcapng", "format detected as pcapng");
	ok(g.n == 2 && g.r[0].qp == 7 && g.r[1].payload == 10,
	    "pcapng records");
	ok(g.n == 2 && g.r[1].start > 1714564801.74 &&
	    g.r[1].start < 1714564801.76, "pcapng timestamps");
	gzpath = xasprintf("%s/ng.dat", tmpdir);
	fp = fopen(path, "rb");
	gz = gzopen(gzpath, "wb");
	while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
		gzwrite(gz, buf, (unsigned)n);
	gzclose(gz);
	fclose(fp);
	ok(read_into(gzpath, &g, &info, &cause) == 0 && g.n == 2 &&
	    g.r[0].qp == 7, "gzipped capture with no telling name reads");
	free(path);
	free(gzpath);

	path = xasprintf("%s/garbage", tmpdir);
	fp = fopen(path, "wb");
	fwrite("\x01\x02\x03\x04\xff\xfe\x00\x00garbage", 1, 15, fp);
	fclose(fp);
	ok(read_into(path, &g, &info, &cause) == -1 && cause != NULL,
	    "garbage is refused");
	free(cause);
	free(path);
}

static void
put_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	fputs(text, fp);
	fclose(fp);
}

/* Captures of a directory are found by content, packets first. */
static void
test_find(void)
{
	struct pkt p[1];
	char **paths, *cause = NULL, *d, *f;
	size_t n;

	memset(p, 0, sizeof p);
	p[0].f = tcp4_frame(10, 0x18);
	d = xasprintf("%s/job", tmpdir);
	mkdir(d, 0777);
	f = xasprintf("%s/job/sub", tmpdir);
	mkdir(f, 0777);
	free(f);
	put_file((f = xasprintf("%s/rank-0.log", d)), "2026-01-01 INFO hi\n");
	free(f);
	put_file((f = xasprintf("%s/sub/r.csv", d)),
	    "start,src,dst,bytes\n1,10.0.0.1,10.0.0.2,5\n");
	is_str(flow_probe(f), "flow-csv", "probe: flow csv");
	free(f);
	put_file((f = xasprintf("%s/.hidden.csv", d)),
	    "start,src,dst,bytes\n");
	free(f);
	f = xasprintf("%s/rank-0.log", d);
	ok(flow_probe(f) == NULL, "probe: a log is not a capture");
	free(f);
	ok(flow_find_captures(d, &paths, &n, &cause) == 0 && n == 1 &&
	    ts_endswith(paths[0], "/job/sub/r.csv"),
	    "flow records found when there are no packet captures");
	flow_paths_free(paths, n);
	free(write_pcap("job/sub/capture.bin", 1, p, 1, 0));
	ok(flow_find_captures(d, &paths, &n, &cause) == 0 && n == 1 &&
	    ts_endswith(paths[0], "/job/sub/capture.bin"),
	    "a packet capture wins over flow records, whatever its name");
	if (n == 1)
		is_str(flow_probe(paths[0]), "pcap", "probe: pcap");
	flow_paths_free(paths, n);
	ok(flow_find_captures("/nonexistent", &paths, &n, &cause) == -1 &&
	    strstr(cause, "cannot open '/nonexistent'") != NULL,
	    "a missing directory is an error");
	free(cause);
	free(d);
}

/* ------------------------------------------------------------ assembly */

static struct flow_rec
rec(double t, const char *src, const char *dst, uint16_t sport,
    uint64_t payload, uint8_t flags)
{
	struct flow_rec r;

	memset(&r, 0, sizeof r);
	r.start = r.end = t;
	flow_addr_parse(src, &r.src);
	flow_addr_parse(dst, &r.dst);
	r.sport = sport;
	r.dport = 5000;
	r.proto = IPPROTO_TCP;
	r.payload = payload;
	r.bytes = payload + 40;
	r.pkts = 1;
	r.flags = flags | FLOW_F_PAYLOAD;
	return r;
}

static void
test_asm(void)
{
	struct flow_set set;
	struct flow_params p;
	struct flow_asm *a;
	struct flow_rec r;
	char s[64];
	size_t i;
	int sorted = 1;

	flow_params_default(&p);
	a = flow_asm_new(&set, &p);
	r = rec(100.0000, "10.0.0.2", "10.0.0.1", 7, 0, FLOW_F_SYN);
	flow_asm_add(a, &r);
	r = rec(100.0001, "10.0.0.1", "10.0.0.2", 9, 0, 0);	/* pure ACK */
	flow_asm_add(a, &r);
	r = rec(100.0005, "10.0.0.2", "10.0.0.1", 7, 1000, 0);
	flow_asm_add(a, &r);
	r = rec(100.0012, "10.0.0.2", "10.0.0.1", 7, 1000, 0);
	flow_asm_add(a, &r);
	r = rec(100.0013, "10.0.0.2", "10.0.0.1", 7, 0, 0);	/* ACK in msg */
	flow_asm_add(a, &r);
	r = rec(100.0030, "10.0.0.2", "10.0.0.1", 7, 500, 0);	/* gap */
	flow_asm_add(a, &r);
	r = rec(100.0031, "10.0.0.3", "10.0.0.1", 8, 500, 0);
	flow_asm_add(a, &r);
	r = rec(110.0, "10.0.0.2", "10.0.0.1", 7, 500, 0);	/* idle */
	flow_asm_add(a, &r);
	flow_asm_finish(a);

	is_int(set.nhosts, 3, "three hosts");
	is_str(flow_addr_str(&set.hosts[0], s, sizeof s), "10.0.0.2",
	    "hosts numbered by first appearance");
	is_int(set.nmsgs, 4, "gaps split messages; pure ACKs open none");
	is_int(set.msgs[0].payload, 2000, "first message payload");
	is_int(set.msgs[0].pkts, 4, "SYN, data and the in-burst ACK");
	ok(set.msgs[0].end < 100.00125, "an ACK does not extend a message");
	ok(set.msgs[0].flags & FLOW_F_SYN, "message keeps the SYN flag");
	is_int(set.ack_pkts, 1, "the lone ACK is counted apart");
	is_int(set.nflows, 4, "idle timeout starts a new flow");
	is_int(set.nrecs, 8, "records counted");
	for (i = 1; i < set.nmsgs; i++)
		if (set.msgs[i].start < set.msgs[i - 1].start)
			sorted = 0;
	ok(sorted, "messages sorted by start");
	ok(set.first == 100.0 && set.last == 110.0, "time span");
	flow_set_free(&set);
}

/*
 * A sampled capture: the TCP sequence span and an RDMA WRITE's DMA length
 * give a message's size, and skipped bytes go to the next message.
 */
static void
add_seq(struct flow_asm *a, double t, const char *src, uint16_t sport,
    uint32_t seq)
{
	struct flow_rec r = rec(t, src, "10.0.0.1", sport, 100, FLOW_F_SEQ);

	r.seq = seq;
	flow_asm_add(a, &r);
}

static void
test_asm_sampled(void)
{
	struct flow_set set;
	struct flow_asm *a = flow_asm_new(&set, NULL);
	struct flow_rec r;

	add_seq(a, 100.0000, "10.0.0.2", 7, 1000);
	add_seq(a, 100.0005, "10.0.0.2", 7, 5000);
	add_seq(a, 100.0100, "10.0.0.2", 7, 9000);
	add_seq(a, 100.0101, "10.0.0.2", 7, 9100);
	r = rec(100.0200, "10.0.0.3", "10.0.0.1", 9, 4096, 0);
	r.proto = IPPROTO_UDP;
	r.dport = 4791;
	r.flags |= FLOW_F_ROCE;
	r.bth_opcode = 6;
	r.rdma_len = 1 << 20;
	flow_asm_add(a, &r);
	r.start = r.end = 100.0210;
	r.bth_opcode = 8;
	r.rdma_len = 0;
	flow_asm_add(a, &r);
	add_seq(a, 100.0300, "10.0.0.4", 5, 0x7ffffff0);
	/* 2 GB in 0.1 ms: not data of this flow */
	add_seq(a, 100.0301, "10.0.0.4", 5, 0xfffffff0);
	flow_asm_finish(a);

	is_int(set.nmsgs, 4, "four messages");
	is_int(set.msgs[0].payload, 4100, "size from the sequence span");
	is_int(set.msgs[0].bytes, 4100 + 80, "unseen bytes counted in IP bytes");
	is_int(set.msgs[1].payload, 4100, "bytes skipped since the last "
	    "message go to the next");
	is_int(set.msgs[2].payload, 1 << 20, "size from the RETH DMA length");
	is_int(set.msgs[3].payload, 200, "an impossible span is not believed");
	flow_set_free(&set);
}

/* Many short flows: live flows stay few. */
static void
test_asm_bounded(void)
{
	struct flow_set set;
	struct flow_params p;
	struct flow_asm *a;
	struct flow_rec r;
	size_t peak;
	int i;

	flow_params_default(&p);
	p.idle_timeout = 0.1;
	a = flow_asm_new(&set, &p);
	for (i = 0; i < 100000; i++) {
		r = rec(1000 + i * 0.001, "10.0.0.1", "10.0.0.2",
		    (uint16_t)(i % 60000), 100, 0);
		r.qp = (uint32_t)i;
		flow_asm_add(a, &r);
	}
	peak = flow_asm_peak(a);
	flow_asm_finish(a);
	is_int(set.nflows, 100000, "every flow formed");
	ok(peak < 1000, "live flows bounded by the idle timeout");
	if (peak >= 1000)
		printf("# peak %zu\n", peak);
	flow_set_free(&set);
}

/* ------------------------------------------------------------ real data */

struct count {
	uint64_t recs, tcp_pkts, tcp_frame_bytes;
};

static void
count_emit(void *arg, const struct flow_rec *r)
{
	struct count *c = arg;

	c->recs++;
	if (r->proto == IPPROTO_TCP) {
		c->tcp_pkts += r->pkts;
		c->tcp_frame_bytes += r->bytes + 14;	/* Ethernet header */
	}
}

/* Frames and bytes of every conversation in tshark's conv,tcp table. */
static int
conv_totals(const char *path, uint64_t *frames, double *bytes)
{
	char line[512], unit[16], tail[512];
	unsigned long long fr;
	double b, mult;
	FILE *fp;
	char *p;
	int i;

	if ((fp = fopen(path, "r")) == NULL)
		return -1;
	*frames = 0;
	*bytes = 0;
	while (fgets(line, sizeof line, fp) != NULL) {
		if ((p = strstr(line, "<->")) == NULL)
			continue;
		p = strchr(p + 4, ':');
		for (i = 0; p != NULL && i < 2; i++) {	/* skip <- and -> */
			p = strpbrk(p, " ");
			if (sscanf(p, " %*u %*f %15s%n", unit, &(int){0}) != 1)
				break;
			p = strstr(p, unit) + strlen(unit);
		}
		if (p == NULL || sscanf(p, " %llu %lf %15s%511[^\n]", &fr, &b,
		    unit, tail) < 3)
			continue;
		mult = strcmp(unit, "kB") == 0 ? 1e3 : strcmp(unit, "MB") == 0 ?
		    1e6 : strcmp(unit, "GB") == 0 ? 1e9 : 1;
		*frames += fr;
		*bytes += b * mult;
	}
	fclose(fp);
	return 0;
}

static long
tcpdump_count(const char *path)
{
	char *cmd;
	FILE *fp;
	long n = -1;

	if (access("/usr/bin/tcpdump", X_OK) != 0 &&
	    access("/usr/sbin/tcpdump", X_OK) != 0)
		return -1;
	cmd = xasprintf("tcpdump -nr '%s' 2>/dev/null | wc -l", path);
	if ((fp = popen(cmd, "r")) != NULL) {
		if (fscanf(fp, "%ld", &n) != 1)
			n = -1;
		pclose(fp);
	}
	free(cmd);
	return n;
}

static int
has_host(const struct flow_set *set, const char *ip)
{
	struct flow_addr a;
	size_t i;

	flow_addr_parse(ip, &a);
	for (i = 0; i < set->nhosts; i++)
		if (flow_addr_cmp(&set->hosts[i], &a) == 0)
			return 1;
	return 0;
}

static void
test_real_one(const char *dir)
{
	char *pcap = xasprintf("%s/job.pcap", dir);
	char *conv = xasprintf("%s/flows/conv_tcp.txt", dir);
	char *csv = xasprintf("%s/flows/flows_10ms.csv.gz", dir);
	struct count c = { 0, 0, 0 };
	struct flow_sink s = { count_emit, &c, NULL, NULL, 0 };
	struct flow_readinfo info;
	struct flow_set set, set2;
	uint64_t frames;
	double bytes;
	char *cause = NULL;
	long td;
	const char *one[1];

	ok(flow_read_file(pcap, &s, &info, &cause) == 0, "real capture reads");
	is_int(s.nwarn, 0, "real capture: no warnings");
	if (conv_totals(conv, &frames, &bytes) == 0) {
		is_int(c.tcp_pkts, frames, "TCP frames match tshark's table");
		ok(fabs((double)c.tcp_frame_bytes - bytes) < 0.02 * bytes,
		    "TCP bytes match tshark's table within rounding");
	}
	if ((td = tcpdump_count(pcap)) >= 0)
		is_int(info.records + info.ignored + info.skipped, td,
		    "every packet tcpdump reads is read");
	one[0] = pcap;
	ok(flow_set_load(&set, one, 1, NULL, NULL, NULL, &cause) == 0,
	    "real capture assembles");
	ok(set.nhosts >= 4 && has_host(&set, "10.77.0.11") &&
	    has_host(&set, "10.77.0.12") && has_host(&set, "10.77.0.13") &&
	    has_host(&set, "10.77.0.14"), "the four nodes are hosts");
	ok(set.nmsgs > 100, "messages formed");
	one[0] = csv;
	ok(flow_set_load(&set2, one, 1, NULL, NULL, NULL, &cause) == 0,
	    "tshark flow CSV of the same run reads");
	ok(set2.nhosts == 4 && set2.pkts == c.tcp_pkts,
	    "flow CSV: same hosts and TCP packets as the capture");
	flow_set_free(&set);
	flow_set_free(&set2);
	free(pcap);
	free(conv);
	free(csv);
}

static void
test_real(void)
{
	const char *shared = getenv("TS_SHARED");
	const char *runs[] = { "a_normal_dp2_pp2", "c_straggler_compute",
	    "g_same_job/run2_failed" };
	char *dir, *pcap;
	size_t i;

	for (i = 0; i < TS_NELEM(runs); i++) {
		dir = xasprintf("%s/data/realjobs/%s", shared != NULL ? shared :
		    "/nonexistent", runs[i]);
		pcap = xasprintf("%s/job.pcap", dir);
		if (access(pcap, R_OK) == 0)
			test_real_one(dir);
		else
			ok(1, "# SKIP no real capture (TS_SHARED)");
		free(pcap);
		free(dir);
	}
}

int
main(void)
{
	char *cmd;

	if (mkdtemp(tmpdir) == NULL)
		return 1;
	test_roce();
	test_sll();
	test_ipv6();
	test_damage();
	test_pcapng_gzip();
	test_find();
	test_asm();
	test_asm_bounded();
	test_asm_sampled();
	test_real();
	cmd = xasprintf("rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		printf("# cannot remove %s\n", tmpdir);
	free(cmd);
	return done_testing();
}
