/*
 * review-page: the one HTML page of `evalset review`, self-contained (its
 * CSS and JavaScript inline, nothing fetched from elsewhere, no framework).
 *
 * The page holds no data: its script fetches api/state (and api/search) and builds every
 * element with createElement and textContent, never innerHTML, so nothing
 * read from a set, a pool or a corpus can become markup. Its inline script
 * and style carry the nonce of the response's Content-Security-Policy.
 */
#ifndef EVALSET_REVIEW_PAGE_H
#define EVALSET_REVIEW_PAGE_H

#include "base/strbuf.h"

/* Append the page to 'out' with 'nonce' (hex digits) on its script and style. */
void review_page(struct strbuf *out, const char *nonce);

#endif
