/*
 * tmpl.c -- log template mining: masking, then a Drain-style parse tree.
 *
 * Masking does most of the work.  A message is cut into blank-separated
 * tokens; each token is split at punctuation (= : , / @ ( ) [ ] ...) into
 * segments, and a segment holding a digit is a variable: numbers, hex ids,
 * IPs, ports, ranks, node-017, gpu3, 12.5ms, 4.0GiB, UUIDs, dates and times
 * all become <*> that way -- but for names whose digit is inside
 * ("mlx5_core": a word follows the last underscore).  URLs and paths become <*> whole, so do
 * host.name:port and bracketed number lists ("[8, 1024]",
 * "torch.Size([8, 1024])" -> "torch.Size([<*>])").  A token left with no
 * letters (1.2.3.4:80, 12:00:00) is one <*>, and a run of <*> tokens is one
 * <*>, so variable-length lists do not split a template.
 *
 * A thread masking many messages keeps a memo (tmpl_memo_mask()): a
 * message that differs from one masked before only in its digits gets
 * that one's masked text, when masking it read no digit's value (see
 * the memo's comment).
 *
 * Matching follows Drain (He et al., ICWS 2017): templates live in leaves
 * keyed by token count and first token; a message joins the most similar
 * template of its leaf when the share of equal positions reaches
 * TMPL_SIM, turning the positions that differ into <*>; otherwise it starts
 * a new template.  Unlike Drain, two different plain words at one position
 * ("startup" and "shutdown", "GET" and "POST") never match: after masking,
 * variables rarely are plain words, and events often differ by one word.  Tokens are interned, so comparing is comparing integers,
 * and an exact-string cache answers repeated masked strings at once.
 *
 * Memory is bounded: the miner reads at most TMPL_MAXLEN bytes of a masked
 * message and TMPL_MAXTOK tokens (the rest is one last token); a leaf
 * holds at most TMPL_LEAF_MAX templates (a message that fits none of a
 * full leaf generalises the most similar one); the miner holds at most
 * TMPL_TOTAL_MAX templates (past that, a message of a new leaf gets the
 * catch-all template "<*>"); the exact cache keeps TMPL_CACHE_MAX strings
 * of up to TMPL_CACHE_LEN bytes and is emptied when full.  That is at
 * most about 50000 x 1.5 KiB for templates and 32 MiB for the cache,
 * whatever the input; typical logs need a few MiB.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "logs/lineparse.h"
#include "logs/tmpl.h"
#include "base/util.h"

#define TMPL_SIM	0.6
#define TMPL_LEAF_MAX	200
#define TMPL_TOTAL_MAX	50000
#define TMPL_MAXLEN	1024
#define TMPL_MAXTOK	128
#define TMPL_CACHE_MAX	(1 << 16)
#define TMPL_CACHE_LEN	480

#define TOK_UNKNOWN	0	/* a token never interned: matches only <*> */
#define TOK_WILD	1	/* "<*>" */

struct tmpl_ent {
	uint32_t *tok;
	uint32_t ntok;
	char *text;
};

struct leaf {
	uint32_t ntok, first;
	uint32_t *ids;
	size_t n, cap;
};

/* Open-addressing slots: for interned strings, leaves and the cache. */
struct slot {
	uint64_t h;
	uint32_t val;		/* index + 1; 0 = empty */
};

struct table {
	struct slot *s;
	size_t cap, n;		/* cap: power of two */
};

struct cached {
	char *str;
	size_t len;
	uint32_t id;
};

struct tmpl_miner {
	/* interned tokens: strings[i] for token id i (0, 1 reserved) */
	char **strings;
	uint32_t *slen;
	size_t nstrings, capstrings;
	struct table strtab;

	struct leaf *leaves;
	size_t nleaves, capleaves;
	struct table leaftab;

	struct tmpl_ent *t;	/* by id; t[0] unused */
	size_t capt;
	uint32_t maxid, ntemplates, catchall;

	struct cached *cache;
	size_t ncache, capcache;
	struct table cachetab;

	unsigned char *isword;	/* by token id: a plain word */
	uint32_t line[TMPL_MAXTOK];	/* scratch: the message's tokens */
	unsigned char lw[TMPL_MAXTOK];	/* ... and which are plain words */
	const char *ls[TMPL_MAXTOK];
	uint32_t ll[TMPL_MAXTOK];
};

static uint64_t
tmpl_hash(const char *s, size_t n, uint64_t seed)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ seed;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	h ^= h >> 29;
	return h == 0 ? 1 : h;
}

static void
table_init(struct table *t, size_t cap)
{
	t->s = xcalloc(cap, sizeof *t->s);
	t->cap = cap;
	t->n = 0;
}

/* Slot for hash h: the first whose hash is h and `eq` agrees, or empty. */
static struct slot *
table_find(struct table *t, uint64_t h,
    int (*eq)(const void *, uint32_t), const void *arg)
{
	size_t i = h & (t->cap - 1);

	for (;; i = (i + 1) & (t->cap - 1)) {
		struct slot *sl = &t->s[i];

		if (sl->val == 0 || (sl->h == h && eq(arg, sl->val - 1)))
			return sl;
	}
}

static void
table_put(struct table *t, struct slot *sl, uint64_t h, uint32_t val)
{
	size_t i, oldcap = t->cap;
	struct slot *old = t->s;

	sl->h = h;
	sl->val = val + 1;
	if (++t->n * 2 < t->cap)
		return;
	table_init(t, oldcap * 2);
	for (i = 0; i < oldcap; i++) {
		size_t k;

		if (old[i].val == 0)
			continue;
		k = old[i].h & (t->cap - 1);
		while (t->s[k].val != 0)
			k = (k + 1) & (t->cap - 1);
		t->s[k] = old[i];
		t->n++;
	}
	free(old);
}

/* ---------------------------------------------------------------- masking */

enum {
	C_SPACE = 1,	/* separates tokens */
	C_DELIM = 2,	/* separates segments inside a token */
	C_DIGIT = 4,
	C_ALPHA = 8,
	C_LOWER = 16,
	C_OPEN = 32,	/* may open a quoted or bracketed token */
	C_CLOSE = 64,	/* may close one, or end a sentence */
	C_PATH = 128,	/* '/', '\\', ':' -- paths, URLs, host:port */
	C_DOT = 256	/* '.': may be part of a run of dots (a separator) */
};

