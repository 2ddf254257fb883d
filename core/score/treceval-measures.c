/*
 * treceval-measures: trec_eval's measures that read a whole ranking (see
 * treceval.h), each computed as trec_eval v10.0 does, in the same order of
 * floating-point operations, so the printed values agree to the last digit
 * and the same 0/0 gives the same NaN.
 *
 * Gains (G, dcg, ideal_dcg, ndcg, ndcg_rel, Rndcg, rbp): each grade's gain
 * is the grade itself unless a "grade=gain" parameter says otherwise;
 * grades are then ordered by gain, truncated to an integer when compared,
 * keeping the order of equal ones (as trec_eval's sort does on glibc), and
 * the ideal ranking takes the judged documents from the last of that order
 * down. rbp rescales the gains into [0, 1] when one lies outside, from the
 * smallest and the largest gain (trec_eval v10.0 leaves those two
 * uninitialised; see docs/trec-eval.md).
 */
#include "score/treceval.h"

#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MIN_GEO_MEAN 0.00001
#define INFAP_EPSILON 0.00001

struct gain {
	long level;
	double gain;
	long num_at_level;
};

struct gains {
	struct gain *g;
	long n;
};

static bool valid_int(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* trec_eval compares gains by their difference cast to int. */
static int cmp_gain(const struct gain *a, const struct gain *b)
{
	return (int)(a->gain - b->gain);
}

static void gains_setup(const struct te_params *p, const struct te_ranking *r, struct gains *gs)
{
	size_t npairs = p ? p->nr : 0;
	long n = 0;

	gs->g = xcalloc((size_t)r->nr_levels + npairs + 1, sizeof(*gs->g));
	for (size_t i = 0; i < npairs; i++) {
		if (!valid_int(p->key[i]))
			continue;
		gs->g[n].level = strtol(p->key[i], NULL, 10);
		gs->g[n].gain = p->val[i];
		gs->g[n].num_at_level = 0;
		n++;
	}
	for (long lv = 0; lv < r->nr_levels; lv++) {
		long j;

		for (j = 0; j < n && gs->g[j].level != lv; j++)
			;
		if (j < n) {
			gs->g[j].num_at_level = r->levels[lv];
		} else {
			gs->g[n].level = lv;
			gs->g[n].gain = (double)lv;
			gs->g[n].num_at_level = r->levels[lv];
			n++;
		}
	}
	/* a stable insertion sort: equal keys keep their order */
	for (long i = 1; i < n; i++) {
		struct gain x = gs->g[i];
		long j = i;

		while (j > 0 && cmp_gain(&gs->g[j - 1], &x) > 0) {
			gs->g[j] = gs->g[j - 1];
			j--;
		}
		gs->g[j] = x;
	}
	gs->n = n;
}

static double gain_of(long rel, const struct gains *gs)
{
	for (long i = 0; i < gs->n; i++)
		if (gs->g[i].level == rel)
			return gs->g[i].gain;
	return 0.0;
}

/* Walks the ideal ranking: one step per position, as trec_eval's loops do. */
struct ideal {
	const struct gains *gs;
	long cur, num_at_level;
	double gain;
};

static void ideal_init(struct ideal *id, const struct gains *gs)
{
	id->gs = gs;
	id->cur = gs->n - 1;
	id->gain = id->cur >= 0 ? gs->g[id->cur].gain : 0.0;
	id->num_at_level = 0;
}

static void ideal_step(struct ideal *id)
{
	id->num_at_level++;
	while (id->cur >= 0 && id->num_at_level > id->gs->g[id->cur].num_at_level) {
		id->num_at_level = 1;
		id->cur--;
		id->gain = id->cur >= 0 ? id->gs->g[id->cur].gain : 0.0;
	}
}

/* Add to 'dcg' the gains of ranks 'i'.. of 'r' (past the ideal ranking's end). */
static double dcg_rest(const struct te_ranking *r, const struct gains *gs, long i, double dcg)
{
	for (; i < r->num_ret; i++) {
		double g = gain_of(r->rel[i], gs);

		if (g != 0)
			dcg += g / log2((double)(i + 2));
	}
	return dcg;
}

/*
 * Walk the ideal ranking on from position 'i' to its end (past the run's
 * end), adding to '*ideal_dcg'; return how many positions had a gain.
 */
static long ideal_rest(struct ideal *id, long i, double *ideal_dcg)
{
	long n = 0;

	while (id->gain > 0.0) {
		ideal_step(id);
		if (id->gain > 0.0) {
			n++;
			*ideal_dcg += id->gain / log2((double)(i + 2));
		}
		i++;
	}
	return n;
}

/* dcg, ideal_dcg and ndcg with gains. */
static double calc_ndcg(const struct te_column *c, const struct te_params *p, const struct te_ranking *r)
{
	struct gains gs;
	struct ideal id;
	double results_dcg = 0.0, ideal_dcg = 0.0, v = 0.0;
	long i;

	gains_setup(p, r, &gs);
	ideal_init(&id, &gs);
	for (i = 0; i < r->num_ret && id.gain > 0.0; i++) {
		double g = gain_of(r->rel[i], &gs);

		if (g != 0)
			results_dcg += g / log2((double)(i + 2));
		ideal_step(&id);
		if (id.gain > 0.0)
			ideal_dcg += id.gain / log2((double)(i + 2));
	}
	results_dcg = dcg_rest(r, &gs, i, results_dcg);
	ideal_rest(&id, i, &ideal_dcg);
	if (c->kind == TK_NDCG)
		v = ideal_dcg > 0.0 ? results_dcg / ideal_dcg : 0.0;
	else if (c->kind == TK_DCG)
		v = results_dcg;
	else
		v = ideal_dcg;
	free(gs.g);
	return v;
}

static double calc_ndcg_rel(const struct te_params *p, const struct te_ranking *r)
{
	struct gains gs;
	struct ideal id;
	double results_dcg = 0.0, ideal_dcg = 0.0, sum = 0.0, v = 0.0;
	long num_rel_ret = 0, num_rel = 0, i;

	gains_setup(p, r, &gs);
	ideal_init(&id, &gs);
	for (i = 0; i < r->num_ret && id.gain > 0.0; i++) {
		double g = gain_of(r->rel[i], &gs);

		if (g != 0)
			results_dcg += g / log2((double)(i + 2));
		ideal_step(&id);
		if (id.gain > 0.0) {
			num_rel++;
			ideal_dcg += id.gain / log2((double)(i + 2));
		}
		if (g > 0) {
			sum += results_dcg / ideal_dcg;
			num_rel_ret++;
		}
	}
	for (; i < r->num_ret; i++) {
		double g = gain_of(r->rel[i], &gs);

		if (g != 0)
			results_dcg += g / log2((double)(i + 2));
		if (g > 0) {
			sum += results_dcg / ideal_dcg;
			num_rel_ret++;
		}
	}
	num_rel += ideal_rest(&id, i, &ideal_dcg);
	sum += ((double)(num_rel - num_rel_ret)) * results_dcg / ideal_dcg;
	if (sum > 0.0)
		v = sum / (double)num_rel;
	free(gs.g);
	return v;
}

static double calc_rndcg(const struct te_params *p, const struct te_ranking *r)
{
	struct gains gs;
	struct ideal id;
	double results_dcg = 0.0, ideal_dcg = 0.0, sum = 0.0, old_gain, v;
	long changed = 0, i;

	if (!r->num_rel)
		return 0.0;
	gains_setup(p, r, &gs);
	ideal_init(&id, &gs);
	old_gain = id.gain;
	for (i = 0; i < r->num_ret && id.gain > 0.0; i++) {
		double g = gain_of(r->rel[i], &gs);

		ideal_step(&id);
		if (old_gain != id.gain) {
			if (ideal_dcg > 0.0) {
				sum += results_dcg / ideal_dcg;
				changed++;
			}
			old_gain = id.gain;
		}
		if (g != 0)
			results_dcg += g / log2((double)(i + 2));
		if (id.gain > 0.0)
			ideal_dcg += id.gain / log2((double)(i + 2));
	}
	if (i < r->num_ret) {
		results_dcg = dcg_rest(r, &gs, i, results_dcg);
		i = r->num_ret;
		if (ideal_dcg > 0.0) {
			sum += results_dcg / ideal_dcg;
			changed++;
		}
	}
	while (id.gain > 0.0) {
		ideal_step(&id);
		if (old_gain != id.gain) {
			if (ideal_dcg > 0.0) {
				sum += results_dcg / ideal_dcg;
				changed++;
			}
			old_gain = id.gain;
		}
		if (id.gain > 0.0)
			ideal_dcg += id.gain / log2((double)(i + 2));
		i++;
	}
	v = sum / (double)changed;
	free(gs.g);
	return v;
}

static double calc_g(const struct te_params *p, const struct te_ranking *r)
{
	struct gains gs;
	struct ideal id;
	double sum_results = 0.0, sum_ideal = 0.0, sum_cost = 0.0, results_g = 0.0, v = 0.0;
	const double min_cost = 1.0;
	long i;

	gains_setup(p, r, &gs);
	ideal_init(&id, &gs);
	for (i = 0; i < r->num_ret && id.gain > 0.0; i++) {
		double g = gain_of(r->rel[i], &gs);

		sum_results += g;
		ideal_step(&id);
		if (id.gain > 0.0)
			sum_ideal += id.gain;
		if (id.gain >= min_cost)
			sum_cost += id.gain;
		else
			sum_cost += min_cost;
		if (g != 0)
			results_g += g / log2((double)(2 + sum_cost - sum_results));
	}
	for (; i < r->num_ret; i++) {
		double g = gain_of(r->rel[i], &gs);

		sum_results += g;
		sum_cost += min_cost;
		if (g != 0)
			results_g += g / log2((double)(2 + sum_cost - sum_results));
	}
	while (id.gain > 0.0) {
		ideal_step(&id);
		if (id.gain > 0.0)
			sum_ideal += id.gain;
	}
	if (sum_ideal > 0.0)
		v = results_g / sum_ideal;
	free(gs.g);
	return v;
}

static double pair_value(const struct te_params *p, const char *key, double dflt)
{
	for (size_t i = 0; p && i < p->nr; i++)
		if (!strcmp(p->key[i], key))
			dflt = p->val[i];
	return dflt;
}

static double calc_rbp(const struct te_params *p, const struct te_ranking *r)
{
	struct gains gs;
	double pr = pair_value(p, "p", 0.9), sum = 0.0, cur_p = 1.0, lo, hi;

	gains_setup(p, r, &gs);
	lo = gs.n ? gs.g[0].gain : 0.0;
	hi = lo;
	for (long i = 0; i < gs.n; i++) {
		if (gs.g[i].gain < lo)
			lo = gs.g[i].gain;
		if (gs.g[i].gain > hi)
			hi = gs.g[i].gain;
	}
	if (lo < 0 || hi > 1)
		for (long i = 0; i < gs.n; i++)
			gs.g[i].gain = (gs.g[i].gain - lo) / (hi - lo);
	for (long i = 0; i < r->num_ret; i++) {
		double g = gain_of(r->rel[i], &gs);

		if (g != 0)
			sum += g * cur_p;
		cur_p = cur_p * pr;
	}
	free(gs.g);
	return (1.0 - pr) * sum;
}

static double calc_rbp_resid(const struct te_params *p, const struct te_ranking *r)
{
	double pr = pair_value(p, "p", 0.9), sum = 0.0, cur_p = 1.0;
	long unj = 0;

	for (long i = 0; i < r->num_ret; i++) {
		if (r->rel[i] < 0) {
			unj++;
			sum += cur_p;
		}
		cur_p = cur_p * pr;
	}
	return unj ? cur_p + (1 - pr) * sum : 0.0;
}

static double calc_infap(const struct te_ranking *r)
{
	long nonrel = 0, rel = 0, unjudged = 0;
	double inf_ap = 0.0;

	for (long j = 0; j < r->num_ret; j++) {
		int x = r->rel[j];

		if (x == TE_NONPOOL)
			continue;
		if (x == TE_UNJUDGED) {
			unjudged++;
			continue;
		}
		if (x >= 0 && x < r->level) {
			nonrel++;
		} else {
			rel++;
			if (j == 0) {
				inf_ap += 1.0;
			} else {
				double fj = (double)j;

				inf_ap += 1.0 / (fj + 1.0) +
					  (fj / (fj + 1.0)) *
					  ((double)(rel - 1 + nonrel + unjudged) / fj) *
					  (((double)(rel - 1) + INFAP_EPSILON) /
					   ((double)(rel - 1 + nonrel) + 2 * INFAP_EPSILON));
			}
		}
	}
	if (r->num_rel)
		inf_ap /= (double)r->num_rel;
	return inf_ap;
}

static double calc_gm_bpref(const struct te_ranking *r)
{
	long num_nonrel = 0, nonrel = 0;
	double bpref = 0.0;

	for (int j = 0; j < r->level && j < r->nr_levels; j++)
		num_nonrel += r->levels[j];
	for (long j = 0; j < r->num_ret; j++) {
		int x = r->rel[j];

		if (x == TE_NONPOOL || x == TE_UNJUDGED)
			continue;
		if (x >= 0 && x < r->level) {
			nonrel++;
		} else if (nonrel > 0) {
			bpref += 1.0 - ((double)(nonrel < r->num_rel ? nonrel : r->num_rel)) /
					       (double)(num_nonrel < r->num_rel ? num_nonrel : r->num_rel);
		} else {
			bpref += 1.0;
		}
	}
	if (r->num_rel)
		bpref /= (double)r->num_rel;
	return log(bpref > MIN_GEO_MEAN ? bpref : MIN_GEO_MEAN);
}

static double calc_rprec_mult(double pct, const struct te_ranking *r)
{
	long cut = (long)(pct * (double)r->num_rel + 0.9), rel = 0;

	if (cut > r->num_ret)
		return (double)r->num_rel_ret / (double)cut;
	if (cut <= 0)
		return 0.0;
	for (long i = 0; i < cut; i++)
		if (r->rel[i] >= r->level)
			rel++;
	return rel ? (double)rel / (double)cut : 0.0;
}

static double calc_11pt(const struct te_params *p, const struct te_ranking *r)
{
	long cuts[TE_MAX_PARAMS], cur, rel_so_far;
	double precis, int_precis, sum = 0.0;

	if (!p->nr)
		return 0.0;
	for (size_t i = 0; i < p->nr; i++)
		cuts[i] = lround(p->val[i] * (double)r->num_rel);
	cur = (long)p->nr - 1;
	while (cur >= 0 && cuts[cur] > r->num_rel_ret)
		cur--;
	precis = (double)r->num_rel_ret / (double)r->num_ret;
	int_precis = precis;
	rel_so_far = r->num_rel_ret;
	for (long i = r->num_ret; i > 0 && rel_so_far > 0; i--) {
		precis = (double)rel_so_far / (double)i;
		if (int_precis < precis)
			int_precis = precis;
		if (r->rel[i - 1] >= r->level) {
			while (cur >= 0 && rel_so_far == cuts[cur]) {
				sum += int_precis;
				cur--;
			}
			rel_so_far--;
		}
	}
	while (cur >= 0) {
		sum += int_precis;
		cur--;
	}
	return sum / (double)p->nr;
}

static double calc_bing(const struct te_ranking *r)
{
	long rel = 0;
	double sum = 0.0;

	for (long i = 0; i < r->num_ret; i++) {
		if (r->rel[i] >= r->level) {
			rel++;
			sum += 1.0 / log2((double)(3 + i - rel));
		}
	}
	return rel ? sum / (double)r->num_rel : 0.0;
}

static long count_rel(const struct te_ranking *r, long upto)
{
	long n = 0;

	if (upto > r->num_ret)
		upto = r->num_ret;
	for (long i = 0; i < upto; i++)
		if (r->rel[i] >= r->level)
			n++;
	return n;
}

double te_ranking_value(const struct te_column *c, const struct te_params *p,
			const struct te_ranking *r)
{
	double nrr = (double)r->num_rel_ret, nret = (double)r->num_ret, nrel = (double)r->num_rel;

	switch (c->kind) {
	case TK_INFAP: return calc_infap(r);
	case TK_GM_BPREF: return calc_gm_bpref(r);
	case TK_RPREC_MULT: return calc_rprec_mult(c->pct, r);
	case TK_UTILITY:
		return p->val[0] * nrr + p->val[1] * (nret - nrr) + p->val[2] * (nrel - nrr) +
		       p->val[3] * (double)(r->num_docs + r->num_rel_ret - r->num_ret - r->num_rel);
	case TK_11PT_AVG: return calc_11pt(p, r);
	case TK_BING: return calc_bing(r);
	case TK_G: return calc_g(p, r);
	case TK_DCG: case TK_IDEAL_DCG: case TK_NDCG: return calc_ndcg(c, p, r);
	case TK_NDCG_REL: return calc_ndcg_rel(p, r);
	case TK_RNDCG: return calc_rndcg(p, r);
	case TK_RELATIVE_P: {
		long lim = c->k > r->num_rel ? r->num_rel : c->k;

		if (!r->num_rel)
			return 0.0;
		return (double)count_rel(r, c->k) / (double)lim;
	}
	case TK_SET_P: return r->num_ret ? nrr / nret : 0.0;
	case TK_SET_RELATIVE_P:
		return r->num_ret && r->num_rel ? nrr / (double)(r->num_ret < r->num_rel ? r->num_ret : r->num_rel) : 0.0;
	case TK_SET_RECALL: return r->num_rel ? nrr / nrel : 0.0;
	case TK_SET_MAP: return r->num_ret && r->num_rel ? (nrr * nrr) / (nret * nrel) : 0.0;
	case TK_SET_F: {
		double P, R, x = p->val[0];

		if (!r->num_rel_ret)
			return 0.0;
		P = nrr / nret;
		R = nrr / nrel;
		return (x + 1.0) * P * R / (x * P + R);
	}
	case TK_NUM_NONREL_JUDGED_RET:
		return (double)(r->num_ret - r->num_nonpool - r->num_unjudged - r->num_rel_ret);
	case TK_RBP: return calc_rbp(p, r);
	case TK_RBP_RESID: return calc_rbp_resid(p, r);
	case TK_UNJ: {
		long upto = c->k < r->num_ret ? c->k : r->num_ret, n = 0;

		for (long i = 0; i < upto; i++)
			if (r->rel[i] == TE_NONPOOL || r->rel[i] == TE_UNJUDGED)
				n++;
		return (double)n / (double)c->k;
	}
	default:
		return 0.0;
	}
}

void te_relstring(const struct te_params *p, const struct te_ranking *r, struct strbuf *out)
{
	long len = (long)p->val[0];

	strbuf_reset(out);
	if (len > r->num_ret)
		len = r->num_ret;
	for (long i = 0; i < len; i++) {
		int x = r->rel[i];
		char ch;

		if (x > 9)
			ch = '>';
		else if (x >= 0)
			ch = (char)('0' + x);
		else if (x == TE_NONPOOL)
			ch = '-';
		else if (x == TE_UNJUDGED)
			ch = '.';
		else
			ch = '<';
		strbuf_addch(out, ch);
	}
}
