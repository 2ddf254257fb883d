/*
 * t-binexact: the exact test of a 0/1 measure's mean loss against a margin:
 * hand values, the monotonicity the test relies on, its level computed
 * exactly over every outcome (no simulation), the bound against the test,
 * and the smallest detectable count of losses; the binomial terms from the
 * table of log factorials against the formula they replace.
 */
#include "test-lib.h"
#include "compare/binexact.h"
#include "compare/binom.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double lchoose(size_t n, size_t k)
{
	return lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1);
}

static double xlogy(double x, double y)
{
	return x ? x * log(y) : 0;
}

/* The exact chance that the test rejects at 'alpha' when a loss is +1 with
 * probability b + d and -1 with probability b: a sum over every outcome. */
static double level(size_t n, double d, double b, const char *rej)
{
	double a = b + d, s = 0;

	for (size_t v = 0; v <= n; v++)
		for (size_t u = 0; u + v <= n; u++)
			if (rej[v * (n + 1) + u])
				s += exp(lchoose(n, v) + lchoose(n - v, u) + xlogy((double)u, a) +
					 xlogy((double)v, b) + xlogy((double)(n - u - v), 1 - a - b));
	return s;
}

/* The log-likelihood of 'u' losses of +1 and 'v' of -1 among 'n' when a
 * loss is -1 with probability b and +1 with probability b + d. */
static double loglik(size_t n, size_t u, size_t v, double d, double b)
{
	return xlogy((double)u, b + d) + xlogy((double)v, b) + xlogy((double)(n - u - v), 1 - 2 * b - d);
}

/* Z of the definition in binexact.h, with the restricted b found by a
 * golden-section search of the likelihood (not the closed form). */
static double z_by_search(size_t n, size_t u, size_t v, double d)
{
	double lo = d < 0 ? -d : 0, hi = (1 - d) / 2, g = (sqrt(5.0) - 1) / 2, b, var;

	for (int i = 0; i < 200; i++) {
		double c1 = hi - g * (hi - lo), c2 = lo + g * (hi - lo);

		if (loglik(n, u, v, d, c1) >= loglik(n, u, v, d, c2))
			hi = c2;
		else
			lo = c1;
	}
	b = (lo + hi) / 2;
	var = 2 * b + d - d * d;
	return ((double)u - (double)v - (double)n * d) / sqrt((double)n * var);
}

/* The exact p of the definition, by brute force: over a fine grid of the
 * nuisance b, the largest chance of every outcome whose Z is at least the
 * observed one, each summed term by term. */
static double p_by_definition(size_t n, size_t u0, size_t v0, double d)
{
	double z0 = z_by_search(n, u0, v0, d), best = 0;
	double lo = d < 0 ? -d : 0, hi = (1 - d) / 2;
	char *in = calloc((n + 1) * (n + 1), 1);

	for (size_t v = 0; v <= n; v++)
		for (size_t u = 0; u + v <= n; u++)
			in[v * (n + 1) + u] = z_by_search(n, u, v, d) >= z0 - 1e-9;
	for (int i = 0; i <= 4000; i++) {
		double b = lo + (hi - lo) * i / 4000, c = level(n, d, b, in);

		if (c > best)
			best = c;
	}
	free(in);
	return best;
}

static void test_definition(void)
{
	static const struct { size_t n, u, v; double d; } cases[] = {
		{ 12, 6, 1, 0.2 }, { 12, 9, 0, 0.4 }, { 10, 3, 5, 0 }, { 15, 4, 4, -0.3 },
		{ 15, 2, 0, 0.05 }, { 20, 12, 2, 0.3 }, { 20, 1, 6, -0.2 },
	};
	int zbad = 0;

	for (size_t n = 5; n <= 15; n += 5)
		for (double d = -0.4; d < 0.45; d += 0.2)
			for (size_t v = 0; v <= n; v++)
				for (size_t u = 0; u + v <= n; u++)
					zbad += fabs(binexact_z(n, u, v, d) - z_by_search(n, u, v, d)) > 1e-6;
	is_int(zbad, 0, "Z agrees with the definition, its b found by searching the likelihood");
	/* the brute force is thousands of binomial sums per case: the reduced
	 * builds (sanitizers, i386) check the cases of 12 questions and fewer,
	 * ordered first */
	size_t nr = test_repeats(sizeof(cases) / sizeof(cases[0]), 3, "cases against brute force");

	for (size_t i = 0; i < nr; i++) {
		double want = p_by_definition(cases[i].n, cases[i].u, cases[i].v, cases[i].d);
		double got = binexact_p(cases[i].n, cases[i].u, cases[i].v, cases[i].d);

		ok(fabs(got - want) <= 1e-4 + 1e-3 * want,
		   "n %zu, %zu up, %zu down, margin %g: p %.6f, by brute force %.6f", cases[i].n,
		   cases[i].u, cases[i].v, cases[i].d, got, want);
	}
}

