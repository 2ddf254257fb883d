/*
 * review-server: the local HTTP server of `evalset review`, on
 * libmicrohttpd (docs/review.md says why that library).
 *
 * Who may use it, checked on every request before anything else:
 *  - it listens on 127.0.0.1 only;
 *  - the Host header must be "127.0.0.1:PORT" (a page on another name that
 *    resolves to 127.0.0.1, DNS rebinding, is refused);
 *  - the path must start with "/TOKEN/", TOKEN 32 random bytes from the
 *    system's CSPRNG (getentropy) as hex, compared in constant time: another
 *    local user, or a page that guesses the port, gets 403;
 *  - a Sec-Fetch-Site header, when the browser sends one, must be
 *    "same-origin" or "none" (typed into the address bar);
 *  - a write (POST) must carry Origin "http://127.0.0.1:PORT" and a JSON
 *    content type; no CORS header is ever sent, so no other origin can read
 *    a reply either.
 * Every reply carries no-store, nosniff, no-referrer and frame-ancestors
 * 'none'; the page's Content-Security-Policy allows only its own inline
 * script and style, by a nonce drawn per response.
 *
 * The server answers on one internal thread of libmicrohttpd; the review
 * calls (review_state, review_apply) run there one at a time.
 */
#ifndef EVALSET_REVIEW_SERVER_H
#define EVALSET_REVIEW_SERVER_H

#include <stddef.h>

struct review;

#define REVIEW_TOKEN_BYTES 32

struct review_serve_options {
	unsigned port;                       /* 0: a free port the kernel picks */
	int (*stop)(void);                   /* polled about 10 times a second; non-zero ends */
	void (*ready)(const char *url, void *ctx);  /* once listening: the URL with its token */
	void *ctx;
};

/*
 * Serve the review 'r' until 'o->stop' returns non-zero. Return 0, or -1
 * (reported) when the server cannot start (port taken, no randomness).
 */
int review_serve(struct review *r, const struct review_serve_options *o);

/* Write 'n' random bytes from the kernel's CSPRNG as 2n hex digits and a NUL
 * into 'out'. Return 0 or -1 (reported). */
int review_random_hex(char *out, size_t n);

#endif
