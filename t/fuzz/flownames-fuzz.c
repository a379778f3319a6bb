/*
 * flownames-fuzz.c -- the node-name scanner over arbitrary log text: the
 * first byte chooses hosts-file or log syntax, the rest is the text.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "flows/flowan.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct flow_set set = { 0 };
	char **names;
	size_t i;
	char ip[32];

	set.nhosts = 4;
	set.hosts = xcalloc(4, sizeof *set.hosts);
	for (i = 0; i < 4; i++) {
		snprintf(ip, sizeof ip, "10.0.0.%zu", i + 1);
		flow_addr_parse(ip, &set.hosts[i]);
	}
	names = xcalloc(4, sizeof *names);
	if (size > 0)
		flowan_names_scan_text(&set, names, (const char *)data + 1,
		    size - 1, data[0] & 1);
	flowan_names_free(names, 4);
	free(set.hosts);
	return 0;
}
