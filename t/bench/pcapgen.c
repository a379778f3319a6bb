/*
 * pcapgen.c -- write a large synthetic capture for the ingest benchmark.
 *
 *	pcapgen FILE MEGABYTES [HOSTS]
 *
 * HOSTS nodes in a ring exchange RoCEv2 traffic (Ethernet, IPv4, UDP
 * 4791, BTH) on 4 queue pairs per neighbour: every 5 ms each QP sends a
 * burst of 64 packets of 4 KB, captured with a 128-byte snap length as
 * a port mirror would.  One packet in 50 is a TCP control packet, one in
 * 40 is CE-marked, and a CNP answers every 1000th.  Output is
 * deterministic.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SNAP 128
#define WIRE_PAYLOAD 4096

static uint8_t frame[SNAP];

static void
w16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
w32(uint8_t *p, uint32_t v)
{
	w16(p, v >> 16);
	w16(p + 2, v & 0xffff);
}

/* Build a frame; returns its wire length. */
static unsigned
build(unsigned src, unsigned dst, int tcp, int opcode, uint32_t qp,
    uint32_t psn, int ce)
{
	unsigned l4 = tcp ? 20 + 100 : 8 + 12 + WIRE_PAYLOAD + 4;

	memset(frame, 0, sizeof frame);
	frame[0] = 2;
	frame[5] = (uint8_t)dst;
	frame[6] = 2;
	frame[11] = (uint8_t)src;
	w16(frame + 12, 0x0800);
	frame[14] = 0x45;
	frame[15] = ce ? 3 : 2;
	w16(frame + 16, 20 + l4);
	frame[22] = 64;
	frame[23] = tcp ? 6 : 17;
	w32(frame + 26, 0x0a000000u | (src + 1));
	w32(frame + 30, 0x0a000000u | (dst + 1));
	if (tcp) {
		w16(frame + 34, 40000 + src);
		w16(frame + 36, 29500);
		frame[46] = 0x50;
		frame[47] = 0x18;
	} else {
		w16(frame + 34, 49152 + (qp & 0xff));
		w16(frame + 36, 4791);
		w16(frame + 38, l4);
		frame[42] = (uint8_t)opcode;
		w32(frame + 46, qp);
		w32(frame + 50, psn & 0xffffff);
	}
	return 14 + 20 + l4;
}

static void
put_rec(FILE *fp, double t, unsigned wire)
{
	uint32_t h[4];
	unsigned cap = wire < SNAP ? wire : SNAP;

	h[0] = (uint32_t)t;
	h[1] = (uint32_t)((t - (double)h[0]) * 1e6);
	h[2] = cap;
	h[3] = wire;
	fwrite(h, 4, 4, fp);
	fwrite(frame, 1, cap, fp);
}

int
main(int argc, char **argv)
{
	uint32_t hdr[6] = { 0xa1b2c3d4, 2 | 4 << 16, 0, 0, SNAP, 1 };
	unsigned hosts = argc > 3 ? (unsigned)atoi(argv[3]) : 16, h, q, k;
	unsigned long long want, n = 0, written = 24;
	double t = 1714564800.0;
	FILE *fp;

	if (argc < 3 || hosts < 2 || hosts > 250) {
		fprintf(stderr, "usage: pcapgen FILE MEGABYTES [HOSTS]\n");
		return 2;
	}
	want = strtoull(argv[2], NULL, 10) << 20;
	if ((fp = fopen(argv[1], "wb")) == NULL) {
		perror(argv[1]);
		return 1;
	}
	setvbuf(fp, NULL, _IOFBF, 1 << 20);
	fwrite(hdr, 4, 6, fp);
	while (written < want) {
		for (k = 0; k < 64; k++)
			for (h = 0; h < hosts; h++)
				for (q = 0; q < 4; q++) {
					unsigned wire, d = (h + 1) % hosts;

					n++;
					t += 1e-7;
					if (n % 50 == 0)
						wire = build(h, 0, 1, 0, 0, 0, 0);
					else if (n % 1000 == 1)
						wire = build(d, h, 0, 0x81,
						    h * 4 + q, 0, 0);
					else
						wire = build(h, d, 0, 0x0a,
						    h * 4 + q, (uint32_t)n,
						    n % 40 == 0);
					put_rec(fp, t, wire);
					written += 16 + (wire < SNAP ? wire : SNAP);
				}
		t += 0.005;
	}
	if (fclose(fp) != 0) {
		perror(argv[1]);
		return 1;
	}
	printf("%llu packets\n", n);
	return 0;
}
