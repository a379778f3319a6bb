/*
 * stage.c -- stage rules, iteration scanners and the per-stream tracker.
 *
 * Stages move forward: launch -> init -> (checkpoint load) -> training,
 * with checkpoint save and evaluation as detours that return to training,
 * and shutdown as the end.  Once training has begun, launch and init rules
 * no longer apply (a "world size" inside a traceback is not a new launch).
 * A rule either begins a stage or ends it ("successfully saved
 * checkpoint"): an ending line still belongs to the stage, and the stream
 * returns to the stage it came from.
 *
 * Iteration lines are read by hand scanners bounded by the message length
 * (the message is not NUL-terminated), one per framework, tried in order.
 */
#include "config.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <limits.h>
#include <pcre2.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "diag/stage.h"
#include "base/util.h"

static const char *stage_names[STAGE_COUNT] = {
	"none", "launch", "init", "checkpoint-load", "training",
	"checkpoint-save", "evaluation", "shutdown"
};

static const char *fw_names[] = {
	"none", "megatron", "deepspeed", "hf", "lightning", "torchtitan",
	"nemo", "tqdm", "counter"
};

const char *
stage_name(enum stage s)
{
	if ((int)s < 0 || s >= STAGE_COUNT)
		return "none";
	return stage_names[s];
}

int
stage_from_name(const char *name)
{
	int i;

	for (i = 0; i < STAGE_COUNT; i++)
		if (strcmp(stage_names[i], name) == 0)
			return i;
	return -1;
}

const char *
stage_fw_name(enum stage_fw fw)
{
	if ((size_t)fw >= TS_NELEM(fw_names))
		return "none";
	return fw_names[fw];
}

/* ------------------------------------------------------------ scanning */

/* Bounded scanner over msg[0..len). */
struct scan {
	const char *s;
	size_t len;
	size_t pos;
};

static const char *
find(const char *s, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	if (n > len)
		return NULL;
	return memmem(s, len, needle, n);
}

/* Skip blanks and ANSI colour sequences (ESC [ ... letter). */
static void
skip_blank(struct scan *sc)
{
	while (sc->pos < sc->len) {
		char c = sc->s[sc->pos];

		if (c == ' ' || c == '\t') {
			sc->pos++;
		} else if (c == '\033' && sc->pos + 1 < sc->len &&
		    sc->s[sc->pos + 1] == '[') {
			sc->pos += 2;
			while (sc->pos < sc->len &&
			    !((sc->s[sc->pos] >= 'A' && sc->s[sc->pos] <= 'Z') ||
			    (sc->s[sc->pos] >= 'a' && sc->s[sc->pos] <= 'z')))
				sc->pos++;
			if (sc->pos < sc->len)
				sc->pos++;
		} else
			break;
	}
}

static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A non-negative integer; 0 and advance, or -1 and stay. */
static int
scan_long(struct scan *sc, long *out)
{
	long v = 0;
	size_t p = sc->pos;

	if (p >= sc->len || !is_digit(sc->s[p]))
		return -1;
	while (p < sc->len && is_digit(sc->s[p])) {
		if (v < 100000000000L)
			v = v * 10 + (sc->s[p] - '0');
		p++;
	}
	sc->pos = p;
	*out = v;
	return 0;
}

/*
 * s[0..n): an optional sign, digits and at most one '.', no exponent.
 * Where the digits make an integer m below 2^53 and the fraction has k
 * <= 22 of them, m and 10^k are exact doubles and m / 10^k is rounded
 * once, as strtod() rounds the decimal: 0 and the value, at a tenth of
 * strtod()'s cost.  Else -1, for strtod().
 */
static int
plain_decimal(const char *s, size_t n, double *out)
{
	static const double p10[] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21,
		1e22,
	};
	uint64_t m = 0;
	size_t i = 0, frac = 0, digits = 0;
	int dot = 0, neg = 0;
	double v;

	if (n > 0 && (s[0] == '-' || s[0] == '+'))
		neg = s[i++] == '-';
	for (; i < n; i++) {
		if (s[i] == '.' && !dot) {
			dot = 1;
			continue;
		}
		if (!is_digit(s[i]) || m >= (UINT64_C(1) << 53) / 10)
			return -1;
		m = m * 10 + (uint64_t)(s[i] - '0');
		frac += (size_t)dot;
		digits++;
	}
	if (digits == 0 || frac >= TS_NELEM(p10))
		return -1;
	v = (double)m / p10[frac];
	*out = neg ? -v : v;
	return 0;
}

