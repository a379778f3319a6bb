#!/bin/sh
# reallogs.sh -- the diagnosis on the shapes real logs have: launcher
# prefixes (mpirun, pdsh, Slurm, Open MPI's summary), multi-line errors
# (interleaved, cut, a launcher's own), causes logged below error level,
# kernel logs, adapter events before their consequences, errors of every
# node, healthy runs without a shutdown line or with checkpoint saves,
# loops of no framework; and the pasted failure logs of
# $TS_SHARED/data/failure-logs, whose cause line must rank in the top 3.
. "$TS_SRCDIR/t/lib/test-lib.sh"

# top JOB: the template of the first ranked event
top() {
	trainscope diagnose --format json "$1" | jq -r '.events[0].template'
}

# job_nodes JSON: the machines the job's events were logged on, sorted
# (the suspects list only nodes with something against them)
job_nodes() {
	jq -r '[.events[].nodes[]] | unique | .[]' "$1" | grep -v "^unknown ("
}

test_expect_success 'mpirun --tag-output: ranks are split, one row for the traceback and its exception' '
	mkdir -p mpi &&
	cat >mpi/out.log <<-\EOF &&
	[1,0]<stdout>:step 1 loss 2.31
	[1,1]<stdout>:step 1 loss 2.30
	[1,0]<stdout>:step 2 loss 2.20
	[1,1]<stderr>:Traceback (most recent call last):
	[1,1]<stderr>:  File "train.py", line 88, in <module>
	[1,1]<stderr>:    run(cfg)
	[1,1]<stderr>:  File "train.py", line 41, in run
	[1,1]<stderr>:    opt.step()
	[1,1]<stderr>:            ^^^^^^^^^^
	[1,1]<stderr>:ZeroDivisionError: float division by zero
	[1,0]<stdout>:step 3 loss 2.11
	EOF
	trainscope index mpi >/dev/null 2>&1 &&
	top mpi >t && grep "^ZeroDivisionError: float division by zero" t &&
	trainscope diagnose --format json mpi >d.json &&
	jq -r ".nodes[].node" d.json | sort >nodes &&
	printf "rank-0\nrank-1\n" >want && test_cmp want nodes &&
	jq -r ".events[].template" d.json >ranked &&
	head -1 ranked | grep "^ZeroDivisionError" &&
	! grep -e "^Traceback" -e "\^\^\^" -e "^File " -e "opt.step()" ranked &&
	jq -r ".events[0].trace[]" d.json >trace &&
	grep "^Traceback (most recent call last):" trace &&
	grep "^opt.step()" trace && grep "\^\^\^" trace &&
	jq -r ".events[0].reasons[]" d.json |
	    grep "lines of context (traceback, backtrace), the last .opt.step()."
'

