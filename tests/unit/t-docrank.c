/*
 * t-docrank: document-level measures (core/score/docrank.c) and their
 * names (core/score/measures.c).
 *
 * Expected values are worked out by hand from the definitions in
 * docs/measures.md ("Document-level measures"); the arithmetic is in the
 * comments. One property holds for any input: without document
 * information every chunk is its own document, so DocR@k, DocSuccess@k and
 * DocnDCG@k equal R@k, Success@k and nDCG@k.
 */
#include "test-lib.h"
#include "score/docrank.h"
#include "score/measures.h"
#include "score/metrics.h"
#include "score/qrels.h"
#include "score/run.h"
#include "score/score.h"
#include "set/corpus.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *dir;

static void make_qq(struct qrels_query *qq, const char *const *ids, const int *rels, size_t n)
{
	memset(qq, 0, sizeof(*qq));
	qq->qid = xstrdup("q");
	for (size_t i = 0; i < n; i++)
		qrels_query_add(qq, ids[i], rels[i]);
	qrels_query_finish(qq, "qrels");
}

/* Point 'rq' at the ranking 'ids' (n of them) through 'rd'. */
static void make_rq(struct run_query *rq, struct run_doc *rd, const char *const *ids, size_t n)
{
	memset(rq, 0, sizeof(*rq));
	for (size_t i = 0; i < n; i++) {
		rd[i].id = (char *)ids[i];
		rd[i].score = NAN;
		rd[i].line = 0;
	}
	rq->docs = rd;
	rq->nr = n;
}

/*
 * Documents A (a1 grade 2, a2 grade 1, a3 unlabelled), B (b1 grade 1),
 * C (c1 grade 3), D (d1 judged irrelevant, d2 unlabelled); e1 (grade 1)
 * and x9 (unlabelled) are in no document: each its own.
 */
static const char *const corpus_text =
	"{\"id\":\"a1\",\"doc\":\"A\",\"text\":\"a one\"}\n"
	"{\"id\":\"a2\",\"doc\":\"A\",\"text\":\"a two\"}\n"
	"{\"id\":\"a3\",\"doc\":\"A\",\"text\":\"a three\"}\n"
	"{\"id\":\"b1\",\"doc\":\"B\",\"text\":\"b one\"}\n"
	"{\"id\":\"c1\",\"doc\":\"C\",\"text\":\"c one\"}\n"
	"{\"id\":\"d1\",\"doc\":\"D\",\"text\":\"d one\"}\n"
	"{\"id\":\"d2\",\"doc\":\"D\",\"text\":\"d two\"}\n"
	"{\"id\":\"e1\",\"text\":\"e one\"}\n"
	"{\"id\":\"f1\",\"doc\":\"F\",\"text\":\"f one\"}\n"
	"{\"id\":\"f2\",\"doc\":\"F\",\"text\":\"f two\"}\n";

static const char *const jid[] = { "a1", "a2", "b1", "c1", "d1", "e1" };
static const int jrel[] = { 2, 1, 1, 3, 0, 1 };

