/*
 * document: reading Markdown, text and HTML documents into text and blocks
 * (see document.h).
 *
 * Markdown is parsed by cmark (CommonMark 0.30): the top-level blocks it
 * finds are the blocks chunking works on, at the byte offsets of the source
 * its source positions give (an HTML block's end is taken from its literal,
 * whose source position cmark gets wrong when the block holds blank lines).
 * So a '#' line inside an HTML comment, a code fence or an indented code
 * block is no heading, and a link reference definition belongs to no block.
 * YAML front matter ("---" on the first line, closed by "---" or "...") is
 * not CommonMark: it is taken off before cmark sees the text (its bytes
 * blanked, so offsets stay those of the file) and is a markup block. A
 * block is markup when a reader sees no word of it (markdown_visible_tokens:
 * HTML comments and tags, link destinations, Markdown syntax aside): front
 * matter, thematic breaks, HTML blocks and paragraphs of tags only (the
 * anchor blocks of "<a id=...></a>" lines). Lists: a tight list is one
 * block, a loose list one block per item. Everything else (tables,
 * admonitions) is paragraph text: chunks keep the markup as it stands in
 * the file. Plain text is read line by line (paragraphs end at blank lines).
 * HTML goes through libxml2's HTML parser (its error recovery copes with
 * the tag soup real pages hold); no markup is ever removed by pattern.
 */
#include "chunk/document.h"
#include "chunk/doc-libs.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/lineio.h"
#include "base/strbuf.h"
#include "base/utf8.h"
#include "base/util.h"

#include "text/text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int document_kind_of(const char *path)
{
	static const struct { const char *ext; enum doc_kind kind; } kinds[] = {
		{ ".md", DOC_MARKDOWN }, { ".markdown", DOC_MARKDOWN },
		{ ".html", DOC_HTML }, { ".htm", DOC_HTML }, { ".xhtml", DOC_HTML },
		{ ".txt", DOC_TEXT }, { ".text", DOC_TEXT },
	};
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		if (ends_with(path, kinds[i].ext))
			return (int)kinds[i].kind;
	return -1;
}

void document_release(struct document *d)
{
	free(d->name);
	free(d->file);
	free(d->text);
	for (size_t i = 0; i < d->nr_blocks; i++)
		free(d->blocks[i].title);
	free(d->blocks);
	free(d->cp_marks);
	memset(d, 0, sizeof(*d));
}

