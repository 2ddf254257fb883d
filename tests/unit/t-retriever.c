/*
 * t-retriever: the parts of `evalset run` a test can reach without a
 * process or a server: checking replies, body templates, URL redaction,
 * latency quantiles and the run file. (The command and HTTP protocols are
 * exercised end to end by the CLI cases run-cmd-* and run-url-*.)
 */
#include "test-lib.h"
#include "retrieve/retriever.h"
#include "base/strbuf.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *qids[] = { "q-1", "q-2", "q-3" };
static const char *texts[] = { "one", "two", "three" };

static void setup(struct job *job, long k)
{
	job_init(job, 3, k);
	for (size_t i = 0; i < 3; i++) {
		job->qid[i] = qids[i];
		job->query[i] = texts[i];
	}
}

/* Accept the JSON reply 'text' for question 'i'; return job_accept's result. */
static int accept(struct job *job, size_t i, const char *text, struct strbuf *why)
{
	cJSON *r = cJSON_Parse(text);
	int rc;

	strbuf_reset(why);
	rc = job_accept(job, i, cJSON_GetObjectItemCaseSensitive(r, "results"),
			cJSON_GetObjectItemCaseSensitive(r, "abstained"), why);
	cJSON_Delete(r);
	return rc;
}

static void test_accept(void)
{
	struct job job;
	struct strbuf why = STRBUF_INIT;

	setup(&job, 2);
	is_int(accept(&job, 0, "{\"results\": [{\"id\": \"a\", \"score\": 2.5}, {\"id\": \"b\"}, \"c\"]}", &why),
	       0, "objects with and without score and bare ids are accepted");
	is_int(job.ans[0].nr, 2, "results beyond k are cut");
	ok(job.ans[0].answered && !strcmp(job.ans[0].hits[0].id, "a") &&
	   job.ans[0].hits[0].score == 2.5 && isnan(job.ans[0].hits[1].score),
	   "ids and scores kept in order, a missing score is NAN");

	is_int(accept(&job, 0, "{\"results\": [\"x\", \"y\", \"x\"]}", &why), -1,
	       "a document listed twice is refused");
	is_str(why.buf, "document 'x' is listed twice", "naming the document");
	ok(!strcmp(job.ans[0].hits[0].id, "a"), "a refused reply leaves the earlier answer as it was");
	is_int(accept(&job, 1, "{\"results\": [\"c\", \"d\", \"e\", \"c\"]}", &why), -1,
	       "a duplicate beyond k is still refused");
	ok(!job.ans[1].answered && job.ans[1].nr == 0, "a refused reply leaves no half answer");

	is_int(accept(&job, 1, "{\"abstained\": true}", &why), 0, "an abstention needs no results");
	ok(job.ans[1].answered && job.ans[1].abstained && job.ans[1].nr == 0, "recorded as abstained");
	is_int(accept(&job, 2, "{\"hits\": []}", &why), -1, "no results and no abstention is refused");
	is_str(why.buf, "no \"results\" list", "with the reason");
	is_int(accept(&job, 2, "{\"results\": {\"a\": 1}}", &why), -1, "results that are not a list");
	is_int(accept(&job, 2, "{\"results\": [{\"doc\": \"a\"}]}", &why), -1, "a result without an id");
	is_str(why.buf, "result 1 is neither an id string nor an object with an \"id\" string",
	       "naming its position");
	is_int(accept(&job, 2, "{\"results\": [{\"id\": \"a\", \"score\": \"high\"}]}", &why), -1,
	       "a score that is not a number");
	is_int(accept(&job, 2, "{\"results\": [], \"abstained\": \"yes\"}", &why), -1,
	       "abstained that is not a boolean");
	is_int(job_answered(&job), 2, "two questions answered");
	job_release(&job);
	strbuf_release(&why);
}

static void test_latency(void)
{
	struct job job;

	job_init(&job, 20, 10);
	is_double(job_latency(&job, 0.5), -1, 1e-9, "no answer: no latency");
	for (size_t i = 0; i < 20; i++) {
		/* 20, 19, ..., 1 ms: the quantile must not depend on the order */
		job.ans[i].answered = true;
		job.ans[i].latency_ms = (double)(20 - i);
	}
	/* nearest rank: p50 of 20 values is the 10th smallest, p95 the 19th */
	is_double(job_latency(&job, 0.5), 10, 1e-9, "p50 by nearest rank");
	is_double(job_latency(&job, 0.95), 19, 1e-9, "p95 by nearest rank");
	job.ans[19].answered = false; /* drop the 1 ms one: 2..20 left, the 10th smallest is 11 */
	is_double(job_latency(&job, 0.5), 11, 1e-9, "unanswered questions do not count");
	job_release(&job);
}

