/*
 * table: tabular output in four formats, and --format parsing (see table.h).
 *
 * Widths are counted in terminal columns (term_width), not bytes or
 * characters, so accented text, combining marks and wide (East Asian)
 * characters stay aligned.
 */
#include "base/jsontree.h"
#include "base/table.h"
#include "base/termtext.h"
#include "base/error.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int table_format_parse(const char *name, const char *allowed, enum table_format *out)
{
	static const struct { const char *word; enum table_format f; } words[] = {
		{ "table", TABLE_TEXT }, { "text", TABLE_TEXT }, { "csv", TABLE_CSV },
		{ "markdown", TABLE_MARKDOWN }, { "json", TABLE_JSON },
	};
	struct strbuf list = STRBUF_INIT;
	const char *p = allowed;

	while (*p) {
		size_t n = strcspn(p, "|");

		if (strlen(name) == n && !strncmp(name, p, n)) {
			for (size_t i = 0; i < ARRAY_SIZE(words); i++) {
				if (!strcmp(words[i].word, name)) {
					*out = words[i].f;
					return 0;
				}
			}
		}
		p += n + (p[n] == '|');
	}
	for (p = allowed; *p;) {
		size_t n = strcspn(p, "|");
		bool last = !p[n];

		if (list.len)
			strbuf_addstr(&list, last ? " or " : ", ");
		strbuf_add(&list, p, n);
		p += n + !last;
	}
	error("unknown format '%s' (%s)", name, list.buf);
	strbuf_release(&list);
	return -1;
}

void table_init(struct table *t, enum table_format format)
{
	memset(t, 0, sizeof(*t));
	t->format = format;
	t->sep = "  ";
	t->pad = true;
	t->header = true;
}

void table_release(struct table *t)
{
	for (size_t i = 0; i < t->nr_cols; i++)
		free(t->cols[i].name);
	for (size_t i = 0; i < t->nr_cells; i++)
		free(t->cells[i]);
	free(t->cols);
	free(t->cells);
	table_init(t, t->format);
}

struct table_column *table_add_column(struct table *t, const char *name, unsigned flags,
				      size_t min_width, size_t max_width)
{
	struct table_column *c;

	ALLOC_GROW(t->cols, t->nr_cols + 1, t->alloc_cols);
	c = &t->cols[t->nr_cols++];
	c->name = xstrdup(name);
	c->flags = flags;
	c->min_width = min_width;
	c->max_width = max_width;
	c->sep = NULL;
	return c;
}

/* Return a copy of cell 's' as the table keeps it: for text and Markdown,
 * with bidirectional and zero-width characters shown as <U+XXXX>, so one id
 * cannot pass for another or reorder the line. */
static char *keep_cell(const struct table *t, const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	if (t->format != TABLE_TEXT && t->format != TABLE_MARKDOWN)
		return xstrdup(s);
	term_add_marked(&sb, s, strlen(s));
	return strbuf_detach(&sb, NULL);
}

void table_add(struct table *t, const char *s)
{
	ALLOC_GROW(t->cells, t->nr_cells + 1, t->alloc_cells);
	t->cells[t->nr_cells++] = s ? keep_cell(t, s) : NULL;
}

void table_addf(struct table *t, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	ALLOC_GROW(t->cells, t->nr_cells + 1, t->alloc_cells);
	t->cells[t->nr_cells++] = keep_cell(t, sb.buf);
	strbuf_release(&sb);
}

static size_t nr_rows(const struct table *t)
{
	return t->nr_cols ? (t->nr_cells + t->nr_cols - 1) / t->nr_cols : 0;
}

/* Return the cell of 'row' (0-based, without the header) and column 'c':
 * NULL for "no value", "" for a cell the last row did not fill. */
static const char *cell(const struct table *t, size_t row, size_t c, bool *missing)
{
	size_t i = row * t->nr_cols + c;

	*missing = i < t->nr_cells && !t->cells[i];
	return i < t->nr_cells ? t->cells[i] : "";
}

/* ---- text ---- */

/* Return the byte length of 's' as column 'col' shows it (cut to its
 * max_width) and in '*chars' the columns it takes, "..." included. */
static size_t shown(const struct table_column *col, const char *s, size_t *chars, bool *cut)
{
	size_t len = strlen(s), keep;

	*cut = false;
	*chars = term_width(s, len);
	if (!col->max_width || *chars <= col->max_width)
		return len;
	*cut = !(col->flags & TABLE_CUT_PLAIN);
	keep = *cut ? (col->max_width > 3 ? col->max_width - 3 : 0) : col->max_width;
	len = term_prefix(s, len, keep, chars);
	if (*cut)
		*chars += 3;
	return len;
}

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

static void add_text_cell(struct strbuf *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		strbuf_addch(out, is_control((unsigned char)s[i]) ? ' ' : s[i]);
}

static void pad(struct strbuf *out, size_t n)
{
	while (n--)
		strbuf_addch(out, ' ');
}

static void text_row(const struct table *t, const size_t *width, const char *const *cells,
		     struct strbuf *out)
{
	size_t last = 0;

	if (t->pad) {
		for (size_t c = 0; c < t->nr_cols; c++)
			if (*cells[c])
				last = c;
	} else {
		last = t->nr_cols ? t->nr_cols - 1 : 0;
	}
	if (t->indent)
		strbuf_addstr(out, t->indent);
	for (size_t c = 0; c <= last && c < t->nr_cols; c++) {
		const struct table_column *col = &t->cols[c];
		size_t chars, len;
		bool cut;

		if (c)
			strbuf_addstr(out, col->sep ? col->sep : t->sep);
		len = shown(col, cells[c], &chars, &cut);
		if (t->pad && (col->flags & TABLE_RIGHT))
			pad(out, width[c] - chars);
		add_text_cell(out, cells[c], len);
		if (cut)
			strbuf_addstr(out, "...");
		if (t->pad && !(col->flags & TABLE_RIGHT) && c < last)
			pad(out, width[c] - chars);
	}
	strbuf_addch(out, '\n');
}

