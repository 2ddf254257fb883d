/*
 * treceval-row: one query's row of values (see treceval-internal.h). The
 * judged hits of a query (their ranks and grades, see score.h) give most
 * measures directly (metrics.h); the measures that read the whole ranking
 * (treceval-measures.c) get it laid out as trec_eval's ranking of grades.
 */
#include "score/treceval-internal.h"

#include "base/strbuf.h"
#include "base/util.h"
#include "score/metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MIN_GEO_MEAN 0.00001

/* Lay the judged hits of 'e' out as trec_eval's ranking of 'e->num_ret' grades. */
static void fill_ranking(struct te_scratch *sc, const struct query_eval *e, int level,
			 long num_docs, struct te_ranking *r)
{
	size_t n = e->num_ret > 0 ? (size_t)e->num_ret : 0;

	ALLOC_GROW(sc->rel, n + 1, sc->alloc);
	for (size_t i = 0; i < n; i++)
		sc->rel[i] = TE_NONPOOL;
	memset(r, 0, sizeof(*r));
	r->num_nonpool = (long)n;
	for (size_t i = 0; i < e->nr_hits; i++) {
		int rel = e->hits[i].rel;

		sc->rel[e->hits[i].rank - 1] = rel;
		r->num_nonpool--;
		if (rel == REL_UNJUDGED)
			r->num_unjudged++;
		else if (rel >= level)
			r->num_rel_ret++;
	}
	r->rel = sc->rel;
	r->num_ret = (long)n;
	r->num_rel = m_num_rel(e, level);
	r->levels = e->levels;
	r->nr_levels = e->nr_levels;
	r->level = level;
	r->num_docs = num_docs;
}

/* Compute every column for one query; 'relstring' receives relstring's value. */
static void compute_row(const struct te_output *out, const struct te_options *o,
			struct te_scratch *sc, const struct query_eval *e, double *v,
			char **relstring)
{
	double pct[TE_MAX_PARAMS], ip[TE_MAX_PARAMS];
	size_t nr_pct = 0, first_ip = 0;
	int level = o->rel_level;
	struct te_ranking r;
	bool have_ranking = false;

	for (size_t i = 0; i < out->nr_cols; i++) {
		const struct te_column *c = &out->cols[i];

		if (te_needs_ranking(c, &o->sel)) {
			if (!have_ranking)
				fill_ranking(sc, e, level, o->num_docs, &r);
			have_ranking = true;
			if (c->type == TE_STRING) {
				te_relstring(&o->sel.p[c->kind], &r, &sc->relstring);
				*relstring = xstrdup(sc->relstring.buf);
				v[i] = 0;
			} else {
				v[i] = te_ranking_value(c, &o->sel.p[c->kind], &r);
			}
			continue;
		}
		switch (c->kind) {
		case TK_NUM_Q: v[i] = 1; break;
		case TK_NUM_RET: v[i] = (double)e->num_ret; break;
		case TK_NUM_REL: v[i] = (double)m_num_rel(e, level); break;
		case TK_NUM_REL_RET: v[i] = (double)m_num_rel_ret(e, level, 0); break;
		case TK_MAP: v[i] = m_ap(e, level, 0); break;
		case TK_GM_MAP: {
			double ap = m_ap(e, level, 0);

			v[i] = log(ap > MIN_GEO_MEAN ? ap : MIN_GEO_MEAN);
			break;
		}
		case TK_RPREC: v[i] = m_rprec(e, level); break;
		case TK_BPREF: v[i] = m_bpref(e, level); break;
		case TK_RECIP_RANK: v[i] = m_recip_rank(e, level, 0); break;
		case TK_IPREC:
			if (!nr_pct)
				first_ip = i;
			pct[nr_pct++] = c->pct;
			break;
		case TK_P: v[i] = m_precision(e, level, c->k); break;
		case TK_RECALL: v[i] = m_recall(e, level, c->k); break;
		case TK_NDCG: v[i] = m_ndcg(e, 0); break;
		case TK_NDCG_CUT: v[i] = m_ndcg(e, c->k); break;
		case TK_MAP_CUT: v[i] = m_ap(e, level, c->k); break;
		case TK_SUCCESS: v[i] = m_success(e, level, c->k); break;
		default: v[i] = 0.0; break;
		}
	}
	if (nr_pct) {
		m_iprec_at_recall(e, level, pct, nr_pct, ip);
		for (size_t j = 0; j < nr_pct; j++)
			v[first_ip + j] = ip[j];
	}
}

struct te_query *te_add_row(struct te_output *out, const struct te_options *o,
			    struct te_scratch *sc, const char *qid, const struct query_eval *e)
{
	struct te_query *q;

	ALLOC_GROW(out->q, out->nr + 1, out->alloc);
	q = &out->q[out->nr++];
	q->qid = xstrdup(qid);
	q->v = xcalloc(out->nr_cols ? out->nr_cols : 1, sizeof(double));
	q->relstring = NULL;
	compute_row(out, o, sc, e, q->v, &q->relstring);
	return q;
}

void te_scratch_release(struct te_scratch *sc)
{
	free(sc->rel);
	strbuf_release(&sc->relstring);
	memset(sc, 0, sizeof(*sc));
}
