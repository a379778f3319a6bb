/*
 * sim-log.c -- the text a synthetic job leaves behind.
 *
 * Every rank writes what a Megatron-LM, DeepSpeed or HF Trainer process
 * prints (argument banner, NCCL init, one line per iteration, checkpoint
 * saves), torchrun writes its launcher lines, and every node's kernel and
 * daemons write a syslog.  The shapes follow real logs: the Megatron line
 * is the one of the recorded sample jobs, NCCL/torch/kernel lines are the
 * messages those programs print.  A fault adds its root-cause lines on
 * the faulty node first (kernel, then the process), then the cascade on
 * the peers (NCCL watchdog timeouts ten minutes later, SIGABRT) and the
 * launchers' ChildFailedError summaries.  Each file is a sink that counts
 * its lines, so root causes are recorded as path:line as they are written.
 * The recorded lines are the fault's whole signature: every line the fault
 * itself makes the kernel or the process print (both ends of a dead link
 * included), but none of the cascade that follows from the crash.
 * Lines of one rank are in time order; a combined file interleaves ranks
 * iteration by iteration.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <zlib.h>

#include "sim/sim.h"
#include "base/util.h"

#define TIMEOUT_MS	600000
#define CKPT_DIR	"/ckpt/gpt-sim"
#define PYLIB		"/usr/local/lib/python3.10/dist-packages"

struct sink {
	char *rel;		/* path relative to the job directory */
	FILE *f;
	gzFile gz;
	long lines;
};

enum fate { F_ALIVE, F_EXITED, F_HUNG, F_LOST, F_KILLED, F_TIMEOUT };

struct simlog {
	struct sim_job *j;
	char *dir;
	int count_only;		/* simlog_iter_bytes(): count, write nothing */
	uint64_t counted;
	struct sink *sinks;
	size_t nsinks;
	int *rank_sink;		/* per rank */
	int *launch_sink;	/* per node: torchrun's output */
	int *host_sink;		/* per node: syslog */
	double *host_next;	/* per node: time of the next benign line */
	int *fate;		/* per rank, at the end */
	double *fate_ts;
	struct rng rng;
	struct buf line;
	long seqnum;
	time_t cache_sec;
	struct tm cache_tm;
};

static const char *const bus_ids[] = {
	"18", "2a", "3a", "5d", "9a", "ab", "ba", "db"
};

/* ------------------------------------------------------------ sinks */

static int
sink_open(struct simlog *l, const char *rel, char **cause)
{
	struct sink *s;
	char *path;

	l->sinks = xreallocarray(l->sinks, l->nsinks + 1, sizeof *l->sinks);
	s = &l->sinks[l->nsinks];
	memset(s, 0, sizeof *s);
	s->rel = xasprintf("%s%s", rel, l->j->o.gzip ? ".gz" : "");
	path = xasprintf("%s/%s", l->dir, s->rel);
	if (l->j->o.gzip) {
		/* gzdopen-style stream: zlib writes mtime 0 and no name. */
		s->gz = gzopen(path, "wb1");
		if (s->gz != NULL)
			gzbuffer(s->gz, 1 << 16);
	} else if ((s->f = fopen(path, "w")) != NULL)
		setvbuf(s->f, NULL, _IOFBF, 1 << 15);
	if (s->f == NULL && s->gz == NULL) {
		ts_fail(cause, "cannot create '%s': %s", path, strerror(errno));
		free(path);
		free(s->rel);
		return -1;
	}
	free(path);
	l->nsinks++;
	return (int)l->nsinks - 1;
}

static int
sink_close(struct sink *s, char **cause)
{
	int rc = 0;

	if (s->gz != NULL && gzclose(s->gz) != Z_OK)
		rc = ts_fail(cause, "cannot write '%s'", s->rel);
	if (s->f != NULL && fclose(s->f) != 0)
		rc = ts_fail(cause, "cannot write '%s': %s", s->rel,
		    strerror(errno));
	s->gz = NULL;
	s->f = NULL;
	free(s->rel);
	s->rel = NULL;
	return rc;
}

/* The prefix a per-node or combined file puts before a rank's line. */
static void
add_prefix(struct simlog *l, int rank)
{
	if (rank < 0 || l->j->o.layout == SIM_PER_RANK)
		return;
	switch (l->j->o.prefix) {
	case SIM_PFX_SRUN:
		buf_addf(&l->line, "%d: ", rank);
		break;
	case SIM_PFX_DEFAULT:
		buf_addf(&l->line, "[default%d]:", rank);
		break;
	default:
		buf_addf(&l->line, "[rank%d]:", rank);
		break;
	}
}

/* Write l->line, completed with a newline, to sink `si`; its line number. */
static long
write_line(struct simlog *l, int si)
{
	struct sink *s;

	buf_addc(&l->line, '\n');
	l->j->log_bytes += l->line.len;
	if (l->count_only) {
		l->counted += l->line.len;
		return 0;
	}
	s = &l->sinks[si];
	if (s->gz != NULL)
		gzwrite(s->gz, l->line.s, (unsigned)l->line.len);
	else
		fwrite(l->line.s, 1, l->line.len, s->f);
	return ++s->lines;
}

/*
 * Write one line to sink `si` as rank `rank` (-1: no prefix): `head`
 * then the formatted text.  Returns the 1-based line number it got.
 */
static long
vemit(struct simlog *l, int si, int rank, const char *head, const char *fmt,
    va_list ap)
{
	buf_reset(&l->line);
	add_prefix(l, rank);
	buf_adds(&l->line, head);
	buf_vaddf(&l->line, fmt, ap);
	return write_line(l, si);
}

static long
flush_line(struct simlog *l, int si, int rank, const char *text)
{
	buf_reset(&l->line);
	add_prefix(l, rank);
	buf_adds(&l->line, text);
	return write_line(l, si);
}

/* printf-style line for a rank's sink. */
static long TS_PRINTF(3, 4)
rlog(struct simlog *l, int rank, const char *fmt, ...)
{
	va_list ap;
	long n;

	va_start(ap, fmt);
	n = vemit(l, l->rank_sink[rank], rank, "", fmt, ap);
	va_end(ap);
	return n;
}

/* A line of the launcher on node `node`. */
static long TS_PRINTF(3, 4)
llog(struct simlog *l, int node, const char *fmt, ...)
{
	va_list ap;
	long n;

	va_start(ap, fmt);
	n = vemit(l, l->launch_sink[node], -1, "", fmt, ap);
	va_end(ap);
	return n;
}

/* ------------------------------------------------------------ clocks */

enum { TS_MEGATRON, TS_PYLOG, TS_SYSLOG, TS_ELASTIC };

/* Format time `t` seen on `node` (its clock skew applied) into out. */
static const char *
fmt_ts(struct simlog *l, int node, double t, int style, char *out,
    size_t len)
{
	double lt = t + (node >= 0 ? l->j->skew[node] : 0);
	time_t sec = (time_t)floor(lt);
	long us = (long)((lt - (double)sec) * 1e6);
	struct tm *tm = &l->cache_tm;

	if (us > 999999)
		us = 999999;
	if (sec != l->cache_sec || l->cache_sec == 0) {
		gmtime_r(&sec, tm);
		l->cache_sec = sec;
	}
	switch (style) {
	case TS_MEGATRON:
	case TS_PYLOG:
		snprintf(out, len, "%04d-%02d-%02d %02d:%02d:%02d%c%03ld",
		    tm->tm_year + 1900, tm->tm_mon + 1, tm->tm_mday, tm->tm_hour,
		    tm->tm_min, tm->tm_sec, style == TS_PYLOG ? ',' : '.',
		    us / 1000);
		break;
	case TS_ELASTIC:
		snprintf(out, len, "%04d-%02d-%02d_%02d:%02d:%02d",
		    tm->tm_year + 1900, tm->tm_mon + 1, tm->tm_mday, tm->tm_hour,
		    tm->tm_min, tm->tm_sec);
		break;
	default:
		snprintf(out, len, "%04d-%02d-%02dT%02d:%02d:%02d.%06ld+00:00",
		    tm->tm_year + 1900, tm->tm_mon + 1, tm->tm_mday, tm->tm_hour,
		    tm->tm_min, tm->tm_sec, us);
		break;
	}
	return out;
}

/* A Megatron-style line: "[time] [INFO] [rank N] text". */
static long TS_PRINTF(4, 5)
mlog(struct simlog *l, int rank, double t, const char *fmt, ...)
{
	va_list ap;
	char ts[64], head[128];
	long n;

	fmt_ts(l, sim_rank_node(l->j, rank), t, TS_MEGATRON, ts, sizeof ts);
	snprintf(head, sizeof head, "[%s] [INFO] [rank %d] ", ts, rank);
	va_start(ap, fmt);
	n = vemit(l, l->rank_sink[rank], rank, head, fmt, ap);
	va_end(ap);
	return n;
}