/* A decimal number with optional sign, fraction and exponent; or nan/inf. */
static int
scan_double(struct scan *sc, double *out)
{
	char tmp[64];
	size_t p = sc->pos, n;
	char *end;

	if (p < sc->len && (sc->s[p] == '-' || sc->s[p] == '+'))
		p++;
	if (p + 3 <= sc->len && (strncasecmp(sc->s + p, "nan", 3) == 0 ||
	    strncasecmp(sc->s + p, "inf", 3) == 0))
		p += 3;
	else {
		while (p < sc->len && (is_digit(sc->s[p]) || sc->s[p] == '.'))
			p++;
		if (p < sc->len && (sc->s[p] == 'e' || sc->s[p] == 'E') &&
		    p + 1 < sc->len && (is_digit(sc->s[p + 1]) ||
		    sc->s[p + 1] == '-' || sc->s[p + 1] == '+')) {
			p += 2;
			while (p < sc->len && is_digit(sc->s[p]))
				p++;
		}
	}
	n = p - sc->pos;
	if (n == 0 || n >= sizeof tmp)
		return -1;
	if (plain_decimal(sc->s + sc->pos, n, out) == 0) {
		sc->pos = p;
		return 0;
	}
	memcpy(tmp, sc->s + sc->pos, n);
	tmp[n] = '\0';
	*out = strtod(tmp, &end);
	if (end == tmp)
		return -1;
	sc->pos = p;
	return 0;
}

/* The number after `key` (blanks skipped), anywhere in the message. */
static int
field_double(const char *msg, size_t len, const char *key, double *out)
{
	const char *k = find(msg, len, key);
	struct scan sc;

	if (k == NULL)
		return -1;
	sc.s = msg;
	sc.len = len;
	sc.pos = (size_t)(k - msg) + strlen(key);
	skip_blank(&sc);
	return scan_double(&sc, out);
}

static void
iter_clear(struct stage_iter *it, enum stage_fw fw)
{
	memset(it, 0, sizeof *it);
	it->iteration = -1;
	it->fw = fw;
}

static void
iter_loss(struct stage_iter *it, const char *msg, size_t len, const char *key)
{
	if (field_double(msg, len, key, &it->loss) == 0)
		it->has_loss = 1;
}

/*
 * The number after the first of `keys` the message has, blanks, quotes
 * and an opening bracket skipped (DeepSpeed's "lr=[0.0001]").
 */
static int
field_any(const char *msg, size_t len, const char *const *keys, size_t n,
    double *out)
{
	struct scan sc = { msg, len, 0 };
	const char *k;
	size_t i;

	for (i = 0; i < n; i++) {
		if ((k = find(msg, len, keys[i])) == NULL)
			continue;
		sc.pos = (size_t)(k - msg) + strlen(keys[i]);
		while (sc.pos < len && (msg[sc.pos] == ' ' ||
		    msg[sc.pos] == '[' || msg[sc.pos] == '\''))
			sc.pos++;
		if (scan_double(&sc, out) == 0)
			return 0;
	}
	return -1;
}

static const char *const gnorm_keys[] = {
	"grad norm:", "'grad_norm':", "grad_norm=", "grad_norm:", "| gnorm ",
	"gnorm=",
};

/* The keys of each hyperparameter, in the frameworks' spellings. */
static const struct {
	const char *name;
	const char *keys[5];
} hparams[HP_COUNT] = {
	[HP_LR] = { "learning rate", { "learning rate:", "'learning_rate':",
	    "lr=", "| lr ", "lr:" } },
	[HP_LOSS_SCALE] = { "loss scale", { "loss scale:", "'loss_scale':",
	    "loss_scale=", "loss_scale:", NULL } },
	[HP_BATCH] = { "batch size", { "global batch size:", "batch size:",
	    "'batch_size':", "batch_size=", NULL } },
	[HP_WEIGHT_DECAY] = { "weight decay", { "weight decay:",
	    "'weight_decay':", "weight_decay=", "wd=", NULL } },
};

