/*
 * lineparse.c -- find the header of a log line: rank, time, level, and
 * where the message begins.
 *
 * The model is a small header grammar read by hand-written scanners (no
 * regular expressions, no backtracking beyond a fixed number of tokens).
 * A header is a run of space-separated fields at the start of the line:
 *
 *   anchors   rank prefixes, timestamps (optionally in brackets), level
 *             words, and at the start of the line a process tag (Ray's
 *             "(Actor pid=N, ip=A)", "[host:pid]", "[host:pid:n:tid]") --
 *             things that can only be header;
 *   weak      numbers, ids with digits (node-17, R02-M1, host:pid:tid),
 *             dotted names (unix.hw), upper-case words (RAS, NCCL), "-" --
 *             things that are header only when an anchor follows;
 *   tail      after the last anchor: pids, "-" and "|" separators, short
 *             bracketed fields ([main], [pool-1]), a glog "file.cc:12]", a
 *             logger name before " - ", a syslog host and "tag[pid]:", or a
 *             "component:" / dotted class name after the level.
 *
 * The message starts after the tail.  Everything is bounded: at most
 * LP_MAXTOK header fields and LP_MAXHDR bytes are looked at, so a line of
 * megabytes costs no more than a short one.  A few bytes of punctuation
 * may stand before the first anchor when it is a time ("==>>[2020-...]").
 *
 * A line whose header gives no time may end with one (lp_end_ts()): its
 * last LP_ENDTS bytes are read for a whole date and time, looked for only
 * when the last byte is ']' or a digit; the message keeps it.
 *
 * A thread parsing many lines keeps a memo (lp_memo_parse()): a line
 * that differs from one parsed before only in its digits has only its
 * time and rank read again (see the memo's comment).
 */
#include "config.h"

#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "logs/lineparse.h"
#include "base/util.h"

#define LP_MAXTOK 16		/* header fields looked at */
#define LP_MAXHDR 512		/* header bytes looked at */
#define LP_MAXWEAK 6		/* weak fields in a row before an anchor */
#define LP_MAXPUNCT 6		/* punctuation before a time at the start */
#define LP_ENDTS 40		/* bytes a time at the end of a line takes */
#define LP_WORDS (LP_MAXHDR / 64)

/* The blanks of the header window, 64 bytes to a word, made on demand. */
struct lp_blanks {
	uint64_t w[LP_WORDS];	/* bit k of w[j]: byte 64 j + k is a blank
				   or past the window */
	unsigned made;		/* bit j: w[j] is made */
};

struct lp_scan {
	const char *s;		/* the line */
	size_t pos, end;	/* cursor and end of the header window */
	size_t len;		/* whole line */
	struct lp_line *out;
	int have_ts;
	int syslog;		/* the timestamp had no year (host may follow) */
	int kernel;		/* a dmesg header: no tag field follows */
	struct lp_blanks *bl;	/* for lp_tokend() and lp_skipspace() */

	/* What lp_memo_parse() keeps: where rank and time were read. */
	int vchecks;		/* time parsers that read digits' values */
	size_t rank_at;		/* the digits of out->rank */
	size_t ts_at, ts_end;	/* the field that gave the time */
	int ts_vchecks;		/* vchecks in it; -1: others read values */
	enum lp_level ts_level;	/* the level before it */
};

/* Month and day names as three lower-case letters packed in an int. */
#define LP_K3(a, b, c) ((uint32_t)(a) << 16 | (uint32_t)(b) << 8 | (c))

static int
lp_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int
lp_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int
lp_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static int
lp_space(int c)
{
	return c == ' ' || c == '\t';
}

/* Read exactly n digits at s[*i]; -1 when they are not there. */
static inline long
lp_num(const char *s, size_t *i, size_t end, int n)
{
	long v = 0;
	int k;

	for (k = 0; k < n; k++) {
		if (*i + k >= end || !lp_digit((unsigned char)s[*i + k]))
			return -1;
		v = v * 10 + (s[*i + k] - '0');
	}
	*i += n;
	return v;
}

/* Read 1 or 2 digits (a day or month that may lack its leading zero). */
static inline long
lp_num12(const char *s, size_t *i, size_t end)
{
	long v;

	if ((v = lp_num(s, i, end, 2)) >= 0)
		return v;
	return lp_num(s, i, end, 1);
}

