/*
 * scan.c -- finding a job's logs and naming their node and rank.
 *
 * A directory is walked recursively (hidden entries are skipped, symbolic
 * links to directories are not followed, so there are no cycles); every
 * regular file is a candidate, sorted by its path relative to the root so
 * the order, and with it the template ids, do not depend on readdir().
 * Each candidate then goes through the evidence in scan.h: the --map
 * rules, the path, the first 8 KiB of content, and the hostfile.  The
 * work per file is constant, so 20 000 files cost 20 000 small reads;
 * they are shared among scan_opts.threads threads (sniff_all()), and what
 * they found is then taken, and said, in the files' order.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flows/flowasm.h"
#include "logs/lineparse.h"
#include "logs/logtext.h"
#include "logs/reader.h"
#include "logs/scan.h"
#include "base/util.h"

#define SNIFF_BYTES	8192
#define SNIFF_THREADS	63	/* besides the calling thread */
#define SNIFF_SHARE	16	/* files a thread is worth starting for */

/* Reasons a text file is no log that --log would not change. */
static const char why_hostfile[] = "a hostfile (diagnose reads it by name)";
static const char why_flows[] =
    "flow records or a capture tool's report (for 'flows')";

/* Extensions that are never logs (after an optional .gz). */
static const char *const skip_ext[] = {
	"pcap", "pcapng", "cap", "csv", "tsv", "json", "parquet", "npy",
	"npz", "pt", "pth", "bin", "safetensors", "ckpt", "png", "jpg",
	"pdf", "zip", "tar", "tgz", "xz", "zst", "bz2", "so", "o", "db",
	"sqlite", "pyc", "h5"
};

struct map_rule {
	char *glob;
	char *node;
	int rank;
	int kind;
};

struct walk {
	struct scan_job *job;
	size_t cap;
	const struct scan_opts *o;
	const struct attrib *a;
};

struct attrib {
	struct map_rule *rules;
	size_t nrules;
	char **hosts;
	size_t nhosts;
	char **logs;		/* --log files, real paths */
	unsigned char *found;	/* which of them a job holds */
	size_t nlogs;
	double t0;		/* wall clock when the scan began */
};

/* Is the file at path one of the --log files?  Marks it found. */
static int
forced(const struct attrib *a, const char *path)
{
	char *real;
	size_t i;

	if (a == NULL || a->nlogs == 0 || (real = realpath(path, NULL)) == NULL)
		return 0;
	for (i = 0; i < a->nlogs && strcmp(a->logs[i], real) != 0; i++)
		;
	free(real);
	if (i == a->nlogs)
		return 0;
	a->found[i] = 1;
	return 1;
}


static void
warnf(const struct scan_opts *o, const char *fmt, ...) TS_PRINTF(2, 3);

static void
warnf(const struct scan_opts *o, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	if (o->warn != NULL)
		o->warn(o->arg, msg);
	free(msg);
}

/* ------------------------------------------------------------ the path */

/* Does `s` (n bytes) look like a host name: letters, ends in a digit? */
static int
hostlike(const char *s, size_t n)
{
	static const char *const not_hosts[] = {
		"attempt", "rank", "run", "job", "exp", "step", "iter", "epoch",
		"v", "try", "retry", "part", "log", "stdout", "stderr", "out"
	};
	size_t i, alpha = 0, plen;

	if (n == 0 || n > 64 || !isdigit((unsigned char)s[n - 1]))
		return 0;
	for (i = 0; i < n; i++) {
		if (isalpha((unsigned char)s[i]))
			alpha++;
		else if (!isdigit((unsigned char)s[i]) && strchr("-_.", s[i])
		    == NULL)
			return 0;
	}
	if (alpha == 0 || !isalpha((unsigned char)s[0]))
		return 0;
	for (i = 0; i < TS_NELEM(not_hosts); i++) {
		plen = strlen(not_hosts[i]);
		if (n > plen && strncasecmp(s, not_hosts[i], plen) == 0 &&
		    !isalpha((unsigned char)s[plen]))
			return 0;
	}
	return 1;
}

