/* Unit tests for base/table: the one renderer of text, CSV, Markdown and JSON tables. */
#include "test-lib.h"
#include "base/table.h"
#include "base/termtext.h"

#include <string.h>

/* A table of two rows: a name, a right-aligned count, a note (empty in row 2). */
static void fill(struct table *t, enum table_format f)
{
	table_init(t, f);
	table_add_column(t, "name", 0, 6, 0);
	table_add_column(t, "n", TABLE_RIGHT | TABLE_NUMBER, 3, 0);
	table_add_column(t, "note", TABLE_NOTE, 0, 0);
	table_add(t, "caf\xc3\xa9");
	table_add(t, "12");
	table_add(t, "a, \"quoted\" | piped");
	table_add(t, "x");
	table_add(t, NULL);
	table_add(t, "");
}

static const char *render(struct table *t, struct strbuf *sb)
{
	strbuf_reset(sb);
	table_render(t, sb);
	table_release(t);
	return sb->buf;
}

int main(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct table t;
	enum table_format f = TABLE_CSV;

	fill(&t, TABLE_TEXT);
	is_str(render(&t, &sb),
	       "name      n  note\n"
	       "caf\xc3\xa9     12  a, \"quoted\" | piped\n"
	       "x         -\n",
	       "text: widths in characters, right alignment, no value as '-', no trailing spaces");

	fill(&t, TABLE_CSV);
	is_str(render(&t, &sb), "name,n\ncaf\xc3\xa9,12\nx,\n",
	       "CSV: note columns left out, no value empty");

	fill(&t, TABLE_MARKDOWN);
	is_str(render(&t, &sb),
	       "| name | n | note |\n|---|---:|---|\n"
	       "| caf\xc3\xa9 | 12 | a, \"quoted\" \\| piped |\n| x | - |  |\n",
	       "Markdown: right columns marked, pipes escaped");

	/* Markdown text: markup shown as written, controls and line breaks as
	 * spaces, a bidirectional override visible; '|' left to the table's
	 * cells inside one, backslashed outside. */
	strbuf_reset(&sb);
	table_md_text(&sb, "a <b>*x*_y_ `c` [l] \\ |\x01\t\n\x7f\xe2\x80\xae!", false);
	is_str(sb.buf, "a \\<b\\>\\*x\\*\\_y\\_ \\`c\\` \\[l\\] \\\\ \\|    \\<U+202E\\>!",
	       "Markdown text outside a table");
	table_init(&t, TABLE_MARKDOWN);
	table_add_column(&t, "q", 0, 0, 0);
	strbuf_reset(&sb);
	table_md_text(&sb, "x|\x01y", true);
	table_add(&t, sb.buf);
	is_str(render(&t, &sb), "| q |\n|---|\n| x\\| y |\n", "Markdown text in a table cell");

	fill(&t, TABLE_JSON);
	is_str(render(&t, &sb),
	       "[{\n\t\t\"name\":\t\"caf\xc3\xa9\",\n\t\t\"n\":\t12,\n\t\t\"note\":\t\"a, \\\"quoted\\\" | piped\"\n"
	       "\t}, {\n\t\t\"name\":\t\"x\",\n\t\t\"n\":\tnull,\n\t\t\"note\":\t\"\"\n\t}]\n",
	       "JSON: one object per row, numbers as numbers, no value as null");

	table_init(&t, TABLE_CSV);
	table_add_column(&t, "text", 0, 0, 0);
	table_add(&t, "say \"hi\", twice\nthen go");
	is_str(render(&t, &sb), "text\n\"say \"\"hi\"\", twice\nthen go\"\n",
	       "CSV: a cell with a comma, quote or newline is quoted (RFC 4180)");

	table_init(&t, TABLE_TEXT);
	table_add_column(&t, "id", 0, 0, 0);
	table_add_column(&t, "text", 0, 0, 8);
	table_add_column(&t, "digest", TABLE_CUT_PLAIN, 0, 6);
	table_add(&t, "q1");
	table_add(&t, "line one\nline two");
	table_add(&t, "sha256:abc");
	is_str(render(&t, &sb), "id  text      digest\nq1  line ...  sha256\n",
	       "text: cut with '...' or plainly, control characters as spaces");

	/* widths in terminal columns: 東京 takes four, the decomposed é one */
	table_init(&t, TABLE_TEXT);
	table_add_column(&t, "city", 0, 0, 0);
	table_add_column(&t, "n", TABLE_RIGHT, 0, 0);
	table_add_column(&t, "name", 0, 0, 7);
	table_add(&t, "\xe6\x9d\xb1\xe4\xba\xac");
	table_add(&t, "1");
	table_add(&t, "\xe5\xa4\xa7\xe9\x98\xaa\xe5\xba\x9c\xe5\xba\x81");
	table_add(&t, "Ame\xcc\x81lie");
	table_add(&t, "22");
	table_add(&t, "Tokyo");
	is_str(render(&t, &sb),
	       "city     n  name\n"
	       "\xe6\x9d\xb1\xe4\xba\xac     1  \xe5\xa4\xa7\xe9\x98\xaa...\n"
	       "Ame\xcc\x81lie  22  Tokyo\n",
	       "text: wide characters take two columns, combining marks none, a cut never halves a wide one");
	is_int((long)term_width("\xe6\x9d\xb1\xe4\xba\xac" "a\x01\xff", 9), 7,
	       "term_width: two wide, a letter, a control byte and an invalid byte");

	table_init(&t, TABLE_TEXT);
	t.pad = false;
	t.sep = "\t";
	table_add_column(&t, "qid", 0, 0, 0);
	table_add_column(&t, "note", 0, 0, 0);
	table_add(&t, "q-1");
	table_add(&t, "");
	is_str(render(&t, &sb), "qid\tnote\nq-1\t\n", "unpadded: every cell, empty ones too");

	table_init(&t, TABLE_TEXT);
	t.indent = "  ";
	t.sep = " ";
	table_add_column(&t, "measure", 0, 8, 0);
	table_add_column(&t, "n", TABLE_RIGHT, 4, 0);
	table_add_column(&t, "note", 0, 0, 0)->sep = "   ";
	table_add(&t, "R@5");
	table_add(&t, "12");
	table_add(&t, "small");
	table_add(&t, "nDCG@10");
	table_add(&t, "120");
	table_add(&t, "");
	is_str(render(&t, &sb), "  measure     n   note\n  R@5        12   small\n  nDCG@10   120\n",
	       "text: an indent before each line, a column's own separator, minimum widths");

	ok(table_format_parse("markdown", "table|json|csv|markdown", &f) == 0 && f == TABLE_MARKDOWN,
	   "a listed format is parsed");
	ok(table_format_parse("text", "table|json", &f) < 0, "a format the command does not list is refused");
	ok(table_format_parse("table", "table|json", &f) == 0 && f == TABLE_TEXT, "table means text");
	strbuf_release(&sb);
	return test_done();
}
