/* faults-fuzz.c -- the fault rules parser and matcher on any bytes. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diag/faults.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct faults *f = faults_new();
	size_t i;

	faults_load_text(f, (const char *)data, size, "fuzz");
	for (i = 0; i < faults_nerrors(f); i++)
		if (strncmp(faults_error(f, i), "fuzz:", 5) != 0)
			abort();
	faults_match(f, (const char *)data, size);
	faults_free(f);
	return 0;
}