static void add_block(struct document *d, size_t start, size_t end, int level, char *title)
{
	ALLOC_GROW(d->blocks, d->nr_blocks + 1, d->alloc_blocks);
	d->blocks[d->nr_blocks].start = start;
	d->blocks[d->nr_blocks].end = end;
	d->blocks[d->nr_blocks].level = level;
	d->blocks[d->nr_blocks].title = title;
	d->blocks[d->nr_blocks].markup = false;
	d->nr_blocks++;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

/* ---- Markdown and text ---- */

/* Return the title of the ATX heading in [p, end): without the marks, a
 * closing run of '#' and a trailing "{ #anchor }". Caller frees. */
static char *heading_title(const char *p, const char *end)
{
	const char *q;

	while (p < end && *p == '#')
		p++;
	while (p < end && is_blank(*p))
		p++;
	while (end > p && is_blank(end[-1]))
		end--;
	if (end > p && end[-1] == '}') {
		q = end - 1;
		while (q > p && *q != '{')
			q--;
		if (*q == '{' && memchr(q, '#', (size_t)(end - q))) {
			end = q;
			while (end > p && is_blank(end[-1]))
				end--;
		}
	}
	q = end;
	while (q > p && q[-1] == '#')
		q--;
	if (q < end && (q == p || is_blank(q[-1]))) {
		end = q;
		while (end > p && is_blank(end[-1]))
			end--;
	}
	return xstrndup(p, (size_t)(end - p));
}

/* Read the paragraphs of plain text: lines up to a blank line. */
static void parse_text(struct document *d)
{
	const char *t = d->text;
	size_t pos = 0, para_start = 0, para_end = 0;
	bool in_para = false;

	while (pos < d->len) {
		const char *nl = memchr(t + pos, '\n', d->len - pos);
		size_t le = nl ? (size_t)(nl - t) : d->len, next = nl ? le + 1 : d->len;
		size_t ind = pos, ce = le;

		while (ind < le && (t[ind] == ' ' || t[ind] == '\t'))
			ind++;
		while (ce > ind && is_blank(t[ce - 1]))
			ce--;
		if (ind == ce) {
			if (in_para)
				add_block(d, para_start, para_end, 0, NULL);
			in_para = false;
		} else {
			if (!in_para)
				para_start = ind;
			in_para = true;
			para_end = ce;
		}
		pos = next;
	}
	if (in_para)
		add_block(d, para_start, para_end, 0, NULL);
}

/* ---- Markdown ---- */

static void count_token(const char *w, size_t len, void *data)
{
	(void)w;
	(void)len;
	(*(size_t *)data)++;
}

/* Return the tokens of what a reader sees of the HTML in 'len' bytes of
 * 's': the text outside comments, tags, declarations and processing
 * instructions. */
static size_t html_text_tokens(const char *s, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = 0, i = 0;

	while (i < len) {
		if (len - i >= 4 && !memcmp(s + i, "<!--", 4)) {
			const char *e = memmem(s + i + 4, len - i - 4, "-->", 3);
			i = e ? (size_t)(e - s) + 3 : len;
		} else if (s[i] == '<' && i + 1 < len &&
			   (((s[i + 1] | 0x20) >= 'a' && (s[i + 1] | 0x20) <= 'z') || s[i + 1] == '/' ||
			    s[i + 1] == '!' || s[i + 1] == '?')) {
			const char *e = memchr(s + i, '>', len - i);
			i = e ? (size_t)(e - s) + 1 : len;
			strbuf_addch(&sb, ' ');
		} else {
			strbuf_addch(&sb, s[i++]);
		}
	}
	text_each_token(sb.buf, sb.len, count_token, &n);
	strbuf_release(&sb);
	return n;
}

/* Return the tokens a reader sees in node 'n' and below. */
static size_t visible_tokens(cmark_node *n)
{
	const struct cmark_lib *cm = cmark_lib();
	cmark_iter *it = cm->iter_new(n);
	cmark_event_type ev;
	size_t tokens = 0;

	while ((ev = cm->iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *c = cm->iter_get_node(it);
		const char *lit;

		if (ev != CMARK_EVENT_ENTER)
			continue;
		lit = cm->node_get_literal(c);
		if (!lit)
			continue;
		switch (cm->node_get_type(c)) {
		case CMARK_NODE_TEXT:
		case CMARK_NODE_CODE:
		case CMARK_NODE_CODE_BLOCK:
			text_each_token(lit, strlen(lit), count_token, &tokens);
			break;
		case CMARK_NODE_HTML_BLOCK:
		case CMARK_NODE_HTML_INLINE:
			tokens += html_text_tokens(lit, strlen(lit));
			break;
		default:
			break;
		}
	}
	cm->iter_free(it);
	return tokens;
}

/* Return the length of the YAML front matter at the start of 't' (through
 * the end of its closing line), or 0. */
static size_t front_matter_len(const char *t, size_t len)
{
	size_t pos;

	if (len < 4 || memcmp(t, "---", 3) || (t[3] != '\n' && memcmp(t + 3, "\r\n", 2)))
		return 0;
	pos = t[3] == '\n' ? 4 : 5;
	while (pos < len) {
		const char *nl = memchr(t + pos, '\n', len - pos);
		size_t le = nl ? (size_t)(nl - t) : len, ce = le;

		while (ce > pos && is_blank(t[ce - 1]))
			ce--;
		if (ce - pos == 3 && (!memcmp(t + pos, "---", 3) || !memcmp(t + pos, "...", 3)))
			return nl ? le + 1 : len;
		pos = nl ? le + 1 : len;
	}
	return 0;  /* never closed: not front matter */
}

/* The byte offsets of the starts of the lines of a text. */
struct lines {
	size_t *start;
	size_t nr;
	size_t len;   /* of the text */
};

static void lines_index(struct lines *l, const char *t, size_t len)
{
	size_t alloc = 0;

	l->nr = 0;
	l->len = len;
	l->start = NULL;
	ALLOC_GROW(l->start, 1, alloc);
	l->start[l->nr++] = 0;
	/* as CommonMark ends lines: "\n", "\r\n", and a "\r" alone */
	for (size_t i = 0; i < len; i++)
		if (t[i] == '\n' || (t[i] == '\r' && (i + 1 == len || t[i + 1] != '\n'))) {
			ALLOC_GROW(l->start, l->nr + 1, alloc);
			l->start[l->nr++] = i + 1;
		}
}

/* Return the byte offset of 1-based 'line' and 'col' (clamped to the text;
 * column 0 is the line's start). */
static size_t line_col(const struct lines *l, int line, int col)
{
	size_t at;

	if (line < 1)
		return 0;
	if ((size_t)line > l->nr)
		return l->len;
	at = l->start[line - 1] + (col > 0 ? (size_t)col - 1 : 0);
	return at < l->len ? at : l->len;
}

/* Return the end of 1-based 'line' (before its newline). */
static size_t line_end(const struct lines *l, int line)
{
	if (line < 1)
		return 0;
	if ((size_t)line >= l->nr)
		return l->len;
	return l->start[line] - 1;
}

/* Return the byte span of block node 'n' in [*a, *b). */
static void node_span(const struct lines *l, cmark_node *n, size_t *a, size_t *b)
{
	const struct cmark_lib *cm = cmark_lib();
	int sl = cm->node_get_start_line(n), el = cm->node_get_end_line(n);

	*a = line_col(l, sl, cm->node_get_start_column(n));
	if (cm->node_get_type(n) == CMARK_NODE_HTML_BLOCK) {
		/* its literal is its lines as they stand: count them */
		const char *lit = cm->node_get_literal(n), *p;
		int lines = 0;

		for (p = lit ? lit : ""; *p; p++)
			lines += *p == '\n' || (*p == '\r' && p[1] != '\n');
		if (lit && *lit && p[-1] != '\n' && p[-1] != '\r')
			lines++;
		*b = line_end(l, sl + (lines ? lines : 1) - 1);
	} else {
		*b = line_col(l, el, cm->node_get_end_column(n) + 1);
		if (cm->node_get_end_column(n) == 0)
			*b = el > 1 ? line_end(l, el - 1) : 0;
	}
	if (*b < *a)
		*b = *a;
}

/* Add the block of node 'n' at [a, b) of 'd', trimmed, if it holds anything
 * and does not reach back before 'floor' (the end of the block before). */
static void add_node_block(struct document *d, cmark_node *n, size_t a, size_t b, size_t *floor)
{
	const char *t = d->text;
	cmark_node_type type = cmark_lib()->node_get_type(n);
	int level = 0;
	char *title = NULL;

	if (a < *floor)
		a = *floor;
	while (a < b && is_blank(t[a]))
		a++;
	while (b > a && is_blank(t[b - 1]))
		b--;
	if (a >= b)
		return;
	if (type == CMARK_NODE_HEADING) {
		const char *nl = memchr(t + a, '\n', b - a);
		level = cmark_lib()->node_get_heading_level(n);
		if (t[a] == '#') {
			title = heading_title(t + a, nl ? nl : t + b);
		} else {
			/* setext: the text above the underline */
			const char *under = t + b;
			while (under > t + a && under[-1] != '\n')
				under--;
			title = heading_title(t + a, under > t + a ? under - 1 : t + b);
		}
	}
	add_block(d, a, b, level, title);
	/* markup by cmark's reading of the node, and of the block's bytes read
	 * alone (what the stretches left out are checked by) */
	d->blocks[d->nr_blocks - 1].markup = !level && (type == CMARK_NODE_THEMATIC_BREAK ||
							!visible_tokens(n)) &&
					     !markdown_visible_tokens(t + a, b - a);
	*floor = b;
}

static int parse_markdown(struct document *d)
{
	const struct cmark_lib *cm = cmark_lib();
	size_t fm = front_matter_len(d->text, d->len), floor = 0, nr_nodes = 0, alloc_nodes = 0;
	cmark_node **nodes = NULL;
	char *copy = xmalloc(d->len + 1);
	struct lines l;
	cmark_node *root;

	/* cmark reads a copy: the front matter blanked (newlines kept, so lines
	 * and offsets stay the file's), NUL bytes made spaces (cmark would make
	 * them three-byte U+FFFD and shift every offset after them) */
	for (size_t i = 0; i < d->len; i++)
		copy[i] = (i < fm && d->text[i] != '\n') || !d->text[i] ? ' ' : d->text[i];
	copy[d->len] = '\0';
	root = cm->parse_document(copy, d->len, CMARK_OPT_DEFAULT);
	/* the lines cmark counted: those of the copy (a "\r" blanked in the front
	 * matter ends no line), at the same offsets as the file's */
	lines_index(&l, copy, d->len);
	free(copy);
	if (!root) {
		free(l.start);
		return error("'%s': cannot parse as Markdown", d->name);
	}
	if (fm) {
		size_t e = fm;
		while (e > 0 && is_blank(d->text[e - 1]))
			e--;
		add_block(d, 0, e, 0, NULL);
		d->blocks[d->nr_blocks - 1].markup = true;
		floor = fm;
	}
	/* the block nodes: top-level ones, the items of a loose list */
	for (cmark_node *n = cm->node_first_child(root); n; n = cm->node_next(n)) {
		if (cm->node_get_type(n) == CMARK_NODE_LIST && !cm->node_get_list_tight(n)) {
			for (cmark_node *item = cm->node_first_child(n); item;
			     item = cm->node_next(item)) {
				ALLOC_GROW(nodes, nr_nodes + 1, alloc_nodes);
				nodes[nr_nodes++] = item;
			}
		} else {
			ALLOC_GROW(nodes, nr_nodes + 1, alloc_nodes);
			nodes[nr_nodes++] = n;
		}
	}
	for (size_t i = 0; i < nr_nodes; i++) {
		size_t a, b, next_a, next_b;

		node_span(&l, nodes[i], &a, &b);
		/* a block ends where the next one starts at the latest: cmark's end
		 * positions are not always right (a setext heading before a lone
		 * "\r"), its starts are */
		if (i + 1 < nr_nodes) {
			node_span(&l, nodes[i + 1], &next_a, &next_b);
			if (b > next_a)
				b = next_a;
		}
		add_node_block(d, nodes[i], a, b, &floor);
	}
	free(nodes);
	free(l.start);
	cm->node_free(root);
	return 0;
}

size_t markdown_visible_tokens(const char *text, size_t len)
{
	size_t fm = front_matter_len(text, len), n;
	char *copy = xmalloc(len + 1);
	cmark_node *root;

	for (size_t i = 0; i < len; i++)
		copy[i] = (i < fm && text[i] != '\n') || !text[i] ? ' ' : text[i];
	copy[len] = '\0';
	root = cmark_lib()->parse_document(copy, len, CMARK_OPT_DEFAULT);
	free(copy);
	if (!root)
		return 1;
	n = visible_tokens(root);
	cmark_lib()->node_free(root);
	return n;
}

/* ---- HTML ---- */

struct html_walk {
	struct document *d;
	struct strbuf out;
	size_t start;      /* where the open block starts */
	bool open;         /* a block has text */
	bool space;        /* a space is due before the next text */
	int pre;           /* depth of <pre> */
	int level;         /* heading level of the open block */
};

static void flush_block(struct html_walk *w)
{
	size_t end = w->out.len;

	if (!w->open)
		return;
	while (end > w->start && is_blank(w->out.buf[end - 1]))
		end--;
	strbuf_setlen(&w->out, end);
	add_block(w->d, w->start, end, w->level,
		  w->level ? xstrndup(w->out.buf + w->start, end - w->start) : NULL);
	w->open = false;
	w->space = false;
}

static void add_text(struct html_walk *w, const char *s)
{
	for (; *s; s++) {
		if (!w->pre && is_blank(*s)) {
			w->space = w->open;
			continue;
		}
		if (!w->open) {
			if (w->pre && is_blank(*s))
				continue;  /* leading white space of a block */
			if (w->out.len)
				strbuf_addstr(&w->out, "\n\n");
			w->start = w->out.len;
			w->open = true;
			w->space = false;
		}
		if (w->space)
			strbuf_addch(&w->out, ' ');
		w->space = false;
		strbuf_addch(&w->out, *s);
	}
}

static bool name_in(const char *name, const char *const *list)
{
	for (size_t i = 0; list[i]; i++)
		if (!strcmp(name, list[i]))
			return true;
	return false;
}

static const char *const skipped[] = {
	"head", "title", "script", "style", "template", "noscript", "svg", "math", "iframe",
	"object",
	NULL,
};
static const char *const blocks[] = {
	"p", "div", "pre", "li", "ul", "ol", "dl", "dt", "dd", "blockquote", "table", "tr",
	"thead", "tbody", "tfoot", "caption", "section", "article", "header", "footer", "nav",
	"main", "aside", "figure", "figcaption", "form", "fieldset", "details", "summary",
	"address", "hr", "body", "html", "h1", "h2", "h3", "h4", "h5", "h6", NULL,
};

/* Return true when the walk goes into the children of element 'n' (and
 * leaves it again): every element but the skipped ones and <br>. */
static bool entered(const xmlNode *n)
{
	const char *name = (const char *)n->name;

	return n->type == XML_ELEMENT_NODE && name && !name_in(name, skipped) && strcmp(name, "br");
}

static void enter(struct html_walk *w, const xmlNode *n)
{
	const char *name = (const char *)n->name;

	if (!strcmp(name, "td") || !strcmp(name, "th"))
		w->space = w->open;
	if (name_in(name, blocks)) {
		flush_block(w);
		w->level = name[0] == 'h' && name[1] >= '1' && name[1] <= '6' && !name[2] ? name[1] - '0' : 0;
	}
	if (!strcmp(name, "pre"))
		w->pre++;
}

static void leave(struct html_walk *w, const xmlNode *n)
{
	const char *name = (const char *)n->name;

	if (!strcmp(name, "pre"))
		w->pre--;
	if (name_in(name, blocks)) {
		flush_block(w);
		w->level = 0;
	}
}

/* Visit the nodes from 'n' on, and their children, in document order
 * (iterative: the stack does not depend on the page's nesting). */
static void walk(struct html_walk *w, xmlNode *n)
{
	xmlNode *top = n ? n->parent : NULL;

	while (n) {
		const char *name = (const char *)n->name;

		if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) {
			if (n->content)
				add_text(w, (const char *)n->content);
		} else if (n->type == XML_ELEMENT_NODE && name && !strcmp(name, "br")) {
			if (w->open && !w->pre)
				w->space = true;
			else if (w->open)
				strbuf_addch(&w->out, '\n');
		} else if (entered(n)) {
			enter(w, n);
			if (n->children) {
				n = n->children;
				continue;
			}
			leave(w, n);
		}
		/* on to the next sibling, leaving the elements that end here */
		while (n && !n->next) {
			n = n->parent;
			if (!n || n == top)
				return;
			leave(w, n);
		}
		n = n ? n->next : NULL;
	}
}

/* What the parse watches: libxml2's own start of an element, wrapped to
 * stop the parser past DOC_HTML_MAX_DEPTH open elements. */
struct html_guard {
	startElementSAXFunc start;
	bool too_deep;
};

static void guarded_start(void *ctx, const xmlChar *name, const xmlChar **atts)
{
	htmlParserCtxtPtr ctxt = ctx;
	struct html_guard *g = ctxt->_private;

	if (ctxt->nameNr > DOC_HTML_MAX_DEPTH) {
		g->too_deep = true;
		xml_lib()->stop_parser(ctxt);
		return;
	}
	g->start(ctx, name, atts);
}

/*
 * Parse 'len' bytes of 'buf' as HTML into the text and blocks of 'd'.
 * libxml2's defaults lose text in silence: its parser stops at 256 nested
 * elements and cuts a text node at 10,000,000 bytes, and neither shows in
 * what it returns. So the parse runs with the huge option (no cap on a
 * text node; DOCUMENT_MAX_BYTES bounds it), under a depth limit of our own
 * (DOC_HTML_MAX_DEPTH, since the parser's work on a mismatched end tag
 * grows with the depth), and a parse that stopped before the end for any
 * reason refuses the document by name: what it built is not the page.
 */
static int parse_html(struct document *d, const char *buf, size_t len)
{
	const struct xml_lib *xml = xml_lib();
	struct html_walk w = { d, STRBUF_INIT, 0, false, false, 0, 0 };
	struct html_guard guard = { NULL, false };
	htmlParserCtxtPtr ctxt;
	htmlDocPtr doc;
	int rc = 0;

	if (len > (size_t)INT32_MAX)
		return error("'%s': HTML document too large", d->name);
	if (!(ctxt = xml->new_parser_ctxt()))
		return error("'%s': cannot parse as HTML (out of memory)", d->name);
	guard.start = ctxt->sax->startElement;
	ctxt->sax->startElement = guarded_start;
	ctxt->_private = &guard;
	doc = xml->ctxt_read_memory(ctxt, buf, (int)len, NULL, "UTF-8",
				    HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
				    HTML_PARSE_NONET | HTML_PARSE_NOIMPLIED |
				    XML_PARSE_HUGE /* HTML_PARSE_HUGE in libxml2 2.12; 2.9 reads this one */);
	if (guard.too_deep) {
		rc = error("'%s': elements nested deeper than %d levels; refused rather than cut",
			   d->name, DOC_HTML_MAX_DEPTH);
	} else if (!doc) {
		rc = error("'%s': cannot parse as HTML", d->name);
	} else if (ctxt->disableSAX) {
		/* the parser gave up part way: what it built is not the whole page */
		const xmlError *e = xml->ctxt_get_last_error(ctxt);
		struct strbuf why = STRBUF_INIT;

		strbuf_addstr(&why, e && e->message ? e->message : "no reason given");
		strbuf_trim(&why);
		rc = error("'%s': the HTML parser stopped before the end of the document (%s); "
			   "refused rather than cut", d->name, why.buf);
		strbuf_release(&why);
	} else {
		walk(&w, xml->doc_get_root_element(doc) ? doc->children : NULL);
		flush_block(&w);
		d->text = strbuf_detach(&w.out, &d->len);
	}
	if (doc)
		xml->free_doc(doc);
	xml->free_parser_ctxt(ctxt);
	strbuf_release(&w.out);
	return rc;
}

/* ---- loading ---- */

static void mark_code_points(struct document *d)
{
	size_t cp = 0;

	d->nr_marks = d->len / DOC_CP_STEP + 1;
	d->cp_marks = xcalloc(d->nr_marks, sizeof(*d->cp_marks));
	/* a mark every DOC_CP_STEP bytes, the last one at or before the end */
	for (size_t i = 0; i <= d->len; i += DOC_CP_STEP) {
		d->cp_marks[i / DOC_CP_STEP] = cp;
		if (i < d->len)
			cp += utf8_chars(d->text + i, d->len - i < DOC_CP_STEP ? d->len - i : DOC_CP_STEP);
	}
}

size_t document_cp(const struct document *d, size_t off)
{
	size_t i, cp;

	if (off > d->len)
		off = d->len;
	i = off / DOC_CP_STEP * DOC_CP_STEP;
	cp = d->nr_marks ? d->cp_marks[off / DOC_CP_STEP] : 0;
	return cp + utf8_chars(d->text + i, off - i);
}

size_t document_byte(const struct document *d, size_t cp)
{
	size_t lo = 0, hi = d->nr_marks, i, n;

	/* the last mark at or before 'cp' */
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (d->cp_marks[mid] <= cp)
			lo = mid;
		else
			hi = mid;
	}
	i = lo * DOC_CP_STEP;
	n = d->nr_marks ? d->cp_marks[lo] : 0;
	/* cp >= n: the mark is at or before it */
	return i + utf8_prefix(d->text + i, d->len - i, cp - n);
}

