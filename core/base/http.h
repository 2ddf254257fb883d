/*
 * http: a generic engine that runs many HTTP requests at once over libcurl's
 * multi interface, with retries and adaptive concurrency. It knows nothing of
 * LLMs or retrievers: callers (core/llm/llm.c, evalset run --url) build requests
 * and interpret replies.
 *
 * Contract:
 *  - http_submit() queues a request; nothing is sent until http_run(). A
 *    request is sent at most 'max_attempts' times. Between attempts it waits
 *    in the queue until its not-before time (retry-after-ms, retry-after, or
 *    capped exponential backoff with jitter), so one slow retry never blocks
 *    the others.
 *  - After each attempt the classifier decides: deliver or retry. The default
 *    (http_classify_default) retries 408, 409, 429, 5xx and transport
 *    failures (connect errors, timeouts, resets, empty or partial replies) and
 *    delivers everything else, so 400/401/403/404 are never retried.
 *  - The 'done' callback is called exactly once per submitted request: with
 *    the final response (delivered, or retries exhausted: 'gave_up'), or with
 *    'cancelled' set when the run stopped first (interrupt, a callback asking
 *    to stop, or the request budget). Only then may the caller free 'data'.
 *    Callbacks run on the caller's thread, inside http_run(), and may submit
 *    new requests (which run in the same http_run()).
 *  - A 429 cuts the number of requests in flight by a quarter (at most once
 *    every 2 s); each run of limit/2 deliveries without a 429 adds one back,
 *    up to 'concurrency' (additive increase, multiplicative decrease). The
 *    throttled request itself waits for its retry-after.
 *  - Connections are kept and reused across requests; HTTP/2 is used where
 *    the server offers it (multiplexed). Connect timeout and whole-attempt
 *    timeout are per attempt. An attempt that receives less than one byte a
 *    second for 'stall_s' seconds is aborted (a silent server or a trickle:
 *    libcurl's low-speed limit) and counts as a transport failure.
 *  - Deadlines: a request is given up (delivered with 'gave_up' and
 *    'past_deadline') once 'request_deadline_ms' passed since its first
 *    attempt, whatever its attempts left: an attempt never runs past it and
 *    no retry is scheduled after it. The whole run stops once 'deadline_ms'
 *    passed since http_run() began: what is in flight is aborted, everything
 *    unfinished is delivered as cancelled, and http_run() returns
 *    HTTP_DEADLINE_PASSED.
 *
 * Ownership: http_submit() copies the URL, headers and body. The response
 * passed to 'done' (its body and error text) is valid only during the call.
 * 'data' is the caller's. Header values (which may carry an API key) are kept
 * in memory only and never appear in any message this module prints.
 */
#ifndef EVALSET_HTTP_H
#define EVALSET_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"

#define HTTP_MAX_BODY (64u << 20)  /* a larger reply fails the attempt */
#define HTTP_MAX_RETRY_AFTER_MS 86400000L  /* a longer Retry-After is held to one day */

struct http_client;

struct http_response {
	long status;             /* HTTP status; 0 when no response (transport failure) */
	int transport_error;     /* CURLcode of the attempt; 0 when a response came */
	const char *error;       /* curl's error text for 'transport_error', or "" */
	const char *body;        /* reply body, NUL-terminated (may be "") */
	size_t body_len;
	long retry_after_ms;     /* from retry-after-ms / retry-after; -1 when absent */
	int attempts;            /* attempts made for this request so far (1-based) */
	bool gave_up;            /* the classifier said retry but attempts ran out */
	bool cancelled;          /* never completed: the run stopped first */
	bool past_deadline;      /* given up because its request deadline passed */
	double elapsed;          /* seconds since the first attempt started */
};

enum http_verdict {
	HTTP_DELIVER = 0,        /* hand the response to 'done' */
	HTTP_RETRY,              /* send again after the not-before time */
};

/* Decide what to do with one attempt's response; 'data' is the request's. */
typedef enum http_verdict (*http_classify_fn)(const struct http_response *res, void *data);
/*
 * Receive the final response for the request whose 'data' is given. Return 0
 * to go on, or a non-zero code to stop the whole run: http_run() then returns
 * that code, and every unfinished request is delivered as cancelled.
 */
