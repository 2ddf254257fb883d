/*
 * http: the curl-multi engine behind every remote call (see http.h).
 *
 * Shape (after curl's own tool, parallel transfers): one multi handle; a FIFO
 * of fresh requests and a small list of requests waiting for their
 * not-before time; a loop that starts ready requests up to the current limit,
 * runs curl_multi_perform, drains curl_multi_info_read, and waits in
 * curl_multi_poll no longer than the earliest not-before time.
 *
 * Invariants: a request is in exactly one place (fresh queue, wait list, in
 * flight, or delivered and freed); 'done' is called once per request; the
 * in-flight count never exceeds 'limit', which stays in [1, concurrency].
 */
#include "base/http.h"
#include "base/curl-lib.h"
#include "base/error.h"
#include "base/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

struct http_req {
	char *method;
	char *url;
	struct curl_slist *headers;
	char *body;
	size_t body_len;
	void *data;
	int attempts;
	int64_t not_before;      /* monotonic ms */
	int64_t started;         /* first attempt, monotonic ms */
	/* per attempt */
	CURL *easy;
	size_t slot;             /* index in the client's 'flying' while in flight */
	struct strbuf reply;
	long retry_after_ms;
	bool too_big;            /* the reply passed HTTP_MAX_BODY */
	char errbuf[CURL_ERROR_SIZE];
};

struct http_client {
	struct http_options o;
	CURLM *multi;
	struct http_req **fresh;      /* FIFO: fresh[fresh_head .. nr_fresh) */
	size_t nr_fresh, alloc_fresh, fresh_head;
	struct http_req **waiting;    /* retries waiting for not_before */
	size_t nr_waiting, alloc_waiting;
	struct http_req **flying;     /* in flight, in no particular order */
	size_t alloc_flying;
	int in_flight;
	int limit;
	int min_limit;                /* lowest 'limit' so far */
	int ok_streak;                /* deliveries since the last 429 or increase */
	int64_t last_cut;             /* when the limit was last halved */
	struct http_stats st;
	uint64_t rng;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static uint64_t next_random(struct http_client *c)
{
	/* xorshift64*: jitter only, no need for quality */
	c->rng ^= c->rng >> 12;
	c->rng ^= c->rng << 25;
	c->rng ^= c->rng >> 27;
	return c->rng * 2685821657736338717ULL;
}

enum http_verdict http_classify_default(const struct http_response *res, void *data)
{
	(void)data;
	if (res->status == 0) {
		switch (res->transport_error) {
		case CURLE_COULDNT_RESOLVE_HOST:
		case CURLE_COULDNT_RESOLVE_PROXY:
		case CURLE_COULDNT_CONNECT:
		case CURLE_OPERATION_TIMEDOUT:
		case CURLE_SEND_ERROR:
		case CURLE_RECV_ERROR:
		case CURLE_GOT_NOTHING:
		case CURLE_PARTIAL_FILE:
		case CURLE_HTTP2:
		case CURLE_HTTP2_STREAM:
		case CURLE_SSL_CONNECT_ERROR:
			return HTTP_RETRY;
		default:
			return HTTP_DELIVER;
		}
	}
	if (res->status == 408 || res->status == 409 || res->status == 429 || res->status >= 500)
		return HTTP_RETRY;
	return HTTP_DELIVER;
}

bool http_unreachable(const struct http_response *res)
{
	return res->status == 0 && (res->transport_error == CURLE_COULDNT_CONNECT ||
				    res->transport_error == CURLE_COULDNT_RESOLVE_HOST ||
				    res->transport_error == CURLE_COULDNT_RESOLVE_PROXY);
}

struct http_client *http_client_new(const struct http_options *opts)
{
	struct http_client *c = xcalloc(1, sizeof(*c));

