/*
 * retriever: asking a retriever every question of a set, and writing what it
 * answered as a JSONL run (docs/runs.md).
 *
 * Four kinds of retriever answer a job (a list of questions and a depth k):
 *  - the built-in BM25 index (core/retrieve/bm25.h);
 *  - a command, started once, speaking one JSON line per question each way:
 *      request  {"qid": "q-0001", "query": "...", "k": 100}
 *      reply    {"qid": "q-0001", "results": [{"id": "c-1", "score": 3.2}, ...],
 *                "abstained": false}
 *    Requests are sent one at a time; each reply must arrive within the
 *    per-question timeout. A crash, a hang, a reply that is not a JSON
 *    object, names another question or lists a document twice stops the job
 *    with ERR_REMOTE after an error naming the question; the answers already
 *    received are kept. The command runs in its own process group and is
 *    killed (TERM, then KILL) when the job stops early;
 *  - answers computed elsewhere (the Python package's retriever function),
 *    read from a JSONL file of replies, checked as a command's replies;
 *  - an HTTP endpoint: one POST per question through core/base/http.h (requests
 *    in flight, retries of 408/409/429/5xx and transport failures), a JSON
 *    body from a template, results found in the reply by a dotted path. A
 *    status other than 2xx after the retries, or a body that is not JSON or
 *    lacks the results, stops the job with ERR_REMOTE naming the question.
 *
 * A result is {"id": "...", "score": N} ("score" optional) or a bare id
 * string. More than k results are cut to the first k (list order is the
 * ranking; scores are kept as given, never re-sorted).
 *
 * A question already answered when a retriever starts (loaded by
 * run_resume) is not asked again.
 *
 * Code: retriever.c (jobs, reply checks, BM25, the run file),
 * retriever-cmd.c (the command), retriever-url.c (the endpoint),
 * retriever-answers.c (answers from a file).
 *
 * Ownership: a struct job owns its answers (job_release); the questions'
 * ids and texts are borrowed from the caller and must outlive the job.
 */
#ifndef EVALSET_RETRIEVER_H
#define EVALSET_RETRIEVER_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"

struct bm25;
struct cJSON;

struct hit {
	char *id;
	double score;   /* NAN when the retriever gave none */
};

struct answer {
	struct hit *hits;
	size_t nr, alloc;
	bool abstained;
	bool answered;      /* a reply arrived and was accepted */
	double latency_ms;  /* time from request to accepted reply (HTTP: with retries) */
};

struct job {
	const char **qid;     /* borrowed, 'nr' entries */
	const char **query;   /* borrowed, 'nr' entries */
	size_t nr;
	long k;
	struct answer *ans;   /* 'nr' entries, owned */
	int (*stop)(void);    /* optional: non-zero once the user interrupted */
};

/* Prepare 'job' for 'nr' questions at depth 'k'; the caller then points
 * job->qid[i] and job->query[i] at its strings. */
void job_init(struct job *job, size_t nr, long k);
void job_release(struct job *job);
/* Return the number of questions answered. */
size_t job_answered(const struct job *job);
/* Return the 'p' quantile (0..1, nearest rank) of the latencies of the
 * answered questions in milliseconds, or -1 when none was answered. */
double job_latency(const struct job *job, double p);

/*
 * Accept 'results' (the reply's results list; NULL when it has none) and
 * 'abstained' (the reply's "abstained" value, or NULL) as the answer to
 * question 'i'. Return 0, or -1 with the reason appended to 'why' (nothing
 * printed; the answer is then left as it was).
 */
int job_accept(struct job *job, size_t i, const struct cJSON *results,
	       const struct cJSON *abstained, struct strbuf *why);

/* Answer every question from the BM25 index 'ix'. Return 0 or ERR_INTERRUPTED. */
int retrieve_bm25(const struct bm25 *ix, struct job *job);

/*
 * Answer every question through 'command' (run by /bin/sh -c with the
 * environment 'env', a NULL-terminated list of "NAME=value"), allowing
 * 'timeout_ms' per question. Return 0, ERR_REMOTE (reported, naming the
 * question) or ERR_INTERRUPTED.
 */
