/* lineparse-t.c -- timestamps, rank prefixes, levels and message bodies. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logs/lineparse.h"
#include "tap.h"

static struct lp_line lp;
static char got_host[256];

/* Copy s[0..n) (NULL: empty) into got as a string. */
static void
copy_out(char *got, size_t cap, const char *s, size_t n)
{
	n = s == NULL ? 0 : n < cap - 1 ? n : cap - 1;
	if (n > 0)
		memcpy(got, s, n);
	got[n] = '\0';
}

/* Parse `line` and check its message. */
static void
parse_msg(const char *line, const char *msg)
{
	char what[256], got[256];

	lp_parse(line, strlen(line), &lp);
	copy_out(got, sizeof got, lp.msg, lp.msg_len);
	snprintf(what, sizeof what, "message of '%.60s'", line);
	is_str(got, msg, what);
}

/* Parse `line`; check the message, time and kind. */
static void
check(const char *line, const char *msg, double ts, enum lp_ts_kind kind)
{
	char what[256];

	parse_msg(line, msg);
	snprintf(what, sizeof what, "time of '%.60s'", line);
	if (!ok(lp.ts_kind == kind && fabs(lp.ts - ts) < 1e-3, what))
		printf("#   got kind %d ts %.6f, want kind %d ts %.6f\n",
		    lp.ts_kind, lp.ts, kind, ts);
}

/* Parse `line`; check the message, rank and host. */
static void
check_prefix(const char *line, const char *msg, int rank, const char *host)
{
	char what[256], got[256];

	parse_msg(line, msg);
	snprintf(what, sizeof what, "rank of '%.60s'", line);
	is_int(lp.rank, rank, what);
	copy_out(got, sizeof got, lp.host, lp.host_len);
	snprintf(what, sizeof what, "host of '%.60s'", line);
	is_str(got, host != NULL ? host : "", what);
}

/*
 * Process tags in front of a line: Ray's "(Name pid=N, ip=A)", Open
 * MPI's "[host:pid]", UCX's "[host:pid:thread:tid]"; and the look-alikes
 * that are not one.
 */
static void
test_process_tags(void)
{
	check_prefix("(Worker pid=4242, ip=10.1.2.3) [rank5]: ValueError: x",
	    "ValueError: x", 5, "10.1.2.3");
	check_prefix("(Worker pid=4242, ip=10.1.2.3) [rank5]:[E0312 08:15:00."
	    "123456 ProcessGroupNCCL.cpp:1] boom", "boom", 5, "10.1.2.3");
	check_prefix("(pid=77) Running 4/4 CPU", "Running 4/4 CPU", -1, NULL);
	check_prefix("(raylet) A worker died", "A worker died", -1, NULL);
	check_prefix("(Trainer pid=9) Worker 0 has failed.",
	    "Worker 0 has failed.", -1, NULL);
	check_prefix("(1) the first step", "(1) the first step", -1, NULL);
	check_prefix("(see below) x", "(see below) x", -1, NULL);
	check_prefix("(Worker pid=) x", "(Worker pid=) x", -1, NULL);
	check_prefix("[gpu-a12:31337] *** Process received signal ***",
	    "*** Process received signal ***", -1, "gpu-a12");
	check_prefix("[box-3-1:4100:0:4180] Caught signal 11 (Segmentation "
	    "fault)", "Caught signal 11 (Segmentation fault)", -1, "box-3-1");
	check_prefix("[10-1-2-3:88] PMIX ERROR: x", "PMIX ERROR: x", -1,
	    "10-1-2-3");
	check_prefix("[train.py:12] loss 3", "[train.py:12] loss 3", -1, NULL);
	check_prefix("[main:x] y", "[main:x] y", -1, NULL);
	check_prefix("[node-1:12]x", "[node-1:12]x", -1, NULL);
}

