/*
 * bm25: inverted index and exact top-k BM25 search (see bm25.h for the
 * analysis, the formula and the tie order).
 *
 * Build: chunks are analysed in corpus order, so each term's postings come
 * out sorted by chunk index without a sort: a token whose term's last
 * posting is the current chunk bumps its tf, any other starts a posting.
 * The stop list and the stemmer run once per distinct token, not per
 * occurrence (a map from token to term remembers their verdict).
 * Everything a query needs per chunk (k1 * (1 - b + b * dl / avgdl)) and per
 * term (idf) is computed once at the end of the build.
 *
 * Search: term-at-a-time accumulation into a dense score array (one slot per
 * chunk), remembering which chunks were touched; every contribution is > 0
 * (idf > 0 and tf >= 1), so a zero slot means "not matched yet". The touched
 * chunks go through a bounded heap of 'k' whose root is the worst kept hit.
 */
#include "retrieve/bm25.h"
#include "set/corpus.h"
#include "base/error.h"
#include "base/strbuf.h"
#include "text/lang.h"
#include "text/stem.h"
#include "text/text.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct analysis {
	const struct lang *lang;
	struct stemmer *st;   /* NULL: no stemming */
	struct tokens *out;
};

static void analyze_word(const char *w, size_t len, void *data)
{
	struct analysis *an = data;
	size_t n;
	const char *stem;

	if (lang_is_stopword(an->lang, w, len))
		return;
	stem = stemmer_stem(an->st, w, len, &n);
	ALLOC_GROW(an->out->items, an->out->nr + 1, an->out->alloc);
	an->out->items[an->out->nr++] = xstrndup(stem, n);
}

bool bm25_stems(const struct bm25 *ix)
{
	return ix->params.stem && ix->lang && lang_stemmer_name(ix->lang);
}

void bm25_analyze(const struct bm25 *ix, const char *s, size_t len, struct tokens *out)
{
	/* a stemmer of its own: searches may run on several threads at once */
	struct analysis an = { ix->lang ? ix->lang : lang_und(),
			       bm25_stems(ix) ? stemmer_new(ix->lang) : NULL, out };

	text_each_token(s, len, analyze_word, &an);
	stemmer_free(an.st);
}

/* Return the index of term 'w' in ix->terms, adding it when new. */
static size_t intern_term(struct bm25 *ix, const char *w, size_t len)
{
	int added;
	struct strmap_entry *e = strmap_intern(&ix->dict, w, len, &added);

	if (added) {
		ALLOC_GROW(ix->terms, ix->nr_terms + 1, ix->alloc_terms);
		memset(&ix->terms[ix->nr_terms], 0, sizeof(ix->terms[0]));
		e->value = (void *)(uintptr_t)(++ix->nr_terms);
	}
	return (uintptr_t)e->value - 1;
}

static void add_posting(struct bm25_term *t, uint32_t doc)
{
	if (t->nr && t->post[t->nr - 1].doc == doc) {
		t->post[t->nr - 1].tf++;
		return;
	}
	ALLOC_GROW(t->post, t->nr + 1, t->alloc);
	t->post[t->nr].doc = doc;
	t->post[t->nr].tf = 1;
	t->nr++;
}

#define STOP_WORD ((void *)UINTPTR_MAX)

/*
 * Index the tokens of 'len' bytes of 's' for chunk 'doc'; return how many
 * were indexed. 'seen' maps each token as tokenised to STOP_WORD or its term
 * index + 1, so the stop list and the stemmer 'st' run once per distinct
 * token (the same analysis as bm25_analyze, without repeating it).
 */
static size_t index_text(struct bm25 *ix, struct strmap *seen, struct stemmer *st,
			 struct tokens *tok, const char *s, size_t len, uint32_t doc)
{
	size_t kept = 0;

