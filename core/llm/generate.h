/*
 * generate: synthetic questions from corpus chunks through an LLM
 * (evalset generate, docs/generate.md), resumable and filtered.
 *
 * Plan: the selected chunks (--chunks, else a seeded --sample, else all),
 * then the shard (chunk-id hash mod N, so shards partition any selection),
 * times the kinds. One request per (chunk, kind) asks for 'per_chunk'
 * questions. Multi-hop pairs a chunk with the next chunk of the same
 * document (corpus "doc", else title); a chunk with no such neighbour gets
 * no multi-hop request. Follow-up pairs a chunk with its earlier question:
 * the first question of the set (in set order, as the run starts) labelled
 * with the chunk or with a chunk of its document; a chunk with none gets no
 * follow-up request. The follow-up continues the earlier question's
 * conversation (docs/generate.md, "Follow-up questions").
 *
 * Journal key of a request: "g-" + 32 hex digits of SHA-256 over (chunk
 * digest [+ neighbour digest], kind, prompt digest, model, seed, sample 0,
 * per_chunk [, the earlier question's id, text, answer and history]):
 * asking for more questions per chunk is a new request.
 * The journal (sets/NAME/.evalset/generate.jsonl) holds one record per
 * answered request (its questions, or why the reply was unusable) and a
 * checkpoint record after each atomic save of the set. On start, every
 * journaled request is done (never sent again) and records after the last
 * checkpoint are applied to the set again, so kill -9 loses nothing. A
 * request that failed in transport (or whose 2xx body was not a chat
 * completion) is not journaled and is sent on rerun; one whose reply was
 * unusable (truncated or of the wrong shape twice) is journaled and asked
 * again only with 'retry_failed'.
 *
 * Filters, in order, each counted: empty or longer than 'max_chars';
 * exact/near duplicate of a question of the set, of this run, or of one a
 * reviewer rejected (set/rejected.h) (text_near_duplicate); is not in the
 * language it was asked in (lang_text_fits); refers to its source text
 * ("the passage", "Title:", in any language: text_source_reference); copies a span of its chunk (text_copied_share >=
 * 'max_copied'); too lexical (text_overlap > 'max_overlap').
 *
 * Ownership: the options' pointers are borrowed for the call; the stats own
 * their 'overlaps' array (gen_stats_release).
 */
#ifndef EVALSET_GENERATE_H
#define EVALSET_GENERATE_H

#include <stdbool.h>
#include <stddef.h>

#include "llm/llm.h"
#include "llm/realism.h"
#include "llm/llmbatch.h"

struct set;
struct set_ref;
struct corpus;

enum gen_kind {
	GEN_FACTOID, GEN_PARAPHRASE, GEN_MULTIHOP, GEN_UNANSWERABLE,
	GEN_FOLLOWUP,              /* a follow-up turn to a question of the set (docs/generate.md) */
	GEN_NR_KINDS
};

/*
 * Difficulty bands of an answerable question, from the rank of its chunk
 * (the worse of its two chunks for multi-hop) when the built-in BM25 is
 * asked the question at generation time: easy rank 1, medium 2..10, hard
 * beyond 10 or not in the first GEN_RANK_DEPTH.
 */
enum gen_band { GEN_EASY, GEN_MEDIUM, GEN_HARD, GEN_NR_BANDS };
#define GEN_RANK_DEPTH 100
const char *gen_band_name(enum gen_band b);
/* Return the band of BM25 rank 'rank' (1-based; 0: not in the first GEN_RANK_DEPTH). */
enum gen_band gen_band_of(long rank);
/* Parse "easy,hard" into a mask of (1 << band). Return 0 or -1 (reported). */
int gen_bands_parse(const char *list, unsigned *mask);

/* The critique's criteria, each rated 1..5 (see prompts/critique.md); CRIT_FOCUS
 * is the one named "specificity". */
enum gen_criterion { CRIT_CLARITY, CRIT_REALISM, CRIT_ANSWERABILITY, CRIT_FOCUS, GEN_NR_CRITERIA };
const char *gen_criterion_name(enum gen_criterion c);

/* What one journaled LLM pass after generation (critique, verification) did. */
struct gen_pass_stats {
	size_t planned, done_before, answered, unusable, lost, cancelled;
	struct llm_usage usage;
};
const char *gen_kind_name(enum gen_kind k);
/* Parse "factoid,paraphrase,..." into a bit mask of (1 << kind). Return 0 or -1 (reported). */
int gen_kinds_parse(const char *list, unsigned *mask);

