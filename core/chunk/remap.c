/*
 * remap: locating each label's evidence in a new corpus and turning the
 * chunks that cover it into labels (the rules are in remap.h).
 *
 * Chunk texts are searched one at a time: a quote that overlapping windows
 * hold twice is one place, since places are compared in document
 * coordinates (code points), which every chunk with a span knows.
 */
#include "chunk/remap.h"
#include "base/error.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "base/util.h"
#include "set/corpus.h"
#include "set/corpuscheck.h"
#include "set/set.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const outcome_names[] = { "1:1", "1:n", "stale", "not mappable" };

const char *remap_outcome_name(enum remap_outcome o)
{
	return (size_t)o < ARRAY_SIZE(outcome_names) ? outcome_names[o] : "";
}

void remap_report_release(struct remap_report *r)
{
	for (size_t i = 0; i < r->nr; i++) {
		free(r->labels[i].question);
		free(r->labels[i].chunk);
		free(r->labels[i].why);
		for (size_t k = 0; k < r->labels[i].nr_chunks; k++)
			free(r->labels[i].chunks[k]);
		free(r->labels[i].chunks);
	}
	free(r->labels);
	memset(r, 0, sizeof(*r));
}

/* ---- code points ---- */

static size_t cp_count(const char *s, size_t bytes)
{
	size_t n = 0;

	for (size_t i = 0; i < bytes && s[i]; i++)
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	return n;
}

/* Return the byte offset of code point 'cp' in 's' (its length when past the end). */
static size_t cp_byte(const char *s, size_t cp)
{
	size_t i = 0, n = 0;

	for (; s[i]; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80) {
			if (n == cp)
				return i;
			n++;
		}
	}
	return i;
}

static bool has_span(const struct chunk *c)
{
	return c->doc && c->start >= 0 && c->end >= c->start;
}

/* ---- the new corpus by document ---- */

struct doc_index {
	size_t *idx;   /* chunks of one document with a span, by start */
	size_t nr, alloc;
};

struct remapper {
	const struct corpus *old, *new;
	struct strmap docs;   /* doc -> struct doc_index * */
};

static const struct corpus *sort_corpus;
static int cmp_by_start(const void *a, const void *b)
{
	const struct chunk *x = &sort_corpus->chunks[*(const size_t *)a];
	const struct chunk *y = &sort_corpus->chunks[*(const size_t *)b];
	return (x->start > y->start) - (x->start < y->start);
}

static void index_docs(struct remapper *r)
{
	for (size_t i = 0; i < r->new->nr; i++) {
		const struct chunk *c = &r->new->chunks[i];
		struct doc_index *di;

		if (!has_span(c))
			continue;
		di = strmap_get(&r->docs, c->doc);
		if (!di) {
			di = xcalloc(1, sizeof(*di));
			strmap_put(&r->docs, c->doc, di);
		}
		ALLOC_GROW(di->idx, di->nr + 1, di->alloc);
		di->idx[di->nr++] = i;
	}
	sort_corpus = r->new;
	for (size_t i = 0; i < r->new->nr; i++) {
		const struct chunk *c = &r->new->chunks[i];
		struct doc_index *di = has_span(c) ? strmap_get(&r->docs, c->doc) : NULL;
		if (di && di->idx[0] == i && di->nr > 1)
			qsort(di->idx, di->nr, sizeof(*di->idx), cmp_by_start);
	}
}

static void free_doc_index(void *v)
{
	struct doc_index *di = v;
	free(di->idx);
	free(di);
}

/* Append the text of code points [s, e) of document 'doc' as the new
 * chunks show it to 'out'. A stretch no chunk covers (the white space
 * between sentence chunks) shows as one space: a gap that held words makes
 * the text differ from the old one, so it is never taken for the same.
 * Return 0, or -1 when no chunk covers the start or the end of the span. */
static int span_text(const struct remapper *r, const char *doc, long s, long e,
		     struct strbuf *out)
{
	const struct doc_index *di = strmap_get(&r->docs, doc);
	long pos = s;

