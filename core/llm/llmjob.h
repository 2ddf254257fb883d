/*
 * llmjob: the small pieces of a journaled LLM job that generate and judge
 * run alike: the clock, the stop poll, the usage sample for progress and
 * summaries, and the usage object of a journal record.
 *
 * Nothing here owns memory or state but llmjob_end, which frees the job's
 * client: every function works on what the caller passes, and a NULL 'llm'
 * (a job that never created one) is fine where noted.
 */
#ifndef EVALSET_LLMJOB_H
#define EVALSET_LLMJOB_H

#include <stdbool.h>
#include <stdint.h>

#include "llm/llm.h"

struct cJSON;

/*
 * Set 'lo' to a copy of the caller's options 'from' with the job's 'stop'
 * and 'tick' callbacks (and their 'ctx') in its http options, the model
 * "unset" when none is given and the provider's base URL (OpenAI's or
 * Anthropic's) when none is given. The job sets its schema, validator and 'done' next.
 * Strings stay borrowed from 'from'.
 */
void llmjob_options(struct llm_options *lo, const struct llm_options *from, http_stop_fn stop,
		    http_tick_fn tick, void *ctx);

/* Return a monotonic clock reading in milliseconds. */
int64_t llmjob_now_ms(void);

/*
 * Return 1 when the job must stop: 'abort' (the job's own fatal error) is
 * set, or the caller's http options 'ho' have a stop callback that says so;
 * else 0. For use as the job's http 'stop' callback.
 */
int llmjob_stop(bool abort, const struct http_options *ho);

/*
 * Set 'usage' from 'llm' (left as is when 'llm' is NULL) and 'elapsed' to
 * the seconds since 'started_ms' (an llmjob_now_ms reading).
 */
void llmjob_sample(const struct llm *llm, int64_t started_ms, struct llm_usage *usage,
		   double *elapsed);

/*
 * End a job's client 'llm': take the last llmjob_sample into 'usage' and
 * 'elapsed', set '*mode' to the mode 'llm' ended in, and free 'llm'. A
 * NULL 'llm' leaves 'usage' and '*mode' as they are.
 */
void llmjob_end(struct llm *llm, int64_t started_ms, struct llm_usage *usage, double *elapsed,
		enum llm_mode *mode);

/* Add {"usage": {"prompt_tokens": P, "completion_tokens": C}} of 'res' to 'rec'. */
void llmjob_add_usage(struct cJSON *rec, const struct llm_result *res);

#endif