/* A whole number of up to 7 digits, or -1. */
static int
number(const char *s, size_t n)
{
	int v = 0;
	size_t i;

	if (n == 0 || n > 7)
		return -1;
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/*
 * Find "rank[-_]N" in s[0..n); return N and the span it covers in
 * [*b, *e), or -1.
 */
static int
find_rank(const char *s, size_t n, size_t *b, size_t *e)
{
	size_t i, j, k;

	for (i = 0; i + 4 < n; i++) {
		if (strncasecmp(s + i, "rank", 4) != 0 ||
		    (i > 0 && isalpha((unsigned char)s[i - 1])))
			continue;
		j = i + 4;
		if (j < n && (s[j] == '-' || s[j] == '_' || s[j] == '.'))
			j++;
		for (k = j; k < n && isdigit((unsigned char)s[k]); k++)
			;
		if (k == j || (k < n && isalnum((unsigned char)s[k])))
			continue;
		*b = i;
		*e = k;
		return number(s + j, k - j);
	}
	return -1;
}

static int
host_word(const char *stem, size_t n, size_t *b, size_t *e)
{
	static const char *const words[] = {
		"dmesg", "syslog", "messages", "kern", "kernel", "journal"
	};
	size_t i, j, w;

	for (i = 0; i < TS_NELEM(words); i++) {
		w = strlen(words[i]);
		for (j = 0; j + w <= n; j++) {
			if (strncasecmp(stem + j, words[i], w) != 0 ||
			    (j > 0 && isalnum((unsigned char)stem[j - 1])) ||
			    (j + w < n && isalpha((unsigned char)stem[j + w])))
				continue;
			*b = j;
			*e = j + w;
			while (*e < n && (isalnum((unsigned char)stem[*e]) ||
			    stem[*e] == '.'))
				(*e)++;	/* kern.log, syslog.1 */
			return 1;
		}
	}
	return 0;
}

/* The file name without .gz and one short extension. */
static size_t
stem_len(const char *name)
{
	size_t n = strlen(name), i;

	if (n > 3 && strcmp(name + n - 3, ".gz") == 0)
		n -= 3;
	for (i = n; i > 0 && n - i <= 5; i--) {
		if (name[i - 1] == '.') {
			if (i > 1 && !isdigit((unsigned char)name[i]))
				return i - 1;
			break;
		}
	}
	return n;
}

/* Remove s[b..e) and separators around it; the rest, when host-like. */
static char *
rest_host(const char *s, size_t n, size_t b, size_t e)
{
	char tmp[128];
	size_t l = 0, i;

	for (i = 0; i < n && l + 1 < sizeof tmp; i++) {
		if (i >= b && i < e)
			continue;
		tmp[l++] = s[i];
	}
	while (l > 0 && strchr("-_.", tmp[l - 1]) != NULL)
		l--;
	i = 0;
	while (i < l && strchr("-_.", tmp[i]) != NULL)
		i++;
	if (hostlike(tmp + i, l - i))
		return xstrndup(tmp + i, l - i);
	return NULL;
}

static void
stem_info(const char *name, char **node, int *rank, int *kind)
{
	size_t n = stem_len(name), b, e;
	int r;

	if (host_word(name, n, &b, &e)) {
		*kind = SCAN_HOST;
		if (*node == NULL)
			*node = rest_host(name, n, b, e);
		return;
	}
	if ((r = find_rank(name, n, &b, &e)) >= 0) {
		*rank = r;
		if (*node == NULL)
			*node = rest_host(name, n, b, e);
		return;
	}
	if ((r = number(name, n)) >= 0)
		*rank = r;
	else if (*node == NULL && hostlike(name, n))
		*node = xstrndup(name, n);
}

void
scan_path_info(const char *rel, char **node, int *rank, int *kind)
{
	const char *c = rel, *slash;
	size_t n, b, e;
	int r;

	*node = NULL;
	*rank = -1;
	*kind = SCAN_LOG;
	while ((slash = strchr(c, '/')) != NULL) {
		n = (size_t)(slash - c);
		if ((r = find_rank(c, n, &b, &e)) >= 0 && b == 0 && e == n)
			*rank = r;
		else if ((r = number(c, n)) >= 0)
			*rank = r;
		else if (hostlike(c, n)) {
			free(*node);
			*node = xstrndup(c, n);
		}
		c = slash + 1;
	}
	stem_info(c, node, rank, kind);
}

/* --------------------------------------------------------- the content */

/* A host name from a log line: 1-64 visible bytes; allocated or NULL. */
static char *
host_name(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > 64)
		return NULL;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == 127)
			return NULL;
	return xstrndup(s, n);
}

/*
 * "host:pid:tid [d] NCCL INFO": the host, as the line's header names it
 * (after a timestamp too: a timestamp is no host).  A line of a rank
 * prefix gives none: such files are split by rank.
 */
static char *
nccl_host(const char *line, size_t n)
{
	struct lp_line lp;

	if (memmem(line, n, " NCCL ", 6) == NULL)
		return NULL;
	lp_parse(line, n, &lp);
	return lp.host != NULL && lp.rank < 0 ? host_name(lp.host,
	    lp.host_len) : NULL;
}

/* NCCL "rank N nranks M" (any case of nRanks). */
static int
nccl_rank(const char *line, size_t n)
{
	const char *p = line, *end = line + n, *q;
	int r;

	while ((p = memmem(p, (size_t)(end - p), "rank ", 5)) != NULL) {
		p += 5;
		for (q = p; q < end && isdigit((unsigned char)*q); q++)
			;
		if (q > p && end - q > 8 &&
		    strncasecmp(q, " nranks ", 8) == 0 &&
		    (r = number(p, (size_t)(q - p))) >= 0)
			return r;
	}
	return -1;
}

/* Syslog "Mon DD HH:MM:SS host prog": the host. */
static char *
syslog_host(const char *line, size_t n)
{
	const char *p, *q, *end = line + n;

	if (n < 20 || line[3] != ' ' || line[9] != ':' || line[12] != ':' ||
	    !isupper((unsigned char)line[0]))
		return NULL;
	p = line + 16;
	for (q = p; q < end && *q != ' '; q++)
		;
	if (q == end)
		return NULL;
	return host_name(p, (size_t)(q - p));
}

static int
dmesg_line(const char *line, size_t n)
{
	size_t i = 1;

	if (n < 4 || line[0] != '[')
		return 0;
	while (i < n && line[i] == ' ')
		i++;
	while (i < n && isdigit((unsigned char)line[i]))
		i++;
	return i < n && line[i] == '.';
}

