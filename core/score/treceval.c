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
 * A question whose lines are scattered over the file is evaluated in one
 * streaming pass that keeps 16 bytes a line: the line's score and a 64-bit
 * key of its docid, appended to the question's own list (chunks carved from
 * one arena); the judged documents it retrieved are noted apart (score,
 * docid, grade). A docid of 1 to 8 bytes without NUL is its own key (its
 * bytes read as a big-endian number, so that keys compare as strcmp
 * compares the docids); a longer one is keyed by its hash.
 *
 * After the pass each question is handled alone, in cache: a docid listed
 * twice shows as an equal key (the lines are then found by one more pass
 * that compares the docids, so the error names both lines and a hash
 * collision is never taken for a duplicate), and each judged document's
 * rank is one plus the lines that outrank it, counted as score.c does. Only
 * in a question with a docid longer than 8 bytes, where a line ties in score
 * with one of its judged documents, is the order of the two docids unknown
 * from the keys: those questions alone are counted again by one more pass
 * that compares the docids themselves.
 *
 * In a shuffled run every line belongs to another question than the last,
 * so what a line touches is kept small and fetched early: the question's
 * 32-byte slot of the qid table (prefetched a few lines ahead), one bit of
 * the judgments' filter, and the end of the question's list (written a few
 * lines late, its cache line prefetched meanwhile).
 */
struct sc_rec {
	double score;
	uint64_t key;
};

struct sc_chunk {
	struct sc_chunk *next;
	uint32_t nr, cap;
	struct sc_rec r[];
};

struct sc_judged {
	double score;
	const char *doc;    /* the qrels' copy */
	uint64_t key;
	int rel;            /* grade, or REL_UNJUDGED */
	uint32_t q;         /* qrels index */
	long before;        /* lines ranked between the previous judged one and this one */
};

#define QF_LONG 1u          /* a docid of the question is keyed by its hash */
#define QF_TIE  2u          /* its ranking needs the docids (see above) */

struct qhot {               /* a slot of the qid table, two per cache line */
	uint64_t key;           /* the qid's key (sc_key) */
	struct sc_rec *end;     /* the free part of its last chunk: 'room' records */
	uint32_t len;           /* the qid's length */
	uint32_t idx;           /* qrels index + 1; 0: an empty slot */
	uint16_t room;
	uint16_t flags;
};

struct qcold {
	struct sc_chunk *head, *tail;
	size_t nr_rec;          /* lines kept in the chunks (not judged) */
	uint32_t j0, nr_j;      /* its judged documents in 'j', after the pass */
};

struct sc_dup {             /* a docid key met twice in one question */
	size_t q;
	uint64_t key;
	char *doc;              /* the first such line met by the check pass (copy) */
	size_t len;
	long line;
};

#define SC_BLOCK (1u << 20)  /* arena block */
#define SC_CHUNK_MAX 512u    /* lines per chunk at most */
#define SC_PENDING 16        /* power of two */

struct scatter {
	const struct qrels *qr;
	struct qhot *hot;       /* the qid table */
	size_t *slot_of;        /* qrels index -> its slot in 'hot' */
	struct qcold *cold;     /* by qrels index */
	size_t qmask;
	int qbits;
	uint64_t *jtag;         /* judgment table: a tag (never 0), 0 empty */
	uint64_t *jbits_set;    /* a bit per tag's bits 1.., so that most misses skip 'jtag' */
	size_t jbits_mask;
	uint32_t *jq, *jx;      /* its query, and index in that query's judgments */
	size_t jmask;
	int jbits;
	char *arena, *arena_end;
	char **blocks;
	size_t nr_blocks, alloc_blocks;
	struct sc_judged *j;
	size_t nr_j, alloc_j;
	struct sc_dup *dup;
	size_t nr_dup, alloc_dup;
	const char *path;
	unsigned want;          /* 0: every indexed question; QF_TIE: those marked so */
	struct sc_pending {     /* records stored a few lines late, their line prefetched */
		struct sc_rec *at;
		struct sc_rec r;
	} pending[SC_PENDING];
	size_t nr_pending;
};

