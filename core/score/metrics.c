/*
 * metrics: measures of one ranking from its judged hits (see metrics.h).
 *
 * Each function walks the hits in rank order and adds in the same order as
 * trec_eval v10.0 does, so that sums of doubles round identically and the
 * printed values agree to the last digit.
 */
#include "score/metrics.h"

#include <math.h>

long m_num_rel(const struct query_eval *e, int rel_level)
{
	long n = 0;

	for (int g = rel_level < 0 ? 0 : rel_level; g < e->nr_levels; g++)
		n += e->levels[g];
	return n;
}

long m_num_rel_ret(const struct query_eval *e, int rel_level, long k)
{
	long n = 0;

	for (size_t i = 0; i < e->nr_hits; i++) {
		if (k && e->hits[i].rank > k)
			break;
		if (e->hits[i].rel >= rel_level && e->hits[i].rel >= 0)
			n++;
	}
	return n;
}

long m_num_judged(const struct query_eval *e, long k)
{
	long n = 0;

	for (size_t i = 0; i < e->nr_hits; i++) {
		if (k && e->hits[i].rank > k)
			break;
		if (e->hits[i].rel >= 0)
			n++;
	}
	return n;
}

double m_precision(const struct query_eval *e, int rel_level, long k)
{
	if (k <= 0)
		return 0.0;
	return (double)m_num_rel_ret(e, rel_level, k) / (double)k;
}

double m_recall(const struct query_eval *e, int rel_level, long k)
{
	long num_rel = m_num_rel(e, rel_level);

	if (!num_rel)
		return 0.0;
	return (double)m_num_rel_ret(e, rel_level, k) / (double)num_rel;
}

double m_success(const struct query_eval *e, int rel_level, long k)
{
	return m_num_rel_ret(e, rel_level, k) > 0 ? 1.0 : 0.0;
}

double m_recip_rank(const struct query_eval *e, int rel_level, long k)
{
	for (size_t i = 0; i < e->nr_hits; i++) {
		if (k && e->hits[i].rank > k)
			break;
		if (e->hits[i].rel >= rel_level && e->hits[i].rel >= 0)
			return 1.0 / (double)e->hits[i].rank;
	}
	return 0.0;
}

double m_ap(const struct query_eval *e, int rel_level, long k)
{
	long num_rel = m_num_rel(e, rel_level);
	long rel_so_far = 0;
	double sum = 0.0;

	if (!num_rel)
		return 0.0;
	for (size_t i = 0; i < e->nr_hits; i++) {
		if (k && e->hits[i].rank > k)
			break;
		if (e->hits[i].rel >= rel_level && e->hits[i].rel >= 0) {
			rel_so_far++;
			sum += (double)rel_so_far / (double)e->hits[i].rank;
		}
	}
	return sum / (double)num_rel;
}

double m_rprec(const struct query_eval *e, int rel_level)
{
	long num_rel = m_num_rel(e, rel_level);
	long look = num_rel < e->num_ret ? num_rel : e->num_ret;

	if (!look)
		return 0.0;
	return (double)m_num_rel_ret(e, rel_level, look) / (double)num_rel;
}

/* Return the ideal DCG over the first 'k' positions (0: all judged relevant). */
static double ideal_dcg(const struct query_eval *e, long k)
{
	double ideal = 0.0;
	long i = 0;

	for (int g = e->nr_levels - 1; g >= 1; g--) {
		for (long c = 0; c < e->levels[g]; c++) {
			if (k && i >= k)
				return ideal;
			ideal += (double)g / log2((double)(i + 2));
			i++;
		}
	}
	return ideal;
}

double m_ndcg(const struct query_eval *e, long k)
{
	double dcg = 0.0, ideal;

	for (size_t i = 0; i < e->nr_hits; i++) {
		if (k && e->hits[i].rank > k)
			break;
		if (e->hits[i].rel > 0)
			dcg += (double)e->hits[i].rel / log2((double)(e->hits[i].rank + 1));
	}
	ideal = ideal_dcg(e, k);
	if (ideal > 0.0)
		return dcg / ideal;
	return k ? dcg : 0.0;
}

double m_bpref(const struct query_eval *e, int rel_level)
{
	long num_rel = m_num_rel(e, rel_level);
	long num_nonrel = 0, nonrel_so_far = 0;
	double bpref = 0.0;

	for (int g = 0; g < rel_level && g < e->nr_levels; g++)
		num_nonrel += e->levels[g];
	for (size_t i = 0; i < e->nr_hits; i++) {
		int rel = e->hits[i].rel;

		if (rel == REL_UNJUDGED || rel < 0)
			continue;
		if (rel < rel_level) {
			nonrel_so_far++;
		} else if (nonrel_so_far > 0) {
			long a = nonrel_so_far < num_rel ? nonrel_so_far : num_rel;
			long b = num_nonrel < num_rel ? num_nonrel : num_rel;

			bpref += 1.0 - (double)a / (double)b;
		} else {
			bpref += 1.0;
		}
	}
	if (num_rel)
		bpref /= (double)num_rel;
	return bpref;
}

double m_judged(const struct query_eval *e, long k)
{
	if (k <= 0)
		return 0.0;
	return (double)m_num_judged(e, k) / (double)k;
}

void m_iprec_at_recall(const struct query_eval *e, int rel_level,
		       const double *pct, size_t nr, double *out)
{
	long num_rel = m_num_rel(e, rel_level);
	long num_rel_ret = m_num_rel_ret(e, rel_level, 0);
	long cut[64];
	long cur, rel_so_far;
	double num = (double)num_rel_ret, den = (double)e->num_ret;
	double int_precis;

	if (nr > 64)
		nr = 64;
	for (size_t i = 0; i < nr; i++) {
		cut[i] = lround(pct[i] * (double)num_rel);
		out[i] = 0.0;
	}
	cur = (long)nr - 1;
	while (cur >= 0 && cut[cur] > num_rel_ret)
		cur--;
	/* trec_eval starts from the precision at the end of the ranking, 0/0 for an empty one */
	int_precis = num / den;
	rel_so_far = num_rel_ret;
	for (size_t h = e->nr_hits; h > 0 && rel_so_far > 0; h--) {
		const struct judged_hit *x = &e->hits[h - 1];
		double precis;

		if (x->rel < rel_level || x->rel < 0)
			continue;
		precis = (double)rel_so_far / (double)x->rank;
		if (int_precis < precis)
			int_precis = precis;
		while (cur >= 0 && rel_so_far == cut[cur])
			out[cur--] = int_precis;
		rel_so_far--;
	}
	while (cur >= 0)
		out[cur--] = int_precis;
}
