/* stage-t.c -- iteration lines of the common frameworks, stage tracking. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag/stage.h"
#include "tap.h"

static int
iter(const char *msg, struct stage_iter *it)
{
	return stage_parse_iter(msg, strlen(msg), it);
}

static void
test_megatron(void)
{
	struct stage_iter it;

	ok(iter(" iteration       12/      30 | consumed samples:          384 |"
	    " elapsed time per iteration (ms): 124.9 | learning rate: "
	    "1.000000E-03 | global batch size:    32 | lm loss: 6.969785E+00 |"
	    " loss scale: 1.0 | grad norm: 0.105 |", &it), "megatron line");
	is_int(it.iteration, 12, "megatron iteration");
	ok(it.has_duration && fabs(it.duration_ms - 124.9) < 1e-9,
	    "megatron duration");
	ok(it.has_loss && fabs(it.loss - 6.969785) < 1e-9, "megatron loss");
	is_str(stage_fw_name(it.fw), "megatron", "framework");
	ok(!iter("saving checkpoint at iteration      10 to /scratch/ckpt",
	    &it), "checkpoint line is not an iteration");
}

static void
test_others(void)
{
	struct stage_iter it;

	ok(iter("[Rank 0] step=120, skipped=0, lr=[0.0001], mom=[(0.9, 0.95)]",
	    &it) && it.iteration == 120 && it.fw == FW_DEEPSPEED,
	    "deepspeed step=");
	ok(iter("steps: 100 loss: 2.3456 iter time (s): 0.512 samples/sec: 62.5",
	    &it) && it.iteration == 100 && it.has_loss &&
	    fabs(it.duration_ms - 512) < 1e-6, "deepspeed steps: loss: iter time");
	ok(iter("{'loss': 2.1, 'learning_rate': 4.5e-05, 'epoch': 0.5}", &it) &&
	    it.iteration == -1 && it.has_loss && fabs(it.loss - 2.1) < 1e-9,
	    "hf trainer loss dict (unnumbered)");
	ok(iter(" 12%|\xe2\x96\x88         | 12/100 [00:10<01:13,  1.20it/s]",
	    &it) && it.iteration == 12 && it.has_duration &&
	    fabs(it.duration_ms - 1000 / 1.2) < 1e-6, "hf progress bar");
	ok(iter("  2%|          | 1/40 [00:01<00:39, 1.02s/it]", &it) &&
	    it.iteration == 1 && fabs(it.duration_ms - 1020) < 1e-6,
	    "hf progress bar with blanks in the bar");
	ok(iter("Epoch 1:  42%|\xe2\x96\x88\xe2\x96\x8f   | 21/50 [00:05<00:07,"
	    "  3.90it/s, loss=2.31, v_num=0]", &it) && it.iteration == 71 &&
	    it.fw == FW_LIGHTNING && fabs(it.loss - 2.31) < 1e-9,
	    "lightning epoch bar: global step from epoch and total");
	ok(iter("\033[31mstep:  10  \033[32mloss:  9.2345  \033[33mmemory: "
	    "30.12GiB(38.05%)  \033[34mtps: 1,234", &it) &&
	    it.iteration == 10 && fabs(it.loss - 9.2345) < 1e-9 &&
	    it.fw == FW_TORCHTITAN, "torchtitan with colours");
	ok(iter("Epoch 0: : 12it [00:30,  2.50s/it, reduced_train_loss=3.21, "
	    "global_step=11.0, consumed_samples=96.0]", &it) &&
	    it.iteration == 11 && it.fw == FW_NEMO &&
	    fabs(it.duration_ms - 2500) < 1e-6 && fabs(it.loss - 3.21) < 1e-9,
	    "nemo: global_step, s/it, reduced_train_loss");
	ok(!iter("loading checkpoint from /x/iter_0000010", &it),
	    "plain line is not an iteration");
	ok(!iter("iter", &it) && !iter("", &it), "short lines");
}

/* The grad norm and the hyperparameters, in each framework's spelling. */
static void
test_extra(void)
{
	struct stage_iter it;

	ok(iter(" iteration       13/      30 | consumed samples:          832 |"
	    " elapsed time per iteration (ms): 629.1 | learning rate: "
	    "3.000000E+03 | global batch size:    64 | lm loss: 1.033910E+08 |"
	    " loss scale: 1.0 | grad norm: nan | number of skipped iterations:"
	    "   0 |", &it) && it.has_gnorm && isnan(it.gnorm) &&
	    (it.has_hp & (1u << HP_LR)) && fabs(it.hp[HP_LR] - 3000) < 1e-9 &&
	    (it.has_hp & (1u << HP_BATCH)) && fabs(it.hp[HP_BATCH] - 64) < 1e-9 &&
	    (it.has_hp & (1u << HP_LOSS_SCALE)) && it.hp[HP_LOSS_SCALE] == 1,
	    "megatron: grad norm nan, learning rate, batch size, loss scale");
	ok(iter(" iteration     5426/  250000 | consumed samples:        43408 |"
	    " elapsed time per iteration (ms): 4247.9 | grad norm: "
	    "124753759174656.000 | actual seqlen:  2048 |", &it) &&
	    !it.has_loss && it.has_gnorm && it.gnorm > 1e14,
	    "megatron without a loss still gives its grad norm");
	ok(iter("[Rank 0] step=120, skipped=0, lr=[0.0001], mom=[(0.9, 0.95)]",
	    &it) && (it.has_hp & (1u << HP_LR)) &&
	    fabs(it.hp[HP_LR] - 0.0001) < 1e-12, "deepspeed lr=[...]");
	ok(iter("{'loss': 2.1, 'grad_norm': inf, 'learning_rate': 4.5e-05, "
	    "'epoch': 0.5}", &it) && it.has_gnorm && isinf(it.gnorm) &&
	    fabs(it.hp[HP_LR] - 4.5e-05) < 1e-12, "hf dict: grad_norm, "
	    "learning_rate");
	ok(iter("steps: 100 loss: 2.3456 iter time (s): 0.512", &it) &&
	    !it.has_gnorm && it.has_hp == 0, "no grad norm, no hyperparameter");
	is_str(stage_hparam_name(HP_LR), "learning rate", "hyperparameter name");
}

