/*
 * set: the evaluation set (docs/design.md, "The set and its digests"), its
 * YAML form and its digests.
 *
 * A set is loaded from YAML with libyaml and saved with libyaml's emitter.
 * Question order is kept; content round-trips without loss (comments in a
 * hand-edited file are not kept when a subcommand rewrites it). Every load
 * error names FILE:LINE:COL.
 *
 * Two digests, both SHA-256 over a canonical serialisation (docs/sets.md):
 * questions sorted by id, fields in a fixed order, labels and tags sorted
 * (tags are a set), provenance keys sorted recursively. Formatting, key
 * order, question order and comments never change either.
 *  - set_digest (the digest) covers everything but the header fields
 *    version, digest and tagged_at: schema, name, description, parent, note,
 *    corpus (path, fingerprint, chunks) and the questions. It is what a
 *    frozen file records and is checked against, and what results record.
 *  - set_content_digest covers the questions only. It answers "did the
 *    questions change" (tag, versions, check, diff), whatever the header.
 *  - set_questions_digest covers ids, texts and answerability (and the
 *    conversation and history of a question that has them): what a run is
 *    bound to (a relabelled set keeps its runs).
 *
 * Loading refuses what cannot be read (exit 2 everywhere); rule violations
 * that can be represented are loaded and reported by set_check, and refused
 * by set_open (which every command but check uses).
 *
 * Ownership: a struct set owns every string and cJSON tree it points to;
 * set_release() frees them all. Functions that take a string copy it.
 */
#ifndef EVALSET_SET_H
#define EVALSET_SET_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"
#include "base/strmap.h"
#include "set/versioncache.h"

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
	int grade;    /* 1..9 relevant; 0 judged irrelevant (out-of-range grades are
	               * kept as read, for set_check to report) */
	long line, col;  /* where the label was read (0: not loaded) */
};

/*
 * Where a relevant chunk's answer stands in the source documents (optional;
 * remap and score --corpus use it, docs/sets.md): the chunk it supports,
 * the document, the span [start, end) in Unicode code points of the
 * document's text, and a short quote of that text. An entry has a span, a
 * quote, or both; start and end are -1 when there is no span.
 */
struct evidence {
	char *chunk;
	char *doc;     /* may be NULL */
	long start, end;
	char *quote;   /* may be NULL */
	long line, col;  /* where it was read (0: not loaded) */
};

/*
 * A chunk or document the question must never retrieve (docs/access.md): a
 * chunk id, or "doc:NAME" for every chunk of document NAME (the corpus's
 * "doc" field, else the chunker's id form NAME#N).
 */
struct forbid {
	char *id;
	long line, col;  /* where it was read (0: not loaded) */
};
#define FORBID_DOC_PREFIX "doc:"

/*
 * A set-wide forbidden rule (docs/access.md, "Set-wide rules"): every
 * question of the set must never retrieve the chunks it selects, beside
 * its own forbidden list. Selectors: a chunk id, a document, a document
 * name prefix, a chunk id prefix, a tag of the corpus line. A rule is well
 * formed once loaded (set_load refuses an unknown selector or an empty or
 * control-character value); the module is set-forbid.c.
 */
enum forbid_kind {
	FORBID_BY_CHUNK,       /* chunk: ID */
	FORBID_BY_DOC,         /* doc: NAME */
	FORBID_BY_DOC_PREFIX,  /* doc-prefix: PREFIX */
	FORBID_BY_ID_PREFIX,   /* id-prefix: PREFIX */
	FORBID_BY_TAG,         /* tag: TAG (the corpus line's "tags") */
};
struct forbid_rule {
	enum forbid_kind kind;
	char *value;         /* the id, document, prefix or tag */
	char *entry;         /* how leaks name it: the chunk id itself, else
	                      * "<selector>:<value>" ("doc:x.md", "tag:internal") */
	bool as_string;      /* written as a plain string (a chunk id or doc:NAME) */
	long line, col;      /* where it was read (0: not loaded) */
};

/*
 * A turn of a conversation before the one a question asks
 * (docs/conversations.md): who said it, "user" or "assistant" (another
 * string is kept as read, for set_check to report), and what was said.
 */
