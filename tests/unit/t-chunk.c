/*
 * t-chunk: documents and chunking. The property every strategy keeps: a
 * chunk's span, read back from the document, is exactly the chunk's text
 * (for Markdown and text, read back from the file's own bytes, not from the
 * document module); plus ids that stay put, token limits, heading paths,
 * what HTML keeps and drops, and sentence boundaries.
 */
#include "test-lib.h"
#include "base/fsutil.h"
#include "base/strbuf.h"
#include "base/utf8.h"
#include "base/util.h"
#include "chunk/chunker.h"
#include "chunk/corpuslint.h"
#include "chunk/docfiles.h"
#include "chunk/document.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Return the bytes of code points [s, e) of 'text' as a new string. */
static char *slice_cp(const char *text, size_t s, size_t e)
{
	size_t i = 0, n = 0, a = (size_t)-1, b = (size_t)-1;

	for (; text[i]; i++) {
		if (((unsigned char)text[i] & 0xc0) != 0x80) {
			if (n == s)
				a = i;
			if (n == e)
				b = i;
			n++;
		}
	}
	if (n == s)
		a = i;
	if (n == e)
		b = i;
	if (a == (size_t)-1 || b == (size_t)-1 || b < a)
		return NULL;
	return xstrndup(text + a, b - a);
}

/* Return the number of white-space separated words of 's' holding a token
 * (a window over a word longer than its size may start with words without
 * one, "## " or "- "). */
static size_t token_words(const char *s)
{
	size_t n = 0;

	while (*s) {
		size_t len = strcspn(s, " \n\t\r");
		n += len && chunk_count_tokens(s, len) > 0;
		s += len;
		s += strspn(s, " \n\t\r");
	}
	return n;
}

/*
 * Return the number of stretches of the text of 'd' that no chunk of 'l'
 * covers and that hold something a quote could need (chunk_text_negligible
 * says not), after a diagnostic naming each.
 */
static size_t count_uncovered(const struct document *d, const struct chunk_list *l)
{
	size_t upto = 0, bad = 0;

	for (size_t c = 0; c <= l->nr; c++) {
		size_t a = c < l->nr ? document_byte(d, l->items[c].start) : d->len;
		size_t b = c < l->nr ? document_byte(d, l->items[c].end) : d->len;

		if (a > upto && !chunk_text_negligible(d->name, d->text + upto, a - upto)) {
			test_diag("%s: bytes %zu..%zu in no chunk: '%.60s'", d->name, upto, a, d->text + upto);
			bad++;
		}
		if (b > upto)
			upto = b;
	}
	return bad;
}

static const struct chunk_options strategies[] = {
	{ CHUNK_HEADINGS, 0, 0, 512, false },
	{ CHUNK_HEADINGS, 0, 0, 40, false },
	{ CHUNK_PARAGRAPHS, 0, 0, 512, false },
	{ CHUNK_PARAGRAPHS, 0, 0, 0, false },
	{ CHUNK_SENTENCES, 3, 1, 0, false },
	{ CHUNK_SENTENCES, 1, 0, 0, false },
	{ CHUNK_TOKENS, 120, 20, 0, false },
	{ CHUNK_TOKENS, 7, 3, 0, false },
	{ CHUNK_TOKENS, 120, 0, 0, true },
	{ CHUNK_HEADINGS, 0, 0, 512, true },
};

/* Check every strategy on the documents under 'dir': spans read back from
 * the file (Markdown, text) or the document's text (HTML) are the chunk. */