test_expect_success 'interleaved tracebacks of two ranks are split by rank' '
	mkdir -p inter &&
	cat >inter/log.txt <<-\EOF &&
	[rank0]: Traceback (most recent call last):
	[rank1]: Traceback (most recent call last):
	[rank0]:   File "/app/train.py", line 120, in <module>
	[rank1]:   File "/app/train.py", line 120, in <module>
	[rank0]:     loss = step(batch)
	[rank1]:     loss = step(batch)
	[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.
	[rank0]: torch.distributed.DistBackendError: NCCL error: remote process exited or there was a network error
	EOF
	trainscope diagnose --format json ./inter >d.json 2>/dev/null &&
	jq -r ".events[0].template" d.json | grep "^torch.OutOfMemoryError" &&
	test "$(jq -c ".events[0].nodes" d.json)" = "[\"rank-1\"]" &&
	test "$(jq -c ".events[1].nodes" d.json)" = "[\"rank-0\"]" &&
	test "$(jq -r ".nodes[0].node" d.json)" = rank-1
'

test_expect_success 'a traceback cut before its exception speaks through its innermost frame' '
	mkdir -p cut &&
	cat >cut/log.txt <<-\EOF &&
	[2024-06-01 10:00:00,000] [INFO] [engine.py:100:init] world size 4
	[2024-06-01 10:00:05,000] [INFO] [engine.py:120:init] loading model
	Traceback (most recent call last):
	  File "/app/train.py", line 300, in <module>
	    main()
	  File "/opt/lib/engine.py", line 1103, in _configure_distributed_model
	    self.module.to(self.device)
	EOF
	trainscope diagnose --format json ./cut >d.json 2>/dev/null &&
	test "$(jq -r ".events[0].first.line" d.json)" = 7 &&
	printf "%s\n" "  File \"/app/x.py\", line 9, in f" "    helper()" \
	    "  File \"<string>\", line 1, in <module>" "MemoryError" >>cut/log.txt &&
	trainscope index cut >/dev/null 2>&1 &&
	trainscope diagnose --format json cut >d.json 2>/dev/null &&
	jq -r ".events[0].template" d.json | grep -x MemoryError
'

test_expect_success 'a cut traceback ranks below the known fault its process reported first' '
	mkdir -p cutafter &&
	cat >cutafter/log.txt <<-\EOF &&
	Saving model checkpoint to /out/step40
	OSError: [Errno 28] No space left on device: /out/step40/optim.bin
	Saving model checkpoint to /out/step40-retry
	Traceback (most recent call last):
	  File "/srv/job/run.py", line 77, in save
	    store.flush(path)
	  File "/srv/job/store.py", line 12, in flush
	    self._sync(path)
	EOF
	trainscope diagnose --format json ./cutafter >d.json 2>/dev/null &&
	jq -r ".events[0].template" d.json | grep "^OSError: .Errno <\*> No space left" &&
	jq -r ".events[1].template" d.json | grep -x "self._sync(path)" &&
	jq -r ".events[1].reasons[]" d.json | grep "speaks for an exception the log cut off" &&
	mkdir -p cutother &&
	grep -v "^OSError" cutafter/log.txt >cutother/log.txt &&
	trainscope diagnose --format json ./cutother >d.json 2>/dev/null &&
	jq -r ".events[0].template" d.json | grep -x "self._sync(path)"
'

test_expect_success 'NCCL failed CUDA call: its detail lines rank above the summary' '
	mkdir -p ncclcuda &&
	cat >ncclcuda/log.txt <<-\EOF &&
	[rank2]: torch.distributed.DistBackendError: NCCL error in: /src/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2044, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5
	[rank2]: ncclUnhandledCudaError: Call to CUDA function failed.
	[rank2]: Last error:
	[rank2]: Cuda failure 1 '"'"'invalid argument'"'"'
	EOF
	trainscope diagnose --format json ./ncclcuda >d.json 2>/dev/null &&
	jq -r ".events[0].category" d.json | grep -x cuda &&
	jq -r ".events[] | select(.template | test(\"DistBackendError\")) | .category" d.json |
	    grep -x collective
'

test_expect_success 'pdsh host prefixes: one file, a node per host, never the file name' '
	mkdir -p pdsh &&
	cat >pdsh/launch.log <<-\EOF &&
	gpu-a01: [2025-01-02 10:00:00,100] [INFO] [engine.py:10:init] ready
	gpu-a02: [2025-01-02 10:00:00,200] [INFO] [engine.py:10:init] ready
	gpu-a02: [2025-01-02 10:00:05,000] [INFO] [engine.py:99:step] step=1
	gpu-a01: [2025-01-02 10:00:05,100] [INFO] [engine.py:99:step] step=1
	gpu-a02: [2025-01-02 10:00:06,000] [ERROR] [engine.py:120:step] NCCL communicator was aborted on rank 3
	gpu-a01: [2025-01-02 10:00:06,500] [ERROR] [engine.py:120:step] NCCL communicator was aborted on rank 0
	EOF
	trainscope index pdsh >/dev/null 2>&1 &&
	trainscope diagnose --format json pdsh >d.json &&
	job_nodes d.json >nodes &&
	printf "gpu-a01\ngpu-a02\n" >want && test_cmp want nodes
'

test_expect_success 'a cause logged as a warning ranks above the error it leads to' '
	mkdir -p bind &&
	cat >bind/log.txt <<-\EOF &&
	[I store.cpp:10] [c10d] starting the rendezvous store
	[W store.cpp:77] [c10d] bind to 0.0.0.0:29400 failed (errno: 98 - Address already in use).
	[E store.cpp:90] [c10d] The store could not start on any address.
	Traceback (most recent call last):
	  File "/opt/launch.py", line 5, in <module>
	    main()
	RuntimeError: the store could not start
	EOF
	trainscope index bind >/dev/null 2>&1 &&
	top bind >t && grep "Address already in use" t &&
	trainscope diagnose --format json bind | jq -r ".events[0].category" >c &&
	echo config >want && test_cmp want c
'

test_expect_success 'a JSON error record and a bare traceback header never lead' '
	mkdir -p rec &&
	cat >rec/log.txt <<-\EOF &&
	INFO:launcher:starting 2 workers
	[E socket.cpp:100] [c10d] The client socket timed out after 30s connecting to (head-0, 2999).
	ERROR:launcher.errors:{
	  "message": {
	    "message": "StoreConnectionError: lost the store",
	    "extraInfo": { ... }
	  }
	}
	Traceback (most recent call last):
	EOF
	trainscope index rec >/dev/null 2>&1 &&
	top rec >t && grep "client socket timed out" t
'

test_expect_success 'an NCCL exception speaks through its last error, C++ through what(); the rest is their trace' '
	mkdir -p lasterr &&
	cat >lasterr/log.txt <<-\EOF &&
	[rank2]: terminate called after throwing an instance of '"'"'c10::DistBackendError'"'"'
	[rank2]:   what():  NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5
	[rank2]: ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.
	[rank2]: Last error:
	[rank2]: socket recv from 10.1.2.3<41000> failed: Connection reset by peer
	EOF
	trainscope index lasterr >/dev/null 2>&1 &&
	trainscope diagnose --format json lasterr >d.json &&
	jq -r ".events[].template" d.json >ranked &&
	grep "^socket recv" ranked && grep "^NCCL error in" ranked &&
	! grep -e "^ncclSystemError" -e "^terminate called" -e "^Last error" ranked &&
	jq -r ".events[] | select(.template | startswith(\"socket recv\")) | .trace[]" \
	    d.json | grep "^ncclSystemError" &&
	jq -r ".events[] | select(.template | startswith(\"NCCL error in\")) | .trace[]" \
	    d.json | grep "^terminate called"
'

test_expect_success 'a launcher summary names the failed rank'"'"'s host as the node' '
	mkdir -p summ &&
	cat >summ/agent.log <<-\EOF &&
	torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
	============================================================
	train.py FAILED
	------------------------------------------------------------
	Failures:
	  <NO_OTHER_FAILURES>
	------------------------------------------------------------
	Root Cause (first observed failure):
	[0]:
	  time      : 2025-02-03_04:05:06
	  host      : gpu-c12.example
	  rank      : 5 (local_rank: 1)
	  exitcode  : -9 (pid: 4242)
	  error_file: <N/A>
	  traceback : Signal 9 (SIGKILL) received by PID 4242
	============================================================
	EOF
	trainscope index summ >/dev/null 2>&1 &&
	trainscope diagnose --format json summ >d.json &&
	test "$(jq -r ".nodes[0].node" d.json)" = gpu-c12.example &&
	jq -r ".events[0].template" d.json | grep -e "^exitcode" -e "^traceback : Signal" &&
	! jq -r ".events[0:2][].template" d.json | grep -e FAILED -e "^Root Cause" -e "^=="
'

test_expect_success 'a kernel log alone still gives its Xid as the top event' '
	mkdir -p kern &&
	cat >kern/messages <<-\EOF &&
	Feb  3 04:05:06 gpu-b07 kernel: [ 100.000001] eth0: renamed from veth1
	Feb  3 04:05:07 gpu-b07 kernel: [ 101.000001] NVRM: Xid (PCI:0000:1b:00): 79, pid=4242, GPU has fallen off the bus.
	Feb  3 04:05:08 gpu-b07 kernel: [ 102.000001] NVRM: GPU 0000:1b:00.0: GPU is lost
	EOF
	trainscope index kern >/dev/null 2>&1 &&
	top kern >t && grep "Xid" t &&
	trainscope diagnose --format json kern | jq -r ".nodes[0].node" >n &&
	echo gpu-b07 >want && test_cmp want n
'

test_expect_success 'healthy runs of several shapes are completed and join the healthy pool' '
	for s in "deepspeed per-node 4 2" "hf combined 8 4" "megatron per-rank 4 8"; do
		set -- $s &&
		trainscope simulate --healthy --no-flows --format $1 --layout $2 \
		    --nodes $3 --gpus-per-node $4 --iters 30 h-$1 >/dev/null &&
		trainscope index h-$1 >/dev/null 2>&1 &&
		trainscope diagnose --format json h-$1 >d.json &&
		test "$(jq -r .outcome d.json)" = completed &&
		test "$(jq -r .failure_iteration d.json)" = null &&
		test "$(jq -r .anomalous_iterations d.json)" -le 30 || exit 1
	done &&
	trainscope jobs --format tsv >jobs &&
	test "$(grep -c "	completed	" jobs)" = 3
'

test_expect_success 'a healthy loop of no framework (a counter beside a loss or a rate) is completed' '
	mkdir -p plain/n1 plain/n2 &&
	for n in 1 2; do
		for i in $(seq 0 20 400); do
			printf "[05/02 10:%02d:%02d d2.utils.events]:  eta: 1:02:03  iter: %d  total_loss: 1.%03d  lr: 0.01\n" $((i / 60)) $((i % 60)) $i $((500 - i))
		done >plain/n$n/train.log
	done &&
	trainscope diagnose --format json ./plain >d.json 2>/dev/null &&
	test "$(jq -r .outcome d.json)" = completed &&
	test "$(jq -r .failure_iteration d.json)" = null
'

# ckpt_log DIR: two Megatron ranks of 40 iterations saving a checkpoint every
# 6; the iteration after each save took five times as long.
ckpt_log() {
	for n in 1 2; do
		mkdir -p "$1/node0$n" &&
		for i in $(seq 1 40); do
			ms=1000.$n
			test $(( (i - 1) % 6 )) -ne 0 || test "$i" -eq 1 || ms=5012.$n
			printf "[2024-05-01 12:%02d:%02d,000] INFO  iteration %8d/      40 | elapsed time per iteration (ms): %s | lm loss: 3.%02d0000E+00 |\n" $((i / 60)) $((i % 60)) $i $ms $((99 - i))
			if test $((i % 6)) -eq 0 || test "$i" -eq 40; then
				printf "[2024-05-01 12:%02d:%02d,500] INFO  saving checkpoint at iteration %7d to /ckpt\n" $((i / 60)) $((i % 60)) $i
				printf "[2024-05-01 12:%02d:%02d,900] INFO    successfully saved checkpoint at iteration %7d to /ckpt\n" $((i / 60)) $((i % 60)) $i
			fi
		done >"$1/node0$n/rank-0.log" || return 1
	done
}

test_expect_success 'checkpoint saves are no slowdown; anomalous iterations never exceed the iterations' '
	ckpt_log saves &&
	trainscope diagnose --format json ./saves >d.json 2>/dev/null &&
	test "$(jq -r .outcome d.json)" = completed &&
	test "$(jq -r .slowdown d.json)" = null &&
	test "$(jq -r .anomalous_iterations d.json)" -le 40 &&
	trainscope view --height all timeline saves >tl &&
	grep "^ *37 " tl && ! grep -w slow tl
'

test_expect_success 'a failed paste is not taken for a healthy run' '
	trainscope jobs --format tsv >jobs &&
	grep "^mpi	" jobs | grep -v "	completed	" &&
	grep "^rec	" jobs | grep -v "	completed	"
'

test_expect_success 'diagnose PATH indexes what is not indexed yet and names the root' '
	mkdir -p paste &&
	printf "%s\n" "start" "RuntimeError: CUDA error: an illegal memory access was encountered" >paste/crash.log &&
	trainscope diagnose --format json ./paste/crash.log >d.json 2>err &&
	grep "^indexed 1 job" err &&
	test "$(jq -r .job d.json)" = paste &&
	test "$(jq -r .root d.json)" = "$(cd paste && pwd -P)" &&
	trainscope diagnose paste >d.txt 2>err &&
	! grep "^indexed" err &&
	grep "^files under .*/paste$" d.txt
'

# loss_log DIR BAD-ITER VALUE: a Megatron rank log of 30 iterations whose
# loss from BAD-ITER on is VALUE, then an error.
loss_log() {
	mkdir -p "$1/node01" &&
	for i in $(seq 1 30); do
		l=$(awk -v i=$i "BEGIN { printf \"%.6E\", 3 + 1 / i }")
		test "$i" -lt "$2" || l=$3
		printf "[2024-05-01 12:00:%02d,000] INFO  iteration %8d/     100 | elapsed time per iteration (ms): 1000.$i | lm loss: %s | loss scale: 1.0 |\n" "$i" "$i" "$l"
	done >"$1/node01/rank-0.log" &&
	echo "[2024-05-01 12:00:31,000] ERROR RuntimeError: training stopped" >>"$1/node01/rank-0.log"
}

test_expect_success 'a loss that turns NaN is an event dated to its iteration' '
	loss_log nanloss 22 nan &&
	trainscope diagnose --format json ./nanloss >d.json 2>/dev/null &&
	test "$(jq -r .failure_iteration d.json)" = 22 &&
	test "$(jq -r .events[0].category d.json)" = nan &&
	jq -r ".events[0].reasons[]" d.json | grep "the loss is NaN in iteration 22 (node01/rank-0.log:22)"
'

test_expect_success 'a loss far above its running median is an event too; a falling loss is not' '
	loss_log spike 17 4.2E+01 &&
	trainscope diagnose --format json ./spike >d.json 2>/dev/null &&
	test "$(jq -r .failure_iteration d.json)" = 17 &&
	jq -r ".events[0].reasons[]" d.json | grep "the loss jumps to 42 in iteration 17" &&
	loss_log calm 99 x &&
	trainscope diagnose --format json ./calm >d.json 2>/dev/null &&
	! jq -r ".events[].reasons[]" d.json | grep "the loss"
'

# div_log DIR SPIKE-AT: two ranks, 30 iterations run to the end; the
# learning rate is mistyped from 12, the loss explodes in 13 and its grad
# norm is NaN from 16 (SPIKE-AT 0), or only iteration SPIKE-AT spikes and
# iteration 20 skips its step (an fp16 backoff: grad norm inf).
div_log() {
	for r in 0 1; do
		mkdir -p "$1/node0$r" &&
		for i in $(seq 1 30); do
			lr=1.000000E-03 l=$(awk -v i=$i "BEGIN { printf \"%.6E\", 7 - i / 100 }") g=0.2
			if [ "$2" = 0 ]; then
				test "$i" -lt 12 || lr=3.000000E+03
				test "$i" -lt 13 || l=1.0E+08
				test "$i" -lt 16 || g=nan
			else
				test "$i" != "$2" || l=4.2E+01
				test "$i" != 20 || g=inf
			fi
			printf "[2024-05-01 12:00:%02d,000] INFO [rank $r]  iteration %8d/      30 | elapsed time per iteration (ms): 600.$i | learning rate: %s | lm loss: %s | loss scale: 1.0 | grad norm: %s |\n" "$i" "$i" "$lr" "$l" "$g"
		done >"$1/node0$r/rank-$r.log" &&
		echo "[2024-05-01 12:00:31,000] INFO [rank $r] exiting program after 30 iterations" >>"$1/node0$r/rank-$r.log" || return 1
	done
}

test_expect_success 'a run whose loss explodes and goes NaN but runs to the end diverged; what changed before it is named' '
	div_log div 0 &&
	trainscope diagnose --format json ./div >d.json 2>/dev/null &&
	test "$(jq -r .outcome d.json)" = diverged &&
	test "$(jq -r .failure_iteration d.json)" = 16 &&
	test "$(jq -r .events[0].category d.json)" = nan &&
	test "$(jq -r .events[0].iteration d.json)" = 16 &&
	test "$(jq -r ".events[0].first.line" d.json)" = 16 &&
	jq -r ".events[0].lines[] | \"\(.path):\(.line)\"" d.json >at &&
	printf "node00/rank-0.log:16\nnode01/rank-1.log:16\n" >want && test_cmp want at &&
	jq -r ".events[0].reasons[]" d.json >why &&
	grep "the grad norm is NaN in iteration 16" why &&
	grep "the loss explodes in iteration 13" why &&
	grep "the learning rate jumps 3e+06x in iteration 12" why &&
	trainscope diagnose ./div >d.txt 2>/dev/null &&
	head -1 d.txt | grep "diverged in iteration 16"
'

test_expect_success 'a warm-up spike that comes back down and a skipped step stay completed' '
	div_log spiky 5 &&
	trainscope diagnose --format json ./spiky >d.json 2>/dev/null &&
	test "$(jq -r .outcome d.json)" = completed &&
	test "$(jq -r .failure_iteration d.json)" = null &&
	! jq -r ".events[].category" d.json | grep -x nan
'

test_expect_success 'known benign lines and retries the ranks went on after rank below the errors, with no healthy run' '
	for n in 1 2 3 4; do
		mkdir -p noisy/node0$n noisy/host &&
		for i in $(seq 1 30); do
			printf "[2024-05-01 12:%02d:00,000] INFO [rank $n]  iteration %8d/     100 | elapsed time per iteration (ms): 60000.0 | lm loss: 3.0 |\n" $i $i
			case $n.$i in
			1.3|2.9|3.15|1.21) printf "[2024-05-01 12:%02d:30,000] WARNING [rank $n] error reading /data/shard_%04d.bin: [Errno 110] Connection timed out; retrying (1/5)\n" $i $i ;;
			esac
		done >noisy/node0$n/rank-$n.log &&
		for i in 5 12 19 26; do
			printf "2024-05-01T12:%02d:10.000000+00:00 node0$n kernel: EDAC MC0: 1 CE memory read error on CPU_SrcID#0_MC#0_Chan#1_DIMM#0 (channel:1 slot:0 page:0x%x offset:0x0 grain:32 syndrome:0x0)\n" $i $((i * 7 + n))
			printf "2024-05-01T12:%02d:20.000000+00:00 node0$n chronyd[80$n]: Selected source 10.0.0.1 (ntp1)\n" $i
		done >noisy/host/node0$n.log || return 1
	done &&
	echo "[2024-05-01 12:31:00,000] ERROR [rank 3] RuntimeError: CUDA error: an illegal memory access was encountered" >>noisy/node03/rank-3.log &&
	for n in 1 2 4; do
		echo "[2024-05-01 12:41:00,000] ERROR [rank $n] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=31, OpType=ALLREDUCE) ran for 600000 milliseconds before timing out." >>noisy/node0$n/rank-$n.log
	done &&
	trainscope diagnose --top 0 --format json ./noisy >d.json 2>/dev/null &&
	jq -r ".events[0].template" d.json | grep "illegal memory access" &&
	jq -r ".events[] | .category // \"-\"" d.json >cats &&
	t=$(grep -n -x timeout cats | tail -1 | cut -d: -f1) &&
	for c in benign retry; do
		f=$(grep -n -x $c cats | head -1 | cut -d: -f1) &&
		test -n "$f" && test "$f" -gt "$t" || exit 1
	done &&
	jq -r ".events[] | select(.category == \"benign\") | .template" d.json >ben &&
	grep "^EDAC" ben && grep "^Selected source" ben &&
	jq -r ".events[] | select(.category == \"retry\") | .reasons[]" d.json |
	    grep "retried: the rank went on after it"
