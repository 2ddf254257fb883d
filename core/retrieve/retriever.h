/*
 * retriever: asking a retriever every question of a set, and writing what it
 * answered as a JSONL run (docs/runs.md).
 *
 * Four kinds of retriever answer a job (a list of questions and a depth k):
 *  - the built-in BM25 index (core/retrieve/bm25.h);
 *  - a command, started once, speaking one JSON line per question each way:
 *      request  {"qid": "q-0001", "query": "...", "k": 100}
 *               (with the history, also "history": [{"role": "user", "text":
 *               "..."}, ...] and, for a turn of a conversation, "conversation":
 *               {"id": "c-17", "turn": 2})
 *      reply    {"qid": "q-0001", "results": [{"id": "c-1", "score": 3.2}, ...],
 *                "abstained": false}
 *               or, from an agent that searched several times, "calls":
 *               [{"query": "...", "results": [...]}, ...] in call order
 *               instead of "results" (docs/agents.md), written to the run as
 *               given (each call's results cut to k)
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
 * The query form (docs/conversations.md): "turn" asks with the question's
 * text alone; "turn+history" gives each retriever the turns before it too
 * (a command and an endpoint receive them, BM25 adds the terms of each
 * earlier user turn at 'history_weight').
 *
 * A question already answered when a retriever starts (loaded by
 * run_resume) is not asked again.
 *
 * Code: retriever.c (jobs, reply checks, BM25, the run file),
 * retriever-cmd.c (the command), retriever-url.c (the endpoint),
 * retriever-answers.c (answers from a file).
 *
 * Ownership: a struct job owns its answers and its arrays (job_release);
 * the questions, their ids and texts are borrowed from the caller and must
 * outlive the job.
 */
#ifndef EVALSET_RETRIEVER_H
#define EVALSET_RETRIEVER_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"

struct bm25;
struct cJSON;
struct question;

struct hit {
	char *id;
	double score;   /* NAN when the retriever gave none */
};

struct answer {
	struct hit *hits;     /* with calls: their union in call order */
	size_t nr, alloc;
	bool abstained;
	bool answered;      /* a reply arrived and was accepted */
	double latency_ms;  /* time from request to accepted reply (HTTP: with retries) */
	struct cJSON *calls; /* an agent's calls as the run records them, or NULL (owned) */
};

struct job {
	const char **qid;     /* borrowed, 'nr' entries */
	const char **query;   /* borrowed, 'nr' entries */
	size_t nr;
	long k;
	/* 'nr' entries (the array owned, the questions borrowed; NULL: none):
	 * the question each query is, whose conversation and history the
	 * "turn+history" form passes on */
	const struct question **question;
	bool with_history;    /* the query form is "turn+history" */
	double history_weight;  /* BM25: weight of an earlier user turn's terms */
	struct answer *ans;   /* 'nr' entries, owned */
	int (*stop)(void);    /* optional: non-zero once the user interrupted */
};

/* Prepare 'job' for 'nr' questions at depth 'k'; the caller then points
 * job->qid[i] and job->query[i] at its strings (and job->question[i] at
 * its question). The query form is "turn" until the caller sets
 * 'with_history'. */
void job_init(struct job *job, size_t nr, long k);
#define QUERY_HISTORY_WEIGHT 0.3  /* BM25's default weight of an earlier user turn */
/* Return the query form of 'job': "turn+history" or "turn". */
const char *job_query_form(const struct job *job);
/* Return the history question 'i' is asked with: a JSON array of {role,
 * text} (empty for a first turn or the "turn" form); caller frees. */
struct cJSON *job_history_json(const struct job *job, size_t i);
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

/*
 * Accept the reply object 'reply' to question 'i': its "calls" (a
 * non-empty list of {"query", "results"}, each results list checked as
 * job_accept checks one and cut to k; not together with "results") or
 * else its "results", with its "abstained". Return 0, or -1 with the
 * reason appended to 'why'.
 */
int job_accept_reply(struct job *job, size_t i, const struct cJSON *reply, struct strbuf *why);

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
	const char *body;            /* template: {{query}} (JSON-escaped, no quotes), {{k}}, {{qid}},
				      * {{history}} (a JSON array) */
	const char *results_path;    /* dotted path of the results array, e.g. "data.hits" */
	int concurrency;
	long timeout_ms;             /* per attempt */
	int max_attempts;
};
#define URL_BODY_DEFAULT "{\"query\": \"{{query}}\", \"k\": {{k}}}"
/* The default body for the "turn+history" form. */
#define URL_BODY_DEFAULT_HISTORY "{\"query\": \"{{query}}\", \"k\": {{k}}, \"history\": {{history}}}"

/*
 * Fill the template 'tmpl' for one question into 'out' (replacing it);
 * 'history' is the JSON array {{history}} stands for ("[]" when NULL).
 * Return 0, or -1 (reported) when the result is not valid JSON.
 */
int url_render_body(const char *tmpl, const char *qid, const char *query, long k,
		    const char *history, struct strbuf *out);
/* Return true when the template 'tmpl' uses {{history}}. */
bool url_body_has_history(const char *tmpl);
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
	const char *query_form;  /* "turn" or "turn+history"; NULL: not recorded
				  * (a set without conversations) */
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
 * line must name the same set digest, retriever description, query form and
 * k as 'meta' and 'job'. Return the number of answers loaded, or -1 (reported,
 * naming FILE:LINE) when the file cannot be resumed from.
 */
long run_resume(struct job *job, const struct run_meta *meta, const char *path);

/* Shared by retriever*.c: a monotonic clock in milliseconds, and up to 60
 * bytes of 'len' bytes of 's' appended to 'out' with control bytes as '?'. */
double retriever_now_ms(void);
void retriever_excerpt(struct strbuf *out, const char *s, size_t len);

#endif
