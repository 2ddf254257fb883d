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

struct binom_q binom_q(double q)
{
	return (struct binom_q){ log(q), log1p(-q) };
}