static void test_hand(void)
{
	/* two questions, both lost, margin 0: the region is that outcome
	 * alone, whose chance a^2 is largest at a = b = 1/2 */
	is_double(binexact_p(2, 2, 0, 0), 0.25, 1e-6, "2 of 2 lost, margin 0: p = 1/4");
	is_double(binexact_p(3, 3, 0, 0), 0.125, 1e-6, "3 of 3 lost, margin 0: p = 1/8");
	/* one-sided at margin d with no gain possible in the sample: the
	 * region's chance at b = 0 is P(Binomial(n, d) >= k) */
	ok(binexact_p(143, 0, 0, 0.02) > 0.99, "nothing lost: p near 1");
	/* non-inferiority on the negated losses: nothing declined among 143
	 * at margin 0.02 cannot show a rise below 0.02 (0.98^143 = 0.0556) */
	is_double(binexact_p(143, 0, 0, -0.02), pow(0.98, 143), 1e-4,
		  "nothing changed, margin -0.02: p = 0.98^143");
}

static void test_monotone(void)
{
	static const double ds[] = { -0.5, -0.05, 0, 0.02, 0.05, 0.3 };
	int bad = 0;

	for (size_t n = 1; n <= 25; n++)
		for (size_t i = 0; i < sizeof(ds) / sizeof(ds[0]); i++)
			for (size_t v = 0; v <= n; v++)
				for (size_t u = 0; u + v <= n; u++) {
					double z = binexact_z(n, u, v, ds[i]);

					bad += u + v < n && binexact_z(n, u + 1, v, ds[i]) < z - 1e-12;
					bad += u + v < n && binexact_z(n, u, v + 1, ds[i]) > z + 1e-12;
				}
	is_int(bad, 0, "Z grows with the losses of +1 and falls with those of -1 (n <= 25)");
}

static void test_level(void)
{
	static const struct { size_t n; double d; } cases[] = { { 30, 0.05 }, { 40, 0.02 }, { 40, -0.05 } };
	size_t nr = test_repeats(sizeof(cases) / sizeof(cases[0]), 1, "sets whose boundary is summed");

	for (size_t c = 0; c < nr; c++) {
		size_t n = cases[c].n;
		double d = cases[c].d, worst = 0, at = 0;
		char *rej = calloc((n + 1) * (n + 1), 1);

		for (size_t v = 0; v <= n; v++)
			for (size_t u = 0; u + v <= n; u++)
				rej[v * (n + 1) + u] = binexact_p(n, u, v, d) < 0.05;
		for (double b = d < 0 ? -d : 0; b <= (1 - d) / 2; b += 0.0025) {
			double l = level(n, d, b, rej);

			if (l > worst)
				worst = l, at = b;
		}
		ok(worst <= 0.05, "n %zu margin %g: the largest chance of rejecting on the boundary is "
		   "%.4f (at b %.4f) <= 0.05, summed exactly over every outcome", n, d, worst, at);
		free(rej);
	}
	{
		/* one-sided: the baseline declines nothing, the candidate declines
		 * each of 143 questions with probability 0.02 */
		double s = 0;

		for (size_t k = 0; k <= 143; k++)
			if (binexact_p(143, k, 0, 0.02) < 0.05)
				s += exp(lchoose(143, k) + xlogy((double)k, 0.02) + xlogy(143.0 - (double)k, 0.98));
		ok(s <= 0.05, "143 questions, rise 0.02 at the margin 0.02, 0/+1 changes only: fails %.4f "
		   "<= 0.05 (exact)", s);
	}
}

static void test_bound(void)
{
	static const size_t outs[][3] = { { 143, 10, 0 }, { 143, 10, 3 }, { 30, 6, 1 }, { 500, 30, 5 } };
	static const double margins[] = { 0, 0.01, 0.02, 0.05, 0.1 };
	int bad = 0, total = 0;

	for (size_t i = 0; i < sizeof(outs) / sizeof(outs[0]); i++) {
		double lb = binexact_bound(outs[i][0], outs[i][1], outs[i][2], 0.05);

		for (size_t m = 0; m < sizeof(margins) / sizeof(margins[0]); m++) {
			double p = binexact_p(outs[i][0], outs[i][1], outs[i][2], margins[m]);

			total++;
			/* equal up to the bisection's 1e-5 */
			if (fabs(lb - margins[m]) > 2e-5)
				bad += (p < 0.05) != (lb > margins[m]);
		}
	}
	ok(bad == 0, "the lower bound exceeds a margin exactly when the test rejects it (%d checks, "
	   "%d disagree)", total, bad);
	ok(isinf(binexact_bound(10, 0, 5, 0.05)) || binexact_bound(10, 0, 5, 0.05) < 0,
	   "5 gains of 10: the bound on the loss is below 0");
}

