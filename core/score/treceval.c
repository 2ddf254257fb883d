/*
 * treceval: trec_eval v10.0 compatible evaluation (see treceval.h).
 *
 * Each query's values are computed as soon as its lines are read (only the
 * judged documents' ranks are needed, see score.c), stored as one row of
 * doubles, and printed at the end sorted by qid, so the output order never
 * depends on the order of the run file. Sums for the "all" line are taken in
 * that same qid order, as trec_eval does, so they round the same way.
 */
#include "score/treceval.h"

#include "base/error.h"
#include "score/run.h"
#include "score/score.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MIN_GEO_MEAN 0.00001

void te_output_release(struct te_output *out)
{
	for (size_t i = 0; i < out->nr; i++) {
		free(out->q[i].qid);
		free(out->q[i].v);
		free(out->q[i].relstring);
	}
	free(out->q);
	free(out->cols);
	free(out->runid);
	memset(out, 0, sizeof(*out));
}

/* Scratch space reused from one query to the next. */
struct te_scratch {
	int *rel;
	size_t alloc;
	struct strbuf relstring;
};

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

static struct te_query *add_row(struct te_output *out, const struct te_options *o,
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

static void scratch_release(struct te_scratch *sc)
{
	free(sc->rel);
	strbuf_release(&sc->relstring);
	memset(sc, 0, sizeof(*sc));
}

struct te_state {
	const struct qrels *qr;
	const struct te_options *o;
	const char *path;
	struct te_output *out;
	struct hit_ctx hc;
	struct te_scratch sc;
	unsigned char *seen;   /* per qrels query: 0 not met, 1 evaluated, 2 met again */
	bool pieces;           /* a question may come back (no -M): see te_evaluate */
	size_t nr_back;        /* pieces of questions met before */
	bool too_scattered;    /* so many that the optimistic pass was given up */
};

/* Beyond this many returning pieces the first pass stops (a shuffled run). */
#define MAX_PIECES_BACK 1024

static int on_group(struct trec_group *g, void *data)
{
	struct te_state *st = data;
	const struct qrels_query *qq = qrels_find(st->qr, g->qid, g->qid_len);
	struct query_eval e;

	if (!qq)
		return 0;
	if (st->pieces && st->seen[qq - st->qr->q]) {
		/* the question comes back: it is evaluated again, whole, afterwards */
		st->seen[qq - st->qr->q] = 2;
		if (++st->nr_back > MAX_PIECES_BACK) {
			st->too_scattered = true;
			return -1;
		}
		return 0;
	}
	if (!st->o->max_docs) {
		/* -M 0: trec_eval keeps no document (and so finds no duplicate) */
		memset(&e, 0, sizeof(e));
		e.levels = qq->levels;
		e.nr_levels = qq->nr_levels;
	} else if (hits_from_group(&st->hc, g, qq, st->o->judged_only, st->o->max_docs,
				   st->path, &e) < 0) {
		return -1;
	}
	e.rel_level = st->o->rel_level;
	add_row(st->out, st->o, &st->sc, qq->qid, &e);
	st->seen[qq - st->qr->q] = 1;
	return 0;
}

static void drop_rows(struct te_output *out)
{
	for (size_t i = 0; i < out->nr; i++) {
		free(out->q[i].qid);
		free(out->q[i].v);
		free(out->q[i].relstring);
	}
	out->nr = 0;
}

/* Drop the rows of the questions marked 2 in 'seen' (met again after their first piece). */
static void drop_rows_back(struct te_output *out, const struct qrels *qr, const unsigned char *seen)
{
	size_t kept = 0;

	for (size_t i = 0; i < out->nr; i++) {
		struct te_query *row = &out->q[i];
		const struct qrels_query *qq = qrels_find(qr, row->qid, strlen(row->qid));

		if (seen[qq - qr->q] == 2) {
			free(row->qid);
			free(row->v);
			free(row->relstring);
		} else {
			out->q[kept++] = *row;
		}
	}
	out->nr = kept;
}

static int cmp_row(const void *a, const void *b)
{
	return strcmp(((const struct te_query *)a)->qid, ((const struct te_query *)b)->qid);
}

/* ---- two halves in parallel ---- */

struct half {
	struct te_state st;
	struct te_output out;
	struct strbuf runid;
	off_t start, end;
	int ret;
};

static void *half_main(void *arg)
{
	struct half *h = arg;

	h->ret = run_trec_scan_range(h->st.path, h->start, h->end,
				     h->st.pieces ? RUN_SCAN_PIECES : RUN_SCAN_STREAM,
				     on_group, &h->st, &h->runid);
	return NULL;
}

static void mute(const char *prefix, const char *msg)
{
	(void)prefix;
	(void)msg;
}

/*
 * Evaluate the two halves of a large plain run, split at a question
 * boundary, on two threads. Return 0 when it worked (rows appended to 'out',
 * 'seen' and 'runid' filled; a question met in both halves is left for
 * afterwards, marked 2 in 'seen', its rows dropped), 2 when the run is too
 * scattered for it (see MAX_PIECES_BACK), or 1 when the caller must do it
 * again in one pass: any error (reported then with the right line number),
 * or, without pieces, a question met in both halves. Messages are muted
 * meanwhile.
 */
static int evaluate_halves(struct te_state *main_st, off_t split, off_t size, struct strbuf *runid)
{
	struct half h[2];
	pthread_t thread;
	bool threaded, ok = true;
	size_t nr_both = 0;

	for (int i = 0; i < 2; i++) {
		memset(&h[i], 0, sizeof(h[i]));
		h[i].st = *main_st;
		hit_ctx_init(&h[i].st.hc);
		memset(&h[i].st.sc, 0, sizeof(h[i].st.sc));
		strbuf_init(&h[i].st.sc.relstring, 0);
		h[i].st.out = &h[i].out;
		h[i].st.seen = xcalloc(main_st->qr->nr + 1, 1);
		h[i].out.cols = main_st->out->cols;
		h[i].out.nr_cols = main_st->out->nr_cols;
		strbuf_init(&h[i].runid, 0);
	}
	h[0].start = 0;
	h[0].end = split;
	h[1].start = split;
	h[1].end = size;
	report_fn saved_error = get_error_routine(), saved_warning = get_warning_routine();

	set_error_routine(mute);
	set_warning_routine(mute);
	threaded = !pthread_create(&thread, NULL, half_main, &h[1]);
	half_main(&h[0]);
	if (threaded)
		pthread_join(thread, NULL);
	else
		half_main(&h[1]);
	set_error_routine(saved_error);
	set_warning_routine(saved_warning);

	ok = !h[0].ret && !h[1].ret;
	for (size_t q = 0; ok && q < main_st->qr->nr; q++) {
		unsigned char a = h[0].st.seen[q], b = h[1].st.seen[q];

		main_st->seen[q] = a && b ? 2 : a > b ? a : b;
		nr_both += a && b;
	}
	if (ok && nr_both && (!main_st->pieces ||
			      h[0].st.nr_back + h[1].st.nr_back + nr_both > MAX_PIECES_BACK)) {
		memset(main_st->seen, 0, main_st->qr->nr + 1);
		ok = false;
	}
	if (ok) {
		struct te_output *out = main_st->out;

		for (int i = 0; i < 2; i++) {
			for (size_t q = 0; q < h[i].out.nr; q++) {
				struct te_query *row = &h[i].out.q[q];
				const struct qrels_query *qq = qrels_find(main_st->qr, row->qid, strlen(row->qid));

				if (main_st->seen[qq - main_st->qr->q] == 2) {
					free(row->qid);
					free(row->v);
					free(row->relstring);
					continue;
				}
				ALLOC_GROW(out->q, out->nr + 1, out->alloc);
				out->q[out->nr++] = *row;
			}
			h[i].out.nr = 0;
		}
		strbuf_reset(runid);
		{
		const struct strbuf *last = h[1].runid.len ? &h[1].runid : &h[0].runid;

		strbuf_add(runid, last->buf, last->len);
	}
	}
	for (int i = 0; i < 2; i++) {
		h[i].out.cols = NULL;
		te_output_release(&h[i].out);
		hit_ctx_release(&h[i].st.hc);
		scratch_release(&h[i].st.sc);
		free(h[i].st.seen);
		strbuf_release(&h[i].runid);
	}
	if (!ok && main_st->pieces && (h[0].st.too_scattered || h[1].st.too_scattered ||
				       h[0].st.nr_back + h[1].st.nr_back + nr_both > MAX_PIECES_BACK))
		return 2;
	return ok ? 0 : 1;
}

/* ---- runs whose questions are not grouped ---- */

/*
 * A question whose lines are scattered over the file is ranked without
 * holding its lines: pass A counts its lines, notes the judged documents it
 * retrieved (score, line) and a 64-bit hash of every docid; pass B counts,
 * for each judged document, the lines that rank before it (the same
 * counting as score.c, one binary search per line). Memory is the hashes,
 * 8 bytes a line, never the lines. Equal hashes are checked exactly by one
 * more pass over the lines of those questions, so a docid listed twice is
 * reported with both line numbers, never assumed.
 *
 * In a shuffled run every line belongs to another question than the last,
 * so what a line touches is kept in few cache lines: the question's slot in
 * the qid table holds its counters, the judgments of all questions share
 * one small table, the judged documents retrieved one array.
 */
struct sc_judged {
	double score;
	const char *doc;    /* the qrels' copy */
	int rel;            /* grade, or REL_UNJUDGED */
	uint32_t q;         /* qrels index */
	long line;
	long before;        /* pass B: lines ranked between the previous judged one and this one */
};

struct qslot {              /* one cache line */
	uint64_t hash;
	uint32_t idx;           /* qrels index + 1; 0: empty */
	uint32_t len;
	char key[16];           /* the qid when shorter than 16 bytes */
	long nr_lines;
	uint64_t *hv;           /* pass A: docid hashes */
	uint32_t nr_h, alloc_h;
	uint32_t j0, nr_j;      /* after pass A: the question's judged documents in 'j' */
};

struct jslot {
	uint64_t hash;          /* the docid's qrels_hash */
	uint32_t q;             /* qrels index + 1; 0: empty */
	uint32_t jx;            /* index in that query's judgments */
};

struct sc_dup {             /* a docid hash met twice in one question */
	size_t q;
	uint64_t hash;
	const char *doc;        /* first line seen in the check pass (copy) */
	long line;
};

struct scatter {
	const struct qrels *qr;
	const unsigned char *only;     /* NULL, or evaluate only the queries marked 2 */
	struct qslot *qtab;            /* qid -> question, probed from the hash's top bits */
	size_t qcap;
	int qbits;
	size_t *slot_of;               /* qrels index -> slot */
	struct jslot *jtab;            /* (query, docid) -> judgment, for every judgment */
	size_t jcap;
	int jbits;
	struct sc_judged *j;           /* judged documents retrieved, by question after pass A */
	size_t nr_j, alloc_j;
	struct sc_dup *dup;
	size_t nr_dup, alloc_dup;
	const char *path;
};

static void scatter_index(struct scatter *sc)
{
	size_t n = 0;

	sc->qcap = 16;
	sc->qbits = 4;
	while (sc->qcap < 2 * sc->qr->nr) {
		sc->qcap *= 2;
		sc->qbits++;
	}
	sc->qtab = xcalloc(sc->qcap, sizeof(*sc->qtab));
	sc->slot_of = xcalloc(sc->qr->nr + 1, sizeof(*sc->slot_of));
	for (size_t i = 0; i < sc->qr->nr; i++) {
		const char *qid = sc->qr->q[i].qid;
		size_t len = strlen(qid);
		uint64_t h = qrels_hash(qid, len);
		size_t at = (size_t)((h * 0x9E3779B97F4A7C15ULL) >> (64 - sc->qbits));
		struct qslot *e;

		while (sc->qtab[at].idx)
			at = (at + 1) & (sc->qcap - 1);
		e = &sc->qtab[at];
		e->hash = h;
		e->idx = (uint32_t)i + 1;
		e->len = (uint32_t)len;
		if (len < sizeof(e->key))
			memcpy(e->key, qid, len);
		sc->slot_of[i] = at;
		n += sc->qr->q[i].nr;
	}
	sc->jcap = 16;
	sc->jbits = 4;
	while (sc->jcap < 2 * n) {
		sc->jcap *= 2;
		sc->jbits++;
	}
	sc->jtab = xcalloc(sc->jcap, sizeof(*sc->jtab));
	for (size_t i = 0; i < sc->qr->nr; i++) {
		const struct qrels_query *qq = &sc->qr->q[i];

		for (size_t k = 0; k < qq->nr; k++) {
			uint64_t h = qq->j[k].hash;
			size_t at = (size_t)(((h ^ (i * 0xD6E8FEB86659FD93ULL)) * 0x9E3779B97F4A7C15ULL) >>
					     (64 - sc->jbits));

			while (sc->jtab[at].q)
				at = (at + 1) & (sc->jcap - 1);
			sc->jtab[at].hash = h;
			sc->jtab[at].q = (uint32_t)i + 1;
			sc->jtab[at].jx = (uint32_t)k;
		}
	}
}

/* Return the judgment of docid 'doc' ('len' bytes, hash 'h') in query 'q', or NULL. */
static const struct qrel *scatter_judged(const struct scatter *sc, size_t q, const char *doc,
					 size_t len, uint64_t h)
{
	size_t at = (size_t)(((h ^ (q * 0xD6E8FEB86659FD93ULL)) * 0x9E3779B97F4A7C15ULL) >>
			     (64 - sc->jbits));

	for (; sc->jtab[at].q; at = (at + 1) & (sc->jcap - 1)) {
		const struct jslot *e = &sc->jtab[at];
		const struct qrel *j;

		if (e->hash != h || e->q != q + 1)
			continue;
		j = &sc->qr->q[q].j[e->jx];
		if (j->len == len && !memcmp(j->doc, doc, len))
			return j;
	}
	return NULL;
}

/* Return the slot of the question of 'g' when it is to be evaluated, or NULL. */
static struct qslot *scatter_find(const struct scatter *sc, const struct trec_group *g)
{
	uint64_t h = g->padded ? qrels_hash_padded(g->qid, g->qid_len) : qrels_hash(g->qid, g->qid_len);
	size_t at = (size_t)((h * 0x9E3779B97F4A7C15ULL) >> (64 - sc->qbits));

	for (; sc->qtab[at].idx; at = (at + 1) & (sc->qcap - 1)) {
		struct qslot *e = &sc->qtab[at];

		if (e->hash != h || e->len != g->qid_len)
			continue;
		if (g->qid_len < sizeof(e->key) ? memcmp(e->key, g->qid, g->qid_len)
						: memcmp(sc->qr->q[e->idx - 1].qid, g->qid, g->qid_len))
			continue;
		if (sc->only && sc->only[e->idx - 1] != 2)
			return NULL;
		return e;
	}
	return NULL;
}

static uint64_t line_hash(const struct trec_group *g, const struct trec_line *l)
{
	return g->padded ? qrels_hash_padded(l->doc, l->len) : qrels_hash(l->doc, l->len);
}

static int scatter_pass_a(struct trec_group *g, void *data)
{
	struct scatter *sc = data;
	struct qslot *q = scatter_find(sc, g);
	size_t qi;

	if (!q)
		return 0;
	qi = q->idx - 1;
	q->nr_lines += (long)g->nr;
	if (q->nr_h + g->nr > q->alloc_h) {
		size_t want = q->nr_h + g->nr, alloc = q->alloc_h;

		if (want > UINT32_MAX / 2)
			return error("'%s': too many lines for query '%s'", sc->path, sc->qr->q[qi].qid);
		ALLOC_GROW(q->hv, want, alloc);
		q->alloc_h = (uint32_t)alloc;
	}
	for (size_t i = 0; i < g->nr; i++) {
		const struct trec_line *l = &g->lines[i];
		uint64_t h = line_hash(g, l);
		const struct qrel *jd = scatter_judged(sc, qi, l->doc, l->len, h);

		q->hv[q->nr_h++] = h;
		if (jd) {
			struct sc_judged *j;

			ALLOC_GROW(sc->j, sc->nr_j + 1, sc->alloc_j);
			j = &sc->j[sc->nr_j++];
			j->score = l->score;
			j->doc = jd->doc;
			j->rel = jd->rel < 0 ? REL_UNJUDGED : jd->rel;
			j->q = (uint32_t)qi;
			j->line = l->line;
			j->before = 0;
		}
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Order judged documents by question, then in ranking order. */
static int cmp_sc_judged(const void *a, const void *b)
{
	const struct sc_judged *x = a, *y = b;

	if (x->q != y->q)
		return x->q < y->q ? -1 : 1;
	return run_rank_cmp(x->score, x->doc, y->score, y->doc);
}

static int cmp_sc_dup(const void *a, const void *b)
{
	const struct sc_dup *x = a, *y = b;

	if (x->q != y->q)
		return x->q < y->q ? -1 : 1;
	return cmp_u64(&x->hash, &y->hash);
}

/* The check pass: compare the docids of the lines whose hash was met twice. */
static int scatter_pass_dup(struct trec_group *g, void *data)
{
	struct scatter *sc = data;
	struct qslot *q = scatter_find(sc, g);
	struct sc_dup key, *d;

	if (!q)
		return 0;
	key.q = q->idx - 1;
	for (size_t i = 0; i < g->nr; i++) {
		const struct trec_line *l = &g->lines[i];

		key.hash = line_hash(g, l);
		d = bsearch(&key, sc->dup, sc->nr_dup, sizeof(*d), cmp_sc_dup);
		if (!d)
			continue;
		if (!d->doc) {
			d->doc = xstrdup(l->doc);
			d->line = l->line;
		} else if (!strcmp(d->doc, l->doc)) {
			return error_at(sc->path, l->line, 0,
					"document '%s' listed twice for query '%s' (first at line %ld)",
					l->doc, sc->qr->q[key.q].qid, d->line);
		}
	}
	return 0;
}

static int scatter_pass_b(struct trec_group *g, void *data)
{
	struct scatter *sc = data;
	struct qslot *q = scatter_find(sc, g);
	struct sc_judged *j;

	if (!q || !q->nr_j)
		return 0;
	j = sc->j + q->j0;
	for (size_t i = 0; i < g->nr; i++) {
		const struct trec_line *l = &g->lines[i];
		size_t lo = 0, hi = q->nr_j;
		int c = 1;

		/* lo: the judged documents ranked before this line */
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			c = run_rank_cmp(j[mid].score, j[mid].doc, l->score, l->doc);
			if (!c) {
				lo = mid;
				break;
			}
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (c && lo < q->nr_j)
			j[lo].before++;
	}
	return 0;
}

static void scatter_release(struct scatter *sc)
{
	for (size_t i = 0; i < sc->qcap; i++)
		free(sc->qtab[i].hv);
	for (size_t i = 0; i < sc->nr_dup; i++)
		free((char *)sc->dup[i].doc);
	free(sc->dup);
	free(sc->j);
	free(sc->qtab);
	free(sc->slot_of);
	free(sc->jtab);
}

/* Note every docid hash met twice in one question; return how many. */
static size_t scatter_find_dups(struct scatter *sc)
{
	uint64_t *set = NULL;
	size_t alloc = 0;

	for (size_t qi = 0; qi < sc->qr->nr; qi++) {
		struct qslot *q = &sc->qtab[sc->slot_of[qi]];
		size_t cap = 16;

		while (cap < 2 * (size_t)q->nr_h)
			cap *= 2;
		if (cap > alloc) {
			free(set);
			set = xmalloc(cap * sizeof(*set));
			alloc = cap;
		}
		/* 0 marks an empty slot; a hash of 0 is stored as 1 (a false alarm at worst) */
		memset(set, 0, cap * sizeof(*set));
		for (size_t i = 0; i < q->nr_h; i++) {
			uint64_t h = q->hv[i] ? q->hv[i] : 1;
			size_t at = (h ^ (h >> 29)) & (cap - 1);

			while (set[at] && set[at] != h)
				at = (at + 1) & (cap - 1);
			if (!set[at]) {
				set[at] = h;
				continue;
			}
			ALLOC_GROW(sc->dup, sc->nr_dup + 1, sc->alloc_dup);
			sc->dup[sc->nr_dup].q = qi;
			sc->dup[sc->nr_dup].hash = q->hv[i];
			sc->dup[sc->nr_dup].doc = NULL;
			sc->dup[sc->nr_dup].line = 0;
			sc->nr_dup++;
		}
		free(q->hv);
		q->hv = NULL;
		q->nr_h = q->alloc_h = 0;
	}
	free(set);
	if (sc->nr_dup)
		qsort(sc->dup, sc->nr_dup, sizeof(*sc->dup), cmp_sc_dup);
	return sc->nr_dup;
}

/*
 * Evaluate the run 'st->path', whatever the order of its lines, in two or
 * three streaming passes (see above): every query of the qrels, or with
 * 'only' those marked 2 there. Not for -M, which needs every line's rank.
 * Return 0 or -1 (reported).
 */
static int evaluate_scattered(struct te_state *st, const unsigned char *only, struct strbuf *runid)
{
	struct scatter sc;
	struct judged_hit *hits = NULL;
	size_t alloc_hits = 0;
	int ret;

	memset(&sc, 0, sizeof(sc));
	sc.qr = st->qr;
	sc.only = only;
	sc.path = st->path;
	scatter_index(&sc);
	ret = run_trec_scan_mode(st->path, RUN_SCAN_PIECES, scatter_pass_a, &sc, runid);
	if (!ret && scatter_find_dups(&sc))
		ret = run_trec_scan_mode(st->path, RUN_SCAN_PIECES, scatter_pass_dup, &sc, NULL);
	if (!ret) {
		if (sc.nr_j > 1)
			qsort(sc.j, sc.nr_j, sizeof(*sc.j), cmp_sc_judged);
		for (size_t k = 0; k < sc.nr_j; k++) {
			struct qslot *q = &sc.qtab[sc.slot_of[sc.j[k].q]];

			if (!q->nr_j)
				q->j0 = (uint32_t)k;
			q->nr_j++;
		}
	}
	if (!ret && !st->o->judged_only)
		ret = run_trec_scan_mode(st->path, RUN_SCAN_PIECES, scatter_pass_b, &sc, NULL);
	for (size_t i = 0; !ret && i < st->qr->nr; i++) {
		const struct qrels_query *qq = &st->qr->q[i];
		const struct qslot *q = &sc.qtab[sc.slot_of[i]];
		const struct sc_judged *j = sc.j + q->j0;
		struct query_eval e;
		long before = 0, kept = 0;

		if (!q->nr_lines || (only && only[i] != 2))
			continue;
		memset(&e, 0, sizeof(e));
		ALLOC_GROW(hits, (size_t)q->nr_j + 1, alloc_hits);
		for (size_t k = 0; k < q->nr_j; k++) {
			if (st->o->judged_only) {
				if (j[k].rel < 0)
					continue;
				hits[kept].rank = kept + 1;
			} else {
				before += j[k].before;
				hits[kept].rank = (long)k + 1 + before;
			}
			hits[kept++].rel = j[k].rel;
		}
		e.num_ret = st->o->judged_only ? kept : q->nr_lines;
		e.hits = hits;
		e.nr_hits = (size_t)kept;
		e.levels = qq->levels;
		e.nr_levels = qq->nr_levels;
		e.rel_level = st->o->rel_level;
		add_row(st->out, st->o, &st->sc, qq->qid, &e);
		st->seen[i] = 1;
	}
	free(hits);
	scatter_release(&sc);
	return ret;
}

#define STAND_IN_DOCNO "ceci_nest_pas_un_docno"

/*
 * Evaluate the qrels query 'qq', absent from the run, as trec_eval -c does:
 * a ranking of one document, STAND_IN_DOCNO with score 1, judged when the
 * qrels judge it; then zero what trec_eval zeroes for it.
 */
static void add_stand_in(struct te_state *st, const struct qrels_query *qq)
{
	const struct te_options *o = st->o;
	struct te_output *out = st->out;
	struct judged_hit hit = { 1, 0 };
	struct query_eval e;
	struct te_query *q;
	size_t len = strlen(STAND_IN_DOCNO);
	long jx = qrels_query_lookup(qq, STAND_IN_DOCNO, len, qrels_hash(STAND_IN_DOCNO, len));

	memset(&e, 0, sizeof(e));
	e.levels = qq->levels;
	e.nr_levels = qq->nr_levels;
	e.rel_level = o->rel_level;
	if (jx >= 0)
		hit.rel = qq->j[jx].rel < 0 ? REL_UNJUDGED : qq->j[jx].rel;
	if (o->max_docs >= 1 && (!o->judged_only || (jx >= 0 && hit.rel >= 0))) {
		e.num_ret = 1;
		if (jx >= 0) {
			e.hits = &hit;
			e.nr_hits = 1;
		}
	}
	q = add_row(out, o, &st->sc, qq->qid, &e);
	for (size_t i = 0; i < out->nr_cols; i++) {
		switch (out->cols[i].kind) {
		case TK_NUM_RET: case TK_UTILITY: case TK_UNJ: case TK_RBP_RESID:
			q->v[i] = 0.0;
			break;
		case TK_RELSTRING:
			q->relstring[0] = '\0';
			break;
		default:
			break;
		}
	}
}

int te_evaluate(const struct qrels *qr, const char *run_path, const struct te_options *o,
		struct te_output *out)
{
	struct te_state st;
	struct strbuf runid = STRBUF_INIT;
	int ret;

	memset(&st, 0, sizeof(st));
	st.qr = qr;
	st.o = o;
	st.path = run_path;
	st.out = out;
	st.seen = xcalloc(qr->nr + 1, 1);
	hit_ctx_init(&st.hc);
	strbuf_init(&st.sc.relstring, 0);
	out->nr_cols = te_columns(&o->sel, &out->cols);

	/*
	 * Without -M a question's lines are evaluated piece by piece as they
	 * come (streamed, on two threads for a large plain file): when a
	 * question comes back later in the file, only the questions that did
	 * are evaluated again, in the passes of evaluate_scattered; when
	 * many do, the first pass is given up for evaluate_scattered on all.
	 * With -M (which needs every rank) an ungrouped run is read whole.
	 */
	st.pieces = o->max_docs == LONG_MAX;
	{
		off_t size, split = run_trec_split(run_path, &size);

		ret = split > 0 ? evaluate_halves(&st, split, size, &runid) : 1;
	}
	if (ret == 1) {
		drop_rows(out);
		memset(st.seen, 0, qr->nr + 1);
		st.nr_back = 0;
		ret = run_trec_scan_mode(run_path, st.pieces ? RUN_SCAN_PIECES : RUN_SCAN_STREAM,
					 on_group, &st, &runid);
		if (ret < 0 && st.too_scattered)
			ret = 2;
	}
	if (ret == 2) {
		drop_rows(out);
		memset(st.seen, 0, qr->nr + 1);
		ret = evaluate_scattered(&st, NULL, &runid);
	} else if (!ret && st.pieces) {
		bool back = false;

		for (size_t i = 0; i < qr->nr && !back; i++)
			back = st.seen[i] == 2;
		if (back) {
			drop_rows_back(out, qr, st.seen);
			ret = evaluate_scattered(&st, st.seen, NULL);
		}
	}
	if (ret == RUN_SCAN_UNSORTED) {
		drop_rows(out);
		memset(st.seen, 0, qr->nr + 1);
		ret = run_trec_scan(run_path, true, on_group, &st, &runid);
	}
	if (ret < 0)
		goto out;
	out->runid = strbuf_detach(&runid, NULL);
	for (size_t i = 0; i < qr->nr; i++) {
		if (o->complete)
			for (int g = 1; g < qr->q[i].nr_levels; g++)
				out->summary_num_rel += qr->q[i].levels[g];
		if (st.seen[i])
			continue;
		if (!o->complete) {
			ret = error("query '%s' of '%s' has no results in '%s' (trec_eval v10.0 "
				    "refuses this too); use -c to count it as zero",
				    qr->q[i].qid, qr->file, run_path);
			goto out;
		}
		add_stand_in(&st, &qr->q[i]);
	}
	if (!out->nr) {
		ret = error("no query of '%s' has judgments in '%s'", run_path, qr->file);
		goto out;
	}
	qsort(out->q, out->nr, sizeof(*out->q), cmp_row);
	ret = 0;
out:
	strbuf_release(&runid);
	hit_ctx_release(&st.hc);
	scratch_release(&st.sc);
	free(st.seen);
	return ret;
}

void te_print(const struct te_output *out, const struct te_options *o, FILE *fp)
{
	double n = (double)out->nr;

	if (o->per_query) {
		for (size_t q = 0; q < out->nr; q++) {
			for (size_t i = 0; i < out->nr_cols; i++) {
				const struct te_column *c = &out->cols[i];

				if (c->type == TE_FLOAT)
					fprintf(fp, "%-22s\t%s\t%6.4f\n", c->name, out->q[q].qid, out->q[q].v[i]);
				else if (c->type == TE_LONG)
					fprintf(fp, "%-22s\t%s\t%ld\n", c->name, out->q[q].qid, (long)out->q[q].v[i]);
				else if (c->type == TE_STRING)
					fprintf(fp, "%-22s\t%s\t'%s'\n", c->name, out->q[q].qid,
						out->q[q].relstring ? out->q[q].relstring : "");
			}
		}
	}
	if (o->no_summary)
		return;
	for (size_t i = 0; i < out->nr_cols; i++) {
		const struct te_column *c = &out->cols[i];
		double sum = 0.0;

		for (size_t q = 0; q < out->nr; q++)
			sum += out->q[q].v[i];
		if (c->kind == TK_NUM_REL && o->complete)
			sum = (double)out->summary_num_rel;
		switch (c->type) {
		case TE_FLOAT:
			fprintf(fp, "%-22s\t%s\t%6.4f\n", c->name, "all", out->nr ? sum / n : 0.0);
			break;
		case TE_LONG:
			fprintf(fp, "%-22s\t%s\t%ld\n", c->name, "all", (long)sum);
			break;
		case TE_GEO:
			fprintf(fp, "%-22s\t%s\t%6.4f\n", c->name, "all", out->nr ? exp(sum / n) : 0.0);
			break;
		case TE_COUNT_Q:
			fprintf(fp, "%-22s\t%s\t%ld\n", c->name, "all", (long)out->nr);
			break;
		case TE_RUNID:
			fprintf(fp, "%-22s\t%s\t%s\n", c->name, "all", out->runid ? out->runid : "");
			break;
		case TE_STRING:
			break;
		}
	}
}
