/*
 * rejected: the questions a reviewer rejected, kept out of the set but
 * remembered in 'sets/NAME/rejected.yaml' beside set.yaml (docs/review.md).
 *
 * The file is a set file (the same YAML, loaded and saved by set_load and
 * set_save), so it diffs, versions and reads like the set itself. Each
 * question keeps its id, text, labels and provenance as they were, plus
 * provenance.review "rejected", reviewed_by, reviewed_at and reason. It is
 * never tagged and never scored. Two readers rely on it: set_id_floor (an id
 * it holds is never handed out again) and generate (a proposal that is a
 * near duplicate of a rejected text is dropped, counted apart).
 *
 * Ownership: the set filled in belongs to the caller (set_release).
 */
#ifndef EVALSET_REJECTED_H
#define EVALSET_REJECTED_H

struct set;
struct set_ref;
struct question;

#define REJECTED_FILE "rejected.yaml"

/* Return "'ref->dir'/rejected.yaml"; caller frees. */
char *rejected_path(const struct set_ref *ref);

/*
 * Load the rejected list of the set in 'ref' into 'out' (SET_INIT). A
 * missing file gives an empty list named after the set. Return 0, or -1
 * when the file exists but cannot be read (reported as FILE:LINE:COL).
 */
int rejected_load(const struct set_ref *ref, struct set *out);

/*
 * Append a copy of 'q' to the rejected list of 'ref' and save it
 * atomically; a question of the same id already there (a rejection that
 * did not reach the set before a crash) is replaced, never listed twice.
 * The caller holds the set's lock and has recorded the id floor. Return 0
 * or -1 (reported; nothing written).
 */
int rejected_add(const struct set_ref *ref, const struct question *q);

/*
 * Take the question 'id' out of the rejected list of 'ref' (an undone
 * rejection) and save it atomically; an id not there leaves the file as it
 * is. The caller holds the set's lock. Return 0 or -1 (reported).
 */
int rejected_remove(const struct set_ref *ref, const char *id);

#endif