	tok->nr = 0;
	text_tokenize(s, len, tok);
	for (size_t i = 0; i < tok->nr; i++) {
		char *w = tok->items[i];
		size_t wlen = strlen(w);
		int added;
		struct strmap_entry *e = strmap_intern(seen, w, wlen, &added);

		if (added) {
			if (lang_is_stopword(ix->lang, w, wlen)) {
				e->value = STOP_WORD;
			} else {
				const char *term = stemmer_stem(st, w, wlen, &wlen);
				e->value = (void *)(uintptr_t)(intern_term(ix, term, wlen) + 1);
			}
		}
		if (e->value != STOP_WORD) {
			add_posting(&ix->terms[(uintptr_t)e->value - 1], doc);
			kept++;
		}
		free(w);
	}
	tok->nr = 0;
	return kept;
}

/* Bytes of chunk text lang_detect looks at to find a corpus's language. */
#define DETECT_BYTES (64u << 10)

/* Return the language of the first chunks of 'corpus'. */
static const struct lang *corpus_language(const struct corpus *corpus)
{
	struct strbuf sb = STRBUF_INIT;
	const struct lang *l;

	for (size_t d = 0; d < corpus->nr && sb.len < DETECT_BYTES; d++) {
		strbuf_addstr(&sb, corpus->chunks[d].text);
		strbuf_addch(&sb, '\n');
	}
	l = lang_detect(sb.buf, sb.len);
	strbuf_release(&sb);
	return l;
}

int bm25_build(struct bm25 *ix, const struct corpus *corpus, const struct bm25_params *params)
{
	struct tokens tok = TOKENS_INIT;
	struct strmap seen = STRMAP_INIT;
	struct stemmer *st = NULL;
	size_t n = corpus->nr;
	double total = 0;

	if (!(params->k1 >= 0 && isfinite(params->k1)))
		return error("BM25 k1 must be a number >= 0, not '%g'", params->k1);
	if (!(params->b >= 0 && params->b <= 1))
		return error("BM25 b must be between 0 and 1, not '%g'", params->b);
	if (n > UINT32_MAX)
		return error("corpus too large for the BM25 index: %zu chunks", n);

	ix->params = *params;
	ix->params.language = NULL;
	ix->lang = params->language ? lang_get(params->language) : corpus_language(corpus);
	ix->corpus = corpus;
	if (bm25_stems(ix))
		st = stemmer_new(ix->lang);
	ix->doclen = xcalloc(n ? n : 1, sizeof(*ix->doclen));
	ix->norm = xcalloc(n ? n : 1, sizeof(*ix->norm));
	for (size_t d = 0; d < n; d++) {
		const struct chunk *c = &corpus->chunks[d];
		size_t dl = 0;

		if (c->title)
			dl += index_text(ix, &seen, st, &tok, c->title, strlen(c->title), (uint32_t)d);
		dl += index_text(ix, &seen, st, &tok, c->text, strlen(c->text), (uint32_t)d);
		ix->doclen[d] = (uint32_t)dl;
		total += (double)dl;
	}
	tokens_release(&tok);
	strmap_clear(&seen, 0);
	stemmer_free(st);

	ix->avgdl = n ? total / (double)n : 0;
	for (size_t d = 0; d < n; d++) {
		double rel = ix->avgdl > 0 ? ix->doclen[d] / ix->avgdl : 0;
		ix->norm[d] = params->k1 * (1 - params->b + params->b * rel);
	}
	for (size_t t = 0; t < ix->nr_terms; t++) {
		double df = (double)ix->terms[t].nr;
		ix->terms[t].idf = log(1 + ((double)n - df + 0.5) / (df + 0.5));
	}
	return 0;
}

void bm25_release(struct bm25 *ix)
{
	for (size_t t = 0; t < ix->nr_terms; t++)
		free(ix->terms[t].post);
	free(ix->terms);
	strmap_clear(&ix->dict, 0);
	free(ix->doclen);
	free(ix->norm);
	memset(ix, 0, sizeof(*ix));
	ix->params = (struct bm25_params)BM25_PARAMS_INIT;
	ix->lang = NULL;
}

/* Return true when hit 'a' ranks above hit 'b'. */
static bool ranks_above(const struct corpus *c, const struct bm25_hit *a, const struct bm25_hit *b)
{
	if (a->score != b->score)
		return a->score > b->score;
	return strcmp(c->chunks[a->doc].id, c->chunks[b->doc].id) > 0;
}

