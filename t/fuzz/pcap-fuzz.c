/*
 * pcap-fuzz.c -- fuzz target for the pcap/pcapng reader: the input is a
 * whole capture file, read from memory through fmemopen(), and also
 * decoded as a single frame of every link type we support.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flows/flowread.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
sink_emit(void *arg, const struct flow_rec *r)
{
	uint64_t *n = arg;

	*n += r->bytes;
}

static void
sink_warn(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

/* The same bytes as a file on disk, which pcapread_file() reads. */
static void
read_as_file(const uint8_t *data, size_t size, struct flow_sink *s)
{
	static char path[64];
	struct flow_readinfo info;
	char *cause = NULL;
	FILE *fp;

	if (path[0] == '\0')
		snprintf(path, sizeof path, "%s/pcap-fuzz.%ld",
		    getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp",
		    (long)getpid());
	if ((fp = fopen(path, "wb")) == NULL)
		return;
	if (fwrite(data, 1, size, fp) != size) {
		fclose(fp);
		return;
	}
	fclose(fp);
	memset(&info, 0, sizeof info);
	if (pcapread_file(path, s, &info, &cause) != 0)
		free(cause);
	remove(path);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int dlts[] = { 1, 113, 276, 12, 228, 229, 0 };
	struct flow_readinfo info;
	struct flow_rec r;
	uint64_t n = 0;
	struct flow_sink s = { sink_emit, &n, sink_warn, NULL, 0 };
	char *cause = NULL;
	FILE *fp;
	size_t i;

	for (i = 0; i < TS_NELEM(dlts); i++)
		pcapread_decode(dlts[i], data, (uint32_t)size,
		    (uint32_t)size, 0, &r);
	if (size == 0 || (fp = fmemopen((void *)data, size, "rb")) == NULL)
		return 0;
	memset(&info, 0, sizeof info);
	if (pcapread_fp(fp, "fuzz", &s, &info, &cause) != 0)
		free(cause);
	cause = NULL;
	read_as_file(data, size, &s);	/* classic pcap without libpcap */
	return 0;
}