struct turn {
	char *role;
	char *text;
	long line, col;  /* where it was read (0: not loaded) */
};
#define TURN_USER "user"
#define TURN_ASSISTANT "assistant"

struct question {
	char *id;
	char *text;
	enum origin origin;
	bool answerable;             /* default true */
	struct label *relevant;      /* grade >= 1 */
	size_t nr_relevant, alloc_relevant;
	struct evidence *evidence;   /* optional: none for most sets */
	size_t nr_evidence, alloc_evidence;
	char **irrelevant;           /* grade 0 */
	size_t nr_irrelevant, alloc_irrelevant;
	struct forbid *forbidden;    /* optional: never to be retrieved */
	size_t nr_forbidden, alloc_forbidden;
	char **tags;
	size_t nr_tags, alloc_tags;
	char *conversation;          /* optional: the id of its conversation, or NULL */
	long turn;                   /* its turn in the conversation, from 1 (as read) */
	long conv_line, conv_col;    /* where 'conversation' was read (0: not loaded) */
	struct turn *history;        /* optional: the turns before it, in order */
	size_t nr_history, alloc_history;
	char *answer;                /* optional short reference answer */
	char *note;
	char *language;              /* optional BCP 47 tag ("de", "pt-BR"), or NULL */
	struct cJSON *provenance;    /* optional free-form map (JSON object) */
	bool relevant_as_list;       /* written as a list: every grade is 1 */
	long line, col;              /* where the question starts in its file (0: not loaded) */
};

struct corpus_ref {
	char *path;
	char *fingerprint;           /* "sha256:..." or NULL */
	long chunks;                 /* -1: unknown */
	char *language;              /* optional BCP 47 tag of the chunks, or NULL */
};

struct set {
	int schema;
	char *name;
	char *description;
	char *version;               /* frozen files only */
	char *digest;                /* frozen files only, as read */
	char *parent;                /* frozen files only */
	char *parent_digest;         /* frozen files only: the parent's digest when tagged */
	char *tagged_at;             /* frozen files only */
	char *note;
	bool has_corpus;
	struct corpus_ref corpus;
	struct question *q;
	size_t nr, alloc;
	char *file;                  /* the file it was loaded from, or NULL */
	char *language;              /* optional BCP 47 tag of the questions, or NULL */
	struct forbid_rule *forbid;  /* optional set-wide forbidden rules */
	size_t nr_forbid, alloc_forbid;
};

#define SET_INIT { SET_SCHEMA, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, false, { NULL, NULL, -1, NULL }, NULL, 0, 0, NULL, NULL, NULL, 0, 0 }

void set_init(struct set *s);
void set_release(struct set *s);

#define SET_MAX_LINE_BYTES (1u << 20)    /* a longer line is refused before parsing */
#define SET_MAX_SCALAR_BYTES (64u << 10) /* a longer YAML scalar is refused */

/*
 * Load the YAML set in 'path' into 's' (initialised by set_init). Refuses
 * what cannot be read (docs/sets.md): YAML syntax errors, anchors and
 * aliases, wrong types, unknown keys, invalid UTF-8, an empty file, and the
 * limits above. Rule violations that can be represented (duplicate ids,
 * grades outside 1..9, labels inconsistent with answerable...) are loaded as
 * they are, for set_check() to report. Return 0, or -1 after reporting the
 * problem as FILE:LINE:COL; 's' is then released (and re-initialised).
 */
int set_load(struct set *s, const char *path);
/* Like set_load, from 'len' bytes of 'buf', reporting as 'name'. */
int set_load_buf(struct set *s, const char *buf, size_t len, const char *name);
/*
 * Load a file of cases for "add --from": either a set file (its questions
 * are taken, its header ignored), a bare YAML sequence of questions, or a
 * single question mapping (a mapping with 'text' and no 'questions', as
 * "evalset show" prints one). An evidence entry may be a quote alone
 * ({quote: "..."}, no chunk, doc or span): it is loaded with a NULL chunk,
 * for the caller to find in the corpus before anything else reads it.
 * "-" reads standard input. Same refusals and return as set_load.
 */
int set_load_cases(struct set *s, const char *path);