const char *
stage_hparam_name(enum stage_hparam k)
{
	return (size_t)k < HP_COUNT ? hparams[k].name : "none";
}

/* The grad norm and hyperparameters any iteration line may log. */
static void
iter_extra(struct stage_iter *it, const char *msg, size_t len)
{
	size_t k, n;

	if (field_any(msg, len, gnorm_keys, TS_NELEM(gnorm_keys),
	    &it->gnorm) == 0)
		it->has_gnorm = 1;
	for (k = 0; k < HP_COUNT; k++) {
		for (n = 0; n < TS_NELEM(hparams[k].keys) &&
		    hparams[k].keys[n] != NULL; n++)
			;
		if (field_any(msg, len, hparams[k].keys, n, &it->hp[k]) == 0)
			it->has_hp |= 1u << k;
	}
}

/* Megatron: " iteration      12/      30 | ... (ms): 151.2 | ... lm loss: ..." */
static int
parse_megatron(const char *msg, size_t len, struct stage_iter *it, int fields)
{
	const char *k = find(msg, len, "iteration ");
	struct scan sc = { msg, len, 0 };
	long n, total;

	if (k == NULL)
		return 0;
	sc.pos = (size_t)(k - msg) + 10;
	skip_blank(&sc);
	if (scan_long(&sc, &n) != 0)
		return 0;
	skip_blank(&sc);
	if (sc.pos >= len || msg[sc.pos] != '/')
		return 0;
	sc.pos++;
	skip_blank(&sc);
	if (scan_long(&sc, &total) != 0)
		return 0;
	iter_clear(it, FW_MEGATRON);
	it->iteration = n;
	if (!fields)
		return 1;
	if (field_double(msg, len, "per iteration (ms):", &it->duration_ms) == 0)
		it->has_duration = 1;
	iter_loss(it, msg, len, "lm loss:");
	if (!it->has_loss)
		iter_loss(it, msg, len, "loss:");
	return 1;
}

/* DeepSpeed: "step=120, skipped=0, lr=..." and "steps: 100 loss: ..." */
static int
parse_deepspeed(const char *msg, size_t len, struct stage_iter *it, int fields)
{
	const char *k;
	struct scan sc = { msg, len, 0 };
	long n;
	double sec;

	if ((k = find(msg, len, "step=")) != NULL &&
	    find(msg, len, "skipped=") != NULL) {
		sc.pos = (size_t)(k - msg) + 5;
	} else if ((k = find(msg, len, "steps: ")) != NULL &&
	    find(msg, len, "loss:") != NULL) {
		sc.pos = (size_t)(k - msg) + 7;
		skip_blank(&sc);
	} else
		return 0;
	if (scan_long(&sc, &n) != 0)
		return 0;
	iter_clear(it, FW_DEEPSPEED);
	it->iteration = n;
	if (!fields)
		return 1;
	iter_loss(it, msg, len, "loss:");
	if (field_double(msg, len, "iter time (s):", &sec) == 0) {
		it->duration_ms = sec * 1000.0;
		it->has_duration = 1;
	}
	return 1;
}

/* HF Trainer's per-log-step dict: "{'loss': 2.1, 'learning_rate': ...}" */
static int
parse_hf_dict(const char *msg, size_t len, struct stage_iter *it, int fields)
{
	struct scan sc = { msg, len, 0 };

	skip_blank(&sc);
	if (len - sc.pos < 9 || strncmp(msg + sc.pos, "{'loss': ", 9) != 0)
		return 0;
	iter_clear(it, FW_HF);
	if (fields)
		iter_loss(it, msg, len, "'loss':");
	return 1;
}

