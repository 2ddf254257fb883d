/*
 * gatetest: the test behind every rule of a gate, and the family it forms.
 *
 * Why this test. A rule compares a candidate's per-question values of a
 * measure with the baseline's; each question has a loss l in [-1, 1]
 * (baseline - candidate, or the rise for FalseDecline). The losses of a
 * regression are not symmetric: a retriever that breaks loses whole
 * questions, and a change that reorders results makes many small losses and
 * a few large gains. Tests that assume symmetry (sign flips, the t test) fail
 * more often than alpha at the margin then, up to ten times more often for
 * non-inferiority with many tied questions. The test here assumes only that
 * the questions are drawn independently from a population and that every
 * value lies in [0, 1]; it holds its level at every n.
 *
 * How.
 *  1. Rounding. Each question draws a number U in [0, 1) from its id and the
 *     gate's seed (gatetest_uniform: a hash, so a question keeps its U
 *     whatever the other questions, the run order or the measures shown).
 *     Its loss l becomes r = sign(l) when U < |l|, else 0. Then r is -1, 0
 *     or +1 and, over U, E[r] = l: the mean loss is unchanged. A loss of
 *     exactly 0 or +-1 (every 0/1 measure: Success@k, Decline, R@k with one
 *     relevant chunk) is kept as it is, so for 0/1 values this step does
 *     nothing. The guarantee needs U to be independent of the candidate,
 *     which holds for any retriever that does not read the gate's seed.
 *  2. The exact test of binexact.h on the rounded losses: the chance that a
 *     question's r is +1 or -1 is a and b, the mean loss is a - b, and the
 *     exact unconditional score test of "a - b <= margin" holds its level
 *     for every a and b. With step 1, for every distribution of losses in
 *     [-1, 1]: when the true mean loss is at most the margin, the p is
 *     below alpha at most alpha of the time. Non-inferiority tests the
 *     negated losses against -margin.
 *  3. The family. The gate's drop rules are tested together by Holm's
 *     step-down procedure over their p: with m rules left, the one of
 *     smallest p is judged at alpha / m and leaves when it fails. This holds
 *     the chance that any drop rule fails a candidate whose true losses are
 *     all within their margins at alpha, whatever the dependence between the
 *     rules. Non-inferiority rules are each judged at alpha (the gate needs
 *     every one of them: an intersection-union test needs no adjustment).
 *  4. Bounds. The rule's one-sided bound on the mean loss is the test
 *     inverted at the level the rule was judged at (binexact_bound), so a
 *     drop rule fails exactly when its lower bound exceeds the margin and a
 *     non-inferiority rule passes exactly when its upper bound is below it,
 *     up to the search's 1e-5.
 *
 * Pure computation, no IO; nothing allocated survives a call but what the
 * power keeps for the next in the same thread (the log factorials, and the
 * region's edges per n: gatetest.c), kept until the process exits.
 */
#ifndef EVALSET_GATETEST_H
#define EVALSET_GATETEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Return question 'id''s rounding number U in [0, 1) for the gate seed 'seed'. */
double gatetest_uniform(const char *id, uint64_t seed);

struct gatetest_counts {
	size_t n;         /* questions */
	size_t up, down;  /* rounded losses of +1 and -1 */
	size_t rounded;   /* losses strictly between 0 and 1 in size (step 1 changed them) */
};

/*
 * Round the 'n' losses 'loss' (each in [-1, 1]; values outside are clamped)
 * with the numbers 'u' (gatetest_uniform of each question) into 'out'.
 */
void gatetest_round(const double *loss, const double *u, size_t n, struct gatetest_counts *out);

/* Return the p of "mean loss <= margin" (drop) for the rounded 'k'. */
double gatetest_p_drop(const struct gatetest_counts *k, double margin);
/* Return the p of "mean loss >= margin" (non-inferiority) for the rounded 'k'. */
double gatetest_p_noninf(const struct gatetest_counts *k, double margin);
/* Return the lower bound of the mean loss at 'level' (drop rules; -INFINITY: none). */
double gatetest_lower(const struct gatetest_counts *k, double level);
/* Return the upper bound of the mean loss at 'level' (non-inferiority; INFINITY: none). */
double gatetest_upper(const struct gatetest_counts *k, double level);

/*
 * Return the smallest p a drop rule with 'margin' can reach on 'n'
 * questions: every question losing 1. 1 when the margin is 1 or more (a
 * loss never exceeds 1).
 */
double gatetest_min_p_drop(size_t n, double margin);
/*
 * Return the p of a non-inferiority rule with 'margin' on 'n' questions when
 * the candidate equals the baseline (every loss 0): the best a candidate
 * that changes nothing can do.
 */
double gatetest_p_noninf_unchanged(size_t n, double margin);
/*
 * Return the smallest number of questions, more than 'n', at which the
 * rule's best p (gatetest_min_p_drop when 'noninf' is false, else
 * gatetest_p_noninf_unchanged) falls below 'level'; 0 when no number up to
 * 10,000,000 does.
 */
size_t gatetest_questions_needed(size_t n, double margin, bool noninf, double level);

/*
 * A cache of p-values by outcome, for callers that test many outcomes of
 * the same rules (power's simulations): a p depends only on n, the counts,
 * the margin and the test. Keyed exactly; it never changes a result.
 */
struct gatetest_cache {
	struct gatetest_cache_entry *slots;
	size_t cap, nr;
};
#define GATETEST_CACHE_INIT { NULL, 0, 0 }
void gatetest_cache_release(struct gatetest_cache *c);
/* gatetest_p_drop or gatetest_p_noninf ('noninf') through 'c' (NULL: none). */
double gatetest_p_cached(struct gatetest_cache *c, const struct gatetest_counts *k,
			 double margin, bool noninf);

/*
 * Return the chance that a rule on 'n' questions decides against the
 * candidate when each question's rounded loss is +1 with chance 'a' and -1
 * with chance 'b' (independently): a drop rule fails, or (noninf) a
 * non-inferiority rule does not pass. The rejection region is the exact
 * test's own (Z at binexact_critical_z), and its chance is summed exactly
 * over the outcomes: no approximation but the 9-SD cut of the sums.
 */
double gatetest_power(size_t n, double a, double b, double margin, bool noninf, double level);
/* Like gatetest_power with the normal critical value of 'level' in place of
 * the exact one: faster, and optimistic where counts are few (one-way
 * losses on a small set); a first guess that gatetest_power refines. */
double gatetest_power_approx(size_t n, double a, double b, double margin, bool noninf,
			     double level);

struct gatetest_holm {
	double p_adj;   /* Holm's adjusted p (running largest of min(1, m p)); p outside the family */
	double level;   /* the level the rule was judged at (see below) */
	bool reject;    /* p_adj < alpha (in the family), p < alpha (outside) */
};

/*
 * Judge the 'K' p-values 'p' at 'alpha': those with in_family[r] by Holm's
 * step-down (ties of p in index order), the others each at alpha. level: a
 * member's alpha / (members left at its step); from the first step that
 * does not reject on, that step's level (every later member is below it and
 * not rejected). Fill out[0..K).
 */
void gatetest_holm(const double *p, const bool *in_family, size_t K, double alpha,
		   struct gatetest_holm *out);

/* Return the number of members of the family ('in_family' true). */
size_t gatetest_family_size(const bool *in_family, size_t K);

#endif
