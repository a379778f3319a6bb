/*
 * driver.c -- run a fuzz target over files, for regression tests.
 *
 * Each fuzz target defines LLVMFuzzerTestOneInput(); linked with this
 * main() it becomes a program that feeds it every file named on the
 * command line, so `make check` replays the corpus without a fuzzer.
 * Prints one TAP line per file.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
main(int argc, char **argv)
{
	int i, failed = 0;

	for (i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		uint8_t *data = NULL;
		size_t len = 0, cap = 0, n;

		if (f == NULL) {
			printf("not ok %d - cannot open %s\n", i, argv[i]);
			failed = 1;
			continue;
		}
		do {
			if (len + 4096 > cap) {
				cap = (len + 4096) * 2;
				if ((data = realloc(data, cap)) == NULL)
					abort();
			}
			n = fread(data + len, 1, cap - len, f);
			len += n;
		} while (n > 0);
		fclose(f);
		LLVMFuzzerTestOneInput(data, len);
		free(data);
		printf("ok %d - %s\n", i, argv[i]);
	}
	printf("1..%d\n", argc - 1);
	return failed;
}