/* Days since 1970-01-01 of a proleptic Gregorian date. */
static inline long
lp_days_from_civil(long y, long m, long d)
{
	long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static inline int
lp_valid_date(long y, long m, long d)
{
	return y >= 0 && m >= 1 && m <= 12 && d >= 1 && d <= 31;
}

/*
 * The three letters at s (any case) as a key, or 0 when s[0] is no
 * letter.  Setting bit 5 lower-cases a letter and turns no other byte
 * into one, so a key of three lower-case letters comes only from letters.
 */
static inline uint32_t
lp_key3(const char *s)
{
	if (!lp_alpha((unsigned char)s[0]))
		return 0;
	return LP_K3((unsigned char)s[0], (unsigned char)s[1],
	    (unsigned char)s[2]) | LP_K3(0x20, 0x20, 0x20);
}

#define LP_DAY 13		/* lp_name3(): a day of the week */

/*
 * The month and day names by a perfect hash of their keys: the top five
 * bits of key x LP_NAME_MUL are different for all nineteen, so a word is
 * told by one multiplication, one load and one compare -- no branch on
 * its letters (a switch on the first letter mispredicted on most words).
 */
#define LP_NAME_MUL	0x77f487bfU
#define LP_NAME_SLOT(k)	((uint32_t)((k) * LP_NAME_MUL) >> 27)
static const struct {
	uint32_t key;
	int what;		/* month 1..12, LP_DAY */
} lp_names[32] = {
	[4] = { LP_K3('m', 'a', 'y'), 5 }, [5] = { LP_K3('f', 'r', 'i'), LP_DAY },
	[8] = { LP_K3('s', 'u', 'n'), LP_DAY },
	[11] = { LP_K3('m', 'o', 'n'), LP_DAY }, [12] = { LP_K3('j', 'a', 'n'), 1 },
	[13] = { LP_K3('w', 'e', 'd'), LP_DAY }, [14] = { LP_K3('a', 'u', 'g'), 8 },
	[15] = { LP_K3('f', 'e', 'b'), 2 }, [16] = { LP_K3('j', 'u', 'n'), 6 },
	[18] = { LP_K3('j', 'u', 'l'), 7 }, [19] = { LP_K3('t', 'u', 'e'), LP_DAY },
	[20] = { LP_K3('n', 'o', 'v'), 11 }, [21] = { LP_K3('t', 'h', 'u'), LP_DAY },
	[24] = { LP_K3('o', 'c', 't'), 10 }, [26] = { LP_K3('a', 'p', 'r'), 4 },
	[27] = { LP_K3('m', 'a', 'r'), 3 }, [28] = { LP_K3('d', 'e', 'c'), 12 },
	[29] = { LP_K3('s', 'e', 'p'), 9 }, [31] = { LP_K3('s', 'a', 't'), LP_DAY }
};

/*
 * What the three letters at s name: a month (1..12), a day of the week
 * (LP_DAY), or nothing (0).
 */
static inline int
lp_name3(const char *s)
{
	uint32_t k = lp_key3(s), slot = LP_NAME_SLOT(k);

	return k != 0 && lp_names[slot].key == k ? lp_names[slot].what : 0;
}

/* The month (1..12) that the three letters at s name, or 0. */
static int
lp_month3(const char *s)
{
	int n = lp_name3(s);

	return n == LP_DAY ? 0 : n;
}

/* A month name (3 letters, any case, full name allowed) at s[*i]: 1..12. */
static int
lp_month(const char *s, size_t *i, size_t end)
{
	size_t k;
	int m;

	if (*i + 3 > end || (m = lp_month3(s + *i)) == 0)
		return 0;
	k = *i + 3;
	while (k < end && lp_alpha((unsigned char)s[k]))
		k++;
	if (k - *i > 9)
		return 0;
	*i = k;
	return m;
}

/*
 * HH:MM:SS with an optional fraction after '.', ',' or ':' (HealthApp
 * writes 12:00:00:606); `sep` is the separator between the fields (':' or
 * '.' as in BGL's 15.42.50.675872).  Adds seconds since midnight to *secs.
 */
static inline int
lp_time(const char *s, size_t *i, size_t end, char sep, double *secs)
{
	size_t j = *i;
	long h, m, sec = 0;
	double frac = 0, scale = 0.1;

	if ((h = lp_num12(s, &j, end)) < 0 || h > 24 || j >= end ||
	    s[j++] != sep || (m = lp_num12(s, &j, end)) < 0 || m > 59)
		return -1;
	if (j < end && s[j] == sep && j + 1 < end &&
	    lp_digit((unsigned char)s[j + 1])) {
		j++;
		if ((sec = lp_num12(s, &j, end)) < 0 || sec > 60)
			return -1;
		if (j + 1 < end && (s[j] == '.' || s[j] == ',' ||
		    (s[j] == ':' && sep == ':')) &&
		    lp_digit((unsigned char)s[j + 1])) {
			for (j++; j < end && lp_digit((unsigned char)s[j]); j++) {
				frac += (s[j] - '0') * scale;
				scale /= 10;
			}
		}
	}
	*secs += h * 3600.0 + m * 60.0 + sec + frac;
	*i = j;
	return 0;
}

/* A zone after a time: Z, +HH:MM, +HHMM, +HH.  Returns offset seconds. */
static inline int
lp_zone(const char *s, size_t *i, size_t end, double *off)
{
	size_t j = *i;
	long h, m = 0;
	int sign;

	if (j < end && s[j] == 'Z') {
		*off = 0;
		*i = j + 1;
		return 1;
	}
	if (j >= end || (s[j] != '+' && s[j] != '-'))
		return 0;
	sign = s[j++] == '-' ? -1 : 1;
	if ((h = lp_num(s, &j, end, 2)) < 0 || h > 14)
		return 0;
	if (j < end && s[j] == ':')
		j++;
	if (j < end && lp_digit((unsigned char)s[j]) &&
	    (m = lp_num(s, &j, end, 2)) < 0)
		return 0;
	if (j < end && (lp_alpha((unsigned char)s[j]) ||
	    lp_digit((unsigned char)s[j])))
		return 0;
	*off = sign * (h * 3600.0 + m * 60.0);
	*i = j;
	return 1;
}

/* Does a field end at s[i] (space, end, or closing punctuation)? */
static inline int
lp_fieldend(const char *s, size_t i, size_t end)
{
	int c;

	if (i >= end)
		return 1;
	c = (unsigned char)s[i];
	return lp_space(c) || c == ']' || c == ')' || c == ',' || c == '|' ||
	    c == ':' || c == ';';
}

static inline void
lp_set_ts(struct lp_scan *sc, double ts, enum lp_ts_kind kind, int tz)
{
	if (sc->have_ts)
		return;
	sc->have_ts = 1;
	sc->out->ts = ts;
	sc->out->ts_kind = kind;
	sc->out->tz_known = tz;
}

/*
 * A time after a date: separator ('T', ' ', '-', '_' or '/'), time, zone.
 * When no time follows, the date alone counts (BGL's 2005.06.03).
 */
static int
lp_date_time(struct lp_scan *sc, size_t *i, long days, int year_known,
    int need_time)
{
	const char *s = sc->s;
	size_t j = *i;
	double secs = 0, off = 0;
	int tz = 0;
	char sep = ':';

	if (j + 1 < sc->end && (s[j] == 'T' || s[j] == ' ' || s[j] == '-' ||
	    s[j] == '_' || s[j] == '/' || s[j] == ':') &&
	    lp_digit((unsigned char)s[j + 1])) {
		size_t k = j + 1;

		if (s[j] == '-' && k + 2 < sc->end && s[k + 2] == '.')
			sep = '.';
		if (lp_time(s, &k, sc->end, sep, &secs) == 0) {
			j = k;
			tz = lp_zone(s, &j, sc->end, &off);
			/* "12:00:00.043 +08:00": a numeric zone after a blank */
			k = j + 1;
			if (!tz && j + 5 < sc->end && s[j] == ' ' &&
			    (s[k] == '+' || s[k] == '-') &&
			    lp_digit((unsigned char)s[k + 2]) &&
			    (tz = lp_zone(s, &k, sc->end, &off)) != 0)
				j = k;
		}
	}
	if ((need_time && j == *i) || !lp_fieldend(s, j, sc->end))
		return -1;
	lp_set_ts(sc, days * 86400.0 + secs - off,
	    year_known ? LP_TS_EPOCH : LP_TS_NOYEAR, tz);
	*i = j;
	return 0;
}

/* 2024-05-01, 2024/05/01, 2005.06.03, 20171223, then an optional time. */
static int
lp_ts_ymd(struct lp_scan *sc, size_t *i)
{
	const char *s = sc->s;
	size_t j = *i;
	long y, m, d;
	char sep;

	sc->vchecks++;		/* a date and time in range */
	if ((y = lp_num(s, &j, sc->end, 4)) < 0)
		return -1;
	if (j < sc->end && lp_digit((unsigned char)s[j])) {
		/* compact 20171223 */
		if ((m = lp_num(s, &j, sc->end, 2)) < 0 ||
		    (d = lp_num(s, &j, sc->end, 2)) < 0 ||
		    (j < sc->end && lp_digit((unsigned char)s[j])))
			return -1;
		if (!lp_valid_date(y, m, d) || y < 1970 || y > 2200 ||
		    j >= sc->end || (s[j] != '-' && s[j] != 'T' && s[j] != ' '))
			return -1;
	} else {
		if (j >= sc->end || (s[j] != '-' && s[j] != '/' && s[j] != '.'))
			return -1;
		sep = s[j++];
		if ((m = lp_num12(s, &j, sc->end)) < 0 || j >= sc->end ||
		    s[j++] != sep || (d = lp_num12(s, &j, sc->end)) < 0)
			return -1;
		if (!lp_valid_date(y, m, d))
			return -1;
	}
	if (lp_date_time(sc, &j, lp_days_from_civil(y, m, d), 1, 0) != 0)
		return -1;
	*i = j;
	return 0;
}

/*
 * Two-digit leading forms: 17/06/09 20:10:40 (YY/MM/DD), 03-17 16:13:38
 * and 10.30 16:49:06 (month-day, no year), 081109 203615 (YYMMDD HHMMSS).
 */
static int
lp_ts_short(struct lp_scan *sc, size_t *i)
{
	const char *s = sc->s;
	size_t j = *i;
	long a, b, c;
	double secs = 0;
	char sep;

	sc->vchecks++;		/* a date and time in range */
	if ((a = lp_num(s, &j, sc->end, 2)) < 0 || j >= sc->end)
		return -1;
	if (lp_digit((unsigned char)s[j])) {
		/* YYMMDD HHMMSS */
		if ((b = lp_num(s, &j, sc->end, 2)) < 0 ||
		    (c = lp_num(s, &j, sc->end, 2)) < 0 || j >= sc->end ||
		    s[j] != ' ' || !lp_valid_date(2000 + a, b, c))
			return -1;
		j++;
		if (lp_num(s, &j, sc->end, 6) < 0 || !lp_fieldend(s, j, sc->end))
			return -1;
		secs = ((s[j - 6] - '0') * 10 + s[j - 5] - '0') * 3600.0 +
		    ((s[j - 4] - '0') * 10 + s[j - 3] - '0') * 60.0 +
		    (s[j - 2] - '0') * 10 + s[j - 1] - '0';
		lp_set_ts(sc, lp_days_from_civil(2000 + a, b, c) * 86400.0 +
		    secs, LP_TS_EPOCH, 0);
		*i = j;
		return 0;
	}
	sep = s[j];
	if (sep != '/' && sep != '-' && sep != '.')
		return -1;
	j++;
	if ((b = lp_num12(s, &j, sc->end)) < 0 || j >= sc->end)
		return -1;
	if (sep == '/' && s[j] == '/') {
		j++;
		if ((c = lp_num12(s, &j, sc->end)) < 0 ||
		    !lp_valid_date(2000 + a, b, c) ||
		    lp_date_time(sc, &j, lp_days_from_civil(2000 + a, b, c), 1,
		    1) != 0)
			return -1;
		*i = j;
		return 0;
	}
	if (!lp_valid_date(1970, a, b) ||
	    lp_date_time(sc, &j, lp_days_from_civil(1970, a, b), 0, 1) != 0)
		return -1;
	*i = j;
	return 0;
}

/* "Mon DD HH:MM:SS[.frac][ YYYY]", after an optional day name. */
static int
lp_ts_monthname(struct lp_scan *sc, size_t *i)
{
	const char *s = sc->s;
	size_t j = *i, k;
	long d, y = -1;
	double secs = 0;
	int m;

	sc->vchecks++;		/* a day, time and year in range */
	if (j + 4 <= sc->end && (s[j + 3] == ' ' || s[j + 3] == ',') &&
	    lp_name3(s + j) == LP_DAY) {
		j += 4;
		while (j < sc->end && s[j] == ' ')
			j++;
	}
	if ((m = lp_month(s, &j, sc->end)) == 0 || j >= sc->end || s[j] != ' ')
		return -1;
	while (j < sc->end && s[j] == ' ')
		j++;
	if ((d = lp_num12(s, &j, sc->end)) < 1 || d > 31 || j >= sc->end ||
	    s[j++] != ' ')
		return -1;
	if (lp_time(s, &j, sc->end, ':', &secs) != 0)
		return -1;
	k = j;
	if (k + 5 <= sc->end && s[k] == ' ' &&
	    (y = lp_num(s, &(size_t){ k + 1 }, sc->end, 4)) >= 1970 &&
	    lp_fieldend(s, k + 5, sc->end))
		j = k + 5;
	else
		y = -1;
	if (!lp_fieldend(s, j, sc->end))
		return -1;
	lp_set_ts(sc, lp_days_from_civil(y >= 0 ? y : 1970, m, d) * 86400.0 +
	    secs, y >= 0 ? LP_TS_EPOCH : LP_TS_NOYEAR, 0);
	if (y < 0)
		sc->syslog = 1;
	*i = j;
	return 0;
}

/* glog: "I0501 12:00:00.123456" (level letter, MMDD, time). */
static int
lp_ts_glog(struct lp_scan *sc, size_t *i)
{
	const char *s = sc->s;
	size_t j = *i + 1;
	long m, d;
	double secs = 0;
	int c = (unsigned char)s[*i];

	if (c != 'I' && c != 'W' && c != 'E' && c != 'F' && c != 'D')
		return -1;
	sc->vchecks++;		/* a date and time in range */
	/* c10d's copy of the format does not pad the month: "E916" */
	if ((m = lp_num(s, &j, sc->end, j + 3 < sc->end && s[j + 3] == ' ' ?
	    1 : 2)) < 0 ||
	    (d = lp_num(s, &j, sc->end, 2)) < 0 || j >= sc->end ||
	    s[j++] != ' ' || !lp_valid_date(1970, m, d) ||
	    lp_time(s, &j, sc->end, ':', &secs) != 0 ||
	    !lp_fieldend(s, j, sc->end))
		return -1;
	lp_set_ts(sc, lp_days_from_civil(1970, m, d) * 86400.0 + secs,
	    LP_TS_NOYEAR, 0);
	if (sc->out->level == LP_LEVEL_NONE)
		sc->out->level = c == 'I' ? LP_LEVEL_INFO : c == 'W' ?
		    LP_LEVEL_WARN : c == 'E' ? LP_LEVEL_ERROR : c == 'F' ?
		    LP_LEVEL_FATAL : LP_LEVEL_DEBUG;
	*i = j;
	return 0;
}

/*
 * Epoch seconds (10 digits, 2000..2100, optional fraction) or
 * milliseconds (13 digits); `uptime` reads dmesg's "1234.567890" instead.
 */
static int
lp_ts_number(struct lp_scan *sc, size_t *i, int uptime)
{
	const char *s = sc->s;
	size_t j = *i, nd;
	double v = 0, scale = 0.1;
	int frac = 0;

	for (nd = 0; j < sc->end && lp_digit((unsigned char)s[j]); j++, nd++)
		v = v * 10 + (s[j] - '0');
	if (j + 1 < sc->end && s[j] == '.' && lp_digit((unsigned char)s[j + 1])) {
		frac = 1;
		for (j++; j < sc->end && lp_digit((unsigned char)s[j]); j++) {
			v += (s[j] - '0') * scale;
			scale /= 10;
		}
	}
	if (!lp_fieldend(s, j, sc->end) || nd == 0)
		return -1;
	if (!uptime)
		sc->vchecks++;	/* epoch seconds in range */
	if (uptime) {
		if (!frac || nd > 8)
			return -1;
		lp_set_ts(sc, v, LP_TS_UPTIME, 0);
	} else if (nd == 13 && !frac && v >= 946684800e3 && v < 4102444800e3)
		lp_set_ts(sc, v / 1000, LP_TS_EPOCH, 1);
	else if (nd == 10 && v >= 946684800 && v < 4102444800.0)
		lp_set_ts(sc, v, LP_TS_EPOCH, 1);
	else
		return -1;
	*i = j;
	return 0;
}

/* Any timestamp form at s[*i] (not bracketed). */
static int
lp_ts_any(struct lp_scan *sc, size_t *i)
{
	const char *s = sc->s;
	size_t j = *i, nd = 0;
	int c = (unsigned char)s[j];

	if (lp_alpha(c)) {
		if (lp_ts_glog(sc, i) == 0)
			return 0;
		return lp_ts_monthname(sc, i);
	}
	if (!lp_digit(c))
		return -1;
	while (j < sc->end && lp_digit((unsigned char)s[j]))
		j++;
	nd = j - *i;
	if (nd == 4 || nd == 8)
		return lp_ts_ymd(sc, i);
	if (nd == 2 || nd == 6)
		return lp_ts_short(sc, i);
	/* after the level, a bare number is message ("INFO 1365301360 x") */
	if ((nd == 10 || nd == 13) && sc->out->level == LP_LEVEL_NONE)
		return lp_ts_number(sc, i, 0);
	return -1;
}

/* dmesg's "1234.567890]" (the '[' and blanks already skipped). */
static int
lp_dmesg(struct lp_scan *sc, size_t *i)
{
	const char *s = sc->s;
	size_t j = *i;

	while (j < sc->end && (lp_digit((unsigned char)s[j]) || s[j] == '.'))
		j++;
	if (j >= sc->end || s[j] != ']' || !lp_digit((unsigned char)s[*i]))
		return -1;
	return lp_ts_number(sc, i, 1);
}

/*
 * A time field ended at `end` (after reading `vc` value checks and more):
 * note where it was when it gave the line's time (for lp_memo_parse()),
 * or that values were read for nothing when it did not.
 */
static void
lp_ts_kept(struct lp_scan *sc, int had, int vc, enum lp_level level,
    size_t end)
{
	if (had) {
		if (sc->vchecks != vc)
			sc->ts_vchecks = -1;
		return;
	}
	sc->ts_at = sc->pos;
	sc->ts_end = end;
	sc->ts_level = level;
	if (sc->ts_vchecks == 0)
		sc->ts_vchecks = sc->vchecks - vc;
}

/*
 * Can a time start at s[j]: a digit, glog's level letter and a digit, or
 * a month or day name?  Most header fields are turned away here.
 */
static int
lp_ts_start(const struct lp_scan *sc, size_t j)
{
	const char *s = sc->s;
	int c = (unsigned char)s[j];

	if (lp_digit(c))
		return 1;
	if ((c == 'I' || c == 'W' || c == 'E' || c == 'F' || c == 'D') &&
	    j + 1 < sc->end && lp_digit((unsigned char)s[j + 1]))
		return 1;
	return j + 3 <= sc->end && lp_name3(s + j) != 0;
}

/*
 * The source location c10d's logger puts after its glog-style time inside
 * the brackets, "[E0312 08:15:00.123456789 ProcessGroupNCCL.cpp:1515]":
 * one field with a colon, ending in a digit, then ']'.  Where the ']' is,
 * or i when there is none.
 */
static size_t
lp_where_end(const struct lp_scan *sc, size_t i)
{
	const char *s = sc->s;
	size_t k;
	int colon = 0;

	for (k = i; k < sc->end && k - i < 120 && s[k] != ']'; k++) {
		if (lp_space((unsigned char)s[k]) || s[k] == '[')
			return i;
		colon |= s[k] == ':';
	}
	if (k >= sc->end || s[k] != ']' || !colon || k == i ||
	    !lp_digit((unsigned char)s[k - 1]))
		return i;
	return k;
}

/*
 * A timestamp, possibly in brackets ("[2024-05-01 12:00:00]",
 * "[ 1234.567890]" for dmesg), followed by an optional ',' or ':'.
 */
static int
lp_anchor_ts(struct lp_scan *sc)
{
	const char *s = sc->s;
	size_t j = sc->pos;
	struct lp_line save;
	int br = 0, have = sc->have_ts, sys = sc->syslog, vc;

	if (s[j] == '[') {
		br = 1;
		for (j++; j < sc->end && s[j] == ' '; j++)
			;
		if (j >= sc->end)
			return -1;
	}
	if (!lp_ts_start(sc, j))
		return -1;
	save = *sc->out;
	vc = sc->vchecks;
	if (br && lp_dmesg(sc, &j) == 0)
		;
	else if (lp_ts_any(sc, &j) != 0)
		goto fail;
	if (br) {
		if (j < sc->end && s[j] == ' ' && lp_alpha((unsigned char)
		    s[sc->pos + 1]))
			j = lp_where_end(sc, j + 1);
		if (j >= sc->end || s[j] != ']')
			goto fail;
		j++;
	}
	if (j < sc->end && (s[j] == ',' || s[j] == ':') &&
	    (j + 1 >= sc->end || lp_space((unsigned char)s[j + 1])))
		j++;
	lp_ts_kept(sc, have, vc, save.level, j);
	sc->pos = j;
	return 0;
fail:
	*sc->out = save;
	sc->have_ts = have;
	sc->syslog = sys;
	if (sc->vchecks != vc)
		sc->ts_vchecks = -1;	/* a field read values, in vain */
	return -1;
}

/* Read a small decimal (a rank) at s[*i]; -1 when absent. */
static inline int
lp_small(const char *s, size_t *i, size_t end)
{
	size_t j = *i;
	long v = 0;

	while (j < end && lp_digit((unsigned char)s[j]) && j - *i < 7)
		v = v * 10 + (s[j++] - '0');
	if (j == *i || (j < end && lp_digit((unsigned char)s[j])))
		return -1;
	*i = j;
	return (int)v;
}

/* Case-insensitive match of a lower-case word at s[*i]. */
static inline int
lp_word(const char *s, size_t *i, size_t end, const char *w)
{
	size_t j = *i;

	for (; *w != '\0'; w++, j++)
		if (j >= end || lp_lower((unsigned char)s[j]) != *w)
			return 0;
	*i = j;
	return 1;
}

/*
 * Rank prefixes: "3: " at the start of the line, "[default3]:",
 * "[rank3]:", "[rank 3]", "[Rank 3]".
 */
static int
lp_anchor_rank(struct lp_scan *sc)
{
	const char *s = sc->s;
	size_t j = sc->pos, at;
	int r, c;

	if (s[j] != '[') {
		if (j != 0 || (r = lp_small(s, &j, sc->end)) < 0 ||
		    j + 1 >= sc->end || s[j] != ':' || s[j + 1] != ' ')
			return -1;
		sc->out->rank = r;
		sc->rank_at = 0;
		sc->pos = j + 2;
		return 0;
	}
	j++;
	/* what follows '[' tells the forms apart: a digit, 'd' or 'r' */
	c = j < sc->end ? lp_lower((unsigned char)s[j]) : 0;
	if (c != 'd' && c != 'r' && !lp_digit(c))
		return -1;
	/* mpirun --tag-output: "[jobid,rank]<stdout>:" */
	if (lp_digit(c)) {
		if (lp_small(s, &j, sc->end) < 0 || j >= sc->end || s[j] != ',')
			return -1;
		at = ++j;
		if ((r = lp_small(s, &j, sc->end)) < 0 || j >= sc->end ||
		    s[j] != ']')
			return -1;
		j++;
		if (j < sc->end && s[j] == '<') {
			size_t k = j + 1;

			while (k < sc->end && k - j < 10 && lp_alpha(
			    (unsigned char)s[k]))
				k++;
			if (k >= sc->end || s[k] != '>')
				return -1;
			j = k + 1;
		}
		if (j < sc->end && s[j] == ':')
			j++;
		sc->out->rank = r;
		sc->rank_at = at;
		sc->pos = j;
		return 0;
	}
	j = sc->pos + 1;
	if (!lp_word(s, &j, sc->end, "default") &&
	    !lp_word(s, &j, sc->end, "rank"))
		return -1;
	if (j < sc->end && s[j] == ' ')
		j++;
	at = j;
	if ((r = lp_small(s, &j, sc->end)) < 0 || j >= sc->end || s[j] != ']')
		return -1;
	j++;
	if (j < sc->end && s[j] == ':')
		j++;
	sc->out->rank = r;
	sc->rank_at = at;
	sc->pos = j;
	return 0;
}

static const struct {
	const char *word;
	size_t len;
	enum lp_level level;
} lp_levels[] = {
	{ "alert", 5, LP_LEVEL_FATAL },
	{ "crit", 4, LP_LEVEL_FATAL },
	{ "critical", 8, LP_LEVEL_FATAL },
	{ "debug", 5, LP_LEVEL_DEBUG },
	{ "emerg", 5, LP_LEVEL_FATAL },
	{ "err", 3, LP_LEVEL_ERROR },
	{ "error", 5, LP_LEVEL_ERROR },
	{ "failure", 7, LP_LEVEL_ERROR },
	{ "fatal", 5, LP_LEVEL_FATAL },
	{ "info", 4, LP_LEVEL_INFO },
	{ "notice", 6, LP_LEVEL_INFO },
	{ "severe", 6, LP_LEVEL_ERROR },
	{ "trace", 5, LP_LEVEL_DEBUG },
	{ "verbose", 7, LP_LEVEL_DEBUG },
	{ "warn", 4, LP_LEVEL_WARN },
	{ "warning", 7, LP_LEVEL_WARN },
};

/*
 * A level word of length n at s: upper case or capitalised when bare,
 * any case inside brackets.
 */
static enum lp_level
lp_level_word(const char *s, size_t n, int bracketed)
{
	size_t i, k;
	int upper = 1, cap = 1;

	if (n < 3 || n > 8)
		return LP_LEVEL_NONE;
	for (k = 0; k < n; k++) {
		if (!lp_alpha((unsigned char)s[k]))
			return LP_LEVEL_NONE;
		if (s[k] >= 'a')
			upper = 0;
		if (k > 0 && s[k] < 'a')
			cap = 0;
	}
	if (!bracketed && !upper && !(cap && s[0] < 'a'))
		return LP_LEVEL_NONE;
	for (i = 0; i < TS_NELEM(lp_levels); i++) {
		if (lp_levels[i].len != n ||
		    lp_levels[i].word[0] != lp_lower((unsigned char)s[0]))
			continue;
		for (k = 1; k < n; k++)
			if (lp_lower((unsigned char)s[k]) != lp_levels[i].word[k])
				break;
		if (k == n)
			return lp_levels[i].level;
	}
	return LP_LEVEL_NONE;
}

/* A level letter from a single-letter code: I W E F D V A. */
static enum lp_level
lp_level_letter(int c)
{
	return c == 'V' || c == 'D' ? LP_LEVEL_DEBUG : c == 'I' ?
	    LP_LEVEL_INFO : c == 'W' ? LP_LEVEL_WARN : c == 'E' ?
	    LP_LEVEL_ERROR : c == 'F' || c == 'A' ? LP_LEVEL_FATAL :
	    LP_LEVEL_NONE;
}

/*
 * PyTorch's c10 prefix "[E ProcessGroupNCCL.cpp:475]": a level letter and
 * the source place.  Consumes it and returns the level, or LP_LEVEL_NONE.
 */
static enum lp_level
lp_level_c10(struct lp_scan *sc)
{
	const char *s = sc->s;
	size_t j = sc->pos, k;
	enum lp_level lv;

	if (j + 6 > sc->end || s[j] != '[' || s[j + 2] != ' ' ||
	    (lv = lp_level_letter((unsigned char)s[j + 1])) == LP_LEVEL_NONE)
		return LP_LEVEL_NONE;
	for (k = j + 3; k < sc->end && k - j < 120 && s[k] != ']'; k++)
		if (lp_space((unsigned char)s[k]) || s[k] == '[')
			return LP_LEVEL_NONE;
	if (k >= sc->end || s[k] != ']' || !lp_digit((unsigned char)s[k - 1]) ||
	    memchr(s + j + 3, ':', k - j - 3) == NULL)
		return LP_LEVEL_NONE;
	sc->pos = k + 1;
	return lv;
}

/*
 * A level: "ERROR", "Warning", "[info]", "<ERROR>", "ERROR:"; or a single
 * letter (V D I W E F) once a timestamp was seen (Android's logcat).
 */
static int
lp_anchor_level(struct lp_scan *sc)
{
	const char *s = sc->s;
	size_t j = sc->pos, w;
	enum lp_level lv;
	int br = 0;

	if (sc->out->level != LP_LEVEL_NONE)
		return -1;
	if ((lv = lp_level_c10(sc)) != LP_LEVEL_NONE) {
		sc->out->level = lv;
		return 0;
	}
	if (s[j] == '[' || s[j] == '<') {
		br = s[j] == '[' ? ']' : '>';
		j++;
	}
	for (w = j; w < sc->end && lp_alpha((unsigned char)s[w]); w++)
		;
	if (br) {
		if (w >= sc->end || s[w] != br)
			return -1;
	} else if (!lp_fieldend(s, w, sc->end) || (w < sc->end &&
	    s[w] != ':' && !lp_space((unsigned char)s[w])))
		return -1;
	lv = lp_level_word(s + j, w - j, br);
	if (lv == LP_LEVEL_NONE && !br && w - j == 1 && sc->have_ts &&
	    w < sc->end && lp_space((unsigned char)s[w]))
		lv = lp_level_letter((unsigned char)s[j]);
	if (lv == LP_LEVEL_NONE)
		return -1;
	j = w + (br != 0);
	if (j < sc->end && s[j] == ':')
		j++;
	sc->out->level = lv;
	sc->pos = j;
	return 0;
}

const char *
lp_level_name(enum lp_level level)
{
	switch (level) {
	case LP_LEVEL_DEBUG:
		return "DEBUG";
	case LP_LEVEL_INFO:
		return "INFO";
	case LP_LEVEL_WARN:
		return "WARN";
	case LP_LEVEL_ERROR:
		return "ERROR";
	case LP_LEVEL_FATAL:
		return "FATAL";
	default:
		return "";
	}
}

/* The blanks of the 64 bytes at s, bit k for s[k]. */
static uint64_t
lp_blank_64(const char *s)
{
	uint64_t m = 0;
	size_t k;

#ifdef __SSE2__
	for (k = 0; k < 64; k += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(s + k));

		x = _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(' ')),
		    _mm_cmpeq_epi8(x, _mm_set1_epi8('\t')));
		m |= (uint64_t)(unsigned)_mm_movemask_epi8(x) << k;
	}
