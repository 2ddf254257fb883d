/*
 * t-stats: the PRNG, the inverse normal CDF, the paired tests, Holm and
 * power, against values known from outside the code.
 */
#include "test-lib.h"
#include "compare/stats.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void test_rng(void)
{
	struct rng a, b;
	int same = 1, below_ok = 1;
	double sum = 0;

	rng_seed(&a, 42);
	rng_seed(&b, 42);
	for (int i = 0; i < 1000; i++)
		same &= rng_next(&a) == rng_next(&b);
	ok(same, "one seed gives one stream");
	rng_seed(&b, 43);
	ok(rng_next(&a) != rng_next(&b), "another seed gives another stream");
	rng_seed(&a, 0);
	ok(rng_next(&a) != 0 || rng_next(&a) != 0, "seed 0 is usable");
	for (int i = 0; i < 100000; i++) {
		below_ok &= rng_below(&a, 7) < 7;
		sum += rng_uniform(&a);
	}
	ok(below_ok, "rng_below stays below its bound");
	ok(fabs(sum / 100000 - 0.5) < 0.01, "uniforms average 1/2 (got %g)", sum / 100000);
}

/*
 * rng_below(n) is the high half of draw * n. Identities of that product
 * check it on every target; where the compiler has a 128-bit type, the
 * product itself checks it too.
 */
static void test_below_product(void)
{
	struct rng a, b;
	int pow32 = 1, pow63 = 1, max = 1, wide = 1;

	rng_seed(&a, 7);
	rng_seed(&b, 7);
	for (int i = 0; i < 10000; i++) {
		uint64_t x = rng_next(&a);

		pow32 &= rng_below(&b, UINT64_C(1) << 32) == x >> 32;
		x = rng_next(&a);
		pow63 &= rng_below(&b, UINT64_C(1) << 63) == x >> 1;
		x = rng_next(&a);
		max &= rng_below(&b, UINT64_MAX) == (x ? x - 1 : 0);
#ifdef __SIZEOF_INT128__
		uint64_t n = rng_next(&a) | 1;
		x = rng_next(&a);
		rng_next(&b);
		wide &= rng_below(&b, n) == (uint64_t)(((unsigned __int128)x * n) >> 64);
#endif
	}
	ok(pow32, "rng_below(2^32) is the draw's top 32 bits");
	ok(pow63, "rng_below(2^63) is the draw shifted by one");
	ok(max, "rng_below(2^64-1) is the draw minus one");
	ok(wide, "rng_below matches the 128-bit product");
}

static void test_quantile(void)
{
	/* Reference values from tables of the standard normal distribution. */
	is_double(norm_quantile(0.975), 1.959963984540054, 1e-12, "z(0.975)");
	is_double(norm_quantile(0.8), 0.8416212335729143, 1e-12, "z(0.8)");
	is_double(norm_quantile(0.5), 0, 1e-15, "z(0.5) is 0");
	is_double(norm_quantile(0.001), -3.090232306167813, 1e-11, "z(0.001), lower tail");
	is_double(norm_quantile(1e-10), -6.361340902404056, 1e-9, "z(1e-10), far lower tail");
	is_double(norm_quantile(0.999), 3.090232306167813, 1e-11, "z(0.999), upper tail");
	ok(isnan(norm_quantile(1.5)), "p outside [0,1] gives NAN");
}

static void test_identical(void)
{
	double d[150 * 2] = { 0 };
	struct paired_result r[2];

	paired_tests(d, 150, 2, 2000, 2000, 1, 0.95, r);
	is_double(r[0].mean, 0, 0, "identical runs: delta 0");
	is_double(r[0].p, 1, 0, "identical runs: p = 1");
	ok(r[1].ci_lo == 0 && r[1].ci_hi == 0, "identical runs: CI [0, 0]");
}

static void test_lost_hits(void)
{
	/* 150 questions; the candidate loses 30 hits (delta -1) and keeps the rest. */
	double d[150];
	struct paired_result r;

	for (int i = 0; i < 150; i++)
		d[i] = i % 5 == 0 ? -1 : 0;
	paired_tests(d, 150, 1, 10000, 10000, 1, 0.95, &r);
	is_double(r.mean, -0.2, 1e-12, "30 of 150 lost: delta -0.2");
	ok(r.p < 0.001, "30 of 150 lost: p < 0.001 (got %g)", r.p);
	is_double(r.p, 1.0 / 10001, 1e-15, "no sign flip reaches it: p = 1/(N+1)");
	ok(r.ci_hi < -0.1 && r.ci_lo > -0.3 && r.ci_lo < -0.2,
	   "30 of 150 lost: CI [%g, %g] around -0.2 excludes 0", r.ci_lo, r.ci_hi);
}

static void test_exact_small(void)
{
	/* Deltas {+1, +1, +1}: of the 8 sign vectors, 2 reach |mean| = 1, so the
	 * exact randomisation p is 1/4; the sampled p must approach it. */
	double d[3] = { 1, 1, 1 };
	struct paired_result r;

	paired_tests(d, 3, 1, 100, 20000, 7, 0.95, &r);
	ok(fabs(r.p - 0.25) < 0.015, "three +1 deltas: p near the exact 1/4 (got %g)", r.p);
}