static void
sniff_line(struct scan_file *f, const char *s, size_t n, int first)
{
	struct lp_line lp;
	char *h = NULL;
	int r;

	if (first && (dmesg_line(s, n) || (n > 9 &&
	    memcmp(s, "__CURSOR=", 9) == 0)))
		f->kind = SCAN_HOST;
	if (n > 10 && memcmp(s, "_HOSTNAME=", 10) == 0) {
		f->kind = SCAN_HOST;
		h = host_name(s + 10, n - 10);
	} else if (first && (h = syslog_host(s, n)) != NULL)
		f->kind = SCAN_HOST;
	else if ((h = nccl_host(s, n)) != NULL && f->rank < 0 &&
	    (r = nccl_rank(s, n)) >= 0)
		f->rank = r;
	/* a line with a rank prefix is one of several ranks: split by rank */
	if (h == NULL) {
		lp_parse(s, n, &lp);
		if (lp.host != NULL && lp.rank < 0)
			h = host_name(lp.host, lp.host_len);
	}
	if (h == NULL)
		return;
	/* one host is the file's; the lines of several are split by host */
	if (f->line_host == NULL)
		f->line_host = h;
	else {
		if (strcmp(f->line_host, h) != 0)
			f->multi_host = 1;
		free(h);
	}
}

/* Length of a valid UTF-8 sequence at s (n bytes left), or 0. */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

/*
 * Binary: more than a fifth of the bytes are control bytes (other than
 * tab, CR, LF, ESC, form feed) or not valid UTF-8.
 */
static int
binary(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, bad = 0, len;

	while (i < n) {
		if (p[i] >= 0x80) {
			if ((len = utf8_len(p + i, n - i)) == 0) {
				bad++;
				len = 1;
			}
			i += len;
			continue;
		}
		if ((p[i] < 32 && strchr("\t\r\n\033\f", p[i]) == NULL) ||
		    p[i] == 127 || p[i] == 0)
			bad++;
		i++;
	}
	return n > 0 && bad * 5 > n;
}

/*
 * A capture tool's statistics report (tshark -z conv, endpoints, ...):
 * a rule of '=' first, and "Filter:" on one of the next three lines.
 * A table about packets, not lines a process logged.
 */
static int
tool_report(const char *s, size_t n)
{
	const char *nl, *p;
	size_t k, i;

	if (n == 0)
		return 0;
	nl = memchr(s, '\n', n);
	if (nl == NULL || nl - s < 20)
		return 0;
	for (k = 0; s + k < nl && s[k] == '='; k++)
		;
	if (s + k != nl)
		return 0;
	for (i = 0, p = nl + 1; i < 3 && p < s + n; i++) {
		if ((size_t)(s + n - p) > 7 && memcmp(p, "Filter:", 7) == 0)
			return 1;
		if ((nl = memchr(p, '\n', (size_t)(s + n - p))) == NULL)
			break;
		p = nl + 1;
	}
	return 0;
}

/*
 * The lines of the last SNIFF_BYTES of a plain file larger than that (the
 * first, cut one left out) into *lt: a log's banner of settings can fill
 * its head, its tail has what the processes did.
 */
static void
sniff_tail(const char *path, uint64_t size, struct logtext *lt)
{
	char *buf, *p, *end, *nl;
	FILE *fp;
	size_t n;

	if (size <= SNIFF_BYTES || (fp = fopen(path, "rb")) == NULL)
		return;
	buf = xmalloc(SNIFF_BYTES);
	if (fseeko(fp, (off_t)(size < 2 * SNIFF_BYTES ? SNIFF_BYTES :
	    size - SNIFF_BYTES), SEEK_SET) == 0 &&
	    (n = fread(buf, 1, SNIFF_BYTES, fp)) > 0) {
		end = buf + n;
		p = memchr(buf, '\n', n);
		for (p = p != NULL ? p + 1 : end; p < end; p = nl + 1) {
			if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
				nl = end;
			logtext_line(lt, p, (size_t)(nl - p));
		}
	}
	free(buf);
	fclose(fp);
}

/* The base name of a relative path, and its length without extensions. */
static const char *
base_of(const char *rel, size_t *stem)
{
	const char *b = strrchr(rel, '/'), *dot;

	b = b != NULL ? b + 1 : rel;
	dot = strchr(b, '.');
	*stem = dot != NULL ? (size_t)(dot - b) : strlen(b);
	return b;
}

/*
 * Named like a process's output: *.log, *.out, *.err (before a .gz),
 * stdout, stderr, console, output, or a stem that is or ends in "log"
 * ("log.txt", "train_log.txt").  Such a file is a log whatever it holds:
 * a rank that printed little is still a rank.
 */
static int
log_name(const char *rel)
{
	static const char *const ext[] = { ".log", ".out", ".err" };
	static const char *const stems[] = {
		"stdout", "stderr", "console", "output", "log"
	};
	size_t stem, n, k, e;
	const char *b = base_of(rel, &stem);

	n = strlen(b);
	if (n > 3 && strcmp(b + n - 3, ".gz") == 0)
		n -= 3;
	for (k = 0; k < TS_NELEM(ext); k++)
		if (n > (e = strlen(ext[k])) && strncasecmp(b + n - e, ext[k],
		    e) == 0)
			return 1;
	for (k = 0; k < TS_NELEM(stems); k++) {
		e = strlen(stems[k]);
		if (stem >= e && strncasecmp(b + stem - e, stems[k], e) == 0 &&
		    (stem == e || !isalnum((unsigned char)b[stem - e - 1])))
			return 1;
	}
	return 0;
}