#define D_ C_DELIM
static const unsigned short cls[256] = {
	['0' ... '9'] = C_DIGIT,
	['a' ... 'z'] = C_ALPHA | C_LOWER,
	['A' ... 'Z'] = C_ALPHA,
	['='] = D_, [':'] = D_ | C_CLOSE | C_PATH, [','] = D_ | C_CLOSE,
	[';'] = D_ | C_CLOSE, ['@'] = D_, ['#'] = D_, ['('] = D_ | C_OPEN,
	[')'] = D_ | C_CLOSE, ['['] = D_ | C_OPEN, [']'] = D_ | C_CLOSE,
	['{'] = D_ | C_OPEN, ['}'] = D_ | C_CLOSE, ['<'] = D_ | C_OPEN,
	['>'] = D_ | C_CLOSE, ['|'] = D_, ['\''] = D_ | C_OPEN | C_CLOSE,
	['"'] = D_ | C_OPEN | C_CLOSE, ['/'] = D_ | C_PATH,
	['\\'] = D_ | C_PATH, ['`'] = D_, ['.'] = C_CLOSE | C_DOT, ['!'] = C_CLOSE,
	['?'] = C_CLOSE,
	[' '] = C_SPACE, ['\t'] = C_SPACE, ['\n'] = C_SPACE, ['\r'] = C_SPACE,
	['\v'] = C_SPACE, ['\f'] = C_SPACE, [0] = C_SPACE
};
#undef D_

#define CLS(c) (cls[(unsigned char)(c)])

/*
 * The writer: masked text goes to o (room was made for the worst case),
 * and the flags say what the current token produced so far.
 */
struct mw {
	char *o;
	int alnum;	/* a letter or digit outside <*> */
	int wild;	/* a <*> */
	int dated;	/* a date was looked for after a month or day name */
};

static void
mw_wild(struct mw *w)
{
	memcpy(w->o, "<*>", 3);
	w->o += 3;
	w->wild = 1;
}

static void
mw_copy(struct mw *w, const char *s, size_t n, int alnum)
{
	memcpy(w->o, s, n);
	w->o += n;
	w->alnum |= alnum;
}

/*
 * A bracketed list of numbers at s[i] ("[8, 1024]", "(0.5, 2)"): the
 * index after its closing bracket, or 0.
 */
static size_t
mask_numlist(const char *s, size_t i, size_t len)
{
	char close = s[i] == '[' ? ']' : ')';
	size_t j;
	int digit = 0, sep = 0, c;

	for (j = i + 1; j < len && j - i < 512; j++) {
		c = (unsigned char)s[j];
		if (c == close)
			return digit && sep ? j + 1 : 0;
		if (CLS(c) & C_DIGIT)
			digit = 1;
		else if (c == ',' || c == ' ')
			sep = 1;
		else if (c != '.' && c != '-' && c != '+' && c != 'e')
			return 0;
	}
	return 0;
}

/* A host name without digits: a.b.tld with a 2-3 letter last label. */
static int
mask_hostname(const char *s, size_t n)
{
	size_t i, dots = 0, last = 0;

	if (n < 6)
		return 0;
	for (i = 0; i < n; i++) {
		if (s[i] == '.') {
			if (i == 0 || s[i - 1] == '.')
				return 0;
			dots++;
			last = i + 1;
		} else if (!(CLS(s[i]) & C_LOWER) && s[i] != '-')
			return 0;
	}
	if (dots < 2 || n - last < 2 || n - last > 3)
		return 0;
	/* reverse-DNS names (com.apple.xpc) are identifiers, not hosts */
	return !(memcmp(s, "com.", 4) == 0 || memcmp(s, "org.", 4) == 0 ||
	    memcmp(s, "net.", 4) == 0);
}

/* host:port, host.name:port (2-5 digit port): masked whole. */
static int
mask_hostport(const char *s, size_t n)
{
	size_t i, colon = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == ':') {
			if (colon != 0 || i == 0)
				return 0;
			colon = i;
		} else if (colon == 0 && !(CLS(s[i]) & (C_LOWER | C_DIGIT)) &&
		    s[i] != '.' && s[i] != '-')
			return 0;
		else if (colon != 0 && !(CLS(s[i]) & C_DIGIT))
			return 0;
	}
	return colon != 0 && n - colon - 1 >= 2 && n - colon - 1 <= 5 &&
	    (CLS(s[0]) & C_LOWER);
}

/* Is the token s[0..n) a URL, a path or a host:port (masked whole)? */
static int
mask_whole(const char *s, size_t n)
{
	size_t i;

	if (n >= 2 && s[0] == '/' && s[1] != '/')
		return 1;
	if ((n > 2 && s[0] == '.' && s[1] == '/') || (n > 3 &&
	    memcmp(s, "../", 3) == 0) || (n > 2 && s[0] == '~' && s[1] == '/'))
		return 1;
	if (n > 3 && (CLS(s[0]) & C_ALPHA) && s[1] == ':' && s[2] == '\\')
		return 1;
	for (i = 0; i < n && s[i] != ':'; i++)
		;
	if (i == n)		/* a host:port and a URL have a colon */
		return 0;
	if (mask_hostport(s, n))
		return 1;
	for (i = 0; i + 2 < n && i < 16; i++)
		if (s[i] == ':' && s[i + 1] == '/' && s[i + 2] == '/')
			return i > 0;
	return 0;
}

/*
 * A URL or path token, possibly quoted or bracketed ("/a/b", [./x.cc:81],
 * "file.py",): emit the punctuation around it and <*>; 0 when not one.
 */
static int
mask_quoted_whole(const char *s, size_t a, size_t e, struct mw *w)
{
	size_t p = a, q = e;

	while (p < q && (CLS(s[p]) & C_OPEN))
		p++;
	while (q > p && (CLS(s[q - 1]) & C_CLOSE))
		q--;
	if (q <= p || !mask_whole(s + p, q - p))
		return 0;
	mw_copy(w, s + a, p - a, 0);
	mw_wild(w);
	mw_copy(w, s + q, e - q, 0);
	return 1;
}

