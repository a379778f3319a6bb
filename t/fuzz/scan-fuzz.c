/*
 * scan-fuzz.c -- fuzz target for discovery's parsers: the input is used
 * as file content (content sniffing, --hostfile, --map via a job scan) and
 * as a relative path (path rules); a long input's tail is sniffed as a
 * plain file's is (is it a log or a document).  Nothing may crash or
 * leak; a node name found must be a non-empty string.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "logs/scan.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
as_path(const uint8_t *data, size_t size)
{
	char *rel, *node;
	int rank, kind;

	rel = xstrndup((const char *)data, size);
	scan_path_info(rel, &node, &rank, &kind);
	if ((node != NULL && node[0] == '\0') || rank < -1)
		abort();
	free(node);
	free(rel);
}

static void
as_content(const char *path, size_t size)
{
	struct scan_file f;
	char **hosts, *cause = NULL;
	size_t n;

	memset(&f, 0, sizeof f);
	f.path = (char *)path;
	f.rank = -1;
	f.size = size;		/* so that a long input's tail is read too */
	if (scan_sniff(&f, &cause) == 0 && f.node != NULL &&
	    f.node[0] == '\0')
		abort();
	free(f.node);
	free(cause);
	cause = NULL;
	if (scan_read_hostfile(path, &hosts, &n, &cause) == 0)
		scan_free_hosts(hosts, n);
	free(cause);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd;

	as_path(data, size);
	if ((fd = memfd_create("scan-fuzz", 0)) == -1)
		return 0;
	if (size == 0 || write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		as_content(path, size);
	}
	close(fd);
	return 0;
}
