/*
 * treceval-scatter: runs whose questions are not grouped (see
 * treceval-internal.h).
 *
 * A question whose lines are scattered over the file is evaluated in one
 * streaming pass that keeps 16 bytes a line: the line's score and a 64-bit
 * key of its docid, appended to the question's own list of chunks; the
 * judged documents it retrieved are noted apart (score, docid, grade). A
 * docid of 1 to 8 bytes without NUL is its own key (its bytes read as a
 * big-endian number, so that keys compare as strcmp compares the docids);
 * a longer one is keyed by its hash. The chunks are carved from an arena
 * reserved for the pass whose pages are made present 2 MiB at a time: one
 * page fault a page would cost more than the pass's own work on it. They
 * are huge pages where the system has them (see arena_reserve).
 *
 * After the pass each question is handled alone, in cache: a docid listed
 * twice shows as an equal key (first as an equal 32-bit fingerprint in a
 * small set; only a question where two are equal has its whole keys
 * compared; the lines of equal keys are then found by one more pass that
 * compares the docids, so the error names both lines and a hash collision
 * is never taken for a duplicate), and each judged document's rank is one
 * plus the lines that outrank it, counted as score.c does. Only in a
 * question with a docid longer than 8 bytes, where a line ties in score
 * with one of its judged documents, is the order of the two docids unknown
 * from the keys: those questions alone are counted again by one more pass
 * that compares the docids themselves.
 *
 * In a shuffled run every line belongs to another question than the last,
 * so what a line touches is kept small and fetched early: the question's
 * 32-byte slot of the qid table, one bit of the judgments' filter, and the
 * end of the question's list (see scatter_pass).
 *
 * A plain run of 16 MiB or more is read on two threads (unless the options
 * say one), each taking pieces of about 16 MiB of the file in turn into
 * lists of its own, joined after the pass (a question's lists from the
 * first thread, then the second's: a list's order does not matter); the
 * questions are then settled on two threads, each taking the next block
 * of questions in turn. A thread slowed down by a busy machine so takes
 * less of the work. Any failure of that pass is left for one pass on one
 * thread, which reports it at its line.
 */
#include "score/treceval-scatter.h"

#include "base/error.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "score/run.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

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
	sc->nr_q = nr_q;
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

/*
 * Reserve 'len' bytes of address space for 'a' (nothing is taken from
 * memory until used); when the system refuses, or on a 32-bit system where
 * address space is short, the arena takes blocks from malloc instead.
 */
