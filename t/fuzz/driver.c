/*
 * driver.c -- run a libFuzzer target over files, without libFuzzer.
 *
 *	NAME-fuzz FILE...
 *
 * Feeds each file to LLVMFuzzerTestOneInput() once, so the fuzz targets
 * double as regression tests over their small corpus in `make check`.
 * Prints TAP: one line per file.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
main(int argc, char **argv)
{
	FILE *f;
	uint8_t *data;
	long n;
	int i, failed = 0;

	for (i = 1; i < argc; i++) {
		if ((f = fopen(argv[i], "rb")) == NULL ||
		    fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
		    fseek(f, 0, SEEK_SET) != 0) {
			printf("not ok %d - cannot read %s\n", i, argv[i]);
			failed++;
			if (f != NULL)
				fclose(f);
			continue;
		}
		data = malloc((size_t)n + 1);
		if (data == NULL || fread(data, 1, (size_t)n, f) != (size_t)n) {
			printf("not ok %d - cannot read %s\n", i, argv[i]);
			failed++;
		} else {
			LLVMFuzzerTestOneInput(data, (size_t)n);
			printf("ok %d - %s\n", i, argv[i]);
		}
		free(data);
		fclose(f);
	}
	printf("1..%d\n", argc - 1);
	return failed != 0;
}
