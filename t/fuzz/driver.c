/*
 * driver.c -- run a libFuzzer target over files named on the command
 * line, so `make check` replays the corpus without libFuzzer.  Exits 0
 * when every input was read and the target returned.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		uint8_t *buf = NULL;
		size_t n = 0, cap = 0, got;

		if (f == NULL) {
			perror(argv[i]);
			return 1;
		}
		do {
			if (n == cap && (buf = realloc(buf, cap = cap * 2 + 4096))
			    == NULL)
				return 1;
			got = fread(buf + n, 1, cap - n, f);
			n += got;
		} while (got > 0);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, n);
		free(buf);
	}
	return 0;
}
