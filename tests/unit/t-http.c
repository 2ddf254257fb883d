/*
 * t-http: the curl-multi engine against the fake server: every request is
 * delivered exactly once, retryable failures are retried and others are not,
 * the budget and stop codes end a run with the rest cancelled.
 */
#include "test-lib.h"
#include "fake-llm.h"
#include "base/http.h"
#include "base/error.h"
#include "base/util.h"

#include <cjson/cJSON.h>

struct tally {
	int done, cancelled, gave_up;
	int status[600];
	int stop_after;   /* return 7 from the n-th delivery (0: never) */
	struct strbuf last_body;
};

static int on_done(const struct http_response *res, void *data)
{
	struct tally *t = data;

	if (res->cancelled) {
		t->cancelled++;
		return 0;
	}
	t->done++;
	if (res->gave_up)
		t->gave_up++;
	if (res->status >= 0 && res->status < 600)
		t->status[res->status]++;
	strbuf_reset(&t->last_body);
	strbuf_add(&t->last_body, res->body, res->body_len);
	if (t->stop_after && t->done == t->stop_after)
		return 7;
	return 0;
}

static const char *const json_headers[] = { "Content-Type: application/json", NULL };

static void submit_n(struct http_client *c, const char *base, int n, struct tally *t)
{
	char url[128];

	snprintf(url, sizeof(url), "%s/chat/completions", base);
	for (int i = 0; i < n; i++) {
		char *body = xstrfmt("{\"model\":\"m\",\"messages\":[{\"role\":\"user\","
				     "\"content\":\"<chunk>request number %d alpha</chunk>\"}]}", i);
		http_submit(c, "POST", url, json_headers, body, strlen(body), t);
		free(body);
	}
}

/* Return the fake's /stats as JSON (caller frees). */
static cJSON *fake_stats(struct fake *f)
{
	struct http_options o = HTTP_OPTIONS_INIT;
	struct tally t = { 0 };
	struct http_client *c;
	char url[128];
	cJSON *j;

	strbuf_init(&t.last_body, 0);
	o.done = on_done;
	c = http_client_new(&o);
	snprintf(url, sizeof(url), "%s/stats", f->root);
	http_submit(c, "GET", url, NULL, NULL, 0, &t);
	http_run(c);
	http_client_free(c);
	j = cJSON_Parse(t.last_body.buf);
	strbuf_release(&t.last_body);
	return j;
}

static int stat_int(cJSON *j, const char *name)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(j, name);
	return cJSON_IsNumber(v) ? v->valueint : -1;
}

/* Return the largest per-key request count. */
static int max_per_key(cJSON *j)
{
	cJSON *keys = cJSON_GetObjectItemCaseSensitive(j, "keys"), *k;
	int m = 0;

	cJSON_ArrayForEach(k, keys)
		if (k->valueint > m)
			m = k->valueint;
	return m;
}

static int atoi_status(const char *s)
{
	long v = 0;

	parse_long(s, 0, 599, &v);
	return (int)v;
}

static int run_case(const char *const *fake_args, struct http_options *o, int n,
		    struct tally *t, struct http_stats *st, cJSON **stats)
{
	struct fake f;
	struct http_client *c;
	int rc;

	memset(t, 0, sizeof(*t));
	strbuf_init(&t->last_body, 0);
	if (fake_start(&f, fake_args)) {
		ok(0, "fake server started");
		return -99;
	}
	o->done = on_done;
	c = http_client_new(o);
	submit_n(c, f.base, n, t);
	rc = http_run(c);
	http_get_stats(c, st);
	http_client_free(c);
	*stats = fake_stats(&f);
	fake_stop(&f);
	strbuf_release(&t->last_body);
	return rc;
}