#else
	for (k = 0; k < 64; k++)
		m |= (uint64_t)lp_space((unsigned char)s[k]) << k;
#endif
	return m;
}

/*
 * Word j of the window's blanks (64 j < end), made when first asked for:
 * a header is looked at token by token, often the same token by several
 * rules, and a bit scan finds a token's end where a loop would test each
 * byte again.
 */
static uint64_t
lp_blank_make(const struct lp_scan *sc, size_t j)
{
	struct lp_blanks *bl = sc->bl;
	size_t n = sc->end - 64 * j;
	char pad[64];
	uint64_t m;

	/* a short last word: the window's last 64 bytes, or a padded copy */
	if (n >= 64)
		m = lp_blank_64(sc->s + 64 * j);
	else if (sc->end >= 64)
		m = lp_blank_64(sc->s + sc->end - 64) >> (64 - n) |
		    ~(uint64_t)0 << n;
	else {
		memcpy(pad, sc->s, n);
		memset(pad + n, ' ', sizeof pad - n);
		m = lp_blank_64(pad);
	}
	bl->w[j] = m;
	bl->made |= 1U << j;
	return m;
}

static inline uint64_t
lp_blank_word(const struct lp_scan *sc, size_t j)
{
	return sc->bl->made & 1U << j ? sc->bl->w[j] : lp_blank_make(sc, j);
}