/* A Python logging line as DeepSpeed writes it. */
static long TS_PRINTF(5, 6)
dlog(struct simlog *l, int rank, double t, const char *where,
    const char *fmt, ...)
{
	va_list ap;
	char ts[64], head[256];
	long n;

	fmt_ts(l, sim_rank_node(l->j, rank), t, TS_PYLOG, ts, sizeof ts);
	snprintf(head, sizeof head, "[%s] [INFO] [%s] ", ts, where);
	va_start(ap, fmt);
	n = vemit(l, l->rank_sink[rank], rank, head, fmt, ap);
	va_end(ap);
	return n;
}

/* The framework's informational line, whatever the format. */
static long TS_PRINTF(4, 5)
info(struct simlog *l, int rank, double t, const char *fmt, ...)
{
	va_list ap;
	char ts[64], *s;
	long n;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	if (l->j->o.format == SIM_MEGATRON)
		n = mlog(l, rank, t, "%s", s);
	else if (l->j->o.format == SIM_DEEPSPEED)
		n = dlog(l, rank, t, "logging.py:96:log_dist", "[Rank %d] %s",
		    rank, s);
	else {
		fmt_ts(l, sim_rank_node(l->j, rank), t, TS_PYLOG, ts, sizeof ts);
		n = rlog(l, rank, "[INFO|trainer.py:2078] %s >> %s", ts, s);
	}
	free(s);
	return n;
}

/* A syslog line on `node`'s host log. */
static long TS_PRINTF(4, 5)
hlog(struct simlog *l, int node, double t, const char *fmt, ...)
{
	va_list ap;
	char ts[64], *s, *full;
	long n;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	fmt_ts(l, node, t, TS_SYSLOG, ts, sizeof ts);
	full = xasprintf("%s %s %s", ts, l->j->node_name[node], s);
	n = flush_line(l, l->host_sink[node], -1, full);
	free(full);
	free(s);
	return n;
}

/* A kernel line: "kernel: [uptime] text". */
static long TS_PRINTF(4, 5)
klog(struct simlog *l, int node, double t, const char *fmt, ...)
{
	va_list ap;
	char *s;
	long n;
	double up = t - l->j->t0 + 86400.0 * 3 + node * 1234.5;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	n = hlog(l, node, t, "kernel: [%12.6f] %s", up, s);
	free(s);
	return n;
}

/* ------------------------------------------------------------ files */

char *
simlog_rank_path(const struct sim_job *j, int rank)
{
	const char *gz = j->o.gzip ? ".gz" : "";

	switch (j->o.layout) {
	case SIM_PER_RANK:
		return xasprintf("logs/%s/rank-%d.log%s",
		    j->node_name[sim_rank_node(j, rank)], rank, gz);
	case SIM_PER_NODE:
		return xasprintf("logs/%s.log%s",
		    j->node_name[sim_rank_node(j, rank)], gz);
	default:
		return xasprintf("logs/job.log%s", gz);
	}
}

static int
mkdirs(struct simlog *l, char **cause)
{
	const char *sub[] = { "logs", "host" };
	char *p;
	size_t i;
	int n;

	for (i = 0; i < TS_NELEM(sub); i++) {
		p = xasprintf("%s/%s", l->dir, sub[i]);
		if (mkdir(p, 0777) != 0 && errno != EEXIST) {
			ts_fail(cause, "cannot create '%s': %s", p, strerror(errno));
			free(p);
			return -1;
		}
		free(p);
	}
	for (n = 0; l->j->o.layout == SIM_PER_RANK && n < l->j->o.nodes; n++) {
		p = xasprintf("%s/logs/%s", l->dir, l->j->node_name[n]);
		if (mkdir(p, 0777) != 0 && errno != EEXIST) {
			ts_fail(cause, "cannot create '%s': %s", p, strerror(errno));
			free(p);
			return -1;
		}
		free(p);
	}
	return 0;
}

static int
open_sinks(struct simlog *l, char **cause)
{
	struct sim_job *j = l->j;
	char rel[256];
	int n, r, si = -1;

	if (j->o.layout == SIM_COMBINED &&
	    (si = sink_open(l, "logs/job.log", cause)) < 0)
		return -1;
	for (n = 0; n < j->o.nodes; n++) {
		snprintf(rel, sizeof rel, j->o.layout == SIM_PER_RANK ?
		    "logs/%s/torchrun.log" : "logs/%s.log", j->node_name[n]);
		if (j->o.layout != SIM_COMBINED &&
		    (si = sink_open(l, rel, cause)) < 0)
			return -1;
		l->launch_sink[n] = si;
		for (r = n * j->o.gpn; r < (n + 1) * j->o.gpn; r++) {
			snprintf(rel, sizeof rel, "logs/%s/rank-%d.log",
			    j->node_name[n], r);
			if (j->o.layout != SIM_PER_RANK)
				l->rank_sink[r] = si;
			else if ((l->rank_sink[r] = sink_open(l, rel, cause)) < 0)
				return -1;
		}
	}
	for (n = 0; n < j->o.nodes; n++) {
		snprintf(rel, sizeof rel, "host/%s.log", j->node_name[n]);
		if ((l->host_sink[n] = sink_open(l, rel, cause)) < 0)
			return -1;
	}
	return 0;
}

static struct simlog *
simlog_new(struct sim_job *j, const char *dir)
{
	struct simlog *l = xcalloc(1, sizeof *l);

	l->j = j;
	l->dir = xstrdup(dir != NULL ? dir : "");
	l->rank_sink = xcalloc((size_t)j->world, sizeof *l->rank_sink);
	l->launch_sink = xcalloc((size_t)j->o.nodes, sizeof *l->launch_sink);
	l->host_sink = xcalloc((size_t)j->o.nodes, sizeof *l->host_sink);
	l->host_next = xcalloc((size_t)j->o.nodes, sizeof *l->host_next);
	l->fate = xcalloc((size_t)j->world, sizeof *l->fate);
	l->fate_ts = xcalloc((size_t)j->world, sizeof *l->fate_ts);
	rng_seed(&l->rng, j->o.seed * 0x2545f4914f6cdd1dULL + 3);
	return l;
}

struct simlog *
simlog_open(struct sim_job *j, const char *dir, char **cause)
{
	struct simlog *l = simlog_new(j, dir);

	if (mkdirs(l, cause) != 0 || open_sinks(l, cause) != 0) {
		simlog_free(l);
		return NULL;
	}
	return l;
}

void
simlog_free(struct simlog *l)
{
	size_t i;

	if (l == NULL)
		return;
	for (i = 0; i < l->nsinks; i++)
		sink_close(&l->sinks[i], NULL);
	free(l->sinks);
	free(l->rank_sink);
	free(l->launch_sink);
	free(l->host_sink);
	free(l->host_next);
	free(l->fate);
	free(l->fate_ts);
	buf_release(&l->line);
	free(l->dir);
	free(l);
}

/* ------------------------------------------------------------ launch */

static void
launcher_banner(struct simlog *l, int node, double t)
{
	char ts[64];
	const char *w = "torch.distributed.run: [WARNING]";

	fmt_ts(l, node, t, TS_PYLOG, ts, sizeof ts);
	llog(l, node, "[%s] %s ", ts, w);
	llog(l, node, "[%s] %s *****************************************", ts, w);
	llog(l, node, "[%s] %s Setting OMP_NUM_THREADS environment variable for "
	    "each process to be 1 in default, to avoid your system being "
	    "overloaded, please further tune the variable for optimal "
	    "performance in your application as needed. ", ts, w);
	llog(l, node, "[%s] %s *****************************************", ts, w);
}

/* Benign kernel and daemon lines at the start of the job. */
static void
host_boot(struct simlog *l, int n, double t)
{
	klog(l, n, t - 40, "mlx5_core 0000:0c:00.0: mlx5_pcie_event:301:(pid 0): "
	    "PCIe slot advertised sufficient power (75W).");
	klog(l, n, t - 39.5, "mlx5_core 0000:0c:00.0 eth2: Link up");
	klog(l, n, t - 30, "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  "
	    "535.161.08  Thu Feb 29 03:46:21 UTC 2024");
	hlog(l, n, t - 29, "nvidia-persistenced[%d]: Started (%d)", 1700 + n,
	    1700 + n);
	hlog(l, n, t - 5, "systemd[1]: Started Session %d of User slurm.",
	    10 + (int)rng_below(&l->rng, 400));
	if (rng_below(&l->rng, 3) == 0)
		klog(l, n, t - 3, "EDAC MC0: 1 CE memory read error on "
		    "CPU_SrcID#0_MC#0_Chan#%d_DIMM#0 (channel:%d slot:0 page:0x%x "
		    "offset:0x0 grain:32 syndrome:0x0 - err_code:0x0000:0x009f)",
		    (int)rng_below(&l->rng, 4), (int)rng_below(&l->rng, 4),
		    (unsigned)rng_below(&l->rng, 0xfffff));
	l->host_next[n] = t + rng_range(&l->rng, 20, 120);
}