	c->o = *opts;
	if (c->o.concurrency < 1)
		c->o.concurrency = 1;
	if (c->o.max_attempts < 1)
		c->o.max_attempts = 1;
	if (!c->o.classify)
		c->o.classify = http_classify_default;
	c->limit = c->min_limit = c->o.concurrency;
	c->multi = curl_lib()->multi_init();
	if (!c->multi) {
		fprintf(stderr, "fatal: cannot initialise libcurl\n");
		abort();
	}
	curl_lib()->multi_setopt(c->multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
	curl_lib()->multi_setopt(c->multi, CURLMOPT_MAXCONNECTS, (long)c->o.concurrency + 4);
	c->rng = (uint64_t)now_ms() * 0x9E3779B97F4A7C15ULL | 1;
	c->last_cut = -1000000;
	return c;
}

static void req_free(struct http_req *r)
{
	if (!r)
		return;
	free(r->method);
	free(r->url);
	curl_lib()->slist_free_all(r->headers);
	free(r->body);
	strbuf_release(&r->reply);
	free(r);
}

int http_submit(struct http_client *c, const char *method, const char *url,
		const char *const *headers, const char *body, size_t body_len,
		void *data)
{
	struct http_req *r = xcalloc(1, sizeof(*r));

	r->method = xstrdup(method);
	r->url = xstrdup(url);
	for (size_t i = 0; headers && headers[i]; i++) {
		struct curl_slist *n = curl_lib()->slist_append(r->headers, headers[i]);
		if (!n) {
			fprintf(stderr, "fatal: out of memory\n");
			abort();
		}
		r->headers = n;
	}
	if (body) {
		r->body = xmalloc(body_len + 1);
		memcpy(r->body, body, body_len);
		r->body[body_len] = '\0';
		r->body_len = body_len;
	}
	r->data = data;
	r->started = -1;
	strbuf_init(&r->reply, 0);
	r->reply.limit = HTTP_MAX_BODY;
	ALLOC_GROW(c->fresh, c->nr_fresh + 1, c->alloc_fresh);
	c->fresh[c->nr_fresh++] = r;
	return 0;
}

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct http_req *r = userdata;
	size_t n = size * nmemb;

	if (r->reply.len + n > r->reply.limit) {
		r->too_big = true;
		return 0; /* curl fails the attempt with CURLE_WRITE_ERROR */
	}
	strbuf_add(&r->reply, ptr, n);
	return n;
}

/* Parse "retry-after-ms: N" and "retry-after: SECONDS|HTTP-date". */
static size_t on_header(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct http_req *r = userdata;
	size_t n = size * nmemb;
	char line[256];
	size_t len = n < sizeof(line) - 1 ? n : sizeof(line) - 1;
	char *colon, *v, *end;

	memcpy(line, ptr, len);
	line[len] = '\0';
	if (starts_with(line, "HTTP/")) {
		r->retry_after_ms = -1; /* a new response (after a 100 or a redirect) */
		return n;
	}
	colon = strchr(line, ':');
	if (!colon)
		return n;
	*colon = '\0';
	v = colon + 1;
	while (*v == ' ' || *v == '\t')
		v++;
	end = v + strlen(v);
	while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' '))
		*--end = '\0';
	if (!strcasecmp(line, "retry-after-ms")) {
		double ms;
		if (!parse_double(v, &ms) && ms >= 0)
			r->retry_after_ms = double_clamp_long(ms, 0, HTTP_MAX_RETRY_AFTER_MS);
	} else if (!strcasecmp(line, "retry-after") && r->retry_after_ms < 0) {
		double s;
		if (!parse_double(v, &s) && s >= 0) {
			r->retry_after_ms = double_clamp_long(s * 1000, 0, HTTP_MAX_RETRY_AFTER_MS);
		} else {
			time_t t = curl_lib()->getdate(v, NULL);
			if (t != -1) {
				double d = difftime(t, time(NULL));
				r->retry_after_ms = double_clamp_long(d * 1000, 0, HTTP_MAX_RETRY_AFTER_MS);
			}
		}
	}
	return n;
}

/* Return the time limit of the attempt 'r' is starting: the whole-attempt
 * timeout, cut to what is left of its request deadline (at least 1 ms). */
static long attempt_timeout_ms(const struct http_client *c, const struct http_req *r)
{
	long t = c->o.timeout_ms > 0 ? c->o.timeout_ms : 0;

	if (c->o.request_deadline_ms > 0) {
		int64_t left = r->started + c->o.request_deadline_ms - now_ms();
		if (left < 1)
			left = 1;
		if (!t || left < t)
			t = (long)left;
	}
	return t;
}