/* End of the space-free token at `i` (bounded by the header window). */
static inline size_t
lp_tokend(const struct lp_scan *sc, size_t i)
{
	uint64_t m;

	while (i < sc->end) {
		if ((m = lp_blank_word(sc, i / 64) >> (i % 64)) != 0)
			return i + (size_t)__builtin_ctzll(m);
		i = (i / 64 + 1) * 64;
	}
	return i;
}

static inline size_t
lp_skipspace(const struct lp_scan *sc, size_t i)
{
	uint64_t m;

	if (i >= sc->end)
		return i;
	while (i < sc->end) {
		if ((m = ~lp_blank_word(sc, i / 64) >> (i % 64)) != 0) {
			i += (size_t)__builtin_ctzll(m);
			break;
		}
		i = (i / 64 + 1) * 64;
	}
	return i < sc->end ? i : sc->end;
}

/* A bracketed field without blanks ("[main]", "[Q[myid=1]/x@7]"): its end. */
static size_t
lp_bracket(const struct lp_scan *sc, size_t i)
{
	const char *s = sc->s;
	size_t j;
	int depth = 0;

	if (i >= sc->end || s[i] != '[')
		return 0;
	for (j = i; j < sc->end && j - i < 200; j++) {
		if (lp_space((unsigned char)s[j]))
			return 0;
		if (s[j] == '[')
			depth++;
		else if (s[j] == ']' && --depth == 0)
			return j + 1;
	}
	return 0;
}

/*
 * Weak header fields: "-", numbers, short blank-free brackets, ids with
 * digits, dotted names, upper-case words.  *idish is set for an id with a
 * digit and a ':' or '-' (host:pid:tid, node-17).  In a record -- a line
 * that starts with a digit, before any anchor -- plain words are weak too.
 */
static size_t
lp_weak(const struct lp_scan *sc, size_t i, int *idish, int record)
{
	const char *s = sc->s;
	size_t e = lp_tokend(sc, i), k, b;
	int digit = 0, lower = 0, sep = 0, dot = 0, c;

	if ((b = lp_bracket(sc, i)) != 0 && b == e && e - i <= 34)
		return e;
	if (e - i > 64)
		return 0;
	for (k = i; k < e; k++) {
		c = (unsigned char)s[k];
		if (lp_digit(c))
			digit = 1;
		else if (c >= 'a' && c <= 'z')
			lower = 1;
		else if (c == ':' || c == '-' || c == '/')
			sep = 1;
		else if (c == '.' || c == '_')
			dot = 1;
		else if (!(c >= 'A' && c <= 'Z') && c != '@' && c != '#')
			return 0;
	}
	if (e - i == 1 && s[i] == '-')
		return e;
	if (s[e - 1] == '.' || s[e - 1] == ':' || s[i] == '.')
		return 0;
	if (digit && sep)
		*idish = 1;
	if (digit || (dot && lower && e - i > 3) || (!lower && !sep &&
	    e - i >= 2 && lp_alpha((unsigned char)s[i])))
		return e;
	/* a record ("134681 node-246 gige temperature 1083930762 ...") */
	if (record && !memchr(s + i, ':', e - i) && !memchr(s + i, '/', e - i)
	    && lp_alpha((unsigned char)s[i]))
		return e;
	return 0;
}

/* Is s[i..j) a dotted IPv4 address? */
static int
lp_ipv4(const char *s, size_t i, size_t j)
{
	int parts = 0;

	while (i < j) {
		size_t k = i;

		while (k < j && lp_digit((unsigned char)s[k]) && k - i < 3)
			k++;
		if (k == i)
			return 0;
		parts++;
		if (k == j)
			break;
		if (s[k] != '.')
			return 0;
		i = k + 1;
	}
	return parts == 4;
}

/* "rank0", "epoch12", "step3": a counter, not a machine. */
static int
lp_counter_word(const char *s, size_t n)
{
	static const char *const words[] = { "rank", "epoch", "step",
	    "iter", "iteration", "batch", "layer", "stage", "cuda", "device",
	    "proc", "task", "job" };
	size_t i, w, k;

	for (i = 0; i < sizeof words / sizeof words[0]; i++) {
		w = strlen(words[i]);
		if (n <= w || strncmp(s, words[i], w) != 0)
			continue;
		for (k = w; k < n && lp_digit((unsigned char)s[k]); k++)
			;
		if (k == n)
			return 1;
	}
	return 0;
}

/*
 * A host prefix at the start of the line: "10.0.0.3: " or "node-7: " (pdsh
 * and launchers built on it).  The name must hold a digit, so that
 * "RuntimeError: " or "torch.distributed.run: " stay message and logger.
 */
static int
lp_anchor_host(struct lp_scan *sc)
{
	const char *s = sc->s;
	size_t j = sc->pos, k;
	int digit = 0;

	if (j != 0 || sc->out->host != NULL)
		return -1;
	for (k = j; k < sc->end && k - j <= 64 && (lp_alpha((unsigned char)
	    s[k]) || lp_digit((unsigned char)s[k]) || s[k] == '-' ||
	    s[k] == '.' || s[k] == '_'); k++)
		digit |= lp_digit((unsigned char)s[k]);
	if (k == j || k + 1 >= sc->end || s[k] != ':' || s[k + 1] != ' ' ||
	    !digit || s[k - 1] == '.' || s[k - 1] == '-')
		return -1;
	if (!lp_ipv4(s, j, k) && (!lp_alpha((unsigned char)s[j]) ||
	    lp_counter_word(s + j, k - j)))
		return -1;
	sc->out->host = s + j;
	sc->out->host_len = k - j;
	/* Slurm's step daemon writes "slurmstepd-NODE: error: ..." */
	if (k - j > 11 && memcmp(s + j, "slurmstepd-", 11) == 0) {
		sc->out->host += 11;
		sc->out->host_len -= 11;
	}
	sc->pos = k + 2;
	return 0;
}

static int lp_dashed_ip(const char *, size_t);

/* A host name's bytes: letters, digits, '-', '.', '_'; the end. */
static size_t
lp_hostchars(const char *s, size_t j, size_t end)
{
	size_t k;

	for (k = j; k < end && k - j <= 64 && (lp_alpha((unsigned char)s[k]) ||
	    lp_digit((unsigned char)s[k]) || s[k] == '-' || s[k] == '.' ||
	    s[k] == '_'); k++)
		;
	return k;
}

/* Does the name of n bytes at s end like a source file ("x.py")? */
static int
lp_source_name(const char *s, size_t n)
{
	static const char *const ext[] = { ".py", ".c", ".cc", ".cpp", ".h",
	    ".cu", ".go", ".rs", ".java", ".js", ".rb", ".lua" };
	size_t i, e;

	for (i = 0; i < TS_NELEM(ext); i++) {
		e = strlen(ext[i]);
		if (n > e && memcmp(s + n - e, ext[i], e) == 0)
			return 1;
	}
	return 0;
}