int main(void)
{
	struct http_options o;
	struct tally t;
	struct http_stats st;
	cJSON *s = NULL;
	int rc;

	/* plain success, several in flight */
	{
		const char *args[] = { "--latency", "30", NULL };
		o = (struct http_options)HTTP_OPTIONS_INIT;
		o.concurrency = 8;
		rc = run_case(args, &o, 40, &t, &st, &s);
		is_int(rc, 0, "run succeeds");
		is_int(t.done, 40, "every request delivered once");
		is_int(t.status[200], 40, "all 200");
		is_int(stat_int(s, "requests"), 40, "server saw each request once");
		ok(stat_int(s, "max_in_flight") > 1 && stat_int(s, "max_in_flight") <= 8,
		   "requests overlap but stay within the concurrency (%d)", stat_int(s, "max_in_flight"));
		cJSON_Delete(s);
	}
	/* 503 and dropped connections on the first attempt are retried */
	{
		const char *args[] = { "--fault", "503:0.5", "--fault", "drop", "--first-only", NULL };
		o = (struct http_options)HTTP_OPTIONS_INIT;
		o.backoff_base_ms = 20;
		rc = run_case(args, &o, 20, &t, &st, &s);
		is_int(rc, 0, "run with 503/drops succeeds");
		is_int(t.status[200], 20, "every request ends in 200 after a retry");
		is_int(stat_int(s, "requests"), 40, "server saw two attempts per request");
		is_int(max_per_key(s), 2, "no request sent more than twice");
		cJSON_Delete(s);
	}
	/* 429 with retry-after-ms: retried, and the client slows down */
	{
		const char *args[] = { "--fault", "429", "--first-only", "--retry-after-ms", "50", NULL };
		o = (struct http_options)HTTP_OPTIONS_INIT;
		o.concurrency = 8;
		rc = run_case(args, &o, 16, &t, &st, &s);
		is_int(rc, 0, "run with 429s succeeds");
		is_int(t.status[200], 16, "every throttled request succeeds later");
		is_int(st.throttled, 16, "429s counted");
		ok(st.min_limit < 8, "in-flight limit lowered after 429s (%d)", st.min_limit);
		cJSON_Delete(s);
	}
	/* retry-after values no integer holds (1e300, far past a long): held to the
	 * backoff cap, never converted out of range (clang's UBSan checks the cast) */
	{
		const char *const variants[][4] = {
			{ "--retry-after-ms", "1e300", NULL, NULL },
			{ "--retry-after", "1e300", NULL, NULL },
			{ "--retry-after", "99999999999999999999", "--retry-after-ms", "1e19" },
		};
		for (size_t i = 0; i < ARRAY_SIZE(variants); i++) {
			const char *args[] = { "--fault", "429", "--first-only", variants[i][0],
					       variants[i][1], variants[i][2], variants[i][3], NULL };
			o = (struct http_options)HTTP_OPTIONS_INIT;
			o.backoff_max_ms = 30;
			rc = run_case(args, &o, 2, &t, &st, &s);
			is_int(rc, 0, "a huge retry-after is held to the backoff cap");
			is_int(t.status[200], 2, "and the throttled requests succeed after it");
			cJSON_Delete(s);
		}
	}
	/* client errors are delivered, never retried */
	{
		const char *codes[] = { "400", "401", "403", "404" };
		for (size_t i = 0; i < ARRAY_SIZE(codes); i++) {
			const char *args[] = { "--fault", codes[i], NULL };
			o = (struct http_options)HTTP_OPTIONS_INIT;
			o.backoff_base_ms = 10;
			rc = run_case(args, &o, 3, &t, &st, &s);
			ok(rc == 0 && t.done == 3 && st.retries == 0 && t.status[atoi_status(codes[i])] == 3,
			   "%s delivered without a retry", codes[i]);
			is_int(max_per_key(s), 1, "server saw each request once");
			cJSON_Delete(s);
		}
	}
	/* retries run out: delivered as given up with the last status */
	{
		const char *args[] = { "--fault", "500", NULL };
		o = (struct http_options)HTTP_OPTIONS_INIT;
		o.max_attempts = 3;
		o.backoff_base_ms = 10;
		rc = run_case(args, &o, 2, &t, &st, &s);
		is_int(t.gave_up, 2, "both requests given up");
		is_int(t.status[500], 2, "with the last status");
		is_int(max_per_key(s), 3, "each sent max_attempts times");
		cJSON_Delete(s);
	}
	/* the budget is a hard limit on attempts */
	{
		const char *args[] = { NULL };
		o = (struct http_options)HTTP_OPTIONS_INIT;
		o.max_requests = 5;
		o.concurrency = 2;
		rc = run_case(args, &o, 12, &t, &st, &s);
		is_int(rc, HTTP_BUDGET_SPENT, "budget reported");
		is_int(stat_int(s, "requests"), 5, "server saw exactly the budget");
		is_int(t.done + t.cancelled, 12, "every request handed back once");
		is_int(t.cancelled, 7, "the rest cancelled");
		cJSON_Delete(s);
	}
	/* a callback stops the run */
	{
		const char *args[] = { "--latency", "20", NULL };
		o = (struct http_options)HTTP_OPTIONS_INIT;
		o.concurrency = 2;
		memset(&t, 0, sizeof(t));
		{
			struct fake f;
			struct http_client *c;
			strbuf_init(&t.last_body, 0);
			t.stop_after = 3;
			fake_start(&f, args);
			o.done = on_done;
			c = http_client_new(&o);
			submit_n(c, f.base, 10, &t);
			rc = http_run(c);
			http_client_free(c);
			fake_stop(&f);
			strbuf_release(&t.last_body);
		}
		is_int(rc, 7, "callback's stop code returned");
		is_int(t.done + t.cancelled, 10, "every request handed back once after a stop");
		ok(t.cancelled >= 6, "unsent requests cancelled (%d)", t.cancelled);
	}
	/* nothing listening: transport failure, retried, then given up */
	{
		struct http_client *c;
		memset(&t, 0, sizeof(t));
		strbuf_init(&t.last_body, 0);
		o = (struct http_options)HTTP_OPTIONS_INIT;
		o.max_attempts = 2;
		o.backoff_base_ms = 10;
		o.done = on_done;
		c = http_client_new(&o);
		submit_n(c, "http://127.0.0.1:9/v1", 1, &t);
		rc = http_run(c);
		http_get_stats(c, &st);
		http_client_free(c);
		strbuf_release(&t.last_body);
		is_int(rc, 0, "run ends");
		is_int(t.gave_up, 1, "unreachable request given up");
		is_int(t.status[0], 1, "with status 0");
		is_int(st.attempts, 2, "after max_attempts");
	}
	return test_done();
}
