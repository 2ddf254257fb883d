/*
 * stem: the Porter stemmer, as published in M.F. Porter, "An algorithm for
 * suffix stripping", Program 14(3), 1980.
 *
 * The rules are the paper's (step 2 has ABLI -> ABLE and no LOGI rule; the
 * later "Porter2"/Snowball and the author's revised C release differ there).
 * Only words made entirely of the ASCII letters a-z are stemmed; anything
 * else (digits, capitals, accented letters) is left as it is, so the stemmer
 * never damages tokens it was not designed for. Words of one or two letters
 * are left alone, as in the author's own implementation.
 */
#ifndef EVALSET_STEM_H
#define EVALSET_STEM_H

#include <stddef.h>

/*
 * Stem the 'len' bytes of 'word' in place and return the stem's length
 * (never more than 'len'). 'word' is not NUL-terminated by this function;
 * callers that need a string terminate it at the returned length.
 */
size_t porter_stem(char *word, size_t len);

#endif