/*
 * A process tag in brackets at the start of the line: Open MPI's and
 * PMIx's "[host:pid]" and UCX's "[host:pid:thread:tid]" -- a host name,
 * then one to four numbers after colons.  A source file's "[x.py:12]" is
 * not one.
 */
static int
lp_anchor_proc_tag(struct lp_scan *sc)
{
	const char *s = sc->s;
	size_t j = 1, k, nnum = 0;

	if (sc->pos != 0 || sc->out->host != NULL || s[0] != '[')
		return -1;
	k = lp_hostchars(s, j, sc->end);
	if (k == j || k >= sc->end || s[k] != ':' || s[k - 1] == '.' ||
	    s[k - 1] == '-' || lp_source_name(s + j, k - j) ||
	    (!lp_alpha((unsigned char)s[j]) && !lp_dashed_ip(s + j, k - j)))
		return -1;
	sc->out->host = s + j;
	sc->out->host_len = k - j;
	while (k < sc->end && s[k] == ':' && nnum < 4) {
		size_t d = ++k;

		while (k < sc->end && k - d < 10 && lp_digit((unsigned char)s[k]))
			k++;
		if (k == d)
			break;
		nnum++;
	}
	if (nnum == 0 || k + 1 >= sc->end || s[k] != ']' || s[k + 1] != ' ') {
		sc->out->host = NULL;
		sc->out->host_len = 0;
		return -1;
	}
	sc->pos = k + 2;
	return 0;
}

/*
 * Ray's prefix of a worker's output at the start of the line: "(raylet) ",
 * "(pid=42) ", "(Actor pid=42) ", "(Actor pid=42, ip=10.0.0.3) ".  The
 * address, when given, is the node.
 */
static int
lp_anchor_ray(struct lp_scan *sc)
{
	const char *s = sc->s;
	size_t k, v, ip = 0, iplen = 0;
	int nfield = 0, raylet;

	if (sc->pos != 0 || sc->out->host != NULL || s[0] != '(')
		return -1;
	k = lp_hostchars(s, 1, sc->end);
	raylet = k == 7 && memcmp(s + 1, "raylet", 6) == 0;
	if (k < sc->end && s[k] == '=')
		k = 1;			/* "(pid=42)": no name */
	while (k < sc->end && s[k] != ')') {
		if (s[k] == ' ' || s[k] == ',') {
			k++;
			continue;
		}
		if (sc->end - k > 4 && memcmp(s + k, "pid=", 4) == 0) {
			for (v = k += 4; k < sc->end && lp_digit(
			    (unsigned char)s[k]); k++)
				;
		} else if (sc->end - k > 3 && memcmp(s + k, "ip=", 3) == 0) {
			v = ip = k += 3;
			k = lp_hostchars(s, k, sc->end);
			iplen = k - ip;
		} else
			return -1;
		if (k == v)
			return -1;
		nfield++;
	}
	if ((nfield == 0 && !raylet) || k + 1 >= sc->end || s[k + 1] != ' ')
		return -1;
	if (iplen > 0) {
		sc->out->host = s + ip;
		sc->out->host_len = iplen;
	}
	sc->pos = k + 2;
	return 0;
}

/*
 * Open MPI's reports of the process that failed first: "Process name:
 * [[61482,1],3]" (rank 3) and "mpirun noticed that process rank 3 with
 * PID 42 on node gpu-7 exited on signal 9 (Killed)."  The line stays
 * message; only the rank and node are taken.
 */
static void
lp_mpirun(struct lp_line *out, const char *s, size_t end, size_t *rank_at)
{
	static const char noticed[] = "mpirun noticed that process rank ";
	size_t i = 0, j, k, at;
	long r;

	while (i < end && s[i] == ' ')
		i++;
	if (end - i > 17 && memcmp(s + i, "Process name: [[", 16) == 0) {
		k = i + 16;
		while (k < end && s[k] != ']')
			k++;
		if (k > i + 16 && s[k - 1] != '[' && k + 2 < end && s[k + 1] == ',')
			k += 2;
		else
			return;
		at = k;
		if ((r = lp_small(s, &k, end)) >= 0 && k < end && s[k] == ']') {
			out->rank = (int)r;
			*rank_at = at;
		}
		return;
	}
	if (end - i < sizeof noticed || memcmp(s + i, noticed,
	    sizeof noticed - 1) != 0)
		return;
	at = k = i + sizeof noticed - 1;
	if ((r = lp_small(s, &k, end)) < 0)
		return;
	for (j = k; j + 9 < end && memcmp(s + j, " on node ", 9) != 0; j++)
		;
	if (j + 9 >= end)
		return;
	j += 9;
	for (k = j; k < end && k - j <= 64 && s[k] != ' '; k++)
		;
	if (k == j || k >= end)
		return;
	out->rank = (int)r;
	*rank_at = at;
	out->host = s + j;
	out->host_len = k - j;
}

/*
 * srun's own reports name the node and the task (the global rank):
 * "srun: error: NODE: task 3: Out Of Memory", "... tasks 0-7: Killed".
 * The line stays message; only the node and a single task are taken.
 */
static void
lp_srun(struct lp_line *out, const char *s, size_t end, size_t *rank_at)
{
	size_t i = 13, j, k;
	long r;

	if (end < 20 || memcmp(s, "srun: error: ", 13) != 0)
		return;
	for (j = i; j < end && j - i <= 64 && (lp_alpha((unsigned char)s[j]) ||
	    lp_digit((unsigned char)s[j]) || s[j] == '-' || s[j] == '.' ||
	    s[j] == '_'); j++)
		;
	if (j == i || j + 8 > end || memcmp(s + j, ": task", 6) != 0)
		return;
	out->host = s + i;
	out->host_len = j - i;
	k = j + 6;
	if (s[k] != ' ')
		return;
	*rank_at = ++k;
	if ((r = lp_small(s, &k, end)) >= 0 && k < end && s[k] == ':')
		out->rank = (int)r;
}

/*
 * dmesg -H and its deltas: "[Mar12 08:15]", "[  +0.000004]" -- header
 * without a usable time.
 */
static int
lp_anchor_dmesg_human(struct lp_scan *sc)
{
	const char *s = sc->s;
	size_t j = sc->pos, k;

	if (s[j] != '[')
		return -1;
	for (j++; j < sc->end && s[j] == ' '; j++)
		;
	k = j;
	if (k < sc->end && (s[k] == '+' || s[k] == '-')) {
		for (k++; k < sc->end && (lp_digit((unsigned char)s[k]) ||
		    s[k] == '.' || s[k] == ':'); k++)
			;
	} else if (k + 3 < sc->end && lp_month3(s + k) != 0) {
		for (k += 3; k < sc->end && (lp_digit((unsigned char)s[k]) ||
		    s[k] == ' ' || s[k] == ':' || s[k] == ','); k++)
			;
	} else
		return -1;
	if (k >= sc->end || s[k] != ']' || k == j + 1 ||
	    !lp_digit((unsigned char)s[k - 1]))
		return -1;
	sc->pos = k + 1;
	sc->kernel = 1;
	return 0;
}

/* Try each anchor at the cursor; 0 when one matched and was consumed. */
static int
lp_anchor(struct lp_scan *sc, int nweak, int idish)
{
	int c = (unsigned char)sc->s[sc->pos];

	/*
	 * By the first byte: '[' may open a rank, a time, dmesg -H's time
	 * or a level; a digit starts a rank, a time or a host; a letter a
	 * time, a host or a level; '<' only a level.
	 */
	if (c == '[') {
		if (lp_anchor_rank(sc) == 0 || lp_anchor_ts(sc) == 0 ||
		    lp_anchor_dmesg_human(sc) == 0 || lp_anchor_proc_tag(sc) == 0)
			return 0;
	} else if (c == '(')
		return lp_anchor_ray(sc);
	else if (lp_digit(c))
		return lp_anchor_rank(sc) == 0 || lp_anchor_ts(sc) == 0 ||
		    lp_anchor_host(sc) == 0 ? 0 : -1;
	else if (lp_alpha(c)) {
		if (lp_anchor_ts(sc) == 0 || lp_anchor_host(sc) == 0)
			return 0;
	} else if (c != '<')
		return -1;
	if (nweak > 0 && !sc->have_ts && !idish)
		return -1;
	return lp_anchor_level(sc);
}

/*
 * Can byte c be part of a punctuation prefix ("==>>", "***", "#", "-->")?
 * Not the bytes that open a header field of their own ('[', '(', '<',
 * '|') or a quotation.
 */
static int
lp_punct(int c)
{
	return c == '=' || c == '>' || c == '*' || c == '#' || c == '-' ||
	    c == '+' || c == '~' || c == ':' || c == '.' || c == '!' ||
	    c == '/' || c == '@' || c == '$' || c == '%' || c == '^' ||
	    c == '&' || c == '_';
}

/*
 * A short run of punctuation before a time at the start of the line
 * ("==>>[2020-04-19 21:30:46] Stage 1", "*** 2024-05-01 12:00:00 x"):
 * the time, read as an anchor (sc->pos after it); -1, sc->pos at 0,
 * when there is none.
 */
static int
lp_punct_ts(struct lp_scan *sc)
{
	const char *s = sc->s;
	size_t j = 0;

	while (j < sc->end && j < LP_MAXPUNCT && lp_punct((unsigned char)s[j]))
		j++;
	if (j < sc->end && s[j] == ' ')
		j++;
	if (j >= sc->end || lp_punct((unsigned char)s[j]))
		return -1;
	sc->pos = j;
	if (lp_anchor_ts(sc) == 0)
		return 0;
	sc->pos = 0;
	return -1;
}

/* The anchors and the weak fields between them; returns the header end. */
static size_t
lp_anchors(struct lp_scan *sc, int *seen)
{
	size_t msgpos = 0, e;
	int t, nweak = 0, idish = 0;

	*seen = 0;
	if (lp_punct((unsigned char)sc->s[0]) && lp_punct_ts(sc) == 0) {
		msgpos = sc->pos;
		*seen = 1;
	}
	for (t = 0; t < LP_MAXTOK; t++) {
		sc->pos = lp_skipspace(sc, sc->pos);
		if (sc->pos >= sc->end)
			break;
		if (lp_anchor(sc, nweak, idish) == 0) {
			msgpos = sc->pos;
			*seen = 1;
			nweak = idish = 0;
			continue;
		}
		if (nweak >= LP_MAXWEAK || (e = lp_weak(sc, sc->pos, &idish,
		    !*seen && lp_digit((unsigned char)sc->s[0]))) == 0)
			break;
		sc->pos = e;
		nweak++;
	}
	return msgpos;
}

