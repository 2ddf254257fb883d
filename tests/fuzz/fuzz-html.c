/*
 * fuzz-html: the HTML reader (document_load_buf, libxml2's HTML parser and
 * the walk over its tree) on pages built from the input, for the oracle
 * the random bytes of fuzz-chunk cannot give: no text of the page is lost.
 *
 * The input chooses the shape, so a short seed stands for a huge page:
 *  - bytes 0-1: how deep the payload sits (0..131070 nested elements);
 *  - byte 2: which elements nest, from a list whose text a reader sees (0:
 *    <div>; below the list's length: that one element; above: all of them
 *    in turn, which makes the parser close some on its own), and, with
 *    its top bit, the payload repeated past 10,000,000 bytes (libxml2's
 *    default cap on one text node);
 *  - the rest: the payload, made text ('<' and '&' become spaces, bytes
 *    that are not ASCII become 'x', so it is valid UTF-8 with no markup).
 * The page is "<p>zqfirst</p>", the nesting, "<p>" payload "</p>", the
 * closing tags, then "<p>zqlast</p>". Beyond "no crash, no leak, no UB":
 * a page that loads holds both markers and every word of the payload in
 * its text, and a page within the depth limit (DOC_HTML_MAX_DEPTH, with
 * <html>, <body> and the payload's <p>) always loads: text is never lost,
 * a page is refused only for its depth.
 */
#include "fuzz.h"
#include "base/error.h"
#include "base/strbuf.h"
#include "chunk/document.h"

#include <stdlib.h>
#include <string.h>

static void quiet(const char *prefix, const char *msg)
{
	(void)prefix;
	(void)msg;
}

static const char *const tags[] = {
	"div", "span", "section", "blockquote", "ul", "li", "b", "em", "p", "pre",
	"article", "td", "dl", "dd", "font", "center", "a", "i",
};
#define NR_TAGS (sizeof(tags) / sizeof(tags[0]))

/* The element at depth 'i' for the choice 'pick' (see above). */
static const char *tag_at(unsigned pick, size_t i)
{
	if (pick < NR_TAGS)
		return tags[pick];
	return tags[(pick + i) % NR_TAGS];
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct document d = DOCUMENT_INIT;
	struct strbuf page = STRBUF_INIT, text = STRBUF_INIT;
	size_t depth, reps = 1;
	unsigned pick;

	set_error_routine(quiet);
	set_warning_routine(quiet);
	if (size < 3)
		return 0;
	depth = ((size_t)data[0] | (size_t)data[1] << 8) * 2;
	pick = data[2] & 0x7f;
	for (size_t i = 3; i < size; i++) {
		unsigned char c = data[i];
		strbuf_addch(&text, c >= 0x7f ? 'x' : c == '<' || c == '&' || (c < 0x20 && !blank((char)c)) ? ' ' : (char)c);
	}
	if ((data[2] & 0x80) && text.len)
		reps = 10000000 / text.len + 2;
	strbuf_addstr(&page, "<html><body><p>zqfirst</p>");
	for (size_t i = 0; i < depth; i++)
		strbuf_addf(&page, "<%s>", tag_at(pick, i));
	strbuf_addstr(&page, "<p>");
	for (size_t r = 0; r < reps && page.len < DOCUMENT_MAX_BYTES / 2; r++) {
		strbuf_add(&page, text.buf, text.len);
		strbuf_addch(&page, ' ');
	}
	strbuf_addstr(&page, "</p>");
	for (size_t i = depth; i-- > 0;)
		strbuf_addf(&page, "</%s>", tag_at(pick, i));
	strbuf_addstr(&page, "<p>zqlast</p></body></html>");

	if (document_load_buf(&d, page.buf, page.len, DOC_HTML, "page.html") < 0) {
		if (depth + 3 <= DOC_HTML_MAX_DEPTH)
			__builtin_trap();
		goto out;
	}
	if (!strstr(d.text, "zqfirst") || !strstr(d.text, "zqlast"))
		__builtin_trap();
	for (size_t i = 0; i < text.len;) {
		size_t s;
		char *word;
		while (i < text.len && blank(text.buf[i]))
			i++;
		s = i;
		while (i < text.len && !blank(text.buf[i]))
			i++;
		if (i == s)
			continue;
		word = strndup(text.buf + s, i - s);
		if (!word || !strstr(d.text, word))
			__builtin_trap();
		free(word);
	}
out:
	document_release(&d);
	strbuf_release(&page);
	strbuf_release(&text);
	return 0;
}
