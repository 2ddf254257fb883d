/*
 * review-page: the page's bytes, embedded at build time from
 * core/review/review.html (tools/embed.py), with the response's nonce put
 * in place of every "@NONCE@".
 */
#include "review/review-page.h"

#include <string.h>

#include "review-page-data.h"

void review_page(struct strbuf *out, const char *nonce)
{
	static const char mark[] = "@NONCE@";
	const char *p = review_page_html, *m;

	while ((m = strstr(p, mark))) {
		strbuf_add(out, p, (size_t)(m - p));
		strbuf_addstr(out, nonce);
		p = m + sizeof(mark) - 1;
	}
	strbuf_addstr(out, p);
}
