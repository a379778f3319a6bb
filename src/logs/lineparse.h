/*
 * lineparse.h -- split one raw log line into header fields and message.
 *
 * Recognised headers (anywhere a training job's logs put them):
 *   rank prefixes      "3: ", "[default3]:", "[rank3]:", "[Rank 3] ",
 *                      mpirun --tag-output "[1,3]<stderr>:"
 *   host prefixes      "10.0.0.3: ", "node-7: " at the start (pdsh and the
 *                      launchers built on it), NCCL's "host:pid:tid"
 *   process tags       at the start: Ray's "(Actor pid=42, ip=10.0.0.3) ",
 *                      "(raylet) " (the address is the host), Open MPI's
 *                      and PMIx's "[host:pid] ", UCX's "[host:pid:n:tid] "
 *   progress bars      a tqdm bar glued in front ("45%|###  | 9/20 [..]"),
 *                      and anything before the last carriage return
 *   timestamps         ISO 8601 with or without zone ("2024-05-01T12:00:00.123Z",
 *                      "2024-05-01 12:00:00+02:00"), "YYYY-MM-DD HH:MM:SS,mmm",
 *                      syslog "Mon DD HH:MM:SS" (no year), glog
 *                      "I0501 12:00:00.123456", epoch seconds, dmesg
 *                      "[ 1234.567890]" (seconds since boot; also after a
 *                      syslog "kernel:" tag), dmesg -H's "[Mar12 08:15]" and
 *                      its deltas "[  +0.000004]" (read, no time), and the
 *                      header layouts of common system logs; after a
 *                      few bytes of punctuation ("==>>[2020-04-19 ...]");
 *                      and, on a line whose header has none, a date and
 *                      time that ends it ("loss 1.2  [2020-04-19 21:31:52]",
 *                      left in the message; not a key's "time: ...")
 *   level              INFO, WARN(ING), ERROR, FATAL, DEBUG, CRITICAL, glog I/W/E/F
 *
 * lp_parse() never allocates and never fails: a line it cannot read a
 * header from is all message.  Everything returned points into the input.
 */
#ifndef TS_LINEPARSE_H
#define TS_LINEPARSE_H

#include <stddef.h>
#include <stdint.h>

enum lp_ts_kind {
	LP_TS_NONE = 0,		/* no timestamp: order is line order */
	LP_TS_EPOCH,		/* ts is seconds since 1970-01-01 UTC */
	LP_TS_NOYEAR,		/* ts is epoch seconds in year 1970: month/day/time only */
	LP_TS_UPTIME		/* ts is seconds since boot (dmesg) */
};

enum lp_level {
	LP_LEVEL_NONE = 0,
	LP_LEVEL_DEBUG,
	LP_LEVEL_INFO,
	LP_LEVEL_WARN,
	LP_LEVEL_ERROR,
	LP_LEVEL_FATAL
};

struct lp_line {
	const char *msg;	/* the message body, header removed */
	size_t msg_len;
	double ts;		/* see ts_kind */
	enum lp_ts_kind ts_kind;
	int tz_known;		/* the timestamp carried a zone */
	enum lp_level level;
	int rank;		/* from a rank prefix, or -1 */
	const char *host;	/* from a host prefix, or NULL */
	size_t host_len;
};

/* Parse `len` bytes of `line` (no newline; may hold any bytes). */
void lp_parse(const char *line, size_t len, struct lp_line *out);
/*
 * A memo of parsed lines for one thread: lp_memo_parse() gives what
 * lp_parse() gives, and reads only the time and rank of a line that
 * differs from one parsed before only in its digits.  It returns the
 * line's shape: not 0 when the memo keeps the line's skeleton (the line
 * with every digit made '0'), and then the same for every line of that
 * skeleton and length from this memo; 0 for a line it does not keep.
 * Holds about 750 KiB.  lp_memo_free() accepts NULL.
 */
struct lp_memo;
struct lp_memo *lp_memo_new(void);
void lp_memo_free(struct lp_memo *mo);
uint64_t lp_memo_parse(struct lp_memo *mo, const char *line, size_t len,
    struct lp_line *out);

/*
 * The length of a date written with a month name ("Jul 10 03:55:15",
 * "Sun Jul 10 03:55:15 2005") at the start of s[0..len), or 0 -- for
 * masking dates inside messages.
 */
size_t lp_time_len(const char *s, size_t len);
/*
 * Do the first three bytes of s[0..len) name a month or a day of the week
 * (any case)?  Without that lp_time_len() is 0.
 */
int lp_time_name(const char *s, size_t len);
/* "ERROR", "WARN", ... or "" for LP_LEVEL_NONE. */
const char *lp_level_name(enum lp_level level);

#endif
