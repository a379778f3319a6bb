/*
 * flowcmd.c -- the `flows` command: find the captures named on the
 * command line (a directory is scanned for them), load them into one
 * flow_set, analyse it and print the view model.
 *
 * In a directory, files are recognised by content, not by name: pcap and
 * pcapng magic numbers (also gzipped), Zeek logs (#separator) and CSV
 * files whose header names both a source and a destination column.  When a
 * directory holds packet captures its flow-record files are ignored: they
 * usually describe the same traffic, and counting it twice would double
 * every message.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "cmd.h"
#include "commands.h"
#include "flowan.h"
#include "util.h"

#define SCAN_DEPTH 4
#define SNIFF_LEN 512

enum { KIND_NONE, KIND_CAPTURE, KIND_RECORDS };

struct found {
	char **v;
	size_t n, cap;
};

static void
found_add(struct found *f, const char *path)
{
	f->v = xgrow(f->v, &f->cap, f->n + 1, sizeof *f->v);
	f->v[f->n++] = xstrdup(path);
}

static void
found_free(struct found *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->v[i]);
	free(f->v);
}

static int
is_pcap_magic(const unsigned char *b, size_t n)
{
	static const unsigned char m[][4] = {
		{ 0xd4, 0xc3, 0xb2, 0xa1 }, { 0xa1, 0xb2, 0xc3, 0xd4 },
		{ 0x4d, 0x3c, 0xb2, 0xa1 }, { 0xa1, 0xb2, 0x3c, 0x4d },
		{ 0x0a, 0x0d, 0x0d, 0x0a }
	};
	size_t i;

	for (i = 0; n >= 4 && i < TS_NELEM(m); i++)
		if (memcmp(b, m[i], 4) == 0)
			return 1;
	return 0;
}

/* A flow-record text: Zeek header, or a CSV header with src and dst. */
static int
is_record_text(const char *b)
{
	char line[SNIFF_LEN + 1], *nl;
	size_t i;

	if (ts_startswith(b, "#separator"))
		return 1;
	memcpy(line, b, sizeof line);
	line[SNIFF_LEN] = '\0';
	if ((nl = strchr(line, '\n')) == NULL || strchr(line, ',') == NULL)
		return 0;
	*nl = '\0';
	for (i = 0; line[i] != '\0'; i++)
		if (line[i] >= 'A' && line[i] <= 'Z')
			line[i] += 'a' - 'A';
	return (strstr(line, "src") != NULL || strstr(line, "sa,") != NULL) &&
	    (strstr(line, "dst") != NULL || strstr(line, "da,") != NULL);
}

/* What kind of input `path` holds, from its first bytes (inflated). */
static int
sniff(const char *path)
{
	unsigned char b[SNIFF_LEN + 1];
	gzFile z;
	int n;

	if ((z = gzopen(path, "rb")) == NULL)
		return KIND_NONE;
	memset(b, 0, sizeof b);
	n = gzread(z, b, SNIFF_LEN);
	gzclose(z);
	if (n <= 0)
		return KIND_NONE;
	b[n] = '\0';
	if (is_pcap_magic(b, (size_t)n))
		return KIND_CAPTURE;
	if (memchr(b, '\0', (size_t)n) == NULL && is_record_text((char *)b))
		return KIND_RECORDS;
	return KIND_NONE;
}

static void
scan_dir(const char *dir, int depth, struct found *cap, struct found *rec)
{
	struct dirent **ents;
	int n, i;

	if (depth > SCAN_DEPTH || (n = scandir(dir, &ents, NULL,
	    alphasort)) < 0)
		return;
	for (i = 0; i < n; i++) {
		char *p = xasprintf("%s/%s", dir, ents[i]->d_name);
		struct stat st;

		if (ents[i]->d_name[0] != '.' && stat(p, &st) == 0) {
			if (S_ISDIR(st.st_mode))
				scan_dir(p, depth + 1, cap, rec);
			else if (S_ISREG(st.st_mode)) {
				int k = sniff(p);

				if (k == KIND_CAPTURE)
					found_add(cap, p);
				else if (k == KIND_RECORDS)
					found_add(rec, p);
			}
		}
		free(p);
		free(ents[i]);
	}
	free(ents);
}