static int
bar(const char *msg)
{
	return stage_progress_bar(msg, strlen(msg));
}

/* Progress bars are told from the lines that say what happened. */
static void
test_bars(void)
{
	ok(bar(" 59%|#####     | 59/100 [01:04<00:45, 0.99s/it]"), "tqdm bar");
	ok(bar("Epoch 1:  42%|\xe2\x96\x88\xe2\x96\x8f   | 21/50 [00:05<00:07,"
	    "  3.90it/s, loss=2.31, v_num=0]"), "lightning bar");
	ok(bar("Epoch 0: : 12it [00:30,  2.50s/it, reduced_train_loss=3.21]"),
	    "tqdm without a total");
	ok(bar("Training \xe2\x94\x81\xe2\x94\x81\xe2\x94\x81\xe2\x94\x81"
	    "\xe2\x94\x81\xe2\x94\x81  42% 0:00:12"), "rich bar");
	ok(!bar(" iteration       12/      30 | consumed samples: 384 | lm loss: "
	    "6.97 |"), "megatron line is no bar");
	ok(!bar("{'loss': 2.1, 'learning_rate': 4.5e-05, 'epoch': 0.5}"),
	    "hf loss dict is no bar");
	ok(!bar("Loading checkpoint shards: done"), "plain line is no bar");
}

