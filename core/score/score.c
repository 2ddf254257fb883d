/*
 * score: from rankings and judgments to measures (see score.h).
 *
 * Ranks without sorting: with n retrieved lines and m judged ones (m is tiny
 * next to n: one or two per question on MS MARCO), sorting the m judged
 * documents and counting, for every other line, the first judged document
 * it outranks gives every judged rank in O(n log m). Ties follow trec_eval:
 * equal scores are ordered by docid descending in strcmp order. A docid
 * listed twice is found with a small open-addressing table of 8-byte keys
 * (see doc_key), cleared per question; the same key, hashed once, picks
 * the line's bit in a filter of the question's judged docids, so that only
 * the few lines whose bit is set look their docid up in the qrels.
 */
#include "score/score.h"

#include "base/digest.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "set/set.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct jdoc {
	double score;
	const char *doc;
	uint32_t len;
	int rel;
	uint32_t line;  /* index in the group */
};

void hit_ctx_init(struct hit_ctx *c)
{
	memset(c, 0, sizeof(*c));
}

void hit_ctx_release(struct hit_ctx *c)
{
	free(c->hits);
	free(c->hit_at);
	free(c->j);
	free(c->before);
	free(c->keys);
	free(c->key_lines);
	free(c->filter);
	free(c->is_judged);
	free(c->order);
	memset(c, 0, sizeof(*c));
}

static void reserve_hits(struct hit_ctx *c, size_t n)
{
	ALLOC_GROW(c->hits, n + 1, c->alloc_hits);
}

#define KEY_MUL 0x9E3779B97F4A7C15ULL

/*
 * The key of a docid of 'len' bytes at 's' (7 more readable bytes follow
 * when 'padded'): a docid of 1 to 7 bytes is its own key, its bytes with
 * its length in the top byte; any other is keyed by its hash with the top
 * bit set. Multiplied by KEY_MUL, its top bits pick a slot of the duplicate
 * table and a bit of the judged filter, and 32 of its middle bits are its
 * tag in the table (equal tags are checked by comparing the docids).
 */