/* HealthApp-style "|field|field|message": the message start, or 0. */
static size_t
lp_pipes(const struct lp_scan *sc, size_t i)
{
	const char *s = sc->s;
	size_t j, last = 0;
	int n;

	for (n = 0; n < 4 && i < sc->end && s[i] == '|'; n++) {
		last = i + 1;
		for (j = i + 1; j < sc->end && s[j] != '|' &&
		    !lp_space((unsigned char)s[j]); j++)
			;
		if (j >= sc->end || s[j] != '|')
			break;
		i = j;
	}
	if (i < sc->end && s[i] == '|')
		last = i + 1;
	return last;
}

/* A tag: "sshd[42]:", "kernel:", "dfs.DataNode$X:" -- its end, or 0. */
static size_t
lp_tag(const struct lp_scan *sc, size_t i)
{
	const char *s = sc->s;
	size_t e = lp_tokend(sc, i), k, n;
	int c;

	/* "sandboxd[129] ([31211]):" -- a tag with a parenthesised extra */
	if (e - i >= 2 && s[e - 1] == ']' && e + 1 < sc->end && s[e] == ' ' &&
	    s[e + 1] == '(' && (n = lp_tokend(sc, e + 1)) - e <= 24 &&
	    n < sc->len && s[n - 1] == ':' && s[n - 2] == ')')
		e = n;
	if (e - i < 2 || e - i > 80 || s[e - 1] != ':' || e >= sc->len ||
	    (!lp_alpha((unsigned char)s[i]) && s[i] != '/'))
		return 0;
	for (k = i; k < e - 1; k++) {
		c = (unsigned char)s[k];
		if (!lp_alpha(c) && !lp_digit(c) && strchr("._-$()[]/@<>#", c)
		    == NULL && !(c == ' ' && s[k + 1] == '('))
			return 0;
	}
	if ((e - i >= 6 && memcmp(s + e - 6, "Error:", 6) == 0) ||
	    (e - i >= 10 && memcmp(s + e - 10, "Exception:", 10) == 0) ||
	    (e - i >= 8 && memcmp(s + e - 8, "Warning:", 8) == 0))
		return 0;
	return e;
}

/* A dotted class or logger name ("nova.compute.manager"): its end, or 0. */
static size_t
lp_dotted(const struct lp_scan *sc, size_t i)
{
	const char *s = sc->s;
	size_t e = lp_tokend(sc, i), k;
	int dots = 0, c;

	if (e - i < 3 || e - i > 100 || e >= sc->len ||
	    !lp_alpha((unsigned char)s[i]) || s[e - 1] == '.')
		return 0;
	for (k = i; k < e; k++) {
		c = (unsigned char)s[k];
		if (c == '.')
			dots++;
		else if (!lp_alpha(c) && !lp_digit(c) && c != '_' && c != '$')
			return 0;
	}
	return dots > 0 ? e : 0;
}

/*
 * A request context in brackets: "[req-1f2e 9a8b - - -]", "[-]" -- blanks
 * allowed, but every word holds a digit or is "-".  Its end, or 0.
 */
static size_t
lp_context(const struct lp_scan *sc, size_t i)
{
	const char *s = sc->s;
	size_t j;
	int digit = 0;

	if (i >= sc->end || s[i] != '[')
		return 0;
	for (j = i + 1; j < sc->end && j - i < 300; j++) {
		if (s[j] == ']')
			return digit || s[j - 1] == '-' ? j + 1 : 0;
		if (s[j] == ' ') {
			if (!digit && s[j - 1] != '-')
				return 0;
			digit = 0;
		} else if (lp_digit((unsigned char)s[j]))
			digit = 1;
		else if (s[j] == '[')
			return 0;
	}
	return 0;
}

/* A dotted class name with or without a colon: its end, or 0. */
static size_t
lp_dotted_tag(const struct lp_scan *sc, size_t i)
{
	size_t e = lp_tokend(sc, i);

	if (e - i > 1 && sc->s[e - 1] == ':' && memchr(sc->s + i, '.', e - i)
	    != NULL && lp_tag(sc, i) == e)
		return e;
	return lp_dotted(sc, i);
}

/* Fields after the last anchor: pids, separators, brackets, glog's file:line]. */
static size_t
lp_tail_field(struct lp_scan *sc, size_t i, int *npid)
{
	const char *s = sc->s;
	size_t e = lp_tokend(sc, i), n, b;

	if ((e - i == 1 && (s[i] == '-' || s[i] == ':' || s[i] == '|')))
		return e;
	if (s[i] == '|')
		return lp_pipes(sc, i);
	if ((b = lp_bracket(sc, i)) != 0 && b == e)
		return e;
	if (s[e - 1] == ']' && memchr(s + i, '[', e - i) == NULL &&
	    memchr(s + i, ':', e - i) != NULL)
		return e;
	if (lp_digit((unsigned char)s[i]) && *npid < 2) {
		for (n = i; n < e && lp_digit((unsigned char)s[n]); n++)
			;
		b = lp_skipspace(sc, e);
		if (n == e && b > e && b < sc->end && !(s[b] >= 'a' &&
		    s[b] <= 'z' && s[lp_tokend(sc, b) - 1] != ']')) {
			(*npid)++;
			return e;
		}
	}
	/* "logger - " before the level (Python logging's default layout) */
	if (sc->out->level == LP_LEVEL_NONE) {
		if (e + 2 < sc->end && s[e] == ' ' && s[e + 1] == '-' &&
		    s[e + 2] == ' ')
			return e + 2;
		n = lp_tokend(sc, lp_skipspace(sc, e));
		if (n + 2 < sc->end && s[n] == ' ' && s[n + 1] == '-' &&
		    s[n + 2] == ' ' && n - e < 16)
			return n + 2;
	}
	if ((b = lp_context(sc, i)) != 0)
		return b;
	return 0;
}

/* A thread name with blanks before a class name: "[IPC Server 5] a.b.C:". */
static size_t
lp_thread_class(const struct lp_scan *sc, size_t i)
{
	const char *s = sc->s;
	size_t j, e;

	if (i >= sc->end || s[i] != '[')
		return 0;
	for (j = i + 1; j < sc->end && j - i < 300 && s[j] != ']'; j++)
		if (s[j] == '[')
			return 0;
	if (j >= sc->end || s[j] != ']')
		return 0;
	j = lp_skipspace(sc, j + 1);
	if (j >= sc->end || (e = lp_dotted_tag(sc, j)) == 0)
		return 0;
	return e;
}

/* A host name with a digit, '-' or '.' (node-017, gpu3, a.b.c) at s[i..j). */
static int
lp_hostname(const struct lp_scan *sc, size_t i, size_t j)
{
	const char *s = sc->s;
	size_t k;
	int mark = 0;

	while (j > i && lp_space((unsigned char)s[j - 1]))
		j--;
	if (j - i < 2 || j - i > 64 || !lp_alpha((unsigned char)s[i]))
		return 0;
	for (k = i; k < j; k++) {
		if (lp_digit((unsigned char)s[k]) || s[k] == '-' || s[k] == '.')
			mark = 1;
		else if (!lp_alpha((unsigned char)s[k]))
			return 0;
	}
	return mark;
}

/*
 * The component before the message: "tag:", "host tag[pid]:" (or any
 * "host tag:" after a syslog time), a dotted class name after a level.
 * Returns its end, or 0.
 */
static size_t
lp_component(struct lp_scan *sc, size_t i)
{
	size_t e, e2, j;

	if ((e = lp_tag(sc, i)) != 0)
		return e;
	j = lp_skipspace(sc, lp_tokend(sc, i));
	if (j > i && j < sc->end && (e2 = lp_tag(sc, j)) != 0 &&
	    (sc->syslog || memchr(sc->s + j, '[', e2 - j) != NULL ||
	    lp_hostname(sc, i, j)) && memchr(sc->s + i, ':', j - i) == NULL)
		return e2;
	if (sc->out->level != LP_LEVEL_NONE && ((e = lp_dotted(sc, i)) != 0 ||
	    (e = lp_thread_class(sc, i)) != 0))
		return e;
	return 0;
}

/* Does the header before s[i] end in NCCL's "NCCL WARN" or "NCCL INFO"? */
static int
lp_nccl_level(const struct lp_scan *sc, size_t i)
{
	const char *s = sc->s;
	size_t k = i, w;

	if (sc->out->level == LP_LEVEL_NONE)
		return 0;
	while (k > 0 && lp_space((unsigned char)s[k - 1]))
		k--;
	for (w = k; w > 0 && lp_alpha((unsigned char)s[w - 1]); w--)
		;
	if (w == k || w == 0 || !lp_space((unsigned char)s[w - 1]))
		return 0;
	while (w > 0 && lp_space((unsigned char)s[w - 1]))
		w--;
	return w >= 4 && memcmp(s + w - 4, "NCCL", 4) == 0 &&
	    (w == 4 || lp_space((unsigned char)s[w - 5]));
}

/* Consume the tail fields and the component; returns the message start. */
static size_t
lp_tail(struct lp_scan *sc, size_t i)
{
	size_t e, e2, j;
	int t, npid = 0;

	for (t = 0; t < LP_MAXTOK; t++) {
		i = lp_skipspace(sc, i);
		if (i >= sc->end)
			return i;
		sc->pos = i;
		if (lp_anchor_rank(sc) == 0 || lp_anchor_level(sc) == 0) {
			i = sc->pos;
			continue;
		}
		if ((e = lp_tail_field(sc, i, &npid)) == 0)
			break;
		i = e;
	}
	/* the kernel ring buffer has no tag field: "NVRM:" is message; nor
	   has NCCL, whose subsystem ("NET/IB:") follows its level */
	if (i >= sc->end || sc->out->ts_kind == LP_TS_UPTIME || sc->kernel ||
	    lp_nccl_level(sc, i) || (e = lp_component(sc, i)) == 0)
		return i;
	/* the kernel's own time after a syslog "kernel:" tag */
	j = lp_skipspace(sc, e);
	if (j < sc->end && sc->s[j] == '[') {
		size_t k = j + 1;

		while (k < sc->end && sc->s[k] == ' ')
			k++;
		while (k < sc->end && (lp_digit((unsigned char)sc->s[k]) ||
		    sc->s[k] == '.'))
			k++;
		if (k < sc->end && sc->s[k] == ']' && k > j + 1 &&
		    lp_digit((unsigned char)sc->s[k - 1]))
			return k + 1;
	}
	/* a request context after the component: "nova.api [req-1 - -] msg" */
	if (j < sc->end && (e2 = lp_context(sc, j)) != 0)
		return e2;
	/* a level after the component: "torch.distributed.run: [WARNING]" */
	sc->pos = j;
	if (j < sc->end && lp_anchor_level(sc) == 0)
		return sc->pos;
	return e;
}

