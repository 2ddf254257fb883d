/*
 * review-page: the page's bytes, embedded at build time from
 * core/review/review.html (tools/embed.py), with the response's nonce put
 * in place of every "@NONCE@" and the hidden characters' class in place of
 * "@HIDDEN@".
 */
#include "review/review-page.h"
#include "base/termtext.h"

#include <stdint.h>
#include <string.h>

#include "review-page-data.h"

#define MAX_CODE_POINT 0x10FFFF

/*
 * Append to 'out' the characters term_hidden_mark names, as the inside of a
 * JavaScript regular expression class with the u flag ("\u{61C}\u{200B}-
 * \u{200F}..."): the page marks what the terminal and the report mark, by
 * the same rule. Worked out once (a pass over every code point).
 */
static void hidden_class(struct strbuf *out)
{
	static struct strbuf class = STRBUF_INIT;

	if (!class.len) {
		for (uint32_t c = 0; c <= MAX_CODE_POINT; c++) {
			uint32_t last = c;

			if (!term_hidden_mark(c))
				continue;
			while (last < MAX_CODE_POINT && term_hidden_mark(last + 1))
				last++;
			strbuf_addf(&class, "\\u{%X}", (unsigned)c);
			if (last > c)
				strbuf_addf(&class, "-\\u{%X}", (unsigned)last);
			c = last;
		}
	}
	strbuf_add(out, class.buf, class.len);
}

void review_page(struct strbuf *out, const char *nonce)
{
	static const char *const marks[] = { "@NONCE@", "@HIDDEN@" };
	const char *p = review_page_html;

	for (;;) {
		const char *m = NULL;
		int which = 0;

		for (int i = 0; i < 2; i++) {
			const char *at = strstr(p, marks[i]);
			if (at && (!m || at < m)) {
				m = at;
				which = i;
			}
		}
		if (!m)
			break;
		strbuf_add(out, p, (size_t)(m - p));
		if (which == 0)
			strbuf_addstr(out, nonce);
		else
			hidden_class(out);
		p = m + strlen(marks[which]);
	}
	strbuf_addstr(out, p);
}
