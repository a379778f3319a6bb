/* faults-t.c -- the shipped library, user overrides, errors with FILE:LINE. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag/faults.h"
#include "base/util.h"
#include "tap.h"

static const char *
cat_of(const struct faults *f, const char *msg)
{
	const struct fault_rule *r = faults_match(f, msg, strlen(msg));

	return r != NULL ? r->category : "(none)";
}

static void
test_builtin(void)
{
	struct faults *f = faults_new();
	size_t nerr;

	nerr = faults_load_text(f, faults_builtin_rules,
	    strlen(faults_builtin_rules), "builtin");
	is_int(nerr, 0, "every shipped rule compiles");
	ok(faults_count(f) >= 30, "the shipped library has rules");
	is_str(cat_of(f, "NET/IB : Got completion from peer 10.0.0.2<5131> "
	    "with error 12, opcode 0, len 0, vendor err 129"), "network",
	    "NCCL IB completion error");
	is_str(cat_of(f, "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has "
	    "fallen off the bus."), "xid", "Xid 79");
	is_str(cat_of(f, "NVRM: Xid (PCI:0000:3b:00): 48, pid=1, An "
	    "uncorrectable double bit error"), "ecc", "Xid 48");
	is_str(cat_of(f, "torch.cuda.OutOfMemoryError: CUDA out of memory. "
	    "Tried to allocate 2.00 GiB"), "oom", "GPU OOM");
	is_str(cat_of(f, "Out of memory: Killed process 4242 (python)"), "oom",
	    "host OOM");
	is_str(cat_of(f, "RuntimeError: CUDA error: an illegal memory access "
	    "was encountered"), "cuda", "illegal memory access");
	is_str(cat_of(f, "[Rank 3] Watchdog caught collective operation "
	    "timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE) ran for 600000 "
	    "milliseconds before timing out."), "timeout", "watchdog timeout");
	is_str(cat_of(f, "RuntimeError: [./gloo/transport/tcp/unbound_buffer.cc"
	    ":81] Timed out waiting 20000ms for recv operation to complete"),
	    "timeout", "gloo timeout");
	is_str(cat_of(f, "OSError: [Errno 28] No space left on device: "
	    "'/ckpt/iter_10'"), "checkpoint", "no space");
	is_str(cat_of(f, "WARNING: loss is nan at iteration 12"), "nan", "NaN");
	is_str(cat_of(f, "nfs: server 10.0.0.9 not responding, timed out"),
	    "checkpoint", "NFS server not responding");
	is_str(cat_of(f, "ModuleNotFoundError: No module named 'apex'"),
	    "config", "missing module");
	is_str(cat_of(f, "ERROR: Unexpected bus error encountered in worker. "
	    "DataLoader worker (pid 123) is killed by signal: Bus error."),
	    "dataloader", "data loader worker killed");
	is_str(cat_of(f, "torch.distributed.elastic.multiprocessing.errors."
	    "ChildFailedError:"), "process", "ChildFailedError");
	is_str(cat_of(f, "iteration 5/ 30 | lm loss: 7.0 |"), "(none)",
	    "an iteration line matches nothing");
	ok(faults_category_weight("xid") > faults_category_weight("timeout"),
	    "causes weigh more than consequences");
	is_str(cat_of(f, "EDAC MC0: 1 CE memory read error on CPU_SrcID#0_MC#0"
	    "_Chan#1_DIMM#0 (channel:1 slot:0 page:0x1f2)"), "benign",
	    "a corrected memory error is benign");
	is_str(cat_of(f, "EDAC MC0: 1 UE memory read error on CPU_SrcID#0"),
	    "(none)", "an uncorrected one is not");
	is_str(cat_of(f, "Selected source 10.42.200.1 (ntp1)"), "benign",
	    "chronyd selecting a source");
	is_str(cat_of(f, "Starting sysstat-collect.service - system activity "
	    "accounting tool..."), "benign", "systemd starting a unit");
	is_str(cat_of(f, "NET/IB : mlx5_0:1 Got async event : GID table change"),
	    "benign", "a GID table change");
	is_str(cat_of(f, "WARNING: error reading /data/pile/shard_00042.bin: "
	    "[Errno 110] Connection timed out; retrying (1/5)"), "retry",
	    "a read that is retried");
	ok(faults_category_weight("benign") == 0 &&
	    faults_category_weight("retry") < faults_category_weight("timeout"),
	    "benign and retried lines weigh least");
	faults_free(f);
}

/* The wider library: each kind of rule with a line it must and must not take. */
static void
test_wider(void)
{
	static const struct {
		const char *msg, *cat, *what;
	} cases[] = {
		{ "include/alloc.h:178 NCCL WARN Cuda failure 'out of memory'",
		  "oom", "NCCL's own allocation failure" },
		{ "Failed to CUDA calloc 6291456 bytes", "oom", "NCCL calloc" },
		{ "NCCL WARN Error : no algorithm/protocol available for "
		  "function AllGather", "config", "no algorithm/protocol" },
		{ "RuntimeError: Error(s) in saving checkpoint: failed to write "
		  "the checkpoint to /ckpt/step_400", "checkpoint",
		  "checkpoint save" },
		{ "PytorchStreamWriter failed writing file data/12: file write "
		  "failed", "checkpoint", "torch.save writer" },
		{ "FileNotFoundError: [Errno 2] No such file or directory: "
		  "'/ckpt/global_step400/mp_rank_00_model_states.pt'",
		  "checkpoint", "checkpoint load: missing file" },
		{ "Unable to determine the device handle for GPU0000:4F:00.0: "
		  "Unknown Error", "gpu", "nvidia-smi cannot reach a GPU" },
		{ "pcieport 0000:40:01.1: AER: Uncorrected (Fatal) error "
		  "received: 0000:41:00.0", "hardware", "PCIe AER uncorrected" },
		{ "pcieport 0000:40:01.1: AER: Corrected error received: "
		  "0000:41:00.0", "(none)", "PCIe AER corrected: no fault" },
		{ "NET/IB : Got async event : port error", "link",
		  "IB port error event" },
		{ "NET/IB : mlx5_2:1 async fatal event on QP (0x7f00): local "
		  "access violation work queue error", "link",
		  "IB queue pair fatal event" },
		{ "NET/IB: Got completion from peer 10.0.0.4<4020> with status=4 "
		  "opcode=0 len=0 vendor err 83 (Send) hca mlx5_2", "network",
		  "IB completion status, new format" },
		{ "srun: error: cn04: task 7: Out Of Memory", "oom",
		  "srun's out of memory" },
		{ "[PG 0 Rank 3] Timeout at NCCL work: 412, last enqueued NCCL "
		  "work: 412, last completed NCCL work: 411.", "timeout",
		  "watchdog: timeout at NCCL work" },
		{ "[Rank 3] Some NCCL operations have failed or timed out. Due "
		  "to the asynchronous nature of CUDA kernels", "collective",
		  "watchdog teardown" },
		{ "communicator encountered a fatal error (detected in "
		  "ncclIbTest)", "collective", "NCCL fatal-error summary" },
		{ "mlx5: gpu-9: got completion with error:", "network",
		  "the verbs provider's failed completion" },
		{ "*** JOB 17 ON cn-3 CANCELLED AT 2025-01-02T03:04:05 DUE TO "
		  "TIME LIMIT ***", "scheduler", "Slurm time limit" },
		{ "*** STEP 17.0 ON cn-3 CANCELLED AT 2025-01-02T03:04:05 DUE TO "
		  "PREEMPTION ***", "scheduler", "Slurm preemption" },
		{ "Caught SIGTERM on cn-3: the job is preempted.", "scheduler",
		  "a job told it is preempted" },
		{ "*** JOB 17 ON cn-3 CANCELLED AT 2025-01-02T03:04:05 ***",
		  "(none)", "a job cancelled by its user: no fault" },
		{ "Attempted loss scale: 1, reducing to 1", "nan",
		  "the loss scaler at its floor" },
		{ "Attempted loss scale: 4, reducing to 2", "(none)",
		  "a scale still lowered is no floor" },
		{ "Current loss scale already at minimum - cannot decrease scale "
		  "anymore. Exiting run.", "nan", "DeepSpeed gives up" },
		{ "[cn-3:1200:0:1201] Caught signal 11 (Segmentation fault: "
		  "invalid permissions for mapped object at address 0x10)",
		  "crash", "UCX's segfault report" },
		{ "Signal: Segmentation fault (11)", "crash",
		  "Open MPI's segfault report" },
		{ "INTERNAL: a/nccl_utils.cc:9: NCCL operation ncclAllReduce(s, "
		  "r, n, t, op, c, st) failed: unhandled cuda error", "cuda",
		  "XLA: a CUDA call inside NCCL" },
		{ "INTERNAL: a/nccl_utils.cc:9: NCCL operation ncclCommInitRank("
		  "&c, n, id, r) failed: unhandled system error (run with "
		  "NCCL_DEBUG=INFO)", "network", "XLA: a system call inside NCCL" },
		{ "Execution of replica 2 failed: INTERNAL: NCCL operation "
		  "ncclCommInitRank(&c, n, id, r) failed: unhandled cuda error",
		  "process", "XLA's per-replica summary" },
		{ "RuntimeError: NCCL error in: x.cpp:1, unhandled cuda error",
		  "collective", "PyTorch's NCCL summary stays a consequence" },
		{ "DistBackendError: NCCL error in: /build/src/torch/csrc/"
		  "distributed/c10d/ProcessGroupNCCL.cpp:2101, unhandled cuda "
		  "error (run with NCCL_DEBUG=INFO for details), NCCL version "
		  "2.21.5", "collective",
		  "the summary behind a long source path is one too" },
		{ "ncclUnhandledCudaError: Call to CUDA function failed.",
		  "cuda", "NCCL's class of a failed CUDA call" },
		{ "enqueue.cc:88 NCCL WARN Cuda failure 'an illegal memory "
		  "access was encountered'", "cuda",
		  "NCCL's failed CUDA call with its reason" },
		{ "Cuda failure 700 'peer access is not supported between "
		  "these two devices'", "cuda", "a failed CUDA call, numbered" },
		{ "[h7:4100] PMIX ERROR: ERROR in file ../src/mca/gds/ds12/"
		  "gds_ds12_lock_pthread.c at line 169", "benign",
		  "PMIx's lock-file message" },
		{ "[h7:4100] PMIX ERROR: OUT-OF-RESOURCE in file "
		  "server/pmix_server.c at line 3408", "(none)",
		  "another PMIx error is not benign" },
	};
	struct faults *f = faults_new();
	size_t i;

	faults_load_text(f, faults_builtin_rules, strlen(faults_builtin_rules),
	    "builtin");
	for (i = 0; i < TS_NELEM(cases); i++)
		is_str(cat_of(f, cases[i].msg), cases[i].cat, cases[i].what);
	faults_free(f);
}