static void check_spans(const char *dir)
{
	const char *args[] = { dir };
	struct doc_files files = DOC_FILES_INIT;

	ok(doc_files_find(args, 1, &files) == 0 && files.nr > 0, "documents found under %s", dir);
	for (size_t k = 0; k < ARRAY_SIZE(strategies); k++) {
		const struct chunk_options *o = &strategies[k];
		size_t nr = 0, bad = 0, order = 0, empty = 0, over = 0, uncovered = 0;

		for (size_t i = 0; i < files.nr; i++) {
			struct document d = DOCUMENT_INIT;
			struct chunk_list l = CHUNK_LIST_INIT;
			struct strbuf raw = STRBUF_INIT;
			const char *truth;

			if (document_load(&d, files.files[i], files.names[i]) < 0 ||
			    read_file(files.files[i], &raw, 1 << 24) < 0) {
				bad++;
				continue;
			}
			truth = d.kind == DOC_HTML ? d.text : raw.buf;
			chunk_document(&d, o, &l);
			uncovered += count_uncovered(&d, &l);
			for (size_t c = 0; c < l.nr; c++) {
				char *back = slice_cp(truth, l.items[c].start, l.items[c].end);
				size_t tokens = chunk_count_tokens(l.items[c].text, strlen(l.items[c].text));
				if (!back || strcmp(back, l.items[c].text))
					bad++;
				if (c && l.items[c].start < l.items[c - 1].start)
					order++;
				if (!tokens)
					empty++;
				if (o->strategy == CHUNK_TOKENS && tokens > o->size &&
				    token_words(l.items[c].text) > 1)
					over++;
				if (o->strategy != CHUNK_TOKENS && o->strategy != CHUNK_SENTENCES &&
				    o->max_tokens && tokens > o->max_tokens &&
				    strpbrk(l.items[c].text, " \n\t"))
					over++;
				free(back);
			}
			nr += l.nr;
			chunk_list_release(&l);
			document_release(&d);
			strbuf_release(&raw);
		}
		ok(nr > 0 && !bad, "%s: by %s (size %zu, overlap %zu, max %zu): the %zu spans read back "
		   "are the chunk texts", dir, chunk_strategy_name(o->strategy), o->size, o->overlap,
		   o->max_tokens, nr);
		if (bad)
			test_diag("%zu chunks differ", bad);
		ok(!order && !empty, "%s: by %s: chunks in document order, none without a token", dir,
		   chunk_strategy_name(o->strategy));
		ok(!over, "%s: by %s: no chunk over the size limit but a single word", dir,
		   chunk_strategy_name(o->strategy));
		ok(!uncovered, "%s: by %s%s: every byte no chunk covers is white space or markup no "
		   "quote needs", dir, chunk_strategy_name(o->strategy),
		   o->keep_markup ? " keeping markup" : "");
	}
	doc_files_release(&files);
}

static void load_md(struct document *d, const char *md)
{
	if (document_load_buf(d, md, strlen(md), DOC_MARKDOWN, "t.md") < 0)
		test_diag("cannot load t.md");
}

static void test_ids(void)
{
	static const char *a =
		"# Title { #title }\n\nFirst paragraph here.\n\nSecond paragraph here.\n\n"
		"Third paragraph.\n\nSecond paragraph here.\n";
	static const char *b =
		"# Title { #title }\n\nFirst paragraph, now edited.\n\nSecond paragraph here.\n\n"
		"Third paragraph.\n\nSecond paragraph here.\n";
	struct chunk_options o = { CHUNK_PARAGRAPHS, 0, 0, 0, false };
	struct document da = DOCUMENT_INIT, db = DOCUMENT_INIT;
	struct chunk_list la = CHUNK_LIST_INIT, la2 = CHUNK_LIST_INIT, lb = CHUNK_LIST_INIT;

	load_md(&da, a);
	load_md(&db, b);
	chunk_document(&da, &o, &la);
	chunk_document(&da, &o, &la2);
	chunk_document(&db, &o, &lb);
	is_int(la.nr, 4, "four paragraph chunks (the heading goes with the first)");
	ok(la.nr == la2.nr && !strcmp(la.items[1].id, la2.items[1].id), "chunking again gives the same ids");
	ok(starts_with(la.items[0].id, "t.md#") && strlen(la.items[0].id) == 5 + 12,
	   "an id is the document and 12 hex digits");
	ok(strcmp(la.items[1].id, la.items[3].id) && ends_with(la.items[3].id, "-2"),
	   "a repeated text gets -2");
	ok(strcmp(la.items[0].id, lb.items[0].id) != 0, "an edited paragraph gets a new id");
	ok(lb.nr == 4 && !strcmp(la.items[1].id, lb.items[1].id) && !strcmp(la.items[2].id, lb.items[2].id),
	   "the others keep theirs");
	is_str(la.items[0].title, "Title", "the heading title drops its { #anchor }");
	chunk_list_release(&la);
	chunk_list_release(&la2);
	chunk_list_release(&lb);
	document_release(&da);
	document_release(&db);
}

