/*
 * t-fliptest: the gate's sign-flip tests: exact p against hand counts,
 * sampled p against exact, step-down maxT against its bounds, the inverted
 * bound against the verdict, and the smallest detectable loss.
 */
#include "test-lib.h"
#include "compare/fliptest.h"
#include "compare/stats.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct flip_opts opts(double alpha, long perms, double exact_limit)
{
	struct flip_opts o = { alpha, perms, 7, exact_limit, NULL };

	return o;
}

static void test_exact(void)
{
	double x[5] = { 1, 1, 1, 1, 1 }, y[6] = { 2, 1, 1, -1, 0, 0 };
	bool fam[1] = { true }, exact;
	struct flip_result r;
	struct flip_opts o = opts(0.05, 1000, FLIP_EXACT_LIMIT);
	double outcomes;

	flip_test(x, 5, 1, fam, &o, &r, &exact, &outcomes);
	ok(exact && outcomes == 6, "five equal rows: one group, 6 outcomes enumerated");
	is_double(r.p, 1.0 / 32, 1e-12, "five +1: exact p 2^-5");
	ok(r.reject && r.p_adj == r.p, "rejected at 0.05; alone in its family p_adj = p");
	/* y: sum 3; of the 16 sign patterns of (2, 1, 1, -1), sums >= 3:
	 * +2+1+1-1 = 3, +2+1+1+1 = 5, +2+1-1+1 = 3, +2-1+1+1 = 3 -> 4 of 16 */
	flip_test(y, 6, 1, fam, &o, &r, &exact, &outcomes);
	is_double(r.p, 4.0 / 16, 1e-12, "hand count: 4 of 16 flips reach the observed sum");
	ok(!r.reject && isinf(flip_bound((double[]){ 1, 1 }, 2, INFINITY, 1)),
	   "not rejected; a test that never rejects bounds nothing");
}

static void test_sampled(void)
{
	double x[40];
	bool fam[1] = { true }, exact;
	struct flip_result e, s;
	struct flip_opts oe = opts(0.05, 20000, 1e12), os = opts(0.05, 20000, 0);
	double outcomes;

	for (int i = 0; i < 40; i++)
		x[i] = (i % 7) * 0.1 - 0.25;
	flip_test(x, 40, 1, fam, &oe, &e, &exact, &outcomes);
	ok(exact, "7 groups: enumerated (%g outcomes)", outcomes);
	flip_test(x, 40, 1, fam, &os, &s, &exact, &outcomes);
	ok(!exact && outcomes == 20000, "forced to sample: 20000 flips");
	ok(fabs(s.p - e.p) < 4 * sqrt(e.p * (1 - e.p) / 20000) + 1e-4,
	   "sampled p %.4f within 4 SE of exact %.4f", s.p, e.p);
}

static void test_maxt(void)
{
	/* two rules on disjoint halves (independent), and a third equal to the first */
	enum { N = 60, K = 3 };
	double x[N * K];
	bool fam[K] = { true, true, true }, exact;
	struct flip_result r[K];
	struct flip_opts o = opts(0.05, 5000, 0);
	double outcomes;
	struct rng g;

	rng_seed(&g, 3);
	memset(x, 0, sizeof(x));
	for (int i = 0; i < N; i++) {
		double v = rng_uniform(&g) - 0.3;

		x[i * K + (i < N / 2 ? 0 : 1)] = v;
		if (i < N / 2)
			x[i * K + 2] = v;
	}
	flip_test(x, N, K, fam, &o, r, &exact, &outcomes);
	is_double(r[0].t, r[2].t, 1e-12, "identical columns, identical statistics");
	ok(r[0].p_adj >= r[0].p && r[1].p_adj >= r[1].p, "adjusted p never below the marginal p");
	ok(r[0].p_adj <= fmin(1, 3 * r[0].p) + 0.01 && r[1].p_adj <= fmin(1, 3 * r[1].p) + 0.01,
	   "and not above Bonferroni over 3 (%.4f <= 3 x %.4f)", r[0].p_adj, r[0].p);
	ok(r[0].p_adj <= 2 * r[0].p + 0.01,
	   "two identical rules count once: p_adj %.4f <= 2 p %.4f", r[0].p_adj, 2 * r[0].p);
}