static int start_attempt(struct http_client *c, struct http_req *r)
{
	const struct curl_lib *cl = curl_lib();
	CURL *e = cl->easy_init();

	if (!e)
		return error("cannot create a libcurl handle");
	r->easy = e;
	r->attempts++;
	if (r->started < 0)
		r->started = now_ms();
	strbuf_reset(&r->reply);
	r->retry_after_ms = -1;
	r->too_big = false;
	r->errbuf[0] = '\0';
	cl->easy_setopt(e, CURLOPT_URL, r->url);
	cl->easy_setopt(e, CURLOPT_PRIVATE, r);
	cl->easy_setopt(e, CURLOPT_ERRORBUFFER, r->errbuf);
	cl->easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	cl->easy_setopt(e, CURLOPT_WRITEDATA, r);
	cl->easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	cl->easy_setopt(e, CURLOPT_HEADERDATA, r);
	cl->easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	cl->easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, c->o.connect_timeout_ms);
	cl->easy_setopt(e, CURLOPT_TIMEOUT_MS, attempt_timeout_ms(c, r));
	if (c->o.stall_s > 0) {
		cl->easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
		cl->easy_setopt(e, CURLOPT_LOW_SPEED_TIME, c->o.stall_s);
	}
	cl->easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
	/* over TLS, wait for the first connection's handshake to tell whether
	 * it multiplexes (HTTP/2) rather than opening one per request; plain
	 * HTTP is HTTP/1.1 here, where waiting would hold every request until
	 * the first one's whole reply came back */
	if (!strncasecmp(r->url, "https://", 8))
		cl->easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
	cl->easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
	cl->easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
	cl->easy_setopt(e, CURLOPT_USERAGENT, "evalset");
	if (r->headers)
		cl->easy_setopt(e, CURLOPT_HTTPHEADER, r->headers);
	if (r->body) {
		cl->easy_setopt(e, CURLOPT_POSTFIELDS, r->body);
		cl->easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body_len);
	}
	if (strcmp(r->method, "POST") || !r->body)
		cl->easy_setopt(e, CURLOPT_CUSTOMREQUEST, r->method);
	if (!strcmp(r->method, "GET") && !r->body)
		cl->easy_setopt(e, CURLOPT_HTTPGET, 1L);
	if (cl->multi_add_handle(c->multi, e) != CURLM_OK) {
		cl->easy_cleanup(e);
		r->easy = NULL;
		return error("cannot start a request to '%s'", r->url);
	}
	ALLOC_GROW(c->flying, (size_t)c->in_flight + 1, c->alloc_flying);
	r->slot = (size_t)c->in_flight;
	c->flying[c->in_flight++] = r;
	c->st.attempts++;
	if (r->attempts > 1)
		c->st.retries++;
	return 0;
}

static void fill_response(struct http_req *r, struct http_response *res, long status,
			  int code)
{
	memset(res, 0, sizeof(*res));
	res->status = status;
	res->transport_error = code;
	res->error = code ? (r->errbuf[0] ? r->errbuf : curl_lib()->easy_strerror(code)) : "";
	if (code && r->too_big) {
		snprintf(r->errbuf, sizeof(r->errbuf), "the reply is larger than the limit of %u bytes",
			 HTTP_MAX_BODY);
		res->error = r->errbuf;
	}
	res->body = r->reply.buf;
	res->body_len = r->reply.len;
	res->retry_after_ms = r->retry_after_ms;
	res->attempts = r->attempts;
	res->elapsed = r->started < 0 ? 0 : (now_ms() - r->started) / 1000.0;
}

static int deliver(struct http_client *c, struct http_req *r, struct http_response *res)
{
	int rc = c->o.done(res, r->data);

	if (res->cancelled)
		c->st.cancelled++;
	else
		c->st.delivered++;
	if (res->gave_up)
		c->st.gave_up++;
	req_free(r);
	return rc;
}