static void
nccl_init(struct simlog *l, int r, double t)
{
	struct sim_job *j = l->j;
	int n = sim_rank_node(j, r), g = r % j->o.gpn;
	const char *h = j->node_name[n], *bus = bus_ids[g % 8];
	int pid = j->pid[r], tid = pid + 60 + g;
	unsigned long comm = 0x55d400000000UL + rng_below(&l->rng, 0xffffff) * 16;
	uint64_t commid = 0x8a3e5c1f00000000ULL ^ (j->o.seed * 0x1000193ULL);

	(void)t;
	rlog(l, r, "%s:%d:%d [%d] NCCL INFO Bootstrap : Using eth0:%s<0>", h, pid,
	    pid, g, j->node_ip[n]);
	rlog(l, r, "%s:%d:%d [%d] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: "
	    "cannot open shared object file: No such file or directory No plugin "
	    "found (libnccl-net.so), using internal implementation", h, pid, pid,
	    g);
	rlog(l, r, "%s:%d:%d [%d] NCCL INFO cudaDriverVersion 12040", h, pid, pid,
	    g);
	if (r == 0)
		rlog(l, r, "NCCL version 2.19.3+cuda12.3");
	if (j->o.transport == SIM_ROCE)
		rlog(l, r, "%s:%d:%d [%d] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE "
		    "[RO]; OOB eth0:%s<0>", h, pid, tid, g, j->node_ip[n]);
	else
		rlog(l, r, "%s:%d:%d [%d] NCCL INFO NET/Socket : Using [0]eth0:%s<0>",
		    h, pid, tid, g, j->node_ip[n]);
	rlog(l, r, "%s:%d:%d [%d] NCCL INFO Using network %s", h, pid, tid, g,
	    j->o.transport == SIM_ROCE ? "IB" : "Socket");
	if (j->o.transport == SIM_ROCE && g == 0 && rng_below(&l->rng, 3) == 0)
		rlog(l, r, "%s:%d:%d [%d] NCCL WARN NET/IB : mlx5_0:1 Got async "
		    "event : GID table change", h, pid, pid + 2, g);	/* benign */
	rlog(l, r, "%s:%d:%d [%d] NCCL INFO comm 0x%lx rank %d nranks %d cudaDev "
	    "%d nvmlDev %d busId %s000 commId 0x%llx - Init START", h, pid, tid,
	    g, comm, r, j->world, g, g, bus, (unsigned long long)commid);
	rlog(l, r, "%s:%d:%d [%d] NCCL INFO comm 0x%lx rank %d nRanks %d nNodes %d "
	    "localRanks %d localRank %d MNNVL 0", h, pid, tid, g, comm, r,
	    j->world, j->o.nodes, j->o.gpn, g);
	rlog(l, r, "%s:%d:%d [%d] NCCL INFO Setting affinity for GPU %d to "
	    "%s", h, pid, tid, g, g, g < 4 ? "ffffffff,00000000,ffffffff" :
	    "ffffffff,00000000,ffffffff,00000000");
	rlog(l, r, "%s:%d:%d [%d] NCCL INFO Trees [0] %d/-1/-1->%d->%d [1] "
	    "%d/-1/-1->%d->%d", h, pid, tid, g, (r + 1) % j->world, r,
	    (r + j->world - 1) % j->world, (r + 1) % j->world, r,
	    (r + j->world - 1) % j->world);
	rlog(l, r, "%s:%d:%d [%d] NCCL INFO Connected all rings", h, pid, tid, g);
	rlog(l, r, "%s:%d:%d [%d] NCCL INFO Connected all trees", h, pid, tid, g);
	rlog(l, r, "%s:%d:%d [%d] NCCL INFO comm 0x%lx rank %d nranks %d cudaDev "
	    "%d nvmlDev %d busId %s000 commId 0x%llx - Init COMPLETE", h, pid,
	    tid, g, comm, r, j->world, g, g, bus, (unsigned long long)commid);
}

static void
megatron_args(struct simlog *l, int r, double t)
{
	struct sim_job *j = l->j;
	char v[64];
	struct { const char *k; const char *fmt; long val; } a[] = {
		{ "clip_grad", "1.0", 0 },
		{ "data_parallel_size", "%ld", j->o.dp },
		{ "distributed_backend", "nccl", 0 },
		{ "distributed_timeout_minutes", "%ld", TIMEOUT_MS / 60000 },
		{ "ffn_hidden_size", "%ld", 28672 },
		{ "global_batch_size", "%ld", j->gbs },
		{ "hidden_size", "%ld", 8192 },
		{ "load", CKPT_DIR, 0 },
		{ "lr", "0.0003", 0 },
		{ "micro_batch_size", "%ld", 4 },
		{ "num_attention_heads", "%ld", 64 },
		{ "num_layers", "%ld", 80 },
		{ "pipeline_model_parallel_size", "%ld", j->o.pp },
		{ "rank", "%ld", r },
		{ "save", CKPT_DIR, 0 },
		{ "save_interval", "%ld", j->save_interval },
		{ "seed", "%ld", 1234 },
		{ "seq_length", "%ld", 4096 },
		{ "tensor_model_parallel_size", "%ld", j->o.tp },
		{ "train_iters", "%ld", j->o.iters },
		{ "world_size", "%ld", j->world },
	};
	size_t i, k;
	char dots[40];

	mlog(l, r, t, "------------------------ arguments ------------------------");
	for (i = 0; i < TS_NELEM(a); i++) {
		snprintf(v, sizeof v, a[i].fmt, a[i].val);
		k = strlen(a[i].k) < 30 ? 32 - strlen(a[i].k) : 3;
		memset(dots, '.', k);
		dots[k] = '\0';
		mlog(l, r, t, "  %s %s %s", a[i].k, dots, v);
	}
	mlog(l, r, t, "-------------------- end of arguments ---------------------");
}

struct frame {
	const char *file;
	int line;
	const char *fn;
	const char *code;
};

static const struct frame megatron_outer[] = {
	{ "/workspace/Megatron-LM/pretrain_gpt.py", 259, "<module>",
	  "pretrain(" },
	{ "/workspace/Megatron-LM/megatron/training/training.py", 312, "pretrain",
	  "iteration, num_floating_point_operations_so_far = train(" },
	{ "/workspace/Megatron-LM/megatron/training/training.py", 1186, "train",
	  "train_step(forward_step_func," },
	{ "/workspace/Megatron-LM/megatron/training/training.py", 617,
	  "train_step", "losses_reduced = forward_backward_func(" },
};
static const struct frame ds_outer[] = {
	{ "/workspace/train.py", 412, "<module>", "main()" },
	{ "/workspace/train.py", 371, "main", "model_engine.backward(loss)" },
	{ PYLIB "/deepspeed/utils/nvtx.py", 15, "wrapped_fn",
	  "ret_val = func(*args, **kwargs)" },
	{ PYLIB "/deepspeed/runtime/engine.py", 1976, "backward",
	  "self.optimizer.backward(loss, retain_graph=retain_graph)" },
};
static const struct frame hf_outer[] = {
	{ "/workspace/run_clm.py", 655, "<module>", "main()" },
	{ "/workspace/run_clm.py", 603, "main",
	  "train_result = trainer.train(resume_from_checkpoint=checkpoint)" },
	{ PYLIB "/transformers/trainer.py", 1938, "train",
	  "return inner_training_loop(" },
	{ PYLIB "/transformers/trainer.py", 2279, "_inner_training_loop",
	  "tr_loss_step = self.training_step(model, inputs)" },
};

static void
frames(struct simlog *l, int r, const struct frame *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		rlog(l, r, "  File \"%s\", line %d, in %s", f[i].file, f[i].line,
		    f[i].fn);
		rlog(l, r, "    %s", f[i].code);
	}
}

/* "Traceback ..." and the framework's outer frames, then `inner`. */
static void
traceback(struct simlog *l, int r, const struct frame *inner, size_t n)
{
	rlog(l, r, "Traceback (most recent call last):");
	switch (l->j->o.format) {
	case SIM_MEGATRON:
		frames(l, r, megatron_outer, TS_NELEM(megatron_outer));
		break;
	case SIM_DEEPSPEED:
		frames(l, r, ds_outer, TS_NELEM(ds_outer));
		break;
	default:
		frames(l, r, hf_outer, TS_NELEM(hf_outer));
		break;
	}
	frames(l, r, inner, n);
}

