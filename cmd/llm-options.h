/*
 * llm-options: the LLM endpoint options that generate and judge share
 * (--model, --base-url, --api-key-env, --concurrency, --max-requests,
 * --max-attempts, --temperature, --deadline, --request-deadline,
 * --stall-timeout), their project-config defaults and the key
 * lookup; and the pieces of running the job both print alike (the progress
 * line, the usage line, the exit code of the job's result).
 *
 * Usage: put OPT_LLM_ENDPOINT(&lo) in the option table, parse the options,
 * then call llm_cli_finish() (config and environment fill what no flag set,
 * ranges are checked) and llm_cli_apply() to fill a struct llm_options.
 * Precedence, as everywhere: flag > environment > config > built-in. The
 * config is read only after option parsing, so -h works with a broken
 * evalset.yaml.
 *
 * Ownership: strings are borrowed (argv, the environment, the config), valid
 * for the life of the command.
 */
#ifndef EVALSET_LLM_OPTIONS_H
#define EVALSET_LLM_OPTIONS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "parse-options.h"

struct llm_options;
struct llm_usage;
struct llmbatch_options;
struct llmbatch_stats;

#define LLM_CLI_UNSET LONG_MIN   /* a long option no flag gave */

struct llm_cli {
	const char *provider_name, *model, *base_url, *key_env;
	long concurrency, max_requests, max_attempts;
	double temperature;      /* < 0: not sent */
	const char *key;         /* after llm_cli_finish: $key_env, or NULL */
	const char *deadline, *request_deadline, *stall_timeout;  /* durations as given */
	long deadline_ms, request_deadline_ms, stall_s;           /* after llm_cli_finish */
	int provider;            /* after llm_cli_finish: an enum llm_provider */
};
#define LLM_CLI_INIT { NULL, NULL, NULL, NULL, LLM_CLI_UNSET, 0, 6, -1, NULL, NULL, NULL, NULL, 0, 0, 0, 0 }

#define OPT_LLM_ENDPOINT(o) \
	OPT_STRING(0, "provider", &(o)->provider_name, "p", \
		   "the protocol: openai (and compatible servers) or anthropic (default $EVALSET_PROVIDER, else config 'provider', else openai)"), \
	OPT_STRING(0, "model", &(o)->model, "m", "the model (default $EVALSET_MODEL, else config 'model')"), \
	OPT_STRING(0, "base-url", &(o)->base_url, "url", \
		   "the endpoint (default $OPENAI_BASE_URL or $ANTHROPIC_BASE_URL, else config 'base_url', else the provider's)"), \
	OPT_STRING(0, "api-key-env", &(o)->key_env, "var", \
		   "the variable holding the key (default config 'api_key_env', else OPENAI_API_KEY or ANTHROPIC_API_KEY)"), \
	OPT_DOUBLE(0, "temperature", &(o)->temperature, "t", "sampling temperature 0..2 (default: not sent)"), \
	OPT_INT(0, "concurrency", &(o)->concurrency, "n", "requests in flight (default 16)"), \
	OPT_INT(0, "max-requests", &(o)->max_requests, "n", "send at most n HTTP requests (retries count)"), \
	OPT_INT(0, "max-attempts", &(o)->max_attempts, "n", "attempts per request before giving up (default 6)"), \
	OPT_STRING(0, "deadline", &(o)->deadline, "duration", \
		   "stop the job after this long (90s, 30m, 2h; default none); resumable"), \
	OPT_STRING(0, "request-deadline", &(o)->request_deadline, "duration", \
		   "give up one request after this long, retries included (default 10m; 0: none)"), \
	OPT_STRING(0, "stall-timeout", &(o)->stall_timeout, "duration", \
		   "abort an attempt that receives nothing this long (default 2m; 0: never)")

/* The batch options of generate and judge (--batch and its limits). */
struct llm_batch_cli {
	int batch;
	long max_requests, max_bytes;
	double poll, max_cost;
	const char *price;       /* "IN/OUT" dollars per million tokens */
};
#define LLM_BATCH_CLI_INIT { 0, 0, 0, 30, 0, NULL }

#define OPT_LLM_BATCH(b) \
	OPT_BOOL(0, "batch", &(b)->batch, "send through the provider's batch API: submit, poll, merge (resumable)"), \
	OPT_INT(0, "batch-max-requests", &(b)->max_requests, "n", "requests per batch file (default 20000, at most the provider's)"), \
	OPT_INT(0, "batch-max-bytes", &(b)->max_bytes, "n", "bytes per batch file (default 100 MB, at most the provider's)"), \
	OPT_DOUBLE(0, "batch-poll", &(b)->poll, "s", "first wait between polls in seconds, then x1.5 up to 10 min (default 30)"), \
	OPT_STRING(0, "price", &(b)->price, "in/out", "dollars per million prompt/completion tokens, for the cost estimate"), \
	OPT_DOUBLE(0, "max-cost", &(b)->max_cost, "usd", "refuse to submit a batch whose estimated cost is higher (needs --price)")

/*
 * Check the batch options 'b' and fill 'bo' from them, with the batch
 * journal 'journal' of job 'job' ("generate", "judge"). Return 0, or -1
 * (reported: a bad --price, --max-cost without --price, a limit out of range).
 */