static void render_text(const struct table *t, struct strbuf *out)
{
	size_t rows = nr_rows(t), *width = xcalloc(t->nr_cols + 1, sizeof(*width));
	const char **cells = xcalloc(t->nr_cols + 1, sizeof(*cells));

	for (size_t c = 0; c < t->nr_cols; c++) {
		size_t chars;
		bool cut, missing = false;

		width[c] = t->cols[c].min_width;
		if (t->header) {
			shown(&t->cols[c], t->cols[c].name, &chars, &cut);
			if (chars > width[c])
				width[c] = chars;
		}
		for (size_t r = 0; r < rows; r++) {
			const char *s = cell(t, r, c, &missing);

			shown(&t->cols[c], missing ? "-" : s, &chars, &cut);
			if (chars > width[c])
				width[c] = chars;
		}
	}
	if (t->header) {
		for (size_t c = 0; c < t->nr_cols; c++)
			cells[c] = t->cols[c].name;
		text_row(t, width, cells, out);
	}
	for (size_t r = 0; r < rows; r++) {
		for (size_t c = 0; c < t->nr_cols; c++) {
			bool missing = false;
			const char *s = cell(t, r, c, &missing);
			cells[c] = missing ? "-" : s;
		}
		text_row(t, width, cells, out);
	}
	free(cells);
	free(width);
}

/* ---- CSV ---- */

static void csv_cell(struct strbuf *out, const char *s)
{
	if (!s[strcspn(s, ",\"\r\n")]) {
		strbuf_addstr(out, s);
		return;
	}
	strbuf_addch(out, '"');
	for (; *s; s++) {
		if (*s == '"')
			strbuf_addch(out, '"');
		strbuf_addch(out, *s);
	}
	strbuf_addch(out, '"');
}

static void render_csv(const struct table *t, struct strbuf *out)
{
	size_t rows = nr_rows(t);

	for (size_t r = t->header ? 0 : 1; r <= rows; r++) {
		bool first = true;

		for (size_t c = 0; c < t->nr_cols; c++) {
			bool missing = false;
			const char *s = r ? cell(t, r - 1, c, &missing) : t->cols[c].name;

			if (t->cols[c].flags & TABLE_NOTE)
				continue;
			if (!first)
				strbuf_addch(out, ',');
			first = false;
			csv_cell(out, r && missing ? "" : s);
		}
		strbuf_addch(out, '\n');
	}
}

/* ---- Markdown ---- */

static void md_cell(struct strbuf *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			strbuf_addstr(out, "\\|");
		else
			strbuf_addch(out, is_control((unsigned char)*s) ? ' ' : *s);
	}
}

void table_md_text(struct strbuf *out, const char *s, bool in_cell)
{
	struct strbuf marked = STRBUF_INIT;

	if (!s)
		return;
	term_add_marked(&marked, s, strlen(s));
	for (const char *p = marked.buf; *p; p++) {
		if (is_control((unsigned char)*p))
			strbuf_addch(out, ' ');
		else {
			if (strchr("\\<>*_`[]", *p) || (*p == '|' && !in_cell))
				strbuf_addch(out, '\\');
			strbuf_addch(out, *p);
		}
	}
	strbuf_release(&marked);
}

static void render_markdown(const struct table *t, struct strbuf *out)
{
	size_t rows = nr_rows(t);

	/* a pipe table has a header whatever 't->header' says */
	for (size_t r = 0; r <= rows; r++) {
		for (size_t c = 0; c < t->nr_cols; c++) {
			bool missing = false;
			const char *s = r ? cell(t, r - 1, c, &missing) : t->cols[c].name;

			strbuf_addstr(out, c ? " | " : "| ");
			md_cell(out, r && missing ? "-" : s);
		}
		strbuf_addstr(out, " |\n");
		if (!r) {
			for (size_t c = 0; c < t->nr_cols; c++)
				strbuf_addstr(out, t->cols[c].flags & TABLE_RIGHT ? "|---:" : "|---");
			strbuf_addstr(out, "|\n");
		}
	}
}

/* ---- JSON ---- */

static void render_json(const struct table *t, struct strbuf *out)
{
	cJSON *arr = cJSON_CreateArray();
	size_t rows = nr_rows(t);

	for (size_t r = 0; r < rows; r++) {
		cJSON *o = cJSON_CreateObject();

		for (size_t c = 0; c < t->nr_cols; c++) {
			bool missing = false;
			const char *s = cell(t, r, c, &missing);
			double d;

			if (missing)
				cJSON_AddNullToObject(o, t->cols[c].name);
			else if ((t->cols[c].flags & TABLE_NUMBER) && !parse_double(s, &d))
				cJSON_AddNumberToObject(o, t->cols[c].name, d);
			else
				cJSON_AddStringToObject(o, t->cols[c].name, s);
		}
		cJSON_AddItemToArray(arr, o);
	}
	json_add_tree(out, arr, true);
}

void table_render(const struct table *t, struct strbuf *out)
{
	switch (t->format) {
	case TABLE_CSV:
		render_csv(t, out);
		break;
	case TABLE_MARKDOWN:
		render_markdown(t, out);
		break;
	case TABLE_JSON:
		render_json(t, out);
		break;
	default:
		render_text(t, out);
		break;
	}
}