static void test_hand_computed(const struct corpus *corpus)
{
	/*
	 * rank: 1 d1 (D, position 1), 2 a2 (A, position 2), 3 a3 (A again:
	 * dropped), 4 x9 (its own, position 3), 5 b1 (B, position 4), 6 a1
	 * (A again), 7 c1 (C, position 5), 8 d2 (D again); e1 not retrieved.
	 */
	static const char *const ranking[] = { "d1", "a2", "a3", "x9", "b1", "a1", "c1", "d2" };
	struct run_doc rd[8];
	struct run_query rq;
	struct qrels_query qq;
	struct doc_ctx c;
	struct doc_eval d;
	double l3 = log2(3.0), l4 = 2.0, l5 = log2(5.0), l6 = log2(6.0);
	double ideal;

	make_qq(&qq, jid, jrel, ARRAY_SIZE(jid));
	make_rq(&rq, rd, ranking, ARRAY_SIZE(ranking));
	doc_ctx_init(&c);
	doc_eval_build(&c, &qq, &rq, corpus, false, &d);

	/* relevant documents: A (best of 2 and 1: 2), B 1, C 3, e1 1; D has only grade 0 */
	is_int(m_doc_num_rel(&d), 4, "four relevant documents (A, B, C, and e1 on its own)");
	is_int(d.nr_levels, 4, "grades up to 3");
	ok(d.nr_levels == 4 && d.levels[1] == 2 && d.levels[2] == 1 && d.levels[3] == 1,
	   "two documents of grade 1 (B, e1), one of 2 (A), one of 3 (C)");
	is_int(d.nr_hits, 3, "A, B and C retrieved");
	ok(d.nr_hits == 3 && d.hits[0].rank == 2 && d.hits[0].pos == 2 && d.hits[0].grade == 2 &&
	   !strcmp(d.hits[0].doc, "A"),
	   "A at rank 2, position 2, with grade 2 though the chunk retrieved (a2) has grade 1");
	ok(d.nr_hits == 3 && d.hits[1].rank == 5 && d.hits[1].pos == 4 && !strcmp(d.hits[1].doc, "B"),
	   "B at rank 5, position 4: A's second chunk (rank 3) takes no position");
	ok(d.nr_hits == 3 && d.hits[2].rank == 7 && d.hits[2].pos == 5 && d.hits[2].grade == 3,
	   "C at rank 7, position 5: a1 (rank 6) adds nothing, A counted once");

	/* DocR@k = relevant documents at rank <= k / 4 */
	is_double(m_doc_recall(&d, 1), 0.0, 1e-12, "DocR@1 = 0/4 (d1 is of D, not relevant)");
	is_double(m_doc_recall(&d, 2), 0.25, 1e-12, "DocR@2 = 1/4 (A)");
	is_double(m_doc_recall(&d, 4), 0.25, 1e-12, "DocR@4 = 1/4 (a3 repeats A)");
	is_double(m_doc_recall(&d, 5), 0.5, 1e-12, "DocR@5 = 2/4 (A, B)");
	is_double(m_doc_recall(&d, 6), 0.5, 1e-12, "DocR@6 = 2/4 (a1 repeats A)");
	is_double(m_doc_recall(&d, 10), 0.75, 1e-12, "DocR@10 = 3/4 (e1 never retrieved)");
	is_double(m_doc_success(&d, 1), 0.0, 0, "DocSuccess@1 = 0");
	is_double(m_doc_success(&d, 2), 1.0, 0, "DocSuccess@2 = 1");

	/*
	 * DocnDCG@5: DCG = 2/log2(2+1) (A at position 2) + 1/log2(4+1) (B at
	 * position 4) = 1.26186 + 0.43068 = 1.69254; ideal over 5 positions
	 * of the grades 3, 2, 1, 1 = 3/log2 2 + 2/log2 3 + 1/log2 4 + 1/log2 5
	 * = 3 + 1.26186 + 0.5 + 0.43068 = 5.19254; 1.69254 / 5.19254 = 0.32596.
	 */
	ideal = 3.0 + 2.0 / l3 + 1.0 / l4 + 1.0 / l5;
	is_double(m_doc_ndcg(&d, 5), (2.0 / l3 + 1.0 / l5) / ideal, 1e-12,
		  "DocnDCG@5 = (2/log2 3 + 1/log2 5) / (3 + 2/log2 3 + 1/2 + 1/log2 5)");
	is_double(m_doc_ndcg(&d, 5), 0.3259555723751726, 1e-9, "DocnDCG@5 = 0.32596");
	/* DocnDCG@10: C adds 3/log2(5+1) = 1.16056: 2.85309 / 5.19254 = 0.54946 */
	is_double(m_doc_ndcg(&d, 10), (2.0 / l3 + 1.0 / l5 + 3.0 / l6) / ideal, 1e-12,
		  "DocnDCG@10 adds C at position 5: 3/log2 6");
	is_double(m_doc_ndcg(&d, 10), 0.5494606972558563, 1e-9, "DocnDCG@10 = 0.54946");
	/* DocnDCG@2: DCG 2/log2 3; ideal over 2 positions: 3 + 2/log2 3 -> 0.29608 */
	is_double(m_doc_ndcg(&d, 2), (2.0 / l3) / (3.0 + 2.0 / l3), 1e-12,
		  "DocnDCG@2: the ideal over 2 positions only (3 + 2/log2 3)");

	/*
	 * judged only: a3, x9 and d2 (unjudged) are dropped first: d1 1, a2 2
	 * (A, position 2), b1 3 (B, position 3), a1 4, c1 5 (C, position 4).
	 */
	doc_eval_build(&c, &qq, &rq, corpus, true, &d);
	ok(d.nr_hits == 3 && d.hits[1].rank == 3 && d.hits[1].pos == 3 && d.hits[2].rank == 5 &&
	   d.hits[2].pos == 4, "judged only: B at rank 3, C at rank 5 and position 4");
	is_double(m_doc_recall(&d, 3), 0.5, 1e-12, "judged only: DocR@3 = 2/4");
	/* DCG@5 = 2/log2 3 + 1/log2 4 + 3/log2 5 over the same ideal */
	is_double(m_doc_ndcg(&d, 5), (2.0 / l3 + 1.0 / l4 + 3.0 / l5) / ideal, 1e-12,
		  "judged only: DocnDCG@5 = (2/log2 3 + 1/2 + 3/log2 5) / ideal");

	/* an empty ranking: nothing retrieved, the relevant documents still counted */
	doc_eval_build(&c, &qq, NULL, corpus, false, &d);
	ok(d.nr_hits == 0 && m_doc_num_rel(&d) == 4 && m_doc_recall(&d, 5) == 0 &&
	   m_doc_ndcg(&d, 5) == 0, "an empty ranking scores 0 with 4 relevant documents");
	doc_ctx_release(&c);
	qrels_query_release(&qq);
}