/* The line shapes launchers put in front of a rank's output. */
static void
test_launchers(void)
{
	check_prefix("[1,3]<stderr>:RuntimeError: CUDA error", "RuntimeError: "
	    "CUDA error", 3, NULL);
	check_prefix("[1,0]<stdout>: epoch 1 loss 2.3", "epoch 1 loss 2.3", 0,
	    NULL);
	check_prefix("2024-03-12T08:15:00.123456Z [1,12]<stderr>:boom", "boom",
	    12, NULL);
	check_prefix("10.0.0.3: [rank3]: RuntimeError: NCCL error",
	    "RuntimeError: NCCL error", 3, "10.0.0.3");
	check_prefix("host-7: [2024-03-12 08:15:00,123] [INFO] [engine.py:1:"
	    "step] step=10", "step=10", -1, "host-7");
	check_prefix("worker-5:   File \"train.py\", line 3, in main",
	    "File \"train.py\", line 3, in main", -1, "worker-5");
	check_prefix("RuntimeError: boom", "RuntimeError: boom", -1, NULL);
	check_prefix("epoch12: loss 0.5", "epoch12: loss 0.5", -1, NULL);
	check_prefix("rank0: hello", "rank0: hello", -1, NULL);
	check_prefix("torch.distributed.run: [WARNING] x",
	    "torch.distributed.run: [WARNING] x", -1, NULL);
	check_prefix("12: srun: error: node-12: task 12: Exited",
	    "error: node-12: task 12: Exited", 12, NULL);
	check_prefix("node1:1234:5678 [0] NCCL INFO NET/IB : Using mlx5_0",
	    "NET/IB : Using mlx5_0", -1, "node1");
	check_prefix("[  +0.000004] NVRM: Xid (PCI:0000:46:00): 79, fell off",
	    "NVRM: Xid (PCI:0000:46:00): 79, fell off", -1, NULL);
	check_prefix("[Mar12 08:15] NVRM: Xid (PCI:0000:46:00): 79, x",
	    "NVRM: Xid (PCI:0000:46:00): 79, x", -1, NULL);
	check_prefix("Jan 16 13:20:54 gpu-w17 kernel: [ 4030.873111] NVRM: Xid "
	    "48", "NVRM: Xid 48", -1, NULL);
	check_prefix(" 45%|####5     | 450/1000 [01:23<01:40,  5.47it/s][2024-"
	    "03-12 08:15:00,123] [ERROR] oops", "oops", -1, NULL);
	is_int(lp.level, LP_LEVEL_ERROR, "the level after a progress bar");
	check_prefix("step 1\rstep 2\r[rank1]: loss nan", "loss nan", 1, NULL);
	check_prefix("E0312 08:15:00.123456 12345 nccl.cc:42] NCCL error: x",
	    "NCCL error: x", -1, NULL);
	is_int(lp.level, LP_LEVEL_ERROR, "glog E is ERROR");
	test_process_tags();
}

/* Headers met in real pastes: collectors, tags, Slurm's own lines. */
static void
test_more_headers(void)
{
	/* a numeric zone after a blank, then the application's own time */
	check("2024-03-05 09:00:01.500 -05:00 [2024-03-05 14:00:01] "
	    "node-a7:123:456 [3] NCCL INFO Channel 00", "Channel 00",
	    1709647201.5, LP_TS_EPOCH);
	copy_out(got_host, sizeof got_host, lp.host, lp.host_len);
	is_str(got_host, "node-a7", "the NCCL host behind two timestamps");
	/* NCCL's subsystem tag stays message, spaced or not */
	check_prefix("gpu7:11:12 [1] transport/net_ib.cc:2451 NCCL WARN NET/IB: "
	    "Got completion from peer", "NET/IB: Got completion from peer", -1,
	    "gpu7");
	check_prefix("gpu7:11:12 [1] NCCL INFO NET/Plugin: Using internal",
	    "NET/Plugin: Using internal", -1, "gpu7");
	/* mpirun's tag glued to NCCL's host field */
	check_prefix("[1,3]<stdout>:worker-2:77:88 [0] NCCL INFO Bootstrap : x",
	    "Bootstrap : x", 3, "worker-2");
	check_prefix("2020-01-02T03:04:05.678Z: [1,5]<stderr>:trn-b4:7:9 [2] "
	    "NCCL WARN Call to ibv_open_device failed", "Call to "
	    "ibv_open_device failed", 5, "trn-b4");
	/* a host named after its address, dashed */
	check_prefix("10-0-4-11:62452:62548 [0] NCCL INFO init.cc:778 -> 2",
	    "init.cc:778 -> 2", -1, "10-0-4-11");
	check_prefix("2019-06-02 16:13:44 12:3:4 [0] NCCL INFO x", "x", -1, NULL);
	/* Slurm's step daemon and srun name the node (and srun the task) */
	check_prefix("slurmstepd-cn0311: error: *** JOB 42 ON cn0311 CANCELLED",
	    "*** JOB 42 ON cn0311 CANCELLED", -1, "cn0311");
	check_prefix("srun: error: cn0311: task 5: Killed", "srun: error: "
	    "cn0311: task 5: Killed", 5, "cn0311");
	check_prefix("srun: error: cn0312: tasks 0-3: Exited with exit code 1",
	    "srun: error: cn0312: tasks 0-3: Exited with exit code 1", -1,
	    "cn0312");
	check_prefix("srun: error: Unable to allocate resources", "srun: error: "
	    "Unable to allocate resources", -1, NULL);
	/* Open MPI's summary names the first process to fail */
	check_prefix("  Process name: [[4021,1],6]", "  Process name: [[4021,1],6]",
	    6, NULL);
	check_prefix("mpirun noticed that process rank 2 with PID 0 on node "
	    "cn17 exited on signal 9 (Killed).", "mpirun noticed that process "
	    "rank 2 with PID 0 on node cn17 exited on signal 9 (Killed).", 2,
	    "cn17");
}