int retrieve_cmd(const char *command, char *const *env, long timeout_ms, struct job *job);

/*
 * Answer every question from the JSONL file 'path' of answers computed
 * elsewhere: one line per question, {"qid", "results", "abstained",
 * "latency_ms"} checked as a command's reply, or {"qid", "error"} for a
 * question the retriever failed on. Return 0; ERR_REMOTE (reported) when a
 * question failed, was refused by the checks or has no line, keeping the
 * other answers; or ERR_INPUT (reported as FILE:LINE) for a line that is not
 * an answer, names a question the job lacks or answers one twice.
 */
int retrieve_answers(const char *path, struct job *job);

/*
 * Return the environment a retriever command gets: only PATH, HOME, USER,
 * LOGNAME, SHELL, LANG, LANGUAGE, LC_*, TZ and TMPDIR of ours, plus the
 * variables named in 'pass' (a name, or a prefix ending in '*'), so API keys
 * and tokens stay with evalset unless passed on purpose. The list
 * (NULL-terminated) is the caller's to free(); its strings are environ's.
 */
char **retrieve_cmd_env(const char *const *pass, size_t nr_pass);

struct url_retriever {
	const char *url;
	const char *const *headers;  /* NULL-terminated "Name: value" lines, or NULL */
	const char *body;            /* template: {{query}} (JSON-escaped, no quotes), {{k}}, {{qid}} */
	const char *results_path;    /* dotted path of the results array, e.g. "data.hits" */
	int concurrency;
	long timeout_ms;             /* per attempt */
	int max_attempts;
};
#define URL_BODY_DEFAULT "{\"query\": \"{{query}}\", \"k\": {{k}}}"

/*
 * Fill the template 'tmpl' for one question into 'out' (replacing it).
 * Return 0, or -1 (reported) when the result is not valid JSON.
 */
int url_render_body(const char *tmpl, const char *qid, const char *query, long k,
		    struct strbuf *out);
/*
 * Answer every question with one POST each to 'u->url'. Return 0, ERR_REMOTE
 * (reported, naming the question) or ERR_INTERRUPTED.
 */
int retrieve_url(const struct url_retriever *u, struct job *job);

/* Return 'url' without user info, query and fragment (safe to write down); caller frees. */
char *url_redact(const char *url);

struct run_meta {
	const char *set_name;
	const char *version;     /* NULL: working copy */
	const char *digest;
	const char *content_digest; /* questions only (set_content_digest); may be NULL */
	const char *questions_digest; /* what the run is bound to (set_questions_digest); may be NULL */
	const char *retriever;   /* one-line description */
	struct cJSON *params;    /* retriever parameters (object), borrowed; may be NULL */
	struct cJSON *corpus;    /* the corpus searched ({path, fingerprint, chunks}),
				  * borrowed; NULL when not known */
};

/*
 * Append the run of 'job' as JSONL to 'out': the meta line, then one line
 * per answered question in job order. Unanswered questions are left out
 * (a scorer counts them missing) and the meta line says "complete": false.
 * With 'with_latency', each line carries "latency_ms" and the meta line
 * its p50 and p95.
 */
void run_format(const struct run_meta *meta, const struct job *job, bool with_latency,
		struct strbuf *out);

/*
 * Load the answers of the run file 'path' (written by run_format) into
 * 'job', whose retrievers then ask only the other questions. The file's meta
 * line must name the same set digest, retriever description and k as
 * 'meta' and 'job'. Return the number of answers loaded, or -1 (reported,
 * naming FILE:LINE) when the file cannot be resumed from.
 */
long run_resume(struct job *job, const struct run_meta *meta, const char *path);

/* Shared by retriever*.c: a monotonic clock in milliseconds, and up to 60
 * bytes of 'len' bytes of 's' appended to 'out' with control bytes as '?'. */
double retriever_now_ms(void);
void retriever_excerpt(struct strbuf *out, const char *s, size_t len);

#endif
