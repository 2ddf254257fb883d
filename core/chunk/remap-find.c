/*
 * remap-find: finding the places of a label's evidence in a new corpus (the
 * rules are in remap.h; what the module's files share, remap-internal.h).
 *
 * Chunk texts are searched one at a time: a quote that overlapping windows
 * hold twice is one place, since places are compared in document
 * coordinates (code points), which every chunk with a span knows. A span
 * without a quote (a whole chunk) is at its place when the new chunks show
 * there, byte for byte, the old chunk's text, what they leave uncovered
 * being text no quote needs (span_agrees): the new chunking need not hold
 * it whole, nor cover the white space and markup between its chunks.
 */
#include "chunk/remap-internal.h"
#include "chunk/chunker.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "base/utf8.h"
#include "base/util.h"
#include "set/corpus.h"

#include <stdlib.h>
#include <string.h>

/* ---- the new corpus by document ---- */

static const struct corpus *sort_corpus;
static int cmp_by_start(const void *a, const void *b)
{
	const struct chunk *x = &sort_corpus->chunks[*(const size_t *)a];
	const struct chunk *y = &sort_corpus->chunks[*(const size_t *)b];
	return (x->start > y->start) - (x->start < y->start);
}

void remap_index_docs(struct remapper *r)
{
	for (size_t i = 0; i < r->new->nr; i++) {
		const struct chunk *c = &r->new->chunks[i];
		struct doc_index *di;

		if (!remap_has_span(c))
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
		struct doc_index *di = remap_has_span(c) ? strmap_get(&r->docs, c->doc) : NULL;
		if (di && di->idx[0] == i && di->nr > 1)
			qsort(di->idx, di->nr, sizeof(*di->idx), cmp_by_start);
	}
}

void remap_index_release(struct remapper *r)
{
	struct strmap_entry *ent;

	strmap_for_each(&r->docs, ent) {
		struct doc_index *di = ent->value;
		free(di->idx);
		free(di);
	}
	strmap_clear(&r->docs, 0);
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
		a = utf8_prefix(best->text, strlen(best->text), (size_t)(pos - best->start));
		b = utf8_prefix(best->text, strlen(best->text), (size_t)(upto - best->start));
		strbuf_add(out, best->text + a, b - a);
		pos = upto;
	}
	return 0;
}

/* Return true when the new chunks of document 'doc' agree with 'old', the
 * text of code points [s, e) before: every chunk overlapping the span shows
 * there the same bytes, at least one does, and what no chunk covers is,
 * in 'old', text no quote can need (chunk_text_negligible: white space,
 * markup the chunker left out). The document is then unchanged there. */
static bool span_agrees(const struct remapper *r, const char *doc, long s, long e,
			const char *old)
{
	const struct doc_index *di = strmap_get(&r->docs, doc);
	size_t old_len = strlen(old);
	long upto = s;
	bool any = false;

	if (!di)
		return false;
	for (size_t k = 0; k < di->nr; k++) {
		const struct chunk *c = &r->new->chunks[di->idx[k]];
		long lo = c->start > s ? c->start : s, hi = c->end < e ? c->end : e;
		size_t tl = strlen(c->text), ca, cb, oa, ob;

		if (c->start >= e)
			break;
		if (hi <= lo)
			continue;
		ca = utf8_prefix(c->text, tl, (size_t)(lo - c->start));
		cb = utf8_prefix(c->text, tl, (size_t)(hi - c->start));
		oa = utf8_prefix(old, old_len, (size_t)(lo - s));
		ob = utf8_prefix(old, old_len, (size_t)(hi - s));
		if (cb - ca != ob - oa || memcmp(c->text + ca, old + oa, cb - ca))
			return false;
		if (lo > upto) {
			/* a stretch no chunk covers */
			size_t ga = utf8_prefix(old, old_len, (size_t)(upto - s));
			if (!chunk_text_negligible(doc, old + ga, oa - ga))
				return false;
		}
		if (hi > upto)
			upto = hi;
		any = true;
	}
	if (any && upto < e) {
		size_t ga = utf8_prefix(old, old_len, (size_t)(upto - s));
		if (!chunk_text_negligible(doc, old + ga, old_len - ga))
			return false;
	}
	/* no chunk there, and nothing a quote needs: markup the chunker leaves
	 * out (front matter, a comment) is still in the document, in no chunk */
	return any || chunk_text_negligible(doc, old, old_len);
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
		/* on whole characters */
		a = utf8_floor(text, a);
		b = utf8_ceil(text, strlen(text), b);
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
			long at = remap_has_span(c) ? c->start + (long)utf8_chars(c->text, m.items[i].a) : 0;
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
			p->start = remap_has_span(c) ? c->start + (long)utf8_chars(c->text, best->a) : -1;
			p->end = remap_has_span(c) ? c->start + (long)utf8_chars(c->text, best->b) : -1;
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

int remap_locate(const struct remapper *r, const struct evidence *e, const struct chunk *oc,
		 struct place *p, char **why)
{
	struct strbuf got = STRBUF_INIT;
	char *old_text = NULL;
	const char *key;
	int rc = -1;

	memset(p, 0, sizeof(*p));
	/* the old text of the span, when the old chunk holds it */
	if (oc && e->start >= 0 && remap_has_span(oc) && e->doc && !strcmp(oc->doc, e->doc) &&
	    oc->start <= e->start && e->end <= oc->end) {
		size_t a = utf8_prefix(oc->text, strlen(oc->text), (size_t)(e->start - oc->start));
		size_t b = utf8_prefix(oc->text, strlen(oc->text), (size_t)(e->end - oc->start));
		old_text = xstrndup(oc->text + a, b - a);
	}
	if (e->doc && e->start >= 0 &&
	    (!e->quote && old_text ? span_agrees(r, e->doc, e->start, e->end, old_text)
				   : span_text(r, e->doc, e->start, e->end, &got) == 0)) {
		bool same = e->quote ? shows(got.buf, e->quote, false) : true;
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

		if (remap_has_span(ch)) {
			h.start = ch->start + (long)utf8_chars(ch->text, m.items[i].a);
			h.end = ch->start + (long)utf8_chars(ch->text, m.items[i].b);
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
		if (remap_has_span(ch)) {
			*start = ch->start + (long)utf8_chars(ch->text, m.items[0].a);
			*end = ch->start + (long)utf8_chars(ch->text, m.items[0].b);
		}
	}
	free(m.items);
	norm_release(&nq);
	return found;
}