/* A hostfile or hosts file, which diagnose and flows read by name. */
static int
hostfile_name(const char *rel)
{
	size_t stem;
	const char *b = base_of(rel, &stem);

	return strcmp(b, "hostfile") == 0 || strcmp(b, "hosts") == 0;
}

int
scan_sniff(struct scan_file *f, char **cause)
{
	struct reader *r;
	struct reader_line l;
	struct buf head = BUF_INIT;
	struct logtext lt;
	char *ignored = NULL;
	int first = 1;

	if (reader_open(f->path, 0, 0, &r, cause) != 0)
		return -1;
	reader_limit(r, SNIFF_BYTES);
	f->gz = reader_is_gzip(r);
	f->why = NULL;
	logtext_init(&lt);
	while (head.len < SNIFF_BYTES && reader_next(r, &l, &ignored) == 1) {
		buf_add(&head, l.s, l.len > 512 ? 512 : l.len);
		buf_addc(&head, '\n');
		sniff_line(f, l.s, l.len, first);
		logtext_line(&lt, l.s, l.len > 4096 ? 4096 : l.len);
		first = 0;
	}
	free(ignored);
	reader_close(r);
	if (f->node == NULL && !f->multi_host)
		f->node = f->line_host;
	else
		free(f->line_host);
	f->line_host = NULL;
	if ((first = binary(head.s, head.len)) != 0)
		f->why = "not a text log";
	else if (tool_report(head.s, head.len) || flow_probe(f->path) != NULL)
		f->why = why_flows;
	else if (hostfile_name(f->rel != NULL ? f->rel : f->path))
		f->why = why_hostfile;
	else if (f->kind != SCAN_HOST && f->rank < 0 &&
	    !log_name(f->rel != NULL ? f->rel : f->path)) {
		if (!f->gz)
			sniff_tail(f->path, f->size, &lt);
		f->why = logtext_not_log(&lt);
	}
	if (first == 0 && f->why != NULL)
		first = 2;	/* text, but no log */
	buf_release(&head);
	return first;
}

/* ---------------------------------------------------------- hostfiles */

static int
add_range(char ***nodes, size_t *n, long a, long b, const char *host)
{
	size_t cap = *n;
	long i;

	if (a < 0 || b < a || b > 1000000)
		return -1;
	if ((size_t)b + 1 > *n) {
		*nodes = xreallocarray(*nodes, (size_t)b + 1, sizeof **nodes);
		for (; cap < (size_t)b + 1; cap++)
			(*nodes)[cap] = NULL;
		*n = (size_t)b + 1;
	}
	for (i = a; i <= b; i++) {
		free((*nodes)[i]);
		(*nodes)[i] = xstrdup(host);
	}
	return 0;
}