/* tqdm rate: "3.9it/s" or "2.5s/it", as milliseconds per iteration. */
static int
tqdm_rate(const char *msg, size_t len, size_t from, double *ms)
{
	size_t p;
	struct scan sc = { msg, len, 0 };
	double v;

	for (p = from; p + 4 <= len; p++) {
		int per_s = strncmp(msg + p, "it/s", 4) == 0;
		int s_per = strncmp(msg + p, "s/it", 4) == 0;
		size_t q = p;

		if (!per_s && !s_per)
			continue;
		while (q > from && (is_digit(msg[q - 1]) || msg[q - 1] == '.'))
			q--;
		sc.pos = q;
		if (q == p || scan_double(&sc, &v) != 0 || v <= 0)
			return -1;
		*ms = per_s ? 1000.0 / v : v * 1000.0;
		return 0;
	}
	return -1;
}

/*
 * A tqdm counter "N/TOTAL [" (after "|") or "Nit [" (no total).  Returns
 * the position after the counter, 0 when there is none.
 */
static size_t
tqdm_counter(const char *msg, size_t len, long *n, long *total)
{
	struct scan sc = { msg, len, 0 };
	const char *bar = msg, *k;

	*total = -1;
	/* the bar itself may hold "| ": try every one */
	while ((bar = find(bar, len - (size_t)(bar - msg), "| ")) != NULL) {
		sc.pos = (size_t)(bar - msg) + 2;
		bar += 2;
		skip_blank(&sc);
		if (scan_long(&sc, n) == 0 && sc.pos < len &&
		    msg[sc.pos] == '/') {
			sc.pos++;
			if (scan_long(&sc, total) == 0 && sc.pos + 1 < len &&
			    msg[sc.pos] == ' ' && msg[sc.pos + 1] == '[')
				return sc.pos;
		}
		*total = -1;
	}
	if ((k = find(msg, len, "it [")) == NULL)
		return 0;
	sc.pos = (size_t)(k - msg);
	while (sc.pos > 0 && is_digit(msg[sc.pos - 1]))
		sc.pos--;
	if (scan_long(&sc, n) != 0)
		return 0;
	return sc.pos;
}

/*
 * Progress bars: Lightning "Epoch 0:  42%|...| 21/50 [... loss=2.3]",
 * NeMo "Epoch 0: : 12it [..., reduced_train_loss=3.2, global_step=11.0]",
 * and HF Trainer's plain "12/500 [00:10<...".
 */
static int
parse_progress(const char *msg, size_t len, struct stage_iter *it, int fields)
{
	struct scan sc = { msg, len, 0 };
	long n, total, epoch = -1;
	size_t after;
	double gs;

	skip_blank(&sc);
	if (len - sc.pos > 6 && strncmp(msg + sc.pos, "Epoch ", 6) == 0) {
		sc.pos += 6;
		if (scan_long(&sc, &epoch) != 0)
			return 0;
	}
	if ((after = tqdm_counter(msg, len, &n, &total)) == 0)
		return 0;
	if (epoch < 0 && total < 0)
		return 0;
	iter_clear(it, epoch < 0 ? FW_TQDM : FW_LIGHTNING);
	/* epochs of `total` steps, in range (a garbled counter is no step) */
	if (epoch > 0 && total > 0 && epoch < LONG_MAX / 2 / total &&
	    n < LONG_MAX / 2)
		it->iteration = epoch * total + n;
	else
		it->iteration = n;
	if (field_double(msg, len, "global_step=", &gs) == 0 && gs >= 0 &&
	    gs < (double)(LONG_MAX / 2)) {
		it->fw = FW_NEMO;
		it->iteration = (long)gs;
	}
	if (!fields)
		return 1;
	if (tqdm_rate(msg, len, after, &it->duration_ms) == 0)
		it->has_duration = 1;
	iter_loss(it, msg, len, "reduced_train_loss=");
	if (!it->has_loss)
		iter_loss(it, msg, len, "loss=");
	return 1;
}

/* torchtitan: "step:  10  loss:  9.2  memory: ...  tps: ..." */
static int
parse_torchtitan(const char *msg, size_t len, struct stage_iter *it, int fields)
{
	const char *k = find(msg, len, "step:");
	struct scan sc = { msg, len, 0 };
	long n;

	if (k == NULL || find(msg, len, "loss:") == NULL)
		return 0;
	sc.pos = (size_t)(k - msg) + 5;
	skip_blank(&sc);
	if (scan_long(&sc, &n) != 0)
		return 0;
	iter_clear(it, FW_TORCHTITAN);
	it->iteration = n;
	if (fields)
		iter_loss(it, msg, len, "loss:");
	return 1;
}