'

test_expect_success 'a silent hang is an event on the last progress line, with the stall' '
	mkdir -p hang/node01 &&
	for i in $(seq 1 20); do
		printf "[2024-05-01 12:00:%02d,000] INFO  iteration %8d/     100 | elapsed time per iteration (ms): 1000.0 | lm loss: 3.0 |\n" $i $i
	done >hang/node01/rank-0.log &&
	for m in 01 05 10 15 20 25 30; do
		echo "[2024-05-01 12:$m:30,000] INFO  heartbeat: data loader alive"
	done >>hang/node01/rank-0.log &&
	trainscope diagnose --format json ./hang >d.json 2>/dev/null &&
	test "$(jq -r .outcome d.json)" = failed &&
	test "$(jq -r .failure_iteration d.json)" = 21 &&
	test "$(jq -r .events[0].category d.json)" = hang &&
	jq -r ".events[0].reasons[]" d.json | grep "stopped after iteration 20 at 12:00:20 while other lines went on for 30 min"
'

test_expect_success 'a stall that follows a rank'"'"'s own error is no hang; what follows ranks clearly below it' '
	mkdir -p stall/node01 stall/node02 &&
	for n in 01 02; do
		for i in $(seq 1 20); do
			printf "[2024-05-01 12:00:%02d,000] INFO  iteration %8d/     100 | elapsed time per iteration (ms): 1000.0 | lm loss: 3.0 |\n" $i $i
		done >stall/node$n/rank-0.log
	done &&
	echo "[2024-05-01 12:00:21,000] ERROR RuntimeError: CUDA error: an illegal memory access was encountered" >>stall/node02/rank-0.log &&
	for m in 01 05 10; do
		echo "[2024-05-01 12:$m:30,000] INFO  heartbeat: data loader alive"
	done >>stall/node01/rank-0.log &&
	echo "[2024-05-01 12:10:21,000] ERROR [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE) ran for 600000 milliseconds before timing out." >>stall/node01/rank-0.log &&
	echo "[2024-05-01 12:10:22,000] ERROR Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." >>stall/node01/rank-0.log &&
	echo "[2024-05-01 12:10:23,000] ERROR [rank1]: torch.distributed.DistBackendError: NCCL error: remote process exited or there was a network error" >>stall/node01/rank-0.log &&
	trainscope diagnose --format json ./stall >d.json 2>/dev/null &&
	jq -r ".events[0].template" d.json | grep "illegal memory access" &&
	! jq -r ".events[].category" d.json | grep -x hang &&
	top=$(jq -r ".events[0].score" d.json) &&
	jq -r ".events[] | select(.category == \"timeout\" or .category == \"collective\" or .category == \"disconnect\") | .score" d.json >cons &&
	test "$(wc -l <cons)" -ge 3 &&
	awk -v top="$top" "\$1 > 0.86 * top { bad = 1 } END { exit bad }" cons