static void test_shared_draws(void)
{
	/* Two identical measure columns must give identical results: the draw is shared. */
	double d[40 * 2];
	struct paired_result r[2];
	struct rng g;

	rng_seed(&g, 3);
	for (int i = 0; i < 40; i++)
		d[2 * i] = d[2 * i + 1] = rng_uniform(&g) - 0.4;
	paired_tests(d, 40, 2, 1000, 1000, 9, 0.95, r);
	ok(r[0].p == r[1].p && r[0].ci_lo == r[1].ci_lo && r[0].ci_hi == r[1].ci_hi,
	   "measures share one sign vector and one index vector per draw");
}

static void test_coverage(void)
{
	/* Seeded simulation: deltas ~ Bernoulli-like {-1, 0, +1} with a known mean;
	 * the 95% CI must cover it about 95% of the time (wide tolerance). */
	struct rng g;
	const int reps = 300, n = 80;
	double *d = xmalloc(n * sizeof(*d));
	int covered = 0;
	double truth = 0.1; /* P(+1) = 0.3, P(-1) = 0.2 */

	rng_seed(&g, 2026);
	for (int rep = 0; rep < reps; rep++) {
		struct paired_result r;

		for (int i = 0; i < n; i++) {
			double u = rng_uniform(&g);

			d[i] = u < 0.3 ? 1 : u < 0.5 ? -1 : 0;
		}
		paired_tests(d, n, 1, 1000, 1, (uint64_t)rep + 100, 0.95, &r);
		covered += r.ci_lo <= truth && truth <= r.ci_hi;
	}
	ok(covered >= (int)(0.89 * reps) && covered <= (int)(0.985 * reps),
	   "bootstrap CI covers the true delta near the nominal 95%% (%d of %d)", covered, reps);
	free(d);
}

static void test_holm(void)
{
	/* Worked example: p = 0.01, 0.04, 0.03, 0.005 (m = 4).
	 * Sorted 0.005, 0.01, 0.03, 0.04 -> 0.02, 0.03, 0.06, 0.06 (monotone). */
	double p[] = { 0.01, 0.04, 0.03, 0.005 };
	double adj[4];
	double q[] = { 0.5, NAN, 0.2 };
	double qa[3];

	holm_adjust(p, 4, adj);
	is_double(adj[3], 0.02, 1e-15, "Holm: smallest p times m");
	is_double(adj[0], 0.03, 1e-15, "Holm: second times m-1");
	is_double(adj[2], 0.06, 1e-15, "Holm: third times m-2");
	is_double(adj[1], 0.06, 1e-15, "Holm: monotone (0.04 x 1 raised to 0.06)");
	holm_adjust(q, 3, qa);
	ok(isnan(qa[1]) && qa[2] == 0.4 && qa[0] == 0.5, "Holm: NAN left out of the family");
	holm_adjust(p, 4, p);
	is_double(p[1], 0.06, 1e-15, "Holm: in place");
	{
		double big[] = { 0.6, 0.7 }, ba[2];

		holm_adjust(big, 2, ba);
		ok(ba[0] == 1 && ba[1] == 1, "Holm: an adjusted p is at most 1 (2 x 0.6 -> %g, %g)", ba[0], ba[1]);
	}
}

/* The bootstrap interval is the (1 - level) / 2 and (1 + level) / 2
 * quantiles of the resampled means, interpolated between draws. */
static void test_bootstrap_interval(void)
{
	double d[100], ramp[50];
	struct paired_result r;

	/* 100 deltas 0, 0.1, ..., 0.9 (ten of each) less 0.25: mean 0.2, sd 0.287
	 * (as the bootstrap sees them), so the 95% interval is about
	 * 0.2 -+ 1.96 x 0.0287 = [0.144, 0.256] (a 90% one would be [0.153, 0.247]) */
	for (int i = 0; i < 100; i++)
		d[i] = (double)(i % 10) / 10 - 0.25;
	paired_tests(d, 100, 1, 20000, 10, 3, 0.95, &r);
	ok(fabs(r.ci_lo - 0.144) < 0.004 && fabs(r.ci_hi - 0.256) < 0.004,
	   "95%% bootstrap interval of a mean 0.2, sd 0.287 on 100: [%.4f, %.4f] near [0.144, 0.256]",
	   r.ci_lo, r.ci_hi);
	/* two resamples of 50 distinct deltas: the 2.5% and 97.5% quantiles lie
	 * strictly between the two means (interpolated, not a draw) */
	for (int i = 0; i < 50; i++)
		ramp[i] = (double)i / 50;
	paired_tests(ramp, 50, 1, 2, 10, 5, 0.95, &r);
	ok(r.ci_lo < r.ci_hi, "two resamples: the interval is interpolated between them [%g, %g]",
	   r.ci_lo, r.ci_hi);
}

static void test_power(void)
{
	double z = 1.959963984540054 + 0.8416212335729143;

	is_double(power_mde(0.5, 100, 0.05, 0.8), z * 0.5 / 10, 1e-12, "MDE = (z_a + z_b) sd / sqrt(n)");
	/* (2.8016 * 0.5 / 0.1)^2 = 196.2 -> 197 */
	is_int(power_needed(0.5, 0.1, 0.05, 0.8), 197, "n needed rounds up");
	ok(power_mde(0.5, power_needed(0.5, 0.1, 0.05, 0.8), 0.05, 0.8) <= 0.1,
	   "the needed n detects the effect");
	is_int(power_needed(0, 0.1, 0.05, 0.8), -1, "no spread: no n");
}

int main(void)
{
	test_bootstrap_interval();
	test_rng();
	test_below_product();
	test_quantile();
	test_identical();
	test_lost_hits();
	test_exact_small();
	test_shared_draws();
	test_coverage();
	test_holm();
	test_power();
	return test_done();
}
