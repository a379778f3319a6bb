/*
 * stage.h -- training stages and iteration lines.
 *
 * A training process goes through stages: launch, init, checkpoint load,
 * training, checkpoint save, evaluation, shutdown.  An ordered rule table
 * (first match wins) says which lines begin a stage; a small state machine
 * per stream (one rank's log) carries the current stage from line to line,
 * so a line that matches no rule inherits the stage of the lines before it.
 *
 * Iteration lines of the common frameworks (Megatron-LM, DeepSpeed, HF
 * Trainer, PyTorch Lightning, torchtitan, NeMo) are recognised by hand
 * scanners and give the iteration number, its duration in milliseconds,
 * the loss and grad norm, and the hyperparameters it logs (learning rate,
 * loss scale, batch size, weight decay) when the line carries them.
 */
#ifndef TS_STAGE_H
#define TS_STAGE_H

#include <stddef.h>

enum stage {
	STAGE_NONE = 0,
	STAGE_LAUNCH,
	STAGE_INIT,
	STAGE_CKPT_LOAD,
	STAGE_TRAINING,
	STAGE_CKPT_SAVE,
	STAGE_EVAL,
	STAGE_SHUTDOWN
};
#define STAGE_COUNT 8

enum stage_fw {
	FW_NONE = 0,
	FW_MEGATRON,
	FW_DEEPSPEED,
	FW_HF,
	FW_LIGHTNING,
	FW_TORCHTITAN,
	FW_NEMO,
	FW_TQDM,
	FW_COUNTER		/* a counter word beside a loss or a rate */
};

/*
 * Hyperparameters an iteration line may log: what the job was told to do,
 * as opposed to what it measured (loss, grad norm, time).
 */
enum stage_hparam {
	HP_LR,			/* the learning rate */
	HP_LOSS_SCALE,		/* fp16 loss scale */
	HP_BATCH,		/* (global) batch size */
	HP_WEIGHT_DECAY,
	HP_COUNT
};

/* What an iteration line says; has_* tell which fields were present. */
struct stage_iter {
	long iteration;		/* -1: the line counts an iteration without
				   numbering it (HF loss dicts) */
	double duration_ms;
	double loss;
	double gnorm;		/* the gradient norm */
	double hp[HP_COUNT];
	int has_duration;
	int has_loss;
	int has_gnorm;
	unsigned has_hp;	/* bit k: hp[k] was read */
	enum stage_fw fw;
};

/* "learning rate", "loss scale", ... (static strings). */
const char *stage_hparam_name(enum stage_hparam k);

/* "launch", "init", ..., "none" for STAGE_NONE (static strings). */
const char *stage_name(enum stage s);
/* The stage called `name`, or -1 when there is none. */
int stage_from_name(const char *name);
/* "megatron", "deepspeed", ... (static strings). */
const char *stage_fw_name(enum stage_fw fw);

/*
 * Read an iteration line.  Returns 1 and fills *out when msg[0..len) is one
 * (the message body, without the log header), 0 otherwise: its number,
 * and the duration, loss, grad norm and hyperparameters it logs.  Never
 * allocates; thread-safe.
 */
int stage_parse_iter(const char *msg, size_t len, struct stage_iter *out);
/*
 * The same test and the same iteration number and framework as
 * stage_parse_iter(), without reading the duration or the loss (has_*
 * stay 0): for callers that only follow the numbering, several times
 * cheaper.  Thread-safe.
 */
int stage_parse_iter_number(const char *msg, size_t len,
    struct stage_iter *out);

/*
 * Is msg[0..len) a progress bar (tqdm's "42%|####  | 21/50 [00:05<...]",
 * "12it [00:30, 2.50s/it]", rich's "━━━━━━━  42% 0:00:12")?  Progress,
 * not something that happened: such lines time the iterations but are
 * never events.  Thread-safe.
 */
int stage_progress_bar(const char *msg, size_t len);

/*
 * The stage a line begins by the rule table, or STAGE_NONE when no rule
 * matches.  Iteration lines begin STAGE_TRAINING.  Thread-safe (the rules
 * are compiled once, on first use).
 */
enum stage stage_rule(const char *msg, size_t len);
/*
 * Free what the rules keep for the calling thread (its match data): a
 * thread that fed a tracker calls it before it ends.
 */
void stage_thread_end(void);

/*
 * Per-stream state: the stage so far and the last iteration seen.  Stack
 * allocated; stage_tracker_init() before the first line.  A stream starts
 * in STAGE_NONE: a kernel log with no stage lines stays there.
 */
struct stage_tracker {
	enum stage cur;
	long iteration;		/* last completed iteration, -1 before any */
	long counted;		/* iterations seen, for unnumbered lines */
	int numbered;		/* numbered iteration lines were seen */
	enum stage_fw fw;	/* framework of the iteration lines seen */
	int ckpt_done;		/* a save/load finished; next line returns */
};

void stage_tracker_init(struct stage_tracker *t);

/* What stage_feed() says about one line. */
struct stage_tag {
	enum stage stage;	/* the line's stage */
	long iteration;		/* the iteration the line belongs to: the
				   one in progress (last completed + 1), the
				   last completed one during a checkpoint
				   save or evaluation after it, or, for an
				   iteration line, its own number */
	int is_iter;		/* the line is an iteration line */
	struct stage_iter iter;	/* filled when is_iter */
};

/*
 * The index of the first stage rule matching msg[0..len), or -1: callers
 * tagging many lines of few templates compute it once per template and
 * use stage_feed_known().
 */
int stage_rule_index(const char *msg, size_t len);
/*
 * Tag one line whose rule index is known (-1: none) and which is an
 * iteration line when `it` is not NULL; advance the state.
 */
void stage_feed_known(struct stage_tracker *t, int rule,
    const struct stage_iter *it, struct stage_tag *tag);

/* Tag one message of the stream and advance the state. */
void stage_feed(struct stage_tracker *t, const char *msg, size_t len,
    struct stage_tag *tag);

#endif