/* Serialise 's' as YAML into 'out' (appending). Return 0 or -1. */
int set_to_yaml(const struct set *s, struct strbuf *out);
/* Serialise one question as a YAML mapping into 'out'. Return 0 or -1. */
int question_to_yaml(const struct question *q, struct strbuf *out);
/* Return evidence entry 'e' as a JSON object ({chunk, doc, start, end,
 * quote}, the fields it has); caller frees with cJSON_Delete. */
struct cJSON *evidence_to_json(const struct evidence *e);
/* Return the history of 'q' as a JSON array of {"role", "text"} objects, in
 * order (empty when it has none); caller frees with cJSON_Delete. */
struct cJSON *history_to_json(const struct question *q);
/* Add to object 'j' the "conversation" {id, turn} and the "history" of 'q',
 * each when 'q' has it (the keys of the JSON forms of a question). */
void question_add_conversation_json(struct cJSON *j, const struct question *q);
/* Return 'q' as a JSON object (the same fields as the YAML); caller frees
 * with cJSON_Delete. */
struct cJSON *question_to_json(const struct question *q);
/*
 * What a writer may put into a set is exactly what set_load reads back: every
 * string (id, text, chunk ids, tags, answer, note, header fields, provenance
 * keys and values) valid UTF-8 of at most SET_MAX_SCALAR_BYTES, provenance
 * nested at most SET_MAX_PROVENANCE_DEPTH levels with unique keys, at most
 * SET_MAX_QUESTIONS questions, and a file within SET_MAX_FILE_BYTES and
 * SET_MAX_LINE_BYTES per line.
 */
#define SET_MAX_PROVENANCE_DEPTH (SET_MAX_DEPTH - 3)  /* below the set, the list, the question */
/* Check that 'q' can be written and read back (above). Return 0, or -1 with
 * the problem in 'why' (a phrase naming the field, e.g. "text is longer than
 * the limit of 65536 bytes (70000 bytes)"). */
int question_writable(const struct question *q, struct strbuf *why);
/*
 * Write 's' to 'path' atomically (docs/design.md, "Writing files: atomic
 * writes and journals"). Refuses (nothing written) a set that set_load could
 * not read back: a question or header field that fails question_writable's
 * limits, too many questions, or a file or line over the limits. Return 0 or -1 (reported).
 */
int set_save(const struct set *s, const char *path);

/* Append the canonical serialisation of 's' (every field but version,
 * digest and tagged_at) to 'out'. */
void set_canonical(const struct set *s, struct strbuf *out);
/* Write the digest of 's' ("sha256:<hex>", over set_canonical) into 'out'. */
void set_digest(const struct set *s, char out[72]);
/* Append the canonical serialisation of the questions of 's' only to 'out'. */
void set_content_canonical(const struct set *s, struct strbuf *out);
/* Write the digest of the questions of 's' ("sha256:<hex>", over
 * set_content_canonical) into 'out': equal for two sets exactly when
 * set_diff finds no question added, removed or changed. */
void set_content_digest(const struct set *s, char out[72]);
/* Write the digest of what a retriever sees of the questions: ids, texts,
 * answerability, and conversations and histories where questions have them,
 * sorted by id (labels, tags and header excluded), so that a run stays bound
 * to a set that was only relabelled. */
void set_questions_digest(const struct set *s, char out[72]);

/* Return the question with 'id', or NULL (a scan: for one look-up). */
struct question *set_find(const struct set *s, const char *id);
/* Return the index of the question with 'id', or -1 (a scan). */
long set_index(const struct set *s, const char *id);

/*
 * The questions of a set by id, for many look-ups (one per question of a
 * run or a results file): a hash of the ids, built in one pass. It borrows
 * the set's ids and questions: valid until a question of the set is added,
 * removed or given another id. On ids listed twice (a set check refuses),
 * the first wins, as in set_find.
 */
struct set_lookup {
	struct strmap map;   /* id -> struct question * */
};

