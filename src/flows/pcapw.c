/*
 * pcapw.c -- a classic pcap file writer.
 *
 * The format is a 24-byte file header (magic a1b2c3d4 in host order,
 * version 2.4, snapshot length, link type 1 = Ethernet) followed by one
 * 16-byte record header per frame (seconds, microseconds, stored length,
 * original length) and the stored bytes.  Timestamps are rounded to the
 * microsecond so output is reproducible.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flows/pcapw.h"
#include "base/util.h"

struct pcapw {
	FILE *f;
	char *path;
	uint32_t snaplen;
	uint64_t count;
	uint64_t bytes;		/* written, header included */
};

struct pcapw *
pcapw_open(const char *path, uint32_t snaplen, char **cause)
{
	struct pcapw *w;
	uint32_t hdr[6] = { 0xa1b2c3d4, 0x00040002, 0, 0, 0, 1 };

	hdr[4] = snaplen;
	w = xcalloc(1, sizeof *w);
	if ((w->f = fopen(path, "wb")) == NULL) {
		ts_fail(cause, "cannot create '%s': %s", path, strerror(errno));
		free(w);
		return NULL;
	}
	w->path = xstrdup(path);
	w->snaplen = snaplen;
	setvbuf(w->f, NULL, _IOFBF, 1 << 16);
	fwrite(hdr, sizeof hdr, 1, w->f);
	w->bytes = sizeof hdr;
	return w;
}

int
pcapw_frame(struct pcapw *w, double ts, const uint8_t *frame,
    uint32_t caplen, uint32_t wirelen, char **cause)
{
	uint32_t rec[4];
	uint64_t us = (uint64_t)llround(ts * 1e6);

	if (caplen > w->snaplen)
		caplen = w->snaplen;
	if (caplen > wirelen)
		caplen = wirelen;
	rec[0] = (uint32_t)(us / 1000000);
	rec[1] = (uint32_t)(us % 1000000);
	rec[2] = caplen;
	rec[3] = wirelen;
	if (fwrite(rec, sizeof rec, 1, w->f) != 1 ||
	    fwrite(frame, 1, caplen, w->f) != caplen)
		return ts_fail(cause, "cannot write '%s': %s", w->path,
		    strerror(errno));
	w->count++;
	w->bytes += sizeof rec + caplen;
	return 0;
}

uint64_t
pcapw_count(const struct pcapw *w)
{
	return w->count;
}

uint64_t
pcapw_bytes(const struct pcapw *w)
{
	return w->bytes;
}

int
pcapw_close(struct pcapw *w, char **cause)
{
	int rc = 0;

	if (w == NULL)
		return 0;
	if (fclose(w->f) != 0)
		rc = ts_fail(cause, "cannot write '%s': %s", w->path,
		    strerror(errno));
	free(w->path);
	free(w);
	return rc;
}