/* "0-7,12": add each range; -1 on a bad list. */
static int
add_list(char ***nodes, size_t *n, char *list, const char *host)
{
	char *tok, *save = NULL, *dash;
	long a, b;

	for (tok = strtok_r(list, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		if ((dash = strchr(tok, '-')) != NULL)
			*dash++ = '\0';
		if (ts_parse_long(tok, &a) != 0 ||
		    (dash != NULL && ts_parse_long(dash, &b) != 0))
			return -1;
		if (add_range(nodes, n, a, dash != NULL ? b : a, host) != 0)
			return -1;
	}
	return 0;
}

static int
hostfile_line(char *line, char ***nodes, size_t *n, long *next)
{
	char *host, *spec, *save = NULL;
	long slots = 1;

	if ((host = strtok_r(line, " \t\r\n", &save)) == NULL || *host == '#')
		return 0;
	spec = strtok_r(NULL, " \t\r\n", &save);
	if (spec != NULL && strncmp(spec, "slots=", 6) == 0) {
		if (ts_parse_long(spec + 6, &slots) != 0 || slots < 1)
			return -1;
	} else if (spec != NULL && *spec != '#')
		return add_list(nodes, n, spec, host);
	if (add_range(nodes, n, *next, *next + slots - 1, host) != 0)
		return -1;
	*next += slots;
	return 0;
}

/*
 * Read line `lineno` of a small text file (a hostfile, a --map) into
 * line[size].  Returns 1, 0 at the end, or -1 with *cause for a line
 * that is too long, a NUL byte (/dev/zero, a binary file) or a read
 * error (a directory): such a file is refused, not read on and on.
 */
static int
conf_line(FILE *f, const char *path, long lineno, char *line, size_t size,
    char **cause)
{
	size_t len = 0;
	int ch = 0;

	while (len + 1 < size && (ch = getc(f)) != EOF) {
		if (ch == '\0')
			return ts_fail(cause, "%s:%ld: NUL byte (not a text "
			    "file?)", path, lineno);
		line[len++] = (char)ch;
		if (ch == '\n')
			break;
	}
	line[len] = '\0';
	if (len + 1 == size && ch != '\n' && (ch = getc(f)) != EOF &&
	    ch != '\n')
		return ts_fail(cause, "%s:%ld: a line of more than %zu bytes",
		    path, lineno, size - 2);
	if (len == 0 && ferror(f))
		return ts_fail(cause, "cannot read '%s': %s", path,
		    strerror(errno));
	return len > 0;
}

int
scan_read_hostfile(const char *path, char ***nodes, size_t *n, char **cause)
{
	char line[1024];
	long next = 0, lineno = 0;
	FILE *f;
	int rc = 0, got;

	*nodes = NULL;
	*n = 0;
	if ((f = fopen(path, "r")) == NULL)
		return ts_fail(cause, "cannot open '%s': %s", path,
		    strerror(errno));
	while (rc == 0 && (got = conf_line(f, path, ++lineno, line,
	    sizeof line, cause)) != 0) {
		if (got < 0)
			rc = -1;
		else if (hostfile_line(line, nodes, n, &next) != 0)
			rc = ts_fail(cause, "%s:%ld: expected 'HOST slots=N' or "
			    "'HOST RANKS'", path, lineno);
	}
	fclose(f);
	if (rc != 0)
		scan_free_hosts(*nodes, *n);
	return rc;
}

void
scan_free_hosts(char **nodes, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(nodes[i]);
	free(nodes);
}

/* ------------------------------------------------------------ --map */

static int
map_line(char *line, struct map_rule *m)
{
	char *w[4], *save = NULL;
	int n = 0;
	long r;

	memset(m, 0, sizeof *m);
	m->rank = -1;
	for (n = 0; n < 4; n++)
		if ((w[n] = strtok_r(n == 0 ? line : NULL, " \t\r\n",
		    &save)) == NULL || *w[n] == '#')
			break;
	if (n == 0)
		return 0;
	if (n < 2 || (n > 2 && strcmp(w[2], "-") != 0 &&
	    (ts_parse_long(w[2], &r) != 0 || r < 0 || r > INT_MAX)))
		return -1;
	if (n > 3 && strcmp(w[3], "log") != 0 && strcmp(w[3], "host") != 0)
		return -1;
	m->glob = xstrdup(w[0]);
	m->node = strcmp(w[1], "-") == 0 ? NULL : xstrdup(w[1]);
	m->rank = (n > 2 && strcmp(w[2], "-") != 0) ? (int)r : -1;
	m->kind = (n > 3 && strcmp(w[3], "host") == 0) ? SCAN_HOST : -1;
	return 1;
}

static int
read_map(const char *path, struct map_rule **rules, size_t *n, char **cause)
{
	char line[4096];
	struct map_rule m;
	size_t cap = 0;
	long lineno = 0;
	FILE *f;
	int rc = 0, got;

	*rules = NULL;
	*n = 0;
	if ((f = fopen(path, "r")) == NULL)
		return ts_fail(cause, "cannot open '%s': %s", path,
		    strerror(errno));
	while (rc == 0 && (got = conf_line(f, path, ++lineno, line,
	    sizeof line, cause)) != 0) {
		if (got < 0)
			rc = -1;
		else if ((got = map_line(line, &m)) < 0)
			rc = ts_fail(cause, "%s:%ld: expected 'GLOB NODE [RANK "
			    "[log|host]]'", path, lineno);
		else if (got > 0) {
			*rules = xgrow(*rules, &cap, *n + 1, sizeof **rules);
			(*rules)[(*n)++] = m;
		}
	}
	fclose(f);
	return rc;
}

static void
free_map(struct map_rule *rules, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(rules[i].glob);
		free(rules[i].node);
	}
	free(rules);
}

/* ------------------------------------------------------------ walking */

static int
skipped_ext(const char *name)
{
	size_t n = strlen(name), i;
	const char *dot;
	char ext[16];

	if (n > 3 && strcmp(name + n - 3, ".gz") == 0)
		n -= 3;
	for (dot = name + n; dot > name && dot[-1] != '.'; dot--)
		;
	if (dot == name || (size_t)(name + n - dot) >= sizeof ext ||
	    strstr(name, "journal") != NULL)
		return 0;	/* journalctl -o json exports are host logs */
	memcpy(ext, dot, (size_t)(name + n - dot));
	ext[name + n - dot] = '\0';
	for (i = 0; i < TS_NELEM(skip_ext); i++)
		if (strcasecmp(ext, skip_ext[i]) == 0)
			return 1;
	return 0;
}

/* A JSON document by its name (data and settings, no log). */
static int
json_name(const char *name)
{
	size_t n = strlen(name);

	return n > 5 && strcasecmp(name + n - 5, ".json") == 0 &&
	    strstr(name, "journal") == NULL;
}

static void
add_file(struct walk *w, const char *path, const char *rel,
    const struct stat *sb)
{
	struct scan_job *j = w->job;
	struct scan_file *f;

	j->files = xgrow(j->files, &w->cap, j->nfiles + 1, sizeof *j->files);
	f = &j->files[j->nfiles++];
	memset(f, 0, sizeof *f);
	f->path = xstrdup(path);
	f->rel = xstrdup(rel);
	f->rank = -1;
	f->size = (uint64_t)sb->st_size;
	f->mtime = (double)sb->st_mtim.tv_sec + sb->st_mtim.tv_nsec / 1e9;
	f->ctime = (double)sb->st_ctim.tv_sec + sb->st_ctim.tv_nsec / 1e9;
	f->inode = (uint64_t)sb->st_ino;
	f->found_kind = -1;
}