'

test_expect_success 'an adapter'"'"'s async event outranks what its peers and NCCL then report' '
	mkdir -p qp &&
	cat >qp/nccl.log <<-\EOF &&
	trn-a1:4410:4470 [2] transport/net_ib.cc:140 NCCL WARN communicator encountered a fatal error (detected in ncclIbTest)
	trn-a2:5120:5199 [2] transport/net_ib.cc:2460 NCCL WARN NET/IB: Got completion from peer 10.9.0.11<40001> with status=4 opcode=0 len=0 vendor err 81 (Send) hca mlx5_3
	trn-a1:4410:4466 [2] transport/net_ib.cc:182 NCCL WARN NET/IB : mlx5_3:1 async fatal event on QP (0x7f00aa010000): invalid request local work queue error
	EOF
	trainscope diagnose --format json ./qp >d.json 2>/dev/null &&
	jq -r ".events[0].template" d.json | grep "async fatal event on QP" &&
	test "$(jq -r .events[0].category d.json)" = link &&
	test "$(jq -r ".nodes[0].node" d.json)" = trn-a1
'

test_expect_success 'an uncorrected PCIe error outranks the corrected ones before it' '
	mkdir -p aer &&
	cat >aer/dmesg.txt <<-\EOF &&
	[ 5120.000101] pcieport 0000:40:01.1: AER: Corrected error received: 0000:41:00.0
	[ 5120.000140] nvidia 0000:41:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)
	[ 5190.204411] pcieport 0000:40:01.1: AER: Uncorrected (Non-Fatal) error received: 0000:41:00.0
	[ 5190.204450] nvidia 0000:41:00.0: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction Layer, (Requester ID)
	EOF
	trainscope diagnose --format json ./aer >d.json 2>/dev/null &&
	jq -r ".events[0].template" d.json | grep "Uncorrected" &&
	test "$(jq -r .events[0].category d.json)" = hardware &&
	! jq -r ".events[] | select(.category == \"hardware\") | .template" d.json | grep Corrected