/* Bar glyphs: '━' and '─' (box drawing), '█' (a full block). */
static int
bar_glyph(const char *s, size_t left)
{
	return left >= 3 && (unsigned char)s[0] == 0xe2 &&
	    (((unsigned char)s[1] == 0x94 && ((unsigned char)s[2] == 0x81 ||
	    (unsigned char)s[2] == 0x80)) || ((unsigned char)s[1] == 0x96 &&
	    (unsigned char)s[2] == 0x88));
}

int
stage_progress_bar(const char *msg, size_t len)
{
	const char *pct = find(msg, len, "%|");
	size_t i, run = 0, best = 0;

	/* tqdm: "NN%|bar| n/N [elapsed<left, rate]" */
	if (pct != NULL && memchr(pct + 2, '|', len - (size_t)(pct + 2 -
	    msg)) != NULL)
		return 1;
	/* tqdm without a total: "12it [00:30, 2.50s/it]" */
	if (find(msg, len, "it [") != NULL && (find(msg, len, "it/s") !=
	    NULL || find(msg, len, "s/it") != NULL))
		return 1;
	/* rich: a run of bar glyphs beside a percentage */
	for (i = 0; i < len; ) {
		if (bar_glyph(msg + i, len - i)) {
			run++;
			i += 3;
			best = run > best ? run : best;
		} else {
			run = 0;
			i++;
		}
	}
	return best >= 5 && memchr(msg, '%', len) != NULL;
}

/* Is c part of a word (letters, digits, underscore)? */
static int
word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    is_digit(c) || c == '_';
}

/* Does the word `w` start at msg[i] (case-blind, whole word)? */
static int
word_at(const char *msg, size_t len, size_t i, const char *w)
{
	size_t n = strlen(w);

	return (i == 0 || !word_char(msg[i - 1])) && i + n <= len &&
	    strncasecmp(msg + i, w, n) == 0 &&
	    (i + n == len || !word_char(msg[i + n]));
}

/*
 * The number after a counter word: "iter 83592:", "iter: 57", "Batch
 * [100]", "[Iteration 45457]", "batch 50,", "num_updates 10198".
 */
static int
counter_number(const char *msg, size_t len, long *n)
{
	static const char *const words[] = {
		"iteration", "iter", "step", "batch", "num_updates",
	};
	struct scan sc = { msg, len, 0 };
	size_t i, k;

	for (i = 0; i < len; i++)
		for (k = 0; k < TS_NELEM(words); k++) {
			if (!word_at(msg, len, i, words[k]))
				continue;
			sc.pos = i + strlen(words[k]);
			skip_blank(&sc);
			if (sc.pos < len && (msg[sc.pos] == ':' ||
			    msg[sc.pos] == '=' || msg[sc.pos] == '#'))
				sc.pos++;
			skip_blank(&sc);
			if (sc.pos < len && msg[sc.pos] == '[')
				sc.pos++;
			skip_blank(&sc);
			if (scan_long(&sc, n) == 0 &&
			    (sc.pos == len || !word_char(msg[sc.pos])))
				return 0;
		}
	return -1;
}

/* The number after the key that ends at pos: "key 1.5", "key: 1.5", "key=1.5". */
static int
value_after(const char *msg, size_t len, size_t pos, double *v)
{
	struct scan sc = { msg, len, pos };

	skip_blank(&sc);
	if (sc.pos < len && (msg[sc.pos] == ':' || msg[sc.pos] == '='))
		sc.pos++;
	skip_blank(&sc);
	if (sc.pos + 3 <= len && strncmp(msg + sc.pos, "is ", 3) == 0)
		sc.pos += 3;
	return scan_double(&sc, v);
}

/*
 * A loss given only by its parts ("loss_ce 0.8  loss_total 2.1"): the
 * total among them (loss_total, loss_sum, loss_all), else the first; the
 * loss scaler's loss_scale is no loss.
 */
