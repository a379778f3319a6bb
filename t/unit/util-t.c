/* util-t.c -- sizes in human units, as summaries and listings print them. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>

#include "base/util.h"
#include "tap.h"

static void
test_human_size(void)
{
	static const struct {
		uint64_t bytes;
		const char *want;
	} cases[] = {
		{ 0, "0 B" }, { 1, "1 B" }, { 999, "999 B" }, { 1000, "1.0 kB" },
		{ 1536, "1.5 kB" }, { 999949, "999.9 kB" },
		{ 999950, "1.0 MB" },	/* not "1000.0 kB" */
		{ 12500000, "12.5 MB" }, { 2147483648ULL, "2.1 GB" },
		{ 1805391170000ULL, "1.8 TB" }, { 999999999999999ULL, "1.0 PB" },
		{ UINT64_MAX, "18446.7 PB" },
	};
	char buf[32], what[64];
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(what, sizeof what, "%llu bytes read as %s",
		    (unsigned long long)cases[i].bytes, cases[i].want);
		is_str(ts_human_size(cases[i].bytes, buf, sizeof buf),
		    cases[i].want, what);
	}
}

int
main(void)
{
	test_human_size();
	return done_testing();
}