struct gen_stats {
	size_t chunks;            /* selected chunks (after sample and shard) */
	size_t planned;           /* requests in the plan */
	size_t no_neighbour;      /* multi-hop skipped: no chunk of the same document */
	size_t no_earlier;        /* follow-up skipped: no question of the set on the chunk or its document */
	size_t done_before;       /* already journaled: not sent */
	size_t failed_before;     /* journaled unusable replies: of done_before, or asked again */
	size_t to_send;
	size_t answered;          /* usable replies this run */
	size_t unusable;          /* answered but truncated/invalid (journaled) */
	size_t lost;              /* transport failures (not journaled: sent on rerun) */
	size_t cancelled;         /* not finished (interrupt, budget) */
	size_t replayed;          /* journal records after the last checkpoint applied again */
	size_t proposed, kept;
	size_t drop_empty, drop_long, drop_dup_set, drop_dup_run, drop_copied, drop_overlap;
	size_t drop_language;     /* replies not in the language asked for */
	size_t drop_reference;    /* refer to their source ("the passage"): text/selfref.h */
	size_t drop_rejected;     /* near duplicate of a question rejected in review */
	size_t drop_difficulty;   /* outside the --difficulty bands */
	size_t bands[GEN_NR_BANDS]; /* kept answerable questions per difficulty band */
	/* critique */
	struct gen_pass_stats critique;
	size_t critiqued;         /* questions rated (now or from the journal) */
	size_t drop_critique;     /* dropped: some score under the threshold */
	size_t drop_criterion[GEN_NR_CRITERIA]; /* of those, per criterion under it */
	size_t scores[GEN_NR_CRITERIA][6];      /* how many rated 1..5, per criterion */
	/* verification of unanswerable and multi-hop questions */
	struct gen_pass_stats verify;
	size_t verified;          /* questions checked (now or from the journal) */
	size_t verify_follow_ups; /* of the verification's planned checks, follow-ups (two checks each) */
	size_t drop_answered;     /* unanswerable, but a chunk of the corpus answers it */
	size_t drop_one_chunk;    /* multi-hop, but one chunk alone answers it */
	size_t drop_standalone;   /* follow-up, but its chunk answers it without the history */
	size_t drop_unsupported;  /* follow-up, but its chunk does not answer it even with the history */
	/* the realism gap (--style-from): real queries, synthetic questions of
	 * the set before this run, and those this run added */
	struct realism_side real, before, after;
	double *overlaps;         /* of the kept questions */
	size_t nr_overlaps, alloc_overlaps;
	long est_prompt_tokens;   /* dry run: about 4 bytes a token */
	/* dry run: the passes after generation, at most (one request per question
	 * generation could add, and per question of the plan not yet rated) */
	size_t est_critique_requests, est_verify_requests;
	long est_critique_tokens, est_verify_tokens;
	size_t batch_written, batch_matched, batch_unmatched, batch_errors;
	struct llmbatch_stats batch;  /* --batch */
	struct llm_usage usage;
	double elapsed;           /* seconds */
	enum llm_mode mode;
};
void gen_stats_release(struct gen_stats *st);

struct gen_options {
	struct set *set;              /* the working copy, loaded; questions are appended */
	const char *set_file;         /* where it is saved (atomically) */
	const struct set_ref *ref;    /* for the id floor */
	const struct corpus *corpus;
	const char *chunk_ids;        /* "c-1,c-2" or NULL */
	long sample;                  /* 0: every chunk */
	long seed;
	long shard_i, shard_n;        /* 1-based I of N; N 0: no sharding */
	long per_chunk;
	unsigned kinds;               /* mask of 1 << enum gen_kind */
	const char *prompt_dir;
	const char *question_language; /* BCP 47 tag the questions are asked in; NULL: each chunk's */
	double max_overlap;           /* > 1: no limit */
	double max_copied;            /* share of tokens in one copied run; > 1: no limit */
	long max_chars;
	const char *journal_path;
	bool dry_run;
	bool retry_failed;            /* ask again the requests whose replies were unusable */
	bool batch;                   /* through the provider's batch API (llm/llmbatch.h) */
	struct llmbatch_options batch_opts;  /* journal, limits, polling, prices; the job sets result and ctx */
	const char *batch_out;
	const char *const *batch_in;
	size_t nr_batch_in;
	struct llm_options llm;       /* endpoint, key, model, http (schema etc. set here) */
	unsigned difficulty;          /* mask of 1 << enum gen_band to keep; 0: every band */
	bool critique;                /* rate the new questions and drop the weak ones */
	const char *critique_model;   /* NULL: llm.model */
	int critique_min;             /* 1..5: a score under it drops the question */
	const char *critique_journal;
	bool verify;                  /* check unanswerable, multi-hop and follow-up questions */
	long verify_k;                /* chunks shown to the verifier per unanswerable question */
	const char *retriever_cmd;    /* NULL: the built-in BM25 finds them */
	const char *verify_journal;
	const char *const *personas;  /* --persona, spread over chunks */
	size_t nr_personas;
	const char *seed_questions;   /* file of questions whose topics steer, or NULL */
	const char *style_from;       /* "origin=NAME", "tag=NAME" or a file of real queries, or NULL */
	long checkpoint_every;        /* seconds between saves of the set; 0: 5 */
	void (*progress)(const struct gen_stats *st, void *ctx);  /* about once a second */
	void *ctx;
};

/*
 * Run the job. Return 0; ERR_INPUT for bad input (prompts, ids, batch files:
 * reported); ERR_REMOTE when the endpoint stopped the job; ERR_INTERRUPTED;
 * or HTTP_BUDGET_SPENT. In every case the set holds every kept question and
 * has been saved when anything was added.
 */
int gen_run(const struct gen_options *o, struct gen_stats *st);

#endif
