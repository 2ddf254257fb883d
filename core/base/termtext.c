/*
 * termtext: making text from input harmless to print (see termtext.h).
 */
#include "base/termtext.h"
#include "base/utf8.h"

#include <string.h>
#include <utf8proc.h>

bool term_hidden_mark(uint32_t c)
{
	return c == 0x061C || c == 0x180E || (c >= 0x200B && c <= 0x200F) ||
	       (c >= 0x202A && c <= 0x202E) || (c >= 0x2060 && c <= 0x2069) || c == 0xFEFF ||
	       (c <= 0x10FFFF && utf8proc_category((utf8proc_int32_t)c) == UTF8PROC_CATEGORY_CF);
}

void term_add_visible(struct strbuf *out, const char *s, bool keep_lines)
{
	size_t len = strlen(s);

	while (len) {
		uint32_t cp;
		size_t n = utf8_decode(s, len, &cp);

		if (!n) {
			strbuf_addf(out, "\\x%02x", (unsigned char)*s);
			n = 1;
		} else if (keep_lines && (cp == '\n' || cp == '\t')) {
			strbuf_addch(out, (char)cp);
		} else if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0)) {
			strbuf_addf(out, "\\x%02x", (unsigned)cp);
		} else if (term_hidden_mark(cp)) {
			strbuf_addf(out, "<U+%04X>", (unsigned)cp);
		} else {
			strbuf_add(out, s, n);
		}
		s += n;
		len -= n;
	}
}

void term_add_marked(struct strbuf *out, const char *s, size_t len)
{
	while (len) {
		uint32_t cp;
		size_t n = utf8_decode(s, len, &cp);

		if (n && term_hidden_mark(cp))
			strbuf_addf(out, "<U+%04X>", (unsigned)cp);
		else
			strbuf_add(out, s, n ? n : 1);
		s += n ? n : 1;
		len -= n ? n : 1;
	}
}

const char *term_visible(const char *s)
{
	static struct strbuf bufs[4] = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
	static unsigned next;
	struct strbuf *b = &bufs[next++ % 4];

	strbuf_reset(b);
	if (s)
		term_add_visible(b, s, false);
	return b->buf;
}

/* Return the columns of the character at 's' ('len' >= 1 bytes left) and
 * its byte length in '*n'. */
static size_t char_width(const char *s, size_t len, size_t *n)
{
	uint32_t cp;
	int w;

	if (!(*n = utf8_decode(s, len, &cp))) {
		*n = 1;
		return 1;
	}
	if (cp < 0x20 || cp == 0x7F)
		return 1;
	w = utf8proc_charwidth((utf8proc_int32_t)cp);
	return w < 0 ? 0 : (size_t)w;
}

size_t term_width(const char *s, size_t len)
{
	size_t cols = 0;

	while (len) {
		size_t n;

		cols += char_width(s, len, &n);
		s += n;
		len -= n;
	}
	return cols;
}

size_t term_prefix(const char *s, size_t len, size_t max_cols, size_t *cols)
{
	size_t at = 0;

	*cols = 0;
	while (at < len) {
		size_t n, w = char_width(s + at, len - at, &n);

		if (*cols + w > max_cols)
			break;
		*cols += w;
		at += n;
	}
	return at;
}
