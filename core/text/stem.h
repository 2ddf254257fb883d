/*
 * stem: Snowball stemmers (Debian's libstemmer) for the languages of
 * core/text/lang.h that Snowball covers.
 *
 * Input is a token as the tokenizer gives it (normalised: NFKC, case
 * folded). Words of one or two characters are left as they are, whatever
 * the language: Snowball would turn English "is" or "as" into "i" and "a",
 * and a short word has little to gain from stemming.
 *
 * A stemmer holds state: one per thread. stemmer_new returns NULL for a
 * language without a Snowball stemmer; stemmer_free accepts NULL.
 */
#ifndef EVALSET_STEM_H
#define EVALSET_STEM_H

#include <stddef.h>

struct lang;
struct stemmer;

/* Return a stemmer for 'l', or NULL when Snowball has none for it; free
 * with stemmer_free. */
struct stemmer *stemmer_new(const struct lang *l);
void stemmer_free(struct stemmer *st);

/*
 * Return the stem of the 'len' bytes at 'w' and its length in '*out_len'.
 * The result is 'w' itself (a word left alone) or memory of 'st', valid
 * until the next call on 'st'; it is not NUL-terminated when it is 'w'.
 */
const char *stemmer_stem(struct stemmer *st, const char *w, size_t len, size_t *out_len);

#endif
