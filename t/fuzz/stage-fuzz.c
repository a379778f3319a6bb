/*
 * stage-fuzz.c -- iteration scanners, progress bars, stage tracking and
 * the settings a run's shape is read from, on any bytes.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "diag/pool.h"
#include "diag/stage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct stage_tracker t;
	struct stage_tag tag;
	struct stage_iter it;
	struct pool_kv *kv = NULL;
	size_t i, start = 0, nkv = 0, j;

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
			stage_progress_bar(line, i - start);
			pool_settings_line(line, i - start, &kv, &nkv);
			stage_feed(&t, line, i - start, &tag);
			if (tag.stage >= STAGE_COUNT)
				abort();
			free(line);
		}
		start = i + 1;
	}
	for (j = 0; j < nkv; j++) {
		if (kv[j].key == NULL || kv[j].value == NULL ||
		    kv[j].value[0] == '\0')
			abort();
		free(kv[j].key);
		free(kv[j].value);
	}
	free(kv);
	return 0;
}
