/*
 * canvas-fuzz.c -- any bytes drawn on a canvas come out as text with no
 * control character, at the width the canvas measured.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "view/canvas.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct canvas c;
	char *text = malloc(size + 1), out[4096];
	size_t i;
	int r, x, w;

	if (text == NULL)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	canvas_init(&c, 64, size > 0 && data[0] & 1);
	r = canvas_add_row(&c);
	x = canvas_put_clip(&c, r, 3, 60, CS_NORMAL, text, size);
	if (x > 60)
		abort();
	w = canvas_text_width(text, size);
	if (w < 0)
		abort();
	canvas_row_text(&c, r, out, sizeof out);
	for (i = 0; out[i] != '\0'; i++)
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			abort();
	/* scrolled sideways by a column the first byte picks */
	r = canvas_add_row(&c);
	x = canvas_put_from(&c, r, 0, 64, CS_NORMAL, text, size,
	    size > 0 ? data[0] % 97 : 0);
	if (x > 64)
		abort();
	canvas_row_text(&c, r, out, sizeof out);
	for (i = 0; out[i] != '\0'; i++)
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			abort();
	canvas_release(&c);
	free(text);
	return 0;
}
