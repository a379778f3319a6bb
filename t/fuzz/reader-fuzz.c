/*
 * reader-fuzz.c -- fuzz target for the line reader.
 *
 * The input becomes a file (memfd) read line by line.  For plain input
 * the lines must tile the file exactly: each starts where the previous
 * one ended, its bytes are the file's bytes (a final CR dropped, at most
 * READER_LINE_MAX kept) and the last one ends at the end of the file.
 * Gzip input (it starts with the magic bytes) must only not crash; a
 * damaged stream must end with an error, not a hang.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "logs/reader.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_plain(struct reader *r, const uint8_t *data, size_t size)
{
	struct reader_line l;
	char *cause = NULL;
	uint64_t pos = 0, n = 0;
	int rc;

	while ((rc = reader_next(r, &l, &cause)) == 1) {
		if (l.off != pos || l.lineno != ++n || l.len > READER_LINE_MAX ||
		    l.len > l.full_len || l.off + l.full_len > size ||
		    memcmp(l.s, data + l.off, l.len) != 0)
			abort();
		pos = l.off + l.full_len + (l.newline ? 1 : 0);
		if (l.newline && data[pos - 1] != '\n')
			abort();
	}
	if (rc != 0 || pos != size)
		abort();
	free(cause);
}

static void
drain(struct reader *r)
{
	struct reader_line l;
	char *cause = NULL;

	while (reader_next(r, &l, &cause) == 1)
		if (l.len > READER_LINE_MAX)
			abort();
	free(cause);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader *r;
	char path[64], *cause = NULL;
	int fd;

	if ((fd = memfd_create("reader-fuzz", 0)) == -1)
		return 0;
	if (size > 0 && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	if (reader_open(path, 0, 0, &r, &cause) == 0) {
		if (reader_is_gzip(r))
			drain(r);
		else
			check_plain(r, data, size);
		reader_close(r);
	}
	free(cause);
	close(fd);
	return 0;
}