	if (!di)
		return -1;
	while (pos < e) {
		const struct chunk *best = NULL;
		size_t a, b;
		long upto;

		for (size_t k = 0; k < di->nr; k++) {
			const struct chunk *c = &r->new->chunks[di->idx[k]];
			if (c->start > pos)
				break;
			if (c->end > pos && (!best || c->end > best->end))
				best = c;
		}
		if (!best) {
			const struct chunk *next = NULL;

			for (size_t k = 0; k < di->nr && !next; k++) {
				const struct chunk *c = &r->new->chunks[di->idx[k]];
				if (c->start > pos && c->start < e)
					next = c;
			}
			if (!next || pos == s)
				return -1;
			strbuf_addch(out, ' ');
			pos = next->start;
			continue;
		}
		upto = best->end < e ? best->end : e;
		a = cp_byte(best->text, (size_t)(pos - best->start));
		b = cp_byte(best->text, (size_t)(upto - best->start));
		strbuf_add(out, best->text + a, b - a);
		pos = upto;
	}
	return 0;
}

/* ---- white space and fuzzy matching ---- */

static bool ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* 's' with white space runs as one space, trimmed, and where each byte came from. */
struct norm {
	char *s;
	size_t *from;
	size_t len;
};

static void normalize(const char *s, struct norm *n)
{
	size_t len = strlen(s), o = 0;
	bool space = false;

	n->s = xmalloc(len + 1);
	n->from = xcalloc(len + 1, sizeof(*n->from));
	for (size_t i = 0; i < len; i++) {
		if (ws(s[i])) {
			space = o > 0;
			continue;
		}
		if (space) {
			n->from[o] = i;
			n->s[o++] = ' ';
			space = false;
		}
		n->from[o] = i;
		n->s[o++] = s[i];
	}
	n->s[o] = '\0';
	n->len = o;
}

static void norm_release(struct norm *n)
{
	free(n->s);
	free(n->from);
}

/* A match of the quote in one chunk text: bytes [a, b), and its distance. */
struct match {
	size_t chunk;
	size_t a, b;
	long dist;
};

struct matches {
	struct match *items;
	size_t nr, alloc;
};

static void add_match(struct matches *m, size_t chunk, size_t a, size_t b, long dist)
{
	ALLOC_GROW(m->items, m->nr + 1, m->alloc);
	m->items[m->nr].chunk = chunk;
	m->items[m->nr].a = a;
	m->items[m->nr].b = b;
	m->items[m->nr].dist = dist;
	m->nr++;
}

enum search_mode { SEARCH_EXACT, SEARCH_SPACE, SEARCH_FUZZY };

/* Keep [a, b) on whole UTF-8 characters of 's'. */
static void char_bounds(const char *s, size_t *a, size_t *b)
{
	while (*a > 0 && ((unsigned char)s[*a] & 0xc0) == 0x80)
		(*a)--;
	while (s[*b] && ((unsigned char)s[*b] & 0xc0) == 0x80)
		(*b)++;
}

/* Add the best approximate match of 'q' (normalised) in 'h' (normalised
 * chunk text) within 'kmax' edits, Sellers' algorithm. */
static void fuzzy_in(const struct norm *h, const struct norm *q, long kmax, size_t chunk,
		     const char *text, struct matches *out)
{
	size_t m = q->len;
	long *col = xcalloc(m + 1, sizeof(*col)), best = kmax + 1;
	size_t *st = xcalloc(m + 1, sizeof(*st)), best_a = 0, best_b = 0;

	for (size_t i = 0; i <= m; i++)
		col[i] = (long)i;
	for (size_t j = 1; j <= h->len; j++) {
		long diag = col[0], dstart = (long)st[0];
		col[0] = 0;
		st[0] = j;
		for (size_t i = 1; i <= m; i++) {
			long up = col[i], v = diag + (q->s[i - 1] != h->s[j - 1]);
			size_t vs = (size_t)dstart;
			if (col[i - 1] + 1 < v) {
				v = col[i - 1] + 1;
				vs = st[i - 1];
			}
			if (up + 1 < v) {
				v = up + 1;
				vs = st[i];
			}
			diag = up;
			dstart = (long)st[i];
			col[i] = v;
			st[i] = vs;
		}
		if (col[m] < best) {
			best = col[m];
			best_a = st[m];
			best_b = j;
		}
	}
	if (best <= kmax && best_b > best_a) {
		size_t a = h->from[best_a], b = h->from[best_b - 1] + 1;
		char_bounds(text, &a, &b);
		add_match(out, chunk, a, b, best);
	}
	free(col);
	free(st);
}

