/*
 * canvas.c -- a grid of character cells (see canvas.h).
 *
 * The width table is our own so that the canvas is the same whatever the
 * locale of the machine: zero width for combining marks and format
 * characters, two cells for the East Asian wide and fullwidth ranges and
 * the emoji blocks, one for everything else.
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "view/canvas.h"
#include "base/util.h"

struct range {
	uint32_t lo, hi;
};

static const struct range zero_width[] = {
	{ 0x0300, 0x036f }, { 0x0483, 0x0489 }, { 0x0591, 0x05bd },
	{ 0x05bf, 0x05bf }, { 0x05c1, 0x05c2 }, { 0x05c4, 0x05c5 },
	{ 0x05c7, 0x05c7 }, { 0x0610, 0x061a }, { 0x064b, 0x065f },
	{ 0x0670, 0x0670 }, { 0x06d6, 0x06dc }, { 0x06df, 0x06e4 },
	{ 0x06e7, 0x06e8 }, { 0x06ea, 0x06ed }, { 0x0711, 0x0711 },
	{ 0x0730, 0x074a }, { 0x07a6, 0x07b0 }, { 0x0900, 0x0902 },
	{ 0x093a, 0x093a }, { 0x093c, 0x093c }, { 0x0941, 0x0948 },
	{ 0x094d, 0x094d }, { 0x0951, 0x0957 }, { 0x0e31, 0x0e31 },
	{ 0x0e34, 0x0e3a }, { 0x0e47, 0x0e4e }, { 0x1ab0, 0x1aff },
	{ 0x1dc0, 0x1dff }, { 0x200b, 0x200d }, { 0x2060, 0x2064 },
	{ 0x20d0, 0x20ff }, { 0x302a, 0x302d }, { 0x3099, 0x309a },
	{ 0xfe00, 0xfe0f }, { 0xfe20, 0xfe2f }, { 0xfeff, 0xfeff },
	{ 0x1f3fb, 0x1f3ff }, { 0xe0100, 0xe01ef }
};

static const struct range wide[] = {
	{ 0x1100, 0x115f }, { 0x231a, 0x231b }, { 0x2329, 0x232a },
	{ 0x23e9, 0x23ec }, { 0x23f0, 0x23f0 }, { 0x23f3, 0x23f3 },
	{ 0x25fd, 0x25fe }, { 0x2614, 0x2615 }, { 0x2648, 0x2653 },
	{ 0x267f, 0x267f }, { 0x2693, 0x2693 }, { 0x26a1, 0x26a1 },
	{ 0x26aa, 0x26ab }, { 0x26bd, 0x26be }, { 0x26c4, 0x26c5 },
	{ 0x26ce, 0x26ce }, { 0x26d4, 0x26d4 }, { 0x26ea, 0x26ea },
	{ 0x26f2, 0x26f3 }, { 0x26f5, 0x26f5 }, { 0x26fa, 0x26fa },
	{ 0x26fd, 0x26fd }, { 0x2705, 0x2705 }, { 0x270a, 0x270b },
	{ 0x2728, 0x2728 }, { 0x274c, 0x274c }, { 0x274e, 0x274e },
	{ 0x2753, 0x2755 }, { 0x2757, 0x2757 }, { 0x2795, 0x2797 },
	{ 0x27b0, 0x27b0 }, { 0x27bf, 0x27bf }, { 0x2b1b, 0x2b1c },
	{ 0x2b50, 0x2b50 }, { 0x2b55, 0x2b55 }, { 0x2e80, 0x303e },
	{ 0x3041, 0x3247 }, { 0x3250, 0x4dbf }, { 0x4e00, 0xa4cf },
	{ 0xa960, 0xa97f }, { 0xac00, 0xd7a3 }, { 0xf900, 0xfaff },
	{ 0xfe10, 0xfe19 }, { 0xfe30, 0xfe6f }, { 0xff00, 0xff60 },
	{ 0xffe0, 0xffe6 }, { 0x16fe0, 0x16fe4 }, { 0x17000, 0x18cff },
	{ 0x1b000, 0x1b2ff }, { 0x1f004, 0x1f004 }, { 0x1f0cf, 0x1f0cf },
	{ 0x1f18e, 0x1f18e }, { 0x1f191, 0x1f19a }, { 0x1f200, 0x1f251 },
	{ 0x1f300, 0x1f320 }, { 0x1f32d, 0x1f335 }, { 0x1f337, 0x1f37c },
	{ 0x1f37e, 0x1f393 }, { 0x1f3a0, 0x1f3ca }, { 0x1f3cf, 0x1f3d3 },
	{ 0x1f3e0, 0x1f3f0 }, { 0x1f3f4, 0x1f3f4 }, { 0x1f3f8, 0x1f43e },
	{ 0x1f440, 0x1f440 }, { 0x1f442, 0x1f4fc }, { 0x1f4ff, 0x1f53d },
	{ 0x1f54b, 0x1f54e }, { 0x1f550, 0x1f567 }, { 0x1f57a, 0x1f57a },
	{ 0x1f595, 0x1f596 }, { 0x1f5a4, 0x1f5a4 }, { 0x1f5fb, 0x1f64f },
	{ 0x1f680, 0x1f6c5 }, { 0x1f6cc, 0x1f6cc }, { 0x1f6d0, 0x1f6d2 },
	{ 0x1f6d5, 0x1f6d7 }, { 0x1f6eb, 0x1f6ec }, { 0x1f6f4, 0x1f6fc },
	{ 0x1f7e0, 0x1f7eb }, { 0x1f90c, 0x1f93a }, { 0x1f93c, 0x1f945 },
	{ 0x1f947, 0x1f9ff }, { 0x1fa70, 0x1faff }, { 0x20000, 0x2fffd },
	{ 0x30000, 0x3fffd }
};

/* Shown as <U+XXXX>: they reorder or hide the text around them. */
static const struct range shown_as_code[] = {
	{ 0x0080, 0x009f }, { 0x061c, 0x061c }, { 0x200e, 0x200f },
	{ 0x2028, 0x202e }, { 0x2066, 0x2069 }, { 0xfff9, 0xfffb }
};