static void test_markdown_blocks(void)
{
	static const char *md =
		"Intro before any heading.\n\n"
		"## Install ##\n\n"
		"Run this:\n\n"
		"```bash\n# not a heading\n\npip install x\n```\n\n"
		"### Check\n\nDone.\n\n"
		"# Next\n\nOther text.\n";
	struct chunk_options o = { CHUNK_HEADINGS, 0, 0, 0, false };
	struct document d = DOCUMENT_INIT;
	struct chunk_list l = CHUNK_LIST_INIT;

	load_md(&d, md);
	chunk_document(&d, &o, &l);
	is_int(l.nr, 4, "four sections: intro, Install, Check, Next");
	ok(l.nr == 4 && !l.items[0].title, "text before the first heading has no title");
	ok(l.nr == 4 && strstr(l.items[1].text, "# not a heading") && strstr(l.items[1].text, "pip install x"),
	   "a '#' line inside a code fence stays in its section");
	ok(l.nr == 4 && !strcmp(l.items[1].title, "Install"), "closing '#'s are not part of the title");
	ok(l.nr == 4 && !strcmp(l.items[2].title, "Install > Check"), "the heading path is kept");
	ok(l.nr == 4 && !strcmp(l.items[3].title, "Next"), "a higher heading resets the path");
	{
		bool trimmed = true;

		for (size_t i = 0; i < l.nr; i++) {
			const char *t = l.items[i].text;
			size_t n = strlen(t);

			if (!n || isspace((unsigned char)t[0]) || isspace((unsigned char)t[n - 1])) {
				trimmed = false;
				test_diag("chunk %zu: '%s'", i, t);
			}
		}
		ok(trimmed, "a section's chunk neither starts nor ends with white space (the blank lines before the next heading)");
	}
	chunk_list_release(&l);
	document_release(&d);
}

/* Markdown is read as CommonMark reads it: comments, fences, HTML blocks,
 * front matter, link reference definitions, setext headings. */
static void test_commonmark(void)
{
	static const char *md =
		"---\ntitle: x\nlayout: page\n---\n\n"
		"Chapter\n=======\n\n"
		"First words.\n\n"
		"<!-- Old headings. Do not remove or links may break. -->\n\n"
		"<a id=\"old-one\"></a>\n<a id=\"old-two\"></a>\n\n"
		"## Setup\n\n"
		"<!--\nA note to editors.\n\n# copy the output here\n\nstill the comment\n-->\n\n"
		"    # indented code, no heading\n\n"
		"Run it.\n\n"
		"[ref]: https://example.org/ref\n\n"
		"Sub\n---\n\nLast.\n";
	struct chunk_options o = { CHUNK_HEADINGS, 0, 0, 0, false };
	struct document d = DOCUMENT_INIT;
	struct chunk_list l = CHUNK_LIST_INIT;
	size_t markup = 0;
	bool ref_in_block = false;

	load_md(&d, md);
	for (size_t i = 0; i < d.nr_blocks; i++) {
		markup += d.blocks[i].markup;
		ref_in_block |= d.blocks[i].start <= (size_t)(strstr(md, "[ref]") - md) &&
				(size_t)(strstr(md, "[ref]") - md) < d.blocks[i].end;
	}
	ok(d.nr_blocks && d.blocks[0].markup && d.blocks[0].start == 0 &&
	   d.blocks[0].end == (size_t)(strstr(md, "---\n\n") - md) + 3,
	   "front matter is one markup block, not a thematic break and a heading");
	is_int(markup, 4, "markup: the front matter, two comments, the anchors");
	ok(!ref_in_block, "a link reference definition is in no block");
	chunk_document(&d, &o, &l);
	is_int(l.nr, 3, "three sections: Chapter, Setup, Sub (no heading inside the comment)");
	ok(l.nr == 3 && !strcmp(l.items[0].title, "Chapter") && starts_with(l.items[0].text, "Chapter\n===") &&
	   !strcmp(l.items[0].text + strlen(l.items[0].text) - 12, "First words."),
	   "a setext heading and its text; the anchor block after it left out");
	ok(l.nr == 3 && !strcmp(l.items[1].title, "Chapter > Setup") &&
	   strstr(l.items[1].text, "# copy the output here") && strstr(l.items[1].text, "# indented code"),
	   "a '#' line in an HTML comment or indented code is no heading");
	ok(l.nr == 3 && !strcmp(l.items[2].title, "Chapter > Sub") && ends_with(l.items[2].text, "Last."),
	   "a setext level-2 heading takes the place of the ATX one");
	chunk_list_release(&l);
	o.keep_markup = true;
	chunk_document(&d, &o, &l);
	ok(l.nr == 4 && starts_with(l.items[0].text, "---\ntitle") && strstr(l.items[1].text, "<a id=\"old-two\">"),
	   "--no-drop-markup keeps the front matter as a chunk and the anchors in their section");
	chunk_list_release(&l);
	document_release(&d);

	ok(markdown_visible_tokens("<!-- a comment -->\n\n<a id=\"x\"></a>\n", 35) == 0,
	   "comments and anchors show no word");
	ok(markdown_visible_tokens("[ref]: https://example.org/a-b-c\n", 33) == 0,
	   "a link reference definition shows no word");
	ok(markdown_visible_tokens("<p>Shown <em>text</em></p>\n", 27) == 2, "the text of HTML is seen");
	ok(chunk_text_negligible("a.md", "<!-- x y z -->", 14) && !chunk_text_negligible("a.txt", "<!-- x y z -->", 14),
	   "markup is negligible in Markdown only");
}