/* Add every match of 'quote' in chunk 'i' of 'c' under 'mode'. */
static void search_chunk(const struct corpus *c, size_t i, const char *quote,
			 const struct norm *nq, enum search_mode mode, struct matches *out)
{
	const char *text = c->chunks[i].text;

	if (mode == SEARCH_EXACT) {
		size_t ql = strlen(quote);
		for (const char *p = strstr(text, quote); p && ql; p = strstr(p + 1, quote))
			add_match(out, i, (size_t)(p - text), (size_t)(p - text) + ql, 0);
		return;
	}
	if (!nq->len)
		return;
	{
		struct norm h;
		normalize(text, &h);
		if (mode == SEARCH_SPACE) {
			for (const char *p = strstr(h.s, nq->s); p; p = strstr(p + 1, nq->s)) {
				size_t a = (size_t)(p - h.s), b = a + nq->len;
				add_match(out, i, h.from[a], h.from[b - 1] + 1, 0);
			}
		} else {
			fuzzy_in(&h, nq, (long)nq->len / 5, i, text, out);
		}
		norm_release(&h);
	}
}

/* ---- locating evidence ---- */

struct place {
	const char *doc;      /* borrowed from the new corpus */
	long start, end;      /* code points; -1 when the chunk has no span */
	size_t chunk;         /* a chunk holding it (for chunks without spans) */
	char *quote;          /* the text there (owned), or NULL */
	bool moved;
};

/* Find 'key' in the new corpus, 'doc' first. Fill 'p' and return 0, or -1. */
static int search(const struct remapper *r, const char *key, const char *doc, long near,
		  struct place *p)
{
	static const struct { enum search_mode mode; bool own_doc; } passes[] = {
		{ SEARCH_EXACT, true }, { SEARCH_EXACT, false }, { SEARCH_SPACE, true },
		{ SEARCH_SPACE, false }, { SEARCH_FUZZY, true },
	};
	struct matches m = { NULL, 0, 0 };
	struct norm nq;
	int rc = -1;

	normalize(key, &nq);
	for (size_t k = 0; k < ARRAY_SIZE(passes) && !m.nr; k++) {
		if (passes[k].mode == SEARCH_FUZZY && (nq.len < 16 || nq.len > 2000 || !doc))
			continue;
		for (size_t i = 0; i < r->new->nr; i++) {
			const struct chunk *c = &r->new->chunks[i];
			bool own = doc && c->doc && !strcmp(c->doc, doc);
			if (own == passes[k].own_doc || (!passes[k].own_doc && !doc))
				search_chunk(r->new, i, key, &nq, passes[k].mode, &m);
		}
	}
	if (m.nr) {
		/* the fewest edits first, a place in another document (or with no
		 * place to be near) counting as two more edits, then the nearest to
		 * where the evidence was */
		const struct match *best = NULL;
		long best_rank = 0, best_d = 0;
		for (size_t i = 0; i < m.nr; i++) {
			const struct chunk *c = &r->new->chunks[m.items[i].chunk];
			long at = has_span(c) ? c->start + (long)cp_count(c->text, m.items[i].a) : 0;
			bool near_own = near >= 0 && doc && c->doc && !strcmp(c->doc, doc);
			long rank = m.items[i].dist + (near_own ? 0 : 2);
			long d = near_own ? labs(at - near) : 0;
			if (!best || rank < best_rank || (rank == best_rank && d < best_d)) {
				best = &m.items[i];
				best_rank = rank;
				best_d = d;
			}
		}
		{
			const struct chunk *c = &r->new->chunks[best->chunk];
			p->doc = c->doc;
			p->chunk = best->chunk;
			p->start = has_span(c) ? c->start + (long)cp_count(c->text, best->a) : -1;
			p->end = has_span(c) ? c->start + (long)cp_count(c->text, best->b) : -1;
			p->quote = xstrndup(c->text + best->a, best->b - best->a);
		}
		rc = 0;
	}
	free(m.items);
	norm_release(&nq);
	return rc;
}

/* True when 'got' shows 'want' (white space runs as one space). */
static bool shows(const char *got, const char *want, bool whole)
{
	struct norm g, w;
	bool ok;

	normalize(got, &g);
	normalize(want, &w);
	ok = whole ? !strcmp(g.s, w.s) : w.len && strstr(g.s, w.s) != NULL;
	norm_release(&g);
	norm_release(&w);
	return ok;
}

