/*
 * model-fuzz.c -- a stored model read back from any bytes: NULL or a
 * model whose encoding reads back to the same bytes.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diag/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct model *m = model_decode(data, size);
	unsigned char *again;
	size_t len;

	if (m == NULL)
		return 0;
	model_encode(m, &again, &len);
	if (len != size || memcmp(again, data, size) != 0)
		abort();
	free(again);
	model_free(m);
	return 0;
}
