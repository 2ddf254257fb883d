/*
 * t-gatetest: the gate's test (gatetest.h): rounding keeps the mean and
 * leaves 0/1 losses alone, Holm's family and its levels, the smallest p and
 * the questions a rule needs, and, by a seeded simulation small enough for
 * the fast suite, the level held on losses that are neither 0/1 nor
 * symmetric.
 */
#include "test-lib.h"
#include "compare/binexact.h"
#include "compare/gatetest.h"
#include "compare/stats.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_uniform(void)
{
	double a = gatetest_uniform("q-0001", 3), b = gatetest_uniform("q-0001", 3);
	double c = gatetest_uniform("q-0002", 3), d = gatetest_uniform("q-0001", 4);
	double sum = 0;
	char id[32];

	ok(a == b, "a question's number depends on its id and the seed only");
	ok(a != c && a != d, "another id or another seed gives another number");
	for (int i = 0; i < 20000; i++) {
		double u;

		snprintf(id, sizeof(id), "q-%05d", i);
		u = gatetest_uniform(id, 7);
		if (u < 0 || u >= 1) {
			ok(0, "number in [0, 1) for %s: %g", id, u);
			return;
		}
		sum += u;
	}
	ok(fabs(sum / 20000 - 0.5) < 0.01, "numbers of sequential ids average 1/2 (%.4f)", sum / 20000);
}

static void test_round(void)
{
	double loss[] = { 1, -1, 0, 0.25, -0.75, 1, 0.5 };
	double u[] = { 0.99, 0.99, 0.0, 0.2, 0.8, 0.0, 0.5 };
	struct gatetest_counts k;
	struct rng rng;
	double sum = 0;
	long up = 0, down = 0;

	gatetest_round(loss, u, 7, &k);
	is_int(k.n, 7, "counts every question");
	/* +1 (any u), -1 (any u), 0, 0.25 with u 0.2 -> +1, -0.75 with u 0.8 -> 0, +1, 0.5 with u 0.5 -> 0 */
	is_int(k.up, 3, "a loss of 1 is +1 whatever its number; 0.25 rounds up when u < 0.25");
	is_int(k.down, 1, "a loss of -1 stays -1; -0.75 with u 0.8 rounds to 0");
	is_int(k.rounded, 3, "three losses were neither 0 nor 1 in size");
	/* E[rounded] = loss: over many numbers the mean is kept */
	rng_seed(&rng, 11);
	for (int i = 0; i < 200000; i++) {
		double l = 0.3, v = rng_uniform(&rng);

		gatetest_round(&l, &v, 1, &k);
		up += (long)k.up;
		l = -0.6;
		v = rng_uniform(&rng);
		gatetest_round(&l, &v, 1, &k);
		down += (long)k.down;
	}
	sum = (double)up / 200000;
	ok(fabs(sum - 0.3) < 0.005, "a loss of 0.3 rounds to +1 30%% of the time (%.4f)", sum);
	sum = (double)down / 200000;
	ok(fabs(sum - 0.6) < 0.005, "a loss of -0.6 rounds to -1 60%% of the time (%.4f)", sum);
}