/* Is s[0..n) a boolean or null value? */
static int
mask_bool(const char *s, size_t n)
{
	return (n == 4 && (memcmp(s, "true", 4) == 0 ||
	    memcmp(s, "null", 4) == 0 || memcmp(s, "True", 4) == 0 ||
	    memcmp(s, "None", 4) == 0)) || (n == 5 &&
	    (memcmp(s, "false", 5) == 0 || memcmp(s, "False", 5) == 0));
}

/* What a segment holds: the OR of its classes, and its dots. */
struct seg {
	unsigned bits;
	unsigned dots;
};

/*
 * A name with a digit in it, not a value: a letter first, and after its
 * last underscore a word of two or more letters and nothing else
 * ("mlx5_core", "mlx5_port_module_event", a driver's or function's
 * name).  Values end in their number ("eth2", "mlx5_0", "node_017").
 */
static int
mask_name(const char *s, size_t n)
{
	size_t i = n;

	if (n < 4 || !(CLS(s[0]) & C_ALPHA))
		return 0;
	while (i > 0 && (CLS(s[i - 1]) & C_ALPHA))
		i--;
	return i > 1 && n - i >= 2 && s[i - 1] == '_';
}

/*
 * Emit one segment s[0..n): <*> when it holds a digit (unless it is a
 * name, mask_name()), is a host name or a boolean, or is the value of a
 * key=value (`value`).
 */
static void
mask_segment(const char *s, size_t n, const struct seg *sg, int value,
    struct mw *w)
{
	if (((sg->bits & C_DIGIT) && !mask_name(s, n)) || value ||
	    (sg->dots >= 2 && mask_hostname(s, n)) ||
	    ((n == 4 || n == 5) && mask_bool(s, n)))
		mw_wild(w);
	else
		mw_copy(w, s, n, (sg->bits & C_ALPHA) != 0);
}

/*
 * Mask the token at s[a..): segments between delimiters (and runs of
 * three or more dots, as in "depth......4"), number lists.
 * Returns the end of the token (a number list may run past a blank).
 */
static size_t
mask_token(const char *s, size_t a, size_t len, struct mw *w)
{
	size_t i, seg = a, e;
	struct seg sg = { 0, 0 };
	unsigned c;

	for (i = a; i < len; i++) {
		c = CLS(s[i]);
		if (c & C_SPACE)
			break;
		if (!(c & C_DELIM) && !(s[i] == '.' && i + 2 < len &&
		    s[i + 1] == '.' && s[i + 2] == '.')) {
			sg.bits |= c;
			sg.dots += s[i] == '.';
			continue;
		}
		if (i > seg)
			mask_segment(s + seg, i - seg, &sg,
			    seg > a && s[seg - 1] == '=', w);
		sg.bits = sg.dots = 0;
		if ((s[i] == '[' || s[i] == '(') &&
		    (e = mask_numlist(s, i, len)) != 0) {
			*w->o++ = s[i];
			mw_wild(w);
			*w->o++ = s[e - 1];
			i = e - 1;
		} else if (s[i] == '.') {
			while (i < len && s[i] == '.')	/* leader dots */
				*w->o++ = s[i++];
			i--;
		} else
			*w->o++ = s[i];
		seg = i + 1;
	}
	if (i > seg)
		mask_segment(s + seg, i - seg, &sg,
		    seg > a && s[seg - 1] == '=', w);
	return i;
}

/* Does s[0..n) hold a run of three dots (mask_token() cuts there)? */
static int
mask_dots3(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i + 2 < n; i++)
		if (s[i] == '.' && s[i + 1] == '.' && s[i + 2] == '.')
			return 1;
	return 0;
}

/*
 * The tokens that are one segment, done without mask_token()'s pass
 * and with its result: letters and unclassed bytes only (a word: masked
 * when a boolean), or a digit and no delimiter nor run of three dots (a
 * value: masked unless a name).  0: not one of them.
 */
static inline int
mask_simple(const char *s, size_t n, unsigned bits, struct mw *w)
{
	if ((bits & ~(unsigned)(C_ALPHA | C_LOWER)) == 0) {
		if ((n == 4 || n == 5) && mask_bool(s, n))
			mw_wild(w);
		else
			mw_copy(w, s, n, (bits & C_ALPHA) != 0);
		return 1;
	}
	if ((bits & (C_DIGIT | C_DELIM)) != C_DIGIT ||
	    ((bits & C_DOT) && mask_dots3(s, n)))
		return 0;
	if (mask_name(s, n))
		mw_copy(w, s, n, (bits & C_ALPHA) != 0);
	else
		mw_wild(w);
	return 1;
}

/* The classes of s[0..n), OR-ed (four at a time; the last four overlap). */
static inline unsigned
mask_classes(const char *s, size_t n)
{
	unsigned bits = 0;
	size_t k;

	if (n < 4)
		return (n > 2 ? CLS(s[2]) : 0) | (n > 1 ? CLS(s[1]) : 0) |
		    (n > 0 ? CLS(s[0]) : 0);
	for (k = 0; k + 4 < n; k += 4)
		bits |= CLS(s[k]) | CLS(s[k + 1]) | CLS(s[k + 2]) |
		    CLS(s[k + 3]);
	return bits | CLS(s[n - 4]) | CLS(s[n - 3]) | CLS(s[n - 2]) |
	    CLS(s[n - 1]);
}

/*
 * A token of one such segment and a delimiter ("samples:", "12288,",
 * "|"), done as mask_token() does it: the segment, then the delimiter.
 * 0: not one.
 */
static int
mask_trailed(const char *s, size_t n, struct mw *w)
{
	char d = s[n - 1];

	/* "[" and "(" may open a number list that runs past the blank */
	if (!(CLS(d) & C_DELIM) || d == '[' || d == '(')
		return 0;
	if (n > 1 && !mask_simple(s, n - 1, mask_classes(s, n - 1), w))
		return 0;
	*w->o++ = d;
	return 1;
}

static const char *units[] = {
	"%", "B", "G", "GB", "GiB", "K", "KB", "KiB", "M", "MB", "MiB", "PB",
	"TB", "TiB", "b", "byte", "bytes", "d", "day", "days", "h", "hour",
	"hours", "hr", "hrs", "kB", "min", "mins", "minute", "minutes", "ms",
	"ns", "s", "sec", "second", "seconds", "secs", "us"
};

