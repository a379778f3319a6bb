/*
 * flowcsv-fuzz.c -- fuzz target for the text flow readers: the input is
 * a whole file (nfdump CSV, Zeek conn.log or any CSV), fed line by line.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flows/flowread.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
sink_emit(void *arg, const struct flow_rec *r)
{
	uint64_t *n = arg;

	*n += r->bytes;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct flow_readinfo info;
	struct flowcsv *c = flowcsv_new("fuzz");
	uint64_t n = 0, lineno = 0;
	struct flow_sink s = { sink_emit, &n, NULL, NULL, 0 };
	char *copy = xmalloc(size + 1), *line, *nl, *cause = NULL;

	memcpy(copy, data, size);
	copy[size] = '\0';
	memset(&info, 0, sizeof info);
	for (line = copy; line != NULL && line < copy + size; line = nl) {
		if ((nl = memchr(line, '\n', (size_t)(copy + size - line))) !=
		    NULL)
			*nl++ = '\0';
		if (flowcsv_line(c, line, ++lineno, &s, &info, &cause) != 0) {
			free(cause);
			break;
		}
	}
	flowcsv_end(c, &s);
	flowcsv_free(c);
	free(copy);
	return 0;
}
