/*
 * t-bm25: the built-in BM25 retriever against scores computed by hand.
 *
 * Corpus (no titles), k1 = 0.9, b = 0.4, no stemming:
 *   c-1 "apple banana apple"          terms apple x2, banana     dl 3
 *   c-2 "banana cherry"               banana, cherry             dl 2
 *   c-3 "cherry cherry cherry date"   cherry x3, date            dl 4
 *   c-4 "The date!"                   date ("the" is a stop word) dl 1
 *   c-5 "Cherry, banana."             cherry, banana             dl 2
 * N = 5, avgdl = 12 / 5 = 2.4.
 * norm(dl) = k1 * (1 - b + b * dl / avgdl) = 0.9 * (0.6 + dl / 6):
 *   dl 1: 0.69   dl 2: 0.84   dl 3: 0.99   dl 4: 1.14
 * idf(df) = ln(1 + (N - df + 0.5) / (df + 0.5)):
 *   apple  df 1: ln(1 + 4.5 / 1.5) = ln 4   = 1.3862944
 *   date   df 2: ln(1 + 3.5 / 2.5) = ln 2.4 = 0.8754687
 *   banana, cherry df 3: ln(1 + 2.5 / 3.5) = ln(12/7) = 0.5389965
 * term score = idf * tf / (tf + norm(dl)):
 *   "banana": c-1 0.5389965 / 1.99 = 0.2708525
 *             c-2 = c-5 0.5389965 / 1.84 = 0.2929329 (a tie: c-5 before c-2,
 *             chunk id descending)
 *   "cherry date": c-3 0.5389965 * 3 / 4.14 + 0.8754687 / 2.14
 *                      = 0.3905772 + 0.4090975 = 0.7996747
 *                  c-4 0.8754687 / 1.69 = 0.5180288
 *                  c-5 = c-2 0.2929329
 *   "apple apple": each occurrence counts: 2 * 1.3862944 * 2 / 2.99 = 1.8545744
 * weighted parts (the turn and, at 0.3, an earlier user turn):
 *   "date" x1 + "apple" x0.3: c-4 0.5180288, c-3 0.8754687 / 2.14 = 0.4090975,
 *                            c-1 0.3 * 1.3862944 * 2 / 2.99 = 0.2781862
 *   (at weight 1 c-1 would rank first with 0.9272872)
 */
#include "test-lib.h"
#include "retrieve/bm25.h"
#include "set/corpus.h"
#include "text/text.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPS 1e-6

static struct chunk fruit[] = {
	{ (char *)"c-1", NULL, (char *)"apple banana apple", NULL, -1, -1, NULL, 0 },
	{ (char *)"c-2", NULL, (char *)"banana cherry", NULL, -1, -1, NULL, 0 },
	{ (char *)"c-3", NULL, (char *)"cherry cherry cherry date", NULL, -1, -1, NULL, 0 },
	{ (char *)"c-4", NULL, (char *)"The date!", NULL, -1, -1, NULL, 0 },
	{ (char *)"c-5", NULL, (char *)"Cherry, banana.", NULL, -1, -1, NULL, 0 },
};

static struct corpus make_corpus(struct chunk *chunks, size_t nr)
{
	struct corpus c = CORPUS_INIT;

	c.chunks = chunks;
	c.nr = nr;
	return c;
}

static const char *id_of(const struct bm25 *ix, const struct bm25_hit *h)
{
	return ix->corpus->chunks[h->doc].id;
}

