/*
 * agreement: how far an LLM judge agrees with existing labels (docs/pool.md,
 * `evalset judge --against`), as unweighted Cohen's kappa with the
 * confusion table, on the four grade levels 0..3 and on binary relevance
 * (grade >= 1 against 0).
 *
 *   kappa = (po - pe) / (1 - pe)
 *
 * where po is the share of pairs on the diagonal and pe the agreement
 * expected by chance from the row and column totals. Kappa is undefined
 * (NAN) when there are no pairs or when pe is 1 (both raters put every pair
 * in one and the same level): no statistic can tell agreement from chance
 * there.
 *
 * Ownership: plain values; nothing to free.
 */
#ifndef EVALSET_AGREEMENT_H
#define EVALSET_AGREEMENT_H

#define AGREEMENT_LEVELS 4

struct agreement {
	long table[AGREEMENT_LEVELS][AGREEMENT_LEVELS]; /* [label][judge] */
	long n;
};
#define AGREEMENT_INIT { { { 0 } }, 0 }

/* Count one pair: 'label' and 'judge' are clamped to 0..3. */
void agreement_add(struct agreement *a, int label, int judge);

/* Return Cohen's kappa of the k x k table 'table' (row-major), or NAN. */
double cohen_kappa(const long *table, int k);
/* Return the observed agreement (share on the diagonal) of 'table', or NAN when empty. */
double observed_agreement(const long *table, int k);

/* Kappa over the four levels, or NAN. */
double agreement_kappa(const struct agreement *a);
/* Fill the 2 x 2 binary table (0: grade 0, 1: grade >= 'min_grade') of 'a'. */
void agreement_binary(const struct agreement *a, int min_grade, long out[2][2]);
/* Kappa on binary relevance at 'min_grade', or NAN. */
double agreement_kappa_binary(const struct agreement *a, int min_grade);

/*
 * The uncertainty of a kappa. KAPPA_INTERVAL_RESAMPLES times, draw as many
 * pairs as the k x k 'table' holds, with replacement, from its pairs (a
 * bootstrap over the pairs, seeded with 'seed': the same table gives the
 * same interval), and take the kappa of each draw; '*lo' and '*hi' get the
 * 2.5th and 97.5th percentiles of those kappas, a 95% percentile interval.
 * A draw whose kappa is undefined (every pair in one level) counts below
 * every defined one, as the least agreement it could show. Return 0, or
 * -1 (both NAN) when the table has fewer than 2 pairs or the kappa itself
 * is undefined.
 *
 * What it guarantees: with KAPPA_FEW_PAIRS pairs or more, about 95%
 * coverage of the population kappa (t-agreement's seeded simulation: at
 * least 90% over 200 simulated tables of 100 pairs at a true kappa of 0.6,
 * where the bootstrap's known undercoverage and the simulation's own error
 * are allowed for). With fewer pairs neither the kappa nor the interval
 * says much, and every place that shows them says so.
 */
#define KAPPA_INTERVAL_RESAMPLES 2000
#define KAPPA_FEW_PAIRS 30
int kappa_interval(const long *table, int k, unsigned long long seed, double *lo, double *hi);

#endif