static void test_html(void)
{
	struct document d = DOCUMENT_INIT;
	struct chunk_list l = CHUNK_LIST_INIT;
	struct chunk_options o = { CHUNK_HEADINGS, 0, 0, 0, false };
	bool path = false;

	ok(document_load(&d, "tests/data/html-pages/index.html", "index.html") == 0, "an HTML page loads");
	ok(!strstr(d.text, "secret") && !strstr(d.text, "font-family") && !strstr(d.text, "JavaScript") &&
	   !strstr(d.text, "help centre</"), "script, style, noscript and markup are not text");
	ok(!strstr(d.text, "Acme Cloud: help centre"), "the <title> is not body text");
	ok(strstr(d.text, "Café prices & opening hours") != NULL, "entities are decoded");
	ok(strstr(d.text, "how to create an account, rotate your API keys and keep") != NULL,
	   "white space runs collapse to one space");
	ok(strstr(d.text, "Bearer $KEY\" \\\n     https://") != NULL, "<pre> keeps its white space");
	ok(strstr(d.text, "recommended.\n\nRotate") == NULL && strstr(d.text, "long.\n\nTwo-factor") != NULL,
	   "blocks are separated by a blank line");
	chunk_document(&d, &o, &l);
	for (size_t i = 0; i < l.nr; i++)
		path |= l.items[i].title && !strcmp(l.items[i].title, "Acme Cloud help centre > API keys") &&
			strstr(l.items[i].text, "Rotate an API key") != NULL;
	ok(path, "HTML headings give heading paths");
	chunk_list_release(&l);
	document_release(&d);
	ok(document_load(&d, "tests/data/html-pages/guide/billing.html", "billing.html") == 0 &&
	   !strstr(d.text, "never shown") && strstr(d.text, "Unclosed paragraphs are common"),
	   "tag soup is read, <template> dropped");
	document_release(&d);
}