static void
walk_dir(struct walk *w, const char *dir, const char *rel)
{
	struct dirent *de;
	struct stat sb;
	char *path, *sub;
	DIR *d;

	if ((d = opendir(dir)) == NULL) {
		warnf(w->o, "cannot open directory '%s': %s", dir,
		    strerror(errno));
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		sub = *rel ? xasprintf("%s/%s", rel, de->d_name) :
		    xstrdup(de->d_name);
		if (stat(path, &sb) != 0) {
			/* a dangling link, a file this user may not see */
			warnf(w->o, "cannot read '%s': %s", path,
			    strerror(errno));
			if (!skipped_ext(de->d_name))
				w->job->nunread++;
		} else if (S_ISDIR(sb.st_mode)) {
			if (de->d_type != DT_LNK)
				walk_dir(w, path, sub);
		} else if (S_ISREG(sb.st_mode) && (!skipped_ext(de->d_name) ||
		    forced(w->a, path)))
			add_file(w, path, sub, &sb);
		else if (S_ISREG(sb.st_mode) && json_name(de->d_name))
			warnf(w->o, "skipping '%s': no log, a JSON document "
			    "(index --log FILE takes it)", path);
		free(sub);
		free(path);
	}
	closedir(d);
}

static int
cmp_file(const void *a, const void *b)
{
	return strcmp(((const struct scan_file *)a)->rel,
	    ((const struct scan_file *)b)->rel);
}

/* ------------------------------------------------------- attributing */

static void
apply_map(struct scan_file *f, const struct map_rule *rules, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (fnmatch(rules[i].glob, f->rel, 0) != 0)
			continue;
		free(f->node);
		f->node = rules[i].node ? xstrdup(rules[i].node) : NULL;
		f->rank = rules[i].rank;
		if (rules[i].kind >= 0)
			f->kind = rules[i].kind;
		return;
	}
}

static void
free_file(struct scan_file *f)
{
	free(f->path);
	free(f->rel);
	free(f->node);
	free(f->found_node);
}

/* Undo what scan_opts.known() said of a file. */
static void
forget(struct scan_file *f)
{
	free(f->node);
	free(f->found_node);
	f->node = f->found_node = NULL;
	f->rank = -1;
	f->kind = SCAN_LOG;
	f->found_kind = -1;
	f->known = 0;
}

/* FNV-1a over n bytes, on from h. */
static uint64_t
fnv(uint64_t h, const unsigned char *p, size_t n)
{
	while (n-- > 0)
		h = (h ^ *p++) * 0x100000001b3ull;
	return h;
}

uint64_t
scan_head(const char *path, uint64_t size)
{
	unsigned char buf[4096];
	uint64_t h = fnv(0xcbf29ce484222325ull, (const unsigned char *)&size,
	    sizeof size);
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY)) < 0)
		return 1;
	if ((n = pread(fd, buf, sizeof buf, 0)) > 0)
		h = fnv(h, buf, (size_t)n);
	if (size > sizeof buf && (n = pread(fd, buf, sizeof buf,
	    (off_t)(size - sizeof buf < sizeof buf ? sizeof buf :
	    size - sizeof buf))) > 0)
		h = fnv(h, buf, (size_t)n);
	close(fd);
	return h > 1 ? h : 2;
}

/* The files of a job being sniffed, and what each gave. */
struct sniffs {
	struct scan_job *j;
	int *rc;		/* scan_sniff()'s, by file */
	char **cause;		/* by file, when rc is -1 */
	size_t next;		/* the next file to take (atomic) */
};

static void *
sniff_main(void *arg)
{
	struct sniffs *s = arg;
	struct scan_file *f;
	size_t i;

	while ((i = __atomic_fetch_add(&s->next, 1, __ATOMIC_RELAXED)) <
	    s->j->nfiles) {
		f = &s->j->files[i];
		if (f->racy || f->want_head != 0)
			f->head = scan_head(f->path, f->size);
		if (f->known && f->want_head != 0 && f->head != f->want_head)
			forget(f);	/* rewritten: what it says now */
		if (!f->known) {
			scan_path_info(f->rel, &f->node, &f->rank, &f->kind);
			s->rc[i] = scan_sniff(f, &s->cause[i]);
		}
	}
	return NULL;
}

/*
 * Path info and scan_sniff() of every file of a job, on up to `threads`
 * threads, the calling one included (a thread only for every SNIFF_SHARE
 * files); each file is touched by one thread only.
 */
static void
sniff_all(struct scan_job *j, int threads, int *rc, char **cause)
{
	struct sniffs s;
	pthread_t th[SNIFF_THREADS];
	size_t n = threads > 1 ? (size_t)threads - 1 : 0, i;

	s.j = j;
	s.rc = rc;
	s.cause = cause;
	s.next = 0;
	if (n > j->nfiles / SNIFF_SHARE)
		n = j->nfiles / SNIFF_SHARE;
	if (n > SNIFF_THREADS)
		n = SNIFF_THREADS;
	for (i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, sniff_main, &s) != 0)
			break;
	n = i;
	sniff_main(&s);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
}

/* Keep what the path and the head found (scan_sniff() gave `sniffed`). */
static void
found(struct scan_file *f, int sniffed)
{
	free(f->found_node);
	f->found_node = f->node != NULL ? xstrdup(f->node) : NULL;
	f->found_rank = f->rank;
	f->found_kind = sniffed == 2 ? 2 : f->kind;
}