/* Lines every rank prints before it talks to its peers. */
static void
rank_preamble(struct simlog *l, int r, double t)
{
	struct sim_job *j = l->j;

	if (r % j->o.gpn == 0 && sim_rank_node(j, r) > 0 &&
	    rng_below(&l->rng, 4) == 0)
		rlog(l, r, "[W socket.cpp:697] [c10d] The client socket has failed "
		    "to connect to [%s]:29500 (errno: 111 - Connection refused).",
		    j->node_name[0]);
	switch (j->o.format) {
	case SIM_MEGATRON:
		mlog(l, r, t, "using world size: %d, data-parallel size: %d, "
		    "tensor-model-parallel size: %d, pipeline-model-parallel size: "
		    "%d", j->world, j->o.dp, j->o.tp, j->o.pp);
		break;
	case SIM_DEEPSPEED:
		dlog(l, r, t, "real_accelerator.py:203:get_accelerator",
		    "Setting ds_accelerator to cuda (auto detect)");
		dlog(l, r, t + 0.4, "comm.py:637:init_distributed", "cdb=None");
		dlog(l, r, t + 0.4, "comm.py:668:init_distributed",
		    "Initializing TorchBackend in DeepSpeed with backend nccl");
		break;
	default:
		rlog(l, r, "%s/transformers/training_args.py:1525: FutureWarning: "
		    "`evaluation_strategy` is deprecated and will be removed in "
		    "version 4.46 of Transformers. Use `eval_strategy` instead",
		    PYLIB);
		rlog(l, r, "  warnings.warn(");
		break;
	}
}

/* "> rank R on NODE: pipeline stage ..., data-parallel group [...]". */
static void
rank_groups(struct simlog *l, int r, double t)
{
	struct sim_job *j = l->j;
	int s = sim_rank_stage(j, r), d = sim_rank_dp(j, r), t0 = r % j->o.tp;
	int per = j->o.dp * j->o.tp, k;
	struct buf dp = BUF_INIT, pp = BUF_INIT;

	for (k = 0; k < j->o.dp; k++)
		buf_addf(&dp, "%s%d", k ? ", " : "", s * per + k * j->o.tp + t0);
	for (k = 0; k < j->o.pp; k++)
		buf_addf(&pp, "%s%d", k ? ", " : "", k * per + d * j->o.tp + t0);
	mlog(l, r, t, "> rank %d on %s: pipeline stage %d/%d, data-parallel "
	    "index %d/%d, data-parallel group [%s], pipeline group [%s]", r,
	    j->node_name[sim_rank_node(j, r)], s, j->o.pp, d, j->o.dp,
	    buf_str(&dp), buf_str(&pp));
	buf_release(&dp);
	buf_release(&pp);
}

/* Megatron's "[after ...] datetime: ..." markers. */
static void
datetime_mark(struct simlog *l, int r, double t, const char *what)
{
	char ts[64];

	fmt_ts(l, sim_rank_node(l->j, r), t, TS_MEGATRON, ts, sizeof ts);
	mlog(l, r, t, "[%s] datetime: %s", what, ts);
}

/* The rest of setup after the communicator is up. */
static void
rank_setup(struct simlog *l, int r, double t)
{
	struct sim_job *j = l->j;
	int s = sim_rank_stage(j, r);

	if (j->o.format == SIM_MEGATRON) {
		mlog(l, r, t, "> initialized torch distributed in %.1f ms",
		    rng_range(&l->rng, 900, 2500));
		rank_groups(l, r, t);
		mlog(l, r, t + 0.5, "building GPT model ...");
		mlog(l, r, t + 2.1, " > number of parameters on (tensor, pipeline) "
		    "model parallel rank (%d, %d): %ld", r % j->o.tp, s,
		    70000000000L / j->o.tp / j->o.pp + s * 1310720L);
		mlog(l, r, t + 2.2, "> learning rate decay style: cosine");
	} else if (j->o.format == SIM_DEEPSPEED) {
		dlog(l, r, t, "logging.py:96:log_dist", "[Rank %d] DeepSpeed info: "
		    "version=0.14.0, git-hash=unknown, git-branch=unknown", r);
		dlog(l, r, t + 1.5, "logging.py:96:log_dist", "[Rank %d] DeepSpeed "
		    "Flops Optimizer Type: FusedAdam", r);
		if (r == 0)
			rlog(l, r, "%s/torch/utils/checkpoint.py:464: UserWarning: "
			    "torch.utils.checkpoint: the use_reentrant parameter should "
			    "be passed explicitly.", PYLIB);
	} else if (r == 0) {
		info(l, r, t + 2, "***** Running training *****");
		rlog(l, r, "  Num examples = %ld", j->o.iters * j->gbs);
		rlog(l, r, "  Num Epochs = 1");
		rlog(l, r, "  Total train batch size (w. parallel, distributed & "
		    "accumulation) = %ld", j->gbs);
		rlog(l, r, "  Total optimization steps = %ld", j->o.iters);
	}
}

/* config-error: every rank fails the same way while checking arguments. */
static void
config_error(struct simlog *l, int r, double t)
{
	static const struct frame f[] = {
		{ "/workspace/Megatron-LM/pretrain_gpt.py", 259, "<module>",
		  "pretrain(" },
		{ "/workspace/Megatron-LM/megatron/training/training.py", 221,
		  "pretrain", "initialize_megatron(" },
		{ "/workspace/Megatron-LM/megatron/training/initialize.py", 55,
		  "initialize_megatron", "validate_args(args, args_defaults)" },
		{ "/workspace/Megatron-LM/megatron/training/arguments.py", 214,
		  "validate_args", "assert args.global_batch_size % "
		  "(args.micro_batch_size * args.data_parallel_size) == 0, \\" },
	};
	struct sim_job *j = l->j;
	char *what;
	long line;

	(void)t;
	rlog(l, r, "Traceback (most recent call last):");
	frames(l, r, f, TS_NELEM(f));
	what = xasprintf("AssertionError: global batch size (%ld) is not "
	    "divisible by micro batch size (4) times data parallel size (%d)",
	    j->gbs + 2, j->o.dp);
	line = rlog(l, r, "%s", what);
	sim_add_cause(j, l->sinks[l->rank_sink[r]].rel, line, what);
	free(what);
}

static const struct frame load_lib[] = {
	{ PYLIB "/deepspeed/runtime/engine.py", 2740, "load_checkpoint",
	  "load_path, client_states = self._load_checkpoint(load_dir," },
	{ PYLIB "/deepspeed/runtime/checkpoint_engine/torch_checkpoint_engine.py",
	  28, "load", "partition = torch.load(path, map_location=map_location)" },
};

/* ckpt-load-missing: the checkpoint directory is not mounted on a node. */
static void
load_missing(struct simlog *l, int r, double t, int first)
{
	static const struct frame f[] = {
		{ "/workspace/Megatron-LM/megatron/training/training.py", 270,
		  "pretrain", "model, optimizer, opt_param_scheduler = "
		  "setup_model_and_optimizer(" },
		{ "/workspace/Megatron-LM/megatron/training/checkpointing.py", 1090,
		  "load_checkpoint", "state_dict = torch.load(checkpoint_name, "
		  "map_location='cpu')" },
		{ PYLIB "/torch/serialization.py", 997, "load",
		  "with _open_file_like(f, 'rb') as opened_file:" },
	};
	struct sim_job *j = l->j;
	char *what;
	long line;

	rlog(l, r, "Traceback (most recent call last):");
	if (j->o.format == SIM_MEGATRON) {
		frames(l, r, megatron_outer, 1);
		frames(l, r, f, TS_NELEM(f));
		what = xasprintf("FileNotFoundError: [Errno 2] No such file or "
		    "directory: '" CKPT_DIR "/iter_0005000/mp_rank_%02d_%03d/"
		    "model_optim_rng.pt'", r % j->o.tp, sim_rank_stage(j, r));
	} else {
		frames(l, r, j->o.format == SIM_DEEPSPEED ? ds_outer : hf_outer, 1);
		frames(l, r, load_lib, TS_NELEM(load_lib));
		frames(l, r, f + 2, 1);
		what = xasprintf("FileNotFoundError: [Errno 2] No such file or "
		    "directory: '" CKPT_DIR "/global_step5000/mp_rank_%02d_model_"
		    "states.pt'", r % j->o.tp);
	}
	line = rlog(l, r, "%s", what);
	if (first)
		sim_add_cause(j, l->sinks[l->rank_sink[r]].rel, line, what);
	free(what);
	l->fate[r] = F_EXITED;
	l->fate_ts[r] = t;
}

