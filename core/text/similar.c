/*
 * similar: lexical similarity over the tokens of text.c (see text.h):
 * content words (stop words of the text's language left out), the Jaccard
 * similarity and near-duplicates, the overlap of a question with its chunk,
 * and the longest copied run of tokens. Words are compared by their terms:
 * stemmed with the Snowball stemmer of the text's language (stem.c), as
 * BM25 does, so "gebaut wurden die Häuser" and "wurde das Haus gebaut"
 * share their content words. Term hashes stand for terms; collisions of
 * 64-bit hashes are ignored as negligible.
 *
 * Calls text.c (tokens), lang.c (stop words, detection) and stem.c; none
 * calls back, so tokens stay below languages and languages below
 * similarity.
 */
#include "text/text.h"
#include "text/lang.h"
#include "text/stem.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "base/util.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A sorted, de-duplicated array of token hashes. */
struct hashset {
	uint64_t *h;
	size_t nr;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* A token of a walk, kept (copied: the walk's buffer is gone after it)
 * until the language of the whole text is known. */
struct span {
	size_t off, len;   /* in span_acc.bytes */
};

struct span_acc {
	struct span *items;
	size_t nr, alloc;
	struct strbuf bytes;
	struct lang_evidence ev;
};

static void add_span(const char *w, size_t len, void *data)
{
	struct span_acc *acc = data;

	ALLOC_GROW(acc->items, acc->nr + 1, acc->alloc);
	acc->items[acc->nr].off = acc->bytes.len;
	acc->items[acc->nr++].len = len;
	strbuf_add(&acc->bytes, w, len);
	lang_evidence_add(&acc->ev, w, len);
}

/*
 * The stemmer of the last language each thread asked for, kept between calls
 * (a stemmer holds state: one per thread) and freed when the thread ends:
 * similarity runs over many short texts of one language, and creating a
 * stemmer for each would cost a sixth of the work.
 */
struct stem_cache {
	const struct lang *l;
	struct stemmer *st;   /* NULL: 'l' has no stemmer */
};
static pthread_key_t stem_key;
static pthread_once_t stem_once = PTHREAD_ONCE_INIT;
static bool stem_key_ok;

static void stem_cache_free(void *p)
{
	struct stem_cache *c = p;

	stemmer_free(c->st);
	free(c);
}

static void stem_key_init(void)
{
	stem_key_ok = !pthread_key_create(&stem_key, stem_cache_free);
}

/*
 * Return a stemmer for 'l' (NULL when 'l' has none): this thread's, or,
 * when no thread key could be had, a new one the caller frees ('*owned').
 */
static struct stemmer *stemmer_of(const struct lang *l, bool *owned)
{
	struct stem_cache *c;

	*owned = false;
	pthread_once(&stem_once, stem_key_init);
	c = stem_key_ok ? pthread_getspecific(stem_key) : NULL;
	if (c && c->l == l)
		return c->st;
	if (!c && stem_key_ok) {
		c = xcalloc(1, sizeof(*c));
		if (pthread_setspecific(stem_key, c)) {
			free(c);
			c = NULL;
		}
	}
	if (!c) {
		*owned = true;
		return stemmer_new(l);
	}
	stemmer_free(c->st);
	c->l = l;
	c->st = stemmer_new(l);
	return c->st;
}

void text_each_word(const char *s, size_t len, const struct lang *l,
		    void (*fn)(const char *w, size_t len, const char *term, size_t term_len,
			       bool content, void *data), void *data)
{
	struct span_acc acc;
	struct stemmer *st;
	bool owned = false;

	memset(&acc, 0, sizeof(acc));
	strbuf_init(&acc.bytes, len + 1);
	text_each_token(s, len, add_span, &acc);
	if (!l)
		l = lang_evidence_result(&acc.ev);
	st = acc.nr ? stemmer_of(l, &owned) : NULL;
	for (size_t i = 0; i < acc.nr; i++) {
		const char *w = acc.bytes.buf + acc.items[i].off, *term = w;
		size_t wlen = acc.items[i].len, tlen = wlen;

		if (st)
			term = stemmer_stem(st, w, wlen, &tlen);
		fn(w, wlen, term, tlen, !lang_is_stopword(l, w, wlen), data);
	}
	if (owned)
		stemmer_free(st);
	free(acc.items);
	strbuf_release(&acc.bytes);
}

struct hash_acc {
	uint64_t *h;
	size_t nr, alloc;
	int all;
};

static void add_hash(const char *w, size_t len, const char *term, size_t term_len, bool content,
		     void *data)
{
	struct hash_acc *acc = data;

	(void)w;
	(void)len;
	if (acc->all || content) {
		ALLOC_GROW(acc->h, acc->nr + 1, acc->alloc);
		acc->h[acc->nr++] = strhash(term, term_len);
	}
}

uint64_t *text_word_hashes(const char *s, size_t len, bool all, size_t *nr)
{
	struct hash_acc acc = { NULL, 0, 0, all };
	size_t u = 0;

	text_each_word(s, len, NULL, add_hash, &acc);
	ALLOC_GROW(acc.h, 1, acc.alloc);  /* never NULL */
	qsort(acc.h, acc.nr, sizeof(uint64_t), cmp_u64);
	for (size_t i = 0; i < acc.nr; i++)
		if (!u || acc.h[u - 1] != acc.h[i])
			acc.h[u++] = acc.h[i];
	*nr = u;
	return acc.h;
}

/* Fill 'hs' with the hashes of the content words of 's' (all words when 'all'). */
static void hashset_of(const char *s, int all, struct hashset *hs)
{
	hs->h = text_word_hashes(s, strlen(s), all, &hs->nr);
}

static bool hashset_has(const struct hashset *hs, uint64_t h)
{
	return bsearch(&h, hs->h, hs->nr, sizeof(uint64_t), cmp_u64) != NULL;
}

double text_similarity(const char *a, const char *b)
{
	struct hashset x, y;
	size_t inter = 0, uni;
	double sim;

	hashset_of(a, 0, &x);
	hashset_of(b, 0, &y);
	if (!x.nr && !y.nr) {
		/* only stop words on both sides: compare every word */
		free(x.h);
		free(y.h);
		hashset_of(a, 1, &x);
		hashset_of(b, 1, &y);
	}
	for (size_t i = 0; i < x.nr; i++)
		inter += hashset_has(&y, x.h[i]);
	uni = x.nr + y.nr - inter;
	sim = uni ? (double)inter / (double)uni : 1.0;
	free(x.h);
	free(y.h);
	return sim;
}

bool text_near_duplicate(const char *a, const char *b, double threshold)
{
	char *na = text_normalize(a, strlen(a));
	char *nb = text_normalize(b, strlen(b));
	bool same = !strcmp(na, nb);

	free(na);
	free(nb);
	return same || text_similarity(a, b) >= threshold;
}

double text_overlap(const char *question, const char *chunk)
{
	struct hashset q, c;
	size_t found = 0;
	double share;

	hashset_of(question, 0, &q);
	if (!q.nr) {
		free(q.h);
		return 0.0;
	}
	hashset_of(chunk, 1, &c);
	for (size_t i = 0; i < q.nr; i++)
		found += hashset_has(&c, q.h[i]);
	share = (double)found / (double)q.nr;
	free(q.h);
	free(c.h);
	return share;
}

/* The term hashes of every token of a text, in order. */
struct term_seq {
	uint64_t *h;
	size_t nr, alloc;
};

static void add_term(const char *w, size_t len, const char *term, size_t term_len, bool content,
		     void *data)
{
	struct term_seq *t = data;

	(void)w;
	(void)len;
	(void)content;
	ALLOC_GROW(t->h, t->nr + 1, t->alloc);
	t->h[t->nr++] = strhash(term, term_len);
}

double text_copied_share(const char *question, const char *chunk)
{
	struct term_seq tq = { NULL, 0, 0 }, tc = { NULL, 0, 0 };
	size_t *prev, *cur, best = 0;
	double share;

	text_each_word(question, strlen(question), NULL, add_term, &tq);
	text_each_word(chunk, strlen(chunk), NULL, add_term, &tc);
	if (!tq.nr || !tc.nr) {
		free(tq.h);
		free(tc.h);
		return 0.0;
	}
	/* longest common run of consecutive terms, by dynamic programming */
	prev = xcalloc(tc.nr + 1, sizeof(*prev));
	cur = xcalloc(tc.nr + 1, sizeof(*cur));
	for (size_t i = 1; i <= tq.nr; i++) {
		size_t *tmp;
		for (size_t j = 1; j <= tc.nr; j++) {
			cur[j] = tq.h[i - 1] == tc.h[j - 1] ? prev[j - 1] + 1 : 0;
			if (cur[j] > best)
				best = cur[j];
		}
		tmp = prev;
		prev = cur;
		cur = tmp;
	}
	share = (double)best / (double)tq.nr;
	free(prev);
	free(cur);
	free(tq.h);
	free(tc.h);
	return share;
}