int document_load_buf(struct document *d, const char *buf, size_t len, enum doc_kind kind,
		      const char *name)
{
	size_t bad;

	d->name = xstrdup(name);
	d->kind = kind;
	if (!utf8_valid(buf, len, &bad)) {
		error_at(name, line_number_at(buf, bad), 0, "not UTF-8 (byte 0x%02x); convert the document first",
			 (unsigned char)buf[bad]);
		document_release(d);
		return -1;
	}
	if (kind == DOC_HTML) {
		if (parse_html(d, buf, len) < 0) {
			document_release(d);
			return -1;
		}
	} else {
		d->text = xstrndup(buf, len);
		d->len = len;
		if (kind == DOC_TEXT) {
			parse_text(d);
		} else if (parse_markdown(d) < 0) {
			document_release(d);
			return -1;
		}
	}
	mark_code_points(d);
	return 0;
}

int document_load(struct document *d, const char *file, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	int kind = document_kind_of(file), rc;

	if (kind < 0)
		kind = DOC_TEXT;
	if (read_file(file, &sb, DOCUMENT_MAX_BYTES) < 0) {
		strbuf_release(&sb);
		return -1;
	}
	rc = document_load_buf(d, sb.buf, sb.len, (enum doc_kind)kind, name);
	if (!rc)
		d->file = xstrdup(file);
	strbuf_release(&sb);
	return rc;
}
