/*
 * fliptest: one-sided paired sign-flip tests of several hypotheses on shared
 * sign flips, with a step-down maxT (Westfall-Young) adjustment over a
 * family, exact enumeration when the flips have few distinct outcomes, and
 * the inversion of each test into a confidence bound.
 *
 * This is the arithmetic of the gate (gate.h, docs/compare.md). Pure
 * computation: no IO; allocations are freed before returning.
 *
 * Definitions:
 *  - The input is an n x K matrix 'x' (row-major): x[i*K + r] is question
 *    i's value for hypothesis r, already shifted by the rule's margin so that
 *    the null is "the values are symmetric around 0" and large sums speak
 *    against it (x = loss - margin for a drop test, margin - loss for a
 *    non-inferiority test); 0 for a question outside the rule's subset.
 *  - Statistic: T_r = S_r / sqrt(Q_r), S_r = sum_i x_ir, Q_r = sum_i x_ir^2
 *    (T_r = 0 when Q_r = 0). A sign flip multiplies each row by +-1 with
 *    probability 1/2, the same sign for every column of a row (the paired
 *    design across rules); Q_r does not change under flips, so ranking by T
 *    is ranking by S within a rule, and T puts the rules on one scale for
 *    the maxT.
 *  - Rows that are equal in every column are grouped: flipping j of a
 *    group's m rows adds (m - 2j) times the row, j ~ Binomial(m, 1/2). This
 *    is the same distribution as flipping each row. When the product of
 *    (m + 1) over the groups is at most 'exact_limit', every outcome is
 *    enumerated with its probability (exact p); otherwise 'permutations'
 *    flips are drawn (j by counting set bits of m random bits) and
 *    p = (c + 1) / (B + 1).
 *  - p_r (marginal) = P(T*_r >= T_r - tol), tol = 1e-9 (1 + |T_r|).
 *  - Step-down maxT over the family F (in_family): order F by T descending;
 *    u_k = max over the rules ranked k and below of T*; p_k = P(u_k >=
 *    T_(k) - tol); p_adj_(k) = max(p_adj_(k-1), p_k). This controls the
 *    family-wise error rate at alpha under subset pivotality; the rules
 *    outside F get p_adj = p_r.
 *  - Hypotheses with a fixed p (fixed_p[r] not NAN: an exact test of a
 *    0/1 measure, binexact.h) take no part in the flips (their column is
 *    ignored: pass 0). In the family each is a unit of its own, beside one
 *    unit holding every sign-flip member; with m units left, the unit of
 *    smallest p (the sign-flip unit's p being its step-down maxT p above)
 *    is judged at alpha / m and, when rejected, leaves (the sign-flip unit
 *    loses its top member only). p_adj = running max of min(1, m p). This
 *    is a shortcut of the closed test whose local test of an intersection
 *    is Bonferroni over its units (maxT within the sign-flip unit), so it
 *    controls the family-wise error at alpha; without fixed p, m = 1 and it
 *    is the plain step-down maxT.
 *  - level: the level the rule's own p was judged at (alpha / m of its
 *    step; from the first step that did not reject on, that step's level);
 *    alpha outside the family. crit: the rule is rejected exactly when
 *    T > crit, the critical value at that level of the step it was judged
 *    at (from the first step that did not reject on, the larger of that
 *    step's and its own).
 */
#ifndef EVALSET_FLIPTEST_H
#define EVALSET_FLIPTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FLIP_EXACT_LIMIT 65536

struct flip_result {
	double t;       /* studentised statistic */
	double p;       /* marginal one-sided p */
	double p_adj;   /* step-down maxT p for family members, else p */
	double crit;    /* reject exactly when t > crit (INFINITY: never; NAN: a fixed p) */
	double level;   /* the rule's own p was judged at this level (alpha / units left) */
	bool reject;    /* p_adj < alpha */
};

struct flip_opts {
	double alpha;
	long permutations;      /* >= 1 */
	uint64_t seed;
	double exact_limit;     /* enumerate when the outcomes are at most this many */
	const double *fixed_p;  /* NULL, or per hypothesis a p computed elsewhere (NAN: none) */
};

/*
 * Test the K hypotheses of the n x K matrix 'x'; 'in_family[r]' says
 * whether hypothesis r joins the maxT family. Fill out[0..K) and '*exact'
 * (every p enumerated exactly) and '*outcomes' (outcomes enumerated, or
 * flips drawn). Return 0.
 */
int flip_test(const double *x, size_t n, size_t K, const bool *in_family,
	      const struct flip_opts *o, struct flip_result *out, bool *exact, double *outcomes);

/*
 * Invert a test into a bound on the mean loss: 'loss[0..n)' are the
 * per-question losses of one rule; the rule's statistic at margin d is
 * T(d) = sum(loss - d) / sqrt(sum (loss - d)^2) for 'dir' +1 (drop test:
 * return the largest d with T(d) > crit, a lower bound on the mean loss) or
 * sum(d - loss) / sqrt(...) for 'dir' -1 (non-inferiority: return the
 * smallest d with T(d) > crit, an upper bound). -INFINITY / INFINITY when
 * no margin is rejected.
 */
double flip_bound(const double *loss, size_t n, double crit, int dir);

/* Return the smallest p a one-sided sign-flip test over 'n' questions can
 * reach with 'permutations' drawn flips when not enumerated: the larger of
 * 2^-n and 1 / (permutations + 1). */
double flip_min_p(size_t n, long permutations);

/*
 * Return the smallest number k of questions, out of 'n', that must each
 * lose 1 (the others unchanged) for the exact one-sided drop test against
 * 'margin' to reject at 'alpha' on its own (no family); 0 when no k does.
 * This is the smallest drop (k / n) a rule on a 0/1 measure can detect.
 */
size_t flip_min_losses(size_t n, double margin, double alpha);

#endif