static void
test_timestamps(void)
{
	check("2024-05-01T12:00:00.123Z hello", "hello", 1714564800.123,
	    LP_TS_EPOCH);
	ok(lp.tz_known, "Z is a known zone");
	check("2024-05-01 12:00:00+02:00 hello", "hello", 1714557600,
	    LP_TS_EPOCH);
	ok(lp.tz_known, "+02:00 is a known zone");
	check("2024-05-01 12:00:00,250 INFO hello", "hello", 1714564800.25,
	    LP_TS_EPOCH);
	ok(!lp.tz_known && lp.level == LP_LEVEL_INFO, "no zone; INFO");
	check("May  1 12:00:00 host sshd[42]: Accepted key", "Accepted key",
	    (120 * 86400.0) + 43200, LP_TS_NOYEAR);
	check("I0501 12:00:00.123456  1234 train.cc:12] step done",
	    "step done", 120 * 86400.0 + 43200.123456, LP_TS_NOYEAR);
	is_int(lp.level, LP_LEVEL_INFO, "glog I is INFO");
	/* c10d: glog's letter and time in brackets with the source, the
	   month unpadded */
	check("[rank2]:[E501 12:00:00.123456789 ProcessGroupNCCL.cpp:12] [Rank "
	    "2] boom", "boom", 120 * 86400.0 + 43200.123457,
	    LP_TS_NOYEAR);
	is_int(lp.level, LP_LEVEL_ERROR, "c10d's E in brackets is ERROR");
	is_int(lp.rank, 2, "c10d's line keeps the rank of its prefix");
	check("[W1101 07:00:00.5 socket.cpp:3] retry", "retry",
	    304 * 86400.0 + 25200.5, LP_TS_NOYEAR);
	is_int(lp.level, LP_LEVEL_WARN, "c10d's W in brackets is WARN");
	check("[E501 12:00:00.1 no source] x", "[E501 12:00:00.1 no source] x",
	    0, LP_TS_NONE);
	check("1714564800 job started", "job started", 1714564800,
	    LP_TS_EPOCH);
	check("[ 1234.567890] mlx5_core 0000:3b:00.0: link down",
	    "mlx5_core 0000:3b:00.0: link down", 1234.56789, LP_TS_UPTIME);
	check("[ 99.5] NVRM: Xid 79", "NVRM: Xid 79", 99.5, LP_TS_UPTIME);
	check("[2026-11-21 06:56:06.071] [INFO] [rank 1] > building model",
	    "> building model", 1795244166.071, LP_TS_EPOCH);
	is_int(lp.rank, 1, "[rank 1] after the level");
	check("081109 203615 148 INFO dfs.DataNode$PacketResponder: "
	    "PacketResponder 1 terminating", "PacketResponder 1 terminating",
	    1226262975, LP_TS_EPOCH);
	check("17/06/09 20:10:40 INFO spark.SecurityManager: Changing acls",
	    "Changing acls", 1497039040, LP_TS_EPOCH);
	check("[Sun Dec 04 04:47:44 2005] [notice] workerEnv.init() ok",
	    "workerEnv.init() ok", 1133671664, LP_TS_EPOCH);
	check("20171223-22:15:29:606|Step_LSC|30002312|onStandStepChanged 3579",
	    "onStandStepChanged 3579", 1514067329.606, LP_TS_EPOCH);
	check("03-17 16:13:38.811  1702  2395 D WindowManager: freeze",
	    "freeze", (75 * 86400.0) + 58418.811, LP_TS_NOYEAR);
	is_int(lp.level, LP_LEVEL_DEBUG, "logcat D is DEBUG");
	check("2016-09-28 04:30:30, Info                  CBS    Loaded",
	    "CBS    Loaded", 1475037030, LP_TS_EPOCH);
	check("[2024-05-01 12:00:00,123] torch.distributed.run: [WARNING] "
	    "Setting OMP_NUM_THREADS", "Setting OMP_NUM_THREADS",
	    1714564800.123, LP_TS_EPOCH);
	is_int(lp.level, LP_LEVEL_WARN, "level after the component");
	check("W0501 12:00:00.123456 140 torch/elastic/api.py:851] Sending "
	    "SIGTERM", "Sending SIGTERM", 120 * 86400.0 + 43200.123456,
	    LP_TS_NOYEAR);
	check("[2024-05-01 12:00:00,123] [INFO] [engine.py:123:forward] "
	    "step=5", "step=5", 1714564800.123, LP_TS_EPOCH);
	check("[Sat May  1 12:00:00 2024] NVRM: Xid 79", "Xid 79", 1714564800,
	    LP_TS_EPOCH);
	check("2024-05-01T12:00:00+0000 node-017 kernel: mlx5 link down",
	    "mlx5 link down", 1714564800, LP_TS_EPOCH);
	check("2024-05-01 12:00:00 - trainer - INFO - epoch 1 done",
	    "epoch 1 done", 1714564800, LP_TS_EPOCH);
	check("2024-05-01 12:00:00.5 Saving checkpoint: /ckpt/step100",
	    "Saving checkpoint: /ckpt/step100", 1714564800.5, LP_TS_EPOCH);
	check("nova-api.log.1 2017-05-16 00:00:00.008 25746 INFO "
	    "nova.osapi.wsgi [req-38101a0b-2096 113d3a99 - - -] GET /v2",
	    "GET /v2", 1494892800.008, LP_TS_EPOCH);
	check("2015-10-18 18:01:47,978 INFO [IPC Server handler 5 on 62270] "
	    "org.apache.hadoop.mapred.Task: Progress", "Progress",
	    1445191307.978, LP_TS_EPOCH);
	check("134681 node-246 unix.hw state_change.unavailable 1077804742 1 "
	    "Component State Change", "Component State Change", 1077804742,
	    LP_TS_EPOCH);
	check("[10.30 16:49:06] chrome.exe *64 - proxy.example.hk:5070 open",
	    "proxy.example.hk:5070 open", 302 * 86400.0 + 60546, LP_TS_NOYEAR);
	check("Jul  1 09:29:02 host-10 sandboxd[129] ([31211]): deny x",
	    "deny x", 181 * 86400.0 + 34142, LP_TS_NOYEAR);
	check("- 1120967799 2005.07.09 R17-M0 2005-07-09-20.56.39.594043 R17-M0 "
	    "RAS KERNEL INFO 1365301360 double-hummer exceptions",
	    "1365301360 double-hummer exceptions", 1120967799, LP_TS_EPOCH);
	check("- 1131566462 2005.11.09 #8# Nov 9 12:01:02 #8#/#8# crond[23474]: "
	    "(root) CMD", "(root) CMD", 1131566462, LP_TS_EPOCH);
	check("no header at all 2024-05-01", "no header at all 2024-05-01", 0,
	    LP_TS_NONE);
}