'

test_expect_success 'Slurm'"'"'s own lines name the node and the task' '
	mkdir -p slurm &&
	cat >slurm/job-42.err <<-\EOF &&
	slurmstepd-cn0311: error: Detected 1 oom_kill event in StepId=42.0. Some of the step tasks have been OOM Killed.
	srun: error: cn0311: task 6: Out Of Memory
	srun: Terminating StepId=42.0
	slurmstepd-cn0311: error: *** STEP 42.0 ON cn0311 CANCELLED AT 2024-02-03T04:05:06 ***
	EOF
	trainscope diagnose --format json ./slurm >d.json 2>/dev/null &&
	test "$(jq -r ".nodes[0].node" d.json)" = cn0311 &&
	test "$(jq -r .events[0].category d.json)" = oom &&
	! jq -r ".nodes[].node" d.json | grep slurmstepd
'

test_expect_success 'a timestamped mpirun tag before NCCL'"'"'s header: the host, never the time' '
	mkdir -p tagts &&
	cat >tagts/out.log <<-\EOF &&
	2020-01-02T03:04:05.678Z: [1,0]<stdout>:trn-b4:71:90 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB
	2020-01-02T03:04:05.679Z: [1,1]<stdout>:trn-b4:72:91 [1] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB
	2020-01-02T05:10:44.100Z: [1,1]<stdout>:trn-b4:72:93 [1] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : port error
	EOF
	trainscope diagnose --format json ./tagts >d.json 2>/dev/null &&
	! jq -r ".nodes[].node" d.json | grep "^2020" &&
	jq -r ".nodes[].node" d.json | grep -x trn-b4
