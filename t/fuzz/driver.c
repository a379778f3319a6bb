/*
 * driver.c -- run a libFuzzer target over files named on the command
 * line, without libFuzzer: the corpus becomes a regression test.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
main(int argc, char **argv)
{
	FILE *fp;
	uint8_t *buf;
	long n;
	int i;

	for (i = 1; i < argc; i++) {
		if ((fp = fopen(argv[i], "rb")) == NULL ||
		    fseek(fp, 0, SEEK_END) != 0 || (n = ftell(fp)) < 0) {
			fprintf(stderr, "driver: cannot read '%s'\n", argv[i]);
			return 1;
		}
		rewind(fp);
		buf = malloc((size_t)n + 1);
		if (buf == NULL || fread(buf, 1, (size_t)n, fp) != (size_t)n) {
			fprintf(stderr, "driver: cannot read '%s'\n", argv[i]);
			return 1;
		}
		fclose(fp);
		LLVMFuzzerTestOneInput(buf, (size_t)n);
		free(buf);
		printf("ok %d - %s\n", i, argv[i]);
	}
	printf("1..%d\n", argc - 1);
	return 0;
}