void set_lookup_init(struct set_lookup *lk, const struct set *s);
struct question *set_lookup_find(const struct set_lookup *lk, const char *id);
void set_lookup_release(struct set_lookup *lk);
/* Make room for 'n' more questions, exactly (a loader that knows how many). */
void set_reserve(struct set *s, size_t n);
/* Append a copy of nothing: return a new zeroed question at the end (answerable true). */
struct question *set_append(struct set *s);
/* Remove the question at 'index', keeping the order of the others. */
void set_remove(struct set *s, size_t index);
/* Release the memory held by 'q' (not 'q' itself). */
void question_release(struct question *q);
/* Deep-copy 'src' into 'dst'. */
void question_copy(struct question *dst, const struct question *src);
/* Set the grade of 'chunk' for 'q' (grade 0 moves it to irrelevant; a
 * negative grade removes the label, leaving 'chunk' unjudged). */
void question_set_label(struct question *q, const char *chunk, int grade);
/* Append 'chunk' with 'grade' (>= 1) to the relevant chunks of 'q'; the caller
 * knows 'chunk' is in neither list (no search: for many labels at once). */
void question_append_label(struct question *q, const char *chunk, int grade);
/* Append a copy of 'e' to the evidence of 'q'. */
void question_add_evidence(struct question *q, const struct evidence *e);
/* Remove every evidence entry of 'q'. */
void question_clear_evidence(struct question *q);
/* Return the grade of 'chunk' for 'q': >= 1 relevant, 0 judged irrelevant, -1 unjudged. */
int question_grade(const struct question *q, const char *chunk);
/* Append 'id' (a chunk id or "doc:NAME") to the forbidden list of 'q',
 * unless it is there already. */
void question_add_forbidden(struct question *q, const char *id);
/* Return the number of questions of 's' with a forbidden list: every
 * question when the set has set-wide rules. */
size_t set_nr_forbidding(const struct set *s);

/* ---- set-wide forbidden rules (set-forbid.c; docs/access.md) ---- */
/* Return the forbidden entry of 'q' that chunk 'chunk' of document 'doc'
 * (NULL: unknown) matches, or NULL. */
const char *question_forbids(const struct question *q, const char *chunk, const char *doc);

struct findings;

/* Return the selector name of 'kind' ("chunk", "doc", "doc-prefix",
 * "id-prefix", "tag"). */
const char *forbid_kind_name(enum forbid_kind kind);
/* Return 0 and set '*out' for a selector name, else -1 (nothing printed). */
int forbid_kind_parse(const char *name, enum forbid_kind *out);
/* Return why 'value' cannot be a rule's value, or NULL. */
const char *forbid_value_problem(const char *value);
/* Append a rule of 'kind' with 'value' (copied) to 's'. */
struct forbid_rule *set_add_forbid(struct set *s, enum forbid_kind kind, const char *value);
/* Replace the rules of 'dst' by copies of those of 'src'. */
void set_copy_forbid(struct set *dst, const struct set *src);
void set_clear_forbid(struct set *s);
/* Return true when rule 'r' needs a corpus to be decided (doc, doc-prefix, tag). */
bool forbid_rule_needs_corpus(const struct forbid_rule *r);
/* Return the first rule of 's' that needs a corpus, or NULL. */
const struct forbid_rule *set_forbid_needs_corpus(const struct set *s);
/*
 * Return the entry (forbid_rule.entry) of the first set-wide rule of 's'
 * that chunk 'chunk' of document 'doc' (NULL: unknown) matches, or NULL;
 * 'corpus' (may be NULL) gives the chunk's tags.
 */
const char *set_rule_forbids(const struct set *s, const struct corpus *corpus, const char *chunk,
			     const char *doc);
/*
 * Return what question 'q' of 's' forbids chunk 'chunk' by: its own entry
 * (question_forbids) first, else a set-wide rule's entry; NULL when
 * neither. 'corpus' (may be NULL) gives the chunk's document and tags;
 * 'buf' is scratch space for the document name.
 */
const char *set_forbids(const struct set *s, const struct question *q, const struct corpus *corpus,
			const char *chunk, struct strbuf *buf);