/*
 * Locate evidence 'e' (of old chunk 'oc', may be NULL) in the new corpus.
 * Return 0 with 'p' filled, or -1 with '*why' set (stale).
 */
static int locate(const struct remapper *r, const struct evidence *e, const struct chunk *oc,
		  struct place *p, char **why)
{
	struct strbuf got = STRBUF_INIT;
	char *old_text = NULL;
	const char *key;
	int rc = -1;

	memset(p, 0, sizeof(*p));
	/* the old text of the span, when the old chunk holds it */
	if (oc && e->start >= 0 && has_span(oc) && e->doc && !strcmp(oc->doc, e->doc) &&
	    oc->start <= e->start && e->end <= oc->end) {
		size_t a = cp_byte(oc->text, (size_t)(e->start - oc->start));
		size_t b = cp_byte(oc->text, (size_t)(e->end - oc->start));
		old_text = xstrndup(oc->text + a, b - a);
	}
	if (e->doc && e->start >= 0 && span_text(r, e->doc, e->start, e->end, &got) == 0) {
		bool same = e->quote ? shows(got.buf, e->quote, false)
			    : old_text ? shows(got.buf, old_text, true) : true;
		if (same) {
			const struct doc_index *di = strmap_get(&r->docs, e->doc);
			p->doc = r->new->chunks[di->idx[0]].doc;
			p->start = e->start;
			p->end = e->end;
			p->quote = xstrdup(e->quote);
			rc = 0;
			goto out;
		}
	}
	key = e->quote ? e->quote : old_text;
	if (!key) {
		*why = xstrfmt("no quote, and its span (%s %ld..%ld) is not in the new corpus",
			       e->doc ? e->doc : "?", e->start, e->end);
		goto out;
	}
	if (search(r, key, e->doc, e->start, p) == 0) {
		p->moved = true;
		if (!e->quote) {
			free(p->quote);
			p->quote = NULL;
		}
		rc = 0;
		goto out;
	}
	*why = e->quote ? xstrfmt("quote \"%.60s%s\" is no longer in the documents", e->quote,
				  strlen(e->quote) > 60 ? "..." : "")
			: xstrfmt("the text of its span (%s %ld..%ld) is no longer in the documents",
				  e->doc ? e->doc : "?", e->start, e->end);
out:
	free(old_text);
	strbuf_release(&got);
	return rc;
}

/* A set of new chunk indexes, kept small (the chunks one label maps to). */
struct targets {
	size_t *v;
	size_t nr, alloc;
};

static void target_add(struct targets *t, size_t i)
{
	for (size_t k = 0; k < t->nr; k++)
		if (t->v[k] == i)
			return;
	ALLOC_GROW(t->v, t->nr + 1, t->alloc);
	t->v[t->nr++] = i;
}

/* Add to 'out' the new chunks covering place 'p'; set '*split' when none
 * holds it whole. */
static void cover(const struct remapper *r, const struct place *p, struct targets *out,
		  bool *split)
{
	const struct doc_index *di = p->doc && p->start >= 0 ? strmap_get(&r->docs, p->doc) : NULL;
	size_t whole = 0;

	*split = false;
	if (!di) {
		target_add(out, p->chunk);
		return;
	}
	for (size_t k = 0; k < di->nr; k++) {
		const struct chunk *c = &r->new->chunks[di->idx[k]];
		if (c->start <= p->start && p->end <= c->end) {
			target_add(out, di->idx[k]);
			whole++;
		}
	}
	if (whole)
		return;
	for (size_t k = 0; k < di->nr; k++) {
		const struct chunk *c = &r->new->chunks[di->idx[k]];
		long lo = c->start > p->start ? c->start : p->start;
		long hi = c->end < p->end ? c->end : p->end;
		if (hi <= lo)
			continue;
		if (2 * (hi - lo) >= p->end - p->start || 2 * (hi - lo) >= c->end - c->start) {
			target_add(out, di->idx[k]);
			*split = true;
		}
	}
}

/* ---- the set ---- */

static struct remap_label *add_label(struct remap_report *rep, const char *q, const char *chunk)
{
	struct remap_label *l;

