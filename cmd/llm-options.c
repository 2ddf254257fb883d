/*
 * llm-options: the endpoint options of generate and judge, and the job
 * output they share (see llm-options.h). Invariant: after llm_cli_finish every field is set and in
 * range; the key itself is only ever read from the environment.
 */
#include "builtin.h"
#include "llm-options.h"
#include "base/config.h"
#include "base/fsutil.h"
#include "base/http.h"
#include "llm/llm.h"
#include "llm/llmbatch.h"
#include "base/strbuf.h"
#include "base/url.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LLM_MAX_DURATION_MS LONG_CAP(30LL * 86400 * 1000)  /* 24.8 days on 32 bits */

/* Stop the job once SIGINT or SIGTERM arrived (handle_interrupts). */
static int stop_on_signal(void *ctx)
{
	(void)ctx;
	return interrupted();
}

int llm_cli_finish(struct llm_cli *o, bool need_key, const char *const *usage,
		   const struct option *opts)
{
	struct config *cfg;
	struct strbuf why = STRBUF_INIT;
	bool anthropic;

	if (config_use(&cfg) < 0)
		return -1;
	if (o->concurrency == LLM_CLI_UNSET &&
	    config_get_long(cfg, "concurrency", "EVALSET_CONCURRENCY", 16, 1, 1024, &o->concurrency, NULL) < 0)
		return -1;
	if (o->concurrency < 1 || o->concurrency > 1024 || o->max_requests < 0 ||
	    o->max_attempts < 1 || o->max_attempts > 100) {
		error("out of range: --concurrency 1..1024, --max-requests >= 0, --max-attempts 1..100");
		usage_with_options(usage, opts);
	}
	if ((o->deadline && (parse_duration_ms(o->deadline, LLM_MAX_DURATION_MS, &o->deadline_ms) ||
			     !o->deadline_ms)) ||
	    (o->request_deadline &&
	     parse_duration_ms(o->request_deadline, LLM_MAX_DURATION_MS, &o->request_deadline_ms)) ||
	    (o->stall_timeout && parse_duration_ms(o->stall_timeout, LLM_MAX_DURATION_MS, &o->stall_s))) {
		error("bad duration: --deadline, --request-deadline and --stall-timeout take seconds or "
		      "a number with ms, s, m or h (up to 30 days; --deadline above 0)");
		usage_with_options(usage, opts);
	}
	/* without the flag: $EVALSET_..., else the config's key, else the built-in */
	if ((!o->deadline &&
	     config_get_duration(cfg, "deadline", "EVALSET_DEADLINE", &o->deadline, &o->deadline_ms, NULL) < 0) ||
	    (!o->request_deadline &&
	     config_get_duration(cfg, "request_deadline", "EVALSET_REQUEST_DEADLINE", &o->request_deadline,
				 &o->request_deadline_ms, NULL) < 0) ||
	    (!o->stall_timeout &&
	     config_get_duration(cfg, "stall_timeout", "EVALSET_STALL_TIMEOUT", &o->stall_timeout, &o->stall_s,
				 NULL) < 0))
		return -1;
	o->stall_s = o->stall_s ? (o->stall_s + 999) / 1000 : 0;   /* whole seconds, rounded up */
	if (o->temperature != -1 && !(o->temperature >= 0 && o->temperature <= 2)) {
		error("out of range: --temperature 0..2");
		usage_with_options(usage, opts);
	}
	if (!o->provider_name)
		o->provider_name = config_get_string(cfg, "provider", "EVALSET_PROVIDER", "openai", NULL);
	{
		enum llm_provider p;
		if (llm_provider_parse(o->provider_name, &p) < 0)
			return error("unknown provider '%s': expected openai or anthropic", o->provider_name);
		o->provider = (int)p;
	}
	anthropic = o->provider == LLM_ANTHROPIC;
	if (anthropic && o->temperature > 1)
		return error("out of range: --temperature 0..1 for anthropic");
	if (!o->key_env)
		o->key_env = config_get_string(cfg, "api_key_env", NULL,
					       anthropic ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY", NULL);
	if (!o->model)
		o->model = config_get_string(cfg, "model", "EVALSET_MODEL", NULL, NULL);
	if (!o->model || !*o->model)
		return error("no model: give --model or set EVALSET_MODEL");
	if (!o->base_url)
		o->base_url = config_get_string(cfg, "base_url", anthropic ? "ANTHROPIC_BASE_URL" : "OPENAI_BASE_URL",
						NULL, NULL);
	if (!o->base_url || !*o->base_url)
		o->base_url = anthropic ? "https://api.anthropic.com/v1" : "https://api.openai.com/v1";
	if (url_check(o->base_url, &why) < 0) {
		error("bad --base-url '%s': %s", o->base_url, why.buf);
		strbuf_release(&why);
		return -1;
	}
	o->key = getenv(o->key_env);
	if (o->key && !*o->key)
		o->key = NULL;
	if (!o->key && need_key && (url_host_in(o->base_url, "api.openai.com") ||
				    url_host_in(o->base_url, "api.anthropic.com")))
		return error("no API key: set %s (or name another variable with --api-key-env)", o->key_env);
	return 0;
}

int llm_cli_parse_shard(const char *s, long *i, long *n)
{
	const char *slash = strchr(s, '/');
	char *left = slash ? xstrndup(s, (size_t)(slash - s)) : NULL;
	int rc = !left || parse_long(left, 1, 1000000, i) || parse_long(slash + 1, 1, 1000000, n) || *i > *n;

	free(left);
	if (rc)
		return error("bad --shard '%s': expected I/N with 1 <= I <= N", s);
	return 0;
}

void llm_cli_apply(const struct llm_cli *o, struct llm_options *lo)
{
	lo->provider = (enum llm_provider)o->provider;
	lo->base_url = o->base_url;
	lo->api_key = o->key;
	lo->api_key_env = o->key_env;
	lo->model = o->model;
	lo->temperature = o->temperature;
	lo->http = (struct http_options)HTTP_OPTIONS_INIT;
	lo->http.concurrency = (int)o->concurrency;
	lo->http.max_requests = o->max_requests;
	lo->http.max_attempts = (int)o->max_attempts;
	lo->http.stop = stop_on_signal;
	lo->http.deadline_ms = o->deadline_ms;
	lo->http.request_deadline_ms = o->request_deadline_ms;
	lo->http.stall_s = o->stall_s;
}

void llm_progress_show(struct llm_progress *p, double elapsed, const char *fmt, ...)
{
	struct strbuf line = STRBUF_INIT;
	va_list ap;

	/* on a terminal only, as every progress line (docs/design.md) */
	if (is_quiet() || !p->tty)
		return;
	p->last_line = elapsed;
	va_start(ap, fmt);
	strbuf_vaddf(&line, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\r%s   ", line.buf);
	fflush(stderr);
	strbuf_release(&line);
}

void llm_progress_count(struct llm_progress *p, const char *what, const char *noun, size_t done,
			size_t total, double elapsed, unsigned long retries, size_t failed)
{
	double rate = elapsed > 0 ? (double)done / elapsed : 0;
	double eta = rate > 0 && total > done ? (double)(total - done) / rate : 0;

	llm_progress_show(p, elapsed, "%s: %zu/%zu %s, %.1f/s, ETA %.0fs, %lu retries, %zu failed", what,
			  done, total, noun, rate, eta, retries, failed);
}

void llm_progress_batch(struct llm_progress *p, const char *what, const struct llmbatch_stats *b)
{
	struct strbuf next = STRBUF_INIT;

	if (b->next_poll > 0)
		strbuf_addf(&next, "next poll in %.0fs", b->next_poll);
	else
		strbuf_addstr(&next, "polling");
	if (b->finished && b->waited > 0) {
		double rate = (double)b->finished / b->waited;
		double eta = b->waiting_for > b->finished ? (double)(b->waiting_for - b->finished) / rate : 0;

		llm_progress_show(p, b->waited, "%s: batch: %zu/%zu requests finished, %.1f/s, ETA %.0fs, %s",
				  what, b->finished, b->waiting_for, rate, eta, next.buf);
	} else {
		llm_progress_show(p, b->waited, "%s: batch: %zu/%zu requests finished, waiting %.0fs, %s",
				  what, b->finished, b->waiting_for, b->waited, next.buf);
	}
	strbuf_release(&next);
}

void llm_progress_clear(const struct llm_progress *p, int width)
{
	if (p->tty && !is_quiet())
		fprintf(stderr, "\r%*s\r", width, "");
}

void llm_cli_print_usage(const struct llm_usage *u, double elapsed)
{
	printf("usage: %lu HTTP requests, %lu retries, %lu prompt tokens, %lu completion tokens, %.1fs",
	       u->requests, u->retries, u->prompt_tokens, u->completion_tokens, elapsed);
	if (u->timed_out)
		printf(", %lu attempts timed out or stalled", u->timed_out);
	if (u->past_deadline)
		printf(", %lu requests given up at --request-deadline", u->past_deadline);
	printf("\n");
}

int llm_cli_exit_code(const struct llm_cli_outcome *r, const struct llm_cli *o)
{
	switch (r->rc) {
	case 0:
		if (r->lost) {
			error("%zu requests failed after retries; run the same command again to retry them",
			      r->lost);
			return EXIT_REMOTE;
		}
		return EXIT_OK;
	case HTTP_BUDGET_SPENT:
		warning("--max-requests %ld spent; %zu %s (run again to continue)", o->max_requests,
			r->not_sent, r->not_sent_what);
		return EXIT_OK;
	case HTTP_DEADLINE_PASSED:
		error("stopped at --deadline %s: %zu %s are kept, %zu %s; run the same command "
		      "to resume", o->deadline, r->kept, r->kept_what, r->not_sent, r->not_sent_what);
		return EXIT_REMOTE;
	case ERR_REMOTE:
		return EXIT_REMOTE;
	case ERR_INTERRUPTED:
		error("interrupted; %zu %s are kept, run the same command to resume", r->kept,
		      r->kept_what);
		return EXIT_INTERRUPTED;
	default:
		return EXIT_BAD_INPUT;
	}
}

int llm_cli_batch_options(const struct llm_batch_cli *b, const char *journal, const char *job,
			  struct llmbatch_options *bo)
{
	memset(bo, 0, sizeof(*bo));
	if (b->max_requests < 0 || b->max_bytes < 0 || !(b->poll > 0 && b->poll <= 3600) || b->max_cost < 0)
		return error("out of range: --batch-max-requests >= 1, --batch-max-bytes >= 1, --batch-poll in (0, 3600], "
			     "--max-cost >= 0");
	if (b->price) {
		char *end;
		bo->price_in = strtod(b->price, &end);
		if (end == b->price || *end != '/' || !(bo->price_in >= 0) ||
		    (bo->price_out = strtod(end + 1, &end), *end) || !(bo->price_out >= 0))
			return error("bad --price '%s': expected IN/OUT, dollars per million tokens (e.g. 0.075/0.3)",
				     b->price);
	}
	if (b->max_cost > 0 && !b->price)
		return error("--max-cost needs --price IN/OUT to estimate the cost");
	bo->journal_path = journal;
	bo->job = job;
	bo->max_requests = b->max_requests;
	bo->max_bytes = b->max_bytes;
	bo->poll_s = b->poll;
	bo->poll_max_s = 600;
	bo->rounds = 2;
	bo->max_cost = b->max_cost;
	return 0;
}

char *llm_cli_shard_file(const char *dir, const char *name, const char *ext, long shard_i, long shard_n)
{
	char *file = shard_n > 1 ? xstrfmt(".evalset/%s.%ld-of-%ld.%s", name, shard_i, shard_n, ext)
				 : xstrfmt(".evalset/%s.%s", name, ext);
	char *path = path_join(dir, file);

	free(file);
	return path;
}

char *llm_cli_batch_journal(const char *dir, const char *job, long shard_i, long shard_n)
{
	char *name = xstrfmt("%s-batches", job);
	char *path = llm_cli_shard_file(dir, name, "jsonl", shard_i, shard_n);

	free(name);
	return path;
}

void llm_cli_print_estimate(const struct llmbatch_stats *st)
{
	printf("batch estimate: %zu requests to submit", st->to_submit);
	if (st->skipped)
		printf(" (%zu more already in %zu pending batches, not submitted again)", st->skipped, st->resumed);
	printf(", about %ld prompt tokens, at most %ld completion tokens", st->est_prompt_tokens,
	       st->est_completion_tokens);
	if (st->est_cost > 0)
		printf(", at most about $%.2f", st->est_cost);
	printf("\n");
}

void llm_cli_print_batch(const struct llmbatch_stats *st)
{
	printf("batch: %zu created (%zu files), %zu resumed", st->created, st->files, st->resumed);
	if (st->found)
		printf(" (%zu found at the provider: created by a run that was killed before journaling them)",
		       st->found);
	printf(", %zu requests submitted, %zu not submitted again, %zu results, %zu failed, ", st->submitted,
	       st->skipped, st->succeeded, st->failed);
	if (st->unusable)
		printf("%zu unusable, ", st->unusable);
	printf("%zu retried in a follow-up, %zu polls\n", st->retried, st->polls);
	if (st->pending)
		printf("batch: %zu batches still pending: run the same command to go on waiting for them\n",
		       st->pending);
}

void llm_cli_print_batch_in(size_t matched, size_t unmatched, size_t errors)
{
	printf("batch: %zu lines matched, %zu not in this plan, %zu errors (rerun with a new --batch-out for them)\n",
	       matched, unmatched, errors);
}
