/* tmpl-t.c -- masking, matching, determinism, stable ids, restore. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "logs/tmpl.h"
#include "base/util.h"

static void
mask_is(const char *in, const char *want)
{
	struct buf b = BUF_INIT;
	char what[200];

	tmpl_mask(in, strlen(in), &b);
	snprintf(what, sizeof what, "mask '%.80s'", in);
	is_str(b.s, want, what);
	buf_release(&b);
}

static void
test_mask(void)
{
	mask_is("step 12 loss 3.25e-4", "step <*> loss <*>");
	mask_is("connect to 10.0.0.17:29500 failed", "connect to <*> failed");
	mask_is("peer fe80::1 gone", "peer <*> gone");
	mask_is("addr 0x7ffd1234 bad", "addr <*> bad");
	mask_is("reading /data/shard-0001.bin", "reading <*>");
	mask_is("see https://example.com/x?y=1 now", "see <*> now");
	mask_is("node-017 gpu3 slow", "<*> slow");
	mask_is("on node-017 then gpu3", "on <*> then <*>");
	mask_is("took 12.5ms for 4.0GiB", "took <*> for <*>");
	mask_is("shape [8, 1024] vs torch.Size([8, 1024, 3])",
	    "shape <*> vs torch.Size([<*>])");
	mask_is("id 123e4567-e89b-12d3-a456-426614174000 done", "id <*> done");
	mask_is("at 2024-05-01 12:00:00 ok", "at <*> ok");
	mask_is("lr=0.001 mode=train ok=true", "lr=<*> mode=<*> ok=<*>");
	mask_is("flag true and None", "flag <*> and <*>");
	mask_is("File \"/opt/x/train.py\", line 309, in main",
	    "File <*> line <*> in main");
	mask_is("open get.example.com:80 via proxy.cse.example.hk:5070",
	    "open <*> via <*>");
	mask_is("  spaced\t\tout  ", "spaced out");
	mask_is("icache prefetch depth......4", "icache prefetch depth......<*>");
	mask_is("sent 1910 bytes (1.86 KB) ok", "sent <*> ok");
	mask_is("from 1.2.3.4 () at Sun Jul 10 03:55:15 2005", "from <*> at <*>");
	mask_is("mlx5_core 0000:0c:00.0 eth2: Link down",
	    "mlx5_core <*> Link down");
	mask_is("mlx5_port_module_event:1137:(pid 0): module 0 on mlx5_0",
	    "mlx5_port_module_event:<*>:(pid <*> module <*> on <*>");
	mask_is("at node_017 x86_64 sm_80 rank3 a1_b", "at <*>");
	mask_is("", "");
}

static uint32_t
match(struct tmpl_miner *m, const char *msg, int *changed)
{
	struct buf b = BUF_INIT;
	uint32_t id;

	tmpl_mask(msg, strlen(msg), &b);
	id = tmpl_match(m, b.s, b.len, changed);
	buf_release(&b);
	return id;
}

static const char *msgs[] = {
	"Accepted publickey for alice.a from 10.0.0.1 port 22",
	"Accepted publickey for bob.b from 10.0.0.2 port 22",
	"Connection closed by 10.0.0.3",
	"Accepted publickey for carol.c from 10.0.0.4 port 22",
	"iteration 1 | loss 3.2 | grad norm 1.0",
	"Connection closed by 10.0.0.9",
	"iteration 2 | loss 3.1 | grad norm 0.9",
};

static void
test_match(void)
{
	struct tmpl_miner *m = tmpl_new(), *m2 = tmpl_new();
	uint32_t a, b, c, ids[TS_NELEM(msgs)];
	int changed;
	size_t i;
	char *cause = NULL;

	a = match(m, msgs[0], &changed);
	ok(a == 1 && changed, "first template is id 1 and new");
	b = match(m, msgs[1], &changed);
	is_int(b, a, "same event, same id");
	ok(changed, "generalising changes the text");
	is_str(tmpl_text(m, a), "Accepted publickey for <*> from <*> port <*>",
	    "generalised text");
	c = match(m, msgs[2], &changed);
	ok(c != a && changed, "another event gets a new id");
	is_int(match(m, msgs[3], &changed), a, "id stable after generalising");
	ok(!changed, "an already general template does not change");
	ok(match(m, "cupsd startup succeeded", NULL) !=
	    match(m, "cupsd shutdown succeeded", NULL),
	    "events differing in a plain word stay apart");
	for (i = 0; i < TS_NELEM(msgs); i++)
		ids[i] = match(m2, msgs[i], NULL);
	for (i = 0; i < TS_NELEM(msgs); i++)
		if (match(m2, msgs[i], NULL) != ids[i])
			break;
	ok(i == TS_NELEM(msgs), "deterministic: same messages, same ids");
	is_int(tmpl_max_id(m2), 3, "three templates");
	tmpl_free(m2);

	m2 = tmpl_new();
	for (i = 1; i <= tmpl_max_id(m); i++)
		if (tmpl_restore(m2, (uint32_t)i, tmpl_text(m, (uint32_t)i),
		    &cause) != 0)
			break;
	ok(i == tmpl_max_id(m) + 1, "restore every template");
	ok(tmpl_restore(m2, 1, "x", &cause) == -1 && cause != NULL &&
	    strstr(cause, "duplicate") != NULL, "duplicate id refused");
	free(cause);
	is_int(match(m2, "Accepted publickey for dave.d from 10.1.1.1 port 2",
	    &changed), a, "restored template matches");
	ok(!changed, "restored template unchanged");
	is_int(match(m2, "something else entirely", &changed),
	    tmpl_max_id(m) + 1, "new ids continue after restored ones");
	ok(tmpl_text(m2, 999) == NULL && tmpl_text(m2, 0) == NULL,
	    "unknown ids have no text");
	tmpl_free(m2);
	tmpl_free(m);
	tmpl_free(NULL);
}

/* Past the template cap, new kinds of message share the catch-all. */
static void
test_bounds(void)
{
	struct tmpl_miner *m = tmpl_new();
	char msg[64], big[5000];
	uint32_t id, max = 0;
	int i, k, x;

	for (i = 0; i < 60000; i++) {
		for (k = 0, x = i; k < 5; k++, x /= 26)
			msg[k] = (char)('a' + x % 26);
		memcpy(msg + 5, " happened", 10);
		id = match(m, msg, NULL);
		if (id > max)
			max = id;
	}
	ok(max == tmpl_max_id(m) && max <= 50001, "template count is capped");
	is_str(tmpl_text(m, max), "<*>", "the catch-all template");
	tmpl_free(m);
	m = tmpl_new();
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	for (i = 0; i < (int)sizeof big - 1; i += 7)
		big[i] = ' ';
	id = match(m, big, NULL);
	ok(id == 1 && strlen(tmpl_text(m, id)) <= 1024,
	    "a huge message gives a bounded template");
	tmpl_free(m);
}

