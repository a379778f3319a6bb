/*
 * tmpl.h -- log template mining (Drain-class), with strong masking.
 *
 * Two stages, so indexing can run on several threads:
 *
 *   tmpl_mask()   pure and thread-safe: tokenises a message and replaces
 *                 variable parts (numbers, hex, IPs, paths, ranks, node
 *                 names, durations, sizes, tensor shapes, ...) by <*>-style
 *                 placeholders, giving a canonical masked string;
 *   tmpl_match()  not thread-safe: finds or creates the template for a
 *                 masked string in the miner (one miner per cache, owned by
 *                 one thread), possibly generalising an existing template.
 *
 * Template ids are small positive integers, stable for the life of the
 * miner and of the cache that stores it: a template keeps its id when its
 * text is generalised.  Mining is deterministic: the same messages in the
 * same order give the same ids and texts.
 */
#ifndef TS_TMPL_H
#define TS_TMPL_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

struct tmpl_miner;

/*
 * Write the masked form of msg[0..len) into `out` (reset first).  Invalid
 * UTF-8 and control bytes are kept as opaque token characters.
 */
void tmpl_mask(const char *msg, size_t len, struct buf *out);

/*
 * A memo of masked messages for one thread: tmpl_memo_mask() gives what
 * tmpl_mask() gives, byte for byte, and answers a message that differs
 * from one masked before only in its digits without masking it again.
 * It returns a 64-bit hash of the masked text (the same text, the same
 * hash, whichever memo), for a caller's table of masked texts, and sets
 * *same (may be NULL) when every message of this one's skeleton (every
 * digit made '0') masks to this text, so a caller may keep it too.
 * Holds about 640 KiB.  tmpl_memo_free() accepts NULL.
 */
struct tmpl_memo;
struct tmpl_memo *tmpl_memo_new(void);
void tmpl_memo_free(struct tmpl_memo *mo);
uint64_t tmpl_memo_mask(struct tmpl_memo *mo, const char *msg, size_t len,
    struct buf *out, int *same);

struct tmpl_miner *tmpl_new(void);
void tmpl_free(struct tmpl_miner *m);

/*
 * Return the id of the template matching a masked string (from
 * tmpl_mask()), creating or generalising one as needed.  *changed (may be
 * NULL) is set when the template is new or its text changed, so a caller
 * storing templates knows what to write.
 */
uint32_t tmpl_match(struct tmpl_miner *m, const char *masked, size_t len,
    int *changed);

/*
 * Restore a template kept from an earlier run, with its id, before any
 * tmpl_match() call.  Returns 0, or -1 with *cause set (duplicate id).
 */
int tmpl_restore(struct tmpl_miner *m, uint32_t id, const char *text,
    char **cause);

/*
 * Take in the text another miner (another process on the cache) stored
 * for template `id` since: a template this miner does not have is
 * restored; one whose text differs gets that text and moves to the leaf
 * it names, as if restored (the other miner's text is newer: it
 * generalised what this one had).  The miner's exact-string answers stay:
 * a generalised template still matches them.  Returns 0, or -1 with
 * *cause (as tmpl_restore()).
 */
int tmpl_update(struct tmpl_miner *m, uint32_t id, const char *text,
    char **cause);
/* The current text of template `id` (borrowed), or NULL. */
const char *tmpl_text(const struct tmpl_miner *m, uint32_t id);
/* The largest id in use (ids run 1..tmpl_max_id()). */
uint32_t tmpl_max_id(const struct tmpl_miner *m);

#endif
