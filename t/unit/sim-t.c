/*
 * sim-t.c -- the simulator's option parsing, and its capture read back
 * through libpcap: frames in time order, DP bursts at the iteration
 * period, one PP message per micro-batch with one size, varying DP chunks.
 */
#include "config.h"

#include <math.h>
#include <pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/sim.h"
#include "base/stats.h"
#include "tap.h"
#include "base/util.h"

#define ITERS	30
#define MICRO	4
#define ITER_MS	300.0

static void
test_parse(void)
{
	struct sim_fault f;
	uint64_t sz;
	char *cause = NULL;

	ok(sim_parse_fault("gpu-xid79@3:40", &f, &cause) == 0, "fault parses");
	is_int(f.kind, SIM_GPU_XID79, "fault kind");
	is_int(f.node, 2, "node numbers count from 1");
	is_int(f.iter, 40, "fault iteration");
	ok(sim_parse_fault("hang@node-005", &f, &cause) == 0 && f.node == 4 &&
	    f.iter == -1, "node by name, iteration left to the seed");
	ok(sim_parse_fault("bogus", &f, &cause) != 0 &&
	    strstr(cause, "unknown fault kind 'bogus'") != NULL,
	    "unknown kind is named");
	ok(sim_parse_fault("ecc:0", &f, &cause) != 0, "iteration 0 refused");
	ok(sim_parse_size("1G", &sz, &cause) == 0 && sz == 1ULL << 30, "1G");
	ok(sim_parse_size("10M", &sz, &cause) == 0 && sz == 10ULL << 20, "10M");
	ok(sim_parse_size("lots", &sz, &cause) != 0, "bad size refused");
	free(cause);
}

static void
test_defaults(void)
{
	struct sim_opts o;
	char *cause = NULL;

	sim_opts_defaults(&o);
	ok(sim_opts_check(&o, &cause) == 0, "defaults are consistent");
	ok(o.tp == 8 && o.pp == 2 && o.dp == 4, "8x8 defaults to tp 8 pp 2 dp 4");
	sim_opts_defaults(&o);
	o.nodes = 3;
	o.gpn = 2;
	ok(sim_opts_check(&o, &cause) == 0 && o.tp == 2 && o.pp == 1 &&
	    o.dp == 3, "an odd count of tp groups gets pp 1");
	sim_opts_defaults(&o);
	o.dp = 5;
	ok(sim_opts_check(&o, &cause) != 0 && strstr(cause, "dp 5") != NULL,
	    "dp x pp x tp must match the GPUs");
	free(cause);
}

struct seen {
	double *dp_ts;
	size_t ndp, dpcap;
	size_t pp_msgs;
	uint32_t pp_len[8], dp_len[8];
	size_t npp_len, ndp_len;
	int ordered;
	double last;
};

static void
note_len(uint32_t *lens, size_t *n, uint32_t len)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (lens[i] == len)
			return;
	if (*n < 8)
		lens[(*n)++] = len;
}

/* Look at one frame: IPv4, UDP 4791, BTH opcode at 42, RETH length at 66. */
static void
frame(struct seen *s, const struct pcap_pkthdr *h, const u_char *p)
{
	double ts = (double)h->ts.tv_sec + h->ts.tv_usec / 1e6;
	uint32_t src, dst;
	int op;

	if (ts < s->last)
		s->ordered = 0;
	s->last = ts;
	if (h->caplen < 70 || p[23] != 17 || (p[36] << 8 | p[37]) != 4791)
		return;
	src = (uint32_t)p[26] << 24 | p[27] << 16 | p[28] << 8 | p[29];
	dst = (uint32_t)p[30] << 24 | p[31] << 16 | p[32] << 8 | p[33];
	op = p[42];
	if (src == 0x0a2a0001 && dst == 0x0a2a0002 && op != 0x81) {
		s->dp_ts = xgrow(s->dp_ts, &s->dpcap, s->ndp + 1, sizeof *s->dp_ts);
		s->dp_ts[s->ndp++] = ts;
		if (op == 6 || op == 10)
			note_len(s->dp_len, &s->ndp_len, (uint32_t)p[66] << 24 |
			    p[67] << 16 | p[68] << 8 | p[69]);
	}
	if (src == 0x0a2a0001 && dst == 0x0a2a0003 && (op == 6 || op == 10)) {
		s->pp_msgs++;
		note_len(s->pp_len, &s->npp_len, (uint32_t)p[66] << 24 |
		    p[67] << 16 | p[68] << 8 | p[69]);
	}
}