static void test_p(void)
{
	struct gatetest_counts k = { 143, 0, 0, 0 };
	double p;

	/* the same run compared with itself: non-inferiority at 0.02 on 143
	 * questions cannot be shown (a 2% rate of losses of 1 gives no loss in
	 * 143 questions 5.6% of the time) */
	p = gatetest_p_noninf(&k, 0.02);
	ok(p > 0.05 && p < 0.07, "nothing changed on 143: non-inferiority p %.4f is not below 0.05", p);
	ok(gatetest_p_noninf_unchanged(143, 0.02) == p, "the unchanged outcome is that p");
	ok(gatetest_p_noninf_unchanged(500, 0.02) < 0.05, "on 500 questions it is shown");
	is_int(gatetest_questions_needed(143, 0.02, true, 0.05), 149,
	       "non-inferiority at 0.02 needs 149 questions (0.98^148 = 0.0503, 0.98^149 = 0.0493)");
	k = (struct gatetest_counts){ 143, 0, 0, 0 };
	ok(gatetest_upper(&k, 0.05) > 0.02 && gatetest_upper(&k, 0.05) < 0.0215,
	   "its upper bound at 95%% is the exact 0.0207 (%.5f)", gatetest_upper(&k, 0.05));
	k = (struct gatetest_counts){ 143, 143, 0, 0 };
	ok(gatetest_p_drop(&k, 0.02) < 1e-30, "every question losing 1: a tiny drop p");
	ok(gatetest_lower(&k, 0.05) > 0.9, "and a lower bound above 0.9");
	ok(gatetest_p_drop(&k, 1) == 1 && gatetest_min_p_drop(143, 1) == 1,
	   "a margin of 1 is never exceeded");
	is_int(gatetest_questions_needed(3, 1, false, 0.05), 0, "so no number of questions helps");
	/* smallest p of a drop rule judged at alpha / 4 */
	ok(gatetest_min_p_drop(2, 0.02) >= 0.0125, "2 questions cannot fail at 0.0125 (%.4g)",
	   gatetest_min_p_drop(2, 0.02));
	{
		size_t need = gatetest_questions_needed(2, 0.02, false, 0.0125);

		ok(need > 2 && gatetest_min_p_drop(need, 0.02) < 0.0125 &&
		   gatetest_min_p_drop(need - 1, 0.02) >= 0.0125,
		   "questions needed at 0.0125 is the first n that can fail (%zu)", need);
	}
	{
		/* the questions needed is the first count that can decide, for
		 * both tests at several margins and levels */
		static const double margins[] = { 0.01, 0.03, 0.05, 0.1, 0.2 }, levels[] = { 0.05, 0.01 };
		int bad = 0, total = 0;

		for (size_t i = 0; i < ARRAY_SIZE(margins); i++)
			for (size_t j = 0; j < ARRAY_SIZE(levels); j++)
				for (int noninf = 0; noninf <= 1; noninf++) {
					double m = margins[i], l = levels[j];
					size_t need = gatetest_questions_needed(1, m, noninf, l);
					double at = noninf ? gatetest_p_noninf_unchanged(need, m) : gatetest_min_p_drop(need, m);
					double before = noninf ? gatetest_p_noninf_unchanged(need - 1, m)
							       : gatetest_min_p_drop(need - 1, m);

					total++;
					if (!(need > 1 && at < l && before >= l)) {
						bad++;
						test_diag("margin %g level %g %s: need %zu (p %g, one fewer %g)", m, l,
							  noninf ? "non-inferiority" : "drop", need, at, before);
					}
				}
		ok(bad == 0, "questions needed is the smallest count that decides (%d cases, %d wrong)", total, bad);
	}
	k = (struct gatetest_counts){ 100, 10, 4, 0 };
	ok(gatetest_p_drop(&k, 0.02) == binexact_p(100, 10, 4, 0.02) &&
	   gatetest_p_noninf(&k, 0.10) == binexact_p(100, 4, 10, -0.10),
	   "drop tests the losses, non-inferiority the negated losses against -margin");
	ok(gatetest_p_noninf(&k, 1) == 0, "a non-inferiority margin of 1 is always shown");
}

