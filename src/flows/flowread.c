/*
 * flowread.c -- which reader reads a file, decided by its content.
 *
 * The first bytes decide: a pcap magic number (either byte order, micro-
 * or nanosecond) or the pcapng section header goes to libpcap; gzip is
 * opened through zlib and its decompressed start looked at the same way
 * (a gzipped pcap reaches libpcap through a stdio cookie stream); anything
 * else must be a text flow file whose first line says what it is.  The
 * file name is never trusted.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "flows/flowasm.h"
#include "flows/flowread.h"
#include "base/util.h"

void
flow_sink_warn(struct flow_sink *s, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	s->nwarn++;
	if (s->warn == NULL)
		return;
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	s->warn(s->warn_arg, msg);
	free(msg);
}

void
flow_sink_emit(struct flow_sink *s, struct flow_readinfo *info,
    const struct flow_rec *r)
{
	if (info->records == 0 || r->start < info->first)
		info->first = r->start;
	if (info->records == 0 || r->end > info->last)
		info->last = r->end;
	info->records++;
	s->emit(s->arg, r);
}

static int
is_pcap_magic(const uint8_t *m, size_t n)
{
	static const uint8_t magic[][4] = {
		{ 0xa1, 0xb2, 0xc3, 0xd4 }, { 0xd4, 0xc3, 0xb2, 0xa1 },
		{ 0xa1, 0xb2, 0x3c, 0x4d }, { 0x4d, 0x3c, 0xb2, 0xa1 },
		{ 0x0a, 0x0d, 0x0d, 0x0a }
	};
	size_t i;

	if (n < 4)
		return 0;
	for (i = 0; i < TS_NELEM(magic); i++)
		if (memcmp(m, magic[i], 4) == 0)
			return 1;
	return 0;
}

static ssize_t
gz_cookie_read(void *cookie, char *buf, size_t n)
{
	int got;

	if (n > (1u << 30))
		n = 1u << 30;
	got = gzread(cookie, buf, (unsigned)n);
	return got < 0 ? -1 : got;
}

static int
gz_cookie_close(void *cookie)
{
	return gzclose(cookie) == Z_OK ? 0 : -1;
}

/* A gzipped pcap: hand libpcap a stdio stream that inflates. */
static int
read_gz_pcap(const char *path, struct flow_sink *s,
    struct flow_readinfo *info, char **cause)
{
	cookie_io_functions_t io = { gz_cookie_read, NULL, NULL,
	    gz_cookie_close };
	gzFile gz;
	FILE *fp;

	if ((gz = gzopen(path, "rb")) == NULL)
		return ts_fail(cause, "cannot open '%s': %s", path,
		    strerror(errno));
	gzbuffer(gz, 1 << 17);
	if ((fp = fopencookie(gz, "rb", io)) == NULL) {
		gzclose(gz);
		return ts_fail(cause, "cannot open '%s': %s", path,
		    strerror(errno));
	}
	return pcapread_fp(fp, path, s, info, cause);
}

/* The first few decompressed bytes of path (gzip or not). */
static int
peek(const char *path, uint8_t *m, size_t len, size_t *n, int *gzipped,
    char **cause)
{
	uint8_t raw[2];
	FILE *fp;
	gzFile gz;
	int got;

	if ((fp = fopen(path, "rb")) == NULL)
		return ts_fail(cause, "cannot open '%s': %s", path,
		    strerror(errno));
	*gzipped = fread(raw, 1, 2, fp) == 2 && raw[0] == 0x1f &&
	    raw[1] == 0x8b;
	fclose(fp);
	if ((gz = gzopen(path, "rb")) == NULL)
		return ts_fail(cause, "cannot open '%s': %s", path,
		    strerror(errno));
	got = gzread(gz, m, (unsigned)len);
	gzclose(gz);
	if (got < 0)
		return ts_fail(cause, "%s: cannot decompress", path);
	*n = (size_t)got;
	return 0;
}

int
flow_read_file(const char *path, struct flow_sink *s,
    struct flow_readinfo *info, char **cause)
{
	uint8_t m[8];
	size_t n = 0;
	int gzipped = 0;

	memset(info, 0, sizeof *info);
	if (peek(path, m, sizeof m, &n, &gzipped, cause) != 0)
		return -1;
	if (n == 0)
		return ts_fail(cause, "%s: empty file", path);
	if (is_pcap_magic(m, n))
		return gzipped ? read_gz_pcap(path, s, info, cause) :
		    pcapread_file(path, s, info, cause);
	return flowcsv_file(path, s, info, cause);
}

/* A text file: feed lines until a header is recognised (or not). */
static const char *
probe_text(const char *path)
{
	struct flow_sink s = { NULL, NULL, NULL, NULL, 0 };
	struct flow_readinfo info;
	struct flowcsv *c = flowcsv_new(path);
	const char *fmt = NULL;
	char line[4096], *cause = NULL;
	gzFile gz;
	int i;

	memset(&info, 0, sizeof info);
	if ((gz = gzopen(path, "rb")) == NULL) {
		flowcsv_free(c);
		return NULL;
	}
	for (i = 0; i < 32 && gzgets(gz, line, sizeof line) != NULL; i++) {
		line[strcspn(line, "\n")] = '\0';
		if (flowcsv_line(c, line, (uint64_t)i + 1, &s, &info,
		    &cause) != 0 || (fmt = flowcsv_format(c)) != NULL)
			break;
	}
	free(cause);
	gzclose(gz);
	flowcsv_free(c);
	return fmt;
}

const char *
flow_probe(const char *path)
{
	uint8_t m[8];
	size_t n = 0;
	int gzipped = 0;

	if (peek(path, m, sizeof m, &n, &gzipped, NULL) != 0 || n < 4)
		return NULL;
	if (is_pcap_magic(m, n))
		return m[0] == 0x0a ? "pcapng" : "pcap";
	if (memchr(m, '\0', n) != NULL)
		return NULL;	/* binary, and not a capture */
	return probe_text(path);
}