/* Loops of no framework: a counter word beside a training loss or a rate. */
static void
test_counter(void)
{
	struct stage_iter it;

	ok(iter("[12/20 18:16:09 d2.utils.events]:  eta: 19:46:55  iter: 4959  "
	    "total_loss: 10.31  loss_ce: 0.8514  lr: 2.5e-05", &it) &&
	    it.iteration == 4959 && it.fw == FW_COUNTER && it.has_loss &&
	    fabs(it.loss - 10.31) < 1e-9, "detectron2 events line");
	ok(iter("Rank: 0; [ep: 0] iter: 57; lr: 0.71785; loss: 2.94718; "
	    "btime(ms): 192", &it) && it.iteration == 57 &&
	    fabs(it.loss - 2.94718) < 1e-9, "iter: N; loss: x");
	ok(iter("| epoch 027 | loss 6.343 | nll_loss 4.984 | ppl 31.65 | "
	    "num_updates 10198 | lr 0.000626", &it) && it.iteration == 10198 &&
	    fabs(it.loss - 6.343) < 1e-9, "fairseq train line: num_updates");
	ok(iter("[Epoch 64 736512/1281167][Iteration 45459][Wall Clock 19.7s] "
	    "Loss is Infinity. Current learning rate is 0.0462", &it) &&
	    it.iteration == 45459 && it.has_loss && isinf(it.loss),
	    "[Iteration N] ... Loss is Infinity");
	ok(iter("iter 12: loss nan, time: 401.2ms", &it) && it.iteration == 12 &&
	    it.has_loss && isnan(it.loss), "iter N: loss nan");
	ok(iter("Epoch[3] Batch [40]\tSpeed: 512.4 samples/sec\tacc=0.91", &it) &&
	    it.iteration == 40 && !it.has_loss, "Batch [N] with a throughput");
	ok(!iter("| epoch 027 | valid on 'valid' subset | valid_loss 8.3 | "
	    "num_updates 10198", &it), "a validation loss is no training step");
	ok(!iter("    loss = self.step(batch)", &it),
	    "source line of a traceback");
	ok(!iter("saving checkpoint at iteration 10 to /ckpt", &it) &&
	    !iter("prefetching batch 3 of 12", &it),
	    "a counter without a loss or a rate");
	ok(!iter("iteration_loss 2.5 reached at stepping 4", &it),
	    "counter words only as whole words");
	ok(iter("step: [40/900]  lr 0.01  loss_rec 0.412  loss_kl 0.031  "
	    "loss_sum 0.443  (12:00:01)", &it) && it.iteration == 40 &&
	    it.has_loss && fabs(it.loss - 0.443) < 1e-9,
	    "a loss given by its parts: their sum");
	ok(iter("Batch 7 | loss_mask 0.2 | loss_box 0.5", &it) &&
	    it.iteration == 7 && fabs(it.loss - 0.2) < 1e-9,
	    "parts without a total: the first");
	ok(!iter("step 3 | loss_scale 65536.0 | grad_norm 1.2", &it),
	    "the loss scale is no loss");
}

static void
feed(struct stage_tracker *t, const char *msg, struct stage_tag *tag)
{
	stage_feed(t, msg, strlen(msg), tag);
}

static void
test_tracker(void)
{
	struct stage_tracker t;
	struct stage_tag tag;

	stage_tracker_init(&t);
	feed(&t, "using world size: 4, data-parallel size: 2", &tag);
	is_str(stage_name(tag.stage), "launch", "banner is launch");
	feed(&t, "> initializing torch distributed with backend gloo", &tag);
	is_str(stage_name(tag.stage), "init", "init");
	feed(&t, "building GPT model ...", &tag);
	is_str(stage_name(tag.stage), "init", "model build stays init");
	feed(&t, "loading checkpoint from /ckpt at iteration 0", &tag);
	is_str(stage_name(tag.stage), "checkpoint-load", "checkpoint load");
	feed(&t, "training ...", &tag);
	is_str(stage_name(tag.stage), "training", "training begins");
	is_int(tag.iteration, -1, "no iteration yet");
	feed(&t, " iteration        1/      30 | lm loss: 7.0E+00 |", &tag);
	ok(tag.is_iter && tag.iteration == 1, "iteration 1");
	feed(&t, "saving checkpoint at iteration       1 to /ckpt", &tag);
	is_str(stage_name(tag.stage), "checkpoint-save", "save begins");
	feed(&t, "  successfully saved checkpoint at iteration 1 to /ckpt", &tag);
	is_str(stage_name(tag.stage), "checkpoint-save", "save end line");
	feed(&t, "some line", &tag);
	is_str(stage_name(tag.stage), "training", "back to training");
	is_int(tag.iteration, 2, "in iteration 2");
	feed(&t, "RuntimeError: world size 4 not divisible", &tag);
	is_str(stage_name(tag.stage), "training", "no return to launch");
	feed(&t, "validation loss at iteration 2 | lm loss value: 6.1", &tag);
	is_str(stage_name(tag.stage), "evaluation", "evaluation");
	feed(&t, "training finished", &tag);
	is_str(stage_name(tag.stage), "shutdown", "shutdown");
	is_int(stage_from_name("checkpoint-save"), STAGE_CKPT_SAVE, "from name");
	is_int(stage_from_name("nope"), -1, "unknown name");
	is_int(stage_rule("successfully saved checkpoint", 29),
	    STAGE_CKPT_SAVE, "stage_rule");
	{
		static const char *const evals[] = {
			"Validation DataLoader 0: 100%", "begin validation on "
			"\"valid\" subset", "Epoch 3: validating",
			"starting eval at step 100", "Running validation step 5",
			"| valid on 'valid' subset | loss 4.1 | ppl 17",
			"{'eval_runtime': 12.5, 'epoch': 1.0}",
		};
		size_t i;

		for (i = 0; i < sizeof evals / sizeof evals[0]; i++)
			ok(stage_rule(evals[i], strlen(evals[i])) == STAGE_EVAL,
			    evals[i]);
	}
}