static inline uint64_t doc_key(const char *s, size_t len, bool padded)
{
	uint64_t w = 0;

	if (len - 1 >= 7)
		return (padded ? qrels_hash_padded(s, len) : qrels_hash(s, len)) | 1ULL << 63;
	if (padded) {
		memcpy(&w, s, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		w = __builtin_bswap64(w);
#endif
		w &= (1ULL << (8 * len)) - 1;
	} else {
		for (size_t i = 0; i < len; i++)
			w |= (uint64_t)(unsigned char)s[i] << (8 * i);
	}
	return w | (uint64_t)len << 56;
}

/*
 * Prepare the duplicate table for 'n' ids: 4-byte tags (and their lines
 * apart), cleared per question, at most a quarter full so that a lookup
 * seldom probes a second slot (the probe loop's exit is then well
 * predicted); the tags of a 1,000-document question take 16 KB of cache.
 */
static void dup_reset(struct hit_ctx *c, size_t n)
{
	size_t cap = 64;
	int bits = 6;

	while (cap < 4 * n) {
		cap *= 2;
		bits++;
	}
	if (cap > c->alloc_slots) {
		free(c->keys);
		free(c->key_lines);
		c->keys = xmalloc(cap * sizeof(*c->keys));
		c->key_lines = xmalloc(cap * sizeof(*c->key_lines));
		c->alloc_slots = cap;
	}
	c->cap = cap;
	c->shift = 64 - bits;
	memset(c->keys, 0, cap * sizeof(*c->keys));
}

/* The duplicate table of a hit_ctx, copied out so that a loop keeps it in
 * registers (the stores into its arrays could otherwise change c's fields
 * as far as the compiler knows). */
struct dup_table {
	uint32_t *tags, *lines;
	size_t mask;
	int shift;
};

static inline struct dup_table dup_table(const struct hit_ctx *c)
{
	struct dup_table t = { c->keys, c->key_lines, c->cap - 1, c->shift };

	return t;
}

/*
 * Record line 'i' of 'g' in 't', its key multiplied by KEY_MUL in 'mixed';
 * return the index of an earlier equal docid, or -1.
 */
static inline long dup_insert(const struct dup_table *t, const struct trec_group *g, uint32_t i,
			      uint64_t mixed)
{
	size_t s = (size_t)(mixed >> t->shift);
	uint32_t tag = (uint32_t)(mixed >> 24) | 1;

	while (t->tags[s]) {
		if (t->tags[s] == tag) {
			const struct trec_line *o = &g->lines[t->lines[s]], *l = &g->lines[i];

			if (o->len == l->len && !memcmp(o->doc, l->doc, l->len))
				return t->lines[s];
		}
		s = (s + 1) & t->mask;
	}
	t->tags[s] = tag;
	t->lines[s] = i;
	return -1;
}

/*
 * Set the filter of the judged docids of 'qq' (NULL: none): about 8 bits a
 * judgment, at least 64; return the shift that picks a key's bit from its
 * mixed key.
 */
static int filter_reset(struct hit_ctx *c, const struct qrels_query *qq)
{
	size_t nr = qq ? qq->nr : 0, words = 1;
	int bits = 6;

	while (words * 64 < 8 * nr) {
		words *= 2;
		bits++;
	}
	ALLOC_GROW(c->filter, words, c->alloc_filter);
	memset(c->filter, 0, words * sizeof(*c->filter));
	for (size_t k = 0; k < nr; k++) {
		uint64_t b = (doc_key(qq->j[k].doc, qq->j[k].len, false) * KEY_MUL) >> (64 - bits);

		c->filter[b >> 6] |= 1ULL << (b & 63);
	}
	return 64 - bits;
}

static int dup_error(const char *path, const struct trec_group *g, long a, long b)
{
	const struct trec_line *x = &g->lines[a], *y = &g->lines[b];
	const struct trec_line *later = x->line > y->line ? x : y, *first = later == x ? y : x;

	return error_at(path, later->line, 0,
			"document '%.*s' listed twice for query '%.*s' (first at line %ld)",
			(int)later->len, later->doc, (int)g->qid_len, g->qid, first->line);
}

static int judged_rel(const struct qrels_query *qq, const char *doc, size_t len, uint64_t h)
{
	long jx = qq ? qrels_query_lookup(qq, doc, len, h) : -1;

	if (jx < 0)
		return REL_NONPOOL;
	return qq->j[jx].rel < 0 ? REL_UNJUDGED : qq->j[jx].rel;
}

static void fill_levels(const struct qrels_query *qq, struct query_eval *e)
{
	e->levels = qq ? qq->levels : NULL;
	e->nr_levels = qq ? qq->nr_levels : 0;
	e->rel_level = 1;
}

static int cmp_jdoc(const void *a, const void *b)
{
	const struct jdoc *x = a, *y = b;

	return run_rank_cmp_len(x->score, x->doc, x->len, y->score, y->doc, y->len);
}

static int cmp_line_ptr(const void *a, const void *b)
{
	const struct trec_line *x = *(const struct trec_line *const *)a;
	const struct trec_line *y = *(const struct trec_line *const *)b;

	return run_rank_cmp_len(x->score, x->doc, x->len, y->score, y->doc, y->len);
}

/* The -M path: sort, keep the first 'max_docs', then walk in order. */
static int hits_sorted(struct hit_ctx *c, struct trec_group *g, const struct qrels_query *qq,
		       bool judged_only, long max_docs, const char *path, struct query_eval *e)
{
	size_t n = g->nr, keep = max_docs > 0 && (size_t)max_docs < n ? (size_t)max_docs : n;
	size_t nh = 0;
	long pos = 0;
	struct dup_table dt;

	ALLOC_GROW(c->order, n, c->alloc_order);
	for (size_t i = 0; i < n; i++)
		c->order[i] = &g->lines[i];
	qsort(c->order, n, sizeof(*c->order), cmp_line_ptr);
	reserve_hits(c, keep);
	dup_reset(c, keep);
	dt = dup_table(c);
	for (size_t i = 0; i < keep; i++) {
		const struct trec_line *l = c->order[i];
		uint32_t idx = (uint32_t)(l - g->lines);
		long d = dup_insert(&dt, g, idx, doc_key(l->doc, l->len, g->padded) * KEY_MUL);
		int rel;

		if (d >= 0)
			return dup_error(path, g, d, idx);
		rel = judged_rel(qq, l->doc, l->len, qrels_hash(l->doc, l->len));
		if (judged_only && rel < 0)
			continue;
		pos++;
		if (rel != REL_NONPOOL) {
			c->hits[nh].rank = pos;
			c->hits[nh].rel = rel;
			nh++;
		}
	}
	e->num_ret = judged_only ? pos : (long)keep;
	e->hits = c->hits;
	e->nr_hits = nh;
	fill_levels(qq, e);
	return 0;
}

/*
 * The lines of 'g' being in score-descending order, give each of its 'm'
 * judged documents (c->j, in ranking order) its hit: its rank is one more
 * than the lines before its run of equal scores and those of that run with
 * a greater docid (trec_eval's tie order). Return false, nothing set, when
 * the runs of equal scores around judged documents are long enough that the
 * counting of hits_from_group costs less (this walk stays under 2n + 64).
 */
static bool ranks_in_order(struct hit_ctx *c, const struct trec_group *g, size_t m)
{
	size_t n = g->nr, budget = 2 * n + 64;

	for (size_t k = 0; k < m; k++) {
		size_t i = c->j[k].line, t = i, u = i + 1, rank;
		double js = c->j[k].score;

		while (t > 0 && g->lines[t - 1].score == js && i - t < budget)
			t--;
		while (u < n && g->lines[u].score == js && u - t < budget)
			u++;
		if (u - t >= budget)
			return false;
		budget -= u - t;
		rank = t + 1;
		for (size_t x = t; x < u; x++)
			rank += x != i && run_docid_cmp(g->lines[x].doc, g->lines[x].len,
							c->j[k].doc, c->j[k].len) > 0;
		c->hits[k].rank = (long)rank;
		c->hits[k].rel = c->j[k].rel;
	}
	return true;
}

int hits_from_group(struct hit_ctx *c, struct trec_group *g, const struct qrels_query *qq,
		    bool judged_only, long max_docs, const char *path, struct query_eval *e)
{
	size_t n = g->nr, m = 0, nh = 0;
	int fshift;
	bool desc = true;  /* scores never go up from line to line (the usual run) */
	double prev = INFINITY;
	struct dup_table dt;
	const uint64_t *filter;

	if (max_docs > 0 && (size_t)max_docs < n)
		return hits_sorted(c, g, qq, judged_only, max_docs, path, e);
	dup_reset(c, n);
	fshift = filter_reset(c, qq);
	dt = dup_table(c);
	filter = c->filter;
	for (size_t i = 0; i < n; i++) {
		const struct trec_line *l = &g->lines[i];
		uint64_t mixed = doc_key(l->doc, l->len, g->padded) * KEY_MUL, b;
		long d = dup_insert(&dt, g, (uint32_t)i, mixed);
		int rel = REL_NONPOOL;

		if (d >= 0)
			return dup_error(path, g, d, (long)i);
		desc &= l->score <= prev;
		prev = l->score;
		b = mixed >> fshift;
		if (filter[b >> 6] & (1ULL << (b & 63)))
			rel = judged_rel(qq, l->doc, l->len, g->padded ? qrels_hash_padded(l->doc, l->len)
								     : qrels_hash(l->doc, l->len));
		if (rel == REL_NONPOOL)
			continue;
		ALLOC_GROW(c->j, m + 1, c->alloc_j);
		c->j[m].score = l->score;
		c->j[m].doc = l->doc;
		c->j[m].len = l->len;
		c->j[m].rel = rel;
		c->j[m].line = (uint32_t)i;
		m++;
	}
	if (m > 1)
		qsort(c->j, m, sizeof(*c->j), cmp_jdoc);
	reserve_hits(c, m);
	if (judged_only) {
		long pos = 0;

		for (size_t i = 0; i < m; i++) {
			if (c->j[i].rel < 0)
				continue;
			c->hits[nh].rank = ++pos;
			c->hits[nh].rel = c->j[i].rel;
			nh++;
		}
		e->num_ret = pos;
	} else if (desc && ranks_in_order(c, g, m)) {
		nh = m;
		e->num_ret = (long)n;
	} else {
		long run = 0;

		ALLOC_GROW(c->is_judged, n, c->alloc_flags);
		memset(c->is_judged, 0, n * sizeof(*c->is_judged));
		for (size_t k = 0; k < m; k++)
			c->is_judged[c->j[k].line] = 1;
		ALLOC_GROW(c->before, m + 1, c->alloc_before);
		memset(c->before, 0, (m + 1) * sizeof(*c->before));
		if (m == 1) {
			/* the usual case on MS MARCO: count the lines that outrank the one judged */
			double js = c->j[0].score;
			const char *jd = c->j[0].doc;
			size_t jl = c->j[0].len, cnt = 0;

			for (size_t i = 0; i < n; i++) {
				const struct trec_line *l = &g->lines[i];

				cnt += !c->is_judged[i] &&
				       (l->score > js ||
					(l->score == js && run_docid_cmp(jd, jl, l->doc, l->len) < 0));
			}
			c->before[0] = cnt;
		} else if (m) {
			for (size_t i = 0; i < n; i++) {
				const struct trec_line *l = &g->lines[i];
				size_t lo = 0, hi = m;

				if (c->is_judged[i])
					continue;
				/* first judged document that 'l' outranks (run_rank_cmp, inlined) */
				while (lo < hi) {
					size_t mid = (lo + hi) / 2;
					double js = c->j[mid].score;

					if (l->score > js ||
					    (l->score == js &&
					     run_docid_cmp(c->j[mid].doc, c->j[mid].len, l->doc, l->len) < 0))
						hi = mid;
					else
						lo = mid + 1;
				}
				c->before[lo]++;
			}
		}
		for (size_t i = 0; i < m; i++) {
			run += c->before[i];
			c->hits[nh].rank = 1 + (long)i + run;
			c->hits[nh].rel = c->j[i].rel;
			nh++;
		}
		e->num_ret = (long)n;
	}
	e->hits = c->hits;
	e->nr_hits = nh;
	fill_levels(qq, e);
	return 0;
}

void hits_from_ranked(struct hit_ctx *c, const struct run_query *rq,
		      const struct qrels_query *qq, bool judged_only, struct query_eval *e)
{
	size_t n = rq ? rq->nr : 0, nh = 0;
	long pos = 0;

	reserve_hits(c, n);
	ALLOC_GROW(c->hit_at, n + 1, c->alloc_hit_at);
	for (size_t i = 0; i < n; i++) {
		const char *id = rq->docs[i].id;
		size_t len = strlen(id);
		int rel = judged_rel(qq, id, len, qrels_hash(id, len));

		if (judged_only && rel < 0)
			continue;
		pos++;
		if (rel != REL_NONPOOL) {
			c->hits[nh].rank = pos;
			c->hits[nh].rel = rel;
			c->hit_at[nh] = i;
			nh++;
		}
	}
	e->num_ret = pos;
	e->hits = c->hits;
	e->nr_hits = nh;
	fill_levels(qq, e);
}

/* ---- scoring into results ---- */

size_t score_default_measures(struct measure *out, size_t max)
{
	static const char *const names[] = {
		"R@1", "R@3", "R@5", "R@10", "R@20", "R@50", "R@100",
		"Success@1", "Success@5", "Success@10", "P@5", "RR", "nDCG@10",
		"Judged@5", "Judged@10",
	};
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(names) && n < max; i++)
		if (!measure_parse(names[i], &out[n]))
			n++;
	return n;
}

