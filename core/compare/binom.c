/*
 * binom: the log factorial table and the logs of q (definitions in binom.h).
 */
#include "compare/binom.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>

void binom_init(struct binom *b, size_t n)
{
	b->n = n;
	b->lf = xreallocarray(NULL, n + 1, sizeof(*b->lf));
	for (size_t k = 0; k <= n; k++)
		b->lf[k] = lgamma((double)k + 1);
}

void binom_free(struct binom *b)
{
	free(b->lf);
	b->lf = NULL;
	b->n = 0;
}

const struct binom *binom_shared(size_t n)
{
	static _Thread_local struct binom shared;

	if (!shared.lf || shared.n < n) {
		/* grown to twice what was asked before, so that a search over
		 * growing n makes few tables (up to 65,536 counts: beyond, the
		 * n asked for) */
		size_t want = n > 2 * shared.n || n > 65536 ? n : 2 * shared.n;

		binom_free(&shared);
		binom_init(&shared, want);
	}
	return &shared;
}

struct binom_q binom_q(double q)
{
	return (struct binom_q){ log(q), log1p(-q) };
}