/* Attribute every file of a job; drop binaries and unreadable files. */
static void
attribute(struct scan_job *j, const struct attrib *a,
    const struct scan_opts *o)
{
	struct scan_file *f;
	size_t i, keep = 0;
	char **causes;
	int rc, *rcs;

	rcs = xcalloc(j->nfiles + 1, sizeof *rcs);
	causes = xcalloc(j->nfiles + 1, sizeof *causes);
	for (i = 0; i < j->nfiles; i++) {
		f = &j->files[i];
		f->racy = f->mtime >= a->t0 - SCAN_RACY_SECS;
		f->known = o->known != NULL && o->known(o->arg, j, f);
	}
	sniff_all(j, o->threads, rcs, causes);
	for (i = 0; i < j->nfiles; i++) {
		f = &j->files[i];
		if ((rc = rcs[i]) == 2 && forced(a, f->path))
			rc = 0;
		if (rc == 0 && !f->known)
			found(f, rcs[i]);
		if (rc != 0) {
			if (rc < 0) {
				warnf(o, "%s", causes[i]);
				j->nunread++;
			} else if (rc == 1)
				warnf(o, "skipping '%s': not a text log",
				    f->path);
			else
				warnf(o, "skipping '%s': no log, %s%s", f->path,
				    f->why, f->why == why_hostfile ||
				    f->why == why_flows ? "" : " (index --log "
				    "FILE takes it)");
			free_file(f);
			continue;
		}
		if (f->node == NULL && f->rank >= 0 &&
		    (size_t)f->rank < a->nhosts && a->hosts[f->rank] != NULL)
			f->node = xstrdup(a->hosts[f->rank]);
		apply_map(f, a->rules, a->nrules);
		j->files[keep++] = *f;
	}
	for (i = 0; i < j->nfiles; i++)
		free(causes[i]);
	free(causes);
	free(rcs);
	j->nfiles = keep;
}

/* ------------------------------------------------------------ jobs */

static char *
absolute(const char *path)
{
	char *r = realpath(path, NULL);

	return r != NULL ? r : xstrdup(path);
}

static char *
base_name(const char *root)
{
	const char *s = strrchr(root, '/');

	if (s == NULL || s[1] == '\0')
		return xstrdup(s == root ? "root" : root);
	return xstrdup(s + 1);
}

char *
scan_job_name(const char *dir)
{
	char *root = absolute(dir), *name = base_name(root);

	free(root);
	return name;
}

static struct scan_job *
new_job(struct scan_job **jobs, size_t *njobs, size_t *cap, char *root)
{
	struct scan_job *j;

	*jobs = xgrow(*jobs, cap, *njobs + 1, sizeof **jobs);
	j = &(*jobs)[(*njobs)++];
	memset(j, 0, sizeof *j);
	j->root = root;
	j->name = base_name(root);
	return j;
}

/* The longest directory prefix shared by two absolute paths. */
static void
common_dir(char *dir, const char *path)
{
	size_t i = 0;
	char *slash;

	while (dir[i] != '\0' && dir[i] == path[i])
		i++;
	if (dir[i] == '\0' && (path[i] == '/' || path[i] == '\0'))
		return;
	dir[i] = '\0';
	if ((slash = strrchr(dir, '/')) != NULL)
		*(slash == dir ? slash + 1 : slash) = '\0';
}

/* The directory that plain files[0 .. n) (n >= 1) have in common. */
static char *
files_root(char *const *files, size_t n)
{
	char *abs, *dir = NULL, *s;
	size_t i;

	for (i = 0; i < n; i++) {
		abs = absolute(files[i]);
		if (dir == NULL) {
			dir = xstrdup(abs);
			if ((s = strrchr(dir, '/')) != NULL)
				*(s == dir ? s + 1 : s) = '\0';
		} else
			common_dir(dir, abs);
		free(abs);
	}
	return dir;
}

char *
scan_job_root(char *const *paths, size_t n)
{
	struct stat sb;
	size_t i, ndirs = 0;

	for (i = 0; i < n; i++) {
		if (stat(paths[i], &sb) != 0)
			return NULL;
		ndirs += S_ISDIR(sb.st_mode) != 0;
	}
	if (n == 0 || (ndirs > 0 && n > 1))
		return NULL;
	return ndirs == 1 ? absolute(paths[0]) : files_root(paths, n);
}

static void
add_loose(struct walk *w, char *const *files, size_t n)
{
	struct scan_job *j = w->job;
	struct stat sb;
	char *abs, *dir, *s;
	size_t i;

	dir = files_root(files, n);
	free(j->root);
	free(j->name);
	j->root = dir;
	j->name = base_name(dir);
	for (i = 0; i < n; i++) {
		abs = absolute(files[i]);
		s = abs + strlen(dir);
		while (*s == '/')
			s++;
		if (stat(abs, &sb) == 0)
			add_file(w, abs, s, &sb);
		free(abs);
	}
}

static int
check_paths(char *const *paths, size_t n, size_t *ndirs, size_t *nfiles,
    char **cause)
{
	struct stat sb;
	size_t i;

	*ndirs = *nfiles = 0;
	for (i = 0; i < n; i++) {
		if (stat(paths[i], &sb) != 0)
			return ts_fail(cause, "cannot open '%s': %s", paths[i],
			    strerror(errno));
		if (S_ISDIR(sb.st_mode))
			(*ndirs)++;
		else if (S_ISREG(sb.st_mode))
			(*nfiles)++;
		else
			return ts_fail(cause, "'%s' is not a file or directory",
			    paths[i]);
	}
	return 0;
}

