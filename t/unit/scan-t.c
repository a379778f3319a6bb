/*
 * scan-t.c -- node and rank from paths, hostfiles, content sniffing.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "logs/scan.h"
#include "base/util.h"
#include "tap.h"

static void
path_case(const char *rel, const char *node, int rank, int kind)
{
	char *n, *what;
	int r, k;

	scan_path_info(rel, &n, &r, &k);
	what = xasprintf("%s: node %s rank %d kind %d", rel, node ? node : "-",
	    rank, kind);
	if (!ok((node == NULL ? n == NULL : n != NULL && strcmp(n, node) == 0)
	    && r == rank && k == kind, what))
		printf("#   node got '%s'\n", n ? n : "(null)");
	free(what);
	free(n);
}

static void
test_paths(void)
{
	path_case("node-017/rank-3.log", "node-017", 3, SCAN_LOG);
	path_case("logs/node03/rank-2.log", "node03", 2, SCAN_LOG);
	path_case("run1/attempt_0/3/stderr.log", NULL, 3, SCAN_LOG);
	path_case("gpu-a17/attempt_0/12/stdout.log", "gpu-a17", 12, SCAN_LOG);
	path_case("gpu-a17.log", "gpu-a17", -1, SCAN_LOG);
	path_case("logs/rank_12.log.gz", NULL, 12, SCAN_LOG);
	path_case("node02_rank5.log", "node02", 5, SCAN_LOG);
	path_case("node03/dmesg.log", "node03", -1, SCAN_HOST);
	path_case("dmesg-node05.txt", "node05", -1, SCAN_HOST);
	path_case("host7/var/log/kern.log", "host7", -1, SCAN_HOST);
	path_case("syslog.1", NULL, -1, SCAN_HOST);
	path_case("train.log", NULL, -1, SCAN_LOG);
	path_case("iter100/out.log", NULL, -1, SCAN_LOG);
}

static char dir[] = "/tmp/scan-t.XXXXXX";

static char *
put(const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");

	fputs(text, f);
	fclose(f);
	return p;
}

static void
test_hostfile(void)
{
	char **hosts, *p, *cause = NULL;
	size_t n;

	p = put("hosts", "# cluster\ngpu-a1 slots=2\ngpu-a2 slots=2\n");
	ok(scan_read_hostfile(p, &hosts, &n, &cause) == 0 && n == 4,
	    "slots hostfile read");
	ok(n == 4 && strcmp(hosts[1], "gpu-a1") == 0 &&
	    strcmp(hosts[2], "gpu-a2") == 0, "ranks given out in order");
	scan_free_hosts(hosts, n);
	free(p);
	p = put("hosts2", "b7 0-1,4\nb8 2-3\n");
	ok(scan_read_hostfile(p, &hosts, &n, &cause) == 0 && n == 5 &&
	    strcmp(hosts[4], "b7") == 0 && strcmp(hosts[3], "b8") == 0,
	    "explicit rank lists");
	scan_free_hosts(hosts, n);
	free(p);
	p = put("hosts3", "a slots=x\n");
	ok(scan_read_hostfile(p, &hosts, &n, &cause) == -1 &&
	    strstr(cause, "hosts3:1:") != NULL, "bad line named FILE:LINE");
	free(p);
	free(cause);
}

static void
sniff_case(const char *text, const char *node, int rank, int kind, int rc,
    const char *what)
{
	struct scan_file f;
	char *cause = NULL;
	int got;

	memset(&f, 0, sizeof f);
	f.rank = -1;
	f.path = put("sniff", text);
	got = scan_sniff(&f, &cause);
	ok(got == rc && f.rank == rank && f.kind == kind &&
	    (node == NULL ? f.node == NULL : f.node != NULL &&
	    strcmp(f.node, node) == 0), what);
	free(f.node);
	free(f.path);
	free(cause);
}

static void
test_sniff(void)
{
	sniff_case("gpu-b3:1234:1234 [5] NCCL INFO comm 0x55 rank 13 nranks 16 "
	    "cudaDev 5 busId 1c000 - Init COMPLETE\n", "gpu-b3", 13, SCAN_LOG,
	    0, "NCCL init line gives host and rank");
	sniff_case("[    0.000000] Linux version 6.1.0\n[    1.5] usb\n", NULL,
	    -1, SCAN_HOST, 0, "dmesg content");
	sniff_case("Nov 21 07:00:01 node09 kernel: NVRM: Xid 79\n", "node09",
	    -1, SCAN_HOST, 0, "syslog content names the host");
	sniff_case("\x01\x02\x03\x04\x05\x06\x07\x08\x0e\x0f\x10\x11", NULL, -1,
	    SCAN_LOG, 1, "binary is skipped");
	sniff_case("========================================\n"
	    "UDP Conversations\nFilter:<No Filter>\n"
	    "  | Frames Bytes |\n10.0.0.1:4791 <-> 10.0.0.2:4791 12 1 kB\n",
	    NULL, -1, SCAN_LOG, 2, "a capture tool's statistics report is "
	    "no log");
	sniff_case("#separator \\x09\n#set_separator\t,\n#path\tconn\n"
	    "#fields\tts\tuid\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\t"
	    "proto\tduration\torig_bytes\tresp_bytes\n"
	    "1700000000.1\tC1\t10.0.0.1\t5000\t10.0.0.2\t29500\ttcp\t1.0\t"
	    "10\t20\n", NULL, -1, SCAN_LOG, 2, "flow records (a Zeek conn.log) "
	    "are no log");
	sniff_case("========================================\n"
	    "step 1 loss 2.30\nstep 2 loss 2.21\n", NULL, -1, SCAN_LOG, 0,
	    "a rank's plain print under a banner is a log");
	sniff_case("scenario: run 4\n  capture: 10 frames\n  nodes: 4\n",
	    NULL, -1, SCAN_LOG, 0, "free text without times is a log");
}

int
main(void)
{
	char *cmd;

	test_paths();
	if (mkdtemp(dir) == NULL)
		return 1;
	test_hostfile();
	test_sniff();
	cmd = xasprintf("rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot clean %s\n", dir);
	free(cmd);
	return done_testing();
}