/* Expand the arguments into the input files; -1 when one is missing. */
static int
collect_inputs(struct cmd_args *args, struct found *out, char **cause)
{
	int i;

	for (i = 0; i < args->argc; i++) {
		struct found cap = { NULL, 0, 0 }, rec = { NULL, 0, 0 };
		struct found *use;
		struct stat st;
		size_t k;

		if (stat(args->argv[i], &st) != 0)
			return ts_fail(cause, "cannot open '%s': %s",
			    args->argv[i], strerror(errno));
		if (!S_ISDIR(st.st_mode)) {
			found_add(out, args->argv[i]);
			continue;
		}
		scan_dir(args->argv[i], 0, &cap, &rec);
		use = cap.n > 0 ? &cap : &rec;
		for (k = 0; k < use->n; k++)
			found_add(out, use->v[k]);
		found_free(&cap);
		found_free(&rec);
	}
	if (out->n == 0)
		return ts_fail(cause, "no capture or flow records found");
	return 0;
}

static void
warn_err(void *arg, const char *msg)
{
	fprintf((FILE *)arg, "trainscope: %s\n", msg);
}

static int
opt_seconds(struct cmd_args *args, const char *name, double *out,
    char **cause)
{
	const char *v = cmd_opt(args, name);

	if (v == NULL)
		return 0;
	if (ts_parse_double(v, out) != 0 || !(*out > 0))
		return ts_fail(cause, "--%s wants a positive number of "
		    "seconds, not '%s'", name, v);
	return 0;
}

/* Node names from the first job directory that has any. */
static char **
names_from_args(struct cmd_args *args, const struct flow_set *set)
{
	char **names = NULL;
	struct stat st;
	int i;

	for (i = 0; i < args->argc && names == NULL; i++)
		if (stat(args->argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			names = flowan_names_from_dir(set, args->argv[i]);
	return names;
}

int
cmd_flows(struct cmd_ctx *ctx, struct cmd_args *args, char **cause)
{
	const char *fmt = cmd_opt(args, "format");
	struct found in = { NULL, 0, 0 };
	struct flow_params fp;
	struct flowan_params ap;
	struct flow_set set;
	struct flowan fa;
	char **names;
	int rc = CMD_USAGE;

	flow_params_default(&fp);
	flowan_params_default(&ap);
	if (fmt == NULL)
		fmt = "text";
	if (strcmp(fmt, "text") != 0 && strcmp(fmt, "tsv") != 0 &&
	    strcmp(fmt, "json") != 0) {
		ts_fail(cause, "unknown format '%s' (text, tsv or json)", fmt);
		return CMD_USAGE;
	}
	if (opt_seconds(args, "idle-timeout", &fp.idle_timeout, cause) != 0 ||
	    opt_seconds(args, "gap", &ap.gap, cause) != 0)
		return CMD_USAGE;
	rc = CMD_FAIL;
	if (collect_inputs(args, &in, cause) != 0)
		goto out;
	if (flow_set_load(&set, (const char *const *)in.v, in.n, &fp,
	    warn_err, ctx->err, cause) != 0)
		goto out;
	names = names_from_args(args, &set);
	if (flowan_analyse_named(&fa, &set, names, &ap, cause) == 0) {
		if (strcmp(fmt, "json") == 0)
			flowan_print_json(&fa, ctx->out);
		else if (strcmp(fmt, "tsv") == 0)
			flowan_print_tsv(&fa, ctx->out);
		else
			flowan_print_text(&fa, ctx->out);
		flowan_free(&fa);
		rc = CMD_OK;
	}
	flowan_names_free(names, set.nhosts);
	flow_set_free(&set);
out:
	found_free(&in);
	return rc;
}