static void test_hand_scores(void)
{
	struct corpus c = make_corpus(fruit, ARRAY_SIZE(fruit));
	struct bm25 ix = BM25_INIT;
	struct bm25_params p = BM25_PARAMS_INIT;
	struct bm25_hit hits[10];
	size_t n;

	is_int(bm25_build(&ix, &c, &p), 0, "the index builds");
	is_double(ix.avgdl, 2.4, EPS, "avgdl counts tokens without stop words");

	n = bm25_search(&ix, "banana", 10, hits);
	is_int(n, 3, "'banana' matches three chunks");
	if (n == 3) {
		is_str(id_of(&ix, &hits[0]), "c-5", "equal scores: higher chunk id first");
		is_str(id_of(&ix, &hits[1]), "c-2", "then the lower chunk id");
		is_str(id_of(&ix, &hits[2]), "c-1", "the longer chunk last");
		is_double(hits[0].score, 0.2929329, EPS, "banana in c-5");
		is_double(hits[1].score, 0.2929329, EPS, "banana in c-2");
		is_double(hits[2].score, 0.2708525, EPS, "banana in c-1 (longer, lower)");
	}

	n = bm25_search(&ix, "Cherry DATE?", 10, hits);
	is_int(n, 4, "'cherry date' matches four chunks");
	if (n == 4) {
		is_str(id_of(&ix, &hits[0]), "c-3", "two terms and tf 3 rank first");
		is_double(hits[0].score, 0.7996747, EPS, "cherry x3 + date in c-3");
		is_str(id_of(&ix, &hits[1]), "c-4", "a short chunk with the rarer term second");
		is_double(hits[1].score, 0.5180288, EPS, "date in c-4");
		is_str(id_of(&ix, &hits[2]), "c-5", "tie at 0.2929329: c-5 first");
		is_str(id_of(&ix, &hits[3]), "c-2", "tie: c-2 last");
		is_double(hits[3].score, 0.2929329, EPS, "cherry in c-2");
	}

	n = bm25_search(&ix, "cherry date", 2, hits);
	is_int(n, 2, "k caps the hits");
	if (n == 2)
		ok(!strcmp(id_of(&ix, &hits[0]), "c-3") && !strcmp(id_of(&ix, &hits[1]), "c-4"),
		   "top 2 are the first two of the full ranking");

	n = bm25_search(&ix, "apple apple", 10, hits);
	is_int(n, 1, "'apple' is in one chunk");
	if (n == 1)
		is_double(hits[0].score, 1.8545744, EPS, "a repeated query term counts twice");

	is_int(bm25_search(&ix, "the what", 10, hits), 0, "a query of stop words finds nothing");
	is_int(bm25_search(&ix, "kiwi", 10, hits), 0, "an unknown term finds nothing");
	is_int(bm25_search(&ix, "", 10, hits), 0, "an empty query finds nothing");
	bm25_release(&ix);
}

/* A query in weighted parts: each part scored alone, times its weight. */
static void test_parts(void)
{
	struct corpus c = make_corpus(fruit, ARRAY_SIZE(fruit));
	struct bm25 ix = BM25_INIT;
	struct bm25_params p = BM25_PARAMS_INIT;
	struct bm25_hit hits[10];
	struct bm25_part parts[] = { { "date", 1.0 }, { "apple", 0.3 }, { NULL, 1.0 }, { "cherry", 0 } };
	size_t n;

	if (bm25_build(&ix, &c, &p) < 0) {
		ok(0, "parts: the index builds");
		return;
	}
	n = bm25_search_parts(&ix, parts, ARRAY_SIZE(parts), 10, hits);
	is_int(n, 3, "parts: date and apple match three chunks (weight 0 and NULL left out)");
	if (n == 3) {
		is_str(id_of(&ix, &hits[0]), "c-4", "parts: the turn's term ranks first");
		is_double(hits[0].score, 0.5180288, EPS, "parts: date in c-4 at weight 1");
		is_str(id_of(&ix, &hits[1]), "c-3", "parts: date in c-3");
		is_double(hits[1].score, 0.4090975, EPS, "parts: date in c-3 at weight 1");
		is_str(id_of(&ix, &hits[2]), "c-1", "parts: the earlier turn's term last");
		is_double(hits[2].score, 0.2781862, EPS, "parts: apple in c-1 at weight 0.3");
	}
	parts[1].weight = 1.0;
	n = bm25_search_parts(&ix, parts, 2, 10, hits);
	ok(n == 3 && !strcmp(id_of(&ix, &hits[0]), "c-1") && fabs(hits[0].score - 0.9272872) < EPS,
	   "parts: at weight 1 the earlier turn's term ranks first");
	n = bm25_search_parts(&ix, parts, 1, 10, hits);
	ok(n == 2 && fabs(hits[0].score - 0.5180288) < EPS, "parts: one part of weight 1 is bm25_search");
	bm25_release(&ix);
}