/* Duplicates: three chunks of one document, the best grade from a chunk never retrieved. */
static void test_duplicates(const struct corpus *corpus)
{
	static const char *const ids[] = { "a1", "a2", "b1" };
	static const int rels[] = { 2, 1, 1 };
	/* a3, a2 (A twice more), b1: A at rank 1 with grade 2, B at rank 4, position 2 */
	static const char *const ranking[] = { "a3", "a2", "a3x", "b1" };
	struct run_doc rd[4];
	struct run_query rq;
	struct qrels_query qq;
	struct doc_ctx c;
	struct doc_eval d;

	make_qq(&qq, ids, rels, 3);
	make_rq(&rq, rd, ranking, 4);
	doc_ctx_init(&c);
	doc_eval_build(&c, &qq, &rq, corpus, false, &d);
	ok(d.nr_hits == 2 && d.hits[0].rank == 1 && d.hits[0].grade == 2,
	   "an unlabelled chunk of A retrieves A, with A's best grade (2, of a1)");
	ok(d.nr_hits == 2 && d.hits[1].rank == 4 && d.hits[1].pos == 3,
	   "B at rank 4, position 3 (a3x is its own document, a2 repeats A)");
	/* ideal: 2/log2 2 + 1/log2 3; DCG@4: 2/log2 2 + 1/log2 4 */
	is_double(m_doc_ndcg(&d, 4), (2.0 + 0.5) / (2.0 + 1.0 / log2(3.0)), 1e-12,
		  "DocnDCG@4 = (2 + 1/2) / (2 + 1/log2 3): duplicates add no gain");
	is_double(m_doc_recall(&d, 3), 0.5, 1e-12, "DocR@3 = 1/2: A's three chunks count once");
	doc_ctx_release(&c);
	qrels_query_release(&qq);
}

/*
 * A document's grade is its best chunk's, whatever order the labels come
 * in (f1 grade 1 sorts before f2 grade 3); a chunk in no document whose id
 * is a document's name ("A") is still a document of its own.
 */
