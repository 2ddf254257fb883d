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
#include <stdio.h>
#include <stdlib.h>
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

/* ---- json_pretty ---- */

void json_pretty_init(struct json_pretty *w, struct strbuf *out)
{
	w->out = out;
	w->depth = 0;
}

static void add_tabs(struct strbuf *out, int n)
{
	while (n-- > 0)
		strbuf_addch(out, '\t');
}

/* Begin a value: the separator after the one before it and, in an object, its key. */
static void begin_value(struct json_pretty *w, const char *key)
{
	int d = w->depth;

	if (!d)
		return;
	if (w->array[d - 1]) {
		if (!w->empty[d - 1])
			strbuf_add(w->out, ", ", 2);
	} else {
		if (!w->empty[d - 1])
			strbuf_add(w->out, ",\n", 2);
		add_tabs(w->out, d);
		json_add_string(w->out, key, JSON_CJSON);
		strbuf_add(w->out, ":\t", 2);
	}
	w->empty[d - 1] = false;
}

void json_pretty_open(struct json_pretty *w, const char *key, char bracket)
{
	if (w->depth >= JSON_PRETTY_DEPTH) {  /* a bug of the caller: the layouts written are fixed */
		fprintf(stderr, "fatal: json_pretty: more than %d levels\n", JSON_PRETTY_DEPTH);
		abort();
	}
	begin_value(w, key);
	strbuf_addch(w->out, bracket);
	if (bracket == '{')
		strbuf_addch(w->out, '\n');
	w->array[w->depth] = bracket == '[';
	w->empty[w->depth] = true;
	w->depth++;
}

void json_pretty_close(struct json_pretty *w)
{
	int d = w->depth--;

	if (w->array[d - 1]) {
		strbuf_addch(w->out, ']');
		return;
	}
	if (!w->empty[d - 1])
		strbuf_addch(w->out, '\n');
	add_tabs(w->out, d - 1);
	strbuf_addch(w->out, '}');
}

void json_pretty_string(struct json_pretty *w, const char *key, const char *s)
{
	begin_value(w, key);
	json_add_string(w->out, s, JSON_CJSON);
}

void json_pretty_long(struct json_pretty *w, const char *key, long v)
{
	char digits[24], *p = digits + sizeof(digits);
	/* the magnitude as unsigned: LONG_MIN has no positive long */
	unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;

	begin_value(w, key);
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	strbuf_add(w->out, p, (size_t)(digits + sizeof(digits) - p));
}

void json_pretty_bool(struct json_pretty *w, const char *key, bool v)
{
	begin_value(w, key);
	strbuf_addstr(w->out, v ? "true" : "false");
}

void json_pretty_raw(struct json_pretty *w, const char *key, const char *text)
{
	begin_value(w, key);
	strbuf_addstr(w->out, text);
}
