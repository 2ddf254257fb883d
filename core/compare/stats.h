/*
 * stats: the statistics of a paired comparison of two retrievers on one set.
 *
 * Everything here is pure computation over arrays of doubles: no IO, no
 * allocation visible to the caller beyond what a function states.
 *
 * Randomness comes from our own PRNG, xoshiro256** seeded through splitmix64
 * (rng_seed), so a seed gives the same numbers on every platform and every
 * build. compare uses seed S for the bootstrap and S + 1 for the
 * randomisation test (S = 1 unless --seed says otherwise) and prints both.
 *
 * Definitions (docs/compare.md repeats them for users):
 *  - delta_i = candidate_i - baseline_i per question; the observed statistic
 *    is the mean delta.
 *  - Bootstrap CI: B resamples of n question indices drawn uniformly with
 *    replacement; the CI is the percentile interval of the B resampled mean
 *    deltas, quantiles by linear interpolation between order statistics
 *    (Hyndman-Fan type 7) at (1-level)/2 and (1+level)/2.
 *  - Randomisation test (two-sided, paired, sign-flip): each of N
 *    permutations flips the sign of every delta independently with
 *    probability 1/2; p = (c + 1) / (N + 1) where c counts permutations whose
 *    |mean| >= |observed mean| - tol, tol = 1e-10 * mean(|delta|) absorbing
 *    rounding so that equal sums count as ties. When every delta is zero,
 *    every permutation ties and p = 1 exactly.
 *  - Several measures over the same questions share one draw: one index
 *    vector per resample and one sign vector per permutation are applied to
 *    every measure (the paired design across measures).
 *  - Holm: step-down, adjusted p_(i) = max over j <= i of min(1, (m-j+1) p_(j))
 *    in ascending order of p, so adjusted values are monotone.
 *  - Power: MDE = (z_{1-alpha/2} + z_{power}) * sd / sqrt(n); the n needed
 *    for an effect E is ceil(((z_{1-alpha/2} + z_{power}) * sd / E)^2).
 */
#ifndef EVALSET_STATS_H
#define EVALSET_STATS_H

#include <stddef.h>
#include <stdint.h>

struct rng {
	uint64_t s[4];
};

/* Seed 'r' from 'seed' (any value, 0 included) by four splitmix64 steps. */
void rng_seed(struct rng *r, uint64_t seed);
/* Return the next 64 random bits (xoshiro256**). */
uint64_t rng_next(struct rng *r);
/* Return a uniform integer in [0, n) for n >= 1 (multiply-shift; bias < n / 2^64). */
uint64_t rng_below(struct rng *r, uint64_t n);
/* Return a uniform double in [0, 1) with 53 random bits. */
double rng_uniform(struct rng *r);

/* Return the inverse of the standard normal CDF at 'p' in (0, 1): Acklam's
 * rational approximation refined by one Halley step (error below 1e-14);
 * -INFINITY / INFINITY at 0 / 1, NAN outside [0, 1]. */
double norm_quantile(double p);

/* Return the mean of 'x' (0 when 'n' is 0). */
double stats_mean(const double *x, size_t n);
/* Return the sample standard deviation of 'x' (n - 1 denominator; 0 when n < 2). */
double stats_sd(const double *x, size_t n);

/* The outcome of the paired tests for one measure. */
struct paired_result {
	double mean;       /* observed mean delta */
	double ci_lo, ci_hi;
	double p;          /* two-sided randomisation p-value */
};

/*
 * Run the bootstrap CI and the randomisation test on 'm' measures at once.
 * 'delta' is row-major n x m: delta[i * m + j] is question i's delta on
 * measure j. 'resamples' and 'permutations' >= 1; 'level' in (0, 1), e.g.
 * 0.95. The bootstrap uses seed 'seed', the permutations 'seed' + 1. Fills
 * out[0..m). With n == 0 every field is NAN. Return 0.
 */
int paired_tests(const double *delta, size_t n, size_t m, long resamples,
		 long permutations, uint64_t seed, double level,
		 struct paired_result *out);

/* Write the Holm step-down adjustment of 'p[0..m)' to 'adj' (may alias 'p').
 * NAN entries are left out of the family and stay NAN. */
void holm_adjust(const double *p, size_t m, double *adj);

/* Return the minimum detectable effect for paired deltas of spread 'sd' over
 * 'n' questions at two-sided 'alpha' and 'power' (NAN when n is 0). */
double power_mde(double sd, size_t n, double alpha, double power);
/* Return the number of questions needed to detect 'effect' > 0 (at least 2;
 * -1 when 'sd' is 0 or 'effect' is not positive). */
long power_needed(double sd, double effect, double alpha, double power);

#endif
