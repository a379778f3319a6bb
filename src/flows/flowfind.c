/*
 * flowfind.c -- finding the captures of a job directory.
 *
 * Every regular file (not hidden, at most four directories down) is
 * probed by content with flow_probe(); the name does not matter.  Packet
 * captures win over flow-record files: a job directory that has both
 * usually has records made from the same packets, and reading both
 * would count the traffic twice.
 *
 * A caller that knows some files can be no capture (`diagnose`: the logs
 * the index holds unchanged, which discovery probed the same way) names
 * them through a callback, and they are not opened.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "flows/flowasm.h"
#include "base/util.h"

#define MAX_DEPTH 4

struct found {
	char **paths;
	int *packets;		/* 1 for pcap/pcapng */
	size_t n, cap, capk;
	size_t root;		/* length of the searched directory's path */
	int (*skip)(void *arg, const char *rel, const struct stat *sb);
	void *arg;
};

static void
add(struct found *f, char *path, int packets)
{
	f->paths = xgrow(f->paths, &f->cap, f->n + 1, sizeof *f->paths);
	f->packets = xgrow(f->packets, &f->capk, f->n + 1,
	    sizeof *f->packets);
	f->paths[f->n] = path;
	f->packets[f->n++] = packets;
}

static void
walk(struct found *f, const char *dir, int depth)
{
	struct dirent *e;
	struct stat sb;
	const char *fmt;
	char *path;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			if (depth < MAX_DEPTH)
				walk(f, path, depth + 1);
		} else if (S_ISREG(sb.st_mode) && (f->skip == NULL ||
		    !f->skip(f->arg, path + f->root + 1, &sb)) &&
		    (fmt = flow_probe(path)) != NULL) {
			add(f, path, strncmp(fmt, "pcap", 4) == 0);
			continue;
		}
		free(path);
	}
	closedir(d);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
flow_find_captures_but(const char *dir,
    int (*skip)(void *arg, const char *rel, const struct stat *sb),
    void *arg, char ***paths, size_t *n, char **cause)
{
	struct found f;
	size_t i, k = 0;
	int packets = 0;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		return ts_fail(cause, "cannot open '%s': %s", dir,
		    strerror(errno));
	closedir(d);
	memset(&f, 0, sizeof f);
	f.root = strlen(dir);
	f.skip = skip;
	f.arg = arg;
	walk(&f, dir, 1);
	for (i = 0; i < f.n; i++)
		packets |= f.packets[i];
	for (i = 0; i < f.n; i++) {
		if (packets && !f.packets[i])
			free(f.paths[i]);
		else
			f.paths[k++] = f.paths[i];
	}
	if (k > 1)
		ts_qsort(f.paths, k, sizeof *f.paths, cmp_str);
	free(f.packets);
	*paths = f.paths;
	*n = k;
	return 0;
}

int
flow_find_captures(const char *dir, char ***paths, size_t *n, char **cause)
{
	return flow_find_captures_but(dir, NULL, NULL, paths, n, cause);
}

void
flow_paths_free(char **paths, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}