static void
launch_rank(struct simlog *l, int r, double t)
{
	struct sim_job *j = l->j;
	struct sim_fault *cfg = sim_find_fault(j, SIM_CONFIG_ERROR);
	struct sim_fault *lm = sim_find_fault(j, SIM_CKPT_LOAD_MISSING);
	int n = sim_rank_node(j, r);

	rank_preamble(l, r, t);
	if (cfg != NULL) {
		config_error(l, r, t + 0.3);
		l->fate[r] = F_EXITED;
		l->fate_ts[r] = t + 0.3;
		return;
	}
	if (j->o.format == SIM_MEGATRON) {
		megatron_args(l, r, t);
		mlog(l, r, t, "> initializing torch distributed with backend nccl, "
		    "init_method env://, MASTER_ADDR=%s:29500, timeout %d s ...",
		    j->node_ip[0], TIMEOUT_MS / 1000);
	}
	nccl_init(l, r, t + 1);
	rank_setup(l, r, t + 2);
	if (lm != NULL) {
		info(l, r, t + 5, " loading checkpoint from " CKPT_DIR
		    " at iteration 5000");
		if (n == lm->node)
			load_missing(l, r, t + 5.2, r == lm->rank);
		else
			info(l, r, t + 9, "  successfully loaded checkpoint from "
			    CKPT_DIR " [ t %d/%d, p %d/%d ] at iteration 5000",
			    r % j->o.tp, j->o.tp, sim_rank_stage(j, r), j->o.pp);
		return;
	}
	if (j->o.format == SIM_MEGATRON) {
		mlog(l, r, t + 5, "WARNING: could not find the metadata file "
		    CKPT_DIR "/latest_checkpointed_iteration.txt");
		mlog(l, r, t + 5, "    will not load any checkpoints and will "
		    "start from random");
		datetime_mark(l, r, t + 5.5, "after model, optimizer, and learning "
		    "rate scheduler are built");
		mlog(l, r, t + 6, "> building train, validation, and test datasets "
		    "...");
		datetime_mark(l, r, j->train_start - 0.02, "after dataloaders are "
		    "built");
		mlog(l, r, j->train_start - 0.01, "done with setup ...");
		mlog(l, r, j->train_start, "training ...");
		datetime_mark(l, r, j->train_start, "before the start of training "
		    "step");
	}
}

/* The launch fault's lines on the host (a failed mount). */
static void
launch_host_fault(struct simlog *l, int n, double t)
{
	struct sim_fault *lm = sim_find_fault(l->j, SIM_CKPT_LOAD_MISSING);
	long line;
	const char *what = "Failed to mount ckpt.mount - /ckpt.";

	if (lm == NULL || lm->node != n)
		return;
	line = hlog(l, lm->node, t - 50, "mount[%d]: mount.nfs: Connection "
	    "timed out", 900 + lm->node);
	sim_add_cause(l->j, l->sinks[l->host_sink[lm->node]].rel, line,
	    "mount.nfs: Connection timed out");
	line = hlog(l, lm->node, t - 50, "systemd[1]: %s", what);
	sim_add_cause(l->j, l->sinks[l->host_sink[lm->node]].rel, line, what);
}

int
simlog_launch(struct simlog *l, char **cause)
{
	struct sim_job *j = l->j;
	double t;
	int n, r;

	(void)cause;
	j->train_start = j->t0 + 15 + rng_range(&l->rng, 0, 3);
	for (n = 0; n < j->o.nodes; n++) {
		launch_host_fault(l, n, j->t0);
		host_boot(l, n, j->t0);
		launcher_banner(l, n, j->t0 + rng_range(&l->rng, 0, 0.5));
	}
	for (r = 0; r < j->world; r++) {
		t = j->t0 + 2 + rng_range(&l->rng, 0, 1);
		launch_rank(l, r, t);
	}
	if (sim_find_fault(j, SIM_CONFIG_ERROR) != NULL ||
	    sim_find_fault(j, SIM_CKPT_LOAD_MISSING) != NULL) {
		j->crashed = 1;
		j->crash_iter = 0;
		j->crash_stage = sim_find_fault(j, SIM_CONFIG_ERROR) != NULL ?
		    SIM_ST_INIT : SIM_ST_LOAD;
		j->crash_ts = j->t0 + (j->crash_stage == SIM_ST_INIT ? 2.3 : 7.2);
		sim_find_fault(j, j->crash_stage == SIM_ST_INIT ?
		    SIM_CONFIG_ERROR : SIM_CKPT_LOAD_MISSING)->ts = j->crash_ts;
	}
	return 0;
}

/* ------------------------------------------------------------ iterations */

static void
host_noise(struct simlog *l, int n, double until)
{
	while (l->host_next[n] < until) {
		double t = l->host_next[n];

		switch (rng_below(&l->rng, 5)) {
		case 0:
			hlog(l, n, t, "CRON[%d]: (root) CMD (command -v debian-sa1 > "
			    "/dev/null && debian-sa1 1 1)",
			    30000 + (int)rng_below(&l->rng, 9999));
			break;
		case 1:
			hlog(l, n, t, "systemd[1]: Starting sysstat-collect.service - "
			    "system activity accounting tool...");
			break;
		case 2:
			klog(l, n, t, "perf: interrupt took too long (%d > %d), "
			    "lowering kernel.perf_event_max_sample_rate to %d",
			    2600 + (int)rng_below(&l->rng, 900), 2500,
			    40000 + (int)rng_below(&l->rng, 40000));
			break;
		case 3:
			klog(l, n, t, "EDAC MC0: 1 CE memory read error on "
			    "CPU_SrcID#0_MC#0_Chan#%d_DIMM#0 (channel:%d slot:0 "
			    "page:0x%x offset:0x0 grain:32 syndrome:0x0)",
			    (int)rng_below(&l->rng, 4), (int)rng_below(&l->rng, 4),
			    (unsigned)rng_below(&l->rng, 0xfffff));
			break;
		default:
			hlog(l, n, t, "chronyd[%d]: Selected source 10.42.200.1 (ntp1)",
			    800 + n);
			break;
		}
		l->host_next[n] = t + rng_range(&l->rng, 30, 400);
	}
}

static void
megatron_iter(struct simlog *l, int r, const struct sim_iter *it, double t,
    double elapsed)
{
	struct sim_job *j = l->j;

	mlog(l, r, t, " iteration %8ld/%8ld | consumed samples: %12ld | elapsed "
	    "time per iteration (ms): %.1f | learning rate: %.6E | global batch "
	    "size: %5ld | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | "
	    "number of skipped iterations:   0 | number of nan iterations:   0 |",
	    it->n, j->o.iters, it->n * j->gbs, elapsed, it->lr, j->gbs, it->loss,
	    it->gnorm);
	if (!it->ckpt)
		return;
	mlog(l, r, t, "saving checkpoint at iteration %7ld to " CKPT_DIR, it->n);
	if (it->crash_ts == 0)
		mlog(l, r, it->ckpt_end, "  successfully saved checkpoint at "
		    "iteration %7ld to " CKPT_DIR " [ t %d/%d, p %d/%d ] (%.1f ms)",
		    it->n, r % j->o.tp, j->o.tp, sim_rank_stage(j, r), j->o.pp,
		    (it->ckpt_end - it->end) * 1000);
}

static void
deepspeed_iter(struct simlog *l, int r, const struct sim_iter *it, double t,
    double elapsed)
{
	struct sim_job *j = l->j;

	dlog(l, r, t, "logging.py:96:log_dist", "[Rank %d] step=%ld, skipped=0, "
	    "lr=[%.10g], mom=[(0.9, 0.95)]", r, it->n, it->lr);
	if (r == 0)
		dlog(l, r, t, "timer.py:260:stop", "epoch=0/micro_step=%ld/"
		    "global_step=%ld, RunningAvgSamplesPerSec=%.2f, "
		    "CurrSamplesPerSec=%.2f, MemAllocated=31.2GB, "
		    "MaxMemAllocated=58.71GB", it->n * j->o.micro, it->n,
		    j->gbs / (j->o.iter_ms / 1000), j->gbs / (elapsed / 1000));
	if (!it->ckpt)
		return;
	dlog(l, r, t, "engine.py:3488:_save_zero_checkpoint", "zero checkpoint "
	    "saved " CKPT_DIR "/global_step%ld/zero_pp_rank_%d_mp_rank_00_optim_"
	    "states.pt", it->n, sim_rank_dp(j, r));
	if (it->crash_ts == 0)
		dlog(l, r, it->ckpt_end, "torch_checkpoint_engine.py:33:commit",
		    "[Torch] Checkpoint global_step%ld is ready now!", it->n);
}

static void
hf_iter(struct simlog *l, int r, const struct sim_iter *it, double t,
    double elapsed)
{
	struct sim_job *j = l->j;
	long pct = it->n * 100 / j->o.iters, done = it->n * 10 / j->o.iters;
	double spent = t - j->train_start, left = spent / it->n *
	    (double)(j->o.iters - it->n);
	char bar[11];

	if (r != 0)
		return;
	memset(bar, ' ', 10);
	memset(bar, '#', (size_t)done);
	bar[10] = '\0';
	rlog(l, r, "%3ld%%|%s| %ld/%ld [%02ld:%02ld<%02ld:%02ld, %.2fs/it]", pct,
	    bar, it->n, j->o.iters, (long)spent / 60, (long)spent % 60,
	    (long)left / 60, (long)left % 60, elapsed / 1000);
	if (it->n % 10 == 0)
		rlog(l, r, "{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': "
		    "%.4e, 'epoch': %.2f}", it->loss, it->gnorm, it->lr,
		    (double)it->n / j->o.iters);
	if (it->ckpt)
		info(l, r, t, "Saving model checkpoint to " CKPT_DIR
		    "/checkpoint-%ld", it->n);
}

