/*
 * pool: the judging worksheet of `evalset pool` and `evalset label`
 * (docs/pool.md).
 *
 * A pool holds, for each question of a set version, the union of the top
 * 'depth' documents of several runs that the set has not labelled yet, with
 * the chunk text and which runs found each one at which rank. People (in any
 * editor) or `evalset judge` fill in a grade 0..3 per pair; `evalset label`
 * merges the graded pairs into the working copy.
 *
 *   0  unrelated
 *   1  related but does not answer
 *   2  partly answers
 *   3  dedicated to the question and holds the exact answer
 *
 * The YAML form is read with libyaml into a tree that keeps every node's
 * place, so each refusal names FILE:LINE:COL: syntax, anchors/aliases,
 * unknown or duplicate keys, wrong types, a grade that is not an integer in
 * 0..3, a judge that is neither "human" nor "llm:MODEL", a question id or a
 * pair (question, chunk) listed twice. Ids that do not exist in the set or
 * corpus are found by pool_check against them.
 *
 * Pair order within a question: best (lowest) rank over the runs, then the
 * number of runs that found the chunk (more first), then chunk id; questions
 * keep the set's order. A pair with a grade and no judge is a human grade.
 *
 * Ownership: a struct pool owns every string it points to; pool_release()
 * frees them. Builders copy what they are given.
 */
#ifndef EVALSET_POOL_H
#define EVALSET_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"

struct set;
struct run;
struct corpus;

#define POOL_SCHEMA 1
#define POOL_MAX_GRADE 3
#define POOL_MAX_FILE_BYTES (256u << 20)
#define POOL_MAX_DEPTH 16

struct pool_found {
	char *run;    /* a name of the pool's runs */
	long rank;    /* 1-based */
};

struct pool_pair {
	char *chunk;
	char *title;              /* may be NULL */
	char *text;               /* may be NULL (no corpus when pooled) */
	struct pool_found *found;
	size_t nr_found, alloc_found;
	int grade;                /* -1: not graded yet, else 0..3 */
	char *judge;              /* "human", "llm:MODEL", or NULL (human when graded) */
	char *prompt;             /* prompt id of an LLM grade ("name@sha256:..."), or NULL */
	char *reason;             /* the judge's short reason, or NULL */
	char *note;               /* free text for people, or NULL */
	char *reviewed_by;        /* who graded it on the review page, or NULL */
	char *reviewed_at;        /* when (RFC 3339 UTC), or NULL */
	int llm_grade;            /* -1, or the LLM judge's grade a person graded over */
	char *llm_judge;          /* "llm:MODEL" of 'llm_grade', or NULL; 'prompt' and
	                           * 'reason' stay the judge's */
	long line, col;           /* where the pair starts (0: built, not loaded) */
	long grade_line, grade_col;
};

struct pool_question {
	char *id;
	char *text;
	struct pool_pair *pairs;
	size_t nr, alloc;
	long line, col;
};

struct pool_run {
	char *name;
	char *path;
	char *sha256;             /* "sha256:..." of the file, or NULL */
};

struct pool {
	int schema;
	char *set_name;
	char *set_path;           /* the set directory, relative to the pool file's directory
	                           * (pool_path_for_file; judge: pool_resolve_path) */
	char *set_version;        /* NULL: the working copy */
	char *set_digest;
	long depth;
	char *corpus_path;        /* may be NULL */
	char *corpus_fingerprint; /* may be NULL */
	struct pool_run *runs;
	size_t nr_runs, alloc_runs;
	struct pool_question *q;
	size_t nr, alloc;
	char *file;               /* where it was loaded from, or NULL */
};

#define POOL_INIT { POOL_SCHEMA, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, 0, NULL, 0, 0, NULL }

void pool_release(struct pool *p);

/* The judge of a graded pair: "human" when none is recorded. */
const char *pool_pair_judge(const struct pool_pair *pp);

/*
 * Build 'p' (POOL_INIT) from the set 's' (loaded from 'set_path', as a
 * version 'tag' or NULL for the working copy) and the 'nr' runs in 'runs'
 * with their file paths 'paths': for each answerable question, the top
 * 'depth' documents of every run that 's' has not labelled (neither relevant
 * nor irrelevant). With a corpus 'c', each pair gets its title and text, and
 * documents not in the corpus are left out (counted in '*not_in_corpus').
 * Run names are the file names without extensions, made unique. Return 0 or
 * -1 (reported).
 */