void score_summary_release(struct score_summary *s)
{
	for (size_t i = 0; i < s->nr_unknown_ids; i++)
		free(s->unknown_ids[i]);
	free(s->unknown_ids);
	memset(s, 0, sizeof(*s));
}

double score_mean(const struct results *r, size_t mi,
		  bool (*match)(const struct question_result *q, const void *arg),
		  const void *arg, long *n)
{
	double sum = 0.0;
	long count = 0;

	for (size_t i = 0; i < r->nr; i++) {
		const struct question_result *q = &r->q[i];

		if (!q->answerable || q->unjudged || (match && !match(q, arg)))
			continue;
		sum += q->values[mi];
		count++;
	}
	if (n)
		*n = count;
	return count ? sum / (double)count : 0.0;
}

void score_calls_to_rel(const struct results *r, struct calls_to_rel *out)
{
	double sum = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < r->nr; i++) {
		const struct question_result *q = &r->q[i];

		if (!q->answerable || q->unjudged)
			continue;
		out->questions++;
		if (!q->nr_rel_ranks)
			continue;
		/* the call whose results end at or after the first relevant rank */
		for (size_t c = 0; c < q->nr_calls; c++)
			if (q->call_end[c] >= q->rel_ranks[0]) {
				sum += (double)(c + 1);
				out->reached++;
				break;
			}
	}
	out->mean = out->reached ? sum / (double)out->reached : 0.0;
}