/* Return true when question 'q' of 's' forbids anything (its own list, or a set-wide rule). */
bool set_question_forbids(const struct set *s, const struct question *q);
/* Return the rule of 's' whose entry is 'entry', or NULL. */
const struct forbid_rule *set_find_forbid(const struct set *s, const char *entry);
/* Return true when rule 'r' matches 'chunk' on its id alone (chunk and id-prefix rules). */
bool forbid_rule_matches_id(const struct forbid_rule *r, const char *chunk);
/*
 * Add to 'out' the findings on the set-wide rules of 's': a rule listed
 * twice (error); with or without 'corpus', a relevant chunk of a question
 * that a rule forbids (error, at the label: a chunk cannot be both; rules
 * that need a corpus are decided only with one); with 'corpus', a rule
 * matching no chunk of it (warning); without, a rule that needs one
 * (warning: not checked). 'warnings' false: the errors only.
 */
void set_check_forbid(const struct set *s, const struct corpus *corpus, struct findings *out,
		      bool warnings);
/*
 * Refuse to find leaks of 's' when the set-wide rules cannot be decided:
 * a rule needs the corpus and 'corpus' (may be NULL) holds no chunk, or a
 * rule forbids a relevant chunk of a question. Return 0, or -1 (reported,
 * naming the set's file, line and column).
 */
int set_forbid_ready(const struct set *s, const struct corpus *corpus);
bool question_has_tag(const struct question *q, const char *tag);

/* ---- conversations (set-conv.c; the rules in set-check.c;
 *      docs/conversations.md) ---- */

/* Append a turn ('role', 'text', both copied) to the history of 'q'. */
void question_add_turn(struct question *q, const char *role, const char *text);
/* Free the history and the conversation of 'q' (leaving none). */
void question_clear_conversation(struct question *q);
/* Deep-copy the conversation and history of 'src' into 'dst' (whose own
 * pointers are overwritten, not freed). */
void question_copy_conversation(struct question *dst, const struct question *src);
/* Return true when 'q' is a follow-up: a turn with turns before it (a
 * history, or a turn index above 1). */
bool question_is_follow_up(const struct question *q);
/* The turn positions score and compare report apart (docs/conversations.md,
 * "Subsets"): a first turn, or a follow-up (question_is_follow_up). */
#define TURN_FIRST "first"
#define TURN_FOLLOW_UP "follow-up"
/* Return TURN_FIRST or TURN_FOLLOW_UP for 'q'. */
const char *question_turn_position(const struct question *q);
/* Return true when 'a' and 'b' are the same turn of the same conversation
 * (or both outside any) after the same history, turn for turn. */
bool question_conversation_eq(const struct question *a, const struct question *b);
/* Return true when some question of 's' has a conversation or a history. */
bool set_has_conversations(const struct set *s);
/*
 * Add to 'out' the conversation rules' findings (docs/conversations.md,
 * "Rules"): roles, empty turns, turn indexes below 1, a history whose user
 * turns are not the turn index minus one, two questions at one turn of a
 * conversation, and questions of one conversation whose histories do not
 * continue each other.
 */
struct findings;
void set_check_conversations(const struct set *s, struct findings *out);

/*
 * Return a new question id for 's' of the form "q-NNNN", one more than the
 * highest numeric id the set holds or has ever held; 'floor' (may be 0) is the
 * highest number known to have been used before (kept in .evalset/ids), so
 * removed ids are never reused. Caller frees.
 */
char *set_next_id(const struct set *s, long floor);
/* The id that follows the number 'hi' (the highest in use): "q-%04ld" of hi + 1. Caller frees. */
char *set_id_after(long hi);
/* Return the number of 'id' when it has the form "q-<digits>", else -1. */
long question_id_number(const char *id);

/* ---- where sets live (docs/design.md, "The model") ---- */

struct set_ref {
	char *dir;      /* sets/<name> */
	char *file;     /* dir/set.yaml, or dir/versions/<tag>.yaml */
	char *name;     /* basename of dir */
	char *tag;      /* NULL for the working copy */
};
#define SET_REF_INIT { NULL, NULL, NULL, NULL }

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
 * ("tampered or hand-edited frozen version"), when it does not record its
 * own tag as 'version', or when its history does not verify
 * (set_chain_verify). The rules of set_check_errors
 * are enforced: each error is reported as FILE:LINE:COL and the set refused.
 * 'ref' (SET_REF_INIT) is filled in; the caller releases it even on failure.
 * Return 0 or -1 (reported).
 */