static int
load_attrib(const struct scan_opts *o, struct attrib *a, char **cause)
{
	size_t i;

	memset(a, 0, sizeof *a);
	if (o->map_path != NULL &&
	    read_map(o->map_path, &a->rules, &a->nrules, cause) != 0)
		return -1;
	if (o->hostfile != NULL &&
	    scan_read_hostfile(o->hostfile, &a->hosts, &a->nhosts, cause) != 0)
		return -1;
	a->logs = xcalloc(o->nlogs + 1, sizeof *a->logs);
	a->found = xcalloc(o->nlogs + 1, 1);
	for (i = 0; i < o->nlogs; i++, a->nlogs++)
		if ((a->logs[i] = realpath(o->logs[i], NULL)) == NULL)
			return ts_fail(cause, "--log: cannot open '%s': %s",
			    o->logs[i], strerror(errno));
	return 0;
}

/* Every --log file must be a file of a job found. */
static int
check_logs(const struct attrib *a, const struct scan_opts *o, char **cause)
{
	size_t i;

	for (i = 0; i < a->nlogs; i++)
		if (!a->found[i])
			return ts_fail(cause, "--log: '%s' is in none of the "
			    "paths given", o->logs[i]);
	return 0;
}

static void
free_attrib(struct attrib *a)
{
	size_t i;

	free_map(a->rules, a->nrules);
	scan_free_hosts(a->hosts, a->nhosts);
	for (i = 0; i < a->nlogs; i++)
		free(a->logs[i]);
	free(a->logs);
	free(a->found);
}

/* Fill jobs: one per directory, one for all loose files. */
static void
collect(char *const *paths, size_t n, const struct scan_opts *o,
    const struct attrib *a, struct scan_job **jobs, size_t *njobs)
{
	struct walk w;
	struct stat sb;
	char **loose;
	size_t i, nloose = 0, cap = 0;

	loose = xcalloc(n + 1, sizeof *loose);
	for (i = 0; i < n; i++) {
		if (stat(paths[i], &sb) == 0 && !S_ISDIR(sb.st_mode)) {
			loose[nloose++] = paths[i];
			continue;
		}
		memset(&w, 0, sizeof w);
		w.o = o;
		w.a = a;
		w.job = new_job(jobs, njobs, &cap, absolute(paths[i]));
		walk_dir(&w, w.job->root, "");
	}
	if (nloose > 0) {
		memset(&w, 0, sizeof w);
		w.o = o;
		w.a = a;
		w.job = new_job(jobs, njobs, &cap, xstrdup("/"));
		add_loose(&w, loose, nloose);
	}
	free(loose);
}

/* The same file named twice (sorted, so neighbours) is read once. */
static void
dedupe(struct scan_job *j)
{
	size_t i, keep = 0;

	for (i = 0; i < j->nfiles; i++) {
		if (keep > 0 &&
		    strcmp(j->files[keep - 1].rel, j->files[i].rel) == 0) {
			free_file(&j->files[i]);
			continue;
		}
		j->files[keep++] = j->files[i];
	}
	j->nfiles = keep;
}

static int
check_names(struct scan_job *jobs, size_t n, char **cause)
{
	size_t i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < i; k++)
			if (strcmp(jobs[i].name, jobs[k].name) == 0)
				return ts_fail(cause, "'%s' and '%s' would both "
				    "be job '%s'; index them one at a time with "
				    "--job", jobs[k].root, jobs[i].root,
				    jobs[i].name);
	return 0;
}

int
scan_paths(char *const *paths, size_t n, const struct scan_opts *o,
    struct scan_job **jobs, size_t *njobs, char **cause)
{
	struct attrib a;
	size_t ndirs, nfiles, i;

	*jobs = NULL;
	*njobs = 0;
	if (check_paths(paths, n, &ndirs, &nfiles, cause) != 0)
		return -1;
	if (o->job_name != NULL && ndirs + (nfiles > 0) > 1)
		return ts_fail(cause, "--job names one job, but the paths make "
		    "%zu jobs", ndirs + (nfiles > 0));
	if (load_attrib(o, &a, cause) != 0) {
		free_attrib(&a);
		return -1;
	}
	a.t0 = ts_wallclock();
	collect(paths, n, o, &a, jobs, njobs);
	for (i = 0; i < *njobs; i++) {
		ts_qsort((*jobs)[i].files, (*jobs)[i].nfiles,
		    sizeof *(*jobs)[i].files, cmp_file);
		dedupe(&(*jobs)[i]);
		if (o->job_name != NULL) {
			free((*jobs)[i].name);
			(*jobs)[i].name = xstrdup(o->job_name);
		}
		attribute(&(*jobs)[i], &a, o);
	}
	if (check_logs(&a, o, cause) != 0 ||
	    check_names(*jobs, *njobs, cause) != 0) {
		free_attrib(&a);
		scan_free(*jobs, *njobs);
		*jobs = NULL;
		*njobs = 0;
		return -1;
	}
	free_attrib(&a);
	return 0;
}

void
scan_free(struct scan_job *jobs, size_t njobs)
{
	size_t i, k;

	for (i = 0; i < njobs; i++) {
		for (k = 0; k < jobs[i].nfiles; k++)
			free_file(&jobs[i].files[k]);
		free(jobs[i].files);
		free(jobs[i].name);
		free(jobs[i].root);
	}
	free(jobs);
}