/* A time after a few bytes of punctuation, or at the end of the line. */
static void
test_times_elsewhere(void)
{
	static const char iter[] = "  Iter: [100/3877]   Freq 129.1   "
	    "loss_total 19.478   ";
	char line[256];

	/* read as the line without the prefix is read */
	check("[2020-04-19 21:30:46] [Epoch=000/020] Stage 1, [Need: "
	    "00:00:00]", "Stage 1, [Need: 00:00:00]", 1587331846, LP_TS_EPOCH);
	check("==>>[2020-04-19 21:30:46] [Epoch=000/020] Stage 1, [Need: "
	    "00:00:00]", "Stage 1, [Need: 00:00:00]", 1587331846, LP_TS_EPOCH);
	check("*** 2024-05-01T12:00:00Z checkpoint saved", "checkpoint saved",
	    1714564800, LP_TS_EPOCH);
	check("--> May  1 12:00:00 host sshd[42]: ok", "ok",
	    120 * 86400.0 + 43200, LP_TS_NOYEAR);
	check("=======> 2024-05-01 12:00:00 too long a prefix",
	    "=======> 2024-05-01 12:00:00 too long a prefix", 0, LP_TS_NONE);
	check("==> 12 items left", "==> 12 items left", 0, LP_TS_NONE);
	/* at the end: the message stays the line */
	snprintf(line, sizeof line, "%s[2020-04-19 21:31:52]", iter);
	check(line, line, 1587331912, LP_TS_EPOCH);
	snprintf(line, sizeof line, "%s2020-04-19 21:31:52", iter);
	check(line, line, 1587331912, LP_TS_EPOCH);
	snprintf(line, sizeof line, "%s[2020-04-19 21:31:52]  \r", iter);
	check(line, line, 1587331912, LP_TS_EPOCH);
	check("step 5 done 2024-05-01T12:00:00.5+02:00",
	    "step 5 done 2024-05-01T12:00:00.5+02:00", 1714557600.5,
	    LP_TS_EPOCH);
	check("step 5 done 2024-05-01 12:00:00 +02:00",
	    "step 5 done 2024-05-01 12:00:00 +02:00", 1714557600, LP_TS_EPOCH);
	check("step 5 done Wed May  1 12:00:00 2024",
	    "step 5 done Wed May  1 12:00:00 2024", 1714564800, LP_TS_EPOCH);
	check("step 5 done [Apr 19 21:31:52]", "step 5 done [Apr 19 21:31:52]",
	    108 * 86400.0 + 77512, LP_TS_NOYEAR);
	/* a key's value is the line's data, not its time */
	check("  time      : 2026-03-14_17:09:07",
	    "  time      : 2026-03-14_17:09:07", 0, LP_TS_NONE);
	check("deadline= 2024-05-01 12:00:00", "deadline= 2024-05-01 12:00:00",
	    0, LP_TS_NONE);
	/* ends that only look like numbers */
	check("loss_total 19.478", "loss_total 19.478", 0, LP_TS_NONE);
	check("samples seen 1587331912", "samples seen 1587331912", 0,
	    LP_TS_NONE);
	check("lr [0.123]", "lr [0.123]", 0, LP_TS_NONE);
	check("Iter: [1000/3877]", "Iter: [1000/3877]", 0, LP_TS_NONE);
	check("resumed from 2020-04-19", "resumed from 2020-04-19", 0,
	    LP_TS_NONE);
	check("took 2020-04-19 21:31:52x", "took 2020-04-19 21:31:52x", 0,
	    LP_TS_NONE);
	check("at x[2020-04-19 21:31:52]", "at x[2020-04-19 21:31:52]", 0,
	    LP_TS_NONE);
	check("eta 21:31:52", "eta 21:31:52", 0, LP_TS_NONE);
}