/* Numbers only: the same verdict, number and framework, no fields. */
static void
test_numbers_only(void)
{
	static const char *lines[] = {
		" iteration       12/      30 | elapsed time per iteration "
		    "(ms): 124.9 | lm loss: 6.969785E+00 |",
		"[Rank 0] step=120, skipped=0, lr=[0.0001]",
		"steps: 100 loss: 2.3 iter time (s): 0.51 samples/sec: 62.1",
		"step:  10  loss:  9.2  memory: 10GiB  tps: 1200",
		"{'loss': 2.1, 'learning_rate': 1e-05, 'epoch': 0.1}",
		"Epoch 1:  42%|####      | 21/50 [00:10<00:14, 2.0it/s, loss=2.3]",
		"Epoch 0: : 12it [00:05, 2.1it/s, reduced_train_loss=3.2, "
		    "global_step=11.0]",
		" 12/500 [00:10<07:00,  1.2it/s]",
		"iter 83592: loss 1.5455, time: 4401.19ms",
		"Epoch 1, batch 50, batch avg loss 0.6246, batch size: 10",
		"Epoch[0] Batch [100]\tSpeed: 1326.73 samples/sec",
		"| valid on 'valid' subset | valid_loss 8.3 | num_updates 10198",
		"saving checkpoint at iteration      10 to /ckpt",
		"iteration x/ 3",
		"",
	};
	struct stage_iter a, b;
	char what[64];
	size_t i;

	for (i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		int ra = stage_parse_iter(lines[i], strlen(lines[i]), &a);
		int rb = stage_parse_iter_number(lines[i], strlen(lines[i]),
		    &b);

		snprintf(what, sizeof what, "numbers only: verdict of line %zu",
		    i);
		is_int(rb, ra, what);
		if (!ra || !rb)
			continue;
		snprintf(what, sizeof what, "numbers only: line %zu", i);
		ok(a.iteration == b.iteration && a.fw == b.fw &&
		    !b.has_duration && !b.has_loss, what);
	}
}

/*
 * The numbers a line gives are those strtod() gives, to the last bit,
 * whether the short path for plain decimals reads them or strtod() does:
 * signs, a leading or trailing '.', 16 and more digits, long fractions,
 * exponents, and pseudo-random ones.
 */
static void
test_number_bits(void)
{
	static const char *const fixed[] = {
		"0", "-0", "+0", "0.0", "-0.0", "5.", ".5", "-.5", "0.1", "0.3",
		"1.000000E-03", "6.969785E+00", "124.9", "9007199254740991",
		"9007199254740992", "9007199254740993", "12345678901234567890",
		"0.1234567890123456789", "3.14159265358979323846",
		"0.0000000000000000000001", "0.00000000000000000000001",
		"1.7976931348623157", "2.2250738585072014", "1.2.3", "007.50",
		"99999999999999999", "4.35", "0.07", "1e5", "-2.5e-3",
	};
	char num[64], line[160];
	struct stage_iter it;
	double want;
	unsigned seed = 12345;
	size_t i, bad = 0, n = 0;

	for (i = 0; i < sizeof fixed / sizeof fixed[0] + 2000; i++) {
		if (i < sizeof fixed / sizeof fixed[0])
			snprintf(num, sizeof num, "%s", fixed[i]);
		else {
			seed = seed * 1103515245u + 12345u;
			snprintf(num, sizeof num, "%s%u.%0*u",
			    seed & 1 ? "-" : "", seed >> 8 & 0xfffff,
			    (int)(seed >> 28 & 7) + 1, seed >> 4 & 0xfffffff);
		}
		snprintf(line, sizeof line, " iteration 3/ 9 | lm loss: %s |",
		    num);
		want = strtod(num, NULL);
		n++;
		if (!iter(line, &it) || !it.has_loss ||
		    memcmp(&it.loss, &want, sizeof want) != 0) {
			printf("#   loss '%s': %.17g, strtod %.17g\n", num,
			    it.loss, want);
			bad++;
		}
	}
	snprintf(line, sizeof line, "%zu numbers read as strtod() reads them",
	    n);
	ok(bad == 0, line);
}

int
main(void)
{
	test_megatron();
	test_others();
	test_extra();
	test_bars();
	test_counter();
	test_tracker();
	test_numbers_only();
	test_number_bits();
	return done_testing();
}