size_t
lp_time_len(const char *s, size_t len)
{
	struct lp_scan sc;
	struct lp_blanks bl;
	struct lp_line out;
	size_t i = 0;

	/* most words name no month and no day: say so before any set-up */
	if (len < 3 || lp_name3(s) == 0)
		return 0;
	memset(&sc, 0, sizeof sc);
	memset(&out, 0, sizeof out);
	sc.s = s;
	sc.len = len;
	sc.end = len < LP_MAXHDR ? len : LP_MAXHDR;
	sc.out = &out;
	bl.made = 0;
	sc.bl = &bl;
	if (lp_ts_monthname(&sc, &i) != 0)
		return 0;
	return i;
}

int
lp_time_name(const char *s, size_t len)
{
	return len >= 3 && lp_name3(s) != 0;
}

/* "INFO:root:message" (Python's basic layout): skip "root:" after "INFO:". */
static size_t
lp_logger(const struct lp_scan *sc, size_t i)
{
	const char *s = sc->s;
	size_t j;

	if (i < 2 || s[i - 1] != ':' || !lp_alpha((unsigned char)s[i - 2]) ||
	    sc->out->level == LP_LEVEL_NONE)
		return i;
	for (j = i; j < sc->end && j - i < 64; j++) {
		if (s[j] == ':')
			return j > i ? j + 1 : i;
		if (!lp_alpha((unsigned char)s[j]) &&
		    !lp_digit((unsigned char)s[j]) && s[j] != '.' &&
		    s[j] != '_' && s[j] != '-')
			return i;
	}
	return i;
}

/*
 * What a terminal would no longer show: everything up to the last carriage
 * return, and a tqdm progress bar glued in front of the line ("45%|####  |
 * 450/1000 [01:23<01:40, 5.47it/s]").  Returns the bytes to skip.
 */
static size_t
lp_overwritten(const char *s, size_t len)
{
	size_t i, end = len < LP_MAXHDR ? len : LP_MAXHDR, k, skip = 0;

	/* the last CR before the last byte, looked for only when there is one */
	k = end < len ? end : len - 1;
	if (memchr(s, '\r', k) != NULL)
		for (i = k; i > 0; i--)
			if (s[i - 1] == '\r') {
				skip = i;
				break;
			}
	i = skip;
	while (i < end && s[i] == ' ')
		i++;
	k = i;
	while (k < end && lp_digit((unsigned char)s[k]))
		k++;
	if (k == i || k + 1 >= end || s[k] != '%' || s[k + 1] != '|')
		return skip;
	/* the bar, then the counts and rates up to the closing bracket */
	for (k += 2; k < end && s[k] != '|'; k++)
		;
	for (; k < end && s[k] != ']'; k++)
		if (s[k] == '[' && k + 1 < end && s[k + 1] == '[')
			return skip;
	if (k >= end || (k >= 2 && !(s[k - 1] == 's' || s[k - 1] == '}')))
		return skip;
	return k + 1;
}

/* A host named after its address with dashes: "10-0-4-11". */
static int
lp_dashed_ip(const char *s, size_t n)
{
	size_t i, digits = 0;
	int parts = 1;

	for (i = 0; i < n; i++) {
		if (lp_digit((unsigned char)s[i]) && ++digits <= 3)
			continue;
		if (s[i] != '-' || digits == 0)
			return 0;
		parts++;
		digits = 0;
	}
	return parts == 4 && digits > 0;
}

/*
 * NCCL's "host:pid:tid [dev]" header: the host belongs to this line (a
 * file may hold the lines of several hosts).
 */
static void
lp_nccl_host(struct lp_scan *sc, size_t hdr_end)
{
	const char *s = sc->s;
	size_t i = 0, k;

	if (sc->out->host != NULL)
		return;
	while (i < hdr_end) {
		i = lp_skipspace(sc, i);
		k = lp_tokend(sc, i);
		if (i >= hdr_end || k > hdr_end)	/* only blanks were left */
			return;
		/* after mpirun's "[1,12]<stdout>:" */
		if (s[i] == '[') {
			const char *t = memchr(s + i, '>', k - i);

			if (t != NULL && t + 1 < s + k && t[1] == ':')
				i = (size_t)(t + 2 - s);
		}
		/* name:digits:digits (a name or a dashed address first) */
		if (i < k && (lp_alpha((unsigned char)s[i]) ||
		    lp_digit((unsigned char)s[i]))) {
			const char *c1 = memchr(s + i, ':', k - i), *c2;

			if (c1 != NULL && c1 > s + i && (lp_alpha(
			    (unsigned char)s[i]) || lp_dashed_ip(s + i,
			    (size_t)(c1 - (s + i)))) && (c2 = memchr(c1 + 1, ':',
			    (size_t)(s + k - c1 - 1))) != NULL &&
			    c2 > c1 + 1 && c2 + 1 < s + k &&
			    lp_digit((unsigned char)c1[1]) &&
			    lp_digit((unsigned char)c2[1])) {
				sc->out->host = s + i;
				sc->out->host_len = (size_t)(c1 - (s + i));
				return;
			}
		}
		if (k == i)
			return;
		i = k;
	}
}

/* Where lp_parse() read a line's fields (offsets after `skip`). */
struct lp_rec {
	size_t skip;		/* what lp_overwritten() dropped */
	size_t rank_at;		/* SIZE_MAX: no rank */
	size_t ts_at, ts_end;	/* SIZE_MAX: no time */
	int ts_vchecks;		/* -1: values were read elsewhere too */
	enum lp_level ts_level;
};

/* lp_parse(), saying in *rec where it read what. */
static void
lp_parse_rec(const char *line, size_t len, struct lp_line *out,
    struct lp_rec *rec)
{
	struct lp_scan sc;
	struct lp_blanks bl;
	size_t start, skip;
	int seen;

	memset(out, 0, sizeof *out);
	out->rank = -1;
	out->msg = line;
	out->msg_len = len;
	skip = lp_overwritten(line, len);
	line += skip;
	len -= skip;
	out->msg = line;
	out->msg_len = len;
	memset(&sc, 0, sizeof sc);
	sc.s = line;
	sc.len = len;
	sc.end = len < LP_MAXHDR ? len : LP_MAXHDR;
	sc.out = out;
	sc.rank_at = sc.ts_at = SIZE_MAX;
	bl.made = 0;
	sc.bl = &bl;
	start = lp_anchors(&sc, &seen);
	if (seen)
		lp_nccl_host(&sc, start);
	if (!seen) {
		lp_srun(out, line, sc.end, &sc.rank_at);
		lp_mpirun(out, line, sc.end, &sc.rank_at);
	} else {
		start = lp_logger(&sc, start);
		start = lp_tail(&sc, start);
		while (start < len && lp_space((unsigned char)line[start]))
			start++;
		out->msg = line + start;
		out->msg_len = len - start;
	}
	rec->skip = skip;
	rec->rank_at = out->rank >= 0 ? sc.rank_at : SIZE_MAX;
	rec->ts_at = sc.have_ts ? sc.ts_at : SIZE_MAX;
	rec->ts_end = sc.ts_end;
	rec->ts_vchecks = sc.ts_vchecks;
	rec->ts_level = sc.ts_level;
}

/* Forget the time lp_end_ts_at() read. */
static void
lp_end_ts_drop(struct lp_scan *sc)
{
	sc->have_ts = 0;
	sc->out->ts_kind = LP_TS_NONE;
	sc->out->ts = 0;
	sc->out->tz_known = 0;
}

/*
 * A date and time with a year or a month name, read from s[k] to the
 * end of the window (sc->end) exactly: 0 and the time in sc->out.
 */
static int
lp_end_ts_at(struct lp_scan *sc, size_t k)
{
	const char *s = sc->s;
	size_t j = k;
	int c = (unsigned char)s[k];

	if (lp_digit(c)) {
		if (k + 4 >= sc->end || !lp_digit((unsigned char)s[k + 3]) ||
		    lp_digit((unsigned char)s[k + 4]) ||
		    memchr(s + k, ':', sc->end - k) == NULL ||
		    lp_ts_ymd(sc, &j) != 0)
			return -1;
	} else if (k + 3 > sc->end || lp_name3(s + k) == 0 ||
	    lp_ts_monthname(sc, &j) != 0)
		return -1;
	if (j == sc->end)
		return 0;
	lp_end_ts_drop(sc);		/* more follows: not the line's end */
	return -1;
}

/*
 * A line without a time in its header may end with one: "loss 19.478
 * [2020-04-19 21:31:52]", "... done 2024-05-01T12:00:00Z".  The last
 * field (or the last few, for a date, time and zone apart) must be a
 * whole date and time -- a year or a month name, and a time: a number,
 * a date alone or a bracketed count at the end are no time.  The line's
 * last byte is looked at first: only ']' or a digit can end a time.
 */
static void
lp_end_ts(const char *s, size_t len, struct lp_line *out)
{
	struct lp_scan sc;
	size_t e = len, lo, k;
	int c = (unsigned char)s[len - 1], fields;

	if (c != ']' && !lp_digit(c)) {
		if (c != ' ' && c != '\r' && c != '\t')
			return;
		while (e > 0 && (s[e - 1] == ' ' || s[e - 1] == '\r' ||
		    s[e - 1] == '\t'))
			e--;
		if (e == 0 || (s[e - 1] != ']' && !lp_digit((unsigned char)
		    s[e - 1])))
			return;
	}
	memset(&sc, 0, sizeof sc);
	sc.s = s;
	sc.len = len;
	sc.out = out;
	sc.end = s[e - 1] == ']' ? e - 1 : e;
	lo = sc.end > LP_ENDTS ? sc.end - LP_ENDTS : 0;
	if (s[e - 1] == ']') {
		for (k = sc.end; k > lo && s[k - 1] != '['; k--)
			;
		if (k == lo || (k >= 2 && !lp_space((unsigned char)s[k - 2])))
			return;
		while (k < sc.end && s[k] == ' ')
			k++;
		if (k < sc.end)
			lp_end_ts_at(&sc, k);
		return;
	}
	/* the start of each of the last fields, the nearest first */
	for (k = sc.end, fields = 0; k > lo && fields < 5; fields++) {
		while (k > lo && !lp_space((unsigned char)s[k - 1]))
			k--;
		if (k > 0 && k == lo)
			return;
		if (lp_end_ts_at(&sc, k) == 0)
			break;
		while (k > lo && lp_space((unsigned char)s[k - 1]))
			k--;
	}
	/* a key's value ("time : 2026-03-14_17:09:07") is the line's data */
	while (k > 0 && lp_space((unsigned char)s[k - 1]))
		k--;
	if (out->ts_kind != LP_TS_NONE && k > 0 && (s[k - 1] == ':' ||
	    s[k - 1] == '='))
		lp_end_ts_drop(&sc);
}

void
lp_parse(const char *line, size_t len, struct lp_line *out)
{
	struct lp_rec rec;

	if (line == NULL || len == 0) {
		memset(out, 0, sizeof *out);
		out->rank = -1;
		out->msg = line;
		return;
	}
	lp_parse_rec(line, len, out, &rec);
	if (out->ts_kind == LP_TS_NONE)
		lp_end_ts(line, len, out);
}

/* ------------------------------------------------------------ memo */

