/*
 * llmbatch: a job's requests through a provider's batch API, end to end
 * (generate --batch, judge --batch; docs/scale.md): split into files at the
 * provider's limits, upload and create (OpenAI and Azure OpenAI: POST
 * /files then /batches; Anthropic: POST /messages/batches), poll with
 * backoff, download, hand every result line to the caller, and send the
 * requests that failed (errored, expired, cancelled) again in a follow-up
 * batch.
 *
 * Resuming: before a batch is created, its intent (a new unique tag and
 * the custom ids it will carry) is appended (fsync'ed) to a batch journal;
 * the batch carries the tag as metadata "evalset_tag" (OpenAI, Azure);
 * once created, its id is appended with the same tag, and its end after
 * its results were handed over. A run finds the batches of its job (same
 * 'job', provider and endpoint) that were created and never ended, polls
 * them instead of submitting their requests again, and submits only the
 * requests no such batch carries. An intent without a "created" record (a
 * crash between the provider accepting the batch and the journal write) is
 * looked up at the provider first: by its tag in the listed batches
 * (OpenAI, Azure) or, as Anthropic's message batches keep no metadata, by
 * creation time, size and custom ids; found, it is waited for; not found,
 * its requests are submitted. A rerun after kill -9 pays nothing twice.
 *
 * The request bodies are the live path's (llm_request_body) and each result
 * body is what the live path gets (a Chat Completions object or an
 * Anthropic message), for the caller to read with llm_accept; the custom id
 * is the job's journal key, so a batch reply leaves the same journal record
 * as a live one.
 *
 * Ownership: everything is borrowed for the call.
 */
#ifndef EVALSET_LLMBATCH_H
#define EVALSET_LLMBATCH_H

#include <stdbool.h>
#include <stddef.h>

struct llm;
struct cJSON;
struct strbuf;
struct llmbatch_stats;

/* Per provider, the most a file (OpenAI, Azure) or a batch (Anthropic) may hold. */
#define LLMBATCH_OPENAI_MAX_REQUESTS 50000L
#define LLMBATCH_AZURE_MAX_REQUESTS 100000L
#define LLMBATCH_ANTHROPIC_MAX_REQUESTS 100000L
#define LLMBATCH_OPENAI_MAX_BYTES (200L << 20)
#define LLMBATCH_ANTHROPIC_MAX_BYTES (256L << 20)
/* evalset's own defaults, below every provider's limit, so one file's
 * results stay well under the HTTP client's reply limit */
#define LLMBATCH_DEFAULT_REQUESTS 20000L
#define LLMBATCH_DEFAULT_BYTES (100L << 20)

struct llmbatch_request {
	const char *custom_id;        /* the job's journal key */
	const char *body;             /* the request body (llm_request_body) */
};

/*
 * One result: 'body' (of 'len' bytes) is the provider's reply to the
 * request, or NULL when the request failed in the batch ('why' says how:
 * an error line, expired, cancelled); 'final' is true when no follow-up
 * batch will ask it again. Return 0, or, for a reply the caller cannot use
 * and did not record because 'final' is false, LLMBATCH_AGAIN (not JSON,
 * the wrong shape) or LLMBATCH_LONGER (truncated): the request is asked
 * again in the follow-up batch like a failed one, with twice its
 * max_tokens for LLMBATCH_LONGER (as the live path asks such a request
 * once more).
 */
#define LLMBATCH_AGAIN 1
#define LLMBATCH_LONGER 2
typedef int (*llmbatch_result_fn)(const char *custom_id, const char *body, size_t len,
				  const char *why, bool final, void *ctx);

struct llmbatch_options {
	const char *journal_path;     /* the batch journal, e.g. .evalset/generate-batches.jsonl */
	const char *job;              /* "generate" or "judge": other jobs' batches are left alone */
	long max_requests;            /* per file; 0: LLMBATCH_DEFAULT_REQUESTS (capped at the provider's) */
	long max_bytes;               /* per file; 0: LLMBATCH_DEFAULT_BYTES (capped at the provider's) */
	double poll_s;                /* first wait between polls; 0: 30 */
	double poll_max_s;            /* longest wait (backoff x1.5); 0: 600 */
	int rounds;                   /* follow-up batches for failed requests; < 0: 0, default 2 given by caller */
	double price_in, price_out;   /* per million tokens, for the estimate; 0: unknown */
	double max_cost;              /* > 0: refuse to submit when the estimate is higher */
	bool estimate_only;           /* estimate and stop: submit nothing, poll nothing */
	long deadline_ms;             /* > 0: the whole run (submitting, polling, downloading) stops after this long */
	llmbatch_result_fn result;    /* required */
	int (*stop)(void *ctx);       /* polled while waiting; non-zero: interrupted */
	void (*progress)(const struct llmbatch_stats *st, void *ctx);
	void *ctx;
};