static struct chunk runners[] = {
	{ (char *)"r-1", NULL, (char *)"She runs every morning", NULL, -1, -1, NULL, 0 },
	{ (char *)"r-2", (char *)"Marathon", (char *)"a long race", NULL, -1, -1, NULL, 0 },
	{ (char *)"r-3", NULL, (char *)"Caf\xc3\xa9 opening hours", NULL, -1, -1, NULL, 0 },
};

static void test_stem_and_title(void)
{
	struct corpus c = make_corpus(runners, ARRAY_SIZE(runners));
	struct bm25 plain = BM25_INIT, stemmed = BM25_INIT;
	struct bm25_params p = BM25_PARAMS_INIT;
	struct bm25_hit hits[3];
	size_t n;

	p.language = "en";
	p.stem = false;
	bm25_build(&plain, &c, &p);
	p.stem = true;
	bm25_build(&stemmed, &c, &p);

	is_int(bm25_search(&plain, "running", 3, hits), 0, "without stemming 'running' misses 'runs'");
	n = bm25_search(&stemmed, "running", 3, hits);
	ok(n == 1 && !strcmp(id_of(&stemmed, &hits[0]), "r-1"),
	   "with stemming 'running' finds 'runs'");
	n = bm25_search(&stemmed, "marathons", 3, hits);
	ok(n == 1 && !strcmp(id_of(&stemmed, &hits[0]), "r-2"), "the title is indexed with the text");
	n = bm25_search(&plain, "CAFE\xcc\x81", 3, hits);
	ok(n == 1 && !strcmp(id_of(&plain, &hits[0]), "r-3"),
	   "a decomposed, upper-case query matches the composed word");
	bm25_release(&plain);
	bm25_release(&stemmed);
}

/* The bounded heap must agree with a full ranking on a larger corpus. */
static void test_topk_matches_full_ranking(void)
{
	static const char *vocab[] = { "alpha", "beta", "gamma", "delta", "epsilon",
				       "zeta", "eta", "theta", "iota", "kappa" };
	size_t nr = 400, full_n, top_n;
	struct chunk *chunks = xcalloc(nr, sizeof(*chunks));
	struct corpus c;
	struct bm25 ix = BM25_INIT;
	struct bm25_params p = BM25_PARAMS_INIT;
	struct bm25_hit *full = xcalloc(nr, sizeof(*full)), top[15];
	unsigned seed = 7;
	bool same = true, sorted = true;

	for (size_t i = 0; i < nr; i++) {
		char text[256] = "";
		size_t len = 0, words = 1 + i % 9;

		for (size_t w = 0; w < words; w++) {
			seed = seed * 1103515245u + 12345u;
			len += (size_t)snprintf(text + len, sizeof(text) - len, "%s ",
						vocab[(seed >> 16) % ARRAY_SIZE(vocab)]);
		}
		chunks[i].id = xstrfmt("d-%03zu", i);
		chunks[i].text = xstrdup(text);
	}
	c = make_corpus(chunks, nr);
	bm25_build(&ix, &c, &p);
	full_n = bm25_search(&ix, "gamma theta", nr, full);
	top_n = bm25_search(&ix, "gamma theta", 15, top);
	is_int(top_n, 15, "k=15 gives 15 hits");
	for (size_t i = 0; i < top_n && i < full_n; i++)
		if (full[i].doc != top[i].doc)
			same = false;
	ok(same, "the top 15 are the first 15 of the full ranking");
	for (size_t i = 1; i < full_n; i++)
		if (full[i].score > full[i - 1].score ||
		    (full[i].score == full[i - 1].score &&
		     strcmp(chunks[full[i].doc].id, chunks[full[i - 1].doc].id) > 0))
			sorted = false;
	ok(sorted, "the full ranking is by score, then chunk id, descending");
	ok(full_n > 15 && full_n < nr, "the query matches some chunks but not all (%zu)", full_n);

	bm25_release(&ix);
	for (size_t i = 0; i < nr; i++) {
		free(chunks[i].id);
		free(chunks[i].text);
	}
	free(chunks);
	free(full);
}