static char **copy_strings(char *const *src, size_t n)
{
	char **dst = n ? xcalloc(n, sizeof(*dst)) : NULL;

	for (size_t i = 0; i < n; i++)
		dst[i] = xstrdup(src[i]);
	return dst;
}

/* True when a measure of 'o' is document-level. */
static bool wants_docs(const struct score_options *o)
{
	for (size_t i = 0; i < o->nr_measures; i++)
		if (measure_is_doc(&o->measures[i]))
			return true;
	return false;
}

/* True when a measure of 'o' needs an agent's calls. */
static bool wants_calls(const struct score_options *o)
{
	for (size_t i = 0; i < o->nr_measures; i++)
		if (measure_is_call(&o->measures[i]))
			return true;
	return false;
}

/* Fill the option fields of 'out' and allocate its 'nr' questions. */
static void alloc_results(struct results *out, const struct score_options *o, size_t nr)
{
	out->k = o->k;
	out->depth = (int)o->depth;
	out->nr_measures = o->nr_measures;
	out->measures = xcalloc(o->nr_measures ? o->nr_measures : 1, sizeof(char *));
	for (size_t i = 0; i < o->nr_measures; i++)
		out->measures[i] = xstrdup(o->measures[i].name);
	out->aggregate = xcalloc(o->nr_measures ? o->nr_measures : 1, sizeof(double));
	out->has_docs = wants_docs(o);
	out->has_calls = wants_calls(o);
	out->q = xcalloc(nr ? nr : 1, sizeof(*out->q));
	out->nr = nr;
}