struct llmbatch_stats {
	size_t resumed;               /* batches of an earlier run polled again (found ones included) */
	size_t found;                 /* of those, batches an interrupted run created but never journaled, found at the provider */
	size_t created;               /* batches created by this run (follow-ups included) */
	size_t files;                 /* files uploaded (OpenAI, Azure) */
	size_t submitted;             /* requests sent in created batches */
	size_t skipped;               /* requests carried by a resumed batch: not sent again */
	size_t succeeded, failed;     /* result lines */
	size_t retried;               /* failed requests sent again in a follow-up batch (unusable ones included) */
	size_t unusable;              /* replies the caller could not use, asked again in a follow-up */
	size_t polls;
	size_t to_submit;             /* requests no pending batch carries (the first round) */
	long est_prompt_tokens;       /* of the requests to submit: about 4 bytes a token */
	long est_completion_tokens;   /* at most: their max_tokens */
	double est_cost;              /* with prices; 0 without */
	size_t pending;               /* batches not ended yet (the wait was interrupted) */
	/* for a progress line while the batches run (set at each poll and each
	 * second of a wait, when 'progress' is called) */
	size_t waiting_for;           /* requests in the batches being waited on */
	size_t finished;              /* of those, finished at the provider (its counts at the last poll) */
	double waited;                /* seconds since the first poll of this run */
	double next_poll;             /* seconds until the next poll (0: polling) */
};

/*
 * Run the 'nr' requests 'reqs' of the job of 'l' (its provider, endpoint and
 * key) through the batch API. Return 0; ERR_INPUT (the journal, a budget
 * refusal: reported); ERR_REMOTE (the provider refused, or named its
 * results at another origin than the base URL's: reported, key scrubbed);
 * or ERR_INTERRUPTED or HTTP_DEADLINE_PASSED (o->deadline_ms passed:
 * batches stay pending in the journal, the next run resumes them).
 */
int llmbatch_run(struct llm *l, const struct llmbatch_options *o, const struct llmbatch_request *reqs,
		 size_t nr, struct llmbatch_stats *st);

/*
 * Append the batch input line (with its newline) of the request 'body' with
 * 'custom_id' for the job of 'l': OpenAI's {"custom_id", "method", "url",
 * "body"} (url /v1/chat/completions, or /chat/completions for Azure) or
 * Anthropic's {"custom_id", "params"}: what --batch-out writes and what
 * vLLM's offline batch runner reads.
 */
void llmbatch_input_line(const struct llm *l, const char *custom_id, const char *body, struct strbuf *out);

/*
 * Read one line of a batch output, error or results file (OpenAI's
 * {"custom_id", "response": {"status_code", "body"}, "error"} or
 * Anthropic's {"custom_id", "result": {"type", "message" | "error"}}):
 * set '*custom_id' (borrowed from 'line'), '*body' (a new string the caller
 * frees, NULL when the request failed) and '*why' (a new string, when it
 * failed). Return 0, or -1 when the line is not a batch result (no
 * custom_id).
 */
int llmbatch_parse_line(const struct cJSON *line, const char **custom_id, char **body, char **why);

/*
 * Read the batch output, error or results file 'path' (--batch-in) and hand
 * each line's result to 'fn' ('final' true); a negative return of 'fn'
 * stops the reading. A custom id given the same result twice is handed
 * over once. Return 0, or -1 after an error naming FILE:LINE (a line that
 * is not a batch result, or longer than a journal line, or a custom id
 * given two different results), in which case nothing was handed over.
 */
int llmbatch_read_file(const char *path, llmbatch_result_fn fn, void *ctx);

#endif