static int
parts_loss(const char *msg, size_t len, double *loss)
{
	static const char *const totals[] = { "total", "sum", "all" };
	size_t i, e, k;
	double v;
	int found = 0;

	for (i = 0; i + 5 < len; i++) {
		if ((i > 0 && word_char(msg[i - 1])) ||
		    strncasecmp(msg + i, "loss_", 5) != 0 ||
		    strncasecmp(msg + i + 5, "scale", 5) == 0)
			continue;
		for (e = i + 5; e < len && word_char(msg[e]); e++)
			;
		if (e == i + 5 || value_after(msg, len, e, &v) != 0)
			continue;
		for (k = 0; k < TS_NELEM(totals); k++)
			if (e - i - 5 == strlen(totals[k]) &&
			    strncasecmp(msg + i + 5, totals[k], e - i - 5) == 0) {
				*loss = v;
				return 0;
			}
		if (!found)
			*loss = v;
		found = 1;
	}
	return found ? 0 : -1;
}

/*
 * The training loss of a line: the number after a "loss" word or key
 * ("loss 1.5", "total_loss: 10.3", "Loss is 1.26"), else the loss its
 * parts give (parts_loss()); a validation, evaluation or test loss is
 * none.
 */
static int
counter_loss(const char *msg, size_t len, double *loss)
{
	static const char *const notrain[] = { "val", "valid", "eval", "test" };
	size_t i, k, w;

	for (i = 0; i + 4 <= len; i++) {
		if (strncasecmp(msg + i, "loss", 4) != 0 ||
		    (i + 4 < len && word_char(msg[i + 4])))
			continue;
		for (w = i; w > 0 && word_char(msg[w - 1]); w--)
			;
		for (k = 0; k < TS_NELEM(notrain); k++)
			if (strncasecmp(msg + w, notrain[k],
			    strlen(notrain[k])) == 0)
				break;
		if (k < TS_NELEM(notrain))
			continue;
		if (value_after(msg, len, i + 4, loss) == 0)
			return 0;
	}
	return parts_loss(msg, len, loss);
}

/*
 * Iteration lines of loops without a framework of their own: a counter
 * word with its number and, on the same line, a training loss or a
 * throughput ("iter 83592: loss 1.5455, time: 4401.19ms", "Epoch 1, batch
 * 50, ... loss 0.62", "Epoch[0] Batch [100]  Speed: 1326.73 samples/sec",
 * detectron2's "iter: 4959  total_loss: 10.31", fairseq's "| loss 6.343
 * | ... | num_updates 10198").
 */
static int
parse_counter(const char *msg, size_t len, struct stage_iter *it, int fields)
{
	static const char *const rates[] = {
		"samples/s", "samples per second", "tokens/s", "toks/s",
		"tokens per second", "tok/s",
	};
	long n;
	double loss;
	size_t k;
	int has = counter_loss(msg, len, &loss) == 0;

	for (k = 0; k < TS_NELEM(rates) && !has; k++)
		has = find(msg, len, rates[k]) != NULL;
	if (!has || counter_number(msg, len, &n) != 0)
		return 0;
	iter_clear(it, FW_COUNTER);
	it->iteration = n;
	if (fields && counter_loss(msg, len, &it->loss) == 0)
		it->has_loss = 1;
	return 1;
}

/*
 * Try each framework in turn; fields: read duration, loss, grad norm and
 * hyperparameters too.
 */
static int
parse_iter(const char *msg, size_t len, struct stage_iter *out, int fields)
{
	if (len < 6)
		return 0;
	if (!(parse_megatron(msg, len, out, fields) ||
	    parse_deepspeed(msg, len, out, fields) ||
	    parse_torchtitan(msg, len, out, fields) ||
	    parse_hf_dict(msg, len, out, fields) ||
	    parse_progress(msg, len, out, fields) ||
	    parse_counter(msg, len, out, fields)))
		return 0;
	if (fields)
		iter_extra(out, msg, len);
	return 1;
}

int
stage_parse_iter(const char *msg, size_t len, struct stage_iter *out)
{
	return parse_iter(msg, len, out, 1);
}

