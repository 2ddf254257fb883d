/*
 * judge: grading (question, chunk) pairs 0..3 with an LLM (evalset judge,
 * docs/pool.md), resumable through a journal.
 *
 * The prompt is prompts/judge.md (variables {{question.id}},
 * {{question.text}}, {{chunk.id}}, {{chunk.title}}, {{chunk.text}}); the
 * reply must be {"grade": 0..3, "reason": "..."}. A reply that does not
 * parse or has another shape (after the client's one re-ask) is a failure:
 * journaled as "unusable", counted, and the pair stays ungraded; it is
 * never taken as a 0. Journaled failures are not asked again unless
 * 'retry_failed'.
 *
 * Journal key of a pair: "j-" + 32 hex digits of SHA-256 over (question id,
 * question text, chunk id, digest of the chunk text, model, prompt digest),
 * so changing any of them asks again and nothing else does. A pair asked
 * twice in one job (the same key) is sent once. Records are written before
 * the result reaches the caller, so a killed job loses no paid reply.
 *
 * Ownership: items are the caller's; judge_run fills their result fields
 * ('reason' and 'why' are then owned by the item: judge_items_release).
 */
#ifndef EVALSET_JUDGE_H
#define EVALSET_JUDGE_H

#include <stdbool.h>
#include <stddef.h>

#include "llm/llm.h"
#include "llm/llmbatch.h"

struct prompt;

enum judge_status {
	JUDGE_PENDING = 0,   /* not asked (cancelled, budget, or not run) */
	JUDGE_GRADED,        /* 'grade' holds 0..3 */
	JUDGE_FAILED,        /* the model answered, but not with a usable grade */
	JUDGE_LOST,          /* transport failure after retries (asked again next time) */
};

struct judge_item {
	/* in: borrowed for the call */
	const char *qid, *question, *chunk, *title, *text;
	/* in, optional: the languages (BCP 47) of the question and the chunk;
	 * NULL: detected in the text */
	const char *question_language, *chunk_language;
	/* out */
	enum judge_status status;
	int grade;           /* JUDGE_GRADED: 0..3 */
	char *reason;        /* the model's reason, or NULL */
	char *why;           /* JUDGE_FAILED: why the reply was unusable */
	bool from_journal;   /* the result came from an earlier run */
	char key[40];
};

struct judge_stats {
	size_t planned;        /* distinct pairs */
	size_t done_before;    /* graded from the journal */
	size_t failed_before;  /* failures in the journal (not asked again) */
	size_t to_send;
	size_t graded, failed, lost, cancelled;  /* this run */
	struct llm_usage usage;
	double elapsed;
	enum llm_mode mode;
	struct llmbatch_stats batch;   /* with 'batch' */
	size_t batch_written;          /* with 'batch_out': request lines written */
	size_t batch_matched, batch_unmatched, batch_errors;  /* with 'batch_in': lines */
};

struct judge_options {
	const struct prompt *prompt;  /* loaded with judge_prompt_load */
	const char *journal_path;
	const char *const *more_journals;  /* read for earlier results too (other shards'), never written */
	size_t nr_more_journals;
	bool retry_failed;
	bool dry_run;                 /* plan and read the journal only (with 'batch': the estimate) */
	bool batch;                   /* through the provider's batch API (llm/llmbatch.h) */
	struct llmbatch_options batch_opts;  /* journal, limits, polling, prices; the job sets result and ctx */
	const char *batch_out;        /* write the batch input lines of the pairs to ask here; ask nothing */
	const char *const *batch_in;  /* read these batch output, error or results files instead of asking */
	size_t nr_batch_in;
	struct llm_options llm;       /* endpoint, key, model, http (schema etc. set here) */
	void (*progress)(const struct judge_stats *st, void *ctx);  /* about once a second */
	void *ctx;
};

/* Load the judge prompt 'path' and check its variables. Return 0 or -1 (reported). */
int judge_prompt_load(struct prompt *p, const char *path);

/*
 * Grade the 'nr' 'items'. Return 0; ERR_INPUT (the journal, reported);
 * ERR_REMOTE when the endpoint stopped the job; ERR_INTERRUPTED; or
 * HTTP_BUDGET_SPENT. In every case the items hold every result obtained.
 */
int judge_run(const struct judge_options *o, struct judge_item *items, size_t nr,
	      struct judge_stats *st);

/*
 * Return true when the pair (qid, chunk) falls in shard 'i' (1-based) of
 * 'n': a hash of the two ids, so shards partition any pool and a pair's
 * shard never depends on the model, the prompt or the other pairs.
 */
bool judge_in_shard(const char *qid, const char *chunk, long i, long n);

/* Free the result strings of the items. */
/*
 * Render the system and user messages of 'it' with prompt 'p': the question,
 * the chunk and their languages by name ({{question.language}},
 * {{chunk.language}}: "German"; "the language of the text" when
 * undetermined). Return 0 or -1 (reported).
 */
int judge_render(const struct prompt *p, const struct judge_item *it, struct strbuf *sys,
		 struct strbuf *user);
void judge_items_release(struct judge_item *items, size_t nr);

/* Validate a reply object: {"grade": integer 0..3, "reason": string}. Return 0 or -1 with 'why'. */
int judge_validate_reply(const struct cJSON *json, struct strbuf *why);

#endif