/*
 * The key of the id of 'len' bytes at 's' (7 more readable bytes follow
 * when 'padded'): see above. Sets '*hashed' when it is a hash.
 */
static inline uint64_t sc_key(const char *s, size_t len, bool padded, bool *hashed)
{
	uint64_t w = 0, mask, v;

	if (len - 1 >= 8) {
		*hashed = true;
		return padded ? qrels_hash_padded(s, len) : qrels_hash(s, len);
	}
	memcpy(&w, s, padded ? 8 : len);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	mask = len == 8 ? ~0ULL : ~(~0ULL >> (8 * len));
	w &= mask;
	v = w | ~mask;
#else
	mask = len == 8 ? ~0ULL : (1ULL << (8 * len)) - 1;
	w &= mask;
	v = w | ~mask;
	w = __builtin_bswap64(w);
#endif
	/* a NUL inside: strcmp would stop there, so the bytes do not give the order */
	if ((v - 0x0101010101010101ULL) & ~v & 0x8080808080808080ULL) {
		*hashed = true;
		return padded ? qrels_hash_padded(s, len) : qrels_hash(s, len);
	}
	return w;
}

static inline size_t sc_qslot(const struct scatter *sc, uint64_t key)
{
	return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> (64 - sc->qbits));
}

static inline uint64_t sc_jtag(uint64_t key, size_t q)
{
	return ((key ^ ((uint64_t)q * 0xD6E8FEB86659FD93ULL)) * 0x9E3779B97F4A7C15ULL) | 1;
}

/* Index the queries to evaluate (all, or those marked 2 in 'only') and their judgments. */
static void scatter_index(struct scatter *sc, const unsigned char *only)
{
	size_t nr_q = 0, nr_jd = 0, cap;

	sc->slot_of = xcalloc(sc->qr->nr + 1, sizeof(*sc->slot_of));
	sc->cold = xcalloc(sc->qr->nr + 1, sizeof(*sc->cold));
	for (size_t i = 0; i < sc->qr->nr; i++) {
		if (only && only[i] != 2)
			continue;
		nr_q++;
		nr_jd += sc->qr->q[i].nr;
	}
	for (cap = 16, sc->qbits = 4; cap < 2 * nr_q; cap *= 2)
		sc->qbits++;
	sc->hot = xcalloc(cap, sizeof(*sc->hot));
	sc->qmask = cap - 1;
	for (cap = 16, sc->jbits = 4; cap < 2 * nr_jd; cap *= 2)
		sc->jbits++;
	sc->jtag = xcalloc(cap, sizeof(*sc->jtag));
	sc->jq = xcalloc(cap, sizeof(*sc->jq));
	sc->jx = xcalloc(cap, sizeof(*sc->jx));
	sc->jmask = cap - 1;
	for (cap = 64; cap < 16 * nr_jd; cap *= 2)
		;
	sc->jbits_set = xcalloc(cap / 64, sizeof(*sc->jbits_set));
	sc->jbits_mask = cap - 1;
	for (size_t i = 0; i < sc->qr->nr; i++) {
		const struct qrels_query *qq = &sc->qr->q[i];
		size_t len = strlen(qq->qid), at;
		bool hashed = false;
		uint64_t key = sc_key(qq->qid, len, false, &hashed);

		if (only && only[i] != 2)
			continue;
		for (at = sc_qslot(sc, key); sc->hot[at].idx; at = (at + 1) & sc->qmask)
			;
		sc->hot[at].key = key;
		sc->hot[at].len = (uint32_t)len;
		sc->hot[at].idx = (uint32_t)i + 1;
		sc->slot_of[i] = at;
		for (size_t k = 0; k < qq->nr; k++) {
			uint64_t t = sc_jtag(sc_key(qq->j[k].doc, qq->j[k].len, false, &hashed), i);

			for (at = (size_t)(t >> (64 - sc->jbits)); sc->jtag[at]; at = (at + 1) & sc->jmask)
				;
			sc->jtag[at] = t;
			sc->jbits_set[((t >> 1) & sc->jbits_mask) >> 6] |= 1ULL << ((t >> 1) & 63);
			sc->jq[at] = (uint32_t)i;
			sc->jx[at] = (uint32_t)k;
		}
	}
}