'

test_expect_success 'an error of every node is not discounted for being everywhere' '
	mkdir -p every &&
	cat >every/nccl.log <<-\EOF &&
	172-16-0-5:900:950 [0] NCCL INFO Channel 00 : 1[3b000] -> 0[1b000] via direct shared memory
	172-16-0-5:900:950 [0] NCCL INFO Channel 01 : 1[3b000] -> 0[1b000] via direct shared memory
	172-16-0-5:901:952 [1] misc/ibvwrap.cc:190 NCCL WARN Call to ibv_create_cq failed with error Cannot allocate memory
	172-16-0-6:700:755 [1] misc/ibvwrap.cc:190 NCCL WARN Call to ibv_create_cq failed with error Cannot allocate memory
	EOF
	trainscope diagnose --format json ./every >d.json 2>/dev/null &&
	jq -r ".events[0].template" d.json | grep "ibv_create_cq failed" &&
	job_nodes d.json >nodes &&
	printf "172-16-0-5\n172-16-0-6\n" >want && test_cmp want nodes
'

test_expect_success 'a launcher'"'"'s own traceback, cut or not, never speaks for the failed rank' '
	mkdir -p launch &&
	cat >launch/log.txt <<-\EOF &&
	[2024-07-01 09:00:00,100] [INFO] [launch.py:140:main] nnodes=1, num_local_procs=2
	ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -11) local_rank: 1 (pid: 4711) of binary: /usr/bin/python
	Traceback (most recent call last):
	  File "/usr/local/bin/accelerate", line 8, in <module>
	    sys.exit(main())
	  File "/usr/local/lib/python3.10/site-packages/accelerate/commands/accelerate_cli.py", line 45, in main
	    args.func(args)
	  File "/usr/local/lib/python3.10/site-packages/accelerate/commands/launch.py", line 985, in launch_command
	    multi_gpu_launcher(args)
	EOF
	trainscope diagnose --format json ./launch >d.json 2>/dev/null &&
	jq -r ".events[0].template" d.json | grep "^failed (exitcode" &&
	mkdir -p launch2 &&
	cat >launch2/log.txt <<-\EOF &&
	E0901 10:00:03.000000 812 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -6) local_rank: 0 (pid: 900) of binary: /usr/bin/python
	Traceback (most recent call last):
	  File "/usr/local/bin/torchrun", line 8, in <module>
	    sys.exit(main())
	EOF
	trainscope diagnose --format json ./launch2 >d.json 2>/dev/null &&
	jq -r ".events[0].template" d.json | grep "^failed (exitcode"
