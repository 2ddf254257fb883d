/*
 * set: the evaluation set of SPEC section 2, its YAML form and its digest.
 *
 * A set is loaded from YAML with libyaml and saved with libyaml's emitter.
 * Question order is kept; content round-trips without loss (comments in a
 * hand-edited file are not kept when a subcommand rewrites it). Every load
 * error names FILE:LINE:COL.
 *
 * The digest is SHA-256 over a canonical serialisation of the content:
 * questions sorted by id, keys in a fixed order, label lists sorted, and the
 * header fields version, digest and tagged_at left out, so formatting, key
 * order, question order and comments never change it and any change of
 * content does.
 *
 * Ownership: a struct set owns every string and cJSON tree it points to;
 * set_release() frees them all. Functions that take a string copy it.
 */
#ifndef EVALSET_SET_H
#define EVALSET_SET_H

#include <stdbool.h>
#include <stddef.h>

#include "strbuf.h"

struct cJSON;
struct corpus;

#define SET_SCHEMA 1
#define SET_MAX_FILE_BYTES (64u << 20)   /* a set file larger than this is refused */
#define SET_MAX_QUESTIONS 1000000
#define SET_MAX_DEPTH 32                 /* YAML nesting depth */

enum origin {
	ORIGIN_NONE = 0,   /* not given (treated as hand by counts) */
	ORIGIN_SYNTHETIC,
	ORIGIN_MINED,
	ORIGIN_HAND,
};
const char *origin_name(enum origin o);
/* Return 0 and set '*out' for "synthetic"/"mined"/"hand", else -1 (nothing printed). */
int origin_parse(const char *s, enum origin *out);

struct label {
	char *chunk;  /* chunk id */
	int grade;    /* 1..9 relevant; 0 judged irrelevant */
};

struct question {
	char *id;
	char *text;
	enum origin origin;
	bool answerable;             /* default true */
	struct label *relevant;      /* grade >= 1 */
	size_t nr_relevant, alloc_relevant;
	char **irrelevant;           /* grade 0 */
	size_t nr_irrelevant, alloc_irrelevant;
	char **tags;
	size_t nr_tags, alloc_tags;
	char *answer;                /* optional short reference answer */
	char *note;
	struct cJSON *provenance;    /* optional free-form map (JSON object) */
	bool relevant_as_list;       /* written as a list: every grade is 1 */
	long line, col;              /* where the question starts in its file (0: not loaded) */
};

struct corpus_ref {
	char *path;
	char *fingerprint;           /* "sha256:..." or NULL */
	long chunks;                 /* -1: unknown */
};

struct set {
	int schema;
	char *name;
	char *description;
	char *version;               /* frozen files only */
	char *digest;                /* frozen files only, as read */
	char *parent;                /* frozen files only */
	char *tagged_at;             /* frozen files only */
	char *note;
	bool has_corpus;
	struct corpus_ref corpus;
	struct question *q;
	size_t nr, alloc;
	char *file;                  /* the file it was loaded from, or NULL */
};

#define SET_INIT { SET_SCHEMA, NULL, NULL, NULL, NULL, NULL, NULL, NULL, false, { NULL, NULL, -1 }, NULL, 0, 0, NULL }

void set_init(struct set *s);
void set_release(struct set *s);

/*
 * Load the YAML set in 'path' into 's' (initialised by set_init). Checks
 * syntax, types, keys, UTF-8, limits and the structural rules (unique ids,
 * grades 1..9, labels consistent with answerable). Return 0, or -1 after
 * reporting every problem as FILE:LINE:COL; 's' is then released.
 */
int set_load(struct set *s, const char *path);
/* Like set_load, from 'len' bytes of 'buf', reporting as 'name'. */
int set_load_buf(struct set *s, const char *buf, size_t len, const char *name);

/* Serialise 's' as YAML into 'out' (appending). Return 0 or -1. */
int set_to_yaml(const struct set *s, struct strbuf *out);
/* Write 's' to 'path' atomically (SPEC section 7). Return 0 or -1. */
int set_save(const struct set *s, const char *path);

/* Append the canonical serialisation of the content of 's' to 'out'. */
void set_canonical(const struct set *s, struct strbuf *out);
/* Write the digest of 's' ("sha256:<hex>") into 'out'. */
void set_digest(const struct set *s, char out[72]);

/* Return the question with 'id', or NULL. */
struct question *set_find(const struct set *s, const char *id);
/* Return the index of the question with 'id', or -1. */
long set_index(const struct set *s, const char *id);
/* Append a copy of nothing: return a new zeroed question at the end (answerable true). */
struct question *set_append(struct set *s);
/* Remove the question at 'index', keeping the order of the others. */
void set_remove(struct set *s, size_t index);
/* Release the memory held by 'q' (not 'q' itself). */
void question_release(struct question *q);
/* Deep-copy 'src' into 'dst'. */
void question_copy(struct question *dst, const struct question *src);
/* Set the grade of 'chunk' for 'q' (grade 0 moves it to irrelevant). */
void question_set_label(struct question *q, const char *chunk, int grade);
/* Return the grade of 'chunk' for 'q': >= 1 relevant, 0 judged irrelevant, -1 unjudged. */
int question_grade(const struct question *q, const char *chunk);
bool question_has_tag(const struct question *q, const char *tag);

/*
 * Return a new question id for 's' of the form "q-NNNN", one more than the
 * highest numeric id the set holds or has ever held; 'floor' (may be 0) is the
 * highest number known to have been used before (kept in .evalset/ids), so
 * removed ids are never reused. Caller frees.
 */
char *set_next_id(const struct set *s, long floor);

/* ---- where sets live (SPEC section 2) ---- */

struct set_ref {
	char *dir;      /* sets/<name> */
	char *file;     /* dir/set.yaml, or dir/versions/<tag>.yaml */
	char *name;     /* basename of dir */
	char *tag;      /* NULL for the working copy */
};

/*
 * Resolve a command-line set argument: "NAME", "sets/NAME", "path/to/dir",
 * "path/to/set.yaml", each optionally followed by "@TAG". A bare NAME is
 * looked up under ./sets/. Return 0, or -1 with an error (a malformed
 * NAME@TAG, a set that does not exist, an unknown tag listing the known ones).
 * With 'must_exist' false, a missing set is not an error (for init).
 */
int set_ref_resolve(struct set_ref *ref, const char *arg, bool must_exist);
void set_ref_release(struct set_ref *ref);

/*
 * Load the set 'arg' names (working copy or frozen version). A frozen version
 * has its digest recomputed and is refused when it does not match
 * ("tampered or hand-edited frozen version"). Return 0 or -1 (reported).
 */
int set_open(struct set *s, struct set_ref *ref, const char *arg);

/* ---- check (the rules and warnings of SPEC section 2) ---- */

enum finding_level { FINDING_ERROR, FINDING_WARNING };

struct finding {
	enum finding_level level;
	long line, col;
	char *message;
};

struct findings {
	struct finding *items;
	size_t nr, alloc;
	size_t nr_errors, nr_warnings;
};

/*
 * Check 's' against every rule of SPEC section 2, with chunk ids checked
 * against 'corpus' when not NULL. Findings are appended to 'out'.
 */
void set_check(const struct set *s, const struct corpus *corpus, struct findings *out);
void findings_release(struct findings *f);

#endif
