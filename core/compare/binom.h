/*
 * binom: binomial log probabilities from a table of log factorials, for the
 * exact tests and their power (binexact.c, gatetest.c), which sum thousands
 * of binomial terms per p.
 *
 * Why: log C(m, x) + x log q + (m - x) log(1 - q) computed afresh costs three
 * lgamma, a log and a log1p per term; with the log factorials made once per
 * sum and the logs of q and 1 - q once per q, a term costs three loads and
 * two multiplications. The value is the same double: the same functions of
 * the same arguments, combined in the same order.
 *
 * Ownership: binom_init allocates the table, binom_free frees it; the
 * struct may live on the stack. binom_shared's table is the thread's, kept
 * until exit. Pure computation otherwise.
 */
#ifndef EVALSET_BINOM_H
#define EVALSET_BINOM_H

#include <stddef.h>

struct binom {
	double *lf;   /* lf[k] = lgamma(k + 1), for k = 0..n */
	size_t n;
};

/* The logs of a binomial probability q, for binom_log_pmf. */
struct binom_q {
	double lq;    /* log(q) */
	double l1q;   /* log1p(-q) */
};

/* Make the table for counts up to 'n'. */
void binom_init(struct binom *b, size_t n);
void binom_free(struct binom *b);

/* Return this thread's table, made or grown to cover counts up to 'n' at
 * least: the same values as a table of binom_init(n) for every count up to
 * n, made once rather than once per sum (n + 1 lgamma each time). It stays
 * until the process exits, and is valid until the next call with a larger
 * 'n'. */
const struct binom *binom_shared(size_t n);

/* The logs of 'q', which must be in (0, 1). */
struct binom_q binom_q(double q);

/* Return log P(Binomial(m, q) = x) for m <= b->n and x <= m, equal to
 * lgamma(m + 1) - lgamma(x + 1) - lgamma(m - x + 1) + x log(q)
 * + (m - x) log1p(-q), evaluated in that order. */
static inline double binom_log_pmf(const struct binom *b, size_t m, size_t x, struct binom_q q)
{
	return b->lf[m] - b->lf[x] - b->lf[m - x] + (double)x * q.lq + (double)(m - x) * q.l1q;
}

#endif