static void
test_ranks_levels(void)
{
	check("3: NCCL WARN timeout", "NCCL WARN timeout", 0, LP_TS_NONE);
	is_int(lp.rank, 3, "'3: ' prefix");
	check("[default7]:[2024-05-01 12:00:00] loss 1.5", "loss 1.5",
	    1714564800, LP_TS_EPOCH);
	is_int(lp.rank, 7, "[default7]: prefix");
	check("[rank12]: RuntimeError: NCCL error", "RuntimeError: NCCL error",
	    0, LP_TS_NONE);
	is_int(lp.rank, 12, "[rank12]: prefix");
	check("[E ProcessGroupNCCL.cpp:475] [Rank 3] Watchdog caught timeout",
	    "Watchdog caught timeout", 0, LP_TS_NONE);
	ok(lp.level == LP_LEVEL_ERROR && lp.rank == 3, "c10 [E file:line]");
	check("[Rank 0] iteration 5", "iteration 5", 0, LP_TS_NONE);
	is_int(lp.rank, 0, "[Rank 0] prefix");
	check("ERROR: disk full", "disk full", 0, LP_TS_NONE);
	is_int(lp.level, LP_LEVEL_ERROR, "bare ERROR:");
	check("INFO:root:starting training", "starting training", 0,
	    LP_TS_NONE);
	is_int(lp.level, LP_LEVEL_INFO, "Python basic layout");
	check("node01:1234:1234 [0] NCCL INFO Bootstrap : Using eth0",
	    "Bootstrap : Using eth0", 0, LP_TS_NONE);
	is_int(lp.level, LP_LEVEL_INFO, "NCCL INFO");
	check("GPU 3 ERROR detected", "GPU 3 ERROR detected", 0, LP_TS_NONE);
	is_int(lp.level, LP_LEVEL_NONE, "a level after plain words is message");
	check("error: lowercase bare words are message",
	    "error: lowercase bare words are message", 0, LP_TS_NONE);
	is_str(lp_level_name(LP_LEVEL_WARN), "WARN", "level name");
	is_str(lp_level_name(LP_LEVEL_NONE), "", "no level name");
}