int set_open(struct set *s, struct set_ref *ref, const char *arg);
/*
 * Like set_open for an already resolved 'ref', with 'check_rules' false
 * leaving the rules to the caller (check reports them as findings). A frozen
 * version whose digest does not match is still refused.
 */
int set_open_ref(struct set *s, const struct set_ref *ref, bool check_rules);

/*
 * Return the highest question number ever used by the set in 'ref->dir':
 * the working copy, every file under versions/, the rejected list
 * (rejected.h) and the floor kept in .evalset/ids. 0 when none. (A broken version file is scanned as text.)
 */
long set_id_floor(const struct set_ref *ref);
/*
 * Report every id that 'in' gives (an explicit --id, an id in a --from file)
 * that the set in 'ref' used before for another question: an id held by a
 * frozen version with another text ("was used before (in versions/v1.yaml)";
 * the same text is that question coming back, and is accepted), or, held by
 * no version, a q-NNNN numbered at or below the floor recorded in
 * .evalset/ids. Ids 'wc' (the working copy) holds are left to the caller.
 * Errors go through error_at('in->file', ...). Return how many were refused;
 * a version that cannot be read counts as one (reported), since it may hold
 * any id.
 */
size_t set_refuse_reused_ids(const struct set_ref *ref, const struct set *wc,
			     const struct set *in);
/* Record 'floor' in 'ref->dir'/.evalset/ids (atomically) when it is higher
 * than the one recorded. Return 0 or -1 (reported). */
int set_id_floor_write(const struct set_ref *ref, long floor);
/* Return a new string "'ref->dir'/.evalset/lock" for lock_take; caller frees.
 * Creates the .evalset directory when 'create' is true. */
char *set_lock_path(const struct set_ref *ref, bool create);
/* Take the lock of the set 'ref' (set_lock_path, created when missing) into
 * 'lk', naming the set by its directory. Return 0 or -1 (reported). */
struct lock_file;
int set_lock_take(struct lock_file *lk, const struct set_ref *ref);

/* A frozen version of a set, as listed by set_versions. */
struct set_version {
	char *tag;        /* file name without ".yaml" */
	char *file;       /* dir/versions/<tag>.yaml */
	/* what the file records (header fields as recorded, or NULL; question
	 * count; its ids and the digest of each id's text), from versioncache */
	struct version_summary summary;
	/* NULL when the file is intact: its digest recomputes to the one recorded
	 * and it records its own tag as 'version'; else what is wrong, as a
	 * message with one '%s' for the file */
	const char *problem;
};
struct set_versions {
	struct set_version *items;
	size_t nr, alloc;
};
#define SET_VERSIONS_INIT { NULL, 0, 0 }
/*
 * List the frozen versions of the set in 'ref->dir' in tag order: every
 * version after its parent (roots first); versions whose order the parent
 * chain leaves open (unrelated chains, roots) by tagged_at (missing first),
 * then by tag (strcmp). Every file is loaded and its digest recomputed
 * (the 'problem' of each entry; nothing reported). Return 0 (an empty list
 * when there is no versions/ directory), or -1 when a version file cannot be
 * read (reported).
 */
int set_versions_list(const struct set_ref *ref, struct set_versions *out);
/*
 * Fill 'out' (SET_VERSIONS_INIT) with the frozen version 'tag' of the set in
 * 'ref->dir' and its ancestors, parent by parent, for set_chain_verify:
 * item 0 is 'tag', its summary 'head' (moved in: the caller has the
 * version loaded and checked); each parent is read from
 * versions/<parent>.yaml for its header alone (version_summary_load_head),
 * so that the set's other versions and every question id are left unread.
 * A parent that is missing or names a version already in the chain ends
 * the walk (set_chain_verify reports both). Return 0, or -1 when a parent's
 * file cannot be read or parsed (reported).
 */
int set_versions_chain(const struct set_ref *ref, const char *tag,
		       struct version_summary *head, struct set_versions *out);
