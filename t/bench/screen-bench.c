/*
 * screen-bench.c -- the screen's latency through a pseudo-terminal.
 *
 *	screen-bench TRAINSCOPE CACHE JOBDIR [KEYS]
 *
 * Starts `TRAINSCOPE --cache CACHE JOBDIR` on an 80x24 pseudo-terminal
 * and measures, as a user would feel them: the first full paint (start
 * until the status line is drawn), then each of KEYS (default 400) key
 * presses until the screen has answered (the first byte back, then no
 * byte for 3 ms), and the peak resident memory.  The baseline, timed in
 * the same run, is the same binary drawing the same pane headless
 * (`view events JOB`), start to exit.  Prints p50 and p99 and the ratios.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Read what is there until `quiet` seconds pass with nothing; bytes. */
static size_t
drain(int fd, double quiet, double limit, char *keep, size_t cap)
{
	struct pollfd p = { fd, POLLIN, 0 };
	double start = now();
	size_t got = 0;
	char buf[65536];
	ssize_t n;

	while (now() - start < limit) {
		if (poll(&p, 1, (int)(quiet * 1000 + 0.5)) <= 0)
			break;
		if ((n = read(fd, buf, sizeof buf)) <= 0)
			break;
		if (keep != NULL && got + (size_t)n < cap)
			memcpy(keep + got, buf, (size_t)n);
		got += (size_t)n;
	}
	return got;
}

/* Wait for the first byte: seconds, or -1 when none comes in `limit`. */
static double
first_byte(int fd, double limit)
{
	struct pollfd p = { fd, POLLIN, 0 };
	double start = now();

	if (poll(&p, 1, (int)(limit * 1000)) <= 0)
		return -1;
	return now() - start;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
pct(double *v, size_t n, double p)
{
	size_t i = (size_t)(p * (double)(n - 1) + 0.5);

	return v[i < n ? i : n - 1];
}

static long
peak_rss_kb(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL)
		if (strncmp(line, "VmHWM:", 6) == 0)
			kb = strtol(line + 6, NULL, 10);
	fclose(f);
	return kb;
}

static double
headless(const char *bin, const char *cache, const char *job)
{
	double t = now();
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		execl(bin, bin, "--cache", cache, "view", "events", job,
		    (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	return now() - t;
}

int
main(int argc, char **argv)
{
	struct winsize ws = { 24, 80, 0, 0 };
	static char screen[1 << 20];
	const char *keys = "jjjjkkkk1234" "1jkjk2jk3jk4jk1";
	double paint, *lat, base[5], t0;
	size_t nkeys, i, n, silent = 0;
	const char *job;
	long rss;
	pid_t pid;
	int fd;

	if (argc < 4) {
		fprintf(stderr, "usage: screen-bench TRAINSCOPE CACHE JOBDIR "
		    "[KEYS]\n");
		return 2;
	}
	nkeys = argc > 4 ? (size_t)atol(argv[4]) : 400;
	job = strrchr(argv[3], '/') != NULL ? strrchr(argv[3], '/') + 1 :
	    argv[3];
	lat = calloc(nkeys + 1, sizeof *lat);
	for (i = 0; i < 5; i++)
		base[i] = headless(argv[1], argv[2], job);
	qsort(base, 5, sizeof *base, cmp);

	t0 = now();
	pid = forkpty(&fd, NULL, NULL, &ws);
	if (pid < 0) {
		perror("forkpty");
		return 1;
	}
	if (pid == 0) {
		setenv("TERM", "xterm-256color", 1);
		setenv("LANG", "C.UTF-8", 1);
		execl(argv[1], argv[1], "-q", "--cache", argv[2], argv[3],
		    (char *)NULL);
		_exit(127);
	}
	/* the first paint is done when the status line's help shows */
	n = 0;
	paint = -1;
	while (now() - t0 < 30) {
		n += drain(fd, 0.001, 0.05, screen + n, sizeof screen - n);
		screen[n < sizeof screen ? n : sizeof screen - 1] = '\0';
		if (memmem(screen, n, "q quit", 6) != NULL) {
			paint = now() - t0;
			break;
		}
	}
	drain(fd, 0.05, 1, NULL, 0);
	/* a key that changes nothing (k on the first row) paints nothing:
	 * it is counted apart, not timed */
	for (i = n = 0; i < nkeys; i++) {
		char k = keys[i % strlen(keys)];
		double t = now(), fb;

		if (write(fd, &k, 1) != 1)
			break;
		fb = first_byte(fd, 0.25);
		if (fb < 0) {
			silent++;
			continue;
		}
		drain(fd, 0.003, 1, NULL, 0);
		lat[n++] = now() - t - 0.003;
	}
	rss = peak_rss_kb(pid);
	if (write(fd, "\003", 1) != 1)
		kill(pid, SIGTERM);
	drain(fd, 0.1, 2, NULL, 0);
	waitpid(pid, NULL, 0);
	qsort(lat, n, sizeof *lat, cmp);
	printf("screen-bench: %s, 80x24, %zu keys (%zu changed nothing)\n",
	    job, nkeys, silent);
	printf("baseline: view events headless   %7.1f ms (median of 5)\n",
	    base[2] * 1e3);
	printf("first paint                      %7.1f ms (%.2fx baseline; "
	    "target <= 200 ms)\n", paint * 1e3, paint / base[2]);
	printf("key to painted, p50              %7.2f ms (target <= 20 ms)\n",
	    pct(lat, n, 0.5) * 1e3);
	printf("key to painted, p99              %7.2f ms\n",
	    pct(lat, n, 0.99) * 1e3);
	printf("peak RSS                         %7.1f MB (target <= 100 MB)\n",
	    (double)rss / 1024);
	free(lat);
	return paint < 0;
}