/*
 * Return the question of the qid of 'len' bytes at 'qid' (its key 'key',
 * 'hashed' as sc_key set it, first slot 'at') when it is one to evaluate,
 * or NULL.
 */
static struct qhot *scatter_probe(const struct scatter *sc, uint64_t key, bool hashed,
				  const char *qid, size_t len, size_t at)
{
	struct qhot *h;

	for (; (h = &sc->hot[at])->idx; at = (at + 1) & sc->qmask) {
		if (h->key != key || h->len != len)
			continue;
		if (hashed && memcmp(sc->qr->q[h->idx - 1].qid, qid, len))
			continue;
		return sc->want && !(h->flags & sc->want) ? NULL : h;
	}
	return NULL;
}

/* Return the judgment of docid 'doc' ('len' bytes, key 'key') in query 'q', or NULL. */
static const struct qrel *scatter_judged(const struct scatter *sc, size_t q, uint64_t key,
					 const char *doc, size_t len)
{
	uint64_t t = sc_jtag(key, q);

	if (!(sc->jbits_set[((t >> 1) & sc->jbits_mask) >> 6] & (1ULL << ((t >> 1) & 63))))
		return NULL;
	for (size_t at = (size_t)(t >> (64 - sc->jbits)); sc->jtag[at]; at = (at + 1) & sc->jmask) {
		const struct qrel *j;

		if (sc->jtag[at] != t || sc->jq[at] != q)
			continue;
		j = &sc->qr->q[q].j[sc->jx[at]];
		if (j->len == len && !memcmp(j->doc, doc, len))
			return j;
	}
	return NULL;
}

/* Give question 'q' a new chunk, twice the last one up to SC_CHUNK_MAX lines. */
static void scatter_grow(struct scatter *sc, size_t q)
{
	struct qhot *h = &sc->hot[sc->slot_of[q]];
	struct qcold *c = &sc->cold[q];
	uint32_t cap = !c->tail ? 4 : c->tail->cap < SC_CHUNK_MAX ? 2 * c->tail->cap : SC_CHUNK_MAX;
	size_t size = sizeof(struct sc_chunk) + cap * sizeof(struct sc_rec);
	struct sc_chunk *k;

	if ((size_t)(sc->arena_end - sc->arena) < size) {
		ALLOC_GROW(sc->blocks, sc->nr_blocks + 1, sc->alloc_blocks);
		sc->arena = sc->blocks[sc->nr_blocks++] = xmalloc(SC_BLOCK);
		sc->arena_end = sc->arena + SC_BLOCK;
	}
	k = (struct sc_chunk *)(void *)sc->arena;
	sc->arena += size;
	k->next = NULL;
	k->nr = 0;
	k->cap = cap;
	if (c->tail) {
		c->tail->nr = c->tail->cap;
		c->tail->next = k;
	} else {
		c->head = k;
	}
	c->tail = k;
	h->end = k->r;
	h->room = (uint16_t)cap;
}

/*
 * Store a record at 'at', a few records late: its cache line is prefetched
 * now and written when SC_PENDING more have come, so that the misses of
 * consecutive lines overlap instead of waiting one for another.
 */
static inline void scatter_store(struct scatter *sc, struct sc_rec *at, double score, uint64_t key)
{
	struct sc_pending *p = &sc->pending[sc->nr_pending++ & (SC_PENDING - 1)];

	if (sc->nr_pending > SC_PENDING)
		*p->at = p->r;
	__builtin_prefetch(at, 1);
	p->at = at;
	p->r.score = score;
	p->r.key = key;
}

static void scatter_store_flush(struct scatter *sc)
{
	size_t n = sc->nr_pending < SC_PENDING ? sc->nr_pending : SC_PENDING;

	for (size_t i = 0; i < n; i++)
		*sc->pending[(sc->nr_pending - 1 - i) & (SC_PENDING - 1)].at =
			sc->pending[(sc->nr_pending - 1 - i) & (SC_PENDING - 1)].r;
	sc->nr_pending = 0;
}