/*
 * Verify the history of version 'at' (an index into 'v'): that version and
 * each parent back to the first tag must be intact (see 'problem'), every
 * parent must exist, the parent digest a version recorded must be its
 * parent's digest, and the chain may not loop. Report every problem through
 * error() and return how many there were. Links whose child records no
 * parent digest (tagged before evalset recorded them) are not problems:
 * they are counted in '*unanchored' (may be NULL).
 */
size_t set_chain_verify(const struct set_ref *ref, const struct set_versions *v, size_t at,
			size_t *unanchored);
/* Like set_chain_verify over every version of 'v' (each reported once). */
size_t set_versions_verify(const struct set_ref *ref, const struct set_versions *v,
			   size_t *unanchored);
/* Return the index of 'tag' in 'v', or -1. */
long set_versions_find(const struct set_versions *v, const char *tag);
void set_versions_release(struct set_versions *v);
/*
 * Write the recorded digest of the latest frozen version (the last of
 * set_versions_list) into 'out' and its tag into '*tag' (caller frees; may
 * be NULL). Return 1 when found, 0 when the set has no versions, -1 on error.
 */
int set_latest_digest(const struct set_ref *ref, char out[72], char **tag);
/*
 * Load the latest frozen version of the set in 'ref' (the last of
 * set_versions_list; not digest-checked) into 'out' (SET_INIT) and its tag
 * into '*tag' (caller frees; may be NULL). Return 1 when loaded, 0 when the
 * set has no versions, -1 when a version cannot be read (reported).
 */
int set_latest_load(const struct set_ref *ref, struct set *out, char **tag);

/* ---- check (the rules and warnings of docs/sets.md, "Rules") ---- */

enum finding_level { FINDING_ERROR, FINDING_WARNING };

struct finding {
	enum finding_level level;
	char *file;      /* the file it is about, NULL: the set's own file */
	long line, col;
	char *message;
};

struct findings {
	struct finding *items;
	size_t nr, alloc;
	size_t nr_errors, nr_warnings;
};

/*
 * Check 's' against every rule and warning of docs/sets.md ("Rules"), with
 * chunk ids checked against 'corpus' when not NULL. Findings are appended to 'out'.
 */
void set_check(const struct set *s, const struct corpus *corpus, struct findings *out);
/* Return the language code of 'q': its own, else the set's, else detected
 * in its text ("und" when nothing tells). */
const char *question_language(const struct set *s, const struct question *q);
/* What set_record_languages wrote (NULL or 0: nothing). */
struct language_record {
	const char *set;        /* the set's language, newly recorded */
	const char *corpus;     /* the corpus's */
	size_t questions;       /* questions given their own */
};
/*
 * Record in 's' the languages detection finds where it records none: the
 * set's 'language' (detected over all its questions together), the
 * corpus's (over the first chunks of 'corpus', when not NULL and the set
 * names a corpus), and the 'language' of each question whose text is
 * clearly in another language than the set's (lang_text_fits) and whose own
 * language is determined. A language already recorded is never changed, and
 * nothing is recorded from undetermined text. Fill 'rec'; return the number
 * of fields recorded.
 */
size_t set_record_languages(struct set *s, const struct corpus *corpus, struct language_record *rec);
/* Like set_check with only the error rules (no warnings): what set_open and
 * add enforce. */
void set_check_errors(const struct set *s, const struct corpus *corpus, struct findings *out);
/*
 * Add to 'out' one finding of 'level' per question of 's' tagged "stale" or
 * "unmapped" (what remap tags a question it left without a label: it was
 * made unanswerable until a person looks), naming the old labels from its
 * provenance. check reports them as errors, tag refuses them unless told.
 * Return their number.
 */
size_t set_check_stale(const struct set *s, enum finding_level level, struct findings *out);
/* Append a finding (findings.c); 'fmt' is printf-like. */
void findings_add(struct findings *f, enum finding_level level, long line, long col,
		  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Append a finding about another file than the set's (a corpus). */
void findings_add_at(struct findings *f, enum finding_level level, const char *file, long line,
		     long col, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Report every error finding of 'f' through error_at('file', ...). Return
 * the number of errors. */
size_t findings_report_errors(const struct findings *f, const char *file);
void findings_release(struct findings *f);
#define FINDINGS_INIT { NULL, 0, 0, 0, 0 }

#endif