/*
 * Two miners on one cache: what one generalised, the other takes in with
 * tmpl_update() and generalises further instead of undoing it.
 */
static void
test_update(void)
{
	struct tmpl_miner *a = tmpl_new(), *b = tmpl_new();
	char *cause = NULL;
	uint32_t id, i;
	int changed;

	id = match(a, "sync kappa stage mod.a from dir.a ready now", NULL);
	ok(tmpl_update(b, id, tmpl_text(a, id), &cause) == 0,
	    "an unknown id is restored");
	match(b, "sync kappa stage mod.b from dir.a ready now", &changed);
	ok(changed, "the other miner generalises X");
	ok(tmpl_update(a, id, tmpl_text(b, id), &cause) == 0,
	    "the new text is taken in");
	is_str(tmpl_text(a, id), "sync kappa stage <*> from dir.a ready now",
	    "with the other's wildcard");
	is_int(match(a, "sync kappa stage mod.a from dir.c ready now",
	    &changed), id, "the same template");
	ok(changed, "generalised at Y too");
	is_str(tmpl_text(a, id), "sync kappa stage <*> from <*> ready now",
	    "both wildcards kept");
	ok(tmpl_update(a, id, tmpl_text(a, id), &cause) == 0,
	    "the same text again changes nothing");
	for (i = 0; i < 3; i++)
		tmpl_update(a, id, i % 2 ? "sync kappa stage <*> from <*> ready "
		    "now" : "sync kappa stage mod.a from <*> ready now", &cause);
	is_int(match(a, "sync kappa stage mod.a from dir.q ready now", NULL),
	    id, "moved between texts, still found once in its leaf");
	is_int(tmpl_max_id(a), 1, "no template made by updates");
	ok(tmpl_update(a, 0, "x", &cause) == -1, "id 0 is refused");
	free(cause);
	tmpl_free(a);
	tmpl_free(b);
}

/*
 * The memo masks as tmpl_mask() does, also where digits are read, and
 * hashes the masked text as a memo that never saw the message does.
 */
static void
memo_is(struct tmpl_memo *mo, const char *in)
{
	struct tmpl_memo *fresh = tmpl_memo_new();
	struct buf a = BUF_INIT, b = BUF_INIT;
	char what[200];
	uint64_t h;

	tmpl_mask(in, strlen(in), &a);
	h = tmpl_memo_mask(mo, in, strlen(in), &b, NULL);
	snprintf(what, sizeof what, "memo '%.80s' -> '%.60s'", in, a.s);
	is_str(b.s, a.s, what);
	ok(h == tmpl_memo_mask(fresh, in, strlen(in), &b, NULL),
	    "and its hash");
	tmpl_memo_free(fresh);
	buf_release(&a);
	buf_release(&b);
}

static void
test_memo(void)
{
	struct tmpl_memo *mo = tmpl_memo_new();
	char line[128];
	int i;

	/* the same shape with other numbers: answered from the memo */
	for (i = 0; i < 300; i++) {
		snprintf(line, sizeof line, "iteration %8d/ 500 | loss: "
		    "%.6E | grad norm: %.3f |", i, 3.5 / (i + 1), i * 0.01);
		memo_is(mo, line);
	}
	/* a name keeps its digit: another digit is another name */
	memo_is(mo, "mlx5_core 0000:0c:00.0: link up");
	memo_is(mo, "mlx7_core 0000:0c:00.0: link up");
	memo_is(mo, "mlx5_core 0000:0c:00.0: link up");
	/* a date's day and time must be in range */
	memo_is(mo, "opened Jul 10 03:55:15 by root");
	memo_is(mo, "opened Jul 99 03:55:15 by root");
	memo_is(mo, "opened Jul 10 03:55:15 by root");
	memo_is(mo, "Sun, Jul 10 93:55:15 2005 up");
	memo_is(mo, "Sun, Jul 10 03:55:15 2005 up");
	memo_is(mo, "");
	/* longer than the memo keeps: masked each time */
	memset(line, 'x', sizeof line - 1);
	line[sizeof line - 1] = '\0';
	memo_is(mo, line);
	tmpl_memo_free(mo);
	tmpl_memo_free(NULL);
}

int
main(void)
{
	test_mask();
	test_match();
	test_bounds();
	test_update();
	test_memo();
	return done_testing();
}