/* Fill the run fields of 'out'. */
static void run_results(struct results *out, const struct run *run, const char *run_path)
{
	char sha[72];

	out->run_path = xstrdup(run_path);
	out->run_name = xstrdup(run->name);
	if (run->reranked)
		out->run_ranked_by = xstrdup("score");
	if (run->meta) {
		/* the form the questions were asked in, for compare (docs/conversations.md) */
		cJSON *meta = cJSON_Parse(run->meta);
		const cJSON *form = cJSON_GetObjectItemCaseSensitive(meta, "query_form");

		if (cJSON_IsString(form))
			out->run_query_form = xstrdup(form->valuestring);
		cJSON_Delete(meta);
	}
	/* the digest of the bytes scored when the scan read the file whole
	 * (not read twice), else of the file now */
	if (run_path && run->path && run->sha256[0] && !strcmp(run_path, run->path))
		out->run_sha256 = xstrdup(run->sha256);
	else if (run_path && strcmp(run_path, "-") && !file_sha256(run_path, sha))
		out->run_sha256 = xstrdup(sha);
	out->has_calls = out->has_calls || run->has_calls;
}

/*
 * Record in 'qr' the judged documents of 'rq' that 'e' holds (filled by
 * hits_from_ranked through 'c', which knows where each is in the list),
 * with their ids, and the question's judged documents per grade: what a
 * reader needs to recompute every measure (results.h).
 */
static void record_judged(struct question_result *qr, const struct run_query *rq,
			  const struct hit_ctx *c, const struct query_eval *e)
{
	size_t nh = rq ? e->nr_hits : 0;

	qr->judged = xcalloc(e->nr_hits + 1, sizeof(*qr->judged));
	for (size_t h = 0; h < nh; h++) {
		qr->judged[h].rank = e->hits[h].rank;
		qr->judged[h].grade = e->hits[h].rel;
		qr->judged[h].id = xstrdup(rq->docs[c->hit_at[h]].id);
	}
	qr->nr_judged = nh;
	qr->nr_levels = e->nr_levels > 0 ? e->nr_levels : 0;
	qr->levels = xcalloc((size_t)qr->nr_levels + 1, sizeof(long));
	for (int g = 0; g < qr->nr_levels; g++)
		qr->levels[g] = e->levels[g];
}

/* Record in 'qr' the relevant documents 'd' retrieved and their counts per grade. */
static void record_docs(struct question_result *qr, const struct doc_eval *d)
{
	qr->docs = xcalloc(d->nr_hits + 1, sizeof(*qr->docs));
	for (size_t i = 0; i < d->nr_hits; i++) {
		qr->docs[i].rank = d->hits[i].rank;
		qr->docs[i].pos = d->hits[i].pos;
		qr->docs[i].grade = d->hits[i].grade;
		qr->docs[i].doc = xstrdup(d->hits[i].doc);
	}
	qr->nr_docs = d->nr_hits;
	qr->nr_doc_levels = d->nr_levels;
	qr->doc_levels = xcalloc((size_t)d->nr_levels + 1, sizeof(long));
	for (int g = 1; g < d->nr_levels; g++)
		qr->doc_levels[g] = d->levels[g];
}

/*
 * Record in 'qr' where each call of 'rq' ends in the ranking evaluated
 * (with 'judged_only', the unjudged documents dropped as hits_from_ranked
 * drops them): a list without calls is one call, a missing question none.
 */
static void record_calls(struct question_result *qr, const struct run_query *rq,
			 const struct qrels_query *qq, bool judged_only)
{
	size_t nr = !rq ? 0 : rq->nr_calls ? rq->nr_calls : 1, i = 0;
	long pos = 0;

	qr->call_end = xcalloc(nr + 1, sizeof(long));
	qr->nr_calls = nr;
	for (size_t call = 0; call < nr; call++) {
		size_t end = rq->nr_calls ? (size_t)rq->call_end[call] : rq->nr;

		for (; i < end; i++) {
			const char *id = rq->docs[i].id;
			size_t len = strlen(id);

			if (!judged_only || judged_rel(qq, id, len, qrels_hash(id, len)) >= 0)
				pos++;
		}
		qr->call_end[call] = pos;
	}
}

/* Score one question into 'qr' (id, text, origin, tags, answerable already set);
 * 'dc' is NULL unless a measure is document-level; 'calls' records the
 * calls (results.has_calls). */
