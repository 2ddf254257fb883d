/*
 * generate-internal: the state one gen_run() call shares between its parts;
 * not for use outside the generate files. The public contract is generate.h.
 * Calls go one way, top to bottom, never back up:
 *
 *   generate.c         the driver: prompts, journal replay, the live job loop
 *   generate-batch.c   Batch API files out and in, and --batch (llm/llmbatch.h)
 *   generate-result.c  one reply: journal, filters, set, checkpoints
 *   generate-plan.c    kinds, chunk selection, journal keys, rendering
 *
 * Ownership: struct gen owns everything it points to except 'o', 'st' and
 * 'set' (the caller's); gen_run() releases it.
 */
#ifndef EVALSET_GENERATE_INTERNAL_H
#define EVALSET_GENERATE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "retrieve/bm25.h"
#include "set/corpus.h"
#include "text/dupindex.h"
#include "llm/generate.h"
#include "llm/journal.h"
#include "llm/llm.h"
#include "llm/prompt.h"
#include "base/strbuf.h"
#include "base/strmap.h"

struct gen;
struct chunk;
struct lang;

/* the kinds the verification pass checks */
#define GEN_VERIFIED_KINDS ((1u << GEN_UNANSWERABLE) | (1u << GEN_MULTIHOP) | (1u << GEN_FOLLOWUP))

/* the dup index tags: who holds a text a proposal may repeat */
enum { DUP_SET, DUP_RUN, DUP_REJECTED };
struct question;

struct item {
	struct gen *g;
	size_t chunk, neighbour;   /* corpus indexes; neighbour SIZE_MAX: none */
	size_t earlier;            /* follow-up: the set index of the earlier question; else SIZE_MAX */
	enum gen_kind kind;
	char key[40];
	bool done;
};

struct gen {
	const struct gen_options *o;
	struct gen_stats *st;
	struct set *set;
	struct prompt prompts[GEN_NR_KINDS];
	char *prompt_ids[GEN_NR_KINDS];
	char **chunk_digests;      /* per corpus index, lazily */
	struct item *items;
	size_t nr_items, alloc_items;
	struct strmap plan;        /* key -> item + 1 */
	struct strmap done;        /* journaled keys: 1 answered, 2 only unusable replies */
	cJSON **replay;            /* records after the last checkpoint */
	size_t nr_replay, alloc_replay;
	struct journal journal;
	bool journal_open;
	long records_since_save;
	int64_t last_save;         /* monotonic ms */
	long floor;
	bool dirty;                /* questions added since the last save */
	bool abort;
	int abort_code;
	struct dup_index dups;     /* every question of the set; tag 1: added by this run */
	struct llm *llm;
	struct bm25 bm25;          /* the corpus, for difficulty and verification */
	bool bm25_built;
	bool *selected;            /* per corpus index: a chunk of the plan */
	struct corpus seeds, styles;   /* --seed-questions, --style-from, as small corpora */
	struct bm25 seeds_ix, styles_ix;
	bool seeds_built, styles_built;
	struct strmap before;      /* ids of the synthetic questions before this run */
	int64_t started_ms;
	int64_t last_progress;
};

/* generate-plan.c */

/*
 * Select the chunks (--chunks, else a seeded sample, else all, then the
 * shard) and fill g->items with one item per (chunk, kind), each with its
 * journal key, and g->plan with key -> index + 1; count chunks, planned
 * requests and multi-hop chunks without a neighbour in g->st. Return 0, or
 * -1 (reported) on an unknown chunk id.
 */
int gen_plan(struct gen *g);
/* Return the kind named s[0..len) ("multihop" too), or -1. */
int gen_kind_parse(const char *s, size_t len);
/* Return the language questions about 'ch' are written in: --question-language,
 * else the corpus's language from the set, else the one the chunk's text is in. */
const struct lang *gen_question_lang(const struct gen *g, const struct chunk *ch);
/* Render the system and user messages of 'it'. Return 0 or -1 (reported). */
int gen_render(struct gen *g, const struct item *it, struct strbuf *sys, struct strbuf *user);

/* generate-result.c */

/* Journal and apply the outcome 'res' of 'it' (sets g->abort on a write failure). */
void gen_record_result(struct gen *g, struct item *it, const struct llm_result *res);
/* Apply the questions of journal record 'rec' to the set (a replayed record). */
void gen_apply_record(struct gen *g, const cJSON *rec);
/* Save the set when questions or records are pending (journal synced first,
 * a checkpoint record after). Return 0 or -1 (reported). */
int gen_save(struct gen *g);
/* Save when 'checkpoint_every' seconds of records are pending; abort on failure. */
void gen_maybe_checkpoint(struct gen *g);

/* generate-batch.c */

/* Write the Batch API input file o->batch_out for the items not yet done.
 * Return 0 or -1 (reported). */
int gen_batch_out(struct gen *g);
/* Ingest the Batch API output and error files o->batch_in, joined on
 * custom_id. Return 0 or -1 (reported). */
int gen_batch_in(struct gen *g);
/* Run the items not yet done through the provider's batch API (--batch)
 * with 'opts' (estimate_only: the dry pass). Return 0 or an ERR_* code
 * (reported). */
