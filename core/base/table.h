/*
 * table: the one renderer of tabular output, as a plain text table, CSV,
 * Markdown or JSON, and the one parser of a command's --format word.
 *
 * A table is columns (a header name and how to show the column) and rows of
 * cells, filled row by row; table_render appends it to a strbuf in the
 * table's format. Cells are copied: the caller keeps its strings.
 *
 * Formats:
 *  - TABLE_TEXT, padded (the default): each column as wide as its widest
 *    cell or header (in terminal columns: a wide East Asian character
 *    takes two, a combining mark none; at least 'min_width', cut to
 *    'max_width' with "..."), right-aligned columns padded on the left; the last column
 *    is not padded and trailing empty cells are left out with their
 *    separators, so no line ends in spaces. Control characters print as
 *    spaces, so a row stays one line; bidirectional and zero-width
 *    characters (here and in Markdown) as <U+XXXX>, so no cell reorders
 *    the line or passes for another. An 'indent' goes before every line,
 *    and a column may have its own separator before it.
 *  - TABLE_TEXT with 'pad' false: cells joined by the separator as they are
 *    (a tab-separated listing).
 *  - TABLE_CSV: RFC 4180; a cell holding a comma, quote or line break is
 *    quoted. Note columns (TABLE_NOTE: remarks for people) are left out.
 *  - TABLE_MARKDOWN: a pipe table; right-aligned columns get "---:"; a '|'
 *    in a cell is written "\|" and line breaks as spaces.
 *  - TABLE_JSON: an array of objects keyed by column name, one per row;
 *    TABLE_NUMBER cells that read as numbers are JSON numbers.
 * A NULL cell is "no value": "-" in text and Markdown, empty in CSV, null
 * in JSON.
 */
#ifndef EVALSET_TABLE_H
#define EVALSET_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"

enum table_format { TABLE_TEXT, TABLE_CSV, TABLE_MARKDOWN, TABLE_JSON };

/* column flags */
#define TABLE_RIGHT     (1u << 0)  /* right-aligned (numbers) */
#define TABLE_NUMBER    (1u << 1)  /* a number in JSON */
#define TABLE_NOTE      (1u << 2)  /* a remark for people: not in CSV */
#define TABLE_CUT_PLAIN (1u << 3)  /* cut at 'max_width' without "..." */

struct table_column {
	char *name;
	unsigned flags;
	size_t min_width;  /* text: at least this many terminal columns */
	size_t max_width;  /* text: at most this many (0: no limit) */
	const char *sep;   /* text: the separator before this column (NULL: the table's) */
};

struct table {
	enum table_format format;
	const char *sep;   /* text: between columns, "  " by default */
	const char *indent; /* text: before each line (NULL: none) */
	bool pad;          /* text: align columns (true by default) */
	bool header;       /* write the header row (true by default) */
	struct table_column *cols;
	size_t nr_cols, alloc_cols;
	char **cells;      /* row-major; NULL: no value */
	size_t nr_cells, alloc_cells;
};

/*
 * Parse the --format word 'name' against 'allowed', the words a command
 * takes as its option help shows them ("table|json|csv|markdown"); "table"
 * and "text" both mean TABLE_TEXT. Return 0, or -1 after an error naming
 * the words allowed.
 */
int table_format_parse(const char *name, const char *allowed, enum table_format *out);

void table_init(struct table *t, enum table_format format);
/* Free everything 't' holds; 't' can be initialised again. */
void table_release(struct table *t);

/* Add a column 'name' (copied) with 'flags' and text widths (0: none);
 * return it, so that a caller can set its 'sep'. Columns come before rows. */
struct table_column *table_add_column(struct table *t, const char *name, unsigned flags,
				      size_t min_width, size_t max_width);
/* Append the next cell, row by row; 's' is copied, NULL is "no value". */
void table_add(struct table *t, const char *s);
void table_addf(struct table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Append 't' rendered in its format to 'out'. A last row with fewer cells
 * than columns is completed with empty cells. */
void table_render(const struct table *t, struct strbuf *out);
/*
 * Append 's' (NULL: nothing) to 'out' as Markdown text that shows as written:
 * bidirectional and zero-width characters as <U+XXXX>, Markdown's
 * punctuation backslashed, line breaks, tabs and other controls as spaces.
 * 'in_cell' leaves '|' to a TABLE_MARKDOWN table, which escapes it in its
 * cells; outside a table it becomes "\|".
 */
void table_md_text(struct strbuf *out, const char *s, bool in_cell);

#endif