/* The main pass, for one line 'l' of question 'h'. */
static int scatter_line(struct scatter *sc, struct qhot *h, const struct trec_line *l, bool padded)
{
	size_t q = h->idx - 1;
	bool hashed = false;
	uint64_t key = sc_key(l->doc, l->len, padded, &hashed);
	const struct qrel *jd = scatter_judged(sc, q, key, l->doc, l->len);

	if (hashed)
		h->flags |= QF_LONG;
	if (jd) {
		struct sc_judged *j;

		ALLOC_GROW(sc->j, sc->nr_j + 1, sc->alloc_j);
		j = &sc->j[sc->nr_j++];
		j->score = l->score;
		j->doc = jd->doc;
		j->key = key;
		j->rel = jd->rel < 0 ? REL_UNJUDGED : jd->rel;
		j->q = (uint32_t)q;
		j->before = 0;
		return 0;
	}
	if (!h->room)
		scatter_grow(sc, q);
	h->room--;
	scatter_store(sc, h->end++, l->score, key);
	return 0;
}

#define SC_AHEAD 8   /* lines whose qid slot is prefetched ahead */

/*
 * Call 'fn' for each line of the batch 'g' whose question is to be
 * evaluated. The qid slot of a line is prefetched SC_AHEAD lines ahead, so
 * that in a shuffled run the lookups of consecutive lines overlap.
 */
static int scatter_batch(struct scatter *sc, const struct trec_group *g,
			 int (*fn)(struct scatter *, struct qhot *, const struct trec_line *, bool))
{
	uint64_t key[SC_AHEAD];
	size_t slot[SC_AHEAD];
	bool hashed[SC_AHEAD];

	for (size_t i = 0; i < g->nr + SC_AHEAD; i++) {
		size_t r = i % SC_AHEAD;

		if (i >= SC_AHEAD) {
			size_t k = i - SC_AHEAD;
			struct qhot *h = scatter_probe(sc, key[r], hashed[r],
						       g->qids ? g->qids[k] : g->qid,
						       g->qids ? g->qid_lens[k] : g->qid_len, slot[r]);
			int ret;

			if (h && (ret = fn(sc, h, &g->lines[k], g->padded)))
				return ret;
		}
		if (i < g->nr) {
			const char *qid = g->qids ? g->qids[i] : g->qid;
			size_t len = g->qids ? g->qid_lens[i] : g->qid_len;

			hashed[r] = false;
			key[r] = sc_key(qid, len, g->padded, &hashed[r]);
			slot[r] = sc_qslot(sc, key[r]);
			__builtin_prefetch(&sc->hot[slot[r]]);
		}
	}
	return 0;
}

static int scatter_pass(struct trec_group *g, void *data)
{
	return scatter_batch(data, g, scatter_line);
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
	return x->key < y->key ? -1 : x->key > y->key;
}

/* The check pass: compare the docids of the lines whose key was met twice. */
static int scatter_line_dup(struct scatter *sc, struct qhot *h, const struct trec_line *l, bool padded)
{
	struct sc_dup key, *d;
	bool hashed = false;

	key.q = h->idx - 1;
	key.key = sc_key(l->doc, l->len, padded, &hashed);
	d = bsearch(&key, sc->dup, sc->nr_dup, sizeof(*d), cmp_sc_dup);
	if (!d)
		return 0;
	if (!d->doc) {
		d->doc = xmalloc(l->len + 1);
		memcpy(d->doc, l->doc, l->len + 1);
		d->len = l->len;
		d->line = l->line;
	} else if (d->len == l->len && !memcmp(d->doc, l->doc, l->len)) {
		return error_at(sc->path, l->line, 0,
				"document '%s' listed twice for query '%s' (first at line %ld)",
				l->doc, sc->qr->q[key.q].qid, d->line);
	}
	return 0;
}

