/*
 * neardup: a near-duplicate filter that scales to many thousands of texts,
 * through an inverted index over their words (import's mined queries,
 * check's questions).
 *
 * Near-duplicates are exactly text_near_duplicate() at a threshold in
 * (0, 1]: same text_normalize() form, or Jaccard similarity of content words
 * at or above the threshold (of all words, when neither text has a content
 * word). Candidates are found by prefix filtering (two sets with Jaccard >= t
 * share one of their first |x| - ceil(t|x|) + 1 tokens in any fixed global
 * token order), then verified, so the answer is the same as comparing every
 * pair. The order is rarest first when the filter was given hints
 * (dedup_hint: fewer hinted texts holding the token first, ties and unhinted
 * tokens by hash), which keeps frequent words out of the prefixes and the
 * candidate lists short; without hints it is the token hash. Either way a
 * lookup answers the held near-duplicate with the smallest id, so the
 * answer does not depend on the order or on the hints.
 *
 * Ownership: the filter copies what it holds (or takes a prepared text's
 * hashes, where said); dedup_free frees everything.
 */
#ifndef EVALSET_NEARDUP_H
#define EVALSET_NEARDUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dedup;

/* A text prepared for the filter: its text_normalize form and the sorted
 * distinct hashes of its content words (of all its words, flagged by
 * 'stop_only', when it has no content word). Texts that differ only in case,
 * Unicode compatibility forms, whitespace and punctuation prepare the same.
 * Preparing is pure: texts may be prepared from several threads at once. */
struct dd_text {
	char *norm;
	uint64_t *h;
	size_t nr;
	bool stop_only;
};
/* Prepare 'len' bytes of 'text' into 't' (release with dedup_text_release). */
void dedup_text_prepare(const char *text, size_t len, struct dd_text *t);
void dedup_text_release(struct dd_text *t);

/* Return a new empty filter at 'threshold' in (0, 1] (e.g. TEXT_NEAR_DUP_THRESHOLD). */
struct dedup *dedup_new(double threshold);
void dedup_free(struct dedup *d);
/*
 * Count the words of 't' for the token order (see above). Optional: call it
 * for every text the filter will see, before the first dedup_add, _find or
 * _check; a hint given after that is ignored (the order must stay fixed).
 * Hints only change speed, never an answer. 't' stays the caller's.
 */
void dedup_hint(struct dedup *d, const struct dd_text *t);
/* Return the id of the held near-duplicate of 'text' with the smallest id
 * (ids as given to dedup_add), or -1 when none is held. */
long dedup_find(struct dedup *d, const char *text);
/* Hold 'text' under the number 'id' (returned by later dedup_find calls);
 * ids need not be distinct nor increasing (increasing ids are fastest). */
void dedup_add(struct dedup *d, const char *text, long id);
/* Return what dedup_find returns for 'text'; when that is -1, hold 'text'
 * under 'id' too (preparing the text once). */
long dedup_check(struct dedup *d, const char *text, long id);
/* Like dedup_check with 't' prepared from 'text' (or a text that prepares the
 * same); holding it takes its hashes (t->h becomes NULL). */
long dedup_check_prepared(struct dedup *d, const char *text, struct dd_text *t, long id);

/* Return what dedup_find returns for 't' (prepared), then hold it under 'id'
 * whatever was found, taking its hashes (t->h becomes NULL): each text
 * compared with every text before it, as check does. */
long dedup_find_add_prepared(struct dedup *d, struct dd_text *t, long id);

#endif