static void
test_garbage(void)
{
	char big[100000];
	const char nul[] = "2024-05-01 12:00:00 \0INFO x";

	memset(big, '[', sizeof big);
	lp_parse(big, sizeof big, &lp);
	ok(lp.msg == big && lp.msg_len == sizeof big, "brackets: all message");
	memset(big, '1', sizeof big);
	lp_parse(big, sizeof big, &lp);
	ok(lp.msg_len == sizeof big, "digits: all message");
	lp_parse(nul, sizeof nul - 1, &lp);
	ok(lp.ts_kind == LP_TS_EPOCH && lp.msg >= nul && lp.msg + lp.msg_len
	    == nul + sizeof nul - 1, "NUL after a timestamp");
	lp_parse("", 0, &lp);
	ok(lp.msg_len == 0 && lp.rank == -1, "empty line");
	{
		/* a header and blanks to the end, in a buffer of exactly that
		   size: nothing may be read past it (the fuzzer found it) */
		static const char tail[] = "20: ";
		char *b = malloc(sizeof tail - 1);

		memcpy(b, tail, sizeof tail - 1);
		lp_parse(b, sizeof tail - 1, &lp);
		ok(lp.host == NULL, "a header followed by blanks only");
		free(b);
	}
}

/* Every month and day name, in any case, full or short. */
static void
test_names(void)
{
	static const char *const months[] = { "Jan", "feb", "MAR", "April",
	    "May", "june", "Jul", "August", "Sep", "October", "nov", "DEC" };
	static const int before[] = { 0, 31, 59, 90, 120, 151, 181, 212, 243,
	    273, 304, 334 };	/* days of 1970 before each month */
	static const char *const days[] = { "Mon", "tue", "WED", "Thu", "Fri",
	    "sat", "Sun" };
	char line[128], what[64];
	size_t i;

	for (i = 0; i < sizeof months / sizeof months[0]; i++) {
		snprintf(line, sizeof line, "%s  3 04:05:06 host sshd[1]: x",
		    months[i]);
		check(line, "x", (before[i] + 2) * 86400.0 + 4 * 3600 + 5 * 60 + 6,
		    LP_TS_NOYEAR);
	}
	for (i = 0; i < sizeof days / sizeof days[0]; i++) {
		snprintf(line, sizeof line, "%s Jul 10 03:55:15 2005 x", days[i]);
		snprintf(what, sizeof what, "date length of '%s ...'", days[i]);
		is_int((long)lp_time_len(line, strlen(line)), 24, what);
	}
	is_int((long)lp_time_len("Jun 3", 5), 0, "no time, no date");
	is_int((long)lp_time_len("Jux 10 03:55:15", 15), 0, "no month 'Jux'");
	is_int((long)lp_time_len("Son Jul 10 03:55:15", 19), 0,
	    "no day 'Son': no date");
}

