/*
 * jsonstr: JSON string escaping in three styles (see jsonstr.h).
 *
 * The common case, a run of bytes that need nothing, is copied in one
 * strbuf_add: the import writes tens of thousands of lines through here.
 */
#include "base/jsonstr.h"
#include "base/utf8.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Return true when byte 'c' cannot be copied as is in 'style'. */
static bool needs_escape(unsigned char c, enum json_style style)
{
	if (c < 0x20 || c == '"' || c == '\\')
		return true;
	switch (style) {
	case JSON_CANON:
		return c == 0x7f;
	case JSON_SCRIPT:
		return c == '<' || c == '>' || c == '&' || c >= 0x80;
	default:
		return false;
	}
}

/* Return the letter of the short escape of 'c' in 'style', or 0. */
static char short_form(unsigned char c, enum json_style style)
{
	switch (c) {
	case '"': return '"';
	case '\\': return '\\';
	case '\n': return 'n';
	case '\r': return style == JSON_SCRIPT ? 0 : 'r';
	case '\t': return style == JSON_SCRIPT ? 0 : 't';
	case '\b': return style == JSON_CJSON ? 'b' : 0;
	case '\f': return style == JSON_CJSON ? 'f' : 0;
	default: return 0;
	}
}

void json_add_escaped(struct strbuf *out, const char *s, size_t len, enum json_style style)
{
	size_t i = 0;

	while (i < len) {
		size_t run = i;
		unsigned char c;
		char letter;

		while (i < len && !needs_escape((unsigned char)s[i], style))
			i++;
		strbuf_add(out, s + run, i - run);
		if (i == len)
			break;
		c = (unsigned char)s[i];
		if (c >= 0x80) {  /* JSON_SCRIPT only: check the sequence */
			uint32_t cp;
			size_t n = utf8_decode(s + i, len - i, &cp);

			if (!n)
				strbuf_addstr(out, "\\ufffd");
			else if (cp == 0x2028 || cp == 0x2029)
				strbuf_addf(out, "\\u%04x", (unsigned)cp);
			else
				strbuf_add(out, s + i, n);
			i += n ? n : 1;
			continue;
		}
		letter = short_form(c, style);
		if (letter) {
			strbuf_addch(out, '\\');
			strbuf_addch(out, letter);
		} else {
			strbuf_addf(out, "\\u%04x", c);
		}
		i++;
	}
}

void json_add_string(struct strbuf *out, const char *s, enum json_style style)
{
	if (!s) {
		strbuf_addstr(out, "null");
		return;
	}
	strbuf_addch(out, '"');
	json_add_escaped(out, s, strlen(s), style);
	strbuf_addch(out, '"');
}
