/*
 * pcapw.h -- write classic libpcap capture files (microsecond timestamps,
 * Ethernet link type), the format tcpdump, tshark and libpcap read.
 */
#ifndef TS_PCAPW_H
#define TS_PCAPW_H

#include <stdint.h>
#include <stdio.h>

struct pcapw;

/*
 * Create `path` and write the file header with snapshot length `snaplen`.
 * Returns the writer (free with pcapw_close()), or NULL with *cause set.
 */
struct pcapw *pcapw_open(const char *path, uint32_t snaplen, char **cause);
/*
 * Append one frame seen at `ts` (epoch seconds) whose length on the wire
 * was `wirelen`; at most the snapshot length of `frame` (caplen bytes
 * available) is stored.  Returns 0, or -1 with *cause set on a write error.
 */
int pcapw_frame(struct pcapw *w, double ts, const uint8_t *frame,
    uint32_t caplen, uint32_t wirelen, char **cause);
/* Frames written so far. */
uint64_t pcapw_count(const struct pcapw *w);
/* Bytes of the file so far (its header and every frame). */
uint64_t pcapw_bytes(const struct pcapw *w);
/* Flush and close; returns 0, or -1 with *cause set.  Accepts NULL. */
int pcapw_close(struct pcapw *w, char **cause);

#endif