/* A warning every rank prints once, in the first iteration. */
static void
first_iter_warning(struct simlog *l, int r)
{
	if (l->j->o.format == SIM_MEGATRON)
		rlog(l, r, "/workspace/Megatron-LM/megatron/core/tensor_parallel/"
		    "layers.py:609: UserWarning: async_grad_allreduce is "
		    "deprecated, not in use anymore and will be removed in a "
		    "future release");
	else
		rlog(l, r, "[W reducer.cpp:1389] Warning: find_unused_parameters="
		    "True was specified in DDP constructor, but did not find any "
		    "unused parameters in the forward pass. (function operator())");
}

/* A read that failed once and worked on the retry. */
static void
retried_read(struct simlog *l, const struct sim_iter *it)
{
	int r = (int)rng_below(&l->rng, (uint64_t)l->j->world);

	if (l->fate[r] != F_ALIVE || (l->j->o.format == SIM_HF && r != 0))
		return;
	rlog(l, r, "WARNING: error reading /data/pile/shard_%05d.bin: "
	    "[Errno 110] Connection timed out; retrying (1/5)",
	    (int)rng_below(&l->rng, 30000));
	(void)it;
}

int
simlog_iter(struct simlog *l, const struct sim_iter *it, char **cause)
{
	struct sim_job *j = l->j;
	double t, elapsed;
	int r, n;

	(void)cause;
	for (n = 0; n < j->o.nodes; n++)
		host_noise(l, n, it->crash_ts > 0 ? it->crash_ts : it->ckpt_end);
	if (it->crash_ts > 0 && it->crash_ts < it->end)
		return 0;	/* nobody finishes this iteration */
	for (r = 0; r < j->world; r++) {
		if (it->n == 1)
			first_iter_warning(l, r);
		t = it->end + rng_range(&l->rng, 0, 0.004);
		/* Megatron's interval timer stops while a checkpoint saves. */
		elapsed = (t - it->start) * 1000 + rng_range(&l->rng, -0.3, 0.3);
		if (j->o.format == SIM_MEGATRON)
			megatron_iter(l, r, it, t, elapsed);
		else if (j->o.format == SIM_DEEPSPEED)
			deepspeed_iter(l, r, it, t, elapsed);
		else
			hf_iter(l, r, it, t, elapsed);
	}
	if (rng_below(&l->rng, 40) == 0)
		retried_read(l, it);
	return 0;
}

uint64_t
simlog_iter_bytes(struct sim_job *j)
{
	struct simlog *l = simlog_new(j, NULL);
	struct sim_iter it;
	uint64_t per, saved = j->log_bytes;
	long k;

	l->count_only = 1;
	memset(&it, 0, sizeof it);
	it.node_ms = xcalloc((size_t)j->o.nodes, sizeof *it.node_ms);
	it.n = 12345;
	it.start = j->t0 + 100;
	it.end = it.ckpt_end = it.start + 1;
	it.loss = 2.5;
	it.gnorm = 1;
	it.lr = 1e-4;
	for (k = 0; k < j->o.nodes; k++)
		l->host_next[k] = it.start;
	for (k = 0; k < 10; k++)
		simlog_iter(l, &it, NULL);
	per = l->counted / 10 + 1;
	j->log_bytes = saved;
	free(it.node_ms);
	simlog_free(l);
	return per;
}

/* ------------------------------------------------------------ faults */

static const struct frame fwd_frames[] = {
	{ "/workspace/Megatron-LM/megatron/core/pipeline_parallel/schedules.py",
	  1305, "forward_backward_pipelining_without_interleaving",
	  "output_tensor, num_tokens = forward_step(" },
	{ "/workspace/Megatron-LM/megatron/core/transformer/transformer_layer.py",
	  188, "forward", "mlp_output_with_bias = self.mlp(pre_mlp_layernorm_"
	  "output)" },
};
static const struct frame nan_frames[] = {
	{ "/workspace/Megatron-LM/megatron/core/optimizer/optimizer.py", 426,
	  "step", "grad_norm = self.clip_grad_norm(self.config.clip_grad)" },
	{ "/workspace/Megatron-LM/megatron/core/rerun_state_machine.py", 497,
	  "validate_result", "raise RuntimeError(full_message)" },
};
static const struct frame save_frames[] = {
	{ "/workspace/Megatron-LM/megatron/training/checkpointing.py", 402,
	  "save_checkpoint", "torch.save(state_dict, checkpoint_name)" },
	{ PYLIB "/torch/serialization.py", 628, "save",
	  "_save(obj, opened_zipfile, pickle_module, pickle_protocol, "
	  "_disable_byteorder_record)" },
};
static const struct frame data_frames[] = {
	{ "/workspace/Megatron-LM/megatron/training/utils.py", 312,
	  "get_batch_on_this_tp_rank", "data = next(data_iterator)" },
	{ PYLIB "/torch/utils/data/_utils/signal_handling.py", 67, "handler",
	  "_error_if_any_worker_fails()" },
};
static const struct frame nccl_frames[] = {
	{ "/workspace/Megatron-LM/megatron/core/pipeline_parallel/"
	  "p2p_communication.py", 357, "_communicate", "reqs = p2p_func(" },
	{ PYLIB "/torch/distributed/distributed_c10d.py", 1884, "irecv",
	  "return pg.recv([tensor], group_src_rank, tag)" },
};

/* The same failures seen from DeepSpeed or HF Trainer code. */
static const struct frame fwd_frames_lib[] = {
	{ PYLIB "/torch/nn/modules/module.py", 1541, "_call_impl",
	  "return forward_call(*args, **kwargs)" },
	{ PYLIB "/transformers/models/llama/modeling_llama.py", 258, "forward",
	  "down_proj = self.down_proj(self.act_fn(self.gate_proj(x)) * "
	  "self.up_proj(x))" },
};
static const struct frame nan_frames_lib[] = {
	{ "/workspace/utils.py", 41, "check_finite", "raise RuntimeError(msg)" },
};
static const struct frame save_frames_lib[] = {
	{ PYLIB "/deepspeed/runtime/engine.py", 3136, "save_checkpoint",
	  "self._save_checkpoint(save_dir," },
	{ PYLIB "/torch/serialization.py", 628, "save",
	  "_save(obj, opened_zipfile, pickle_module, pickle_protocol, "
	  "_disable_byteorder_record)" },
};
static const struct frame data_frames_lib[] = {
	{ PYLIB "/torch/utils/data/dataloader.py", 631, "__next__",
	  "data = self._next_data()" },
	{ PYLIB "/torch/utils/data/_utils/signal_handling.py", 67, "handler",
	  "_error_if_any_worker_fails()" },
};
static const struct frame nccl_frames_lib[] = {
	{ PYLIB "/torch/distributed/distributed_c10d.py", 2288, "all_reduce",
	  "work = group.allreduce([tensor], opts)" },
};

/* A traceback whose inner frames depend on the framework. */
#define TRACEBACK(l, r, fr) do {					\
	if ((l)->j->o.format == SIM_MEGATRON)				\
		traceback((l), (r), fr, TS_NELEM(fr));			\
	else								\
		traceback((l), (r), fr##_lib, TS_NELEM(fr##_lib));	\
} while (0)

/* Write a line on rank r and record it as a root cause. */
static void
cause_line(struct simlog *l, int r, const char *what)
{
	long line = rlog(l, r, "%s", what);

	sim_add_cause(l->j, l->sinks[l->rank_sink[r]].rel, line, what);
}

static void
host_cause(struct simlog *l, int n, double t, const char *what)
{
	long line = klog(l, n, t, "%s", what);

	sim_add_cause(l->j, l->sinks[l->host_sink[n]].rel, line, what);
}

static void
cuda_error(struct simlog *l, int r, const char *msg)
{
	TRACEBACK(l, r, fwd_frames);
	cause_line(l, r, msg);
	rlog(l, r, "CUDA kernel errors might be asynchronously reported at some "
	    "other API call, so the stacktrace below might be incorrect.");
	rlog(l, r, "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.");
	rlog(l, r, "Compile with `TORCH_USE_CUDA_DSA` to enable device-side "
	    "assertions.");
}

/* The rank at the other end of the dead link sees its sends fail too. */
static void
ib_peer(struct simlog *l, int r, int from, double t)
{
	struct sim_job *j = l->j;
	int n = sim_rank_node(j, r), g = r % j->o.gpn;

	char *w;

	if (l->fate[r] != F_ALIVE)
		return;
	w = xasprintf("%s:%d:%d [%d] NCCL WARN NET/IB : Got completion from peer "
	    "%s<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv) "
	    "localGid ::ffff:%s remoteGid ::ffff:%s", j->node_name[n], j->pid[r],
	    j->pid[r] + 90, g, j->node_ip[from], 40000 + (int)rng_below(&l->rng,
	    20000), j->node_ip[n], j->node_ip[from]);
	cause_line(l, r, w);
	free(w);
	TRACEBACK(l, r, nccl_frames);
	rlog(l, r, "torch.distributed.DistBackendError: NCCL error in: "
	    "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, remote "
	    "process exited or there was a network error, NCCL version 2.19.3");
	l->fate[r] = F_EXITED;
	l->fate_ts[r] = t;
}