static void cancel_one(struct http_client *c, struct http_req *r)
{
	struct http_response res;

	fill_response(r, &res, 0, 0);
	res.cancelled = true;
	deliver(c, r, &res);
}

/* Remove 'r' from the in-flight list and free its easy handle. */
static void unfly(struct http_client *c, struct http_req *r)
{
	struct http_req *last = c->flying[--c->in_flight];

	c->flying[r->slot] = last;
	last->slot = r->slot;
	curl_lib()->multi_remove_handle(c->multi, r->easy);
	curl_lib()->easy_cleanup(r->easy);
	r->easy = NULL;
}

/* Deliver every request not yet finished (in flight or queued) as cancelled. */
static void cancel_all(struct http_client *c)
{
	while (c->in_flight > 0) {
		struct http_req *r = c->flying[c->in_flight - 1];
		unfly(c, r);
		cancel_one(c, r);
	}
	/* a callback of a cancelled request may not submit, but be safe */
	while (c->fresh_head < c->nr_fresh || c->nr_waiting) {
		if (c->fresh_head < c->nr_fresh) {
			cancel_one(c, c->fresh[c->fresh_head++]);
		} else {
			cancel_one(c, c->waiting[--c->nr_waiting]);
		}
	}
	c->nr_fresh = c->fresh_head = 0;
}

static long backoff_ms(struct http_client *c, const struct http_req *r)
{
	long base = c->o.backoff_base_ms > 0 ? c->o.backoff_base_ms : 1;
	long cap = c->o.backoff_max_ms > 0 ? c->o.backoff_max_ms : 60000;
	long d = base;

	for (int i = 1; i < r->attempts && d < cap; i++)
		d *= 2;
	if (d > cap)
		d = cap;
	/* "equal jitter": half fixed, half random, so retries spread out */
	return d / 2 + (long)(next_random(c) % (uint64_t)(d / 2 + 1));
}

static void on_throttled(struct http_client *c, int64_t now)
{
	c->st.throttled++;
	c->ok_streak = 0;
	if (now - c->last_cut >= 2000 && c->limit > 1) {
		c->limit = c->limit * 3 / 4;
		if (c->limit < 1)
			c->limit = 1;
		if (c->limit < c->min_limit)
			c->min_limit = c->limit;
		c->last_cut = now;
	}
}

static void on_success(struct http_client *c)
{
	if (c->limit >= c->o.concurrency)
		return;
	if (++c->ok_streak >= (c->limit + 1) / 2) {
		c->limit++;
		c->ok_streak = 0;
	}
}

/* Handle one finished attempt; return a non-zero stop code from 'done'. */
static int finish_attempt(struct http_client *c, CURL *e, CURLcode code)
{
	struct http_req *r = NULL;
	struct http_response res;
	long status = 0;
	int64_t now = now_ms();

	curl_lib()->easy_getinfo(e, CURLINFO_PRIVATE, (char **)&r);
	if (code == CURLE_OK)
		curl_lib()->easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
	fill_response(r, &res, code == CURLE_OK ? status : 0, (int)code);
	unfly(c, r); /* the reply buffer and error text stay with 'r' */
	if (status == 429)
		on_throttled(c, now);
	if (code == CURLE_OPERATION_TIMEDOUT)
		c->st.timed_out++;
	if (c->o.classify(&res, r->data) == HTTP_RETRY) {
		long wait = res.retry_after_ms >= 0 ? res.retry_after_ms : backoff_ms(c, r);
		if (wait > c->o.backoff_max_ms)
			wait = c->o.backoff_max_ms;
		if (c->o.request_deadline_ms > 0 && now + wait >= r->started + c->o.request_deadline_ms) {
			res.past_deadline = true;
			c->st.past_deadline++;
		} else if (r->attempts < c->o.max_attempts) {
			r->not_before = now + wait;
			ALLOC_GROW(c->waiting, c->nr_waiting + 1, c->alloc_waiting);
			c->waiting[c->nr_waiting++] = r;
			return 0;
		}
		res.gave_up = true;
	} else if (status != 429) {
		on_success(c);
	}
	return deliver(c, r, &res); /* frees 'r' */
}