/*
 * A line's header is read from the classes of its bytes, with one
 * exception: a time must be in range (a month from 1 to 12, a minute
 * below 60, epoch seconds between 2000 and 2100).  So two lines that
 * differ only in their digits parse alike -- the same message start,
 * level and host, the rank and time from the same places -- when every
 * value read was the time's own and the other line's time is in range
 * too.  The memo keeps lines with every digit made '0' (the skeleton)
 * and where their fields were; a line whose skeleton it holds has only
 * its time and rank read again.  The key is the skeleton of the bytes
 * that can matter (the header window after what a carriage return or a
 * progress bar hides) and, for a short line, its length.
 */
#define LP_MEMO_SLOTS	4096		/* a power of two */
#define LP_MEMO_BYTES	(512 * 1024)	/* the skeletons */
#define LP_MEMO_KEY	(2 * LP_MAXHDR)	/* bytes of a line that can matter */
#define LP_NONE		UINT32_MAX
/*
 * Lines that are all different (ids of letters and digits in every one)
 * would pay for the memo and never gain: when fewer than one lookup in
 * LP_MEMO_GAIN finds its line's shape, over LP_MEMO_WINDOW lookups, the
 * next LP_MEMO_REST lines are parsed without the memo.
 */
#define LP_MEMO_WINDOW	4096
#define LP_MEMO_GAIN	5
#define LP_MEMO_REST	32768

struct lp_memo_ent {
	uint64_t hash;			/* 0: empty */
	uint32_t key, klen;		/* the skeleton, in the arena */
	uint32_t len;			/* the line's length, 0 past LP_MEMO_KEY */
	uint32_t skip, start;		/* the message at skip + start */
	uint32_t rank_at, ts_at, ts_end;	/* after skip; LP_NONE */
	uint32_t host_at, host_len;	/* after skip; host_len 0: none */
	int ts_vchecks;
	unsigned char level, ts_level;
};

struct lp_memo {
	struct lp_memo_ent *ent;
	size_t nused;
	uint64_t gen;			/* times the memo was emptied */
	unsigned looked, found;		/* lookups in this window, hits */
	unsigned rest;			/* lines left to parse without it */
	char *arena;
	size_t alen;
	char key[LP_MEMO_KEY];
};

struct lp_memo *
lp_memo_new(void)
{
	struct lp_memo *mo = xcalloc(1, sizeof *mo);

	mo->ent = xcalloc(LP_MEMO_SLOTS, sizeof *mo->ent);
	mo->arena = xmalloc(LP_MEMO_BYTES);
	return mo;
}

void
lp_memo_free(struct lp_memo *mo)
{
	if (mo == NULL)
		return;
	free(mo->ent);
	free(mo->arena);
	free(mo);
}

#define LP_K1	0xbf58476d1ce4e5b9ULL
#define LP_K2	0x94d049bb133111ebULL
#define LP_MIX(h, w)	((h) = ((h) ^ ((w) * LP_K1)) * LP_K2, (h) ^= (h) >> 31)

/*
 * The skeleton of s[0..n) into key, and its hash with `len` (never 0);
 * four lanes of eight bytes, so that one lane's multiplications need
 * not wait for another's.
 */
static uint64_t
lp_memo_key(const char *s, size_t n, size_t len, char *key)
{
	uint64_t a = 0x9e3779b97f4a7c15ULL ^ n, b = a + LP_K1, c = a + LP_K2,
	    d = a ^ LP_K1, w;
	size_t k = 0;

#ifdef __SSE2__
	/* sixteen bytes at a time; the last sixteen overlap the ones before */
	for (; n >= 16; k += 16) {
		__m128i x, t, dg;

		if (k + 16 > n)
			k = n - 16;
		x = _mm_loadu_si128((const __m128i *)(s + k));
		t = _mm_sub_epi8(x, _mm_set1_epi8('0'));
		dg = _mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8(9)), t);
		x = _mm_or_si128(_mm_andnot_si128(dg, x),
		    _mm_and_si128(dg, _mm_set1_epi8('0')));
		_mm_storeu_si128((__m128i *)(key + k), x);
		if (k + 16 == n)
			break;
	}
	if (n >= 16)
		k = n;
#endif
	for (; k < n; k++)
		key[k] = lp_digit((unsigned char)s[k]) ? '0' : s[k];
	for (k = 0; k + 32 <= n; k += 32) {
		memcpy(&w, key + k, 8);
		LP_MIX(a, w);
		memcpy(&w, key + k + 8, 8);
		LP_MIX(b, w);
		memcpy(&w, key + k + 16, 8);
		LP_MIX(c, w);
		memcpy(&w, key + k + 24, 8);
		LP_MIX(d, w);
	}
	for (; k + 8 <= n; k += 8) {
		memcpy(&w, key + k, 8);
		LP_MIX(b, w);
	}
	w = 0;
	memcpy(&w, key + k, n - k);
	LP_MIX(c, w);
	a ^= (b << 17 | b >> 47) ^ (c << 31 | c >> 33) ^ (d << 47 | d >> 17);
	LP_MIX(a, (uint64_t)len);
	return a != 0 ? a : 1;
}

/*
 * Read a line the memo knows the shape of: the kept fields, the rank
 * and time read again where they were.  -1 when the time is not read
 * as it was (a value out of range): then the line is parsed in full.
 */
static int
lp_memo_replay(const struct lp_memo_ent *e, const char *line, size_t len,
    struct lp_line *out)
{
	const char *base = line + e->skip;
	size_t blen = len - e->skip, end = blen < LP_MAXHDR ? blen : LP_MAXHDR;
	size_t k = e->rank_at;
	struct lp_scan sc;
	struct lp_blanks bl;
	struct lp_line t;
	long r;

	memset(out, 0, sizeof *out);
	out->msg = base + e->start;
	out->msg_len = blen - e->start;
	out->level = (enum lp_level)e->level;
	out->rank = -1;
	if (e->host_len > 0) {
		out->host = base + e->host_at;
		out->host_len = e->host_len;
	}
	if (e->rank_at != LP_NONE && (r = lp_small(base, &k, end)) >= 0)
		out->rank = (int)r;
	if (e->ts_at == LP_NONE)
		return 0;
	memset(&sc, 0, sizeof sc);
	memset(&t, 0, sizeof t);
	t.rank = -1;
	t.level = (enum lp_level)e->ts_level;
	sc.s = base;
	sc.len = blen;
	sc.end = end;
	sc.out = &t;
	sc.pos = e->ts_at;
	bl.made = 0;
	sc.bl = &bl;
	if (lp_anchor_ts(&sc) != 0 || sc.pos != e->ts_end ||
	    sc.ts_vchecks != e->ts_vchecks)
		return -1;
	out->ts = t.ts;
	out->ts_kind = t.ts_kind;
	out->tz_known = t.tz_known;
	return 0;
}

/*
 * Keep what the parse of the line with skeleton mo->key[0..n) found, at
 * e or (when the memo is emptied for room) where it goes then.
 */
static struct lp_memo_ent *
lp_memo_keep(struct lp_memo *mo, struct lp_memo_ent *e, uint64_t h,
    size_t n, size_t len, const char *line, const struct lp_line *out,
    const struct lp_rec *rec)
{
	const char *base = line + rec->skip;

	if (mo->alen + n > LP_MEMO_BYTES ||
	    (mo->nused + 1) * 4 > LP_MEMO_SLOTS * 3) {
		memset(mo->ent, 0, LP_MEMO_SLOTS * sizeof *mo->ent);
		mo->nused = 0;
		mo->alen = 0;
		mo->gen++;
		e = &mo->ent[h & (LP_MEMO_SLOTS - 1)];	/* all free now */
	}
	e->hash = h;
	e->key = (uint32_t)mo->alen;
	e->klen = (uint32_t)n;
	e->len = len <= LP_MEMO_KEY ? (uint32_t)len : 0;
	memcpy(mo->arena + mo->alen, mo->key, n);
	mo->alen += n;
	e->skip = (uint32_t)rec->skip;
	e->start = (uint32_t)(out->msg - base);
	e->rank_at = rec->rank_at == SIZE_MAX ? LP_NONE :
	    (uint32_t)rec->rank_at;
	e->ts_at = rec->ts_at == SIZE_MAX ? LP_NONE : (uint32_t)rec->ts_at;
	e->ts_end = (uint32_t)rec->ts_end;
	e->host_at = out->host != NULL ? (uint32_t)(out->host - base) : 0;
	e->host_len = out->host != NULL ? (uint32_t)out->host_len : 0;
	e->ts_vchecks = rec->ts_vchecks;
	e->level = (unsigned char)out->level;
	e->ts_level = (unsigned char)rec->ts_level;
	mo->nused++;
	return e;
}

/* The shape of entry e: its slot and the memo's generation (not 0). */
static uint64_t
lp_memo_shape(const struct lp_memo *mo, const struct lp_memo_ent *e,
    size_t len)
{
	if (len > LP_MEMO_KEY)
		return 0;	/* the skeleton is of its head only */
	return (mo->gen * LP_MEMO_SLOTS + (size_t)(e - mo->ent)) + 1;
}

uint64_t
lp_memo_parse(struct lp_memo *mo, const char *line, size_t len,
    struct lp_line *out)
{
	struct lp_memo_ent *e;
	struct lp_rec rec;
	size_t n = len < LP_MEMO_KEY ? len : LP_MEMO_KEY, j;
	uint64_t h;

	if (line == NULL || len == 0 || mo->rest > 0) {
		mo->rest -= mo->rest > 0 && len > 0;
		lp_parse(line, len, out);
		return 0;
	}
	if (++mo->looked == LP_MEMO_WINDOW) {
		if (mo->found * LP_MEMO_GAIN < mo->looked)
			mo->rest = LP_MEMO_REST;
		mo->looked = mo->found = 0;
	}
	h = lp_memo_key(line, n, len <= LP_MEMO_KEY ? len : 0, mo->key);
	for (j = h & (LP_MEMO_SLOTS - 1);; j = (j + 1) & (LP_MEMO_SLOTS - 1)) {
		e = &mo->ent[j];
		if (e->hash == 0)
			break;
		if (e->hash == h && e->klen == n && e->len == (len <=
		    LP_MEMO_KEY ? len : 0) && memcmp(mo->arena + e->key,
		    mo->key, n) == 0) {
			mo->found++;
			if (lp_memo_replay(e, line, len, out) != 0) {
				lp_parse(line, len, out);
				return 0;
			}
			if (out->ts_kind == LP_TS_NONE)
				lp_end_ts(line, len, out);
			return lp_memo_shape(mo, e, len);
		}
	}
	lp_parse_rec(line, len, out, &rec);
	if (rec.ts_vchecks >= 0)
		e = lp_memo_keep(mo, e, h, n, len, line, out, &rec);
	if (out->ts_kind == LP_TS_NONE)
		lp_end_ts(line, len, out);
	return rec.ts_vchecks >= 0 ? lp_memo_shape(mo, e, len) : 0;
}
