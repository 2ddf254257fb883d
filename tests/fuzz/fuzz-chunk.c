/*
 * fuzz-chunk: the document parsers (Markdown, plain text, HTML through
 * libxml2) and the four chunking strategies on arbitrary bytes, and the
 * markup measure check applies to chunks.
 *
 * The first byte chooses the kind (text, Markdown, HTML), the strategy and
 * the window size; the rest is the document. Beyond "no crash, no leak, no
 * UB": every block and chunk lies inside the text, in document order; a
 * chunk's text is exactly the document text between its start and end (code
 * points converted back to bytes); every chunk has a token and an id of its
 * document, and no two chunks share an id; what no chunk covers is text no
 * quote needs (chunk_text_negligible), markup kept or left out; the markup
 * share is within [0, 1].
 */
#include "fuzz.h"
#include "base/error.h"
#include "chunk/chunker.h"
#include "chunk/corpuslint.h"
#include "chunk/document.h"

#include <string.h>

static void quiet(const char *prefix, const char *msg)
{
	(void)prefix;
	(void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct document d = DOCUMENT_INIT;
	struct chunk_list l = CHUNK_LIST_INIT;
	struct chunk_options o;
	size_t mark, prev = 0, upto = 0;
	double share;

	set_error_routine(quiet);
	set_warning_routine(quiet);
	if (!size)
		return 0;
	memset(&o, 0, sizeof(o));
	o.strategy = (enum chunk_strategy)((data[0] >> 2) & 3);
	o.size = 1 + (data[0] >> 4);
	o.overlap = (data[0] & 0x40) ? o.size / 2 : 0;
	o.max_tokens = (data[0] & 0x80) ? 8 : 0;
	o.keep_markup = (data[0] & 0x20) != 0;
	share = lint_markup_share((const char *)data + 1, size - 1, &mark);
	if (!(share >= 0.0 && share <= 1.0) || mark > size)
		__builtin_trap();
	if (document_load_buf(&d, (const char *)data + 1, size - 1, (enum doc_kind)(data[0] % 3),
			      "doc.md") < 0)
		goto out;
	for (size_t i = 0; i < d.nr_blocks; i++) {
		const struct doc_block *b = &d.blocks[i];
		if (b->start >= b->end || b->end > d.len || b->start < prev ||
		    (b->level && !b->title) || b->level > 6)
			__builtin_trap();
		prev = b->end;
	}
	chunk_document(&d, &o, &l);
	prev = 0;
	for (size_t i = 0; i < l.nr; i++) {
		const struct doc_chunk *c = &l.items[i];
		size_t a = document_byte(&d, c->start), b = document_byte(&d, c->end);

		if (c->start >= c->end || c->start < prev || b > d.len || a >= b ||
		    strlen(c->text) != b - a || memcmp(c->text, d.text + a, b - a) ||
		    !chunk_count_tokens(c->text, strlen(c->text)) ||
		    strncmp(c->id, "doc.md#", 7) || strcmp(c->doc, "doc.md"))
			__builtin_trap();
		if (a > upto && !chunk_text_negligible(c->doc, d.text + upto, a - upto))
			__builtin_trap();
		if (b > upto)
			upto = b;
		prev = c->start;
		for (size_t k = 0; k < i; k++)
			if (!strcmp(l.items[k].id, c->id))
				__builtin_trap();
	}
	if (d.len > upto && !chunk_text_negligible("doc.md", d.text + upto, d.len - upto))
		__builtin_trap();
out:
	chunk_list_release(&l);
	document_release(&d);
	return 0;
}