int pool_build(struct pool *p, const struct set *s, const char *set_path, const char *tag,
	       struct run *runs, const char *const *paths, size_t nr, long depth,
	       const struct corpus *c, long *not_in_corpus);

/*
 * Return 'target' (a path valid from the working directory) as a path
 * relative to the directory of the pool file 'pool_file', for set.path: the
 * pool can then be used from any directory. Falls back to a copy of
 * 'target' when either directory cannot be resolved. Caller frees.
 */
char *pool_path_for_file(const char *target, const char *pool_file);
/*
 * Return where the recorded 'path' of the pool loaded from 'pool_file' is:
 * relative to the pool file's directory when that exists, else 'path' as
 * written (from the working directory; pools written before set.path was
 * made relative). Absolute paths are returned as they are. Caller frees.
 */
char *pool_resolve_path(const char *path, const char *pool_file);

/* Append 'p' as YAML to 'out'. Return 0 or -1. */
int pool_to_yaml(const struct pool *p, struct strbuf *out);
/*
 * The YAML of a pool in parts, as pool_to_yaml writes it: the head (the
 * comment lines and every key up to "questions:") and one part per
 * question, so that a program that keeps a pool in memory and changes one
 * question (the review page's grade) emits that question again instead of
 * the whole file. Joined, the parts are pool_to_yaml's output byte for
 * byte. A struct pool_yaml owns its buffers (pool_yaml_release).
 */
struct pool_yaml {
	struct strbuf head;
	struct strbuf *part;      /* one per question of the pool, in order */
	size_t nr;
};
#define POOL_YAML_INIT { STRBUF_INIT, NULL, 0 }

/* Emit every part of 'p' into 'y' (replacing what it held). Return 0 or -1
 * (reported; 'y' is then empty). */
int pool_yaml_build(struct pool_yaml *y, const struct pool *p);
/* Emit again the part of question 'i' of 'p', the pool 'y' was built from.
 * Return 0 or -1 (reported; 'y' is then empty). */
int pool_yaml_update(struct pool_yaml *y, const struct pool *p, size_t i);
/* Append the parts of 'y', joined, to 'out'. */
void pool_yaml_join(const struct pool_yaml *y, struct strbuf *out);
void pool_yaml_release(struct pool_yaml *y);

/* Write 'p' to 'path' atomically. Return 0 or -1 (reported). */
int pool_save(const struct pool *p, const char *path);

/* Load the pool in 'path' into 'p' (POOL_INIT). Return 0, or -1 after
 * reporting FILE:LINE:COL; 'p' is then released. */
int pool_load(struct pool *p, const char *path);
/* Like pool_load from 'len' bytes of 'buf', reporting as 'name'. */
int pool_load_buf(struct pool *p, const char *buf, size_t len, const char *name);

/*
 * Check that every question of 'p' exists in 's' (when not NULL) and every
 * chunk in 'c' (when not NULL). Report each problem as FILE:LINE:COL and
 * return the number of problems (0: fine).
 */
int pool_check(const struct pool *p, const struct set *s, const struct corpus *c);

/* Return the question 'id' of 'p', or NULL. */
struct pool_question *pool_find(const struct pool *p, const char *id);

struct pool_counts {
	size_t questions, pairs, graded, human, llm;
	size_t by_grade[POOL_MAX_GRADE + 1];
};
void pool_count(const struct pool *p, struct pool_counts *out);

struct pool_merge_counts {
	size_t taken;     /* grades taken from a shard into an ungraded pair */
	size_t same;      /* grades a shard holds that the pool already had */
	size_t kept;      /* pairs graded in the pool that a shard graded otherwise: kept */
	size_t ungraded;  /* pairs still ungraded after the merge */
};

/*
 * Merge the grades of the 'nr' worksheets 'shards' (named 'names', for
 * messages), each a copy of 'into' graded in part (judge --shard), into
 * 'into': an ungraded pair takes the grade of the shard that has one, with
 * its judge, prompt, reason and review fields; a pair already graded in
 * 'into' keeps its grade. A shard of another set version, or with a
 * question or pair 'into' does not have, and two shards grading one pair
 * differently are refused (FILE:LINE:COL). Return 0 or -1 (reported; 'into'
 * may then hold some taken grades and must not be saved).
 */
int pool_merge(struct pool *into, const struct pool *shards, const char *const *names, size_t nr,
	       struct pool_merge_counts *mc);

#endif