static void
write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	fputs(text, fp);
	fclose(fp);
}

static void
test_user(void)
{
	char dir[] = "/tmp/faults-t.XXXXXX", *path, *cause = NULL;
	struct faults *f;
	const struct fault_rule *r;
	size_t n;

	ok(mkdtemp(dir) != NULL, "scratch dir");
	path = xasprintf("%s/trainscope/faults", dir);
	{
		char *sub = xasprintf("%s/trainscope", dir);
		mkdir(sub, 0777);
		free(sub);
	}
	write_file(path,
	    "# mine\n"
	    "[nccl-warn]\n"
	    "pattern = NCCL WARN special\n"
	    "category = mine\n"
	    "explain = replaced\n"
	    "\n"
	    "[broken]\n"
	    "pattern = (unclosed\n"
	    "category = x\n"
	    "explain = y\n"
	    "[site-disk]\n"
	    "pattern = (?i)lustre.*evicted\n"
	    "category = checkpoint\n"
	    "explain = the storage client was evicted\n"
	    "[incomplete]\n"
	    "pattern = foo\n");
	setenv("XDG_CONFIG_HOME", dir, 1);
	f = faults_default();
	n = faults_nerrors(f);
	is_int(n, 2, "two bad rules reported");
	{
		char *want = xasprintf("%s:8: rule 'broken': bad pattern at "
		    "offset 9: ", path);
		ok(n > 0 && strncmp(faults_error(f, 0), want, strlen(want)) == 0,
		    "pattern error names FILE:LINE and the offset");
		if (n > 0)
			printf("# %s\n", faults_error(f, 0));
		free(want);
	}
	ok(n > 1 && strstr(faults_error(f, 1), ":15: rule 'incomplete': no "
	    "category") != NULL, "missing key named with FILE:LINE");
	r = faults_find(f, "nccl-warn");
	ok(r != NULL && strcmp(r->category, "mine") == 0,
	    "same name overrides the shipped rule");
	is_str(cat_of(f, "LustreError: client was EVICTED by server"),
	    "checkpoint", "user rule extends the library");
	ok(faults_find(f, "broken") == NULL, "bad rule not loaded");
	ok(faults_find(f, "xid-79-fell-off-bus") != NULL,
	    "shipped rules still there");
	faults_free(f);

	f = faults_new();
	ok(faults_load_file(f, "/nonexistent/faults", 0, &cause) == -1 &&
	    strstr(cause, "cannot open '/nonexistent/faults'") != NULL,
	    "unreadable file fails with a cause");
	ok(faults_load_file(f, "/nonexistent/faults", 1, &cause) == 0,
	    "missing optional file is fine");
	free(cause);
	faults_free(f);
	unlink(path);
	free(path);
}

int
main(void)
{
	test_builtin();
	test_wider();
	test_user();
	return done_testing();
}