'

test_expect_success 'Open MPI'"'"'s summary places the first failed rank; its boilerplate is no rank'"'"'s own error' '
	mkdir -p ompi &&
	cat >ompi/job.out <<-\EOF &&
	[1,0]<stdout>:epoch 3 step 120 loss 1.91
	[1,1]<stdout>:epoch 3 step 120 loss 1.93
	[1,0]<stderr>:RuntimeError: Horovod has been shut down. This was caused by an exception on one of the ranks.
	--------------------------------------------------------------------------
	Primary job  terminated normally, but 1 process returned
	a non-zero exit code. Per user-direction, the job has been aborted.
	--------------------------------------------------------------------------
	mpirun detected that one or more processes exited with non-zero status, thus causing
	the job to be terminated. The first process to do so was:

	  Process name: [[2231,1],1]
	  Exit code:    137
	EOF
	trainscope diagnose --format json ./ompi >d.json 2>/dev/null &&
	jq -r ".nodes[].node" d.json | grep -x rank-1 &&
	test "$(jq -r ".events[] | select(.template | test(\"^Process name\")) | .nodes[0]" d.json)" = rank-1 &&
	! jq -r ".events[].reasons[]" d.json | grep "another event reports the error"
'

test_expect_success 'lines --node --iter: a node'"'"'s lines of one iteration, also in a combined log' '
	trainscope simulate --healthy --nodes 2 --gpus-per-node 2 --iters 8 --layout combined --no-flows comb >/dev/null &&
	trainscope index comb 2>/dev/null &&
	trainscope lines --node node-001 --iter 5 comb >l &&
	test "$(wc -l <l)" -ge 2 &&
	! grep -v "^logs/job.log:[0-9]*: [01]: " l | grep -v "^host/node-001" &&
	grep "iteration *5/" l && ! grep "iteration *[46]/" l &&
	test_must_fail 1 trainscope lines --node nosuch --iter 5 comb 2>err &&
	grep "has no node .nosuch." err &&
	test_must_fail 2 trainscope lines --node node-001 comb 2>err
'

test_expect_success 'a scheduler that ends the job ranks above the stopped tasks' '
	mkdir -p sched &&
	cat >sched/out.log <<-\EOF &&
	[2025-03-01 10:00:00,000] INFO step 40 loss 1.9
	slurmstepd: error: *** JOB 5521 ON cn-12 CANCELLED AT 2025-03-01T10:00:07 DUE TO TIME LIMIT ***
	slurmstepd: error: *** STEP 5521.0 ON cn-12 CANCELLED AT 2025-03-01T10:00:07 DUE TO TIME LIMIT ***
	slurmstepd: error: Failed to send MESSAGE_TASK_EXIT: Connection refused
	srun: error: cn-12: tasks 0-3: Exited with exit code 1
	EOF
	trainscope diagnose --format json ./sched >d.json 2>/dev/null &&
	jq -r ".events[0].category" d.json | grep -x scheduler &&
	jq -r ".events[0].template" d.json | grep "DUE TO TIME LIMIT"
'

test_expect_success 'Ray worker prefixes: the node is the worker address, the adapter error first' '
	mkdir -p ray &&
	cat >ray/driver.log <<-\EOF &&
	(Actor pid=7001, ip=10.9.0.4) step 12 loss 0.8
	(Actor pid=7002, ip=10.9.0.5) step 12 loss 0.8
	(Actor pid=7002, ip=10.9.0.5) mlx5: gpu-box: got completion with error:
	(Actor pid=7002, ip=10.9.0.5) [rank1]: RuntimeError: NCCL error: remote process exited or there was a network error
	(Actor pid=7001, ip=10.9.0.4) [rank0]: RuntimeError: NCCL error: remote process exited or there was a network error
	EOF
	trainscope diagnose --format json ./ray >d.json 2>/dev/null &&
	jq -r ".events[0].template" d.json | grep "got completion with error" &&
	test "$(jq -c ".events[0].nodes" d.json)" = "[\"10.9.0.5\"]" &&
	jq -r ".events[].template" d.json | grep "^RuntimeError: NCCL error: remote"
'

test_expect_success 'XLA: the NCCL call that failed ranks above the replica summaries' '
	mkdir -p xla &&
	cat >xla/log.txt <<-\EOF &&
	2025-02-01 08:00:00.000100: W xla/support.cc:10] Intercepted XLA runtime error:
	INTERNAL: xla/nccl_utils.cc:20: NCCL operation ncclAllReduce(a, b, n, t, op, c, s) failed: unhandled cuda error
	2025-02-01 08:00:00.000200: E xla/client.cc:30] Execution of replica 0 failed: INTERNAL: NCCL operation ncclAllReduce(a, b, n, t, op, c, s) failed: unhandled cuda error
	2025-02-01 08:00:00.000300: E xla/client.cc:30] Execution of replica 1 failed: INTERNAL: NCCL operation ncclAllReduce(a, b, n, t, op, c, s) failed: unhandled cuda error
	EOF
	trainscope diagnose --format json ./xla >d.json 2>/dev/null &&
	jq -r ".events[0].template" d.json | grep "^INTERNAL: .*unhandled cuda error"