/* Restore the heap below 'i': every parent ranks below its children (root = worst). */
static void sift_down(const struct corpus *c, struct bm25_hit *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, w = i;
		struct bm25_hit tmp;

		if (l < n && ranks_above(c, &h[w], &h[l]))
			w = l;
		if (r < n && ranks_above(c, &h[w], &h[r]))
			w = r;
		if (w == i)
			return;
		tmp = h[i];
		h[i] = h[w];
		h[w] = tmp;
		i = w;
	}
}

static void sift_up(const struct corpus *c, struct bm25_hit *h, size_t i)
{
	while (i > 0) {
		size_t p = (i - 1) / 2;
		struct bm25_hit tmp;

		if (!ranks_above(c, &h[p], &h[i]))
			return;
		tmp = h[i];
		h[i] = h[p];
		h[p] = tmp;
		i = p;
	}
}

size_t bm25_search(const struct bm25 *ix, const char *query, size_t k, struct bm25_hit *out)
{
	struct bm25_part one = { query, 1.0 };

	return bm25_search_parts(ix, &one, 1, k, out);
}

size_t bm25_search_parts(const struct bm25 *ix, const struct bm25_part *parts, size_t nr_parts,
			 size_t k, struct bm25_hit *out)
{
	struct tokens tok = TOKENS_INIT;
	size_t n = ix->corpus ? ix->corpus->nr : 0, nr_touched = 0, kept = 0;
	double *acc = NULL;
	uint32_t *touched = NULL;

	if (!k || !n)
		return 0;
	acc = xcalloc(n, sizeof(*acc));
	touched = xmalloc(n * sizeof(*touched));
	for (size_t q = 0; q < nr_parts; q++) {
		if (!parts[q].text || !(parts[q].weight > 0))
			continue;
		tokens_release(&tok);
		bm25_analyze(ix, parts[q].text, strlen(parts[q].text), &tok);
		for (size_t i = 0; i < tok.nr; i++) {
			struct strmap_entry *e = strmap_find(&ix->dict, tok.items[i], strlen(tok.items[i]));
			const struct bm25_term *t;

			if (!e)
				continue;
			t = &ix->terms[(uintptr_t)e->value - 1];
			for (size_t p = 0; p < t->nr; p++) {
				uint32_t d = t->post[p].doc;
				double tf = t->post[p].tf;

				if (acc[d] == 0)  /* idf, tf and weight are all > 0 */
					touched[nr_touched++] = d;
				acc[d] += parts[q].weight * t->idf * tf / (tf + ix->norm[d]);
			}
		}
	}

	for (size_t i = 0; i < nr_touched; i++) {
		/* Rounded before ranking, so the written scores reproduce the order. */
		struct bm25_hit h = { touched[i], round(acc[touched[i]] * 1e6) / 1e6 };

		if (kept < k) {
			out[kept] = h;
			sift_up(ix->corpus, out, kept++);
		} else if (ranks_above(ix->corpus, &h, &out[0])) {
			out[0] = h;
			sift_down(ix->corpus, out, kept, 0);
		}
	}
	/* Pop the worst to the end until the array is sorted best first. */
	for (size_t end = kept; end > 1; end--) {
		struct bm25_hit tmp = out[0];
		out[0] = out[end - 1];
		out[end - 1] = tmp;
		sift_down(ix->corpus, out, end - 1, 0);
	}

	free(acc);
	free(touched);
	tokens_release(&tok);
	return kept;
}

char *bm25_describe(const struct bm25 *ix)
{
	const struct lang *l = ix->lang ? ix->lang : lang_und();

	if (bm25_stems(ix))
		return xstrfmt("bm25 k1=%g b=%g lang=%s stem=%s", ix->params.k1, ix->params.b,
			       lang_code(l), lang_stemmer_name(l));
	return xstrfmt("bm25 k1=%g b=%g lang=%s", ix->params.k1, ix->params.b, lang_code(l));
}
