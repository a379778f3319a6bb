/*
 * flowcsv-t.c -- text flow records: nfdump CSV, Zeek conn.log, generic
 * CSV/TSV with named columns, and rows that do not fit their header.
 */
#include "config.h"

#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flows/flowread.h"
#include "tap.h"
#include "base/util.h"

static char tmpdir[] = "/tmp/flowcsv-t.XXXXXX";

struct got {
	struct flow_rec r[32];
	size_t n;
	struct buf warn;
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
}

/* Write text to a file named name and read it back. */
static int
read_text(const char *name, const char *text, struct got *g,
    struct flow_readinfo *info, char **cause)
{
	char *path = xasprintf("%s/%s", tmpdir, name);
	struct flow_sink s = { got_emit, g, got_warn, g, 0 };
	FILE *fp = fopen(path, "w");
	int rc;

	fputs(text, fp);
	fclose(fp);
	buf_release(&g->warn);
	g->n = 0;
	rc = flow_read_file(path, &s, info, cause);
	free(path);
	return rc;
}

static const char nfdump[] =
    "ts,te,td,sa,da,sp,dp,pr,flg,fwd,stos,ipkt,ibyt,opkt,obyt,in,out\n"
    "2024-05-01 12:00:00.250,2024-05-01 12:00:00.450,0.200,10.0.0.1,"
    "10.0.0.2,49152,4791,UDP,........,0,0,1000,4140000,0,0,0,0\n"
    "2024-05-01 12:00:01,2024-05-01 12:00:02,1.000,10.0.0.1,10.0.0.9,"
    "40000,29500,TCP,...AP.SF,0,0,50,7000,40,2000,0,0\n"
    "\n"
    "Summary\n"
    "flows,bytes,packets,avg_bps,avg_pps,avg_bpp\n"
    "2,4147000,1050,0,0,0\n";

static void
test_nfdump(void)
{
	struct flow_readinfo info;
	struct got g = { .n = 0 };
	char *cause = NULL;

	ok(read_text("nf.txt", nfdump, &g, &info, &cause) == 0,
	    "nfdump csv reads");
	is_str(info.format, "nfdump-csv", "nfdump detected from its header");
	is_int(g.n, 3, "two flows, one with a reverse direction");
	ok(g.r[0].start == 1714564800.25 && g.r[0].end == 1714564800.45,
	    "nfdump times are UTC");
	ok(g.r[0].bytes == 4140000 && g.r[0].pkts == 1000 &&
	    g.r[0].proto == IPPROTO_UDP && (g.r[0].flags & FLOW_F_ROCE),
	    "nfdump counters, UDP 4791 is RoCE");
	ok((g.r[1].flags & FLOW_F_SYN) && (g.r[1].flags & FLOW_F_FIN),
	    "nfdump flag letters");
	ok(g.r[2].bytes == 2000 && g.r[2].sport == 29500 &&
	    g.r[2].dport == 40000, "opkt/obyt become the reverse record");
	is_int(g.warn.len, 0, "the summary block is not an error");
	buf_release(&g.warn);
}

static const char zeek[] =
    "#separator \\x09\n"
    "#set_separator\t,\n"
    "#empty_field\t(empty)\n"
    "#unset_field\t-\n"
    "#path\tconn\n"
    "#fields\tts\tuid\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\tproto"
    "\tservice\tduration\torig_bytes\tresp_bytes\tconn_state\tlocal_orig"
    "\tlocal_resp\tmissed_bytes\thistory\torig_pkts\torig_ip_bytes"
    "\tresp_pkts\tresp_ip_bytes\ttunnel_parents\n"
    "#types\ttime\tstring\taddr\tport\taddr\tport\tenum\tstring\tinterval"
    "\tcount\tcount\tstring\tbool\tbool\tcount\tstring\tcount\tcount"
    "\tcount\tcount\tset[string]\n"
    "1714564800.5\tC1\t10.0.0.1\t40000\t10.0.0.2\t29500\ttcp\t-\t2.5"
    "\t1000\t200\tSF\t-\t-\t0\tShADadFf\t10\t1400\t8\t520\t-\n"
    "1714564801.0\tC2\t10.0.0.1\t40001\t10.0.0.2\n"
    "1714564802.0\tC3\tfe80::1\t5353\tff02::fb\t5353\tudp\tdns\t-"
    "\t-\t-\tS0\t-\t-\t0\tD\t1\t100\t0\t0\t-\n"
    "#close\t2024-05-01-12-00-05\n";

static void
test_zeek(void)
{
	struct flow_readinfo info;
	struct got g = { .n = 0 };
	char *cause = NULL;

	ok(read_text("conn.log", zeek, &g, &info, &cause) == 0,
	    "zeek conn.log reads");
	is_str(info.format, "zeek-conn", "zeek detected from #separator");
	is_int(g.n, 3, "two directions of the TCP flow, one of the UDP one");
	ok(g.r[0].bytes == 1400 && g.r[0].pkts == 10 && g.r[0].payload == 1000
	    && g.r[0].end == 1714564803.0, "originator direction");
	ok((g.r[0].flags & FLOW_F_SYN) && (g.r[0].flags & FLOW_F_FIN),
	    "originator flags from the history");
	ok(g.r[1].bytes == 520 && g.r[1].pkts == 8 && g.r[1].payload == 200 &&
	    g.r[1].sport == 29500, "responder direction");
	ok(g.r[2].proto == IPPROTO_UDP && !flow_addr_is_v4(&g.r[2].src),
	    "IPv6 UDP record");
	ok(strstr(buf_str(&g.warn), "conn.log:9: expected 21 fields, found 5")
	    != NULL, "short row named by line");
	buf_release(&g.warn);
}