static void test_sentences(void)
{
	static const char *txt =
		"Dr. Smith moved to the U.S. in 1990. He met J. R. Tolkien there! Did he? "
		"Yes, e.g. at Oxford. Prices rose 3.5 percent. \"Quoted.\" Then (aside) more.";
	struct document d = DOCUMENT_INIT;
	struct chunk_list l = CHUNK_LIST_INIT;
	struct chunk_options o = { CHUNK_SENTENCES, 1, 0, 0, false };
	static const char *want[] = {
		"Dr. Smith moved to the U.S. in 1990.", "He met J. R. Tolkien there!", "Did he?",
		"Yes, e.g. at Oxford.", "Prices rose 3.5 percent.", "\"Quoted.\"", "Then (aside) more.",
	};
	bool same = true;

	document_load_buf(&d, txt, strlen(txt), DOC_TEXT, "s.txt");
	chunk_document(&d, &o, &l);
	is_int(l.nr, ARRAY_SIZE(want), "seven sentences");
	for (size_t i = 0; i < l.nr && i < ARRAY_SIZE(want); i++)
		if (strcmp(l.items[i].text, want[i])) {
			same = false;
			test_diag("sentence %zu: '%s'", i, l.items[i].text);
		}
	ok(same, "abbreviations, initials and decimals do not end a sentence");
	chunk_list_release(&l);
	o.size = 3;
	o.overlap = 1;
	chunk_document(&d, &o, &l);
	ok(l.nr == 3 && ends_with(l.items[0].text, "Did he?") && starts_with(l.items[1].text, "Did he?") &&
	   starts_with(l.items[2].text, "Prices rose") && ends_with(l.items[2].text, "more."),
	   "3-sentence windows step by two and end with the last sentence");
	chunk_list_release(&l);
	document_release(&d);
}

/* Code points and bytes convert both ways at every mark, the end included,
 * whatever the length (a multiple of the mark step too). */
static void test_code_points(void)
{
	static const size_t lens[] = { 1, DOC_CP_STEP - 1, DOC_CP_STEP, DOC_CP_STEP + 1, 2 * DOC_CP_STEP };

	for (size_t k = 0; k < ARRAY_SIZE(lens); k++) {
		struct document d = DOCUMENT_INIT;
		struct strbuf sb = STRBUF_INIT;
		size_t offs[] = { 0, 1, DOC_CP_STEP - 1, DOC_CP_STEP, DOC_CP_STEP + 1, 0, 0 };
		bool same = true;

		/* two-byte characters, after an 'a' when the length is odd */
		if (lens[k] % 2)
			strbuf_addch(&sb, 'a');
		while (sb.len + 2 <= lens[k])
			strbuf_addstr(&sb, "\xc3\xa9");
		if (document_load_buf(&d, sb.buf, sb.len, DOC_TEXT, "cp.txt") < 0) {
			ok(0, "a text of %zu bytes loads", sb.len);
			strbuf_release(&sb);
			continue;
		}
		offs[5] = d.len > 0 ? d.len - 1 : 0;
		offs[6] = d.len;
		for (size_t i = 0; i < ARRAY_SIZE(offs); i++) {
			size_t off = utf8_floor(d.text, offs[i] < d.len ? offs[i] : d.len);
			size_t cp = utf8_chars(d.text, off);
			if (document_cp(&d, off) != cp || document_byte(&d, cp) != off) {
				same = false;
				test_diag("%zu bytes, offset %zu: cp %zu (want %zu), byte %zu", d.len, off,
					  document_cp(&d, off), cp, document_byte(&d, cp));
			}
		}
		ok(same, "%zu bytes: code points and bytes convert both ways, the end included", d.len);
		is_int(document_byte(&d, utf8_chars(d.text, d.len) + 5), d.len, "past the end is the end");
		document_release(&d);
		strbuf_release(&sb);
	}
}

static void test_refusals(void)
{
	struct document d = DOCUMENT_INIT;
	struct doc_files f = DOC_FILES_INIT;
	const char *missing[] = { "tests/data/no-such-folder" };
	const char *unknown[] = { "tests/data/pii/pii.tsv" };

	test_capture_errors();
	ok(document_load_buf(&d, "ok\n\xff\n", 4, DOC_TEXT, "bad.txt") < 0 &&
	   strstr(test_captured(), "bad.txt:2: not UTF-8 (byte 0xff)"), "bytes that are not UTF-8 are refused at their line");
	ok(doc_files_find(missing, 1, &f) < 0 && strstr(test_captured(), "no such file or folder"),
	   "a missing path is refused");
	doc_files_release(&f);
	ok(doc_files_find(unknown, 1, &f) < 0 && strstr(test_captured(), "is not a document evalset reads"),
	   "a file of unknown kind named on its own is refused");
	doc_files_release(&f);
}

