/*
 * realism: how far synthetic questions are from the ones real users ask,
 * measured on three distributions side by side (generate --style-from):
 *
 *  - length: words per question (tokens of core/text/text.h);
 *  - question word: the first word's class, one of what, how, why, when,
 *    where, who, which, yes/no (an auxiliary first: is, can, does, ...) and
 *    none (a keyword query, or a language whose question words are not
 *    listed: the classes are English words);
 *  - overlap: the share of the question's content words found in its chunk
 *    (text_overlap), the chunk being its first relevant chunk when it has
 *    one in the corpus, else the chunk BM25 ranks first for it (0 when none).
 *
 * Two-sample statistics:
 *  - length and overlap: the Kolmogorov-Smirnov statistic D (the largest
 *    gap between the two empirical distribution functions, 0..1) with its
 *    asymptotic p-value (Stephens' correction for small samples). Under the
 *    hypothesis that both samples come from one continuous distribution,
 *    P(D >= d) is about p; with ties (word counts are integers) the test is
 *    conservative: the true p-value is at most the one given. D itself is
 *    exact and needs no assumption: it is what to watch before and after.
 *  - question word: Pearson's chi-square test of homogeneity on the 2 x k
 *    table (classes empty in both samples dropped), p from the chi-square
 *    distribution with k - 1 degrees of freedom; a large-sample
 *    approximation, fair when expected counts are about 5 or more.
 *
 * Pure functions; a struct realism_side owns its arrays (realism_release).
 */
#ifndef EVALSET_REALISM_H
#define EVALSET_REALISM_H

#include <stddef.h>

enum qword { QW_WHAT, QW_HOW, QW_WHY, QW_WHEN, QW_WHERE, QW_WHO, QW_WHICH, QW_YESNO, QW_NONE, QW_NR };
const char *qword_name(enum qword w);
/* Return the class of the first word of 'text'. */
enum qword qword_of(const char *text);

struct realism_side {
	double *len, *overlap;
	size_t n, alloc;
	size_t qword[QW_NR];
};
#define REALISM_SIDE_INIT { NULL, NULL, 0, 0, { 0 } }
/* Add one question 'text' whose overlap with its chunk is 'overlap'. */
void realism_add(struct realism_side *s, const char *text, double overlap);
void realism_release(struct realism_side *s);

struct ks_result {
	double d, p;
};
struct chi2_result {
	double x2, p;
	int df;
};

/* Two-sample Kolmogorov-Smirnov of 'a' and 'b' (not modified). p is 1 when either is empty. */
struct ks_result ks_two_sample(const double *a, size_t na, const double *b, size_t nb);
/* The asymptotic Kolmogorov survival function Q(lambda) = P(K > lambda). */
double ks_q(double lambda);
/* Chi-square test of homogeneity of the counts 'a' and 'b' over 'k' classes. */
struct chi2_result chi2_two_sample(const size_t *a, const size_t *b, size_t k);
/* P(X > x) for X chi-square with 'df' degrees of freedom. */
double chi2_sf(double x, double df);

struct realism_gap {
	struct ks_result len, overlap;
	struct chi2_result qword;
};
/* Compare the synthetic side 's' with the real side 'r'. */
struct realism_gap realism_compare(const struct realism_side *s, const struct realism_side *r);

/* Return the 'q' quantile (0..1, linear interpolation) of the 'n' values of 'v' (sorted here). */
double realism_quantile(double *v, size_t n, double q);

#endif
