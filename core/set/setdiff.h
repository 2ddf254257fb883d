/*
 * setdiff: what changed between two versions of a set (evalset diff,
 * docs/versions.md).
 *
 * Questions are matched by id (ids are stable and never reused:
 * docs/design.md, "Ids"), so a question whose text was edited is "changed",
 * not removed and added. A question is changed when anything the content digest
 * (set_content_digest) covers differs:
 * its text, its labels (relevant grades and judged-irrelevant chunks), its
 * answerable flag, its tags, or another field (origin, provenance, answer,
 * note). Label lists and tags are compared as sets, so reordering them is no
 * change, exactly as for the digest. The set-wide forbidden rules, which
 * the content digest covers too, are compared as a set and listed apart
 * (rules_added, rules_removed). Two sets have an empty diff exactly
 * when their content digests are equal. Header changes (name, description,
 * corpus) are reported apart, as HCHANGE_* bits.
 *
 * A change is "provenance only" when the question says the same thing and
 * is judged on the same evidence, only its chunk ids or provenance moved:
 * text, answerability, tags, origin, answer and note unchanged, every
 * evidence place (doc, span, quote) of the older side still there, and
 * either no label changed, or the newer side's provenance.remapped_from
 * (what remap records, changed) carries every label to the chunks it now
 * has, at the same grade, none stale or unmapped and no judged-irrelevant
 * chunk dropped. Such changes (after a remap, most of a set) are counted
 * and listed apart, after the content changes; the per-kind counts
 * (nr_text...) are of content changes only.
 *
 * Order: added questions in the order of the newer set, removed ones in the
 * order of the older set, changed ones in the order of the newer set; label
 * changes by chunk id (strcmp), tag changes by tag.
 *
 * Ownership: a struct set_diff owns copies of every string it holds, so the
 * two sets can be released as soon as set_diff_compute returns.
 */
#ifndef EVALSET_SETDIFF_H
#define EVALSET_SETDIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"

struct cJSON;
struct set;

/* What changed in one question (bits of question_change.what). */
#define QCHANGE_TEXT       (1u << 0)
#define QCHANGE_LABELS     (1u << 1)
#define QCHANGE_ANSWERABLE (1u << 2)
#define QCHANGE_TAGS       (1u << 3)
#define QCHANGE_OTHER      (1u << 4)   /* origin, provenance, answer or note */

/* What changed in the header (bits of set_diff.header): the fields that come
 * from the working copy. Tag metadata (version, digest, parent, tagged_at,
 * note) is never a change. */
#define HCHANGE_NAME        (1u << 0)
#define HCHANGE_DESCRIPTION (1u << 1)
#define HCHANGE_CORPUS      (1u << 2)   /* corpus path; fingerprint or chunk
					 * count when both sides are frozen */

/* A chunk whose judgement changed: grades as question_grade() gives them
 * (>= 1 relevant, 0 judged irrelevant, -1 not judged). */
struct label_change {
	char *chunk;
	int from, to;
};

struct question_change {
	char *id;
	unsigned what;                 /* QCHANGE_* bits, never 0 */
	char *from_text, *to_text;     /* both set (to the new text when unchanged) */
	bool from_answerable, to_answerable;
	struct label_change *labels;
	size_t nr_labels, alloc_labels;
	char **tags_added, **tags_removed;
	size_t nr_tags_added, alloc_tags_added, nr_tags_removed, alloc_tags_removed;
	char **other;                  /* names of the other fields that changed */
	size_t nr_other, alloc_other;
	bool provenance_only;          /* a label move with the same evidence (above) */
};

/* A question present on one side only. */
struct diff_question {
	char *id;
	char *text;
};

/* One side of a diff, as the user named it. */
struct diff_side {
	char *name;      /* the set's name */
	char *version;   /* the tag, or NULL for a working copy */
	char digest[72];          /* set_digest: what results record */
	char content_digest[72];  /* set_content_digest: the questions only */
	size_t nr_questions;
};

struct set_diff {
	struct diff_side from, to;
	struct diff_question *added, *removed;
	size_t nr_added, alloc_added, nr_removed, alloc_removed;
	struct question_change *changed;
	size_t nr_changed, alloc_changed;
	size_t nr_unchanged;
	/* how many content changes have each kind of change */
	size_t nr_text, nr_labels, nr_answerable, nr_tags, nr_other;
	unsigned header;          /* HCHANGE_* bits */
	size_t nr_provenance_only;  /* changes that are provenance only (above) */
	/* set-wide forbidden rules added and removed, as "selector:value"
	 * ("tag:internal"), in the order of the newer and the older set */
	char **rules_added, **rules_removed;
	size_t nr_rules_added, alloc_rules_added, nr_rules_removed, alloc_rules_removed;
};

#define SET_DIFF_INIT { { NULL, NULL, "", "", 0 }, { NULL, NULL, "", "", 0 }, NULL, NULL, 0, 0, \
			0, 0, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, 0, 0, 0, 0 }

/*
 * Compute what changed from 'from' to 'to' into 'out' (SET_DIFF_INIT).
 * The sides are described by the sets' own name and version fields.
 */
void set_diff_compute(const struct set *from, const struct set *to, struct set_diff *out);
void set_diff_release(struct set_diff *d);
/* Return true when the two sets have the same questions (no question
 * added, removed or changed) and set-wide forbidden rules: exactly when
 * their content digests are equal.
 * The header is not looked at (see d->header). */
bool set_diff_empty(const struct set_diff *d);
/* Return the HCHANGE_* bits of what differs between the headers of 'from'
 * and 'to'. */
unsigned set_header_changes(const struct set *from, const struct set *to);

/*
 * Append the one-line summary (no newline), e.g. "2 added, 1 removed,
 * 3 changed (1 text, 2 labels, 1 answerable), 167 unchanged" (kinds of
 * change with a count of 0 left out; a question can count in several), or
 * "no changes (173 questions)"; a header change is appended as
 * "; header changed: description, corpus". With provenance-only changes:
 * "83 changed: 2 in content (2 labels, 2 answerable), 81 provenance only
 * (the same question on the same evidence), 90 unchanged".
 */
void set_diff_summary(const struct set_diff *d, struct strbuf *out);
/* Append the human-readable diff, ending with the summary line. */
void set_diff_format_text(const struct set_diff *d, struct strbuf *out);
/* Return the diff as a JSON object (from, to, summary, added, removed,
 * changed); caller frees with cJSON_Delete. */
struct cJSON *set_diff_to_json(const struct set_diff *d);

/* Append "<name>" or "<name>@<version>" for a side. */
void diff_side_label(const struct diff_side *side, struct strbuf *out);

#endif