static void test_bound(void)
{
	struct rng g;
	int agree = 0, trials = 200;

	rng_seed(&g, 11);
	for (int t = 0; t < trials; t++) {
		size_t n = 20 + rng_below(&g, 60);
		double *loss = xmalloc(n * sizeof(*loss)), *x = xmalloc(n * sizeof(*x));
		double margin = 0.02 * (double)rng_below(&g, 5), mean = 0;
		bool fam[1] = { true }, exact;
		struct flip_result r;
		struct flip_opts o = opts(0.05, 2000, FLIP_EXACT_LIMIT);
		double outcomes, b;
		int dir = t % 2 ? 1 : -1;

		for (size_t i = 0; i < n; i++) {
			double u = rng_uniform(&g);

			loss[i] = u < 0.15 ? 1 : u < 0.22 ? -1 : 0;
			mean += loss[i] / (double)n;
			x[i] = dir > 0 ? loss[i] - margin : margin - loss[i];
		}
		flip_test(x, n, 1, fam, &o, &r, &exact, &outcomes);
		b = flip_bound(loss, n, r.crit, dir);
		/* drop: rejected exactly when the lower bound exceeds the margin;
		 * non-inferiority: exactly when the upper bound is below it */
		agree += dir > 0 ? r.reject == (b > margin) : r.reject == (b < margin);
		free(loss);
		free(x);
		(void)mean;
	}
	is_int(agree, trials, "the inverted bound and the verdict agree on every trial");
}

static void test_min_losses(void)
{
	is_int(flip_min_losses(23, 0.05, 0.05), 5, "23 questions, margin 0.05: 5 lost are needed");
	is_int(flip_min_losses(9, 0, 0.05), 5, "9 questions, margin 0: 5 lost (2^-5 < 0.05 < 2^-4)");
	is_int(flip_min_losses(4, 0, 0.05), 0, "4 questions can never reach 0.05");
	{
		double x[23];
		bool fam[1] = { true }, exact;
		struct flip_result r4, r5;
		struct flip_opts o = opts(0.05, 1000, FLIP_EXACT_LIMIT);
		double outcomes;

		for (int i = 0; i < 23; i++)
			x[i] = (i < 4 ? 1 : 0) - 0.05;
		flip_test(x, 23, 1, fam, &o, &r4, &exact, &outcomes);
		x[4] = 0.95;
		flip_test(x, 23, 1, fam, &o, &r5, &exact, &outcomes);
		/* 4 lost: the observed sum 2.85 is reached by no flip of the four
		 * (1/16), or by one flip of them with all 19 others flipped
		 * (4/16 x 2^-19) */
		ok(!r4.reject && r5.reject && fabs(r4.p - (1.0 / 16 + ldexp(1, -21))) < 1e-12,
		   "flip_test agrees: 4 lost p %.4f passes, 5 lost p %.4f fails", r4.p, r5.p);
	}
	ok(flip_min_p(4, 10000) == 1.0 / 16 && flip_min_p(100, 19) == 1.0 / 20,
	   "smallest attainable p: 2^-n, or 1/(B+1) when drawn");
}

/* A family of one sign-flip rule and one rule with a fixed p (an exact
 * 0/1 test): Bonferroni-Holm over the two units. */
static void test_fixed(void)
{
	double x[2 * 8];
	bool fam[2] = { true, true }, exact;
	struct flip_result r[2];
	struct flip_opts o = opts(0.05, 1000, FLIP_EXACT_LIMIT);
	double fixed[2] = { NAN, 0.03 }, outcomes;

	for (int i = 0; i < 8; i++) {
		x[2 * i] = 1;   /* eight +1: sign-flip p 2^-8 */
		x[2 * i + 1] = 0;
	}
	o.fixed_p = fixed;
	flip_test(x, 8, 2, fam, &o, r, &exact, &outcomes);
	ok(r[0].reject && fabs(r[0].p_adj - 2.0 / 256) < 1e-12 && r[0].level == 0.025,
	   "two units: the sign-flip rule first, at alpha / 2 (p_adj %g = 2 p)", r[0].p_adj);
	ok(r[1].reject && r[1].p == 0.03 && r[1].p_adj == 0.03 && r[1].level == 0.05,
	   "then the fixed p alone, at alpha: 0.03 rejected");
	fixed[1] = 0.04;
	for (int i = 0; i < 8; i++)
		x[2 * i] = i % 2 ? 1 : -1;  /* sum 0: p above 1/2 */
	flip_test(x, 8, 2, fam, &o, r, &exact, &outcomes);
	ok(!r[1].reject && r[1].p_adj == 0.08 && r[1].level == 0.025 && !r[0].reject &&
	   r[0].level == 0.025, "fixed p 0.04 judged first at alpha / 2: not rejected; the rest stop "
	   "at that level");
}

int main(void)
{
	test_fixed();
	test_exact();
	test_sampled();
	test_maxt();
	test_bound();
	test_min_losses();
	return test_done();
}
