/*
 * suggest: "did you mean" for a name the user mistyped (a set key, a
 * measure, a set, a chunk id): the edit distance between two short names,
 * and a collector that keeps the known names closest to the one given.
 *
 * Distances count single-byte insertions, deletions and substitutions
 * (Levenshtein), optionally ignoring ASCII case. Names are short: a name of
 * more than SUGGEST_MAX_LEN bytes is never suggested, nor suggested for.
 *
 * Ownership: a struct suggest copies the names it keeps (a candidate may be
 * a buffer the caller reuses) and frees them in suggest_release().
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

#endif