/* Is s[0..n) a unit word ("ms", "GiB", "bytes)"), absorbed by a number? */
static int
mask_unit(const char *s, size_t n)
{
	size_t lo = 0, hi = TS_NELEM(units), mid, k;
	int c;

	while (n > 0 && (CLS(s[n - 1]) & C_CLOSE))
		n--;
	if (n == 0 || n > 7)
		return 0;
	switch (s[0]) {		/* the units' first letters: most words stop here */
	case '%': case 'B': case 'G': case 'K': case 'M': case 'P': case 'T':
	case 'b': case 'd': case 'h': case 'k': case 'm': case 'n': case 's':
	case 'u':
		break;
	default:
		return 0;
	}
	while (lo < hi) {
		mid = (lo + hi) / 2;
		for (k = 0; k < n && s[k] == units[mid][k]; k++)
			;
		/* s[0..n) against the unit, in byte order, shorter first */
		c = k < n ? (unsigned char)s[k] - (unsigned char)units[mid][k] :
		    units[mid][n] != '\0' ? -1 : 0;
		if (c == 0)
			return 1;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return 0;
}

/*
 * Could a date with a month name start at the token msg[i..e) whose
 * classes are `bits` (lp_time_len())?  Only where a word is followed by a
 * blank and a digit (the month, then the day), three letters by a blank
 * (a day, then the month) or a day's three letters by a comma: a quick
 * test that spares most words the probe.
 */
static int
mask_may_date(const char *msg, size_t i, size_t e, size_t len,
    unsigned bits)
{
	size_t j;

	if (e - i > 3 && msg[i + 3] == ',')
		return 1;
	if (e >= len || msg[e] != ' ')
		return 0;
	if (e - i == 3)
		return 1;
	if (bits & ~(unsigned)(C_ALPHA | C_LOWER))
		return 0;
	for (j = e; j < len && msg[j] == ' '; j++)
		;
	return j < len && (CLS(msg[j]) & C_DIGIT);
}

/*
 * Mask the token msg[i..e) whose classes are `bits`: a date with a month
 * name, a token of one segment (and a delimiter), a URL or path, a plain
 * word, or segment by segment.  Returns where the masked text ends (past
 * e for a date or a number list that runs over blanks).
 */
static size_t
mask_any(const char *msg, size_t i, size_t e, size_t len, unsigned bits,
    struct mw *w)
{
	size_t t;

	if ((CLS(msg[i]) & C_ALPHA) && e - i >= 3 && e - i <= 9 &&
	    (CLS(msg[i + 1]) & C_LOWER) && mask_may_date(msg, i, e, len, bits) &&
	    (w->dated |= lp_time_name(msg + i, len - i)) &&
	    (t = lp_time_len(msg + i, len - i)) != 0) {
		mw_wild(w);
		return i + t;
	}
	if (mask_simple(msg + i, e - i, bits, w) ||
	    mask_trailed(msg + i, e - i, w))
		return e;
	if ((bits & C_PATH) && mask_quoted_whole(msg, i, e, w))
		return e;
	if (!(bits & (C_DIGIT | C_DELIM)) && e - i > 5) {
		/* a word: only host names and booleans are masked */
		struct seg sg = { bits, 0 };
		size_t k;

		for (k = i; k < e; k++)
			sg.dots += msg[k] == '.';
		mask_segment(msg + i, e - i, &sg, 0, w);
		return e;
	}
	return mask_token(msg, i, len, w);
}

/* Is the token just written (from `start`) an empty value: "()", "''"? */
static int
mask_empty(const char *start, const char *end)
{
	return end - start == 2 && ((start[0] == '(' && start[1] == ')') ||
	    (start[0] == '[' && start[1] == ']') ||
	    (start[0] == '\'' && start[1] == '\'') ||
	    (start[0] == '"' && start[1] == '"'));
}

/*
 * The blanks of a message as a bitmap, 64 bytes at a time, for finding
 * where tokens start and end by bit scans: a loop testing each byte
 * costs a branch a byte and a mispredicted one a token.
 */
struct blanks {
	const char *s;
	size_t len;
	size_t word;		/* the word `bits` holds, SIZE_MAX: none */
	uint64_t bits;		/* bit k: byte 64 word + k is blank, or
				   past the end */
};

/* The blanks of the 64 bytes at s, bit k for s[k]. */
static uint64_t
blank_64(const char *s)
{
	uint64_t m = 0;
	size_t k;

#ifdef __SSE2__
	for (k = 0; k < 64; k += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(s + k));
		__m128i t = _mm_sub_epi8(x, _mm_set1_epi8(9));

		/* ' ', NUL, and \t \n \v \f \r (9..13) */
		t = _mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8(4)), t);
		t = _mm_or_si128(t, _mm_cmpeq_epi8(x, _mm_set1_epi8(' ')));
		t = _mm_or_si128(t, _mm_cmpeq_epi8(x, _mm_setzero_si128()));
		m |= (uint64_t)(unsigned)_mm_movemask_epi8(t) << k;
	}
#else
	for (k = 0; k < 64; k++)
		m |= (uint64_t)((CLS(s[k]) & C_SPACE) != 0) << k;
#endif
	return m;
}

/*
 * Word j of the blanks.  The last, short word is read as the message's
 * last 64 bytes, or from a copy padded with NULs (blanks) when the whole
 * message is shorter.
 */
static uint64_t
blank_word(struct blanks *b, size_t j)
{
	size_t n = b->len - 64 * j;
	char pad[64];
	uint64_t m;

	if (n >= 64)
		m = blank_64(b->s + 64 * j);
	else if (b->len >= 64)
		m = blank_64(b->s + b->len - 64) >> (64 - n) |
		    ~(uint64_t)0 << n;
	else {
		memcpy(pad, b->s, n);
		memset(pad + n, 0, sizeof pad - n);
		m = blank_64(pad);
	}
	b->word = j;
	b->bits = m;
	return m;
}

/* The first byte from i on that is blank (want 1) or not (0), or len. */
static inline size_t
blank_next(struct blanks *b, size_t i, int want)
{
	uint64_t m;

	while (i < b->len) {
		m = b->word == i / 64 ? b->bits : blank_word(b, i / 64);
		if ((m = (want ? m : ~m) >> (i % 64)) != 0) {
			i += (size_t)__builtin_ctzll(m);
			return i < b->len ? i : b->len;
		}
		i = (i / 64 + 1) * 64;
	}
	return b->len;
}

