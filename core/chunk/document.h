/*
 * document: the source documents a corpus is cut from (Markdown, plain text
 * and HTML), their text, and the blocks (headings, paragraphs) chunk works on.
 *
 * A document's text is what every span refers to:
 *  - Markdown and plain text: the file's bytes exactly (valid UTF-8; a byte
 *    order mark is kept), so a span read back from the file is the chunk;
 *  - HTML: the text libxml2's HTML parser finds in the page, outside
 *    <head>, <script>, <style>, <template> and <noscript>: runs of white
 *    space collapsed to one space (kept as is inside <pre>), a blank line
 *    between blocks (p, h1..h6, li, pre, table rows...), entities decoded.
 *    document_load gives that text; spans refer to it, not to the markup.
 *    Nothing of the page is lost to the parser's limits: a text node may
 *    be as long as the document, a page nested deeper than
 *    DOC_HTML_MAX_DEPTH elements is refused by name, and so is any page
 *    the parser stops reading part way.
 * Spans are byte offsets inside struct document and Unicode code points
 * (what most languages index strings by) wherever they are written out;
 * document_cp converts.
 *
 * Blocks are the text's parts in order, never overlapping: a heading
 * (level 1..6, with its title: Markdown ATX and setext headings without
 * their "{ #anchor }", HTML h1..h6), or another block. Markdown blocks are
 * CommonMark's top-level blocks (code blocks, HTML blocks, paragraphs,
 * block quotes, a tight list, each item of a loose list), YAML front matter
 * one more; a block a reader sees no word of is marked 'markup' (front
 * matter, thematic breaks, HTML comments, anchor-only HTML). What lies
 * between blocks is white space, or Markdown no reader sees (link
 * reference definitions). Plain text has paragraphs only (lines up to a
 * blank line); HTML blocks are never markup (their text is what a reader
 * sees).
 *
 * Ownership: struct document owns every string it points to;
 * document_release frees them.
 */
#ifndef EVALSET_DOCUMENT_H
#define EVALSET_DOCUMENT_H

#include <stdbool.h>
#include <stddef.h>

#define DOCUMENT_MAX_BYTES (64u << 20)  /* a larger file is refused */
#define DOC_HTML_MAX_DEPTH 256           /* an HTML page nested deeper is refused */

enum doc_kind { DOC_TEXT, DOC_MARKDOWN, DOC_HTML };

struct doc_block {
	size_t start, end;   /* bytes of the text, end exclusive */
	int level;           /* 1..6 for a heading, 0 otherwise */
	char *title;         /* a heading's title, else NULL */
	bool markup;         /* no word a reader sees: chunk leaves it out unless told */
};

struct document {
	char *name;          /* as recorded in the corpus ("tutorial/body.md") */
	char *file;          /* where it was read */
	enum doc_kind kind;
	char *text;          /* NUL-terminated; 'len' bytes */
	size_t len;
	struct doc_block *blocks;
	size_t nr_blocks, alloc_blocks;
	size_t *cp_marks;    /* code points before byte i * DOC_CP_STEP */
	size_t nr_marks;
};
#define DOCUMENT_INIT { NULL, NULL, DOC_TEXT, NULL, 0, NULL, 0, 0, NULL, 0 }
#define DOC_CP_STEP 4096

/* Return the kind a file name says (".md", ".markdown": Markdown; ".html",
 * ".htm", ".xhtml": HTML; ".txt", ".text": text); -1 for any other name. */
int document_kind_of(const char *path);

/*
 * Read 'file' as a document named 'name' into 'd' (DOCUMENT_INIT), of the
 * kind its name says. Return 0, or -1 after an error naming the file (and
 * line, for bytes that are not UTF-8).
 */
int document_load(struct document *d, const char *file, const char *name);
/* Like document_load from 'len' bytes of 'buf' of kind 'kind'. */
int document_load_buf(struct document *d, const char *buf, size_t len, enum doc_kind kind,
		      const char *name);
void document_release(struct document *d);

/*
 * Return the number of tokens (text_each_token) a reader sees in 'len'
 * bytes of Markdown 'text': the text of its paragraphs, headings and code,
 * not its HTML comments and tags, link destinations, link reference
 * definitions, front matter or syntax. 0 means the text is markup only.
 */
size_t markdown_visible_tokens(const char *text, size_t len);

/* Return the number of code points before byte 'off' of the text of 'd'. */
size_t document_cp(const struct document *d, size_t off);
/* Return the byte offset of code point 'cp' of the text of 'd' (its length
 * when 'cp' is past the end). */
size_t document_byte(const struct document *d, size_t cp);

#endif