static void test_min_losses(void)
{
	size_t k = binexact_min_losses(143, 0.02, 0.05);

	ok(k > 0 && binexact_p(143, k, 0, 0.02) < 0.05 && binexact_p(143, k - 1, 0, 0.02) >= 0.05,
	   "143 questions, margin 0.02: %zu losses reject, %zu do not", k, k - 1);
	is_int((long)binexact_min_losses(3, 0.9, 0.05), 0, "3 questions at margin 0.9: nothing rejects");
}

/* binom_log_pmf gives the very double of the formula evaluated afresh (so
 * that the p values did not move), and its terms sum to 1. */
static void test_binom_table(void)
{
	static const double qs[] = { 1e-9, 0.001, 0.02, 0.25, 0.5, 0.77, 0.999 };
	static const size_t ms[] = { 0, 1, 2, 7, 143, 1000 };
	struct binom bn;
	size_t differ = 0, checked = 0, bad_sums = 0;

	binom_init(&bn, 1000);
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		struct binom_q lq = binom_q(qs[i]);

		for (size_t j = 0; j < sizeof(ms) / sizeof(ms[0]); j++) {
			size_t m = ms[j];
			double sum = 0;

			for (size_t x = 0; x <= m; x++) {
				double want = lgamma((double)m + 1) - lgamma((double)x + 1) -
					      lgamma((double)(m - x) + 1) + (double)x * log(qs[i]) +
					      (double)(m - x) * log1p(-qs[i]);
				double got = binom_log_pmf(&bn, m, x, lq);

				differ += memcmp(&want, &got, sizeof(got)) != 0;
				checked++;
				sum += exp(got);
			}
			bad_sums += !(fabs(sum - 1) < 1e-9);
		}
	}
	binom_free(&bn);
	ok(differ == 0, "%zu binomial log terms from the table: %zu differ from the formula by a bit",
	   checked, differ);
	is_int((long)bad_sums, 0, "the terms of each binomial sum to 1");
}

/* The critical value's contract: an outcome is rejected (p < level)
 * exactly when its Z reaches the value (outcomes within 1e-6 of it are not
 * told apart), for the outcomes on either side of it (for each count of -1
 * losses, Z grows with the count of +1 losses: the last u below the value
 * and the first above) of a few n, margins and levels; but for
 * outcomes whose p is within 1% of the level, where the numerical search
 * of the largest chance over the nuisance leaves p a little short of
 * monotone in Z (n 12, margin 0.1: Z 2.296 has p 0.00999, Z 2.373 has
 * 0.01004). */
static void test_critical(void)
{
	static const size_t ns[] = { 5, 12, 25 };
	static const double ds[] = { -0.05, 0, 0.02, 0.1 };
	static const double levels[] = { 0.05, 0.01 };
	size_t outcomes = 0, wrong = 0, near = 0;

	for (size_t i = 0; i < 3; i++)
		for (size_t j = 0; j < 4; j++)
			for (size_t k = 0; k < 2; k++) {
				size_t n = ns[i];
				double cz = binexact_critical_z(n, ds[j], levels[k]);

				for (size_t v = 0; v <= n; v++)
					for (size_t u = 0; u + v <= n; u++) {
						double z = binexact_z(n, u, v, ds[j]), p;
						bool rejects, last_below = z < cz && (u + v == n ||
							binexact_z(n, u + 1, v, ds[j]) >= cz);
						bool first_above = z > cz && (u == 0 ||
							binexact_z(n, u - 1, v, ds[j]) <= cz);

						if (fabs(z - cz) <= 1e-6 || !(last_below || first_above))
							continue;
						p = binexact_p(n, u, v, ds[j]);
						rejects = p < levels[k];
						outcomes++;
						if (rejects == (z > cz))
							continue;
						if (fabs(p - levels[k]) <= 0.01 * levels[k]) {
							near++;
							continue;
						}
						if (wrong++ < 3)
							test_diag("n %zu d %g level %g: u %zu v %zu Z %.9g, critical %.9g, p %s level",
								  n, ds[j], levels[k], u, v, z, cz,
								  rejects ? "<" : ">=");
					}
			}
	ok(!wrong && near <= 3 && outcomes > 300,
	   "binexact_critical_z: %zu outcomes, rejected exactly when Z is above the critical value (%zu not; %zu with p within 1%% of the level)",
	   outcomes, wrong, near);
}

int main(void)
{
	test_binom_table();
	test_definition();
	test_hand();
	test_monotone();
	test_level();
	test_bound();
	test_min_losses();
	test_critical();
	return test_done();
}