typedef int (*http_done_fn)(const struct http_response *res, void *data);
/* Return non-zero to stop the run (polled a few times a second), e.g. on SIGINT. */
typedef int (*http_stop_fn)(void *ctx);
/* Called about once a second during http_run() (progress reporting). */
typedef void (*http_tick_fn)(void *ctx);

struct http_options {
	int concurrency;           /* most requests in flight; default 16 */
	long connect_timeout_ms;   /* default 10000 */
	long timeout_ms;           /* whole attempt; default 300000 */
	int max_attempts;          /* per request, first included; default 6 */
	long backoff_base_ms;      /* first backoff; default 500 */
	long backoff_max_ms;       /* cap on one backoff or retry-after; default 60000 */
	long max_requests;         /* budget of attempts for the client's life; 0: none */
	http_classify_fn classify; /* NULL: http_classify_default */
	http_done_fn done;         /* required */
	http_stop_fn stop;         /* optional */
	http_tick_fn tick;         /* optional */
	void *ctx;                 /* passed to 'stop' and 'tick' */
	long stall_s;              /* abort an attempt below 1 byte/s this long; default 120; 0: never */
	long request_deadline_ms;  /* one request, all attempts and waits; default 600000; 0: none */
	long deadline_ms;          /* the whole http_run(); 0 (default): none */
};

#define HTTP_OPTIONS_INIT { 16, 10000, 300000, 6, 500, 60000, 0, NULL, NULL, NULL, NULL, NULL, \
			    120, 600000, 0 }

struct http_stats {
	unsigned long attempts;    /* requests sent (every attempt counts) */
	unsigned long retries;     /* attempts after the first */
	unsigned long delivered;   /* requests handed to 'done' with a response */
	unsigned long gave_up;     /* of which: retries exhausted */
	unsigned long cancelled;   /* requests handed to 'done' as cancelled */
	unsigned long throttled;   /* 429 responses seen */
	unsigned long timed_out;   /* attempts that timed out or stalled (low-speed abort) */
	unsigned long past_deadline; /* requests given up at their request deadline */
	int limit;                 /* current in-flight limit */
	int min_limit;             /* lowest limit reached (adaptive concurrency) */
	int in_flight;
	size_t queued;             /* waiting to be sent (including retries) */
};

/* Return the default classification (the header comment; docs/design.md,
 * "HTTP: retries and errors"). */
enum http_verdict http_classify_default(const struct http_response *res, void *data);
/* Return true when the attempt never reached a server: the connection was
 * refused, or the host or proxy name did not resolve. */
bool http_unreachable(const struct http_response *res);

/* Return a new client with 'opts' (copied). Never NULL (aborts on OOM). */
struct http_client *http_client_new(const struct http_options *opts);
/* Free the client. Requests still queued are delivered as cancelled first. */
void http_client_free(struct http_client *c);

/*
 * Queue a request: 'method' ("GET", "POST", ...), 'url', 'headers' (a
 * NULL-terminated list of "Name: value" lines, or NULL), 'body' of 'body_len'
 * bytes (NULL: none). Everything is copied. 'data' comes back in the
 * callbacks. Return 0.
 */
int http_submit(struct http_client *c, const char *method, const char *url,
		const char *const *headers, const char *body, size_t body_len,
		void *data);

/*
 * Send every queued request (and those submitted by callbacks) until none is
 * left. Return 0 when all were delivered; the non-zero code of a 'done'
 * callback that asked to stop; ERR_INTERRUPTED when 'stop' said so; or
 * HTTP_BUDGET_SPENT when 'max_requests' attempts were sent and requests
 * remained (they are delivered as cancelled); or HTTP_DEADLINE_PASSED when
 * 'deadline_ms' passed first (the same). Returns -1 only if libcurl itself
 * fails (reported).
 */
int http_run(struct http_client *c);
#define HTTP_BUDGET_SPENT 4
#define HTTP_DEADLINE_PASSED 5

void http_get_stats(const struct http_client *c, struct http_stats *out);


#endif