/* The memo reads `line` as lp_parse() does; returns its shape. */
static uint64_t
memo_is(struct lp_memo *mo, const char *line)
{
	struct lp_line want, got;
	char what[160];
	uint64_t shape;

	lp_parse(line, strlen(line), &want);
	shape = lp_memo_parse(mo, line, strlen(line), &got);
	snprintf(what, sizeof what, "memo reads '%.70s'", line);
	ok(got.msg == want.msg && got.msg_len == want.msg_len &&
	    got.ts_kind == want.ts_kind && got.ts == want.ts &&
	    got.tz_known == want.tz_known && got.level == want.level &&
	    got.rank == want.rank && got.host == want.host &&
	    got.host_len == want.host_len, what);
	return shape;
}

static void
test_memo(void)
{
	static const char *const lines[] = {
		"[2024-05-01 10:00:14.830] [INFO] [rank 3]  iteration 4/ 500 |",
		"node000:4003:4103 [3] NCCL INFO comm 0x155cf1 rank 3 nranks 256",
		"May  1 10:00:00 node000 kernel: [ 6000.000000] mlx5_core 0000:0c",
		"I0501 12:00:00.123456  4242 main.cc:81] step 12",
		"1714557600 INFO epoch 3",
		"[ 1234.567890] NVRM: Xid (PCI:0000:3b:00): 79",
		"3: [2024-05-01 12:00:00,123] [WARNING] oom at step 7",
		"srun: error: node-17: task 12: Out Of Memory",
		"2024-05-01T12:00:00+02:00 host-7 sshd[42]: ok",
		"==>>[2020-04-19 21:30:46] [Epoch=000/020] Stage 1",
		"  Iter: [100/3877]   loss_total 19.478   [2020-04-19 21:31:52]",
	};
	struct lp_memo *mo = lp_memo_new();
	char big[1100], v[128];
	uint64_t a, b;
	size_t i, k;

	for (i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		memo_is(mo, lines[i]);
		snprintf(v, sizeof v, "%s", lines[i]);
		for (k = 0; v[k] != '\0'; k++)	/* other digits, in range */
			if (v[k] >= '1' && v[k] <= '8')
				v[k] = (char)(v[k] == '1' ? '0' : v[k] - 1);
		memo_is(mo, v);
	}
	/* a time out of range after one in range: parsed again, no shape */
	a = memo_is(mo, "2024-12-01 10:00:00 INFO start 1");
	ok(a != 0, "a line with a time has a shape");
	b = memo_is(mo, "2024-12-01 10:00:00 INFO start 2");
	ok(b == a, "another of its skeleton has the same");
	ok(memo_is(mo, "2024-13-01 10:00:00 INFO start 1") == 0,
	    "month 13: no shape");
	ok(memo_is(mo, "2024-12-01 29:00:00 INFO start 1") == 0,
	    "hour 29: no shape");
	memo_is(mo, "Dec  3 10:00:00 2024 host sshd[1]: ok");
	memo_is(mo, "Dec  3 10:00:00 0999 host sshd[1]: ok");
	memo_is(mo, "9999999999 INFO epoch");
	ok(memo_is(mo, "2024-12-01 10:00:00 WARN start 1") != a,
	    "another level, another shape");
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	memcpy(big, "[2024-05-01 10:00:14.830] [INFO] ", 33);
	memo_is(mo, big);
	ok(memo_is(mo, big) == 0, "a line past 1 KiB has no shape");
	/* past 1 KiB the skeleton is of the head: the end is read anew */
	memset(big, 'x', sizeof big - 1);
	memcpy(big, "  Iter: [100/3877] ", 19);
	memo_is(mo, big);
	memcpy(big + sizeof big - 23, " [2020-04-19 21:31:52]", 22);
	memo_is(mo, big);
	big[sizeof big - 2] = 'x';
	memo_is(mo, big);
	lp_memo_free(mo);
	lp_memo_free(NULL);
}

int
main(void)
{
	test_launchers();
	test_more_headers();
	test_timestamps();
	test_times_elsewhere();
	test_ranks_levels();
	test_garbage();
	test_names();
	test_memo();
	return done_testing();
}
