/*
 * flow.c -- addresses of the flow data model.
 *
 * Every address is kept as 16 bytes; IPv4 is mapped into ::ffff:0:0/96 so
 * IPv4 and IPv6 hosts share one type, one comparison and one hash.  Text
 * forms are the usual ones: dotted quads for mapped IPv4, RFC 5952 for
 * the rest (inet_ntop does that).
 */
#include "config.h"

#include <arpa/inet.h>
#include <string.h>

#include "flows/flow.h"

static const uint8_t v4mapped[12] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
};

const char *
flow_addr_str(const struct flow_addr *a, char *buf, size_t len)
{
	if (memcmp(a->b, v4mapped, sizeof v4mapped) == 0) {
		if (inet_ntop(AF_INET, a->b + 12, buf, len) != NULL)
			return buf;
	} else if (inet_ntop(AF_INET6, a->b, buf, len) != NULL)
		return buf;
	if (len > 0)
		buf[0] = '\0';
	return buf;
}

int
flow_addr_parse(const char *s, struct flow_addr *a)
{
	uint8_t v4[4];

	if (inet_pton(AF_INET, s, v4) == 1) {
		memcpy(a->b, v4mapped, sizeof v4mapped);
		memcpy(a->b + 12, v4, 4);
		return 0;
	}
	if (inet_pton(AF_INET6, s, a->b) == 1)
		return 0;
	return -1;
}

int
flow_addr_cmp(const struct flow_addr *a, const struct flow_addr *b)
{
	return memcmp(a->b, b->b, sizeof a->b);
}

void
flow_addr_v4(struct flow_addr *a, const uint8_t *v4)
{
	memcpy(a->b, v4mapped, sizeof v4mapped);
	memcpy(a->b + 12, v4, 4);
}

int
flow_addr_is_v4(const struct flow_addr *a)
{
	return memcmp(a->b, v4mapped, sizeof v4mapped) == 0;
}
