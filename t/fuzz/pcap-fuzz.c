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

#include "flowread.h"
#include "util.h"

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
	return 0;
}
