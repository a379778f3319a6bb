# genjob.awk -- write a synthetic training job's logs: NODES nodes with
# RANKS ranks each, LINES lines per rank file, and per node a host log
# (kern.log) of HOSTLINES lines, in DIR.  Rank files hold Megatron-style
# iteration lines, NCCL init and channel lines, data loader and
# checkpoint messages, occasional warnings; host logs hold syslog lines
# (month-name dates, host, tag) from the kernel (with its dmesg time),
# the InfiniBand and GPU drivers, systemd and sshd.  Timestamps advance
# per line.
function ts(t,   s) {
	s = int(t)
	return sprintf("2024-05-01 %02d:%02d:%02d.%03d", int(s / 3600) % 24,
	    int(s / 60) % 60, s % 60, int((t - s) * 1000))
}
function line(r, node, i, t,   k, it, n) {
	k = (i * 7 + r * 13) % 100
	it = int(i / 10)
	n = NODES * RANKS
	if (i < 40)
		return sprintf("%s:%d:%d [%d] NCCL INFO Channel %02d/0 : %d[%d] -> %d[%d] [send] via NET/IB/%d", node, 4000 + r, 4100 + r, r % 8, i % 32, r, r % 8, (r + 1) % n, (r + 1) % 8, i % 4)
	if (k < 55)
		return sprintf("[%s] [INFO] [rank %d]  iteration %8d/  500000 | consumed samples: %12d | elapsed time per iteration (ms): %.1f | learning rate: %.6E | global batch size: 1024 | lm loss: %.6E | loss scale: 65536.0 | grad norm: %.3f | number of skipped iterations: 0 | number of nan iterations: 0 |", ts(t), r, it, it * 1024, 1000 + (i * 37 % 250) / 3, 0.00015 * (1 - it / 500000), 2 + 3 / (1 + it / 100), 0.5 + (i * 13 % 100) / 100)
	if (k < 70)
		return sprintf("[%s] [INFO] [rank %d] data loader: fetched batch %d from shard /data/shard-%05d.bin in %.2f ms", ts(t), r, it, i % 4096, (i % 97) / 7)
	if (k < 80)
		return sprintf("[%s] [DEBUG] [rank %d] allreduce bucket %d of %d: %d bytes in %.3f ms (%.1f GB/s)", ts(t), r, i % 32, 32, 4194304 * (1 + i % 4), (i % 50) / 10 + 0.2, 10 + (i % 90))
	if (k < 88)
		return sprintf("%s:%d:%d [%d] NCCL INFO comm 0x%x rank %d nranks %d cudaDev %d busId %x0 - Init COMPLETE", node, 4000 + r, 4100 + r, r % 8, 1400000 + i, r, n, r % 8, 16 + r % 8)
	if (k < 94)
		return sprintf("[%s] [INFO] [rank %d] saving checkpoint at iteration %d to /ckpt/run7/iter_%07d", ts(t), r, it, it)
	if (k < 98)
		return sprintf("[%s] [INFO] [rank %d] throughput: %.2f TFLOP/s/GPU, tokens/s %d, memory (GB) allocated %.2f reserved %.2f", ts(t), r, 140 + (i % 30), 50000 + i % 9000, 40 + (i % 20) / 10, 60 + (i % 10) / 10)
	return sprintf("[%s] [WARNING] [rank %d] NCCL watchdog: collective %d (ALLREDUCE) took %d ms on stream %d", ts(t), r, i, 500 + i % 400, i % 4)
}
# syslog's "May  1 10:00:00" (no year)
function sts(t,   s) {
	s = int(t)
	return sprintf("May %2d %02d:%02d:%02d", 1 + int(s / 86400),
	    int(s / 3600) % 24, int(s / 60) % 60, s % 60)
}
function hline(n, node, i, t,   k, up) {
	k = (i * 11 + n * 7) % 100
	up = t - 30000
	if (k < 30)
		return sprintf("%s %s kernel: [%12.6f] mlx5_core 0000:%02x:00.%d: mlx5_fw_tracer_handle_traces:735:(pid %d): FW tracer: %d events in %d ms", sts(t), node, up, 12 + i % 4, i % 2, 100 + i % 900, i % 64, i % 17)
	if (k < 50)
		return sprintf("%s %s kernel: [%12.6f] NVRM: GPU at PCI:0000:%02x:00: GPU-%08x-%04x ECC page retirement: %d pages pending", sts(t), node, up, 16 + i % 8, 305419896 + n, i % 65536, i % 3)
	if (k < 65)
		return sprintf("%s %s systemd[1]: Started Session %d of User slurm.", sts(t), node, 100 + i)
	if (k < 75)
		return sprintf("%s %s sshd[%d]: Accepted publickey for slurm from 10.0.%d.%d port %d ssh2: RSA SHA256:abc%d", sts(t), node, 2000 + i % 5000, n % 256, i % 256, 40000 + i % 20000, i % 1000)
	if (k < 90)
		return sprintf("%s %s nvidia-persistenced[%d]: device 0000:%02x:00.0 - persistence mode enabled.", sts(t), node, 1700 + n, 16 + i % 8)
	return sprintf("%s %s kernel: [%12.6f] %s: port %d link state changed to %s", sts(t), node, up, "mlx5_ib" , 1 + i % 2, i % 2 ? "ACTIVE" : "DOWN")
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
		f = sprintf("%s/%s/kern.log", DIR, node)
		t = 36000 + n * 0.03
		for (i = 0; i < HOSTLINES; i++) {
			print hline(n, node, i, t) > f
			t += 0.74
		}
		close(f)
	}
}