static const char tshark[] =
    "bin_start_epoch,bin_s,src_ip,src_port,dst_ip,dst_port,packets,bytes,"
    "payload_bytes,tcp_flags_or\n"
    "1795243988.80,0.01,10.77.0.12,41862,10.77.0.11,29500,1,74,0,0x002\n"
    "1795243988.81,0.01,10.77.0.11,29500,10.77.0.12,41862,3,3074,2900,0x018\n";

static const char generic[] =
    "Start Time;End Time;Source;Destination;Protocol;Octets;Packets\r\n"
    "2024-05-01T12:00:00Z;2024-05-01T12:00:01.5Z;10.0.0.1;10.0.0.2;17;"
    "900;3\r\n"
    "2024-05-01T14:00:00+02:00;2024-05-01T12:00:02Z;10.0.0.2;10.0.0.1;"
    "6;100;1\r\n"
    "2024-05-01T12:00:03Z;2024-05-01T12:00:04Z;10.0.0.2;10.0.0.1;6;100;"
    "1;extra\r\n"
    "garbage\r\n"
    "yesterday;today;10.0.0.2;10.0.0.1;6;100;1\r\n"
    "2024-05-01T12:00:05Z;2024-05-01T12:00:06Z;10.0.0.2;not-an-ip;6;"
    "100;1\r\n"
    "1714564810;1714564811000;10.0.0.3;10.0.0.1;tcp;1e3;2\r\n";

static void
test_generic(void)
{
	struct flow_readinfo info;
	struct got g = { .n = 0 };
	char *cause = NULL;

	ok(read_text("t.csv", tshark, &g, &info, &cause) == 0 && g.n == 2,
	    "tshark flow csv reads");
	ok(g.r[1].proto == IPPROTO_TCP && g.r[1].payload == 2900 &&
	    (g.r[1].flags & FLOW_F_PAYLOAD) && g.r[1].pkts == 3 &&
	    g.r[1].end > g.r[1].start + 0.0099, "tshark columns mapped");
	ok(g.r[0].flags & FLOW_F_SYN, "hex TCP flags");

	ok(read_text("g.txt", generic, &g, &info, &cause) == 0,
	    "generic ;-separated csv reads");
	is_str(info.format, "flow-csv", "generic format");
	is_int(g.n, 3, "good rows kept, bad rows skipped");
	is_int(info.skipped, 4, "four bad rows counted");
	ok(g.r[0].start == 1714564800.0 && g.r[0].end == 1714564801.5 &&
	    g.r[0].proto == IPPROTO_UDP && g.r[0].bytes == 900,
	    "ISO times and named columns");
	ok(g.r[1].start == 1714564800.0, "ISO time zone offset");
	ok(g.r[2].end == 1714564811.0 && g.r[2].bytes == 1000,
	    "epoch milliseconds recognised");
	ok(strstr(buf_str(&g.warn), "g.txt:4: expected 7 fields, found 8") !=
	    NULL, "extra column named by line");
	ok(strstr(buf_str(&g.warn), "g.txt:5: expected 7 fields, found 1") !=
	    NULL, "garbage row named by line");
	ok(strstr(buf_str(&g.warn), "g.txt:6: bad time") != NULL,
	    "bad time named by line");
	ok(strstr(buf_str(&g.warn), "g.txt:7: bad destination address") !=
	    NULL, "bad address named by line");

	ok(read_text("tsv", "time\tsrc\tdst\tbytes\n1.5\t::1\t::2\t10\n", &g,
	    &info, &cause) == 0 && g.n == 1 && g.r[0].bytes == 10,
	    "tab-separated with named columns");
	is_str(info.format, "flow-tsv", "tsv format");
	ok(read_text("big.tsv", "time\tsrc\tdst\tbytes\n"
	    "1.5\t::1\t::2\t5555555555555 G\n2.5\t::1\t::2\t1.5 M\n", &g,
	    &info, &cause) == 0 && g.n == 1 && g.r[0].bytes == 1500000 &&
	    strstr(buf_str(&g.warn), "big.tsv:2: bad") != NULL,
	    "a count that overflows with its unit is a bad row, not a wrap");
	ok(read_text("hdr.csv", "ts,src,dst\n", &g, &info, &cause) == 0 &&
	    g.n == 0, "a header alone is an empty capture, not an error");
	ok(read_text("x.csv", "name,age\nbob,3\n", &g, &info, &cause) == -1 &&
	    strstr(cause, "no time, source and destination") != NULL,
	    "a csv that is not flows is refused");
	free(cause);
	buf_release(&g.warn);
}

int
main(void)
{
	char *cmd;

	if (mkdtemp(tmpdir) == NULL)
		return 1;
	test_nfdump();
	test_zeek();
	test_generic();
	cmd = xasprintf("rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		printf("# cannot remove %s\n", tmpdir);
	free(cmd);
	return done_testing();
}