	ALLOC_GROW(rep->labels, rep->nr + 1, rep->alloc);
	l = &rep->labels[rep->nr++];
	memset(l, 0, sizeof(*l));
	l->question = xstrdup(q);
	l->chunk = xstrdup(chunk);
	return l;
}

static void set_grade(struct question *q, const char *chunk, int grade)
{
	int have = question_grade(q, chunk);
	if (have < grade)
		question_set_label(q, chunk, grade);
}

static void add_new_evidence(struct question *q, const char *chunk, const struct place *p)
{
	struct evidence e = { (char *)chunk, (char *)p->doc, p->start, p->end, p->quote, 0, 0 };

	if (p->start < 0 && !p->quote)
		return;
	for (size_t i = 0; i < q->nr_evidence; i++) {
		const struct evidence *x = &q->evidence[i];
		if (!strcmp(x->chunk, chunk) && x->start == p->start && x->end == p->end &&
		    !!x->quote == !!p->quote && (!x->quote || !strcmp(x->quote, p->quote)))
			return;
	}
	question_add_evidence(q, &e);
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

/* Locate 'e', add the chunks covering it to 't' and their evidence to 'nq'.
 * Return 0, or -1 when stale (with '*why'). */
static int map_entry(const struct remapper *r, const struct evidence *e, const struct chunk *oc,
		     struct question *nq, struct targets *t, struct remap_label *rl, char **why)
{
	struct place p;
	size_t before = t->nr;
	bool split;

	if (locate(r, e, oc, &p, why) < 0)
		return -1;
	cover(r, &p, t, &split);
	rl->split |= split;
	rl->moved |= p.moved;
	for (size_t k = before; k < t->nr; k++)
		add_new_evidence(nq, r->new->chunks[t->v[k]].id, &p);
	free(p.quote);
	return 0;
}

/* Map label 'l' of 'q' into 'nq'; record the outcome in 'rl'. */
static void remap_label(const struct remapper *r, const struct question *q,
			const struct label *l, struct question *nq, struct remap_label *rl)
{
	const struct chunk *oc = r->old ? corpus_get(r->old, l->chunk) : NULL;
	struct targets t = { NULL, 0, 0 };
	size_t nr_entries = 0, stale = 0;
	char *why = NULL;

	for (size_t i = 0; i < q->nr_evidence; i++) {
		char *w = NULL;

		if (strcmp(q->evidence[i].chunk, l->chunk))
			continue;
		nr_entries++;
		if (map_entry(r, &q->evidence[i], oc, nq, &t, rl, &w) < 0) {
			stale++;
			free(why);
			why = w;
		}
	}
	if (!nr_entries && oc && has_span(oc)) {
		/* no evidence: the old chunk's own span stands for it */
		struct evidence derived = { l->chunk, oc->doc, oc->start, oc->end, NULL, 0, 0 };
		nr_entries++;
		if (map_entry(r, &derived, oc, nq, &t, rl, &why) < 0)
			stale++;
	}
	if (t.nr > 1)
		qsort(t.v, t.nr, sizeof(*t.v), cmp_size);
	rl->chunks = t.nr ? xcalloc(t.nr, sizeof(*rl->chunks)) : NULL;
	for (size_t k = 0; k < t.nr; k++) {
		const char *id = r->new->chunks[t.v[k]].id;
		rl->chunks[rl->nr_chunks++] = xstrdup(id);
		set_grade(nq, id, l->grade);
	}
	free(t.v);
	if (rl->nr_chunks) {
		rl->outcome = rl->nr_chunks == 1 ? REMAP_ONE : REMAP_MANY;
		free(why);
	} else if (!nr_entries) {
		rl->outcome = REMAP_UNMAPPABLE;
		free(why);
		if (oc) {
			rl->why = xstrdup("no evidence, and the old chunk has no span (doc, start, end)");
		} else {
			struct strbuf sb = STRBUF_INIT;

			strbuf_addstr(&sb, "no evidence, and the chunk is not in the old corpus");
			if (r->old)
				corpus_did_you_mean(r->old, l->chunk, &sb);
			rl->why = strbuf_detach(&sb, NULL);
		}
	} else if (stale == nr_entries) {
		rl->outcome = REMAP_STALE;
		rl->why = why;
	} else {
		rl->outcome = REMAP_UNMAPPABLE;
		free(why);
		rl->why = xstrdup("its evidence falls between the chunks of the new corpus");
	}
}

static cJSON *string_array(char **items, size_t nr)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < nr; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(items[i]));
	return a;
}