static void test_params(void)
{
	struct corpus c = make_corpus(fruit, ARRAY_SIZE(fruit));
	struct bm25 ix = BM25_INIT;
	struct bm25_params p = BM25_PARAMS_INIT;
	char *d;

	test_capture_errors();
	p.b = 1.5;
	is_int(bm25_build(&ix, &c, &p), -1, "b above 1 is refused");
	ok(strstr(test_captured(), "b must be between 0 and 1") != NULL, "with a message");
	p.b = 0.4;
	p.k1 = -1;
	is_int(bm25_build(&ix, &c, &p), -1, "a negative k1 is refused");
	bm25_release(&ix);

	p.k1 = 1.2;
	p.b = 0.75;
	p.stem = true;
	p.language = "de";
	is_int(bm25_build(&ix, &c, &p), 0, "a German index builds");
	d = bm25_describe(&ix);
	is_str(d, "bm25 k1=1.2 b=0.75 lang=de stem=german", "the description names the parameters");
	free(d);
	bm25_release(&ix);
	p.language = "zh";
	bm25_build(&ix, &c, &p);
	d = bm25_describe(&ix);
	is_str(d, "bm25 k1=1.2 b=0.75 lang=zh", "no stemmer named where the language has none");
	ok(!bm25_stems(&ix), "and none used");
	free(d);
	bm25_release(&ix);
}

/* Per language: the language's stop words and stemmer, CJK bigrams and
 * Thai dictionary words, each on a query that misses without them. */
static struct chunk multi[] = {
	{ (char *)"de-1", NULL, (char *)"Die Katzen schlafen im Garten", NULL, -1, -1, NULL, 0 },
	{ (char *)"de-2", NULL, (char *)"Der Hund bellt", NULL, -1, -1, NULL, 0 },
	{ (char *)"zh-1", NULL, (char *)"\xe6\x9d\xb1\xe4\xba\xac\xe9\x83\xbd\xe7\x9a\x84\xe4\xba\xba\xe5\x8f\xa3", NULL, -1, -1, NULL, 0 },
	{ (char *)"th-1", NULL, (char *)"\xe0\xb8\x89\xe0\xb8\xb1\xe0\xb8\x99\xe0\xb8\x81\xe0\xb8\xb4\xe0\xb8\x99\xe0\xb8\x82\xe0\xb9\x89\xe0\xb8\xb2\xe0\xb8\xa7", NULL, -1, -1, NULL, 0 },
};

static void test_languages(void)
{
	struct corpus c = make_corpus(multi, ARRAY_SIZE(multi));
	struct bm25 ix = BM25_INIT, plain = BM25_INIT;
	struct bm25_params p = BM25_PARAMS_INIT;
	struct bm25_hit hits[4];
	size_t n;

	p.language = "de";
	bm25_build(&ix, &c, &p);
	p.stem = false;
	bm25_build(&plain, &c, &p);
	n = bm25_search(&ix, "die Katze", 4, hits);
	ok(n == 1 && !strcmp(id_of(&ix, &hits[0]), "de-1"),
	   "German stemming: 'Katze' finds 'Katzen'; the stop word 'die' finds nothing");
	is_int(bm25_search(&plain, "Katze", 4, hits), 0, "without stemming it does not");
	is_int(bm25_search(&ix, "der die das", 4, hits), 0, "German stop words are dropped");
	/* 京都 (Kyoto) is a bigram of 東京都 (Tokyo-to): found, as Lucene's CJK analyzer would */
	n = bm25_search(&ix, "\xe4\xba\xac\xe9\x83\xbd", 4, hits);
	ok(n == 1 && !strcmp(id_of(&ix, &hits[0]), "zh-1"), "a Han bigram inside a run is found");
	/* ข้าว (rice) is a word of ฉันกินข้าว (I eat rice) */
	n = bm25_search(&ix, "\xe0\xb8\x82\xe0\xb9\x89\xe0\xb8\xb2\xe0\xb8\xa7", 4, hits);
	ok(n == 1 && !strcmp(id_of(&ix, &hits[0]), "th-1"), "a Thai word inside a run is found");
	bm25_release(&ix);
	bm25_release(&plain);
}

int main(void)
{
	test_hand_scores();
	test_parts();
	test_stem_and_title();
	test_topk_matches_full_ranking();
	test_params();
	test_languages();
	return test_done();
}