/*
 * tmpl_mask(); *dated says whether a date was looked for (the one rule
 * that reads the values of digits, see tmpl_memo_mask()).
 */
static void
mask_run(const char *msg, size_t len, struct buf *out, int *dated)
{
	struct blanks bl = { msg, len, SIZE_MAX, 0 };
	struct mw w;
	size_t i = 0, e;
	char *start, *base;
	unsigned bits;
	int prev_wild = 0;

	buf_reset(out);
	buf_grow(out, 3 * len + 8);	/* "1" -> "<*>" is the worst case */
	base = w.o = out->s;
	w.dated = 0;
	for (;;) {
		if ((i = blank_next(&bl, i, 0)) >= len)
			break;
		start = w.o;
		e = blank_next(&bl, i, 1);
		bits = mask_classes(msg + i, e - i);
		if (prev_wild && e - i <= 8 && !(bits & C_DIGIT) &&
		    mask_unit(msg + i, e - i)) {
			i = e;		/* "12 ms", "(1.8 KB)" */
			continue;
		}
		if (start != base)
			*w.o++ = ' ';
		w.alnum = w.wild = 0;
		i = mask_any(msg, i, e, len, bits, &w);
		if ((w.wild && !w.alnum) || mask_empty(start + (start != base),
		    w.o)) {
			w.o = start;	/* a run of <*> is one <*> */
			if (!prev_wild) {
				if (start != base)
					*w.o++ = ' ';
				mw_wild(&w);
			}
			prev_wild = 1;
		} else
			prev_wild = 0;
	}
	out->len = (size_t)(w.o - base);
	out->s[out->len] = '\0';
	*dated = w.dated;
}

void
tmpl_mask(const char *msg, size_t len, struct buf *out)
{
	int dated;

	mask_run(msg, len, out, &dated);
}

/* ------------------------------------------------------------ memo */

/*
 * Masking looks at the classes of bytes, never at which digit a digit
 * is, with two exceptions: a date after a month or day name (its day
 * and time must be in range) and a name whose digit is kept
 * ("mlx5_core").  So two messages that differ only in their digits mask
 * the same when neither exception is met -- which masking itself
 * tells: no date was looked for, and no digit is in the masked text.
 * The memo keeps such messages with every digit made '0' (the
 * skeleton) and their masked text, and answers a message whose
 * skeleton it holds without masking it.  A training job's logs say
 * the same things with other numbers millions of times.
 */
#define MEMO_SLOTS	4096		/* a power of two */
#define MEMO_BYTES	(512 * 1024)	/* skeletons and masked texts */
#define MEMO_MAXLEN	1024		/* longer messages are not kept */
/* Messages that are all different: see lineparse.c's LP_MEMO_GAIN. */
#define MEMO_WINDOW	4096
#define MEMO_GAIN	5
#define MEMO_REST	32768

struct memo_slot {
	uint64_t hash;			/* 0: empty */
	uint64_t ohash;			/* memo_hash() of the masked text */
	uint32_t key, out;		/* offsets in the arena */
	uint32_t klen, olen;
};

struct tmpl_memo {
	struct memo_slot *slot;
	size_t nused;
	unsigned looked, found;		/* lookups in this window, hits */
	unsigned rest;			/* messages left to mask without it */
	char *arena;
	size_t alen;
	char key[MEMO_MAXLEN];		/* the message's skeleton */
};

struct tmpl_memo *
tmpl_memo_new(void)
{
	struct tmpl_memo *mo = xcalloc(1, sizeof *mo);

	mo->slot = xcalloc(MEMO_SLOTS, sizeof *mo->slot);
	mo->arena = xmalloc(MEMO_BYTES);
	return mo;
}

void
tmpl_memo_free(struct tmpl_memo *mo)
{
	if (mo == NULL)
		return;
	free(mo->slot);
	free(mo->arena);
	free(mo);
}

#define MEMO_K1	0xbf58476d1ce4e5b9ULL
#define MEMO_K2	0x94d049bb133111ebULL
#define MEMO_MIX(h, w)	((h) = ((h) ^ ((w) * MEMO_K1)) * MEMO_K2, (h) ^= (h) >> 31)

/*
 * A 64-bit hash of s[0..n), never 0: four lanes of eight bytes, so that
 * the multiplications of one lane wait for those of the lane before
 * less (a single chain costs some 10 cycles every eight bytes).
 */
static uint64_t
memo_hash(const char *s, size_t n)
{
	uint64_t a = 0x9e3779b97f4a7c15ULL ^ n, b = a + MEMO_K1, c = a + MEMO_K2,
	    d = a ^ MEMO_K1, w;
	size_t k = 0;

	for (; k + 32 <= n; k += 32) {
		memcpy(&w, s + k, 8);
		MEMO_MIX(a, w);
		memcpy(&w, s + k + 8, 8);
		MEMO_MIX(b, w);
		memcpy(&w, s + k + 16, 8);
		MEMO_MIX(c, w);
		memcpy(&w, s + k + 24, 8);
		MEMO_MIX(d, w);
	}
	for (; k + 8 <= n; k += 8) {
		memcpy(&w, s + k, 8);
		MEMO_MIX(b, w);
	}
	w = 0;
	memcpy(&w, s + k, n - k);
	MEMO_MIX(c, w);
	a ^= (b << 17 | b >> 47) ^ (c << 31 | c >> 33) ^ (d << 47 | d >> 17);
	MEMO_MIX(a, n);
	return a != 0 ? a : 1;
}

/* Write the skeleton of s[0..n) to key; return its hash. */
static uint64_t
memo_skeleton(const char *s, size_t n, char *key)
{
	size_t k = 0;

#ifdef __SSE2__
	/* sixteen bytes at a time; the last sixteen overlap the ones before */
	for (; n >= 16; k += 16) {
		__m128i x, t, d;

		if (k + 16 > n)
			k = n - 16;
		x = _mm_loadu_si128((const __m128i *)(s + k));
		t = _mm_sub_epi8(x, _mm_set1_epi8('0'));
		d = _mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8(9)), t);
		x = _mm_or_si128(_mm_andnot_si128(d, x),
		    _mm_and_si128(d, _mm_set1_epi8('0')));
		_mm_storeu_si128((__m128i *)(key + k), x);
		if (k + 16 == n)
			break;
	}
	if (n >= 16)
		k = n;