static void test_holm(void)
{
	double p[] = { 0.02, 0.004, 0.5, 0.011, 0.03 };
	bool fam[] = { true, true, false, true, true };
	struct gatetest_holm h[5];

	gatetest_holm(p, fam, 5, 0.05, h);
	is_int(gatetest_family_size(fam, 5), 4, "four members");
	/* sorted: 0.004 (m=4: 0.016 < 0.05 rejects at 0.0125), 0.011 (m=3: 0.033, at
	 * 0.01667), 0.02 (m=2: 0.04, at 0.025), 0.03 (m=1: 0.03, at 0.05) */
	ok(h[1].reject && fabs(h[1].level - 0.0125) < 1e-12 && fabs(h[1].p_adj - 0.016) < 1e-12,
	   "smallest p judged at alpha / 4 (p_adj %.4g)", h[1].p_adj);
	ok(h[3].reject && fabs(h[3].level - 0.05 / 3) < 1e-12 && fabs(h[3].p_adj - 0.033) < 1e-12,
	   "next at alpha / 3");
	ok(h[0].reject && fabs(h[0].level - 0.025) < 1e-12 && fabs(h[0].p_adj - 0.04) < 1e-12,
	   "next at alpha / 2");
	ok(h[4].reject && fabs(h[4].level - 0.05) < 1e-12, "last at alpha");
	ok(!h[2].reject && h[2].level == 0.05 && h[2].p_adj == 0.5, "outside the family: its own p at alpha");
	p[3] = 0.02;  /* now 0.004, 0.02 (m=3: 0.06 stops), 0.02, 0.03 */
	gatetest_holm(p, fam, 5, 0.05, h);
	ok(h[1].reject, "the first still rejects");
	ok(!h[0].reject && !h[3].reject && !h[4].reject,
	   "from the first step that does not reject, no member rejects");
	ok(fabs(h[0].level - 0.05 / 3) < 1e-12 && fabs(h[4].level - 0.05 / 3) < 1e-12,
	   "and every later member is judged at that step's level");
	ok(h[4].p_adj >= h[0].p_adj && h[0].p_adj >= h[1].p_adj, "adjusted p never fall along the order");
	p[0] = 0.0126;  /* p_adj = 4 p = 0.0504: not at alpha 0.05 */
	p[1] = p[3] = p[4] = 0.9;
	gatetest_holm(p, fam, 5, 0.05, h);
	ok(!h[0].reject, "p 0.0126 among four does not reject (0.0126 >= 0.0125)");
	p[0] = 0.0125;
	gatetest_holm(p, fam, 5, 0.05, h);
	ok(!h[0].reject, "p exactly at its level does not reject");
	{
		double one[] = { 0.05, 0.05 }, below[] = { 0.0499, 0.0499 };
		bool fam1[] = { true, false };
		struct gatetest_holm h1[2];

		/* a drop rule alone in its family and a non-inferiority rule
		 * (outside it): each judged at alpha, rejecting only below it */
		gatetest_holm(one, fam1, 2, 0.05, h1);
		ok(!h1[0].reject && !h1[1].reject, "p = alpha rejects neither a lone drop rule nor a rule outside the family");
		gatetest_holm(below, fam1, 2, 0.05, h1);
		ok(h1[0].reject && h1[1].reject, "p just below alpha rejects both");
	}
}

/*
 * The level on skewed graded losses (many small losses, rare large gains),
 * where tests that assume symmetry err: n questions, each losing 0.1 with
 * chance s or gaining 0.9 with chance g, mean loss exactly the margin.
 */
static void test_skewed_level(void)
{
	const size_t n = 30;
	const double margin = 0.02, g = 0.03, s = (margin + 0.9 * g) / 0.1;
	double loss[30], u[30];
	struct rng rng;
	long fails = 0, sims = (long)test_repeats(3000, 500, "seeded rounds of skewed losses");
	struct gatetest_counts k;

	rng_seed(&rng, 2026);
	for (long t = 0; t < sims; t++) {
		for (size_t i = 0; i < n; i++) {
			double x = rng_uniform(&rng);

			loss[i] = x < s ? 0.1 : x < s + g ? -0.9 : 0;
			u[i] = rng_uniform(&rng);
		}
		gatetest_round(loss, u, n, &k);
		fails += gatetest_p_drop(&k, margin) < 0.05;
	}
	ok((double)fails / (double)sims <= 0.05 + 3 * sqrt(0.05 * 0.95 / (double)sims),
	   "skewed losses on 30 questions at the margin fail %.4f of the time (<= 0.05 + 3 SE)",
	   (double)fails / (double)sims);
}

int main(void)
{
	test_uniform();
	test_round();
	test_p();
	test_holm();
	test_skewed_level();
	return test_done();
}
