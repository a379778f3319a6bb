/*
 * flownames.c -- node names for the hosts of a capture, from what a job
 * directory says about them.
 *
 * Two sources, both optional: NCCL's init lines in the ranks' logs
 * ("node03:1234:1234 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.3<0>",
 * also "NET/Socket : Using" and "OOB eth0:10.0.0.3<0>"), which name the
 * host before the first ':' of the line; and hosts-style files (a file
 * named hosts or hostfile with "IP NAME" lines).  A file is read until
 * NAMES_LINES lines pass without such an address: NCCL prints them at
 * start-up, once per rank, so a combined log of thousands of ranks holds
 * them for longer than one rank's file.  Nothing here reads
 * rank layouts; without a source the analysis speaks addresses.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "flows/flowan.h"
#include "base/util.h"

#define NAMES_DEPTH 4
#define NAMES_LINES 4000

/* Record name for the host whose address is `ip`, if it is one of ours. */
static void
set_name(const struct flow_set *set, char **names, const char *ip,
    const char *name, size_t namelen)
{
	struct flow_addr a;
	size_t i;

	if (namelen == 0 || flow_addr_parse(ip, &a) != 0)
		return;
	for (i = 0; i < set->nhosts; i++) {
		if (flow_addr_cmp(&a, &set->hosts[i]) == 0 && names[i] == NULL)
			names[i] = xstrndup(name, namelen);
	}
}

/* The host name that starts an NCCL line, after a launcher prefix. */
static const char *
nccl_host(const char *line, size_t *len)
{
	const char *p = line, *q;

	if (*p == '[' && (q = strstr(p, "]:")) != NULL)	/* [default3]: */
		p = q + 2;
	else if (isdigit((unsigned char)*p) && (q = strchr(p, ':')) != NULL &&
	    q[1] == ' ')					/* 3: */
		p = q + 2;
	while (*p == ' ')
		p++;
	for (q = p; isalnum((unsigned char)*q) || *q == '-' || *q == '_' ||
	    *q == '.'; q++)
		;
	*len = (size_t)(q - p);
	return *q == ':' ? p : NULL;
}

/* "... Using eth0:10.0.0.3<0>" or "OOB eth0:10.0.0.3<0>": the address. */
static int
nccl_addr(const char *line, char *ip, size_t iplen)
{
	const char *p = strstr(line, "OOB ");
	const char *lt;
	size_t n;

	if (p == NULL && (p = strstr(line, ": Using ")) != NULL)
		p += 2;
	if (p == NULL || (p = strchr(p, ':')) == NULL ||
	    (lt = strchr(p, '<')) == NULL)
		return -1;
	n = (size_t)(lt - p - 1);
	if (n == 0 || n >= iplen)
		return -1;
	memcpy(ip, p + 1, n);
	ip[n] = '\0';
	return 0;
}

/* Name a host from one line; 1 when the line gave an address. */
static int
scan_line(const struct flow_set *set, char **names, const char *line,
    int hostsfile)
{
	char ip[64], name[256];
	const char *h;
	size_t len;

	if (hostsfile) {
		if (sscanf(line, "%63s %255s", ip, name) == 2 && ip[0] != '#')
			set_name(set, names, ip, name, strlen(name));
		return 0;
	}
	if (strstr(line, "NCCL INFO") == NULL ||
	    nccl_addr(line, ip, sizeof ip) != 0 ||
	    (h = nccl_host(line, &len)) == NULL)
		return 0;
	set_name(set, names, ip, h, len);
	return 1;
}

void
flowan_names_scan_text(const struct flow_set *set, char **names,
    const char *text, size_t len, int hostsfile)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = xstrndup(p, n < 1023 ? n : 1023);

		line[strcspn(line, "\r")] = '\0';
		scan_line(set, names, line, hostsfile);
		free(line);
		p += n + 1;
	}
}

static void
scan_file(const struct flow_set *set, char **names, const char *path,
    const char *base)
{
	int hostsfile = strcmp(base, "hosts") == 0 ||
	    strcmp(base, "hostfile") == 0;
	char line[1024];
	gzFile z;
	int n = 0;

	if ((z = gzopen(path, "rb")) == NULL)
		return;
	while (n++ < NAMES_LINES && gzgets(z, line, sizeof line) != NULL) {
		if (memchr(line, '\0', strlen(line) + 1) != line + strlen(line))
			break;
		line[strcspn(line, "\r\n")] = '\0';
		if (scan_line(set, names, line, hostsfile))
			n = 0;	/* start-up goes on: a combined log of many ranks */
	}
	gzclose(z);
}

static void
scan(const struct flow_set *set, char **names, const char *dir, int depth)
{
	struct dirent **ents;
	int n, i;

	if (depth > NAMES_DEPTH ||
	    (n = scandir(dir, &ents, NULL, alphasort)) < 0)
		return;
	for (i = 0; i < n; i++) {
		const char *b = ents[i]->d_name;
		char *p = xasprintf("%s/%s", dir, b);
		struct stat st;

		if (b[0] != '.' && stat(p, &st) == 0) {
			if (S_ISDIR(st.st_mode))
				scan(set, names, p, depth + 1);
			else if (S_ISREG(st.st_mode) && (strstr(b, ".log") ||
			    strstr(b, ".txt") || strcmp(b, "hosts") == 0 ||
			    strcmp(b, "hostfile") == 0))
				scan_file(set, names, p, b);
		}
		free(p);
		free(ents[i]);
	}
	free(ents);
}

char **
flowan_names_from_dir(const struct flow_set *set, const char *dir)
{
	char **names = xcalloc(set->nhosts + 1, sizeof *names);
	size_t i;

	scan(set, names, dir, 0);
	for (i = 0; i < set->nhosts; i++)
		if (names[i] != NULL)
			return names;
	free(names);
	return NULL;
}

void
flowan_names_free(char **names, size_t n)
{
	size_t i;

	if (names == NULL)
		return;
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