int
stage_parse_iter_number(const char *msg, size_t len, struct stage_iter *out)
{
	return parse_iter(msg, len, out, 0);
}

/* ------------------------------------------------------------- rules */

enum { RULE_BEGIN, RULE_END };

struct stage_rule {
	enum stage stage;
	int kind;
	const char *pattern;
};

/* Ordered: the first matching rule wins. */
static const struct stage_rule rule_table[] = {
	{ STAGE_CKPT_SAVE, RULE_END,
	  "successfully saved checkpoint|checkpoint saved|saved checkpoint to|"
	  "model weights saved" },
	{ STAGE_CKPT_SAVE, RULE_BEGIN,
	  "saving checkpoint|save_checkpoint|saving model checkpoint|"
	  "writing checkpoint|dcp\\.save|saving state dict" },
	{ STAGE_CKPT_LOAD, RULE_END,
	  "successfully loaded checkpoint|loaded checkpoint|"
	  "restored all states from the checkpoint|finished loading checkpoint" },
	{ STAGE_CKPT_LOAD, RULE_BEGIN,
	  "loading checkpoint|load_checkpoint|restoring states from the "
	  "checkpoint|resuming from checkpoint|resuming training from|"
	  "loading model state" },
	{ STAGE_EVAL, RULE_END,
	  "validation loss at|eval_loss|val_loss=|evaluation finished|"
	  "eval_runtime|validation (finished|done|completed?)\\b|"
	  "\\| valid on '[^']*' subset \\|" },
	{ STAGE_EVAL, RULE_BEGIN,
	  "running evaluation|evaluating iter|validation:|\\bevaluating\\b|"
	  "starting validation|validation dataloader|begin validation|"
	  "\\bvalidating\\b|run(ning)? validation|validation (step|loop|epoch)|"
	  "evaluation:|start(ing)? eval" },
	{ STAGE_SHUTDOWN, RULE_BEGIN,
	  "training finished|training completed?\\b|after training is done|"
	  "destroy_process_group|shutting down|job finished|"
	  "'train_runtime'|fit` stopped|exiting normally" },
	{ STAGE_TRAINING, RULE_BEGIN,
	  "^training \\.\\.\\.|before the start of training step|"
	  "\\*{5} running training|starting training|start(ed)? training|"
	  "training started|training loop|"
	  "unused parameters in the forward pass" },
	{ STAGE_INIT, RULE_BEGIN,
	  "initializing torch distributed|init_process_group|init_distributed|"
	  "initiali[sz]ing (distributed|model parallel|process group|"
	  "torchbackend)|"
	  "building .*model|> building|nccl info bootstrap|"
	  "store.based.barrier|compiling dataset index|"
	  "setting up (model|data)|loading dataset|dataloaders? (are )?built|"
	  "\\binitiali[sz]e_(megatron|distributed|model_parallel)\\b|"
	  "\\bvalidate_args\\b|\\bparse_args\\b|training_args\\.py" },
	{ STAGE_LAUNCH, RULE_BEGIN,
	  "torchrun|torch\\.distributed\\.run|torch\\.distributed\\.launch|"
	  "setting omp_num_threads|-+ arguments -+|using world size|"
	  "starting elastic_operator|launching" },
};

static pcre2_code *rule_code[TS_NELEM(rule_table)];
static pthread_once_t rule_once = PTHREAD_ONCE_INIT;
static __thread pcre2_match_data *rule_md;

static void
rules_compile(void)
{
	size_t i;
	int err;
	PCRE2_SIZE off;

	for (i = 0; i < TS_NELEM(rule_table); i++) {
		rule_code[i] = pcre2_compile(
		    (PCRE2_SPTR)rule_table[i].pattern, PCRE2_ZERO_TERMINATED,
		    PCRE2_CASELESS, &err, &off, NULL);
		if (rule_code[i] == NULL)
			ts_fatal("stage rule %zu does not compile at %zu", i,
			    (size_t)off);
		pcre2_jit_compile(rule_code[i], PCRE2_JIT_COMPLETE);
	}
}

