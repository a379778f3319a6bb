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
	    NULL, -1, SCAN_LOG, 2, "free text no process wrote is no log");
}

/* scan_sniff() on text in a file called `name`: rc, and why when 2. */
static void
doc_case(const char *name, const char *text, int rc, const char *why,
    const char *what)
{
	struct scan_file f;
	char *cause = NULL;
	int got;

	memset(&f, 0, sizeof f);
	f.rank = -1;
	f.rel = (char *)name;
	f.path = put(name, text);
	got = scan_sniff(&f, &cause);
	if (!ok(got == rc && (why == NULL ? f.why == NULL || rc != 2 :
	    f.why != NULL && strstr(f.why, why) != NULL), what))
		printf("#   got %d, '%s'\n", got, f.why ? f.why : "(null)");
	free(f.node);
	free(f.path);
	free(cause);
}

/* A plain file of `n` banner lines, then iteration lines. */
static char *
banner_then_iterations(size_t n)
{
	struct buf b = BUF_INIT;
	size_t i;

	buf_addf(&b, "------------------------ arguments ------------------------\n");
	for (i = 0; i < n; i++)
		buf_addf(&b, "  setting_number_%zu %.*s %zu\n", i,
		    (int)(40 - i % 20), "........................................",
		    i);
	for (i = 1; i <= 200; i++)
		buf_addf(&b, " iteration %zu/ 200 | consumed samples: %zu | grad "
		    "norm: 0.2 | number of skipped iterations: 0 |\n", i, i * 8);
	return buf_detach(&b);
}

static void
test_documents(void)
{
	char *big = banner_then_iterations(400);

	doc_case("README.md", "# A job\n\nRecorded runs of a model.\n\n"
	    "| run | what |\n|---|---|\n| a | healthy |\n", 2,
	    "a Markdown document", "a README is no log");
	doc_case("notes", "The run was stopped by hand after the learning rate "
	    "was changed.\nWe expect the loss to rise when the data are "
	    "shuffled again.\nNothing else was changed in the configuration "
	    "of the cluster.\n", 2, "prose", "prose is no log");
	doc_case("meta", "{\n  \"id\": \"x\",\n  \"lines\": [1, 2]\n}\n",
	    2, "a JSON document", "a JSON document is no log");
	doc_case("events", "{\"ts\": 1700000000.5, \"msg\": \"start\"}\n"
	    "{\"ts\": 1700000001.5, \"msg\": \"step\"}\n", 0, NULL,
	    "a log of one JSON record a line is a log");
	doc_case("check", "scenario: run 4\n  Same job as run 3, failed: "
	    "rank 1 hangs.\n    it  dur(ms)  loss\n     1    120.5  7.09\n"
	    "     2    118.1  7.01\n     3    121.9  6.98\n", 2,
	    "no line carries a time", "a check report's table is no log");
	doc_case("iters", " iteration     5426/  250000 | consumed samples:    "
	    "    43408 | elapsed time per iteration (ms): 4247.9 | grad norm: "
	    "nan |\n", 0, NULL, "Megatron iteration lines without a loss are "
	    "a log");
	doc_case("bar", " 59%|#####     | 59/100 [01:04<00:45, 0.99s/it]\n", 0,
	    NULL, "a progress bar is a log");
	doc_case("tb", "Traceback (most recent call last):\n  File \"t.py\", "
	    "line 3, in <module>\n    main()\nOSError: [Errno 28] No space "
	    "left on device\n", 0, NULL, "a bare traceback is a log");
	doc_case("plain", big, 0, NULL, "a banner longer than the head, "
	    "iterations in the tail: a log");
	doc_case("train_log.txt", "The run was stopped by hand after the "
	    "learning rate was changed.\nWe expect the loss to rise when the "
	    "data are shuffled again.\n", 0, NULL, "a file named as a log is "
	    "one, whatever it holds");
	doc_case("hostfile", "node01 slots=8\nnode02 slots=8\n", 2,
	    "a hostfile", "a hostfile is no log");
	free(big);
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
	test_documents();
	cmd = xasprintf("rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot clean %s\n", dir);
	free(cmd);
	return done_testing();
}