static void test_body(void)
{
	struct strbuf out = STRBUF_INIT;

	test_capture_errors();
	is_int(url_render_body(URL_BODY_DEFAULT, "q-7", "say \"hi\"\\\n\tcaf\xc3\xa9", 5, NULL, &out), 0,
	       "the default template renders");
	is_str(out.buf, "{\"query\": \"say \\\"hi\\\"\\\\\\n\\tcaf\xc3\xa9\", \"k\": 5}",
	       "quotes, backslashes and control characters escaped, UTF-8 kept");
	is_int(url_render_body("{\"q\": \"{{query}}\", \"id\": \"{{qid}}\", \"n\": {{k}}, \"x\": {}}",
			       "q-7", "a\x01", 3, NULL, &out), 0, "qid and k placeholders");
	is_str(out.buf, "{\"q\": \"a\\u0001\", \"id\": \"q-7\", \"n\": 3, \"x\": {}}", "rendered");
	is_int(url_render_body("{\"q\": {{query}}}", "q-7", "hello", 3, NULL, &out), -1,
	       "a placeholder outside quotes gives invalid JSON and is refused");
	ok(strstr(test_captured(), "put {{query}} inside quotes") != NULL, "with a hint");
	is_int(url_render_body("{\"q\": \"{{text}}\"}", "q-7", "hello", 3, NULL, &out), -1,
	       "an unknown placeholder is refused");
	ok(strstr(test_captured(), "unknown placeholder '{{text}}'") != NULL, "naming it");
	is_int(url_render_body("{\"q\": \"{{query\"}", "q-7", "hello", 3, NULL, &out), -1,
	       "an unclosed placeholder is refused");
	is_int(url_render_body(URL_BODY_DEFAULT_HISTORY, "q-7", "and then?", 3,
			       "[{\"role\":\"user\",\"text\":\"first\"}]", &out), 0,
	       "the history template renders");
	is_str(out.buf, "{\"query\": \"and then?\", \"k\": 3, \"history\": "
	       "[{\"role\":\"user\",\"text\":\"first\"}]}", "{{history}} is the JSON array");
	is_int(url_render_body("{\"h\": {{history}}}", "q-7", "x", 3, NULL, &out), 0,
	       "{{history}} without a history");
	is_str(out.buf, "{\"h\": []}", "is an empty array");
	ok(url_body_has_history(URL_BODY_DEFAULT_HISTORY) && !url_body_has_history(URL_BODY_DEFAULT),
	   "a template says whether it passes the history");
	strbuf_release(&out);
}

static void test_redact(void)
{
	static const char *cases[][2] = {
		{ "http://127.0.0.1:8000/search", "http://127.0.0.1:8000/search" },
		{ "https://user:pw@api.example.com/v1/search?key=abc#top", "https://api.example.com/v1/search" },
		{ "https://a@b:c@host/x", "https://host/x" },
		{ "https://host?token=1", "https://host" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *r = url_redact(cases[i][0]);
		is_str(r, cases[i][1], cases[i][0]);
		free(r);
	}
}

static void test_run_format(void)
{
	struct job job;
	struct strbuf out = STRBUF_INIT, why = STRBUF_INIT;
	struct run_meta meta = { .set_name = "demo", .version = "v2", .digest = "sha256:00",
				  .retriever = "bm25 k1=0.9 b=0.4" };
	char *nl;

	setenv("EVALSET_NOW", "2026-01-02T03:04:05Z", 1);
	setup(&job, 10);
	accept(&job, 0, "{\"results\": [{\"id\": \"a\", \"score\": 1.5}, {\"id\": \"b\", \"score\": 0.25}]}", &why);
	accept(&job, 2, "{\"results\": [\"c\", {\"id\": \"d\", \"score\": 1}]}", &why);
	run_format(&meta, &job, false, &out);
	nl = strchr(out.buf, '\n');
	ok(nl && !strncmp(out.buf, "{\"meta\":{\"evalset_run\":1,\"set\":\"demo\",\"version\":\"v2\","
			  "\"digest\":\"sha256:00\",\"retriever\":\"bm25 k1=0.9 b=0.4\",\"k\":10,"
			  "\"questions\":3,\"answered\":2,\"complete\":false,"
			  "\"created_at\":\"2026-01-02T03:04:05Z\"}}\n", (size_t)(nl - out.buf + 1)),
	   "the meta line names the set and says the run is incomplete");
	ok(strstr(out.buf, "\n{\"qid\":\"q-1\",\"results\":[{\"id\":\"a\",\"score\":1.5},"
			   "{\"id\":\"b\",\"score\":0.25}],\"abstained\":false}\n") != NULL,
	   "a scored answer is written with its scores");
	ok(strstr(out.buf, "\n{\"qid\":\"q-3\",\"results\":[\"c\",\"d\"],\"abstained\":false}\n") != NULL,
	   "an answer with a missing score is written as a list of ids");
	ok(!strstr(out.buf, "q-2"), "an unanswered question is left out");
	ok(!strstr(out.buf, "latency"), "no latency unless asked");

	strbuf_reset(&out);
	job.ans[0].latency_ms = 12.345;
	job.ans[2].latency_ms = 3;
	run_format(&meta, &job, true, &out);
	ok(strstr(out.buf, "\"latency_ms\":{\"p50\":3,\"p95\":12.35}") != NULL, "meta carries p50 and p95");
	ok(strstr(out.buf, "\"abstained\":false,\"latency_ms\":12.35}") != NULL, "each line its latency");
	job_release(&job);
	strbuf_release(&out);
	strbuf_release(&why);
}

int main(void)
{
	test_accept();
	test_latency();
	test_body();
	test_redact();
	test_run_format();
	return test_done();
}