static int scatter_pass_dup(struct trec_group *g, void *data)
{
	return scatter_batch(data, g, scatter_line_dup);
}

/* The counting pass, for the questions marked QF_TIE: the docids decide ties. */
static int scatter_line_count(struct scatter *sc, struct qhot *h, const struct trec_line *l,
			      bool padded)
{
	const struct qcold *c = &sc->cold[h->idx - 1];
	struct sc_judged *j = sc->j + c->j0;
	size_t lo = 0, hi = c->nr_j;
	int cmp = 1;

	(void)padded;
	/* lo: the judged documents ranked before this line */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		cmp = run_rank_cmp(j[mid].score, j[mid].doc, l->score, l->doc);
		if (!cmp)
			break;  /* the judged document itself */
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (cmp && lo < c->nr_j)
		j[lo].before++;
	return 0;
}

static int scatter_pass_count(struct trec_group *g, void *data)
{
	return scatter_batch(data, g, scatter_line_count);
}

static void scatter_release(struct scatter *sc)
{
	for (size_t i = 0; i < sc->nr_blocks; i++)
		free(sc->blocks[i]);
	for (size_t i = 0; i < sc->nr_dup; i++)
		free(sc->dup[i].doc);
	free(sc->blocks);
	free(sc->dup);
	free(sc->j);
	free(sc->hot);
	free(sc->cold);
	free(sc->slot_of);
	free(sc->jtag);
	free(sc->jbits_set);
	free(sc->jq);
	free(sc->jx);
}

/*
 * Check question 'q' for equal keys (noted in sc->dup) and, unless
 * 'judged_only', count the lines before each judged document, or mark the
 * question QF_TIE when the keys cannot tell (see above). 'set' is scratch.
 */
static void scatter_settle(struct scatter *sc, size_t q, bool judged_only,
			   uint64_t **set, size_t *alloc)
{
	struct qhot *h = &sc->hot[sc->slot_of[q]];
	const struct qcold *c = &sc->cold[q];
	struct sc_judged *j = sc->j + c->j0;
	size_t n = c->nr_rec + c->nr_j, cap = 16, m = c->nr_j;
	bool exact = !(h->flags & QF_LONG);

	while (cap < 2 * n)
		cap *= 2;
	if (cap > *alloc) {
		free(*set);
		*set = xmalloc(cap * sizeof(**set));
		*alloc = cap;
	}
	/* 0 marks an empty slot; a key of 0 is stored as 1 (a false alarm at worst) */
	memset(*set, 0, cap * sizeof(**set));
	/* the judged documents' keys, then the chunks' */
	{
		const struct sc_chunk *k = c->head;
		size_t ki = 0, i = 0;

		for (;;) {
			uint64_t key, s;
			size_t at;

			if (i < m) {
				key = j[i++].key;
			} else {
				while (k && ki == k->nr) {
					k = k->next;
					ki = 0;
				}
				if (!k)
					break;
				key = k->r[ki++].key;
			}
			s = key ? key : 1;
			at = (size_t)((s * 0x9E3779B97F4A7C15ULL) >> 20) & (cap - 1);
			while ((*set)[at] && (*set)[at] != s)
				at = (at + 1) & (cap - 1);
			if (!(*set)[at]) {
				(*set)[at] = s;
				continue;
			}
			ALLOC_GROW(sc->dup, sc->nr_dup + 1, sc->alloc_dup);
			memset(&sc->dup[sc->nr_dup], 0, sizeof(*sc->dup));
			sc->dup[sc->nr_dup].q = q;
			sc->dup[sc->nr_dup].key = key;
			sc->nr_dup++;
		}
	}
	if (judged_only || !m)
		return;
	for (const struct sc_chunk *k = c->head; k; k = k->next) {
		for (size_t i = 0; i < k->nr; i++) {
			const struct sc_rec *r = &k->r[i];
			size_t lo = 0, hi = m;

			if (exact) {
				/* lo: the judged documents that outrank the line */
				while (lo < hi) {
					size_t mid = (lo + hi) / 2;

					if (r->score > j[mid].score ||
					    (r->score == j[mid].score && r->key > j[mid].key))
						hi = mid;
					else
						lo = mid + 1;
				}
			} else {
				while (lo < hi) {
					size_t mid = (lo + hi) / 2;

					if (r->score < j[mid].score)
						lo = mid + 1;
					else
						hi = mid;
				}
				if (lo < m && j[lo].score == r->score) {
					h->flags |= QF_TIE;
					for (size_t x = 0; x < m; x++)
						j[x].before = 0;
					return;
				}
			}
			if (lo < m)
				j[lo].before++;
		}
	}
}