static void score_one(struct hit_ctx *c, struct doc_ctx *dc, bool calls, struct question_result *qr,
		      const struct qrels_query *qq, const struct run_query *rq,
		      const struct score_options *o)
{
	struct query_eval e;
	struct doc_eval d;
	struct call_eval ce = { NULL, 0 };
	size_t nrr = 0;

	hits_from_ranked(c, rq, qq, o->judged_only, &e);
	if (calls) {
		record_calls(qr, rq, qq, o->judged_only);
		ce.end = qr->call_end;
		ce.nr = qr->nr_calls;
	}
	if (dc) {
		doc_eval_build(dc, qq, rq, o->corpus, o->judged_only, &d);
		record_docs(qr, &d);
	}
	qr->missing = !rq;
	qr->declined = !rq || rq->abstained || !rq->nr ||
		       (o->has_decline_below && !isnan(rq->docs[0].score) &&
			rq->docs[0].score < o->decline_below);
	qr->num_ret = e.num_ret;
	qr->num_rel = m_num_rel(&e, 1);
	qr->rel_ranks = xcalloc(e.nr_hits ? e.nr_hits : 1, sizeof(long));
	for (size_t i = 0; i < e.nr_hits; i++)
		if (e.hits[i].rel >= 1)
			qr->rel_ranks[nrr++] = e.hits[i].rank;
	qr->nr_rel_ranks = nrr;
	record_judged(qr, rq, c, &e);
	qr->nr_top = rq ? (rq->nr < RESULTS_TOP ? rq->nr : RESULTS_TOP) : 0;
	qr->top = xcalloc(RESULTS_TOP, sizeof(char *));
	for (size_t i = 0; i < qr->nr_top; i++)
		qr->top[i] = xstrdup(rq->docs[i].id);
	qr->values = xcalloc(o->nr_measures ? o->nr_measures : 1, sizeof(double));
	for (size_t i = 0; i < o->nr_measures; i++)
		qr->values[i] = qr->answerable && !qr->unjudged ?
			measure_value_all(&o->measures[i], &e, dc ? &d : NULL, calls ? &ce : NULL) : NAN;
}

/* Count the scored question 'qr' in 'out' and 'sum'. */
static void count_question(struct results *out, const struct question_result *qr,
			   const struct score_options *o, struct score_summary *sum)
{
	if (qr->unjudged)
		;  /* counted apart (score_summary.unjudged) */
	else if (qr->answerable)
		out->nr_answerable++;
	else
		out->nr_unanswerable++;
	if (qr->missing)
		sum->missing++;
	if (qr->unjudged) {
		sum->unjudged++;
	} else if (qr->answerable) {
		long first = qr->nr_rel_ranks ? qr->rel_ranks[0] : 0;

		if (first && first <= o->k)
			sum->found_top_k++;
		else if (first && (o->depth <= 0 || first <= o->depth))
			sum->found_low++;
		else
			sum->not_found++;
		if (qr->declined)
			sum->declined_answerable++;
	} else if (qr->declined) {
		sum->declined_unanswerable++;
	}
}

/* Return the question 'id' of 'run' for scoring, or NULL. */
static const struct run_query *ranking_of(const struct run *run, const char *id)
{
	const struct run_query *rq = id ? run_find(run, id) : NULL;

	if (rq && rq->dropped) {  /* a bug: the hook took it and did not score it */
		fprintf(stderr, "fatal: score: question '%s' of the run was let go unscored\n", id);
		abort();
	}
	return rq;
}

/* Score question 'i' of 'out' (id and answerable set) against 'qq' and
 * its ranking in 'run', and count it. */
static void score_question(struct hit_ctx *c, struct doc_ctx *dc, struct results *out, size_t i,
			   const struct qrels_query *qq, const struct run *run,
			   const struct score_options *o, struct score_summary *sum)
{
	struct question_result *qr = &out->q[i];

	score_one(c, dc, out->has_calls, qr, qq, ranking_of(run, qr->id), o);
	count_question(out, qr, o, sum);
}

static void finish_results(struct results *out, const struct score_options *o,
			   const struct score_summary *sum)
{
	for (size_t m = 0; m < o->nr_measures; m++)
		out->aggregate[m] = score_mean(out, m, NULL, NULL, NULL);
	out->decline = out->nr_unanswerable ?
		(double)sum->declined_unanswerable / (double)out->nr_unanswerable : 0.0;
	out->false_decline = out->nr_answerable ?
		(double)sum->declined_answerable / (double)out->nr_answerable : 0.0;
}

/* Count the run questions 'known' does not hold; refuse a run for another
 * set, naming it as 'kind' 'name' ("set 'demo'"). */
