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
 * Who may hold it up: no local process can lock the page out by holding
 * connections open (slowloris). Each connection carries one request,
 * which must arrive whole, headers and body, within
 * REVIEW_REQUEST_DEADLINE_MS of the connection (however the bytes
 * trickle); no connection lasts longer than REVIEW_CONNECTION_MAX_MS; and
 * a local user other than the one who started the review (found in the
 * kernel's socket table) holds at most REVIEW_MAX_PER_USER of the
 * REVIEW_MAX_CONNECTIONS at once.
 *
 * The server runs on the caller's thread (libmicrohttpd's rounds, the
 * deadline sweeps and the polls of 'stop' in turn); the review calls
 * (review_state, review_apply) run there one at a time.
 */
#ifndef EVALSET_REVIEW_SERVER_H
#define EVALSET_REVIEW_SERVER_H

#include <stddef.h>

struct review;

#define REVIEW_TOKEN_BYTES 32
#define REVIEW_MAX_CONNECTIONS 32          /* open at once, in all */
#define REVIEW_MAX_PER_USER 4              /* open at once by another local user */
#define REVIEW_REQUEST_DEADLINE_MS 10000   /* from the connection to its whole request */
#define REVIEW_CONNECTION_MAX_MS 30000     /* from the connection to its end */

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