/* Record in the provenance of 'nq' where its labels came from. */
static void note_provenance(struct question *nq, const char *from, const char *old_fp,
			    const struct remap_label *rl, size_t nr)
{
	cJSON *o = cJSON_CreateObject(), *labels = cJSON_CreateObject();
	cJSON *split = cJSON_CreateArray(), *stale = cJSON_CreateArray();
	cJSON *unmapped = cJSON_CreateArray();

	cJSON_AddStringToObject(o, "from", from);
	if (old_fp)
		cJSON_AddStringToObject(o, "corpus", old_fp);
	for (size_t i = 0; i < nr; i++) {
		cJSON_AddItemToObject(labels, rl[i].chunk, string_array(rl[i].chunks, rl[i].nr_chunks));
		if (rl[i].split)
			cJSON_AddItemToArray(split, cJSON_CreateString(rl[i].chunk));
		if (rl[i].outcome == REMAP_STALE)
			cJSON_AddItemToArray(stale, cJSON_CreateString(rl[i].chunk));
		if (rl[i].outcome == REMAP_UNMAPPABLE)
			cJSON_AddItemToArray(unmapped, cJSON_CreateString(rl[i].chunk));
	}
	cJSON_AddItemToObject(o, "labels", labels);
	if (cJSON_GetArraySize(split))
		cJSON_AddItemToObject(o, "split", split);
	else
		cJSON_Delete(split);
	if (cJSON_GetArraySize(stale))
		cJSON_AddItemToObject(o, "stale", stale);
	else
		cJSON_Delete(stale);
	if (cJSON_GetArraySize(unmapped))
		cJSON_AddItemToObject(o, "unmapped", unmapped);
	else
		cJSON_Delete(unmapped);
	if (!nq->provenance)
		nq->provenance = cJSON_CreateObject();
	cJSON_DeleteItemFromObjectCaseSensitive(nq->provenance, "remapped_from");
	cJSON_AddItemToObject(nq->provenance, "remapped_from", o);
}

static void add_tag(struct question *q, const char *tag)
{
	if (question_has_tag(q, tag))
		return;
	ALLOC_GROW(q->tags, q->nr_tags + 1, q->alloc_tags);
	q->tags[q->nr_tags++] = xstrdup(tag);
}

int remap_set(const struct set *s, const struct corpus *old, const struct corpus *new,
	      const char *from, struct set *out, struct remap_report *rep)
{
	struct remapper r = { old, new, STRMAP_INIT };
	char fp[72], old_fp[72];

	index_docs(&r);
	corpus_fingerprint(new, fp);
	if (old)
		corpus_fingerprint(old, old_fp);
	out->schema = s->schema;
	out->name = xstrdup(s->name);
	out->description = xstrdup(s->description);
	out->note = xstrfmt("labels remapped from %s to the corpus %s", from, fp);
	out->has_corpus = true;
	out->corpus.fingerprint = xstrdup(fp);
	out->corpus.chunks = (long)new->nr;
	for (size_t i = 0; i < s->nr; i++) {
		const struct question *q = &s->q[i];
		struct question *nq = set_append(out);
		size_t first = rep->nr, stale = 0;

		question_copy(nq, q);
		for (size_t k = 0; k < nq->nr_relevant; k++)
			free(nq->relevant[k].chunk);
		nq->nr_relevant = 0;
		question_clear_evidence(nq);
		for (size_t k = 0; k < nq->nr_irrelevant; k++)
			free(nq->irrelevant[k]);
		rep->dropped_irrelevant += nq->nr_irrelevant;
		nq->nr_irrelevant = 0;
		nq->relevant_as_list = q->relevant_as_list;
		for (size_t k = 0; k < q->nr_relevant; k++) {
			struct remap_label *rl = add_label(rep, q->id ? q->id : "", q->relevant[k].chunk);
			remap_label(&r, q, &q->relevant[k], nq, rl);
			rep->count[rl->outcome]++;
			rep->moved += rl->moved;
			stale += rl->outcome == REMAP_STALE;
		}
		if (q->nr_relevant)
			note_provenance(nq, from, old ? old_fp : NULL, rep->labels + first,
					rep->nr - first);
		if (q->nr_relevant && !nq->nr_relevant) {
			nq->answerable = false;
			add_tag(nq, stale == q->nr_relevant ? "stale" : "unmapped");
			rep->emptied++;
		}
	}
	{
		struct strmap_entry *ent;
		strmap_for_each(&r.docs, ent)
			free_doc_index(ent->value);
		strmap_clear(&r.docs, 0);
	}
	return 0;
}

