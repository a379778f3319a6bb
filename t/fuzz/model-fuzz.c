/*
 * model-fuzz.c -- a stored model read back from any bytes: NULL or a
 * model whose encoding reads back to the same bytes.  The input is the
 * encoding without its checksum: the target appends the CRC-32 the
 * writer would, so the fuzzer reaches the walker (a wrong checksum is
 * refused before it, and t/unit/modelio-t.c checks that).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "diag/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *bytes, *again;
	uint32_t crc;
	struct model *m;
	size_t len;
	int i;

	if (size > (1u << 24))
		return 0;
	bytes = malloc(size + 4);
	if (bytes == NULL)
		return 0;
	memcpy(bytes, data, size);
	crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), data, (uInt)size);
	for (i = 0; i < 4; i++)
		bytes[size + (size_t)i] = (unsigned char)(crc >> (8 * i));
	m = model_decode(bytes, size + 4);
	if (m != NULL) {
		model_encode(m, &again, &len);
		if (len != size + 4 || memcmp(again, bytes, len) != 0)
			abort();
		free(again);
		model_free(m);
	}
	free(bytes);
	return 0;
}
