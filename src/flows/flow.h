/*
 * flow.h -- the flow data model shared by the capture readers, the flow
 * assembly and the flow analysis.
 *
 * Readers turn any input (pcap/pcapng packets, nfdump CSV, Zeek conn.log,
 * flow CSV) into a stream of `struct flow_rec`: a packet is a record with
 * start == end and pkts == 1.  Assembly groups records into flows (5-tuple
 * plus RoCE destination QP, idle timeout) and flows into messages (bursts
 * split by gaps) between hosts; the analysis works on messages.
 */
#ifndef TS_FLOW_H
#define TS_FLOW_H

#include <stddef.h>
#include <stdint.h>

/* An IPv4 or IPv6 address; IPv4 is stored as ::ffff:a.b.c.d. */
struct flow_addr {
	uint8_t b[16];
};

enum {
	FLOW_F_ROCE = 0x01,	/* RoCEv2: UDP 4791 with an InfiniBand BTH */
	FLOW_F_CNP = 0x02,	/* RoCE congestion notification packet(s) */
	FLOW_F_SYN = 0x04,
	FLOW_F_FIN = 0x08,
	FLOW_F_RST = 0x10,
	FLOW_F_PAYLOAD = 0x20,	/* `payload` is known (even when it is 0) */
	FLOW_F_SEQ = 0x40	/* `seq` holds the TCP sequence number */
};

struct flow_rec {
	double start;		/* epoch seconds */
	double end;
	struct flow_addr src, dst;
	uint16_t sport, dport;
	uint8_t proto;		/* IPPROTO_TCP, IPPROTO_UDP, ... */
	uint8_t flags;		/* FLOW_F_* */
	uint32_t qp;		/* RoCE destination QP, 0 otherwise */
	uint64_t bytes;		/* IP-level bytes (payload + headers) */
	uint64_t payload;	/* transport payload bytes when known, else 0 */
	uint64_t pkts;
	uint32_t ce;		/* packets marked ECN CE */
	uint32_t cnp;		/* RoCE CNP packets */
	uint8_t bth_opcode;	/* RoCE: BTH opcode of a packet record */
	uint32_t psn;		/* RoCE: BTH packet sequence number */
	uint32_t seq;		/* TCP: sequence number (with FLOW_F_SEQ) */
	uint32_t rdma_len;	/* RoCE: RETH DMA length (whole message), 0 if none */
};

/* Format an address as text ("10.0.0.1", "fe80::1") into buf (>= 46 bytes). */
const char *flow_addr_str(const struct flow_addr *a, char *buf, size_t len);
/* Parse "10.0.0.1" or an IPv6 address; 0 on success, -1 if not one. */
int flow_addr_parse(const char *s, struct flow_addr *a);
int flow_addr_cmp(const struct flow_addr *a, const struct flow_addr *b);
/* Set *a to the IPv4 address in the 4 network-order bytes at v4. */
void flow_addr_v4(struct flow_addr *a, const uint8_t *v4);
/* 1 when a is an IPv4 (mapped) address, else 0. */
int flow_addr_is_v4(const struct flow_addr *a);

#endif