static void test_best_grade_and_names(const struct corpus *corpus)
{
	static const char *const ids[] = { "f1", "f2", "a1" };
	static const int rels[] = { 1, 3, 1 };
	static const char *const ranking[] = { "A", "f1", "a2" };
	struct run_doc rd[3];
	struct run_query rq;
	struct qrels_query qq;
	struct doc_ctx c;
	struct doc_eval d;
	struct measure m;

	make_qq(&qq, ids, rels, 3);
	make_rq(&rq, rd, ranking, 3);
	doc_ctx_init(&c);
	doc_eval_build(&c, &qq, &rq, corpus, false, &d);
	/* "A" (its own, position 1), F at rank 2 with grade 3 (f2's), A at rank 3 */
	ok(d.nr_hits == 2 && d.hits[0].rank == 2 && d.hits[0].pos == 2 && d.hits[0].grade == 3,
	   "F retrieved through f1 (grade 1) has grade 3, the best of f1 and f2");
	ok(d.nr_hits == 2 && d.hits[1].rank == 3 && d.hits[1].pos == 3 && !strcmp(d.hits[1].doc, "A"),
	   "the chunk 'A' (no document) is not document A: A is retrieved at rank 3");
	/* DocR@2 = 1/2; DocSuccess@2 = 1; DocnDCG@2 = (3/log2 3) / (3 + 1/log2 3) */
	measure_parse("DocSuccess@2", &m);
	is_double(measure_value_docs(&m, NULL, &d), 1.0, 0, "DocSuccess@2 = 1 (F)");
	measure_parse("DocR@2", &m);
	is_double(measure_value_docs(&m, NULL, &d), 0.5, 1e-12, "DocR@2 = 1/2 (F of F, A)");
	measure_parse("DocnDCG@2", &m);
	is_double(measure_value_docs(&m, NULL, &d), (3.0 / log2(3.0)) / (3.0 + 1.0 / log2(3.0)),
		  1e-12, "DocnDCG@2 = (3/log2 3) / (3 + 1/log2 3)");
	doc_ctx_release(&c);
	qrels_query_release(&qq);
}

/* No relevant document: only judged irrelevant chunks, or no labels at all. */
static void test_no_relevant(const struct corpus *corpus)
{
	static const char *const ids[] = { "a1", "d1" };
	static const int rels[] = { 0, 0 };
	static const char *const ranking[] = { "a1", "d1" };
	struct run_doc rd[2];
	struct run_query rq;
	struct qrels_query qq;
	struct doc_ctx c;
	struct doc_eval d;

	make_qq(&qq, ids, rels, 2);
	make_rq(&rq, rd, ranking, 2);
	doc_ctx_init(&c);
	doc_eval_build(&c, &qq, &rq, corpus, false, &d);
	is_int(m_doc_num_rel(&d), 0, "no relevant document");
	ok(m_doc_recall(&d, 5) == 0 && m_doc_success(&d, 5) == 0 && m_doc_ndcg(&d, 5) == 0 &&
	   !isnan(m_doc_ndcg(&d, 5)), "no relevant document: 0 on every measure, never NaN");
	doc_eval_build(&c, NULL, &rq, corpus, false, &d);
	ok(d.nr_hits == 0 && m_doc_recall(&d, 1) == 0 && m_doc_ndcg(&d, 0) == 0,
	   "no labels at all: 0");
	doc_ctx_release(&c);
	qrels_query_release(&qq);
}

/* The chunker's id form names the document when no corpus does. */
static void test_chunker_ids(void)
{
	static const char *const ids[] = { "g.md#0123456789ab", "h.md#0123456789ab-2" };
	static const int rels[] = { 1, 2 };
	static const char *const ranking[] = { "g.md#0123456789ff", "g.md#0123456789ab",
					       "h.md#00000000000a-1" };
	struct run_doc rd[3];
	struct run_query rq;
	struct qrels_query qq;
	struct doc_ctx c;
	struct doc_eval d;

	make_qq(&qq, ids, rels, 2);
	make_rq(&rq, rd, ranking, 3);
	doc_ctx_init(&c);
	doc_eval_build(&c, &qq, &rq, NULL, false, &d);
	ok(d.nr_hits == 2 && d.hits[0].rank == 1 && !strcmp(d.hits[0].doc, "g.md") &&
	   d.hits[1].rank == 3 && d.hits[1].pos == 2 && d.hits[1].grade == 2 &&
	   !strcmp(d.hits[1].doc, "h.md"),
	   "without a corpus, g.md#… and h.md#… chunks belong to g.md and h.md");
	doc_ctx_release(&c);
	qrels_query_release(&qq);
}

