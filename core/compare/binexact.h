/*
 * binexact: an exact test of the mean change of a 0/1 measure against a
 * margin, for the gate's rules on measures that are 0 or 1 per question
 * (Decline, FalseDecline, Success@k, Hit@k).
 *
 * Why: on such a measure each question's loss is -1, 0 or +1, and near a
 * small margin it is very skewed (a question can only go from answered to
 * declined when the baseline declines nothing). The sign-flip test assumes
 * the per-question changes are symmetric around the margin; here they are
 * not, and it fails more often than alpha at the margin. This test needs no
 * symmetry.
 *
 * Model: questions are drawn independently from a population; a question's
 * loss is +1 with probability a, -1 with probability b, else 0. The mean
 * loss is a - b. Null hypothesis H0: a - b <= d; alternative a - b > d.
 *
 * Statistic: the score statistic of Tango (1998) for a difference of paired
 * proportions, Z = (u - v - n d) / sqrt(n (2 b~ + d - d^2)), u questions
 * with loss +1, v with loss -1, b~ the maximum-likelihood b under a - b = d:
 * the root of 2 n b^2 - B b - C = 0 with B = u (1 + d) + v (1 - d) - 2 n d
 * and C = v d (1 - d), clamped to [max(0, -d), (1 - d) / 2].
 *
 * p: the exact unconditional p, the largest over the nuisance b of
 * P(Z(U, V) >= z observed) where (U, V, rest) is multinomial(n; b + d, b,
 * 1 - 2b - d). Z grows with u and falls with v (checked over every
 * outcome of small n by the unit test), so the chance of the region only
 * grows towards the boundary a - b = d and the largest chance over the
 * whole null is on it. The probability of the region is summed exactly
 * (binomial terms beyond 9 standard deviations, below 1e-18, are left out);
 * the largest over b is searched numerically on 48 points, squared-spaced
 * from the low end, refined by 24 golden-section steps around the best.
 * Therefore: P(p < alpha) <= alpha for every a - b <= d, up to the
 * precision of that search.
 *
 * Pure computation; allocations are freed before returning, but for the
 * thread's table of log factorials (binom_shared), kept for the next call.
 */
#ifndef EVALSET_BINEXACT_H
#define EVALSET_BINEXACT_H

#include <stdbool.h>
#include <stddef.h>

/* Return the p of H0 "mean loss <= d" for 'n' questions, 'up' with loss
 * +1 and 'down' with loss -1 (up + down <= n, n >= 1, -1 < d < 1). */
double binexact_p(size_t n, size_t up, size_t down, double d);

/* Whether binexact_p(n, up, down, d) < level: the same answer, with the
 * search for p stopped once it finds a chance of 'level' or more (p is the
 * largest chance over the nuisance, so it cannot be below 'level' then). */
bool binexact_p_below(size_t n, size_t up, size_t down, double d, double level);

/*
 * Return the lower confidence bound of the mean loss at 'level': the largest
 * d that the test rejects at 'level' (binexact_p < level), bracketed to 1e-5
 * from the normal bound by the Illinois method with bisection steps;
 * -INFINITY when the test rejects no d. The test at margin m
 * rejects exactly when the bound exceeds m (to that precision).
 */
double binexact_bound(size_t n, size_t up, size_t down, double level);

/* Return the smallest k, out of 'n', such that k questions with loss +1 and
 * none with -1 reject "mean loss <= margin" at 'alpha'; 0 when none does. */
size_t binexact_min_losses(size_t n, double margin, double alpha);

/*
 * Return the critical value of the test at 'level': the p depends on an
 * outcome only through its Z, and the test rejects (p < level) exactly when
 * Z >= the value returned (to 1e-6); INFINITY when no outcome of 'n'
 * questions rejects. What the power of a rule is computed from.
 */
double binexact_critical_z(size_t n, double d, double level);

/* Return the score statistic Z (definition above), for tests. */
double binexact_z(size_t n, size_t up, size_t down, double d);

#endif
