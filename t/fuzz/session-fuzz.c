/*
 * session-fuzz.c -- a session file from any bytes: read as a session
 * file is (cmd_source_file(), with no cache to act on), it writes no
 * file, whatever its lines ask; and every line that splits into words
 * splits back to the same words once cmd_quote() wrote them, as `save`
 * writes them.
 */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char scratch[] = "/tmp/session-fuzz.XXXXXX";

static void
scratch_remove(void)
{
	char *p = xasprintf("%s/s.ts", scratch);

	unlink(p);
	free(p);
	rmdir(scratch);
}

/*
 * Go into a directory of our own: whatever a line writes lands there.
 * Returns a descriptor of where we were, to come back to.
 */
static int
enter_scratch(void)
{
	static int made;
	int back = open(".", O_RDONLY | O_DIRECTORY);

	if (back < 0)
		abort();
	if (!made) {
		if (mkdtemp(scratch) == NULL)
			abort();
		atexit(scratch_remove);
		made = 1;
	}
	if (chdir(scratch) != 0)
		abort();
	return back;
}

/* Is the session file the only entry of the scratch directory? */
static int
only_session(void)
{
	DIR *d = opendir(".");
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		abort();
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
		    strcmp(e->d_name, "s.ts") != 0)
			n++;
	closedir(d);
	return n == 0;
}

/* cmd_split(), cmd_quote() of each word, cmd_split() again: the same. */
static void
quote_round_trip(const char *line)
{
	char **argv, **back, *cause = NULL;
	struct buf b = BUF_INIT;
	int argc, n, col, i;

	if (cmd_split(line, &argc, &argv, &col, &cause) != 0) {
		free(cause);
		return;
	}
	for (i = 0; i < argc; i++) {
		if (i > 0)
			buf_addc(&b, ' ');
		cmd_quote(&b, argv[i]);
	}
	if (memchr(buf_str(&b), '\n', b.len) != NULL ||
	    cmd_split(buf_str(&b), &n, &back, &col, &cause) != 0 || n != argc)
		abort();
	for (i = 0; i < argc; i++)
		if (strcmp(argv[i], back[i]) != 0)
			abort();
	cmd_free_argv(n, back);
	cmd_free_argv(argc, argv);
	buf_release(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cmd_ctx ctx;
	char *text, *line, *save = NULL, *cause = NULL;
	FILE *f, *out;
	int back = enter_scratch();

	if ((f = fopen("s.ts", "wb")) == NULL)
		abort();
	if (size > 0)
		fwrite(data, 1, size, f);
	fclose(f);
	if ((out = fopen("/dev/null", "w")) == NULL)
		abort();
	cmd_ctx_init(&ctx, out, out);
	cmd_ctx_set_cache_path(&ctx, "");	/* no cache: nothing to change */
	ctx.keep_going = size > 0 && data[0] & 1;
	cmd_source_file(&ctx, "s.ts", &cause);
	free(cause);
	cmd_ctx_release(&ctx);
	fclose(out);
	if (!only_session())
		abort();
	if (fchdir(back) != 0)
		abort();
	close(back);
	text = xstrndup((const char *)data, size);
	for (line = strtok_r(text, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save))
		quote_round_trip(line);
	free(text);
	return 0;
}