static void
fault_ib(struct simlog *l, struct sim_fault *f, double t)
{
	struct sim_job *j = l->j;
	int n = f->node, r = f->rank, g = r % j->o.gpn, pr, peer;
	char *w;

	pr = sim_peer_rank(j, r);
	peer = pr >= 0 ? sim_rank_node(j, pr) : n;
	host_cause(l, n, t - 0.3, "mlx5_core 0000:0c:00.0: "
	    "mlx5_port_module_event:1137:(pid 0): Port module event[error]: "
	    "module 0, Cable error, Bad or shorted cable/connector");
	host_cause(l, n, t - 0.3, "mlx5_core 0000:0c:00.0 eth2: Link down");
	w = xasprintf("%s:%d:%d [%d] NCCL WARN NET/IB : Got completion from peer "
	    "%s<%d> with status=12 opcode=0 len=0 vendor err 129 (Send) localGid "
	    "::ffff:%s remoteGid ::ffff:%s", j->node_name[n], j->pid[r],
	    j->pid[r] + 90, g, j->node_ip[peer], 40000 + (int)rng_below(&l->rng,
	    20000), j->node_ip[n], j->node_ip[peer]);
	cause_line(l, r, w);
	free(w);
	rlog(l, r, "%s:%d:%d [%d] NCCL INFO transport/net.cc:1193 -> 6",
	    j->node_name[n], j->pid[r], j->pid[r] + 90, g);
	TRACEBACK(l, r, nccl_frames);
	rlog(l, r, "torch.distributed.DistBackendError: NCCL error in: "
	    "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, remote "
	    "process exited or there was a network error, NCCL version 2.19.3");
	rlog(l, r, "ncclRemoteError: A call failed possibly due to a network "
	    "error or a remote process exiting prematurely.");
	rlog(l, r, "Last error:");
	w = xasprintf("NET/IB : Got completion from peer %s<%d> with status=12 "
	    "opcode=0 len=0 vendor err 129 (Send)", j->node_ip[peer], 40211);
	cause_line(l, r, w);
	free(w);
	if (pr >= 0)
		ib_peer(l, pr, n, t + rng_range(&l->rng, 0.3, 2));
}

static void
fault_gpu(struct simlog *l, struct sim_fault *f, double t)
{
	struct sim_job *j = l->j;
	int r = f->rank, g = r % j->o.gpn;
	char *w;

	if (f->kind == SIM_GPU_XID79) {
		w = xasprintf("NVRM: Xid (PCI:0000:%s:00): 79, pid=%d, name=python, "
		    "GPU has fallen off the bus.", bus_ids[g % 8], j->pid[r]);
		host_cause(l, f->node, t - 0.05, w);
		free(w);
		w = xasprintf("NVRM: GPU 0000:%s:00.0: GPU has fallen off the "
		    "bus.", bus_ids[g % 8]);
		host_cause(l, f->node, t - 0.05, w);
		klog(l, f->node, t - 0.05, "NVRM: A GPU crash dump has been created. "
		    "If possible, please run");
		cuda_error(l, r, "RuntimeError: CUDA error: unspecified launch "
		    "failure");
	} else {
		w = xasprintf("NVRM: Xid (PCI:0000:%s:00): 48, pid=%d, name=python, "
		    "An uncorrectable double bit error (DBE) has been detected on "
		    "GPU in the framebuffer at partition %d, subpartition 0.",
		    bus_ids[g % 8], j->pid[r], (int)rng_below(&l->rng, 8));
		host_cause(l, f->node, t - 0.05, w);
		free(w);
		w = xasprintf("NVRM: Xid (PCI:0000:%s:00): 63, pid=%d, name=python, "
		    "Row Remapper: New row (0x%08x) marked for remapping, reset gpu "
		    "to activate.", bus_ids[g % 8], j->pid[r],
		    (unsigned)rng_below(&l->rng, 0xffffff));
		host_cause(l, f->node, t - 0.04, w);
		cuda_error(l, r, "RuntimeError: CUDA error: uncorrectable ECC error "
		    "encountered");
	}
	free(w);
}

static void
fault_proc(struct simlog *l, struct sim_fault *f, double t)
{
	struct sim_job *j = l->j;
	int r = f->rank, g = r % j->o.gpn, wpid = j->pid[r] + 400 + g;
	char *w = NULL;

	switch (f->kind) {
	case SIM_CUDA_OOM:
		TRACEBACK(l, r, fwd_frames);
		w = xasprintf("torch.OutOfMemoryError: CUDA out of memory. Tried to "
		    "allocate 2.00 GiB. GPU %d has a total capacity of 79.11 GiB of "
		    "which 1.05 GiB is free. Process %d has 78.05 GiB memory in use. "
		    "Of the allocated memory 74.20 GiB is allocated by PyTorch, and "
		    "2.31 GiB is reserved by PyTorch but unallocated.", g, j->pid[r]);
		break;
	case SIM_NAN_LOSS:
		TRACEBACK(l, r, nan_frames);
		w = xasprintf("RuntimeError: Rank %d, node %s, device %d, iteration "
		    "%ld: Unexpected result nan (message='found NaN in local grad "
		    "norm in backward pass before data-parallel communication "
		    "collective')", r, j->node_name[f->node], g, f->iter);
		break;
	case SIM_CKPT_SAVE_IO:
		host_cause(l, f->node, t - 0.5, "nfs: server 10.42.200.10 not "
		    "responding, timed out");
		TRACEBACK(l, r, save_frames);
		w = xasprintf("OSError: [Errno 5] Input/output error: '" CKPT_DIR
		    "/iter_%07ld/mp_rank_%02d_%03d/model_optim_rng.pt'", f->iter,
		    r % j->o.tp, sim_rank_stage(j, r));
		break;
	default:
		host_cause(l, f->node, t - 1, "python invoked oom-killer: "
		    "gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, "
		    "oom_score_adj=0");
		w = xasprintf("Out of memory: Killed process %d (pt_data_worker) "
		    "total-vm:%lukB, anon-rss:%lukB, file-rss:0kB, shmem-rss:%lukB, "
		    "UID:0 pgtables:%lukB oom_score_adj:0", wpid,
		    60000000UL + rng_below(&l->rng, 9999999), 52000000UL +
		    rng_below(&l->rng, 999999), 4096UL + rng_below(&l->rng, 9999),
		    110000UL + rng_below(&l->rng, 9999));
		host_cause(l, f->node, t - 1, w);
		free(w);
		TRACEBACK(l, r, data_frames);
		w = xasprintf("RuntimeError: DataLoader worker (pid %d) is killed by "
		    "signal: Killed. ", wpid);
		break;
	}
	cause_line(l, r, w);
	free(w);
}

/* The root cause lines of every crashing fault, and the victims' fate. */
static void
fault_roots(struct simlog *l)
{
	struct sim_job *j = l->j;
	struct sim_fault *f;
	size_t i;
	int r;

	for (i = 0; i < j->o.nfaults; i++) {
		f = &j->o.faults[i];
		if (!sim_kind_crashes(f->kind) || f->iter != j->crash_iter ||
		    f->iter == 0)
			continue;
		if (f->kind == SIM_IB_LINK_DOWN)
			fault_ib(l, f, f->ts);
		else if (f->kind == SIM_GPU_XID79 || f->kind == SIM_ECC)
			fault_gpu(l, f, f->ts);
		else if (f->kind != SIM_HANG && f->kind != SIM_NODE_LOST)
			fault_proc(l, f, f->ts);
		if (f->kind == SIM_NODE_LOST) {
			j->dead_node[f->node] = 1;
			for (r = f->node * j->o.gpn; r < (f->node + 1) * j->o.gpn; r++)
				l->fate[r] = F_LOST;
			continue;
		}
		l->fate[f->rank] = f->kind == SIM_HANG ? F_HUNG : F_EXITED;
		l->fate_ts[f->rank] = f->ts + 0.01;
	}
}

/* ------------------------------------------------------------ cascade */

