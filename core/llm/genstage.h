/*
 * genstage: one journaled pass of LLM calls over questions that generate
 * has written (its critique and its verification), with the journal,
 * resume and budget rules of generate itself.
 *
 * The caller renders one task per question (its system and user messages
 * and a journal key that changes whenever anything the reply depends on
 * does: the question's text, the chunks shown, the prompt's digest, the
 * model). A task whose key has a record in the journal is not asked again,
 * whether the reply was usable or not; its record is handed to 'apply' as
 * if it had just arrived. Other tasks are sent; each reply is written to the
 * journal (to the kernel at once: it survives kill -9; fsync'ed about once a
 * second and at the end) before 'apply' sees it. A transport failure is not
 * journaled (asked again next run). Tasks sharing a key are asked once; each
 * receives the record.
 *
 * A record: {"key", "status": "ok" | "unusable", "reply": {...} (ok: the
 * validated JSON), "why" (unusable), "model", "prompt", "usage"}.
 *
 * Ownership: tasks are the caller's; stage_run frees their messages once
 * sent (or at the end) and sets them to NULL.
 */
#ifndef EVALSET_GENSTAGE_H
#define EVALSET_GENSTAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "llm/llm.h"

struct cJSON;

struct stage_task {
	char key[40];
	char *system, *user;   /* owned by the task until sent */
	size_t index;          /* the caller's */
};

struct stage_stats {
	size_t planned;        /* tasks */
	size_t done_before;    /* answered in an earlier run (from the journal) */
	size_t answered, unusable, lost, cancelled;  /* this run */
	struct llm_usage usage;
};

struct stage_options {
	const char *journal_path;
	const char *prompt_id;        /* recorded in each record */
	const char *schema_name, *schema, *shape_hint;
	llm_validate_fn validate;
	struct llm_options llm;       /* endpoint, model, http (its max_requests: this stage's budget) */
	/* an outcome: 'rec' is the journal record; called once per task */
	void (*apply)(void *ctx, size_t index, const struct cJSON *rec, bool from_journal);
	void (*tick)(void *ctx);      /* about once a second, and once at the end */
	int (*stop)(void *ctx);       /* non-zero: stop the stage (a fatal error of the caller) */
	void *ctx;
};

/*
 * Run the stage over the 'nr' 'tasks'. Return 0; ERR_INPUT (the journal,
 * reported); ERR_REMOTE when the endpoint stopped the job; ERR_INTERRUPTED;
 * or HTTP_BUDGET_SPENT. Every outcome obtained has been applied.
 */
int stage_run(const struct stage_options *o, struct stage_task *tasks, size_t nr,
	      struct stage_stats *st);

/* Set 'key' to 'prefix' + 32 hex digits of SHA-256 over the 'len' bytes of 'what'. */
void stage_key(char key[40], const char *prefix, const char *what, size_t len);

#endif