int llm_cli_batch_options(const struct llm_batch_cli *b, const char *journal, const char *job,
			  struct llmbatch_options *bo);

/*
 * Return the file 'name'.'ext' of a job in the set directory 'dir':
 * DIR/.evalset/NAME.EXT, or DIR/.evalset/NAME.I-of-N.EXT for shard I of N
 * (N > 1), so that concurrent shards never share a journal or a lock.
 * Caller frees.
 */
char *llm_cli_shard_file(const char *dir, const char *name, const char *ext, long shard_i, long shard_n);

/*
 * Return the batch journal of job 'job' in the set directory 'dir':
 * .evalset/JOB-batches.jsonl, or JOB-batches.I-of-N.jsonl for shard I of N
 * (N > 1), so that concurrent jobs and shards never share one. Caller frees.
 */
char *llm_cli_batch_journal(const char *dir, const char *job, long shard_i, long shard_n);

/* Print the estimate of a batch job (a dry pass's 'st') on stdout. */
void llm_cli_print_estimate(const struct llmbatch_stats *st);

/* Print the summary line of a batch job's 'st' on stdout. */
void llm_cli_print_batch(const struct llmbatch_stats *st);
/* Print what --batch-in matched: "batch: N lines matched, N not in this plan, N errors ...". */
void llm_cli_print_batch_in(size_t matched, size_t unmatched, size_t errors);

/*
 * Fill what no flag gave from the environment, the project config and the
 * built-ins; check the ranges (a bad one prints the usage and exits 2); look
 * up the key. With 'need_key' (requests will be sent), a missing key for
 * api.openai.com is an error. Return 0, or -1 (reported: no model, a bad
 * base URL, a missing key, a broken config).
 */
int llm_cli_finish(struct llm_cli *o, bool need_key, const char *const *usage,
		   const struct option *opts);

/*
 * Parse --shard "I/N" (1 <= I <= N <= 1000000) into 'i' and 'n'. Return 0,
 * or -1 after saying what is wrong (the caller prints the usage).
 */
int llm_cli_parse_shard(const char *s, long *i, long *n);

/* Copy the endpoint, key, model, temperature and HTTP limits of 'o' into 'lo'
 * (whose http options are reset to HTTP_OPTIONS_INIT first, with 'stop'
 * polling interrupted(): the caller calls handle_interrupts()). */
void llm_cli_apply(const struct llm_cli *o, struct llm_options *lo);

/* The progress line of a job on stderr; init with { isatty(2), 0 }. */
struct llm_progress {
	int tty;
	double last_line;   /* 'elapsed' of the last line drawn */
};

/*
 * Show the progress line formatted from 'fmt' for a job 'elapsed' seconds
 * in, rewritten in place, when stderr is a terminal; nothing otherwise
 * (a log gets the summary only) or under --quiet.
 */
__attribute__((format(printf, 3, 4)))
void llm_progress_show(struct llm_progress *p, double elapsed, const char *fmt, ...);

/*
 * Show "WHAT: DONE/TOTAL NOUN, RATE/s, ETA Ns, R retries, F failed" for a
 * job 'elapsed' seconds in (the rate over the whole job; ETA 0 until
 * something is done), as llm_progress_show.
 */
void llm_progress_count(struct llm_progress *p, const char *what, const char *noun, size_t done,
			size_t total, double elapsed, unsigned long retries, size_t failed);
/*
 * Show the wait on provider batches 'b': "WHAT: batch: F/N requests
 * finished, RATE/s, ETA Ns, next poll in Ns" (the provider's counts at the
 * last poll; before any is finished, how long it has waited instead of a
 * rate), as llm_progress_show.
 */
struct llmbatch_stats;
void llm_progress_batch(struct llm_progress *p, const char *what, const struct llmbatch_stats *b);

/* Blank the last progress line, 'width' columns, when on a terminal. */
void llm_progress_clear(const struct llm_progress *p, int width);

/* Print the "usage: ..." summary line of a job's HTTP use on stdout. */
void llm_cli_print_usage(const struct llm_usage *u, double elapsed);

/* The result of a job, for llm_cli_exit_code. */
struct llm_cli_outcome {
	int rc;                    /* what the job returned */
	size_t lost;               /* requests that failed after retries */
	size_t not_sent;           /* with HTTP_BUDGET_SPENT: what was left */
	const char *not_sent_what; /* e.g. "requests not sent" */
	size_t kept;               /* with ERR_INTERRUPTED or a deadline: results kept */
	const char *kept_what;     /* e.g. "answered requests" */
};

/*
 * Return the exit code of a job's outcome 'r', reporting what the user
 * should know: lost requests (EXIT_REMOTE), a spent --max-requests of 'o'
 * (a warning, EXIT_OK), its --deadline passed (EXIT_REMOTE), an
 * interruption (EXIT_INTERRUPTED);
 * ERR_REMOTE gives EXIT_REMOTE, any other failure EXIT_BAD_INPUT.
 */
int llm_cli_exit_code(const struct llm_cli_outcome *r, const struct llm_cli *o);

#endif
