/*
 * t-agreement: Cohen's kappa against values worked out by hand, its
 * undefined cases, the binary collapse of the 0..3 grades, and its
 * bootstrap interval (worked cases and a seeded coverage simulation).
 */
#include "test-lib.h"
#include "pool/agreement.h"
#include "base/util.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * The interval: worked cases, and its coverage in a seeded simulation of a
 * judge with a known kappa (binary grades, both raters at 50% relevant, the
 * judge agreeing 80% of the time: kappa = (0.8 - 0.5) / (1 - 0.5) = 0.6).
 */
static void test_interval(void)
{
	long two[2][2] = { { 1, 0 }, { 0, 1 } }, perfect[2][2] = { { 5, 0 }, { 0, 5 } };
	long one[2][2] = { { 1, 0 }, { 0, 0 } }, t[2][2] = { { 30, 10 }, { 8, 32 } };
	double lo, hi, lo2, hi2;
	uint64_t state = 42;
	int covered = 0, sims = 200;

	is_int(kappa_interval(&one[0][0], 2, 1, &lo, &hi), -1, "one pair: no interval");
	ok(isnan(lo) && isnan(hi), "and both ends undefined");
	is_int(kappa_interval(&two[0][0], 2, 1, &lo, &hi), 0, "two pairs: an interval");
	ok(lo <= hi && hi <= 1 && lo >= -1, "within [-1, 1]: [%.3f, %.3f]", lo, hi);
	ok(lo == -1, "two pairs: half the draws put both in one level, so the interval reaches -1");
	is_int(kappa_interval(&perfect[0][0], 2, 1, &lo, &hi), 0, "ten pairs in perfect agreement");
	ok(lo == 1 && hi == 1, "perfect agreement: [1, 1] (a draw all in one level is rarer than 2.5%%)");
	kappa_interval(&t[0][0], 2, 7, &lo, &hi);
	kappa_interval(&t[0][0], 2, 7, &lo2, &hi2);
	ok(lo == lo2 && hi == hi2, "the same table and seed: the same interval");
	ok(lo < cohen_kappa(&t[0][0], 2) && cohen_kappa(&t[0][0], 2) < hi,
	   "it holds the kappa it is about: %.3f in [%.3f, %.3f]", cohen_kappa(&t[0][0], 2), lo, hi);
	for (int s = 0; s < sims; s++) {
		long sim[2][2] = { { 0, 0 }, { 0, 0 } };
		for (int i = 0; i < 100; i++) {
			int label = (int)(splitmix64_next(&state) & 1);
			bool agree = (double)(splitmix64_next(&state) >> 11) / 9007199254740992.0 < 0.8;
			sim[label][agree ? label : !label]++;
		}
		if (kappa_interval(&sim[0][0], 2, (unsigned long long)s + 1, &lo, &hi) == 0 && lo <= 0.6 && 0.6 <= hi)
			covered++;
	}
	ok(covered >= sims * 9 / 10, "the 95%% interval covers the true kappa 0.6 in %d of %d simulated "
	   "judges of 100 pairs (at least 90%%)", covered, sims);
}

int main(void)
{
	/* the textbook 2x2 case: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no:
	 * po = 0.7, pe = 0.5*0.6 + 0.5*0.4 = 0.5, kappa = 0.4 */
	long t2[2][2] = { { 20, 5 }, { 10, 15 } };
	is_double(cohen_kappa(&t2[0][0], 2), 0.4, 1e-12, "kappa of the textbook 2x2 table");
	is_double(observed_agreement(&t2[0][0], 2), 0.7, 1e-12, "observed agreement of the 2x2 table");

	/* systematic disagreement: below chance */
	{
		long t[2][2] = { { 0, 5 }, { 5, 0 } };
		is_double(cohen_kappa(&t[0][0], 2), -1.0, 1e-12, "complete disagreement gives kappa -1");
	}
	/* undefined: no pairs, or every pair in one and the same level */
	{
		long empty[2][2] = { { 0, 0 }, { 0, 0 } };
		long one[2][2] = { { 0, 0 }, { 0, 9 } };
		ok(isnan(cohen_kappa(&empty[0][0], 2)), "no pairs: kappa undefined");
		ok(isnan(observed_agreement(&empty[0][0], 2)), "no pairs: observed agreement undefined");
		ok(isnan(cohen_kappa(&one[0][0], 2)), "every pair in one cell: kappa undefined, not 1");
	}
	/* four levels: label/judge pairs (0,0) (1,0) (1,1) (2,2):
	 * po = 3/4; margins labels .25 .5 .25 0, judge .5 .25 .25 0;
	 * pe = .125 + .125 + .0625 = .3125; kappa = .4375 / .6875 = 7/11 */
	{
		struct agreement a = AGREEMENT_INIT;
		long b[2][2];
		agreement_add(&a, 0, 0);
		agreement_add(&a, 1, 0);
		agreement_add(&a, 1, 1);
		agreement_add(&a, 2, 2);
		is_int(a.n, 4, "four pairs counted");
		is_double(agreement_kappa(&a), 7.0 / 11.0, 1e-12, "4-level kappa worked by hand");
		/* binary at >= 1: [[1,0],[1,2]]: po .75, pe .25*.5 + .75*.5 = .5, kappa .5 */
		agreement_binary(&a, 1, b);
		is_int(b[0][0], 1, "binary: label 0, judge 0");
		is_int(b[1][0], 1, "binary: label relevant, judge 0");
		is_int(b[1][1], 2, "binary: both relevant");
		is_int(b[0][1], 0, "binary: label 0, judge relevant");
		is_double(agreement_kappa_binary(&a, 1), 0.5, 1e-12, "binary kappa worked by hand");
		/* at >= 2 the (1,1) pair becomes (0,0): [[3,0],[0,1]]: perfect */
		is_double(agreement_kappa_binary(&a, 2), 1.0, 1e-12, "binary kappa at grade >= 2");
	}
	/* perfect agreement on every level */
	{
		struct agreement a = AGREEMENT_INIT;
		for (int g = 0; g < 4; g++)
			for (int k = 0; k <= g; k++)
				agreement_add(&a, g, g);
		is_double(agreement_kappa(&a), 1.0, 1e-12, "identical grades give kappa 1");
	}
	/* set grades above 3 count as 3; negative as 0 */
	{
		struct agreement a = AGREEMENT_INIT;
		agreement_add(&a, 7, 3);
		agreement_add(&a, -1, 0);
		is_int(a.table[3][3], 1, "grade 7 counted in level 3");
		is_int(a.table[0][0], 1, "negative grade counted in level 0");
	}
	test_interval();
	return test_done();
}