static int
in_table(uint32_t cp, const struct range *t, size_t n)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cp > t[mid].hi)
			lo = mid + 1;
		else if (cp < t[mid].lo)
			hi = mid;
		else
			return 1;
	}
	return 0;
}

#define NELEM(a) (sizeof (a) / sizeof (a)[0])

int
canvas_wcwidth(uint32_t cp)
{
	if (in_table(cp, zero_width, NELEM(zero_width)))
		return 0;
	if (in_table(cp, wide, NELEM(wide)))
		return 2;
	return 1;
}

static const char *const glyphs_utf8[GL_COUNT] = {
	"\u2588", "\u2591", "\u2592", "\u2593", "\u2500", "\u2502",
	"\u2192", "\u2026",
	"\u258f", "\u258e", "\u258d", "\u258c", "\u258b", "\u258a",
	"\u2589", "\u2588"
};
static const char *const glyphs_ascii[GL_COUNT] = {
	"#", "-", "=", "%", "-", "|", ">", "~",
	" ", " ", " ", "=", "=", "=", "=", "#"
};

const char *
canvas_glyph_str(const struct canvas *c, enum canvas_glyph g)
{
	return c->ascii ? glyphs_ascii[g] : glyphs_utf8[g];
}

void
canvas_init(struct canvas *c, int width, int ascii)
{
	memset(c, 0, sizeof *c);
	c->width = width < 1 ? 1 : width;
	c->ascii = ascii;
}

int
canvas_env_ascii(void)
{
	static const char *const vars[] = { "LC_ALL", "LC_CTYPE", "LANG" };
	const char *s = NULL;
	size_t i;

	for (i = 0; i < TS_NELEM(vars) && (s == NULL || *s == '\0'); i++)
		s = getenv(vars[i]);
	if (s == NULL || *s == '\0')
		return 0;
	return strcasestr(s, "utf-8") == NULL && strcasestr(s, "utf8") == NULL;
}

void
canvas_release(struct canvas *c)
{
	free(c->cells);
	c->cells = NULL;
	c->nrows = c->cap = 0;
}