int gen_batch_run(struct gen *g, const struct llmbatch_options *opts);

/*
 * Return the BM25 rank (1-based) of chunk 'chunk' for 'question', the worse
 * of the two when 'neighbour' is not SIZE_MAX, or 0 when one is not in the
 * first GEN_RANK_DEPTH (generate-quality.c). Builds the index on first use.
 */
long gen_rank(struct gen *g, const char *question, size_t chunk, size_t neighbour);
/*
 * Return the multi-hop partner of chunk 'chunk': the chunk of another
 * document (the corpus "doc"; a chunk without one is its own document) that
 * scores best under BM25 on the chunk's rarest terms shared with other
 * documents (at most 8, by idf), or SIZE_MAX when no term is shared.
 */
size_t gen_hop_partner(struct gen *g, size_t chunk);
/* Return the built-in BM25 index of the corpus, built on first use, or NULL (reported). */
const struct bm25 *gen_bm25(struct gen *g);

/*
 * The passes after generation, over the questions of the selected chunks
 * that generate wrote and the pass has not yet seen: rate them and drop the
 * weak (generate-critique.c), check unanswerable and multi-hop ones against
 * the corpus (generate-verify.c). Return 0 or an error code as gen_run.
 */
int gen_critique(struct gen *g);
int gen_verify(struct gen *g);
/* Return true when question 'q' was written by generate for a chunk of this
 * run's plan with a kind in 'kinds' (mask), and set '*kind'. */
bool gen_in_scope(struct gen *g, const struct question *q, unsigned kinds, enum gen_kind *kind);
/* Append the passages of chunk 'chunk' (and 'neighbour' unless SIZE_MAX) as
 * "Title: ...\n<chunk>...</chunk>" blocks to 'out'. */
void gen_passages(struct gen *g, size_t chunk, size_t neighbour, struct strbuf *out);
/* Load the prompt 'file' of a pass from the prompt directory into 'p' and
 * check its variables; 'off' names the option that turns the pass off, for
 * the message. Return 0 or -1 (reported). */
int gen_pass_prompt(struct gen *g, const char *file, const char *off, struct prompt *p);
/* generate-steer.c */

/* Load --seed-questions and --style-from and index them. Return 0 or -1 (reported). */
int gen_steer_load(struct gen *g);
void gen_steer_release(struct gen *g);
/* Return the persona of chunk 'chunk', or NULL when none is given. */
const char *gen_persona(const struct gen *g, size_t chunk);
/* Append the steering text of chunk 'chunk' (persona, seed topics, style
 * examples; nothing when none is given) to 'out'. */
void gen_steering(struct gen *g, size_t chunk, struct strbuf *out);
/* Remember the synthetic questions the set holds before the run. */
void gen_realism_mark(struct gen *g);
/* Fill the realism sides of the stats (when --style-from is given). */
void gen_realism(struct gen *g);

/* The model of the passes: --critique-model, else generate's own ("" when none). */
const char *gen_pass_model(const struct gen *g);
/*
 * Fill pass task 't': its system and user messages from prompt 'p' with the
 * question 'q' of kind 'kind', the 'passages' shown and the conversation
 * 'history' before it (NULL: none; the prompt's {{history}}), and its
 * journal key 'prefix' + SHA-256 of (question text, kind, passages, prompt
 * digest, 'model'[, history]). Return 0, or -1 when the prompt does not render (reported; the
 * messages are left NULL).
 */
struct stage_task;
int gen_pass_task(const struct prompt *p, const struct question *q, enum gen_kind kind,
		  const char *passages, const char *history, const char *model, const char *prefix,
		  struct stage_task *t);
/* Append the history of 'q' to 'out' as <turn role="..."> elements, oldest
 * first (generate-plan.c: the rendering of a follow-up's earlier turn uses
 * it, and the passes call the plan, never the other way). */
void gen_history_text(const struct question *q, struct strbuf *out);
/* Return the index of the earlier question of a follow-up to chunk 'chunk'
 * (generate-plan.c): the first question of the set, in set order, labelled
 * with the chunk or with a chunk of its document; or SIZE_MAX. */
size_t gen_earlier(struct gen *g, size_t chunk);
/*
 * Run a pass: 'so' holds what is its own (journal, prompt id, schema,
 * validate, apply); this fills in the LLM options with 'model' and
 * 'max_tokens' and the budget left, the tick and stop callbacks and 'ctx'
 * (which starts with the struct gen pointer), runs the 'nr' 'tasks' and
 * copies the counts into 'dst'. Return as stage_run.
 */
struct stage_options;
int gen_pass_run(struct gen *g, struct stage_options *so, const char *model, long max_tokens,
		 void *ctx, struct stage_task *tasks, size_t nr, struct gen_pass_stats *dst);
/* Return true when journal record 'rec' of a pass has status "ok". */
bool gen_pass_ok(const cJSON *rec);
/* The budget left for a pass: o->llm.http.max_requests less what was spent; -1: none left. */
long gen_budget_left(struct gen *g);

#endif
