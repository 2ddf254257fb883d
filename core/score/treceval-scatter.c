/*
 * treceval-scatter: runs whose questions are not grouped (see
 * treceval-internal.h).
 *
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
#include "score/treceval-internal.h"

#include "base/error.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "score/run.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
	uint32_t len;       /* of doc */
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
	if (padded)
		memcpy(&w, s, 8);  /* one load: a copy of variable length costs a call or a rep movs */
	else
		memcpy(&w, s, len);
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
static inline int scatter_line(struct scatter *sc, struct qhot *h, const struct trec_line *l, bool padded)
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
		j->len = (uint32_t)jd->len;
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
static inline __attribute__((always_inline)) int
scatter_batch(struct scatter *sc, const struct trec_group *g,
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
		memcpy(d->doc, l->doc, l->len);  /* a mapped scan's docids are not NUL-terminated */
		d->doc[l->len] = '\0';
		d->len = l->len;
		d->line = l->line;
	} else if (d->len == l->len && !memcmp(d->doc, l->doc, l->len)) {
		return error_at(sc->path, l->line, 0,
				"document '%.*s' listed twice for query '%s' (first at line %ld)",
				(int)l->len, l->doc, sc->qr->q[key.q].qid, d->line);
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

		cmp = run_rank_cmp_len(j[mid].score, j[mid].doc, j[mid].len, l->score, l->doc, l->len);
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

	/* at most a quarter full: a lookup seldom probes a second slot */
	while (cap < 4 * n)
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

int te_evaluate_scattered(struct te_state *st, const unsigned char *only, struct strbuf *runid)
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
	ret = run_trec_scan_mapped(st->path, RUN_SCAN_LINES, scatter_pass, &sc, runid);
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
		ret = run_trec_scan_mapped(st->path, RUN_SCAN_LINES, scatter_pass_dup, &sc, NULL);
	}
	if (!ret && ties) {
		sc.want = QF_TIE;
		ret = run_trec_scan_mapped(st->path, RUN_SCAN_LINES, scatter_pass_count, &sc, NULL);
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
		te_add_row(st->out, st->o, &st->sc, qq->qid, &e);
		st->seen[i] = 1;
	}
	free(hits);
	free(set);
	scatter_release(&sc);
	return ret;
}
