/*
 * treceval-settle: the scattered pass's work after it has read the run
 * (see treceval-scatter.c): each question settled on its own, in cache,
 * and the passes that read the run again for the few questions that need
 * their lines.
 */
#include "score/treceval-scatter.h"

#include "base/error.h"
#include "base/progress.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "score/run.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
	struct sc_judged *j = sc_judged_of(sc, c);
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

/* The cut pass: keep the lines of the questions marked QF_CUT. */
static int scatter_line_cut(struct scatter *sc, struct qhot *h, const struct trec_line *l, bool padded)
{
	struct sc_cut *k;

	(void)padded;
	ALLOC_GROW(sc->cut, sc->nr_cut + 1, sc->alloc_cut);
	k = &sc->cut[sc->nr_cut++];
	k->q = h->idx - 1;
	k->doc = sc->cut_docs.len;
	k->line = l->line;
	k->score = l->score;
	k->len = l->len;
	strbuf_add(&sc->cut_docs, l->doc, l->len);
	strbuf_add(&sc->cut_docs, "\0\0\0\0\0\0\0\0", 8);
	return 0;
}

static int scatter_pass_cut(struct trec_group *g, void *data)
{
	return scatter_batch(data, g, scatter_line_cut);
}

static int cmp_sc_cut(const void *a, const void *b)
{
	const struct sc_cut *x = a, *y = b;

	if (x->q != y->q)
		return x->q < y->q ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

/*
 * Evaluate each question marked QF_CUT from its lines, kept by the cut
 * pass, as a grouped run's question is: with -M, when two lines of it had
 * the same docid, whether both are among the first max_docs (a duplicate,
 * an error) or not (trec_eval never sees the second) needs their ranks in
 * full. Return 0 or -1 (reported).
 */
static int scatter_eval_cut(struct scatter *sc, struct te_state *st)
{
	struct trec_line *lines = NULL;
	size_t alloc = 0;
	int ret = 0;

	if (sc->nr_cut > 1)
		qsort(sc->cut, sc->nr_cut, sizeof(*sc->cut), cmp_sc_cut);
	for (size_t a = 0, b; !ret && a < sc->nr_cut; a = b) {
		const struct qrels_query *qq = &sc->qr->q[sc->cut[a].q];
		struct trec_group g;
		struct query_eval e;

		for (b = a; b < sc->nr_cut && sc->cut[b].q == sc->cut[a].q; b++)
			;
		ALLOC_GROW(lines, b - a, alloc);
		for (size_t i = a; i < b; i++) {
			lines[i - a].doc = sc->cut_docs.buf + sc->cut[i].doc;
			lines[i - a].len = sc->cut[i].len;
			lines[i - a].line = sc->cut[i].line;
			lines[i - a].score = sc->cut[i].score;
		}
		memset(&g, 0, sizeof(g));
		g.qid = qq->qid;
		g.qid_len = strlen(qq->qid);
		g.lines = lines;
		g.nr = b - a;
		g.padded = true;
		if (hits_from_group(&st->hc, &g, qq, st->o->judged_only, st->o->max_docs, st->path, &e) < 0) {
			ret = -1;
			break;
		}
		e.rel_level = st->o->rel_level;
		te_add_row(st->out, st->o, &st->sc, qq->qid, &e);
		st->seen[sc->cut[a].q] = 1;
	}
	free(lines);
	return ret;
}

/* One thread's share of the settling (see scatter_settle_all). */
struct sc_settle {
	struct scatter *sc;
	size_t *next;           /* the next block of questions to take (atomic) */
	bool judged_only;
	long max_docs;          /* -M */
	bool ties;              /* one of them was marked QF_TIE */
	bool cuts;              /* one of them was marked QF_CUT */
	struct sc_dup *dup;     /* the equal keys met */
	size_t nr_dup, alloc_dup;
	uint32_t *fp;           /* scratch */
	uint64_t *set;
	size_t alloc_fp, alloc_set;
};

/* The keys of a question: its judged documents', then its chunks'. */
struct sc_keys {
	const struct sc_judged *j;
	size_t m, i;
	const struct sc_chunk *k;
	size_t ki;
};

static inline void sc_keys_init(struct sc_keys *it, const struct sc_judged *j, size_t m,
				const struct sc_chunk *head)
{
	it->j = j;
	it->m = m;
	it->i = 0;
	it->k = head;
	it->ki = 0;
	if (head)
		__builtin_prefetch(head->next);
}

/*
 * Set '*key' to the next key; return false after the last. Chunks lie
 * apart in memory, where the processor does not look ahead: the one after
 * the chunk begun is fetched meanwhile.
 */
static inline bool sc_keys_next(struct sc_keys *it, uint64_t *key)
{
	if (it->i < it->m) {
		*key = it->j[it->i++].key;
		return true;
	}
	while (it->k && it->ki == it->k->nr) {
		it->k = it->k->next;
		it->ki = 0;
		if (it->k)
			__builtin_prefetch(it->k->next);
	}
	if (!it->k)
		return false;
	*key = it->k->r[it->ki++].key;
	return true;
}

/* Return '*buf' grown to hold at least 'n' elements of 'size' bytes ('*alloc' of them), zeroed. */
static void *scratch_zeroed(void **buf, size_t *alloc, size_t n, size_t size)
{
	if (n > *alloc) {
		free(*buf);
		*buf = xcalloc(n, size);
		*alloc = n;
		return *buf;
	}
	memset(*buf, 0, n * size);
	return *buf;
}

/*
 * Whether two keys of the question of 'c' may be equal: a 32-bit
 * fingerprint of each goes in a set of 'cap' slots (at least four times
 * its keys, so that a lookup seldom probes a second slot; half the size of
 * a set of whole keys, it stays in the processor's first cache for a
 * question of a thousand lines). Equal keys have equal fingerprints; equal
 * fingerprints of different keys only cost the exact check.
 */
static bool settle_maybe_dup(struct sc_settle *w, const struct qcold *c, const struct sc_judged *j,
			     size_t cap)
{
	struct sc_keys it;
	uint32_t *set;
	uint64_t key;
	int shift = 64;

	for (size_t x = cap; x > 1; x /= 2)
		shift--;
	set = scratch_zeroed((void **)&w->fp, &w->alloc_fp, cap, sizeof(*set));
	for (sc_keys_init(&it, j, c->nr_j, c->head); sc_keys_next(&it, &key);) {
		uint64_t hash = key * 0x9E3779B97F4A7C15ULL;
		uint32_t fp = ((uint32_t)hash ^ (uint32_t)(hash >> 32)) | 1;  /* 0: an empty slot */
		size_t at = (size_t)(hash >> shift);

		while (set[at] && set[at] != fp)
			at = (at + 1) & (cap - 1);
		if (set[at])
			return true;
		set[at] = fp;
	}
	return false;
}

/* Note in w->dup each key of question 'q' (of 'c') met twice, comparing whole keys. */
static void settle_dups(struct sc_settle *w, size_t q, const struct qcold *c, const struct sc_judged *j,
			size_t cap)
{
	struct sc_keys it;
	uint64_t *set, key;

	/* 0 marks an empty slot; a key of 0 is stored as 1 (a false alarm at worst) */
	set = scratch_zeroed((void **)&w->set, &w->alloc_set, cap, sizeof(*set));
	for (sc_keys_init(&it, j, c->nr_j, c->head); sc_keys_next(&it, &key);) {
		uint64_t s = key ? key : 1;
		size_t at = (size_t)((s * 0x9E3779B97F4A7C15ULL) >> 20) & (cap - 1);

		while (set[at] && set[at] != s)
			at = (at + 1) & (cap - 1);
		if (!set[at]) {
			set[at] = s;
			continue;
		}
		ALLOC_GROW(w->dup, w->nr_dup + 1, w->alloc_dup);
		memset(&w->dup[w->nr_dup], 0, sizeof(*w->dup));
		w->dup[w->nr_dup].q = q;
		w->dup[w->nr_dup].key = key;
		w->nr_dup++;
	}
}

/*
 * Check question 'q' for equal keys (noted in w->dup) and, unless
 * w->judged_only, count the lines before each judged document, or mark the
 * question QF_TIE when the keys cannot tell (see treceval-scatter.c).
 */
static void scatter_settle(struct sc_settle *w, size_t q)
{
	struct scatter *sc = w->sc;
	struct qhot *h = &sc->hot[sc->slot_of[q]];
	const struct qcold *c = &sc->cold[q];
	struct sc_judged *j = sc_judged_of(sc, c);
	size_t n = c->nr_rec + c->nr_j, cap = 16, m = c->nr_j;
	bool exact = !(h->flags & QF_LONG);

	while (cap < 4 * n)
		cap *= 2;
	/* -M 0 keeps no line, so finds no duplicate (as trec_eval) */
	if (w->max_docs && settle_maybe_dup(w, c, j, cap)) {
		if ((size_t)w->max_docs < n) {
			/* are both lines among the first max_docs? their lines will tell */
			h->flags |= QF_CUT;
			w->cuts = true;
			return;
		}
		settle_dups(w, q, c, j, cap);
	}
	/* -J needs no rank, but -M keeps the judged documents ranked max_docs or better */
	if ((w->judged_only && (size_t)w->max_docs >= n) || !m)
		return;
	for (const struct sc_chunk *k = c->head; k; k = k->next) {
		__builtin_prefetch(k->next);
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
					w->ties = true;
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

#define SC_SETTLE_BLOCK 64  /* questions a thread takes at once in the settling */

static void *scatter_settle_main(void *arg)
{
	struct sc_settle *w = arg;
	size_t nr = w->sc->qr->nr, b;

	while ((b = __atomic_fetch_add(w->next, 1, __ATOMIC_RELAXED)) < (nr + SC_SETTLE_BLOCK - 1) / SC_SETTLE_BLOCK) {
		size_t end = (b + 1) * SC_SETTLE_BLOCK < nr ? (b + 1) * SC_SETTLE_BLOCK : nr;

		for (size_t q = b * SC_SETTLE_BLOCK; q < end; q++) {
			if (q + 1 < end)
				__builtin_prefetch(w->sc->cold[q + 1].head);
			if (w->sc->cold[q].nr_rec + w->sc->cold[q].nr_j)
				scatter_settle(w, q);
		}
	}
	return NULL;
}

/*
 * Settle every question of 'sc' (see scatter_settle): on two threads when
 * 'threads' is 2, each taking the next SC_SETTLE_BLOCK questions not
 * taken. The equal keys met go to sc->dup; return whether a question was
 * marked QF_TIE.
 */
bool scatter_settle_all(struct scatter *sc, const struct te_options *o, int threads, bool *cuts)
{
	struct sc_settle w[2];
	size_t next = 0;

	memset(w, 0, sizeof(w));
	for (int t = 0; t < 2; t++) {
		w[t].sc = sc;
		w[t].judged_only = o->judged_only;
		w[t].max_docs = o->max_docs;
		w[t].next = &next;
	}
	if (threads == 2)
		te_run_pair(scatter_settle_main, &w[0], &w[1], false);
	else
		scatter_settle_main(&w[0]);
	sc->dup = w[0].dup;
	sc->nr_dup = w[0].nr_dup;
	sc->alloc_dup = w[0].alloc_dup;
	ALLOC_GROW(sc->dup, sc->nr_dup + w[1].nr_dup, sc->alloc_dup);
	if (w[1].nr_dup)
		memcpy(sc->dup + sc->nr_dup, w[1].dup, w[1].nr_dup * sizeof(*sc->dup));
	sc->nr_dup += w[1].nr_dup;
	free(w[1].dup);
	for (int t = 0; t < 2; t++) {
		free(w[t].fp);
		free(w[t].set);
	}
	*cuts = w[0].cuts || w[1].cuts;
	return w[0].ties || w[1].ties;
}

void te_run_pair(void *(*fn)(void *), void *a, void *b, bool mute)
{
	report_fn saved_error = get_error_routine(), saved_warning = get_warning_routine();
	pthread_t thread;
	bool threaded;

	if (mute) {
		set_error_routine(report_nothing);
		set_warning_routine(report_nothing);
	}
	threaded = !pthread_create(&thread, NULL, fn, b);
	fn(a);
	if (threaded)
		pthread_join(thread, NULL);
	else
		fn(b);
	if (mute) {
		set_error_routine(saved_error);
		set_warning_routine(saved_warning);
	}
}

int scatter_rescan(struct scatter *sc, struct te_state *st, bool ties, bool cuts)
{
	int ret = 0;

	if (sc->nr_dup) {
		qsort(sc->dup, sc->nr_dup, sizeof(*sc->dup), cmp_sc_dup);
		te_progress_pass(st->o);
		ret = run_trec_scan_mapped(st->path, RUN_SCAN_LINES, scatter_pass_dup, sc, NULL);
	}
	if (!ret && ties) {
		sc->want = QF_TIE;
		te_progress_pass(st->o);
		ret = run_trec_scan_mapped(st->path, RUN_SCAN_LINES, scatter_pass_count, sc, NULL);
	}
	if (!ret && cuts) {
		sc->want = QF_CUT;
		te_progress_pass(st->o);
		ret = run_trec_scan_mapped(st->path, RUN_SCAN_LINES, scatter_pass_cut, sc, NULL);
		if (!ret)
			ret = scatter_eval_cut(sc, st);
	}
	return ret;
}

void te_progress_pass(const struct te_options *o)
{
	if (o->progress)
		progress_phase(o->progress, NULL, o->progress->total);
	run_trec_progress(o->progress, 0, 0);
}