#endif
	for (; k < n; k++)
		key[k] = CLS(s[k]) & C_DIGIT ? '0' : s[k];
	return memo_hash(key, n);
}

/*
 * Keep the skeleton in mo->key[0..n) and its masked text (hashed ohash)
 * at slot sl.
 */
static void
memo_keep(struct tmpl_memo *mo, struct memo_slot *sl, uint64_t h, size_t n,
    const struct buf *out, uint64_t ohash)
{
	if (mo->alen + n + out->len > MEMO_BYTES ||
	    (mo->nused + 1) * 4 > MEMO_SLOTS * 3) {
		memset(mo->slot, 0, MEMO_SLOTS * sizeof *mo->slot);
		mo->nused = 0;
		mo->alen = 0;
		sl = &mo->slot[h & (MEMO_SLOTS - 1)];	/* all free now */
	}
	sl->hash = h;
	sl->ohash = ohash;
	sl->key = (uint32_t)mo->alen;
	sl->klen = (uint32_t)n;
	memcpy(mo->arena + mo->alen, mo->key, n);
	mo->alen += n;
	sl->out = (uint32_t)mo->alen;
	sl->olen = (uint32_t)out->len;
	memcpy(mo->arena + mo->alen, out->s, out->len);
	mo->alen += out->len;
	mo->nused++;
}

/* Is there no digit in the masked text (no name kept with its digit)? */
static int
memo_digitless(const struct buf *out)
{
	size_t k;

	for (k = 0; k < out->len; k++)
		if (CLS(out->s[k]) & C_DIGIT)
			return 0;
	return 1;
}

uint64_t
tmpl_memo_mask(struct tmpl_memo *mo, const char *msg, size_t len,
    struct buf *out, int *same)
{
	struct memo_slot *sl;
	uint64_t h, oh;
	size_t j;
	int dated, dummy;

	if (same == NULL)
		same = &dummy;
	*same = 0;
	if (len == 0 || len > MEMO_MAXLEN) {
		tmpl_mask(msg, len, out);
		return memo_hash(out->s, out->len);
	}
	if (mo->rest > 0) {
		mo->rest--;
		mask_run(msg, len, out, &dated);
		*same = !dated && memo_digitless(out);
		return memo_hash(out->s, out->len);
	}
	if (++mo->looked == MEMO_WINDOW) {
		if (mo->found * MEMO_GAIN < mo->looked)
			mo->rest = MEMO_REST;
		mo->looked = mo->found = 0;
	}
	h = memo_skeleton(msg, len, mo->key);
	for (j = h & (MEMO_SLOTS - 1);; j = (j + 1) & (MEMO_SLOTS - 1)) {
		sl = &mo->slot[j];
		if (sl->hash == 0)
			break;
		if (sl->hash == h && sl->klen == len &&
		    memcmp(mo->arena + sl->key, mo->key, len) == 0) {
			mo->found++;
			buf_reset(out);
			buf_add(out, mo->arena + sl->out, sl->olen);
			*same = 1;
			return sl->ohash;
		}
	}
	mask_run(msg, len, out, &dated);
	oh = memo_hash(out->s, out->len);
	if (!dated && memo_digitless(out)) {
		*same = 1;
		memo_keep(mo, sl, h, len, out, oh);
	}
	return oh;
}

/* ---------------------------------------------------------------- tokens */

struct strkey {
	const struct tmpl_miner *m;
	const char *s;
	size_t n;
};

static int
str_eq(const void *arg, uint32_t i)
{
	const struct strkey *k = arg;

	return k->m->slen[i] == k->n && memcmp(k->m->strings[i], k->s, k->n)
	    == 0;
}

/*
 * Is s[0..n) a plain word ("closed", "Resumed", "CBS_E_INVALID,")?  Two
 * different plain words at one position mean two different events.
 */
static int
tok_isword(const char *s, size_t n)
{
	size_t i;

	while (n > 0 && (CLS(s[n - 1]) & C_CLOSE))
		n--;
	while (n > 0 && (CLS(s[0]) & C_OPEN)) {
		s++;
		n--;
	}
	if (n == 0 || !(CLS(s[0]) & C_ALPHA))
		return 0;
	for (i = 1; i < n; i++)
		if (!(CLS(s[i]) & C_ALPHA) && s[i] != '_' && s[i] != '-')
			return 0;
	return 1;
}

/* The id of token s[0..n), or TOK_UNKNOWN; with `add`, intern it. */
static uint32_t
tok_id(struct tmpl_miner *m, const char *s, size_t n, int add)
{
	struct strkey k = { m, s, n };
	uint64_t h = tmpl_hash(s, n, 0);
	struct slot *sl = table_find(&m->strtab, h, str_eq, &k);
	uint32_t id;

	if (sl->val != 0)
		return sl->val - 1;
	if (!add)
		return TOK_UNKNOWN;
	m->strings = xgrow(m->strings, &m->capstrings, m->nstrings + 1,
	    sizeof *m->strings);
	m->slen = xreallocarray(m->slen, m->capstrings, sizeof *m->slen);
	m->isword = xreallocarray(m->isword, m->capstrings, 1);
	m->isword[m->nstrings] = tok_isword(s, n);
	id = (uint32_t)m->nstrings++;
	m->strings[id] = xstrndup(s, n);
	m->slen[id] = (uint32_t)n;
	table_put(&m->strtab, sl, h, id);
	return id;
}

/*
 * Split a masked string into m->ls/m->ll (at most TMPL_MAXTOK tokens, the
 * last one taking the rest) and look up their ids.  Returns the count.
 */
static uint32_t
tok_split(struct tmpl_miner *m, const char *s, size_t len, int add)
{
	size_t i = 0, j;
	uint32_t n = 0;

	while (i < len && n < TMPL_MAXTOK) {
		while (i < len && s[i] == ' ')
			i++;
		if (i >= len)
			break;
		j = i;
		if (n == TMPL_MAXTOK - 1)
			j = len;
		else
			while (j < len && s[j] != ' ')
				j++;
		m->ls[n] = s + i;
		m->ll[n] = (uint32_t)(j - i);
		m->line[n] = tok_id(m, s + i, j - i, add);
		m->lw[n] = m->line[n] != TOK_UNKNOWN ? m->isword[m->line[n]] :
		    tok_isword(s + i, j - i);
		n++;
		i = j;
	}
	return n;
}

