/*
 * driver.c -- run a libFuzzer target without libFuzzer: every file named
 * on the command line (or found directly inside a named directory) is
 * read and fed to LLVMFuzzerTestOneInput() once.  `make check` uses this
 * to replay the corpus and past crashes as a regression test.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
run_file(const char *path)
{
	unsigned char *data = NULL;
	size_t len = 0, cap = 0, got;
	FILE *f;

	if ((f = fopen(path, "rb")) == NULL) {
		fprintf(stderr, "driver: cannot open '%s'\n", path);
		return -1;
	}
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 65536;
			if ((data = realloc(data, cap)) == NULL)
				abort();
		}
		got = fread(data + len, 1, cap - len, f);
		len += got;
	} while (got > 0);
	fclose(f);
	LLVMFuzzerTestOneInput(data, len);
	free(data);
	return 0;
}

static int
run_dir(const char *dir)
{
	struct dirent *de;
	char path[4096];
	DIR *d;
	int rc = 0, n = 0;

	if ((d = opendir(dir)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		if (run_file(path) != 0)
			rc = -1;
		n++;
	}
	closedir(d);
	printf("driver: %s: %d inputs\n", dir, n);
	return rc;
}

int
main(int argc, char **argv)
{
	struct stat sb;
	int i, rc = 0;

	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode))
			rc |= run_dir(argv[i]) != 0;
		else
			rc |= run_file(argv[i]) != 0;
	}
	return rc;
}