/* Index of the first rule matching the message, or -1. */
static int
rule_find(const char *msg, size_t len)
{
	size_t i;

	pthread_once(&rule_once, rules_compile);
	if (rule_md == NULL)
		rule_md = pcre2_match_data_create(4, NULL);
	for (i = 0; i < TS_NELEM(rule_table); i++)
		if (pcre2_match(rule_code[i], (PCRE2_SPTR)msg, len, 0, 0,
		    rule_md, NULL) >= 0)
			return (int)i;
	return -1;
}

void
stage_thread_end(void)
{
	pcre2_match_data_free(rule_md);
	rule_md = NULL;
}

enum stage
stage_rule(const char *msg, size_t len)
{
	struct stage_iter it;
	int r;

	if (stage_parse_iter(msg, len, &it))
		return STAGE_TRAINING;
	r = rule_find(msg, len);
	return r < 0 ? STAGE_NONE : rule_table[r].stage;
}

/* ----------------------------------------------------------- tracker */

void
stage_tracker_init(struct stage_tracker *t)
{
	memset(t, 0, sizeof *t);
	t->cur = STAGE_NONE;	/* until a rule or an iteration line says */
	t->iteration = -1;
}

/* The stage a detour (save, load, eval) returns to. */
static enum stage
resume_stage(const struct stage_tracker *t)
{
	return t->iteration >= 0 || t->counted > 0 ? STAGE_TRAINING :
	    STAGE_INIT;
}

static void
feed_iter(struct stage_tracker *t, struct stage_tag *tag)
{
	if (tag->iter.iteration < 0 && t->numbered) {
		/* a loss report between numbered progress lines (HF) */
		t->cur = STAGE_TRAINING;
		tag->stage = STAGE_TRAINING;
		tag->is_iter = 0;
		tag->iteration = t->iteration;
		return;
	}
	t->counted++;
	if (tag->iter.iteration >= 0)
		t->numbered = 1;
	if (tag->iter.iteration < 0)
		tag->iter.iteration = t->iteration >= 0 ? t->iteration + 1 :
		    t->counted;
	t->iteration = tag->iter.iteration;
	t->fw = tag->iter.fw;
	t->cur = STAGE_TRAINING;
	tag->stage = STAGE_TRAINING;
	tag->iteration = t->iteration;
}

/* May a begin rule for `s` move the stream on from where it is? */
static int
may_enter(const struct stage_tracker *t, enum stage s)
{
	if (t->cur == STAGE_SHUTDOWN)
		return 0;
	if (s == STAGE_LAUNCH || s == STAGE_INIT)
		return resume_stage(t) != STAGE_TRAINING && s >= t->cur;
	return 1;
}

int
stage_rule_index(const char *msg, size_t len)
{
	return rule_find(msg, len);
}

void
stage_feed_known(struct stage_tracker *t, int rule, const struct stage_iter *it,
    struct stage_tag *tag)
{
	/* (tag->iter is filled only for an iteration line: 88 bytes a line
	   not cleared) */
	tag->is_iter = 0;
	if (t->ckpt_done) {
		t->cur = resume_stage(t);
		t->ckpt_done = 0;
	}
	if (it != NULL) {
		tag->is_iter = 1;
		tag->iter = *it;
		feed_iter(t, tag);
		return;
	}
	if (rule >= 0 && (size_t)rule < TS_NELEM(rule_table) &&
	    may_enter(t, rule_table[rule].stage)) {
		t->cur = rule_table[rule].stage;
		if (rule_table[rule].kind == RULE_END)
			t->ckpt_done = 1;
	}
	tag->stage = t->cur;
	/* a checkpoint or evaluation after iteration N belongs to N */
	if (t->iteration < 0)
		tag->iteration = -1;
	else if (t->cur == STAGE_CKPT_SAVE || t->cur == STAGE_EVAL)
		tag->iteration = t->iteration;
	else
		tag->iteration = t->iteration + 1;
}

void
stage_feed(struct stage_tracker *t, const char *msg, size_t len,
    struct stage_tag *tag)
{
	struct stage_iter it;

	if (stage_parse_iter(msg, len, &it))
		stage_feed_known(t, -1, &it, tag);
	else
		stage_feed_known(t, rule_find(msg, len), NULL, tag);
}