size_t remap_find_quote(const struct corpus *c, const char *quote, struct quote_hit *hits,
			size_t max)
{
	struct matches m = { NULL, 0, 0 };
	struct norm nq;
	size_t found = 0;

	normalize(quote, &nq);
	for (int mode = SEARCH_EXACT; mode <= SEARCH_SPACE && !m.nr; mode++)
		for (size_t i = 0; i < c->nr; i++)
			search_chunk(c, i, quote, &nq, (enum search_mode)mode, &m);
	for (size_t i = 0; i < m.nr; i++) {
		const struct chunk *ch = &c->chunks[m.items[i].chunk];
		struct quote_hit h = { m.items[i].chunk, ch->doc, -1, -1 };
		bool seen = false;

		if (has_span(ch)) {
			h.start = ch->start + (long)cp_count(ch->text, m.items[i].a);
			h.end = ch->start + (long)cp_count(ch->text, m.items[i].b);
		}
		for (size_t k = 0; k < found && k < max && !seen; k++)
			seen = h.start >= 0 && hits[k].start == h.start && hits[k].doc &&
			       !strcmp(hits[k].doc, h.doc);
		if (seen)
			continue;
		if (found < max)
			hits[found] = h;
		found++;
	}
	free(m.items);
	norm_release(&nq);
	return found;
}

char *remap_quote_in_chunk(const struct chunk *ch, const char *quote, long *start, long *end)
{
	struct corpus one = CORPUS_INIT;
	struct matches m = { NULL, 0, 0 };
	struct norm nq;
	char *found = NULL;

	*start = *end = -1;
	/* search_chunk reads chunks through a corpus: one of one chunk */
	one.chunks = (struct chunk *)ch;
	one.nr = 1;
	normalize(quote, &nq);
	for (int mode = SEARCH_EXACT; mode <= SEARCH_SPACE && !m.nr; mode++)
		search_chunk(&one, 0, quote, &nq, (enum search_mode)mode, &m);
	if (m.nr && m.items[0].b > m.items[0].a) {
		found = xstrndup(ch->text + m.items[0].a, m.items[0].b - m.items[0].a);
		if (has_span(ch)) {
			*start = ch->start + (long)cp_count(ch->text, m.items[0].a);
			*end = ch->start + (long)cp_count(ch->text, m.items[0].b);
		}
	}
	free(m.items);
	norm_release(&nq);
	return found;
}

int remap_judge_set(const struct set *s, const char *set_dir, const char *from, const char *path,
		    struct set *out, char **fingerprint)
{
	struct corpus old = CORPUS_INIT, other = CORPUS_INIT;
	struct remap_report rep = REMAP_REPORT_INIT;
	char fp[72];
	size_t lost;
	int has_old, rc = -1;

	has_old = set_corpus_load(s, set_dir, &old);
	if (has_old < 0 || corpus_load(&other, path) < 0)
		goto out;
	remap_set(s, has_old > 0 ? &old : NULL, &other, from, out, &rep);
	lost = rep.count[REMAP_STALE] + rep.count[REMAP_UNMAPPABLE];
	if (lost)
		warning("%zu of %zu labels cannot be judged on '%s' (%zu stale, %zu not mappable; "
			"'evalset remap' lists them)", lost, rep.nr, path, rep.count[REMAP_STALE],
			rep.count[REMAP_UNMAPPABLE]);
	out->version = s->version ? xstrdup(s->version) : NULL;
	out->file = s->file ? xstrdup(s->file) : NULL;
	corpus_fingerprint(&other, fp);
	*fingerprint = xstrdup(fp);
	rc = 0;
out:
	remap_report_release(&rep);
	corpus_release(&old);
	corpus_release(&other);
	return rc;
}