/* Return the next request ready to start, or NULL; '*wait' gets the ms until one is. */
static struct http_req *next_ready(struct http_client *c, int64_t now, long *wait)
{
	size_t best = SIZE_MAX;

	for (size_t i = 0; i < c->nr_waiting; i++) {
		if (c->waiting[i]->not_before <= now) {
			best = i;
			break;
		}
		long w = (long)(c->waiting[i]->not_before - now);
		if (w < *wait)
			*wait = w;
	}
	if (best != SIZE_MAX) {
		struct http_req *r = c->waiting[best];
		memmove(c->waiting + best, c->waiting + best + 1,
			(c->nr_waiting - best - 1) * sizeof(*c->waiting));
		c->nr_waiting--;
		return r;
	}
	if (c->fresh_head < c->nr_fresh) {
		struct http_req *r = c->fresh[c->fresh_head++];
		if (c->fresh_head == c->nr_fresh)
			c->fresh_head = c->nr_fresh = 0;
		return r;
	}
	return NULL;
}

int http_run(struct http_client *c)
{
	int rc = 0;
	int64_t last_tick = now_ms(), began = last_tick;

	for (;;) {
		int64_t now = now_ms();
		long wait = 1000;
		int running = 0;
		CURLMsg *m;
		int left;

		if (c->o.stop && c->o.stop(c->o.ctx)) {
			rc = ERR_INTERRUPTED;
			break;
		}
		if (c->o.deadline_ms > 0 && now - began >= c->o.deadline_ms) {
			rc = HTTP_DEADLINE_PASSED;
			break;
		}
		while (c->in_flight < c->limit) {
			struct http_req *r;
			if (c->o.max_requests > 0 && (long)c->st.attempts >= c->o.max_requests)
				break;
			r = next_ready(c, now, &wait);
			if (!r)
				break;
			if (start_attempt(c, r)) {
				cancel_one(c, r);
				rc = -1;
				goto out;
			}
		}
		if (c->in_flight == 0) {
			if (c->fresh_head == c->nr_fresh && !c->nr_waiting)
				break;
			if (c->o.max_requests > 0 && (long)c->st.attempts >= c->o.max_requests) {
				rc = HTTP_BUDGET_SPENT;
				break;
			}
		}
		if (curl_lib()->multi_perform(c->multi, &running) != CURLM_OK) {
			rc = error("libcurl failed to run the requests");
			goto out;
		}
		while ((m = curl_lib()->multi_info_read(c->multi, &left))) {
			int stop;
			if (m->msg != CURLMSG_DONE)
				continue;
			stop = finish_attempt(c, m->easy_handle, m->data.result);
			if (stop && !rc)
				rc = stop;
		}
		if (rc)
			break;
		if (c->o.tick && now - last_tick >= 1000) {
			c->o.tick(c->o.ctx);
			last_tick = now;
		}
		if (c->in_flight < c->limit && c->fresh_head < c->nr_fresh &&
		    !(c->o.max_requests > 0 && (long)c->st.attempts >= c->o.max_requests))
			continue; /* more can start right away */
		if (c->in_flight == 0 && c->fresh_head == c->nr_fresh && !c->nr_waiting)
			continue; /* all delivered: end now, not after a poll with nothing to wait for */
		if (wait > 200)
			wait = 200; /* poll 'stop' a few times a second */
		if (wait < 0)
			wait = 0;
		curl_lib()->multi_poll(c->multi, NULL, 0, (int)wait, NULL);
	}
out:
	cancel_all(c); /* stopped early: abort what is in flight, cancel the rest */
	return rc;
}

void http_get_stats(const struct http_client *c, struct http_stats *out)
{
	*out = c->st;
	out->limit = c->limit;
	out->min_limit = c->min_limit;
	out->in_flight = c->in_flight;
	out->queued = (c->nr_fresh - c->fresh_head) + c->nr_waiting;
}

void http_client_free(struct http_client *c)
{
	if (!c)
		return;
	cancel_all(c);
	curl_lib()->multi_cleanup(c->multi);
	free(c->fresh);
	free(c->waiting);
	free(c->flying);
	free(c);
}
