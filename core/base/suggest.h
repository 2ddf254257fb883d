/*
 * suggest: "did you mean" for a name the user mistyped (a set key, a
 * measure, a set, a chunk id): the edit distance between two short names,
 * and a collector that keeps the known names closest to the one given.
 *
 * Distances count single-byte insertions, deletions and substitutions
 * (Levenshtein), optionally ignoring ASCII case. Names are short: a name of
 * more than SUGGEST_MAX_LEN bytes is never suggested, nor suggested for.
 *
 * Many names (a corpus's chunk ids, 100k and more) go through a struct
 * suggest_index: sorted once, so that names sharing a prefix share the rows
 * of the distance table, a prefix already too far drops every name that
 * starts with it, and only names whose length is within reach are looked at.
 * The index has no length limit (its table is on the heap).
 *
 * Ownership: a struct suggest copies the names it keeps (a candidate may be
 * a buffer the caller reuses) and frees them in suggest_release(). A struct
 * suggest_index borrows its names: they must outlive it.
 */
#ifndef EVALSET_SUGGEST_H
#define EVALSET_SUGGEST_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"

#define SUGGEST_MAX_LEN 62

/*
 * Return the edit distance between 'a' ('la' bytes) and 'b' ('lb' bytes),
 * comparing ASCII letters without case when 'fold_case'; at most 'cap' (also
 * when either is longer than SUGGEST_MAX_LEN).
 */
size_t edit_distance(const char *a, size_t la, const char *b, size_t lb, bool fold_case, size_t cap);

struct suggest {
	const char *word;      /* the name given (not owned) */
	size_t len;
	size_t max;            /* a name further than this is not suggested */
	bool fold_case;
	size_t best;           /* distance of the names kept; max + 1: none yet */
	char **names;          /* the names at distance 'best', in the order offered */
	size_t nr, alloc;
};

/*
 * Start collecting names close to 'word' ('len' bytes): within 'max' edits.
 * The "did you mean" rules of evalset are max 2 for keys and measures, and a
 * third of the name's length for names the user chose (suggest_max_for()).
 */
void suggest_init(struct suggest *s, const char *word, size_t len, size_t max, bool fold_case);
/* Return the distance allowed for a user-chosen name of 'len' bytes: len / 3. */
size_t suggest_max_for(size_t len);
/* Offer the known name 'name': kept when no name offered before is closer. */
void suggest_offer(struct suggest *s, const char *name);
/*
 * Append "; did you mean 'a'?" to 'out', or with several closest names
 * "; did you mean 'a', 'b'?" (at most 'most' of them, in the order offered),
 * each followed by 'tail' (may be NULL); nothing when no name was close.
 * Return the number of names written.
 */
size_t suggest_did_you_mean(const struct suggest *s, size_t most, const char *tail, struct strbuf *out);
void suggest_release(struct suggest *s);

struct suggest_index {
	const char **names;  /* sorted in strcmp order (borrowed strings) */
	size_t *len;         /* strlen of each */
	size_t *lcp;         /* bytes names[i] shares with names[i - 1]; lcp[0] = 0 */
	size_t nr;
};

#define SUGGEST_INDEX_INIT { NULL, NULL, NULL, 0 }

/* Index the 'nr' names of 'names' (borrowed) into 'ix'. */
void suggest_index_build(struct suggest_index *ix, const char *const *names, size_t nr);
/*
 * Offer every name of 'ix' to 's': the same names are kept as suggest_offer()
 * on each in sorted order would keep, whatever their length. The work grows
 * with the names within reach of the word, not with the whole table.
 */
void suggest_offer_index(struct suggest *s, const struct suggest_index *ix);
void suggest_index_release(struct suggest_index *ix);

#endif
