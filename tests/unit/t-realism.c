/*
 * t-realism: the two-sample statistics of the realism gap against known
 * values and known distributions: the chi-square and Kolmogorov tails at
 * their tabulated 5% points, D on samples whose gap is known exactly, the
 * false-alarm rate on samples drawn from one distribution (about 5% at
 * p < 0.05, never far above) and the power on shifted ones; the question-word
 * classes.
 */
#include "test-lib.h"
#include "llm/realism.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static uint64_t rng = 88172645463325252ULL;

static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

/* A standard normal draw (Box-Muller). */
static double normal(void)
{
	double u = uniform(), v = uniform();
	return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

int main(void)
{
	double a[200], b[200];
	int false_alarms = 0, hits = 0, trials = 400;

	/* tabulated tails */
	is_double(chi2_sf(3.841459, 1), 0.05, 1e-5, "chi2(1) upper 5% point");
	is_double(chi2_sf(11.0705, 5), 0.05, 1e-5, "chi2(5) upper 5% point");
	is_double(chi2_sf(23.2093, 10), 0.01, 1e-5, "chi2(10) upper 1% point");
	is_double(chi2_sf(2.0, 2), exp(-1.0), 1e-12, "chi2(2) is exponential: P(X > 2) = e^-1");
	is_double(chi2_sf(0, 3), 1.0, 0, "chi2 at 0 is 1");
	is_double(ks_q(1.3581), 0.05, 2e-4, "Kolmogorov 5% point 1.358");
	is_double(ks_q(1.6276), 0.01, 2e-4, "Kolmogorov 1% point 1.628");
	is_double(ks_q(0.1), 1.0, 0, "Kolmogorov tail near 0 is 1");

	/* D is exact on samples with a known gap */
	for (int i = 0; i < 100; i++) {
		a[i] = i + 1;
		b[i] = i + 51;
	}
	{
		struct ks_result r = ks_two_sample(a, 100, b, 100);
		is_double(r.d, 0.5, 1e-12, "1..100 against 51..150: D = 0.5");
		ok(r.p < 1e-9, "and p is tiny (%g)", r.p);
		r = ks_two_sample(a, 100, a, 100);
		is_double(r.d, 0, 0, "a sample against itself: D = 0");
		is_double(r.p, 1, 0, "and p = 1");
		r = ks_two_sample(a, 0, b, 100);
		is_double(r.p, 1, 0, "an empty side: p = 1");
	}
	/* ties (integer word counts) handled: {1,1,2} vs {1,2,2}: D = 1/3 */
	{
		double x[] = { 1, 1, 2 }, y[] = { 1, 2, 2 };
		is_double(ks_two_sample(x, 3, y, 3).d, 1.0 / 3, 1e-12, "ties: D measured after each distinct value");
	}

	/* known distributions: the same normal twice, then shifted by 0.5 sd */
	for (int t = 0; t < trials; t++) {
		for (int i = 0; i < 100; i++) {
			a[i] = normal();
			b[i] = normal();
		}
		false_alarms += ks_two_sample(a, 100, b, 100).p < 0.05;
		for (int i = 0; i < 100; i++)
			b[i] += 0.5;
		hits += ks_two_sample(a, 100, b, 100).p < 0.05;
	}
	ok(false_alarms <= trials * 0.08, "one distribution: p < 0.05 in %d of %d trials (at most about 5%%)",
	   false_alarms, trials);
	ok(false_alarms >= trials * 0.01, "and the test is not blind (%d of %d)", false_alarms, trials);
	/* the power of the test for this shift is about 0.87 */
	ok(hits >= trials * 0.8, "a 0.5 sd shift at n = 100: found in %d of %d trials", hits, trials);

	/* chi-square homogeneity: same proportions vs different ones */
	{
		size_t x[] = { 50, 30, 20 }, y[] = { 100, 60, 40 }, z[] = { 20, 30, 50 };
		struct chi2_result r = chi2_two_sample(x, y, 3);
		is_double(r.x2, 0, 1e-12, "equal proportions: chi2 = 0");
		is_int(r.df, 2, "3 classes: 2 degrees of freedom");
		r = chi2_two_sample(x, z, 3);
		/* expected 35/30/35 per side: 2*(225+0+225)/35 */
		is_double(r.x2, 900.0 / 35, 1e-9, "chi2 of 50/30/20 against 20/30/50");
		ok(r.p < 1e-5, "and p is tiny (%g)", r.p);
	}
	{
		size_t x[] = { 10, 0, 5 }, y[] = { 10, 0, 5 };
		is_int(chi2_two_sample(x, y, 3).df, 1, "a class empty on both sides is dropped");
	}

	/* question words */
	is_int(qword_of("What's the default port?"), QW_WHAT, "what's");
	is_int(qword_of("how do i reset my password"), QW_HOW, "how, lower case");
	is_int(qword_of("Can the proxy use TLS?"), QW_YESNO, "an auxiliary first: yes/no");
	is_int(qword_of("proxy port default"), QW_NONE, "a keyword query");
	is_int(qword_of(""), QW_NONE, "empty");
	{
		struct realism_side s = REALISM_SIDE_INIT;
		realism_add(&s, "who wrote the sirens song", 0.5);
		realism_add(&s, "Which port?", 0.25);
		is_int(s.n, 2, "two questions");
		is_double(s.len[0], 5, 0, "length in words");
		is_int(s.qword[QW_WHO], 1, "who counted");
		realism_release(&s);
	}
	return test_done();
}