void
canvas_reset(struct canvas *c)
{
	c->nrows = 0;
}

void
canvas_set_width(struct canvas *c, int width)
{
	if (width < 1)
		width = 1;
	if (width != c->width) {
		canvas_release(c);
		c->width = width;
	}
	c->nrows = 0;
}

int
canvas_add_row(struct canvas *c)
{
	struct canvas_cell *row;
	int i;

	if (c->nrows == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 32;
		c->cells = xreallocarray(c->cells, (size_t)c->cap * c->width,
		    sizeof *c->cells);
	}
	row = &c->cells[(size_t)c->nrows * c->width];
	for (i = 0; i < c->width; i++) {
		row[i].s[0] = ' ';
		row[i].s[1] = '\0';
		row[i].style = CS_NORMAL;
		row[i].attr = 0;
	}
	return c->nrows++;
}

struct canvas_cell *
canvas_cell(struct canvas *c, int row, int col)
{
	if (row < 0 || row >= c->nrows || col < 0 || col >= c->width)
		return NULL;
	return &c->cells[(size_t)row * c->width + col];
}

/* Where text is drawn: the row, the column, and the clip column. */
struct pen {
	struct canvas *c;
	int row, col, end, style;
	int origin;		/* column tabs count from */
	int skip;		/* columns of text still to leave out */
	int skipped;		/* columns left out so far */
	int dropped;		/* the last cluster was left out */
};

/* Put one cluster of width w (1 or 2). */
static void
pen_cell(struct pen *p, const char *s, size_t n, int w)
{
	struct canvas_cell *cell;

	if (p->skip > 0) {
		/* left out; a wide cluster cut in half leaves a blank */
		p->skip -= w;
		p->skipped += w;
		p->dropped = 1;
		if (p->skip < 0) {
			p->skipped += p->skip;
			p->skip = 0;
			pen_cell(p, " ", 1, 1);
		}
		return;
	}
	p->dropped = 0;
	if (p->col + w <= p->end && (cell = canvas_cell(p->c, p->row,
	    p->col)) != NULL) {
		if (n >= sizeof cell->s)
			n = sizeof cell->s - 1;
		memcpy(cell->s, s, n);
		cell->s[n] = '\0';
		cell->style = (uint8_t)p->style;
		if (w == 2 && (cell = canvas_cell(p->c, p->row,
		    p->col + 1)) != NULL) {
			cell->s[0] = '\0';
			cell->style = (uint8_t)p->style;
		}
	}
	p->col += w;
}

/* Append a combining mark to the cell before the pen. */
static void
pen_combine(struct pen *p, const char *s, size_t n)
{
	struct canvas_cell *cell;
	size_t have;
	int col = p->col - 1;

	if (p->dropped || col < 0 || col >= p->end)
		return;
	cell = canvas_cell(p->c, p->row, col);
	if (cell != NULL && cell->s[0] == '\0')
		cell = canvas_cell(p->c, p->row, col - 1);
	if (cell == NULL)
		return;
	have = strlen(cell->s);
	if (have + n < sizeof cell->s) {
		memcpy(cell->s + have, s, n);
		cell->s[have + n] = '\0';
	}
}

static void
pen_text(struct pen *p, const char *text)
{
	for (; *text != '\0'; text++)
		pen_cell(p, text, 1, 1);
}

static void
pen_put(struct pen *p, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	char tmp[16];
	size_t i = 0, n;
	uint32_t cp;

	while (i < len) {
		n = ts_utf8_decode(u + i, len - i, &cp);
		if (n == 0) {
			snprintf(tmp, sizeof tmp, "\\x%02X", u[i]);
			pen_text(p, tmp);
			i++;
			continue;
		}
		if (cp == '\t') {
			do
				pen_cell(p, " ", 1, 1);
			while ((p->col - p->origin + p->skipped) % 8 != 0);
		} else if (cp < 0x20 || cp == 0x7f) {
			tmp[0] = '^';
			tmp[1] = (char)(cp == 0x7f ? '?' : cp + '@');
			tmp[2] = '\0';
			pen_text(p, tmp);
		} else if (cp >= 0x80 && in_table(cp, shown_as_code,
		    NELEM(shown_as_code))) {
			snprintf(tmp, sizeof tmp, "<U+%04X>", (unsigned)cp);
			pen_text(p, tmp);
		} else if (cp >= 0x80 && p->c->ascii) {
			size_t k;

			for (k = 0; k < n; k++) {
				snprintf(tmp, sizeof tmp, "\\x%02X", u[i + k]);
				pen_text(p, tmp);
			}
		} else {
			int w = cp < 0x80 ? 1 : canvas_wcwidth(cp);

			if (w == 0)
				pen_combine(p, s + i, n);
			else
				pen_cell(p, s + i, n, w);
		}
		i += n;
	}
}