/*
 * Evaluate the run 'st->path', whatever the order of its lines, in one
 * streaming pass (see above; rarely two or three): every query of the
 * qrels, or with 'only' those marked 2 there. Not for -M, which needs every
 * line's rank. Return 0 or -1 (reported).
 */
static int evaluate_scattered(struct te_state *st, const unsigned char *only, struct strbuf *runid)
{
	struct scatter sc;
	struct judged_hit *hits = NULL;
	uint64_t *set = NULL;
	size_t alloc_hits = 0, alloc_set = 0;
	bool ties = false;
	int ret;

	memset(&sc, 0, sizeof(sc));
	sc.qr = st->qr;
	sc.path = st->path;
	scatter_index(&sc, only);
	ret = run_trec_scan_mode(st->path, RUN_SCAN_LINES, scatter_pass, &sc, runid);
	scatter_store_flush(&sc);
	if (!ret) {
		if (sc.nr_j > 1)
			qsort(sc.j, sc.nr_j, sizeof(*sc.j), cmp_sc_judged);
		for (size_t k = 0; k < sc.nr_j; k++) {
			struct qcold *c = &sc.cold[sc.j[k].q];

			if (!c->nr_j)
				c->j0 = (uint32_t)k;
			c->nr_j++;
		}
		for (size_t i = 0; i < st->qr->nr; i++) {
			struct qcold *c = &sc.cold[i];

			if (!c->tail)
				continue;
			c->tail->nr = c->tail->cap - sc.hot[sc.slot_of[i]].room;
			for (const struct sc_chunk *k = c->head; k; k = k->next)
				c->nr_rec += k->nr;
		}
		for (size_t i = 0; i < st->qr->nr; i++) {
			if (sc.cold[i].nr_rec + sc.cold[i].nr_j) {
				scatter_settle(&sc, i, st->o->judged_only, &set, &alloc_set);
				ties |= (sc.hot[sc.slot_of[i]].flags & QF_TIE) != 0;
			}
		}
	}
	if (!ret && sc.nr_dup) {
		qsort(sc.dup, sc.nr_dup, sizeof(*sc.dup), cmp_sc_dup);
		ret = run_trec_scan_mode(st->path, RUN_SCAN_LINES, scatter_pass_dup, &sc, NULL);
	}
	if (!ret && ties) {
		sc.want = QF_TIE;
		ret = run_trec_scan_mode(st->path, RUN_SCAN_LINES, scatter_pass_count, &sc, NULL);
	}
	for (size_t i = 0; !ret && i < st->qr->nr; i++) {
		const struct qrels_query *qq = &st->qr->q[i];
		const struct qcold *c = &sc.cold[i];
		const struct sc_judged *j = sc.j + c->j0;
		struct query_eval e;
		long before = 0, kept = 0;

		if (!(c->nr_rec + c->nr_j))
			continue;
		memset(&e, 0, sizeof(e));
		ALLOC_GROW(hits, (size_t)c->nr_j + 1, alloc_hits);
		for (size_t k = 0; k < c->nr_j; k++) {
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
		e.num_ret = st->o->judged_only ? kept : (long)(c->nr_rec + c->nr_j);
		e.hits = hits;
		e.nr_hits = (size_t)kept;
		e.levels = qq->levels;
		e.nr_levels = qq->nr_levels;
		e.rel_level = st->o->rel_level;
		add_row(st->out, st->o, &st->sc, qq->qid, &e);
		st->seen[i] = 1;
	}
	free(hits);
	free(set);
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
