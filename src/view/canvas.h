/*
 * canvas.h -- a grid of character cells that the views draw into.
 *
 * A cell holds one printable character cluster (a character and the
 * combining marks that follow it, as UTF-8) and a style class.  A wide
 * character takes two cells: the second is a continuation cell.  Text
 * that reaches a canvas is made inert on the way in: invalid UTF-8 shows
 * as \xNN, control characters (escape included) as ^X, bidirectional
 * overrides as <U+XXXX>, tabs as spaces to the next multiple of 8.  No
 * byte of outside input can reach a terminal through a canvas.
 *
 * The screen maps the style classes to colours (ui/); canvas_write()
 * prints a canvas as plain text for export and tests.
 */
#ifndef TS_CANVAS_H
#define TS_CANVAS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum canvas_style {
	CS_NORMAL = 0,
	CS_DIM,
	CS_BOLD,
	CS_HEADER,		/* the job line and pane titles */
	CS_STATUS,		/* the status line */
	CS_WARN,
	CS_ERROR,
	CS_GOOD,		/* healthy, completed */
	CS_HEAT0,		/* heat 0 (quiet) .. 7 (hottest) */
	CS_HEAT7 = CS_HEAT0 + 7,
	CS_CAT_NETWORK,		/* one per fault category */
	CS_CAT_GPU,		/* xid, ecc, cuda */
	CS_CAT_MEMORY,		/* oom */
	CS_CAT_TIMEOUT,		/* timeout, disconnect */
	CS_CAT_DATA,		/* dataloader, nan */
	CS_CAT_STORAGE,		/* checkpoint */
	CS_CAT_CONFIG,		/* config, process */
	CS_CAT_OTHER,
	CS_VAR,			/* the variable part of a template */
	CS_COUNT
};

/* Attributes that combine with any class. */
enum {
	CA_SELECTED = 1,	/* the cursor's row */
	CA_MATCH = 2		/* a search match */
};

struct canvas_cell {
	char s[12];		/* the cluster, NUL-terminated; "" continuation */
	uint8_t style;		/* enum canvas_style */
	uint8_t attr;		/* CA_* */
};

struct canvas {
	int width;
	int nrows;
	int cap;
	int ascii;		/* draw glyphs in ASCII (not a UTF-8 locale) */
	struct canvas_cell *cells;	/* nrows x width */
};

/* Glyphs that have an ASCII fallback. */
enum canvas_glyph {
	GL_BLOCK,		/* full block */
	GL_SHADE_LIGHT,
	GL_SHADE_MEDIUM,
	GL_SHADE_DARK,
	GL_HLINE,
	GL_VLINE,
	GL_ARROW_RIGHT,
	GL_ELLIPSIS,
	GL_BAR1,		/* eighths of a block, left to right: 1/8 */
	GL_BAR8 = GL_BAR1 + 7,
	GL_COUNT
};

void canvas_init(struct canvas *c, int width, int ascii);
/*
 * Whether the locale the environment names (LC_ALL, else LC_CTYPE, else
 * LANG) is not a UTF-8 one, so text for it is drawn in ASCII as the
 * screen draws it: 1 for C, POSIX or another character set, 0 for UTF-8
 * or when none is named (output to a file).
 */
int canvas_env_ascii(void);
void canvas_release(struct canvas *c);
/* Drop every row (the width stays). */
void canvas_reset(struct canvas *c);
/* Drop every row and take a new width. */
void canvas_set_width(struct canvas *c, int width);
/* Add a blank row; returns its index. */
int canvas_add_row(struct canvas *c);
struct canvas_cell *canvas_cell(struct canvas *c, int row, int col);

/*
 * Draw len bytes of s at (row, col) in `style`, made inert as described
 * above, clipped at the right edge.  Returns the column after the text
 * (which may be past the width when it was clipped).
 */
int canvas_put(struct canvas *c, int row, int col, int style, const char *s,
    size_t len);
int canvas_puts(struct canvas *c, int row, int col, int style, const char *s);
int canvas_printf(struct canvas *c, int row, int col, int style,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/*
 * The same, but clipped at column `end`: when the text does not fit, its
 * last cell shows an ellipsis.
 */
int canvas_put_clip(struct canvas *c, int row, int col, int end, int style,
    const char *s, size_t len);
/*
 * canvas_put_clip() of the text without its first `skip` columns (as
 * canvas_text_width() counts them): a view scrolled to the right.
 */
int canvas_put_from(struct canvas *c, int row, int col, int end, int style,
    const char *s, size_t len, int skip);
/* Draw glyph g n times. */
int canvas_glyph(struct canvas *c, int row, int col, int style,
    enum canvas_glyph g, int n);
/* Set the style of cells [from, to) of a row. */
void canvas_set_style(struct canvas *c, int row, int from, int to, int style);
/* Add attributes to cells [from, to) of a row (to < 0: to the end). */
void canvas_add_attr(struct canvas *c, int row, int from, int to, int attr);

/* The glyph's text in this canvas (UTF-8 or ASCII). */
const char *canvas_glyph_str(const struct canvas *c, enum canvas_glyph g);

/*
 * Columns the text takes once made inert (what canvas_put() would use
 * from column 0, without clipping).
 */
int canvas_text_width(const char *s, size_t len);
/* The same as canvas cv draws it (\xNN for non-ASCII in an ASCII one). */
int canvas_drawn_width(const struct canvas *cv, const char *s, size_t len);
/*
 * The bytes of s (at most len) that canvas cv draws in w columns from
 * column 0, whole characters only: a split is always between two.
 */
size_t canvas_fit(const struct canvas *cv, const char *s, size_t len, int w);
/* The width of code point cp: 0 (combining), 1 or 2. */
int canvas_wcwidth(uint32_t cp);

/* Rows [from, to) as plain text, trailing blanks trimmed, one per line. */
int canvas_write(const struct canvas *c, int from, int to, FILE *out);
/* One row as plain text into buf (NUL-terminated, truncated to len). */
void canvas_row_text(const struct canvas *c, int row, char *buf, size_t len);

/*
 * Write s to out made inert as a canvas shows it (^X, \xNN, <U+XXXX>,
 * tabs as spaces): for the text and TSV printers of outside text.
 * NULL writes nothing.
 */
void canvas_fput(FILE *out, const char *s);
/* The same of len bytes of s (NUL bytes show as ^@). */
void canvas_fputn(FILE *out, const char *s, size_t len);
/* The same into an allocated string. */
char *canvas_inert(const char *s);

/* The class of a fault category name (NULL: CS_NORMAL). */
int canvas_category_style(const char *category);

#endif