static int check_unknown(const struct run *run, const char *kind, const char *name,
			 bool (*known)(const void *ctx, const char *qid), const void *ctx,
			 struct score_summary *sum)
{
	for (size_t i = 0; i < run->nr; i++) {
		if (known(ctx, run->q[i].qid))
			continue;
		sum->unknown++;
		if (sum->nr_unknown_ids < 5) {
			sum->unknown_ids = xreallocarray(sum->unknown_ids, sum->nr_unknown_ids + 1,
							 sizeof(char *));
			sum->unknown_ids[sum->nr_unknown_ids++] = xstrdup(run->q[i].qid);
		}
	}
	if (run->nr && (size_t)sum->unknown == run->nr)
		return error("%s: none of the %zu questions of the run is in %s '%s' (a run for another set?)",
			     run->path, run->nr, kind, name);
	if (!run->nr) {
		sum->empty_run = 1;
		warning("%s: the run is empty: every question counts as missing", run->path);
	}
	return 0;
}

static bool set_knows(const void *ctx, const char *qid)
{
	return set_lookup_find((const struct set_lookup *)ctx, qid) != NULL;
}

static bool qrels_knows(const void *ctx, const char *qid)
{
	return qrels_find((const struct qrels *)ctx, qid, strlen(qid)) != NULL;
}

/* score_question_qrels, reporting a chunk labelled twice when 'report'. */
static int question_qrels(const struct question *q, const char *file, bool report,
			  struct qrels_query *qq)
{
	memset(qq, 0, sizeof(*qq));
	qq->qid = xstrdup(q->id);
	for (size_t l = 0; l < q->nr_relevant; l++)
		qrels_query_add(qq, q->relevant[l].chunk, q->relevant[l].grade);
	for (size_t l = 0; l < q->nr_irrelevant; l++)
		qrels_query_add(qq, q->irrelevant[l], 0);
	if ((report ? qrels_query_finish(qq, file) : qrels_query_finish_quiet(qq)) < 0) {
		qrels_query_release(qq);
		return -1;
	}
	return 0;
}

int score_question_qrels(const struct question *q, const char *file, struct qrels_query *qq)
{
	return question_qrels(q, file, true, qq);
}

/* score_question_qrels reporting nothing. */
static int score_question_qrels_quiet(const struct question *q, struct qrels_query *qq)
{
	return question_qrels(q, NULL, false, qq);
}

/* Fill the set fields of question 'i' of 's' into 'qr'. */
static void fill_question(struct question_result *qr, const struct set *s, size_t i,
			  bool conversational)
{
	const struct question *q = &s->q[i];

	qr->id = xstrdup(q->id);
	qr->text = xstrdup(q->text);
	qr->origin = q->origin == ORIGIN_NONE ? NULL : xstrdup(origin_name(q->origin));
	qr->answerable = q->answerable;
	/* answerable without a label: only a set whose labels were left
	 * out for the run's corpus has one (score.h) */
	qr->unjudged = q->answerable && !q->nr_relevant;
	qr->tags = copy_strings(q->tags, q->nr_tags);
	qr->nr_tags = q->nr_tags;
	qr->turn = conversational ? xstrdup(question_turn_position(q)) : NULL;
}

/* ---- scoring while the run is read ---- */

void score_early_start(struct score_early *e, const struct set *s, const struct score_options *o)
{
	memset(e, 0, sizeof(*e));
	e->s = s;
	e->o = o;
	e->conversational = set_has_conversations(s);
	hit_ctx_init(&e->c);
	set_lookup_init(&e->lk, s);
	/* every question has an id of its own: with an id twice, both questions
	 * take the same ranking, so none may be let go */
	e->on = !o->judged_only && !wants_docs(o) && e->lk.map.size == s->nr;
	e->q = xcalloc(s->nr ? s->nr : 1, sizeof(*e->q));
	e->done = xcalloc(s->nr ? s->nr : 1, sizeof(*e->done));
}

/* Forget every question scored early. */
static void early_forget(struct score_early *e)
{
	for (size_t i = 0; e->nr_done && i < e->s->nr; i++)
		if (e->done[i]) {
			question_result_release(&e->q[i]);
			memset(&e->q[i], 0, sizeof(e->q[i]));
			e->done[i] = false;
			e->nr_done--;
		}
}

int score_early_question(struct run *r, struct run_query *rq, void *data)
{
	struct score_early *e = data;
	const struct question *q;
	struct qrels_query qq;
	size_t i;

	if (!rq) {
		early_forget(e);
		return 0;
	}
	/* only a TREC run: it records no corpus, so nothing changes the set's
	 * labels after it is read, and it has no calls to change the measures */
	if (!e->on || r->format != RUN_TREC)
		return 0;  /* not asked for when off; JSONL and JSON lists are never handed over */
	if (!(q = set_lookup_find(&e->lk, rq->qid)))
		return 0;  /* unknown to the set: counted after the load */
	i = (size_t)(q - e->s->q);
	if (e->done[i]) {  /* a bug: the run refuses a question twice, and a new read forgets */
		fprintf(stderr, "fatal: score: question '%s' scored twice while read\n", rq->qid);
		abort();
	}
	/* a chunk labelled twice is reported in order by score_set */
	if (score_question_qrels_quiet(q, &qq) < 0)
		return 0;
	fill_question(&e->q[i], e->s, i, e->conversational);
	score_one(&e->c, NULL, wants_calls(e->o), &e->q[i], &qq, rq, e->o);
	qrels_query_release(&qq);
	e->done[i] = true;
	e->nr_done++;
	return 1;
}