/* ---------------------------------------------------------------- leaves */

struct leafkey {
	const struct tmpl_miner *m;
	uint32_t ntok, first;
};

static int
leaf_eq(const void *arg, uint32_t i)
{
	const struct leafkey *k = arg;

	return k->m->leaves[i].ntok == k->ntok &&
	    k->m->leaves[i].first == k->first;
}

/*
 * The leaf of a message: its token count and first token -- when that is
 * a plain word; "com.apple.xpc:" or "<*>" go to the <*> branch.
 */
static uint32_t
leaf_key(const struct tmpl_miner *m, const uint32_t *tok, uint32_t n)
{
	if (n == 0 || tok[0] == TOK_UNKNOWN)
		return n && m->lw[0] ? TOK_UNKNOWN : TOK_WILD;
	return m->isword[tok[0]] ? tok[0] : TOK_WILD;
}

static struct leaf *
leaf_get(struct tmpl_miner *m, uint32_t ntok, uint32_t first, int add)
{
	struct leafkey k = { m, ntok, first };
	uint64_t h = ((uint64_t)ntok << 32 | first) * 0x9e3779b97f4a7c15ULL;
	struct slot *sl;
	struct leaf *lf;

	h = (h ^ (h >> 31)) | 1;
	sl = table_find(&m->leaftab, h, leaf_eq, &k);
	if (sl->val != 0)
		return &m->leaves[sl->val - 1];
	if (!add)
		return NULL;
	m->leaves = xgrow(m->leaves, &m->capleaves, m->nleaves + 1,
	    sizeof *m->leaves);
	lf = &m->leaves[m->nleaves];
	memset(lf, 0, sizeof *lf);
	lf->ntok = ntok;
	lf->first = first;
	table_put(&m->leaftab, sl, h, (uint32_t)m->nleaves++);
	return lf;
}

/* ---------------------------------------------------------------- templates */

static void
tmpl_build_text(struct tmpl_miner *m, struct tmpl_ent *t)
{
	struct buf b = BUF_INIT;
	uint32_t i;

	for (i = 0; i < t->ntok; i++) {
		if (i > 0)
			buf_addc(&b, ' ');
		buf_add(&b, m->strings[t->tok[i]], m->slen[t->tok[i]]);
	}
	buf_grow(&b, 0);
	free(t->text);
	t->text = buf_detach(&b);
}

/* Install template `id` with tokens tok[0..n) (interned) in its leaf. */
static void
tmpl_install(struct tmpl_miner *m, uint32_t id, const uint32_t *tok,
    uint32_t n)
{
	struct tmpl_ent *t;
	struct leaf *lf;
	size_t i;

	if (id >= m->capt) {
		size_t old = m->capt;

		m->t = xgrow(m->t, &m->capt, (size_t)id + 1, sizeof *m->t);
		memset(m->t + old, 0, (m->capt - old) * sizeof *m->t);
	}
	t = &m->t[id];
	t->ntok = n;
	t->tok = xreallocarray(NULL, n ? n : 1, sizeof *t->tok);
	memcpy(t->tok, tok, n * sizeof *tok);
	tmpl_build_text(m, t);
	if (id > m->maxid)
		m->maxid = id;
	m->ntemplates++;
	lf = leaf_get(m, n, leaf_key(m, tok, n), 1);
	lf->ids = xgrow(lf->ids, &lf->cap, lf->n + 1, sizeof *lf->ids);
	for (i = lf->n; i > 0 && lf->ids[i - 1] > id; i--)
		lf->ids[i] = lf->ids[i - 1];	/* in id order, as restored */
	lf->ids[i] = id;
	lf->n++;
}

/* Take template `id` out of the leaf that holds it. */
static void
leaf_remove(struct tmpl_miner *m, uint32_t id)
{
	struct leaf *lf;
	size_t i, k;

	for (i = 0; i < m->nleaves; i++) {
		lf = &m->leaves[i];
		if (lf->ntok != m->t[id].ntok)
			continue;
		for (k = 0; k < lf->n; k++)
			if (lf->ids[k] == id) {
				memmove(lf->ids + k, lf->ids + k + 1,
				    (lf->n - k - 1) * sizeof *lf->ids);
				lf->n--;
				return;
			}
	}
}

struct tmpl_miner *
tmpl_new(void)
{
	struct tmpl_miner *m = xcalloc(1, sizeof *m);

	table_init(&m->strtab, 1024);
	table_init(&m->leaftab, 256);
	table_init(&m->cachetab, 1024);
	tok_id(m, "", 0, 1);		/* TOK_UNKNOWN: never a real token */
	tok_id(m, "<*>", 3, 1);		/* TOK_WILD */
	return m;
}

static void
cache_clear(struct tmpl_miner *m)
{
	size_t i;

	for (i = 0; i < m->ncache; i++)
		free(m->cache[i].str);
	m->ncache = 0;
	memset(m->cachetab.s, 0, m->cachetab.cap * sizeof *m->cachetab.s);
	m->cachetab.n = 0;
}

void
tmpl_free(struct tmpl_miner *m)
{
	size_t i;

	if (m == NULL)
		return;
	cache_clear(m);
	free(m->cache);
	free(m->cachetab.s);
	for (i = 0; i < m->capt; i++) {
		free(m->t[i].tok);
		free(m->t[i].text);
	}
	free(m->t);
	for (i = 0; i < m->nleaves; i++)
		free(m->leaves[i].ids);
	free(m->leaves);
	free(m->leaftab.s);
	for (i = 0; i < m->nstrings; i++)
		free(m->strings[i]);
	free(m->strings);
	free(m->slen);
	free(m->isword);
	free(m->strtab.s);
	free(m);
}

/* ---------------------------------------------------------------- matching */

struct cachekey {
	const struct tmpl_miner *m;
	const char *s;
	size_t n;
};

static int
cache_eq(const void *arg, uint32_t i)
{
	const struct cachekey *k = arg;

	return k->m->cache[i].len == k->n &&
	    memcmp(k->m->cache[i].str, k->s, k->n) == 0;
}

