/*
 * llmjob: the job-loop pieces generate and judge share (see llmjob.h).
 * Stateless: each call reads the clock or the caller's objects only (and
 * llmjob_end frees the client it is given).
 */
#include "llm/llmjob.h"

#include <cjson/cJSON.h>
#include <time.h>

void llmjob_options(struct llm_options *lo, const struct llm_options *from, http_stop_fn stop,
		    http_tick_fn tick, void *ctx)
{
	*lo = *from;
	lo->http.stop = stop;
	lo->http.tick = tick;
	lo->http.ctx = ctx;
	if (!lo->model || !*lo->model)
		lo->model = "unset";
	if (!lo->base_url || !*lo->base_url)
		lo->base_url = lo->provider == LLM_ANTHROPIC ? "https://api.anthropic.com/v1" : "https://api.openai.com/v1";
}

int64_t llmjob_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int llmjob_stop(bool abort, const struct http_options *ho)
{
	if (abort)
		return 1;
	return ho->stop ? ho->stop(ho->ctx) : 0;
}

void llmjob_sample(const struct llm *llm, int64_t started_ms, struct llm_usage *usage,
		   double *elapsed)
{
	if (llm)
		llm_get_usage(llm, usage);
	*elapsed = (double)(llmjob_now_ms() - started_ms) / 1000.0;
}

void llmjob_end(struct llm *llm, int64_t started_ms, struct llm_usage *usage, double *elapsed,
		enum llm_mode *mode)
{
	llmjob_sample(llm, started_ms, usage, elapsed);
	if (llm) {
		*mode = llm_current_mode(llm);
		llm_free(llm);
	}
}

void llmjob_add_usage(struct cJSON *rec, const struct llm_result *res)
{
	cJSON *u = cJSON_AddObjectToObject(rec, "usage");

	cJSON_AddNumberToObject(u, "prompt_tokens", (double)res->prompt_tokens);
	cJSON_AddNumberToObject(u, "completion_tokens", (double)res->completion_tokens);
}