/* Median gap between the starts of DP bursts (a burst: gaps < 100 ms). */
static double
burst_period(struct seen *s, size_t *nbursts)
{
	double *gaps = xcalloc(s->ndp + 1, sizeof *gaps), start, med;
	size_t i, n = 0;

	start = s->dp_ts[0];
	for (i = 1; i < s->ndp; i++)
		if (s->dp_ts[i] - s->dp_ts[i - 1] > 0.1) {
			gaps[n++] = s->dp_ts[i] - start;
			start = s->dp_ts[i];
		}
	*nbursts = n + 1;
	med = stats_median(gaps, n);
	free(gaps);
	return med;
}

static void
test_capture(void)
{
	char dir[] = "/tmp/sim-t.XXXXXX", *job, *pcapf, *cause = NULL;
	char errbuf[PCAP_ERRBUF_SIZE], *cmd;
	struct sim_opts o;
	struct seen s;
	struct pcap_pkthdr *h;
	const u_char *p;
	pcap_t *pc;
	size_t nb;
	double per;

	memset(&s, 0, sizeof s);
	s.ordered = 1;
	ok(mkdtemp(dir) != NULL, "scratch directory");
	job = xasprintf("%s/job", dir);
	pcapf = xasprintf("%s/flows.pcap", job);
	sim_opts_defaults(&o);
	o.nodes = 4; o.gpn = 2; o.tp = 2; o.pp = 2;
	o.iters = ITERS; o.iter_ms = ITER_MS; o.micro = MICRO;
	o.healthy = 1;
	ok(sim_opts_check(&o, &cause) == 0, "small job options");
	ok(sim_run(&o, job, NULL, NULL, NULL, &cause) == 0, "small job runs");
	pc = pcap_open_offline(pcapf, errbuf);
	ok(pc != NULL, "libpcap opens the capture");
	if (pc != NULL) {
		is_int(pcap_datalink(pc), DLT_EN10MB, "Ethernet link type");
		is_int(pcap_snapshot(pc), 128, "snap length 128");
		while (pcap_next_ex(pc, &h, &p) == 1)
			frame(&s, h, p);
		pcap_close(pc);
	}
	ok(s.ordered, "frames are in time order");
	ok(s.ndp > 0, "DP traffic between node-001 and node-002");
	per = s.ndp > 0 ? burst_period(&s, &nb) : 0;
	is_int(s.ndp > 0 ? nb : 0, ITERS, "one DP burst per iteration");
	ok(fabs(per - ITER_MS / 1000) < 0.1 * ITER_MS / 1000,
	    "DP bursts are an iteration apart");
	ok(s.pp_msgs > 0 && s.pp_msgs % (ITERS * MICRO) == 0,
	    "PP messages per iteration are a multiple of the micro-batches");
	is_int(s.npp_len, 1, "one PP message size per pair");
	ok(s.ndp_len >= 2, "DP chunk sizes vary");
	cmd = xasprintf("rm -rf '%s'", dir);
	ok(system(cmd) == 0, "scratch removed");
	free(cmd);
	free(s.dp_ts);
	free(job);
	free(pcapf);
	free(cause);
}

/* What a capture will take, against the room it has. */
static void
test_capture_size(void)
{
	is_int(sim_capture_verdict(1000000, 100, UINT64_MAX), SIM_CAP_OK,
	    "100 MB of capture: nothing to say");
	is_int(sim_capture_verdict(1400000000, 100, UINT64_MAX),
	    SIM_CAP_LARGE, "140 GB of capture: said before the wait");
	is_int(sim_capture_verdict(1400000000, 100, 67000000000ULL),
	    SIM_CAP_NOROOM, "140 GB on a disk with 67 GB free: refused");
	is_int(sim_capture_verdict(10000000, 100, 1020000000ULL),
	    SIM_CAP_NOROOM, "a capture that leaves under 5 % spare: refused");
	is_int(sim_capture_verdict(1000000000, 1, 2000000000ULL),
	    SIM_CAP_LARGE, "1 GB with room for it: said");
	is_int(sim_capture_verdict(0, 0, 0), SIM_CAP_OK,
	    "no iteration captured on a full disk: nothing to refuse");
}

int
main(void)
{
	test_parse();
	test_defaults();
	test_capture();
	test_capture_size();
	return done_testing();
}