static void
cache_add(struct tmpl_miner *m, struct slot *sl, uint64_t h, const char *s,
    size_t n, uint32_t id)
{
	struct cachekey k = { m, s, n };

	if (n > TMPL_CACHE_LEN)
		return;
	if (m->ncache >= TMPL_CACHE_MAX) {
		cache_clear(m);
		sl = table_find(&m->cachetab, h, cache_eq, &k);
	}
	m->cache = xgrow(m->cache, &m->capcache, m->ncache + 1,
	    sizeof *m->cache);
	m->cache[m->ncache].str = xstrndup(s, n);
	m->cache[m->ncache].len = n;
	m->cache[m->ncache].id = id;
	table_put(&m->cachetab, sl, h, (uint32_t)m->ncache++);
}

/* Similarity of template t to the message's tokens; *wild counts its <*>. */
static double
tmpl_sim(const struct tmpl_miner *m, const struct tmpl_ent *t, int *wild)
{
	uint32_t i, same = 0;

	uint32_t words = 0;

	*wild = 0;
	for (i = 0; i < t->ntok; i++) {
		if (t->tok[i] == m->line[i])
			same++;
		else if (t->tok[i] == TOK_WILD)
			(*wild)++;
		else if (m->lw[i] && m->isword[t->tok[i]])
			words++;
	}
	if (words > 0)
		return 0;	/* "startup" vs "shutdown": another event */
	return t->ntok ? (double)same / t->ntok : 1;
}

/* The best template of a leaf (first best on ties), or 0. */
static uint32_t
leaf_best(const struct tmpl_miner *m, const struct leaf *lf, double *bestsim)
{
	uint32_t best = 0;
	size_t i;
	double sim;
	int wild, bestwild = -1;

	*bestsim = -1;
	for (i = 0; i < lf->n; i++) {
		sim = tmpl_sim(m, &m->t[lf->ids[i]], &wild);
		if (sim > *bestsim || (sim == *bestsim && wild > bestwild)) {
			*bestsim = sim;
			bestwild = wild;
			best = lf->ids[i];
		}
	}
	return best;
}

/* Turn the positions where template id and the message differ into <*>. */
static int
tmpl_generalise(struct tmpl_miner *m, uint32_t id)
{
	struct tmpl_ent *t = &m->t[id];
	uint32_t i;
	int changed = 0;

	for (i = 0; i < t->ntok; i++) {
		if (t->tok[i] != m->line[i] && t->tok[i] != TOK_WILD) {
			t->tok[i] = TOK_WILD;
			changed = 1;
		}
	}
	if (changed)
		tmpl_build_text(m, t);
	return changed;
}

static uint32_t
tmpl_catchall(struct tmpl_miner *m, int *changed)
{
	uint32_t wild = TOK_WILD;

	if (m->catchall == 0) {
		m->catchall = m->maxid + 1;
		tmpl_install(m, m->catchall, &wild, 1);
		*changed = 1;
	}
	return m->catchall;
}

/* Find, generalise or create the template for the split message. */
static uint32_t
tmpl_place(struct tmpl_miner *m, uint32_t n, int *changed)
{
	struct leaf *lf;
	uint32_t best, i;
	double sim;

	lf = leaf_get(m, n, leaf_key(m, m->line, n), 0);
	if (lf != NULL && (best = leaf_best(m, lf, &sim)) != 0 &&
	    (sim >= TMPL_SIM || lf->n >= TMPL_LEAF_MAX ||
	    m->ntemplates >= TMPL_TOTAL_MAX)) {
		*changed = tmpl_generalise(m, best);
		return best;
	}
	if (m->ntemplates >= TMPL_TOTAL_MAX)
		return tmpl_catchall(m, changed);
	for (i = 0; i < n; i++)
		if (m->line[i] == TOK_UNKNOWN)
			m->line[i] = tok_id(m, m->ls[i], m->ll[i], 1);
	tmpl_install(m, m->maxid + 1, m->line, n);
	*changed = 1;
	return m->maxid;
}

uint32_t
tmpl_match(struct tmpl_miner *m, const char *masked, size_t len,
    int *changed)
{
	struct cachekey k;
	uint64_t h;
	struct slot *sl;
	uint32_t id, n;
	int dummy;

	if (changed == NULL)
		changed = &dummy;
	*changed = 0;
	if (len > TMPL_MAXLEN)
		len = TMPL_MAXLEN;
	k.m = m;
	k.s = masked;
	k.n = len;
	h = tmpl_hash(masked, len, 7);
	sl = table_find(&m->cachetab, h, cache_eq, &k);
	if (sl->val != 0)
		return m->cache[sl->val - 1].id;
	n = tok_split(m, masked, len, 0);
	id = tmpl_place(m, n, changed);
	sl = table_find(&m->cachetab, h, cache_eq, &k);
	cache_add(m, sl, h, masked, len, id);
	return id;
}

int
tmpl_restore(struct tmpl_miner *m, uint32_t id, const char *text,
    char **cause)
{
	uint32_t n;
	size_t len;

	if (id == 0)
		return ts_fail(cause, "template id 0 is not valid");
	if (id < m->capt && m->t[id].text != NULL)
		return ts_fail(cause, "duplicate template id %u", id);
	len = strlen(text);
	n = tok_split(m, text, len < TMPL_MAXLEN ? len : TMPL_MAXLEN, 1);
	tmpl_install(m, id, m->line, n);
	if (n == 1 && m->line[0] == TOK_WILD && m->catchall == 0)
		m->catchall = id;	/* a restored catch-all stays the one */
	return 0;
}

int
tmpl_update(struct tmpl_miner *m, uint32_t id, const char *text,
    char **cause)
{
	struct tmpl_ent *t;
	uint32_t n;
	size_t len;

	if (id == 0 || id >= m->capt || m->t[id].text == NULL)
		return tmpl_restore(m, id, text, cause);
	t = &m->t[id];
	if (strcmp(t->text, text) == 0)
		return 0;
	leaf_remove(m, id);
	free(t->tok);
	t->tok = NULL;
	m->ntemplates--;		/* tmpl_install counts it again */
	len = strlen(text);
	n = tok_split(m, text, len < TMPL_MAXLEN ? len : TMPL_MAXLEN, 1);
	tmpl_install(m, id, m->line, n);
	return 0;
}

const char *
tmpl_text(const struct tmpl_miner *m, uint32_t id)
{
	if (id == 0 || id >= m->capt)
		return NULL;
	return m->t[id].text;
}

uint32_t
tmpl_max_id(const struct tmpl_miner *m)
{
	return m->maxid;
}
