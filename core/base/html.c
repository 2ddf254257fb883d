/*
 * html: HTML, XML and script-safe JSON escaping (see html.h).
 *
 * Text is walked one UTF-8 sequence at a time (base/utf8): a byte that
 * does not start a valid, shortest-form sequence (or a surrogate, or past
 * U+10FFFF) becomes U+FFFD and the walk resumes at the next byte. HTML and
 * XML share the walk; 'xml' picks the few places where they differ.
 */
#include "base/html.h"
#include "base/termtext.h"
#include "base/jsonstr.h"
#include "base/utf8.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define REPLACEMENT "\xEF\xBF\xBD"

/* Append the first 'len' bytes of 's' escaped as HTML text, or as XML text
 * when 'xml' (html.h says how the two differ). */
static void markup_text(struct strbuf *out, const char *s, size_t len, bool xml)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	if (!s)
		return;
	strbuf_grow(out, len + len / 8);
	while (i < len) {
		uint32_t cp;
		size_t n = utf8_decode((const char *)p + i, len - i, &cp);

		if (!n) {
			strbuf_addstr(out, REPLACEMENT);
			i++;
			continue;
		}
		switch (cp) {
		case '<': strbuf_addstr(out, "&lt;"); break;
		case '>': strbuf_addstr(out, "&gt;"); break;
		case '&': strbuf_addstr(out, "&amp;"); break;
		case '"': strbuf_addstr(out, "&quot;"); break;
		case '\'': strbuf_addstr(out, xml ? "&apos;" : "&#39;"); break;
		default:
			if ((cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') ||
			    cp == 0x7F || (cp >= 0x80 && cp < 0xA0) ||
			    (xml && (cp == 0xFFFE || cp == 0xFFFF)))
				strbuf_addstr(out, REPLACEMENT);
			else if (term_hidden_mark(cp))
				strbuf_addf(out, "&lt;U+%04X&gt;", (unsigned)cp);
			else
				strbuf_add(out, p + i, n);
		}
		i += n;
	}
}

void html_text_len(struct strbuf *out, const char *s, size_t len)
{
	markup_text(out, s, len, false);
}

void html_text(struct strbuf *out, const char *s)
{
	if (s)
		markup_text(out, s, strlen(s), false);
}

void xml_text(struct strbuf *out, const char *s)
{
	if (s)
		markup_text(out, s, strlen(s), true);
}

void html_textf(struct strbuf *out, const char *fmt, ...)
{
	struct strbuf tmp = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&tmp, fmt, ap);
	va_end(ap);
	html_text_len(out, tmp.buf, tmp.len);
	strbuf_release(&tmp);
}

/* Append ' name="value"', 'value' escaped as HTML or XML. */
static void markup_attr(struct strbuf *out, const char *name, const char *value, bool xml)
{
	strbuf_addch(out, ' ');
	strbuf_addstr(out, name);
	strbuf_addstr(out, "=\"");
	if (value)
		markup_text(out, value, strlen(value), xml);
	strbuf_addch(out, '"');
}

void html_attr(struct strbuf *out, const char *name, const char *value)
{
	markup_attr(out, name, value, false);
}

void xml_attr(struct strbuf *out, const char *name, const char *value)
{
	markup_attr(out, name, value, true);
}

void html_script_json(struct strbuf *out, const char *json)
{
	const unsigned char *p = (const unsigned char *)json;
	uint32_t cp;
	size_t n;

	for (; *p; p++) {
		if (*p == '<')
			strbuf_addstr(out, "\\u003c");
		else if (*p == '>')
			strbuf_addstr(out, "\\u003e");
		else if (*p == '&')
			strbuf_addstr(out, "\\u0026");
		else if (p[0] == 0xE2 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)) {
			strbuf_addstr(out, p[2] == 0xA8 ? "\\u2028" : "\\u2029");
			p += 2;
		} else if (*p >= 0xC0 && (n = utf8_decode((const char *)p, strlen((const char *)p), &cp)) &&
			   term_hidden_mark(cp)) {
			/* only inside a string: shown, never acting, once the page reads it */
			strbuf_addf(out, "\\u003cU+%04X\\u003e", (unsigned)cp);
			p += n - 1;
		} else
			strbuf_addch(out, *p);
	}
}

void html_script_string(struct strbuf *out, const char *s)
{
	json_add_string(out, s ? s : "", JSON_SCRIPT);
}
