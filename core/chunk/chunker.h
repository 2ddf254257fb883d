/*
 * chunker: cutting documents into chunks, by heading sections, paragraphs,
 * sentence windows or token windows (docs/chunking.md).
 *
 * Invariants, whatever the strategy:
 *  - a chunk's text is exactly the document text between its start and end
 *    (no joining, no trimming inside, no markup removed);
 *  - chunks of a document come in document order (by start);
 *  - every chunk holds at least one token (text_each_token);
 *  - a chunk's id is "<doc>#<first 12 hex digits of the SHA-256 of its
 *    text>", with "-2", "-3"... for a text that repeats in the document: it
 *    changes only when the chunk's own text changes, so re-running chunk on
 *    the same documents gives the same ids, and an edit elsewhere in the
 *    document leaves them alone.
 * Tokens are counted as core/text counts them (text_each_token), summed
 * over whitespace-separated words: a window or a size limit never cuts a
 * word.
 *
 * Coverage: every byte of a document is in some chunk, except white space,
 * text without a token (a "///" line, a lone "-->") and, unless
 * 'keep_markup', the markup blocks of document.h (front matter, HTML
 * comments, anchor-only HTML, thematic breaks) at the edges of a chunk or
 * on their own: a block-based chunk runs from its first block that is not
 * markup to its last, and markup alone makes no chunk. A token window
 * starts at a word, whether or not the word has a token ("## Title"), and
 * the last window of a stretch runs to its last word, so windows leave no
 * word out; token windows run over the stretches between markup blocks.
 * remap relies on this: whatever no chunk covers is text no quote can
 * need (chunk_text_negligible).
 *
 * Ownership: a chunk_list owns its chunks and their strings.
 */
#ifndef EVALSET_CHUNKER_H
#define EVALSET_CHUNKER_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"

struct document;

enum chunk_strategy {
	CHUNK_HEADINGS,   /* a heading and what follows it, up to the next heading */
	CHUNK_PARAGRAPHS, /* one paragraph (a heading goes with the paragraph after it) */
	CHUNK_SENTENCES,  /* windows of 'size' sentences, 'overlap' shared */
	CHUNK_TOKENS,     /* windows of 'size' tokens, 'overlap' shared */
};

struct chunk_options {
	enum chunk_strategy strategy;
	size_t size;        /* sentences or tokens per window */
	size_t overlap;     /* sentences or tokens shared by neighbouring windows (< size) */
	size_t max_tokens;  /* headings and paragraphs: a longer chunk is cut (0: no limit) */
	bool keep_markup;   /* keep markup blocks (document.h) in chunks and as chunks */
};

struct doc_chunk {
	char *id;
	char *doc;
	char *title;        /* the heading path ("Tutorial > Body"), or NULL */
	size_t start, end;  /* code points of the document's text, end exclusive */
	char *text;
};

struct chunk_list {
	struct doc_chunk *items;
	size_t nr, alloc;
};
#define CHUNK_LIST_INIT { NULL, 0, 0 }
void chunk_list_release(struct chunk_list *l);

/* Return "headings", "paragraphs", "sentences" or "tokens". */
const char *chunk_strategy_name(enum chunk_strategy s);
/* Set '*out' from a strategy name; return 0, or -1 (nothing printed). */
int chunk_strategy_parse(const char *name, enum chunk_strategy *out);

/* Append the chunks of 'd' under 'o' to 'out', with their ids. Return the
 * number of chunks added. */
size_t chunk_document(const struct document *d, const struct chunk_options *o,
		      struct chunk_list *out);

/* Return the number of tokens in 'len' bytes of 's' (text_each_token). */
size_t chunk_count_tokens(const char *s, size_t len);

/*
 * Return true when 'len' bytes of 'text', a piece of document 'doc' (its
 * name says its kind), hold nothing a reader sees or a quote can need: no
 * token, or, in Markdown, markup only (document_visible_tokens). The
 * stretches chunkers leave out are of this kind, which is what lets remap
 * and the corpus comparisons (core/set/corpusdiff.h) pass over them.
 */
bool chunk_text_negligible(const char *doc, const char *text, size_t len);

/* Append 'c' as one corpus JSONL line ({"id", "doc", "start", "end",
 * "title", "text"}) to 'out'. Return 0, or -1 (reported, naming the
 * document and the chunk's place; nothing appended) when the line would be
 * longer than CORPUS_MAX_LINE, which the corpus reader refuses. */
int chunk_to_jsonl(const struct doc_chunk *c, struct strbuf *out);

#endif
