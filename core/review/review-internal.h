/*
 * review-internal: what the files of the review wing share below review.h.
 */
#ifndef EVALSET_REVIEW_INTERNAL_H
#define EVALSET_REVIEW_INTERNAL_H

#include "review/review.h"

/*
 * Make the corpus held the one the set 's' (as now on disk) names, as it
 * is now on disk: read again when the set names another file, or when the
 * file changed (`chunk -o ... --force` re-chunked it), so that a label on a
 * chunk that is gone is refused. A corpus that was there and is gone
 * refuses (-1, reported): labels could not be checked.
 */
int review_refresh_corpus(struct review *r, const struct set *s);

#endif