int
canvas_put(struct canvas *c, int row, int col, int style, const char *s,
    size_t len)
{
	struct pen p = { c, row, col, c->width, style, col, 0, 0, 0 };

	pen_put(&p, s, len);
	return p.col;
}

int
canvas_puts(struct canvas *c, int row, int col, int style, const char *s)
{
	return canvas_put(c, row, col, style, s, strlen(s));
}

int
canvas_printf(struct canvas *c, int row, int col, int style,
    const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	r = canvas_puts(c, row, col, style, s);
	free(s);
	return r;
}

int
canvas_put_clip(struct canvas *c, int row, int col, int end, int style,
    const char *s, size_t len)
{
	return canvas_put_from(c, row, col, end, style, s, len, 0);
}

int
canvas_put_from(struct canvas *c, int row, int col, int end, int style,
    const char *s, size_t len, int skip)
{
	struct pen p;
	struct canvas_cell *cell;
	int w;

	if (end > c->width)
		end = c->width;
	memset(&p, 0, sizeof p);
	p.c = c;
	p.row = row;
	p.col = p.origin = col;
	p.end = end;
	p.style = style;
	p.skip = skip > 0 ? skip : 0;
	pen_put(&p, s, len);
	if (p.col <= end || end <= col)
		return p.col > end ? end : p.col;
	/* clipped: an ellipsis in the last whole cell */
	w = end - 1;
	cell = canvas_cell(c, row, w);
	if (cell != NULL && cell->s[0] == '\0' && w > col) {
		cell->s[0] = ' ';
		cell->s[1] = '\0';
		cell = canvas_cell(c, row, --w);
	}
	if (cell != NULL) {
		snprintf(cell->s, sizeof cell->s, "%s",
		    canvas_glyph_str(c, GL_ELLIPSIS));
		cell->style = CS_DIM;
	}
	return end;
}

int
canvas_glyph(struct canvas *c, int row, int col, int style,
    enum canvas_glyph g, int n)
{
	const char *s = canvas_glyph_str(c, g);
	struct pen p = { c, row, col, c->width, style, col, 0, 0, 0 };

	while (n-- > 0)
		pen_cell(&p, s, strlen(s), 1);
	return p.col;
}

void
canvas_set_style(struct canvas *c, int row, int from, int to, int style)
{
	struct canvas_cell *cell;

	for (; from < to; from++)
		if ((cell = canvas_cell(c, row, from)) != NULL)
			cell->style = (uint8_t)style;
}

void
canvas_add_attr(struct canvas *c, int row, int from, int to, int attr)
{
	struct canvas_cell *cell;

	if (to < 0 || to > c->width)
		to = c->width;
	for (; from < to; from++)
		if ((cell = canvas_cell(c, row, from)) != NULL)
			cell->attr |= (uint8_t)attr;
}

/* A pen that only counts columns from 0, on c (ascii as asked). */
static void
pen_counting(struct pen *p, struct canvas *c, int ascii)
{
	canvas_init(c, 1, ascii);
	memset(p, 0, sizeof *p);
	p->c = c;
	p->row = -1;	/* no such row: only count */
	p->end = 1 << 30;
}

int
canvas_text_width(const char *s, size_t len)
{
	struct canvas c;
	struct pen p;

	pen_counting(&p, &c, 0);
	pen_put(&p, s, len);
	return p.col;
}

