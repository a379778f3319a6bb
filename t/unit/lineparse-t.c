/* lineparse-t.c -- timestamps, rank prefixes, levels and message bodies. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lineparse.h"
#include "tap.h"

static struct lp_line lp;

/* Parse `line`; check the message, time and kind. */
static void
check(const char *line, const char *msg, double ts, enum lp_ts_kind kind)
{
	char what[256], got[256];
	size_t n;

	lp_parse(line, strlen(line), &lp);
	n = lp.msg_len < sizeof got - 1 ? lp.msg_len : sizeof got - 1;
	memcpy(got, lp.msg, n);
	got[n] = '\0';
	snprintf(what, sizeof what, "message of '%.60s'", line);
	is_str(got, msg, what);
	snprintf(what, sizeof what, "time of '%.60s'", line);
	if (!ok(lp.ts_kind == kind && fabs(lp.ts - ts) < 1e-3, what))
		printf("#   got kind %d ts %.6f, want kind %d ts %.6f\n",
		    lp.ts_kind, lp.ts, kind, ts);
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
	check("1714564800 job started", "job started", 1714564800,
	    LP_TS_EPOCH);
	check("[ 1234.567890] mlx5_core 0000:3b:00.0: link down",
	    "mlx5_core 0000:3b:00.0: link down", 1234.56789, LP_TS_UPTIME);
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
	check("no header at all 2024-05-01", "no header at all 2024-05-01", 0,
	    LP_TS_NONE);
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
	check("[Rank 0] iteration 5", "iteration 5", 0, LP_TS_NONE);
	is_int(lp.rank, 0, "[Rank 0] prefix");
	check("ERROR: disk full", "disk full", 0, LP_TS_NONE);
	is_int(lp.level, LP_LEVEL_ERROR, "bare ERROR:");
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
}

int
main(void)
{
	test_timestamps();
	test_ranks_levels();
	test_garbage();
	return done_testing();
}
