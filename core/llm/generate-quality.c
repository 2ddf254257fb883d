/*
 * generate-quality: what generate measures with the built-in BM25 index of
 * the corpus: a question's difficulty (the rank of its chunk when it is
 * written) and a chunk's multi-hop partner in another document. Contract
 * in generate.h; shared state in generate-internal.h. Calls no other
 * generate file.
 */
#include "llm/generate-internal.h"
#include "base/error.h"
#include "base/util.h"
#include "set/corpus.h"
#include "set/set.h"
#include "text/text.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const band_names[GEN_NR_BANDS] = { "easy", "medium", "hard" };
static const char *const criterion_names[GEN_NR_CRITERIA] = {
	"clarity", "realism", "answerability", "specificity",
};

const char *gen_band_name(enum gen_band b)
{
	return b < GEN_NR_BANDS ? band_names[b] : "?";
}

const char *gen_criterion_name(enum gen_criterion c)
{
	return c < GEN_NR_CRITERIA ? criterion_names[c] : "?";
}

enum gen_band gen_band_of(long rank)
{
	if (rank == 1)
		return GEN_EASY;
	if (rank >= 2 && rank <= 10)
		return GEN_MEDIUM;
	return GEN_HARD;
}

int gen_bands_parse(const char *list, unsigned *mask)
{
	const char *s = list;

	*mask = 0;
	while (*s) {
		size_t len = strcspn(s, ",");
		int b;
		for (b = 0; b < GEN_NR_BANDS; b++)
			if (strlen(band_names[b]) == len && !memcmp(band_names[b], s, len))
				break;
		if (b == GEN_NR_BANDS)
			return error("unknown difficulty '%.*s' (known: easy, medium, hard)", (int)len, s);
		*mask |= 1u << b;
		s += len;
		if (*s == ',')
			s++;
	}
	if (!*mask)
		return error("no difficulty given");
	return 0;
}

const struct bm25 *gen_bm25(struct gen *g)
{
	if (!g->bm25_built) {
		struct bm25_params p = BM25_PARAMS_INIT;
		struct bm25 init = BM25_INIT;

		g->bm25 = init;
		p.language = g->o->set->corpus.language;
		if (bm25_build(&g->bm25, g->o->corpus, &p))
			return NULL;
		g->bm25_built = true;
	}
	return &g->bm25;
}

static long rank_of(const struct bm25_hit *hits, size_t nr, size_t chunk)
{
	for (size_t i = 0; i < nr; i++)
		if (hits[i].doc == chunk)
			return (long)i + 1;
	return 0;
}

long gen_rank(struct gen *g, const char *question, size_t chunk, size_t neighbour)
{
	const struct bm25 *ix = gen_bm25(g);
	struct bm25_hit hits[GEN_RANK_DEPTH];
	size_t nr;
	long r1, r2;

	if (!ix)
		return 0;
	nr = bm25_search(ix, question, GEN_RANK_DEPTH, hits);
	r1 = rank_of(hits, nr, chunk);
	if (neighbour == SIZE_MAX)
		return r1;
	r2 = rank_of(hits, nr, neighbour);
	if (!r1 || !r2)
		return 0;
	return r1 > r2 ? r1 : r2;
}


#define HOP_TERMS 8   /* the chunk's rarest shared terms that pick its partner */

struct hop_term {
	size_t term;
	double idf;
};

static int cmp_hop_term(const void *a, const void *b)
{
	const struct hop_term *x = a, *y = b;

	if (x->idf != y->idf)
		return x->idf > y->idf ? -1 : 1;
	return x->term < y->term ? -1 : x->term > y->term;
}

/* Do chunks 'a' and 'b' belong to different documents? (No "doc": each chunk is its own.) */
static bool other_doc(const struct corpus *c, size_t a, size_t b)
{
	const char *da = c->chunks[a].doc, *db = c->chunks[b].doc;

	return a != b && (!da || !db || strcmp(da, db));
}

size_t gen_hop_partner(struct gen *g, size_t chunk)
{
	const struct corpus *c = g->o->corpus;
	const struct bm25 *ix = gen_bm25(g);
	const struct chunk *ch = &c->chunks[chunk];
	struct tokens t = TOKENS_INIT;
	struct hop_term *terms;
	size_t nr = 0, best = SIZE_MAX;
	double best_score = 0, *score;

	if (!ix)
		return SIZE_MAX;
	bm25_analyze(ix, ch->text, strlen(ch->text), &t);
	terms = xcalloc(t.nr + 1, sizeof(*terms));
	for (size_t i = 0; i < t.nr; i++) {
		uintptr_t at = (uintptr_t)strmap_get(&ix->dict, t.items[i]);
		const struct bm25_term *bt;
		bool seen = false, shared = false;
		if (!at)
			continue;
		bt = &ix->terms[at - 1];
		for (size_t j = 0; j < nr; j++)
			seen |= terms[j].term == at - 1;
		/* a term of this chunk alone cannot link it to another */
		for (size_t p = 0; p < bt->nr && !shared; p++)
			shared = other_doc(c, chunk, bt->post[p].doc);
		if (!seen && shared) {
			terms[nr].term = at - 1;
			terms[nr].idf = bt->idf;
			nr++;
		}
	}
	qsort(terms, nr, sizeof(*terms), cmp_hop_term);
	if (nr > HOP_TERMS)
		nr = HOP_TERMS;
	/* score the other documents' chunks on the rarest shared terms, as BM25 would */
	score = xcalloc(c->nr + 1, sizeof(double));
	for (size_t j = 0; j < nr; j++) {
		const struct bm25_term *bt = &ix->terms[terms[j].term];
		for (size_t p = 0; p < bt->nr; p++) {
			size_t d = bt->post[p].doc;
			double tf = bt->post[p].tf;
			if (other_doc(c, chunk, d))
				score[d] += bt->idf * tf / (tf + ix->norm[d]);
		}
	}
	for (size_t d = 0; d < c->nr; d++)
		if (score[d] > best_score) {
			best_score = score[d];
			best = d;
		}
	free(score);
	free(terms);
	tokens_release(&t);
	return best;
}