void score_early_release(struct score_early *e)
{
	if (!e->s)
		return;
	early_forget(e);
	free(e->q);
	free(e->done);
	set_lookup_release(&e->lk);
	hit_ctx_release(&e->c);
	memset(e, 0, sizeof(*e));
}

int score_set(const struct set *s, const char *version, const struct run *run,
	      const char *run_path, const struct score_options *o,
	      struct results *out, struct score_summary *sum)
{
	return score_set_early(s, version, run, run_path, o, NULL, out, sum);
}

int score_set_early(const struct set *s, const char *version, const struct run *run,
		    const char *run_path, const struct score_options *o, struct score_early *early,
		    struct results *out, struct score_summary *sum)
{
	struct hit_ctx c;
	struct doc_ctx dc;
	struct set_lookup lk;
	char digest[72];
	bool conversational = set_has_conversations(s), *taken = NULL;
	int rc;

	if (early && !early->nr_done)
		early = NULL;  /* nothing taken: 's' may have been replaced since (score.h) */
	if (early && (early->s != s || early->o != o)) {  /* a bug of the caller */
		fprintf(stderr, "fatal: score_set_early: scored early on another set or options\n");
		abort();
	}
	/* the questions by id: those of the early scoring when it took any */
	if (!early)
		set_lookup_init(&lk, s);
	rc = check_unknown(run, "set", s->name ? s->name : "?", set_knows, early ? &early->lk : &lk,
			   sum);
	if (!early)
		set_lookup_release(&lk);
	if (rc < 0)
		return -1;
	hit_ctx_init(&c);
	doc_ctx_init(&dc);
	if (o->set_digest)
		snprintf(digest, sizeof(digest), "%s", o->set_digest);
	else
		set_digest(s, digest);
	out->set_name = xstrdup(s->name);
	out->set_version = xstrdup(version);
	out->set_digest = xstrdup(digest);
	alloc_results(out, o, s->nr);
	if (early) {
		/* the questions scored early are in their places already (set
		 * order, the others zero): their array becomes the results' */
		free(out->q);
		out->q = early->q;
		taken = early->done;
		early->q = NULL;
		early->done = NULL;
		early->nr_done = 0;
	}
	run_results(out, run, run_path);
	for (size_t i = 0; i < s->nr; i++) {
		struct question_result *qr = &out->q[i];
		struct qrels_query qq;

		if (taken && taken[i]) {
			count_question(out, qr, o, sum);
			continue;
		}
		if (score_question_qrels(&s->q[i], s->file, &qq) < 0) {
			hit_ctx_release(&c);
			doc_ctx_release(&dc);
			free(taken);
			return -1;
		}
		fill_question(qr, s, i, conversational);
		score_question(&c, out->has_docs ? &dc : NULL, out, i, &qq, run, o, sum);
		qrels_query_release(&qq);
	}
	finish_results(out, o, sum);
	hit_ctx_release(&c);
	doc_ctx_release(&dc);
	free(taken);
	return 0;
}

int score_qrels(const struct qrels *qr, const struct run *run, const char *run_path,
		const struct score_options *o, struct results *out, struct score_summary *sum)
{
	struct hit_ctx c;
	struct doc_ctx dc;

	if (check_unknown(run, "qrels", qr->file ? qr->file : "?", qrels_knows, qr, sum) < 0)
		return -1;
	hit_ctx_init(&c);
	doc_ctx_init(&dc);
	out->set_name = xstrdup(qr->file);
	out->set_digest = NULL;
	if (qr->file) {
		char d[72];

		if (!file_sha256(qr->file, d))
			out->set_digest = xstrdup(d);
	}
	alloc_results(out, o, qr->nr);
	run_results(out, run, run_path);
	for (size_t i = 0; i < qr->nr; i++) {
		const struct qrels_query *qq = &qr->q[i];
		struct question_result *res = &out->q[i];
		struct query_eval probe;

		memset(&probe, 0, sizeof(probe));
		fill_levels(qq, &probe);
		res->id = xstrdup(qq->qid);
		res->answerable = m_num_rel(&probe, 1) > 0;
		score_question(&c, out->has_docs ? &dc : NULL, out, i, qq, run, o, sum);
	}
	finish_results(out, o, sum);
	hit_ctx_release(&c);
	doc_ctx_release(&dc);
	return 0;
}