int
canvas_drawn_width(const struct canvas *cv, const char *s, size_t len)
{
	struct canvas c;
	struct pen p;

	pen_counting(&p, &c, cv->ascii);
	pen_put(&p, s, len);
	return p.col;
}

size_t
canvas_fit(const struct canvas *cv, const char *s, size_t len, int w)
{
	const unsigned char *u = (const unsigned char *)s;
	struct canvas c;
	struct pen p;
	uint32_t cp;
	size_t i = 0, n;

	pen_counting(&p, &c, cv->ascii);
	/* a character at a time (an invalid byte is one): a combining
	   mark takes no column, so it stays with the character before */
	while (i < len) {
		if ((n = ts_utf8_decode(u + i, len - i, &cp)) == 0)
			n = 1;
		pen_put(&p, s + i, n);
		if (p.col > w)
			break;
		i += n;
	}
	return i;
}

void
canvas_row_text(const struct canvas *c, int row, char *buf, size_t len)
{
	size_t o = 0, end = 0, n;
	int i;

	if (len == 0)
		return;
	buf[0] = '\0';
	if (row < 0 || row >= c->nrows)
		return;
	for (i = 0; i < c->width; i++) {
		const struct canvas_cell *cell =
		    &c->cells[(size_t)row * c->width + i];

		n = strlen(cell->s);
		if (o + n + 1 > len)
			break;
		memcpy(buf + o, cell->s, n);
		o += n;
		if (n > 0 && strcmp(cell->s, " ") != 0)
			end = o;
	}
	buf[end] = '\0';
}

int
canvas_write(const struct canvas *c, int from, int to, FILE *out)
{
	size_t len = (size_t)c->width * sizeof c->cells->s + 1;
	char *buf = xmalloc(len);
	int r;

	if (to > c->nrows)
		to = c->nrows;
	for (r = from < 0 ? 0 : from; r < to; r++) {
		canvas_row_text(c, r, buf, len);
		fputs(buf, out);
		fputc('\n', out);
	}
	free(buf);
	return ferror(out) ? -1 : 0;
}

static const struct {
	const char *name;
	int style;
} categories[] = {
	{ "checkpoint", CS_CAT_STORAGE }, { "config", CS_CAT_CONFIG },
	{ "cuda", CS_CAT_GPU }, { "dataloader", CS_CAT_DATA },
	{ "disconnect", CS_CAT_TIMEOUT }, { "ecc", CS_CAT_GPU },
	{ "nan", CS_CAT_DATA }, { "network", CS_CAT_NETWORK },
	{ "oom", CS_CAT_MEMORY }, { "process", CS_CAT_CONFIG },
	{ "storage", CS_CAT_STORAGE }, { "timeout", CS_CAT_TIMEOUT },
	{ "xid", CS_CAT_GPU }
};

int
canvas_category_style(const char *category)
{
	size_t i;

	if (category == NULL)
		return CS_NORMAL;
	for (i = 0; i < NELEM(categories); i++)
		if (strcmp(categories[i].name, category) == 0)
			return categories[i].style;
	return CS_CAT_OTHER;
}

void
canvas_fput(FILE *out, const char *s)
{
	if (s != NULL)
		canvas_fputn(out, s, strlen(s));
}

void
canvas_fputn(FILE *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	struct canvas cv;
	size_t len;
	char *buf;

	while (p < end && *p >= 0x20 && *p < 0x7f)
		p++;
	if (p == end) {		/* printable ASCII: as it is */
		fwrite(s, 1, n, out);
		return;
	}
	canvas_init(&cv, canvas_text_width(s, n) + 1, 0);
	canvas_add_row(&cv);
	canvas_put(&cv, 0, 0, CS_NORMAL, s, n);
	len = (size_t)cv.width * sizeof cv.cells->s + 1;
	buf = xmalloc(len);
	canvas_row_text(&cv, 0, buf, len);
	fputs(buf, out);
	free(buf);
	canvas_release(&cv);
}

char *
canvas_inert(const char *s)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (f == NULL)
		ts_fatal("out of memory");
	canvas_fput(f, s != NULL ? s : "");
	fclose(f);
	return out;
}