/* A tiny deterministic generator, so failures reproduce. */
static unsigned long long rng_state = 88172645463325252ULL;
static unsigned long long rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Without documents each chunk is its own: the measures equal the chunk-level ones. */
static void test_equal_without_documents(void)
{
	char ids[40][8];
	const char *jids[12], *ranking[40];
	int rels[12];
	bool same = true;
	struct hit_ctx hc;
	struct doc_ctx c;

	hit_ctx_init(&hc);
	doc_ctx_init(&c);
	for (int i = 0; i < 40; i++)
		snprintf(ids[i], sizeof(ids[i]), "c%d", i);
	for (int round = 0; round < 200; round++) {
		size_t nj = rng() % 12, n = rng() % 40, off = rng() % 40;
		struct run_doc rd[40];
		struct run_query rq;
		struct qrels_query qq;
		struct query_eval e;
		struct doc_eval d;

		for (size_t j = 0; j < nj; j++) {
			jids[j] = ids[(j * 3 + off) % 40];
			rels[j] = (int)(rng() % 4);
		}
		for (size_t i = 0; i < n; i++)
			ranking[i] = ids[(i * 7 + (size_t)round) % 40];
		make_qq(&qq, jids, rels, nj);
		make_rq(&rq, rd, ranking, n);
		hits_from_ranked(&hc, &rq, &qq, false, &e);
		doc_eval_build(&c, &qq, &rq, NULL, false, &d);
		for (long k = 1; k <= 12; k++)
			if (m_doc_recall(&d, k) != m_recall(&e, 1, k) ||
			    m_doc_success(&d, k) != m_success(&e, 1, k) ||
			    fabs(m_doc_ndcg(&d, k) - m_ndcg(&e, k)) > 1e-12) {
				if (same)
					test_diag("round %d, k %ld: DocR %g R %g, DocnDCG %g nDCG %g", round,
						  k, m_doc_recall(&d, k), m_recall(&e, 1, k),
						  m_doc_ndcg(&d, k), m_ndcg(&e, k));
				same = false;
			}
		qrels_query_release(&qq);
	}
	ok(same, "without documents, DocR@k, DocSuccess@k, DocnDCG@k equal R@k, Success@k, nDCG@k");
	hit_ctx_release(&hc);
	doc_ctx_release(&c);
}

static void test_names(void)
{
	struct measure m;
	struct strbuf why = STRBUF_INIT;

	ok(measure_parse_why("DocR@5", &m, NULL, &why) == 0 && m.kind == MK_DOC_RECALL && m.k == 5 &&
	   !strcmp(m.name, "DocR@5"), "DocR@5");
	ok(measure_parse_why("docndcg@10", &m, NULL, &why) == 0 && m.kind == MK_DOC_NDCG &&
	   !strcmp(m.name, "DocnDCG@10"), "docndcg@10 is DocnDCG@10");
	ok(measure_parse_why("DocHit@3", &m, NULL, &why) == 0 && m.kind == MK_DOC_SUCCESS &&
	   !strcmp(m.name, "DocSuccess@3"), "DocHit@3 is DocSuccess@3");
	ok(measure_parse_why("DocRecall@20", &m, NULL, &why) == 0 && !strcmp(m.name, "DocR@20"),
	   "DocRecall@20 is DocR@20");
	ok(measure_is_doc(&m), "DocR is document-level");
	ok(measure_parse_why("R@5", &m, NULL, &why) == 0 && !measure_is_doc(&m), "R@5 is not");
	/* each call first, then its message: an argument reading why.buf
	 * may be evaluated before the call that grows it */
	static const struct {
		const char *name, *want, *what;
	} bad[] = {
		{ "DocR", "cutoff @k is required", "DocR needs a cutoff" },
		{ "DocR(rel=2)@5", "no relevance threshold", "DocR takes no threshold" },
		{ "DocNDGC@10", "did you mean 'DocnDCG@10'", "a typo gets the closest name" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int rc;

		strbuf_reset(&why);
		rc = measure_parse_why(bad[i].name, &m, NULL, &why);
		ok(rc < 0 && strstr(why.buf, bad[i].want), "%s: %s", bad[i].what, why.buf);
	}
	strbuf_release(&why);
}

int main(void)
{
	char tmpl[] = "/tmp/t-docrank-XXXXXX";
	struct corpus corpus = CORPUS_INIT;
	char *path;

	dir = mkdtemp(tmpl);
	path = dir ? test_write_file(dir, "corpus.jsonl", corpus_text) : NULL;
	ok(path && corpus_load(&corpus, path) == 0, "the corpus loads");
	test_hand_computed(&corpus);
	test_duplicates(&corpus);
	test_best_grade_and_names(&corpus);
	test_no_relevant(&corpus);
	test_chunker_ids();
	test_equal_without_documents();
	test_names();
	corpus_release(&corpus);
	free(path);
	if (dir)
		test_remove_tree(dir);
	return test_done();
}