/* What check calls markup, and what it leaves as text. */
static void test_markup_share(void)
{
	static const struct { const char *text; bool mostly; } cases[] = {
		{ "<div class=\"termy\">", true },
		{ "<p align=\"center\"><img src=\"logo.png\" alt=\"x\"></p>", true },
		{ "[![Build](https://img.shields.io/badge.svg)](https://ci.example/x)", true },
		{ "| key | meaning |\n|---|---|\n| `id` | the chunk id that labels and runs use |", false },
		{ "|---|:---:|---|\n|---|---|---|", true },
		{ "&nbsp;&nbsp;&amp;&lt;&gt;", true },
		{ "Run `pip install fastapi`, then see [the tutorial](tutorial.md) for the rest.", false },
		{ "## Origin { #origin }\n\nAn origin is the combination of protocol, domain and port.", false },
		{ "if a < b and c > d: print(a)", false },
		{ "AT&T; costs less", false },
		{ "<!-- a comment that was left in the page by the generator -->", true },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t mark;
		double share = lint_markup_share(cases[i].text, strlen(cases[i].text), &mark);
		bool mostly = share >= LINT_MARKUP_SHARE && mark >= 8;
		ok(mostly == cases[i].mostly, "markup share %.2f of '%s': %s", share, cases[i].text,
		   cases[i].mostly ? "mostly markup" : "text");
	}
}

/* A section over the token limit is cut at block boundaries into parts
 * that each hold as many blocks as fit, a part of exactly the limit
 * included. */
static void test_limit_parts(void)
{
	static const char *md = "# Keys\n\nRotate them often.\n\nRestart the proxy.\n";
	struct chunk_options o = { CHUNK_HEADINGS, 0, 0, 4, false };
	struct document d = DOCUMENT_INIT;
	struct chunk_list l = CHUNK_LIST_INIT;

	is_int(chunk_count_tokens(md, strlen(md)), 7, "the section has 7 tokens: 1, 3 and 3 by block");
	load_md(&d, md);
	chunk_document(&d, &o, &l);
	is_int(l.nr, 2, "at most 4 tokens: two parts");
	ok(l.nr == 2 && !strcmp(l.items[0].text, "# Keys\n\nRotate them often.") &&
	   !strcmp(l.items[1].text, "Restart the proxy."),
	   "the heading and the first paragraph fill the first part exactly (4 tokens)");
	chunk_list_release(&l);
	document_release(&d);
}

/* Chunks hold text from its first visible character to its last, whatever
 * white space ends a line or a paragraph. */
static void test_trimmed(void)
{
	static const char *txt = "  Rotate keys often.   \nThen restart.  \n\n\tSecond part here.\t \n\n";
	static const enum chunk_strategy kinds_of_chunks[] = {
		CHUNK_HEADINGS, CHUNK_PARAGRAPHS, CHUNK_SENTENCES, CHUNK_TOKENS,
	};
	static const enum doc_kind kinds[] = { DOC_TEXT, DOC_MARKDOWN };
	int bad = 0, total = 0;

	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++)
		for (size_t i = 0; i < ARRAY_SIZE(kinds_of_chunks); i++) {
			struct chunk_options o = { kinds_of_chunks[i], 2, 0, 0, false };
			struct document d = DOCUMENT_INIT;
			struct chunk_list l = CHUNK_LIST_INIT;

			if (document_load_buf(&d, txt, strlen(txt), kinds[k], kinds[k] == DOC_TEXT ? "t.txt" : "t.md") < 0) {
				bad++;
				continue;
			}
			chunk_document(&d, &o, &l);
			for (size_t c = 0; c < l.nr; c++) {
				const char *t = l.items[c].text;
				size_t n = strlen(t);

				total++;
				if (!n || isspace((unsigned char)t[0]) || isspace((unsigned char)t[n - 1])) {
					bad++;
					test_diag("strategy %zu kind %zu chunk %zu: '%s'", i, k, c, t);
				}
			}
			chunk_list_release(&l);
			document_release(&d);
		}
	ok(total > 8 && bad == 0, "no chunk starts or ends with white space (%d chunks, %d do)", total, bad);
}

int main(void)
{
	test_trimmed();
	test_limit_parts();
	check_spans("tests/data/fastapi-docs");
	check_spans("tests/data/html-pages");
	check_spans("tests/data/markdown-book/book");
	test_ids();
	test_markdown_blocks();
	test_commonmark();
	test_html();
	test_sentences();
	test_refusals();
	test_code_points();
	test_markup_share();
	return test_done();
}
