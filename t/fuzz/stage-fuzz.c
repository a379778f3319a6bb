/* stage-fuzz.c -- iteration scanners and stage tracking on any bytes. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "diag/stage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct stage_tracker t;
	struct stage_tag tag;
	struct stage_iter it;
	size_t i, start = 0;

	stage_tracker_init(&t);
	for (i = 0; i <= size; i++) {
		if (i < size && s[i] != '\n')
			continue;
		/* exact-size copies so reads past a line trip the sanitizer */
		{
			char *line = malloc(i - start + 1);

			if (line == NULL)
				abort();
			for (size_t k = start; k < i; k++)
				line[k - start] = s[k];
			stage_parse_iter(line, i - start, &it);
			stage_feed(&t, line, i - start, &tag);
			if (tag.stage >= STAGE_COUNT)
				abort();
			free(line);
		}
		start = i + 1;
	}
	return 0;
}
