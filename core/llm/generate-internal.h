/*
 * generate-internal: the state one gen_run() call shares between its parts;
 * not for use outside core/llm/generate.c (the job loop: prompts, filters,
 * journal, checkpoints), core/llm/generate-plan.c (chunk selection, the plan and
 * its journal keys) and core/llm/generate-batch.c (Batch API files). The public
 * contract is generate.h.
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

#include "text/dupindex.h"
#include "llm/generate.h"
#include "llm/journal.h"
#include "llm/llm.h"
#include "llm/prompt.h"
#include "base/strbuf.h"
#include "base/strmap.h"

struct gen;

struct item {
	struct gen *g;
	size_t chunk, neighbour;   /* corpus indexes; neighbour SIZE_MAX: none */
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
	struct strmap done;        /* journaled keys */
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
	int64_t started_ms;
	int64_t last_progress;
};

/*
 * Select the chunks (--chunks, else a seeded sample, else all, then the
 * shard) and fill g->items with one item per (chunk, kind), each with its
 * journal key, and g->plan with key -> index + 1; count chunks, planned
 * requests and multi-hop chunks without a neighbour in g->st. Return 0, or
 * -1 (reported) on an unknown chunk id.
 */
int gen_plan(struct gen *g);

/* Render the system and user messages of 'it'. Return 0 or -1 (reported). */
int gen_render(struct gen *g, const struct item *it, struct strbuf *sys, struct strbuf *user);
/* Journal and apply the outcome 'res' of 'it' (sets g->abort on a write failure). */
void gen_record_result(struct gen *g, struct item *it, const struct llm_result *res);
/* Return the string member 'key' of 'o', or NULL. */
const char *gen_json_str(const cJSON *o, const char *key);

/* Write the Batch API input file o->batch_out for the items not yet done.
 * Return 0 or -1 (reported). */
int gen_batch_out(struct gen *g);
/* Ingest the Batch API output and error files o->batch_in, joined on
 * custom_id. Return 0 or -1 (reported). */
int gen_batch_in(struct gen *g);

#endif