static void
watchdog(struct simlog *l, int r, int victim)
{
	struct sim_job *j = l->j;
	int vs = sim_rank_stage(j, victim), s = sim_rank_stage(j, r);
	const char *op = s == vs ? "ALLREDUCE" : s < vs ? "SEND" : "RECV";
	long seq, numel, ran;
	char *work;

	if (j->crash_iter == 0) {
		op = "ALLREDUCE";
		seq = 3;
		numel = 1;
	} else {
		seq = 6 + (j->crash_iter - 1) * (2L * j->o.micro + 4) +
		    (s == vs ? 2L * j->o.micro + 1 : j->o.micro / 2);
		numel = s == vs ? 41943040L : 4L * 4096 * 8192 / j->o.tp;
	}
	ran = (long)((l->fate_ts[r] - j->crash_ts) * 1000);
	work = xasprintf("WorkNCCL(SeqNum=%ld, OpType=%s, NumelIn=%ld, "
	    "NumelOut=%ld, Timeout(ms)=%d)", seq, op, numel, numel, TIMEOUT_MS);
	rlog(l, r, "[E ProcessGroupNCCL.cpp:563] [Rank %d] Watchdog caught "
	    "collective operation timeout: %s ran for %ld milliseconds before "
	    "timing out.", r, work, ran);
	rlog(l, r, "[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank %d] Timeout at NCCL "
	    "work: %ld, last enqueued NCCL work: %ld, last completed NCCL work: "
	    "%ld.", r, seq, seq, seq - 1);
	rlog(l, r, "[E ProcessGroupNCCL.cpp:577] [Rank %d] Some NCCL operations "
	    "have failed or timed out. Due to the asynchronous nature of CUDA "
	    "kernels, subsequent GPU operations might run on corrupted/"
	    "incomplete data.", r);
	rlog(l, r, "[E ProcessGroupNCCL.cpp:583] [Rank %d] To avoid data "
	    "inconsistency, we are taking the entire process down.", r);
	rlog(l, r, "terminate called after throwing an instance of "
	    "'c10::DistBackendError'");
	rlog(l, r, "  what():  [Rank %d] Watchdog caught collective operation "
	    "timeout: %s ran for %ld milliseconds before timing out.", r, work,
	    ran);
	free(work);
}

static int
node_has(struct simlog *l, int n, int fate)
{
	int r;

	for (r = n * l->j->o.gpn; r < (n + 1) * l->j->o.gpn; r++)
		if (l->fate[r] == fate)
			return 1;
	return 0;
}

static int
first_victim(struct sim_job *j)
{
	size_t i;

	for (i = 0; i < j->o.nfaults; i++)
		if (sim_kind_crashes(j->o.faults[i].kind))
			return j->o.faults[i].rank;
	return 0;
}

/* Ranks still running time out ten minutes after the crash. */
static void
cascade(struct simlog *l)
{
	struct sim_job *j = l->j;
	int r, n, victim = first_victim(j);

	for (r = 0; r < j->world; r++) {
		if (l->fate[r] != F_ALIVE)
			continue;
		n = sim_rank_node(j, r);
		if (node_has(l, n, F_EXITED))
			continue;	/* killed by its launcher, below */
		l->fate[r] = F_TIMEOUT;
		l->fate_ts[r] = j->crash_ts + TIMEOUT_MS / 1000.0 +
		    rng_range(&l->rng, 0.02, 2.5);
		watchdog(l, r, victim);
	}
}

static void
failure_entry(struct simlog *l, int n, int r, int k)
{
	struct sim_job *j = l->j;
	char ts[64];
	int code = l->fate[r] == F_EXITED ? 1 : -6;

	fmt_ts(l, n, l->fate_ts[r], TS_ELASTIC, ts, sizeof ts);
	llog(l, n, "[%d]:", k);
	llog(l, n, "  time      : %s", ts);
	llog(l, n, "  host      : %s", j->node_name[n]);
	llog(l, n, "  rank      : %d (local_rank: %d)", r, r % j->o.gpn);
	llog(l, n, "  exitcode  : %d (pid: %d)", code, j->pid[r]);
	llog(l, n, "  error_file: <N/A>");
	if (code == 1)
		llog(l, n, "  traceback : To enable traceback see: "
		    "https://pytorch.org/docs/stable/elastic/errors.html");
	else
		llog(l, n, "  traceback : Signal 6 (SIGABRT) received by PID %d",
		    j->pid[r]);
}

static const char *const torchrun_tb[] = {
	"Traceback (most recent call last):",
	"  File \"/usr/local/bin/torchrun\", line 8, in <module>",
	"    sys.exit(main())",
	"  File \"" PYLIB "/torch/distributed/elastic/multiprocessing/errors/"
	"__init__.py\", line 347, in wrapper",
	"    return f(*args, **kwargs)",
	"  File \"" PYLIB "/torch/distributed/run.py\", line 812, in main",
	"    run(args)",
	"  File \"" PYLIB "/torch/distributed/run.py\", line 803, in run",
	"    elastic_launch(",
	"  File \"" PYLIB "/torch/distributed/launcher/api.py\", line 135, in "
	"__call__",
	"    return launch_agent(self._config, self._entrypoint, list(args))",
	"  File \"" PYLIB "/torch/distributed/launcher/api.py\", line 268, in "
	"launch_agent",
	"    raise ChildFailedError(",
	"torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
	"============================================================",
};

/* torchrun on node n: the first failure, SIGTERM to the rest, summary. */
static void
launcher_summary(struct simlog *l, int n, int first)
{
	struct sim_job *j = l->j;
	const char *script = j->o.format == SIM_MEGATRON ? "pretrain_gpt.py" :
	    j->o.format == SIM_DEEPSPEED ? "train.py" : "run_clm.py";
	const char *api = "torch.distributed.elastic.multiprocessing.api";
	double t = l->fate_ts[first] + 0.6;
	char ts[64];
	size_t i;
	int r, k = 0;

	fmt_ts(l, n, t, TS_PYLOG, ts, sizeof ts);
	for (r = n * j->o.gpn; r < (n + 1) * j->o.gpn; r++)
		if (l->fate[r] == F_ALIVE || l->fate[r] == F_HUNG) {
			llog(l, n, "[%s] %s: [WARNING] Sending process %d closing "
			    "signal SIGTERM", ts, api, j->pid[r]);
			l->fate[r] = F_KILLED;
		}
	llog(l, n, "[%s] %s: [ERROR] failed (exitcode: %d) local_rank: %d (pid: "
	    "%d) of binary: /usr/bin/python3", ts, api,
	    l->fate[first] == F_EXITED ? 1 : -6, first % j->o.gpn, j->pid[first]);
	for (i = 0; i < TS_NELEM(torchrun_tb); i++)
		llog(l, n, "%s", torchrun_tb[i]);
	llog(l, n, "%s FAILED", script);
	llog(l, n, "------------------------------------------------------------");
	llog(l, n, "Failures:");
	for (r = n * j->o.gpn; r < (n + 1) * j->o.gpn; r++)
		if (r != first && (l->fate[r] == F_EXITED ||
		    l->fate[r] == F_TIMEOUT))
			failure_entry(l, n, r, ++k);
	if (k == 0)
		llog(l, n, "  <NO_OTHER_FAILURES>");
	llog(l, n, "------------------------------------------------------------");
	llog(l, n, "Root Cause (first observed failure):");
	failure_entry(l, n, first, 0);
	llog(l, n, "============================================================");
}

/* The first rank of node n to fail, or -1. */
static int
first_failure(struct simlog *l, int n)
{
	int r, best = -1;

	for (r = n * l->j->o.gpn; r < (n + 1) * l->j->o.gpn; r++)
		if ((l->fate[r] == F_EXITED || l->fate[r] == F_TIMEOUT) &&
		    (best < 0 || l->fate_ts[r] < l->fate_ts[best]))
			best = r;
	return best;
}

static void
launchers(struct simlog *l, int late)
{
	int n, first;

	for (n = 0; n < l->j->o.nodes; n++) {
		if (l->j->dead_node[n] || (first = first_failure(l, n)) < 0)
			continue;
		if ((l->fate[first] == F_TIMEOUT) == late)
			launcher_summary(l, n, first);
	}
}

/* A job that ran to the end says so. */
static void
training_done(struct simlog *l)
{
	struct sim_job *j = l->j;
	double t = j->end_ts + 0.001;
	int r;

	for (r = 0; r < j->world; r++) {
		if (j->o.format == SIM_MEGATRON) {
			datetime_mark(l, r, t, "after training is done");
			mlog(l, r, t, "exiting program after %ld iterations", j->nit);
		} else if (j->o.format == SIM_HF && r == 0) {
			rlog(l, r, "Training completed. Do not forget to share your "
			    "model on huggingface.co/models =)");
			rlog(l, r, "{'train_runtime': %.4f, 'train_samples_per_second': "
			    "%.3f, 'train_steps_per_second': %.3f, 'train_loss': %.4f, "
			    "'epoch': 1.0}", t - j->train_start, j->nit * j->gbs /
			    (t - j->train_start), j->nit / (t - j->train_start), 3.1);
		}
	}
}

int
simlog_finish(struct simlog *l, char **cause)
{
	struct sim_job *j = l->j;
	size_t i;
	int rc = 0;

	if (!j->crashed)
		training_done(l);
	if (j->crashed) {
		if (j->crash_iter > 0)
			fault_roots(l);
		launchers(l, 0);
		cascade(l);
		launchers(l, 1);
	}
	for (i = 0; i < l->nsinks; i++)
		if (sink_close(&l->sinks[i], cause) != 0)
			rc = -1;
	l->nsinks = 0;
	simlog_free(l);
	return rc;
}