'

test_expect_success 'a process tag in brackets names the node of a crash' '
	mkdir -p segv &&
	cat >segv/log.txt <<-\EOF &&
	[box-a7:5120:0:5133] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x20)
	[box-a7:5121:0:5134] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x28)
	==== backtrace (tid:   5133) ====
	EOF
	trainscope diagnose --format json ./segv >d.json 2>/dev/null &&
	jq -r ".events[0].category" d.json | grep -x crash &&
	test "$(jq -r ".nodes[0].node" d.json)" = box-a7
'

FL="$TS_SHARED/data/failure-logs"
if ! test -d "$FL"; then
	test_skip 'real failure logs' "no $FL"
else
	test_expect_success 'real failure logs: the cause line is in the top 3 of every case, first in 90%' '
		n=0 first=0 &&
		for d in "$FL"/fl*; do
			roots=$(jq -r "(.root_cause_lines // []) | map(tostring) | join(\" \")" "$d/meta.json") &&
			test -n "$roots" || continue
			id=$(basename "$d") &&
			mkdir -p "$id" && cp "$d/log.txt" "$id/" &&
			trainscope index "$id" >/dev/null 2>&1 &&
			trainscope diagnose --format json "$id" >d.json &&
			rank=0 k=0 &&
			for tid in $(jq -r ".events[0:3][].template_id" d.json); do
				k=$((k + 1))
				for l in $(trainscope lines --context 0 --template "$tid" "$id" | cut -d: -f2); do
					for r in $roots; do
						test "$l" != "$r" || { rank=$k; break 3; }
					done
				done
			done
			test "$rank" -gt 0 || { echo "$id: cause not in the top 3" >&2; exit 1; }
			n=$((n + 1))
			test "$rank" != 1 || first=$((first + 1))
		done &&
		echo "$first of $n first" &&
		test $((first * 10)) -ge $((n * 9))
	'
fi

test_done
