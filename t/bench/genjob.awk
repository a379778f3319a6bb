# genjob.awk -- write a synthetic training job's logs: NODES nodes with
# RANKS ranks each, LINES lines per rank file, in DIR.  Megatron-style
# iteration lines, NCCL init and channel lines, data loader and checkpoint
# messages, occasional warnings; timestamps advance per line.
function ts(t,   s) {
	s = int(t)
	return sprintf("2024-05-01 %02d:%02d:%02d.%03d", int(s / 3600) % 24,
	    int(s / 60) % 60, s % 60, int((t - s) * 1000))
}
function line(r, node, i, t,   k, it) {
	k = (i * 7 + r * 13) % 100
	it = int(i / 10)
	if (i < 40)
		return sprintf("%s:%d:%d [%d] NCCL INFO Channel %02d/0 : %d[%d] -> %d[%d] [send] via NET/IB/%d", node, 4000 + r, 4100 + r, r % 8, i % 32, r, r % 8, (r + 1) % 64, (r + 1) % 8, i % 4)
	if (k < 55)
		return sprintf("[%s] [INFO] [rank %d]  iteration %8d/  500000 | consumed samples: %12d | elapsed time per iteration (ms): %.1f | learning rate: %.6E | global batch size: 1024 | lm loss: %.6E | loss scale: 65536.0 | grad norm: %.3f | number of skipped iterations: 0 | number of nan iterations: 0 |", ts(t), r, it, it * 1024, 1000 + (i * 37 % 250) / 3, 0.00015 * (1 - it / 500000), 2 + 3 / (1 + it / 100), 0.5 + (i * 13 % 100) / 100)
	if (k < 70)
		return sprintf("[%s] [INFO] [rank %d] data loader: fetched batch %d from shard /data/shard-%05d.bin in %.2f ms", ts(t), r, it, i % 4096, (i % 97) / 7)
	if (k < 80)
		return sprintf("[%s] [DEBUG] [rank %d] allreduce bucket %d of %d: %d bytes in %.3f ms (%.1f GB/s)", ts(t), r, i % 32, 32, 4194304 * (1 + i % 4), (i % 50) / 10 + 0.2, 10 + (i % 90))
	if (k < 88)
		return sprintf("%s:%d:%d [%d] NCCL INFO comm 0x%x rank %d nranks 64 cudaDev %d busId %x0 - Init COMPLETE", node, 4000 + r, 4100 + r, r % 8, 1400000 + i, r, r % 8, 16 + r % 8)
	if (k < 94)
		return sprintf("[%s] [INFO] [rank %d] saving checkpoint at iteration %d to /ckpt/run7/iter_%07d", ts(t), r, it, it)
	if (k < 98)
		return sprintf("[%s] [INFO] [rank %d] throughput: %.2f TFLOP/s/GPU, tokens/s %d, memory (GB) allocated %.2f reserved %.2f", ts(t), r, 140 + (i % 30), 50000 + i % 9000, 40 + (i % 20) / 10, 60 + (i % 10) / 10)
	return sprintf("[%s] [WARNING] [rank %d] NCCL watchdog: collective %d (ALLREDUCE) took %d ms on stream %d", ts(t), r, i, 500 + i % 400, i % 4)
}
BEGIN {
	for (n = 0; n < NODES; n++) {
		node = sprintf("node%03d", n)
		system("mkdir -p " DIR "/" node)
		for (l = 0; l < RANKS; l++) {
			r = n * RANKS + l
			f = sprintf("%s/%s/rank-%d.log", DIR, node, r)
			t = 36000 + r * 0.01
			for (i = 0; i < LINES; i++) {
				print line(r, node, i, t) > f
				t += 0.37
			}
			close(f)
		}
	}
}