static void arena_reserve(struct sc_arena *a, size_t len)
{
	void *p;

	len = (len + SC_POPULATE - 1) / SC_POPULATE * SC_POPULATE;
	if (sizeof(void *) < 8 || !len)
		return;
	/* one SC_POPULATE more, to start on a multiple of it (a huge page's start) */
	p = mmap(NULL, len + SC_POPULATE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return;
	ALLOC_GROW(a->blocks, a->nr + 1, a->alloc);
	a->blocks[a->nr].p = p;
	a->blocks[a->nr].len = len + SC_POPULATE;
	a->blocks[a->nr++].mapped = true;
	a->at = a->present = p + (SC_POPULATE - (uintptr_t)p % SC_POPULATE) % SC_POPULATE;
	a->end = a->at + len;
#ifdef MADV_HUGEPAGE
	/*
	 * In a shuffled run each line writes to another question's chunk:
	 * thousands of pages in turn, far more than the TLB holds, and a miss
	 * costs a page walk (two, under a hypervisor). On 2 MiB pages the
	 * records of a whole run fit in the TLB. Only a hint: where the system
	 * has no huge page, the pages are small.
	 */
	madvise(a->at, len, MADV_HUGEPAGE);
#endif
}

/* Return 'size' bytes (a multiple of 16, at most SC_BLOCK) from 'a'. */
static void *arena_take(struct sc_arena *a, size_t size)
{
	char *p;

	if ((size_t)(a->end - a->at) < size) {
		ALLOC_GROW(a->blocks, a->nr + 1, a->alloc);
		a->at = a->blocks[a->nr].p = xmalloc(SC_BLOCK);
		a->blocks[a->nr].len = SC_BLOCK;
		a->blocks[a->nr++].mapped = false;
		a->end = a->present = a->at + SC_BLOCK;
	}
	p = a->at;
	a->at += size;
	while (a->at > a->present) {
#ifdef MADV_POPULATE_WRITE
		/* older kernels refuse it: the pages then come one fault at a time */
		madvise(a->present, SC_POPULATE, MADV_POPULATE_WRITE);
#endif
		a->present += SC_POPULATE;
	}
	/* the next chunk's place: the next scatter_grow, a few dozen lines on, writes there */
	__builtin_prefetch(a->at, 1);
	return p;
}

static void arena_release(struct sc_arena *a)
{
	for (size_t i = 0; i < a->nr; i++) {
		if (a->blocks[i].mapped)
			munmap(a->blocks[i].p, a->blocks[i].len);
		else
			free(a->blocks[i].p);
	}
	free(a->blocks);
	memset(a, 0, sizeof(*a));
}

/* Give 'a' the blocks of 'b' (what was carved from them stays where it is). */
static void arena_join(struct sc_arena *a, struct sc_arena *b)
{
	ALLOC_GROW(a->blocks, a->nr + b->nr, a->alloc);
	if (b->nr)
		memcpy(a->blocks + a->nr, b->blocks, b->nr * sizeof(*b->blocks));
	a->nr += b->nr;
	b->nr = 0;
}

/*
 * Give the question of 'h' a new chunk, twice the last one up to
 * SC_CHUNK_MAX lines (so a question's last chunk, partly empty, wastes
 * little).
 */
static void scatter_grow(struct scatter *sc, struct qhot *h)
{
	struct qcold *c = &sc->cold[h->idx - 1];
	uint32_t cap = !c->tail ? 4 : c->tail->cap < SC_CHUNK_MAX ? 2 * c->tail->cap : SC_CHUNK_MAX;
	size_t size = sizeof(struct sc_chunk) + cap * sizeof(struct sc_rec);
	struct sc_chunk *k;

	k = arena_take(&sc->arena, size);
	k->next = NULL;
	k->nr = 0;
	k->cap = cap;
	if (c->tail) {
		c->tail->nr = c->tail->cap;
		c->nr_rec += c->tail->cap;
		c->tail->next = k;
	} else {
		c->head = k;
	}
	c->tail = k;
	h->end = k->r;
	h->room = (uint16_t)cap;
}

/*
 * Note the line 'l' of question 'h' (its docid's key 'key') among the
 * judged documents when the qrels judge it for that question, and return
 * true; or return false.
 */
static inline bool scatter_note_judged(struct scatter *sc, const struct qhot *h,
				       const struct trec_line *l, uint64_t key)
{
	size_t q = h->idx - 1;
	const struct qrel *jd = scatter_judged(sc, q, key, l->doc, l->len);
	struct sc_judged *j;

	if (!jd)
		return false;
	ALLOC_GROW(sc->j, sc->nr_j + 1, sc->alloc_j);
	j = &sc->j[sc->nr_j++];
	j->score = l->score;
	j->doc = jd->doc;
	j->len = (uint32_t)jd->len;
	j->key = key;
	j->rel = jd->rel < 0 ? REL_UNJUDGED : jd->rel;
	j->q = (uint32_t)q;
	j->before = 0;
	return true;
}

#define SC_STAGE 32  /* lines a stage of the main pass (see scatter_pass) */

/* A stage: SC_STAGE lines of a batch from 'base' on, and what is known of them. */
struct sc_stage {
	size_t base, n;
	uint64_t qkey[SC_STAGE], dkey[SC_STAGE];
	size_t slot[SC_STAGE];
	bool qhashed[SC_STAGE], dhashed[SC_STAGE];
	struct sc_rec *at[SC_STAGE];
};

/* The keys of the lines of stage 't' (from t->base), their qids' slots fetched. */
static inline __attribute__((always_inline)) void
stage_keys(const struct scatter *sc, const struct trec_group *g, struct sc_stage *t)
{
	const struct trec_line *l = g->lines + t->base;

	for (size_t i = 0; i < t->n; i++) {
		t->qhashed[i] = t->dhashed[i] = false;
		t->qkey[i] = sc_key(g->qids ? g->qids[t->base + i] : g->qid,
				    g->qids ? g->qid_lens[t->base + i] : g->qid_len, g->padded, &t->qhashed[i]);
		t->slot[i] = sc_qslot(sc, t->qkey[i]);
		__builtin_prefetch(&sc->hot[t->slot[i]]);
		t->dkey[i] = sc_key(l[i].doc, l[i].len, g->padded, &t->dhashed[i]);
	}
}

/* Find the question of each line of stage 't' and take its record's place, fetched. */
static inline __attribute__((always_inline)) void
stage_find(struct scatter *sc, const struct trec_group *g, struct sc_stage *t)
{
	const struct trec_line *l = g->lines + t->base;

	for (size_t i = 0; i < t->n; i++) {
		struct qhot *h = scatter_probe(sc, t->qkey[i], t->qhashed[i],
					       g->qids ? g->qids[t->base + i] : g->qid,
					       g->qids ? g->qid_lens[t->base + i] : g->qid_len, t->slot[i]);

		t->at[i] = NULL;
		if (!h)
			continue;
		if (t->dhashed[i])
			h->flags |= QF_LONG;
		if (scatter_note_judged(sc, h, &l[i], t->dkey[i]))
			continue;
		if (!h->room)
			scatter_grow(sc, h);
		h->room--;
		t->at[i] = h->end++;
		__builtin_prefetch(t->at[i], 1);
	}
}

/* Write the records of stage 't' to the places stage_find took. */
static inline __attribute__((always_inline)) void
stage_write(const struct trec_group *g, const struct sc_stage *t)
{
	const struct trec_line *l = g->lines + t->base;

	for (size_t i = 0; i < t->n; i++) {
		if (t->at[i]) {
			t->at[i]->score = l[i].score;
			t->at[i]->key = t->dkey[i];
		}
	}
}

/*
 * The main pass, for the lines of the batch 'g'. In a shuffled run each
 * line touches memory far from the last one's, so the lines go through in
 * stages of SC_STAGE, three stages under way at once, each a step ahead of
 * the next: the keys of a stage's lines are made and their qids' slots
 * fetched; a stage later those slots are read and each line's record
 * place taken and fetched; a stage later still the records are written.
 * What each line waits for has been on its way for a stage.
 */
static int scatter_pass(struct trec_group *g, void *data)
{
	struct scatter *sc = data;
	struct sc_stage t[3];
	size_t nr_stages = (g->nr + SC_STAGE - 1) / SC_STAGE;

	for (size_t k = 0; k < nr_stages + 2; k++) {
		if (k < nr_stages) {
			struct sc_stage *a = &t[k % 3];

			a->base = k * SC_STAGE;
			a->n = g->nr - a->base < SC_STAGE ? g->nr - a->base : SC_STAGE;
			stage_keys(sc, g, a);
		}
		if (k >= 1 && k - 1 < nr_stages)
			stage_find(sc, g, &t[(k - 1) % 3]);
		if (k >= 2)
			stage_write(g, &t[(k - 2) % 3]);
	}
	return 0;
}

/* Order judged documents by question, then in ranking order. */
static int cmp_sc_judged(const void *a, const void *b)
{
	const struct sc_judged *x = a, *y = b;

	if (x->q != y->q)
		return x->q < y->q ? -1 : 1;
	return run_rank_cmp(x->score, x->doc, y->score, y->doc);
}

static void scatter_release(struct scatter *sc)
{
	arena_release(&sc->arena);
	free(sc->cut);
	strbuf_release(&sc->cut_docs);
	for (size_t i = 0; i < sc->nr_dup; i++)
		free(sc->dup[i].doc);
	free(sc->dup);
	free(sc->j);
	free(sc->hot);
	free(sc->cold);
	if (sc->copy)
		return;
	free(sc->slot_of);
	free(sc->jtag);
	free(sc->jbits_set);
	free(sc->jq);
	free(sc->jx);
}

/*
 * Make 'dst' a second thread's scatter over the index of 'sc', before any
 * line: all 'sc' holds then besides the index is empty (no arena, judged
 * document, duplicate or cut line yet), so only the tables a pass writes
 * to are its own.
 */
static void scatter_copy(struct scatter *dst, const struct scatter *sc)
{
	*dst = *sc;
	dst->copy = true;
	dst->hot = xmalloc((sc->qmask + 1) * sizeof(*dst->hot));
	memcpy(dst->hot, sc->hot, (sc->qmask + 1) * sizeof(*dst->hot));
	dst->cold = xcalloc(sc->qr->nr + 1, sizeof(*dst->cold));
}

/* After the main pass: count each question's last chunk. */
static void scatter_close(struct scatter *sc)
{
	for (size_t i = 0; i < sc->qr->nr; i++) {
		struct qcold *c = &sc->cold[i];

		if (c->tail) {
			c->tail->nr = c->tail->cap - sc->hot[sc->slot_of[i]].room;
			c->nr_rec += c->tail->nr;
		}
	}
}

/* Append the lists, judged documents and blocks of the closed 'b' to the closed 'a'. */
static void scatter_join(struct scatter *a, struct scatter *b)
{
	for (size_t i = 0; i < a->qr->nr; i++) {
		struct qcold *x = &a->cold[i];
		const struct qcold *y = &b->cold[i];

		if (!y->head)
			continue;
		if (x->tail)
			x->tail->next = y->head;
		else
			x->head = y->head;
		x->tail = y->tail;
		x->nr_rec += y->nr_rec;
		a->hot[a->slot_of[i]].flags |= b->hot[b->slot_of[i]].flags;
	}
	arena_join(&a->arena, &b->arena);
	ALLOC_GROW(a->j, a->nr_j + b->nr_j, a->alloc_j);
	if (b->nr_j)
		memcpy(a->j + a->nr_j, b->j, b->nr_j * sizeof(*b->j));
	a->nr_j += b->nr_j;
}

/* Forget every line of the main pass; the index stays. */
static void scatter_reset(struct scatter *sc)
{
	arena_release(&sc->arena);
	sc->nr_j = 0;
	memset(sc->cold, 0, (sc->qr->nr + 1) * sizeof(*sc->cold));
	for (size_t i = 0; i <= sc->qmask; i++) {
		sc->hot[i].end = NULL;
		sc->hot[i].room = 0;
		sc->hot[i].flags = 0;
	}
}

/*
 * Reserve the arena of 'sc' for the lines of 'len' bytes of a run: their
 * records (16 bytes a line of 24 bytes or more: half as many as the bytes)
 * and each question's last chunk, partly empty.
 */
static void scatter_reserve(struct scatter *sc, off_t len)
{
	uintmax_t want = (uintmax_t)len / 2 * 3 + (uintmax_t)sc->nr_q * SC_CHUNK_MAX * sizeof(struct sc_rec);

	if (len > 0 && want <= SIZE_MAX / 2)
		arena_reserve(&sc->arena, (size_t)want);
}

#define SC_PIECE (16 << 20)  /* bytes of a piece of the run for a thread, about */
#define SC_PIECES_MAX 64

/*
 * The pieces of a run read on two threads: each thread takes the next
 * piece not taken, so that a thread slowed down (the machine is shared)
 * reads fewer of them and both end at about the same time.
 */
struct sc_pieces {
	const char *path;
	off_t cuts[SC_PIECES_MAX + 1];
	int nr;
	int next;               /* the next piece to take (atomic) */
	struct strbuf runid[SC_PIECES_MAX];
	int failed;             /* a piece failed (atomic): the others stop */
};

struct sc_worker {
	struct sc_pieces *pieces;
	struct scatter *sc;
	struct progress *progress;
	int lane;               /* of the progress line: 0 or 1 */
};

static void *scatter_worker(void *arg)
{
	struct sc_worker *w = arg;
	struct sc_pieces *p = w->pieces;
	double done = 0;  /* bytes of the pieces this thread has read */
	int i;

	scatter_reserve(w->sc, p->cuts[p->nr]);  /* address space only: what is used is taken */
	while (!__atomic_load_n(&p->failed, __ATOMIC_RELAXED) &&
	       (i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) < p->nr) {
		run_trec_progress(w->progress, w->lane, done);
		done += (double)(p->cuts[i + 1] - p->cuts[i]);
		if (run_trec_scan_range(p->path, p->cuts[i], p->cuts[i + 1], RUN_SCAN_LINES,
					scatter_pass, w->sc, &p->runid[i]))
			__atomic_store_n(&p->failed, 1, __ATOMIC_RELAXED);
	}
	scatter_close(w->sc);
	return NULL;
}

/*
 * Read the run of 'sc' ('size' bytes; 0 when it is not a regular file) on
 * two threads (see sc_pieces), each into lists of its own, joined into
 * 'sc' after. Return 2 when it was, 0 when the run is not a plain file of
 * 16 MiB or more, or -1 when a piece failed
 * (nothing reported: the caller reads it again on one thread; 'sc' is
 * then as it was).
 */
static int scatter_two_threads(struct scatter *sc, off_t size, struct progress *progress,
			       struct strbuf *runid)
{
	struct sc_pieces *p;
	struct scatter other;
	struct sc_worker w[2];
	int ret = 0;

	if (size < (off_t)SC_PIECE)
		return 0;
	p = xcalloc(1, sizeof(*p));
	p->path = sc->path;
	p->nr = run_trec_cut(sc->path, p->cuts, size / SC_PIECE < SC_PIECES_MAX ?
			     (int)(size / SC_PIECE) + 1 : SC_PIECES_MAX);
	if (p->nr < 2) {
		free(p);
		return 0;
	}
	for (int i = 0; i < p->nr; i++)
		strbuf_init(&p->runid[i], 0);
	scatter_copy(&other, sc);
	w[0].pieces = w[1].pieces = p;
	w[0].sc = sc;
	w[1].sc = &other;
	w[0].progress = w[1].progress = progress;
	w[0].lane = 0;
	w[1].lane = 1;
	te_run_pair(scatter_worker, &w[0], &w[1], true);
	if (p->failed) {
		scatter_reset(sc);
		ret = -1;
	} else {
		scatter_join(sc, &other);
		if (runid) {
			int last = p->nr - 1;

			while (last > 0 && !p->runid[last].len)
				last--;
			strbuf_reset(runid);
			strbuf_add(runid, p->runid[last].buf, p->runid[last].len);
		}
		ret = 2;
	}
	scatter_release(&other);
	for (int i = 0; i < p->nr; i++)
		strbuf_release(&p->runid[i]);
	free(p);
	return ret;
}

/*
 * The main pass over the run of 'sc', on two threads when 'threads' allows
 * and the file is large and plain: return 2 when it was, 1 when on one
 * thread, or -1 (reported). 'runid', when not NULL, receives the tag of
 * the last line.
 */
static int scatter_main_pass(struct scatter *sc, const struct te_options *o, struct strbuf *runid)
{
	struct stat st;
	off_t size = !stat(sc->path, &st) && S_ISREG(st.st_mode) ? st.st_size : 0;
	int ret;

	te_progress_pass(o);
	ret = o->threads == 1 ? 0 : scatter_two_threads(sc, size, o->progress, runid);
	if (ret > 0)
		return ret;
	/* on one thread, from nothing (a failure on two is reported at its line) */
	te_progress_pass(o);
	scatter_reserve(sc, size);
	ret = run_trec_scan_mapped(sc->path, RUN_SCAN_LINES, scatter_pass, sc, runid);
	scatter_close(sc);
	return ret < 0 ? -1 : 1;
}

int te_evaluate_scattered(struct te_state *st, const unsigned char *only, struct strbuf *runid,
			  int *threads)
{
	struct scatter sc;
	struct judged_hit *hits = NULL;
	size_t alloc_hits = 0;
	bool ties = false, cuts = false;
	int ret, nr_threads;

	memset(&sc, 0, sizeof(sc));
	sc.qr = st->qr;
	sc.path = st->path;
	strbuf_init(&sc.cut_docs, 0);
	scatter_index(&sc, only);
	nr_threads = scatter_main_pass(&sc, st->o, runid);
	ret = nr_threads < 0 ? -1 : 0;
	if (threads && !ret)
		*threads = nr_threads;
	if (!ret) {
		if (sc.nr_j > 1)
			qsort(sc.j, sc.nr_j, sizeof(*sc.j), cmp_sc_judged);
		for (size_t k = 0; k < sc.nr_j; k++) {
			struct qcold *c = &sc.cold[sc.j[k].q];

			if (!c->nr_j)
				c->j0 = (uint32_t)k;
			c->nr_j++;
		}
		ties = scatter_settle_all(&sc, st->o, nr_threads, &cuts);
	}
	if (!ret)
		ret = scatter_rescan(&sc, st, ties, cuts);
	for (size_t i = 0; !ret && i < st->qr->nr; i++) {
		const struct qrels_query *qq = &st->qr->q[i];
		const struct qcold *c = &sc.cold[i];
		const struct sc_judged *j = sc_judged_of(&sc, c);
		struct query_eval e;
		long before = 0, kept = 0, max_docs = st->o->max_docs;
		size_t n = c->nr_rec + c->nr_j;

		if (!n || (sc.hot[sc.slot_of[i]].flags & QF_CUT))
			continue;  /* no line, or evaluated from its lines */
		memset(&e, 0, sizeof(e));
		ALLOC_GROW(hits, (size_t)c->nr_j + 1, alloc_hits);
		for (size_t k = 0; k < c->nr_j; k++) {
			long rank;

			before += j[k].before;
			rank = (long)k + 1 + before;
			if (rank > max_docs)
				break;  /* -M: this one and those after it are not kept */
			if (st->o->judged_only) {
				if (j[k].rel < 0)
					continue;
				rank = kept + 1;
			}
			hits[kept].rank = rank;
			hits[kept++].rel = j[k].rel;
		}
		e.num_ret = st->o->judged_only ? kept : (long)(n < (size_t)max_docs ? n : (size_t)max_docs);
		e.hits = hits;
		e.nr_hits = (size_t)kept;
		e.levels = qq->levels;
		e.nr_levels = qq->nr_levels;
		e.rel_level = st->o->rel_level;
		te_add_row(st->out, st->o, &st->sc, qq->qid, &e);
		st->seen[i] = 1;
	}
	free(hits);
	scatter_release(&sc);
	return ret;
}
