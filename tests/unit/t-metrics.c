/*
 * t-metrics: the measures (core/score/metrics.c), their names (core/score/measures.c) and
 * the ranking of judged documents (core/score/score.c).
 *
 * Expected values come from trec_eval v10.0's own output on the conformance
 * pack (tests/conformance/trec_eval), not from this code; the property
 * tests check what must hold for any input: values within [0, 1], R@k never
 * decreasing with k, the same scores whatever the order of a run's lines,
 * and the sort-free ranking agreeing with a full sort.
 */
#include "test-lib.h"
#include "score/measures.h"
#include "score/metrics.h"
#include "score/qrels.h"
#include "score/run.h"
#include "score/score.h"
#include "score/treceval.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A tiny deterministic generator, so failures reproduce. */
static unsigned long long rng_state = 88172645463325252ULL;
static unsigned long long rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

struct doc {
	const char *id;
	double score;
};

/* Rank 'docs' (any order) against 'qq' through an unsorted TREC group. */
static int eval_group(struct hit_ctx *c, const struct doc *docs, size_t n,
		      const struct qrels_query *qq, bool judged_only, long max_docs,
		      struct query_eval *e)
{
	struct trec_line *lines = xcalloc(n + 1, sizeof(*lines));
	struct trec_group g;
	int ret;

	for (size_t i = 0; i < n; i++) {
		lines[i].doc = docs[i].id;
		lines[i].len = (uint32_t)strlen(docs[i].id);
		lines[i].score = docs[i].score;
		lines[i].line = (long)i + 1;
	}
	g.qid = "q";
	g.qid_len = 1;
	g.lines = lines;
	g.nr = n;
	g.padded = false;
	g.qids = NULL;
	g.qid_lens = NULL;
	ret = hits_from_group(c, &g, qq, judged_only, max_docs, "run", e);
	free(lines);
	return ret;
}

static void make_qq(struct qrels_query *qq, const char *const *ids, const int *rels, size_t n)
{
	memset(qq, 0, sizeof(*qq));
	qq->qid = xstrdup("q");
	for (size_t i = 0; i < n; i++)
		qrels_query_add(qq, ids[i], rels[i]);
	qrels_query_finish(qq, "qrels");
}

/* c2_graded g1 of the conformance pack: graded judgments, an unretrieved grade 3. */
static void test_graded_against_trec_eval(void)
{
	static const char *const jid[] = { "D1", "D2", "D3", "D4", "D5", "D6", "D7", "D8" };
	static const int jrel[] = { 3, 2, 2, 1, 1, 0, 0, 3 };
	static const struct doc run[] = {
		{ "D6", 10.0 }, { "D4", 9.5 }, { "D1", 9.0 }, { "U1", 8.5 }, { "D2", 8.0 },
		{ "D7", 7.5 }, { "U2", 7.0 }, { "U3", 6.5 }, { "D5", 6.0 }, { "U4", 5.5 },
		{ "D3", 5.0 }, { "U5", 4.5 },
	};
	struct qrels_query qq;
	struct hit_ctx c;
	struct query_eval e;

	hit_ctx_init(&c);
	make_qq(&qq, jid, jrel, ARRAY_SIZE(jid));
	ok(!eval_group(&c, run, ARRAY_SIZE(run), &qq, false, 0, &e), "g1 ranks");
	is_double(m_ap(&e, 1, 0), 0.4443, 0.00005, "map g1 = trec_eval 0.4443");
	is_double(m_rprec(&e, 1), 0.5, 1e-12, "Rprec g1 = 0.5000");
	is_double(m_recip_rank(&e, 1, 0), 0.5, 1e-12, "recip_rank g1 = 0.5000");
	is_double(m_precision(&e, 1, 5), 0.6, 1e-12, "P_5 g1 = 0.6000");
	is_double(m_recall(&e, 1, 100), 0.8333, 0.00005, "recall_100 g1 = 0.8333");
	is_double(m_ndcg(&e, 5), 0.4068, 0.00005, "ndcg_cut_5 g1 = 0.4068");
	is_double(m_ndcg(&e, 10), 0.4276, 0.00005, "ndcg_cut_10 g1 = 0.4276 (ideal over all judged)");
	is_double(m_success(&e, 1, 1), 0.0, 0, "success_1 g1 = 0");
	/* -l2: P, recall, map change, ndcg_cut does not */
	is_double(m_ap(&e, 2, 0), 0.2515, 0.00005, "map g1 -l2 = 0.2515");
	is_double(m_rprec(&e, 2), 0.25, 1e-12, "Rprec g1 -l2 = 0.2500");
	is_double(m_recip_rank(&e, 2, 0), 1.0 / 3, 1e-12, "recip_rank g1 -l2 = 0.3333");
	is_int(m_num_rel_ret(&e, 2, 0), 3, "num_rel_ret g1 -l2 = 3");
	qrels_query_release(&qq);
	hit_ctx_release(&c);
}

/* c1_ties q1: equal scores ordered by docid descending, strcmp order. */
static void test_ties(void)
{
	static const char *const jid[] = { "d1", "d2", "d3", "d10", "d9", "d20" };
	static const int jrel[] = { 1, 0, 1, 1, 0, 2 };
	static const struct doc run[] = {
		{ "d20", 7.25 }, { "d1", 5.0 }, { "d2", 5 }, { "d3", 5.0 }, { "d10", 5.0 },
		{ "d9", 5.0 }, { "d11", 5.0 }, { "x1", -1.0 }, { "x2", -1.0 },
	};
	struct qrels_query qq;
	struct hit_ctx c;
	struct query_eval e;

	hit_ctx_init(&c);
	make_qq(&qq, jid, jrel, ARRAY_SIZE(jid));
	eval_group(&c, run, ARRAY_SIZE(run), &qq, false, 0, &e);
	/* ranking: d20 d9 d3 d2 d11 d10 d1 x2 x1 */
	is_double(m_ap(&e, 1, 0), 0.6845, 0.00005, "map q1 = 0.6845");
	is_double(m_precision(&e, 1, 3), 2.0 / 3, 1e-12, "P_3 q1 = 0.6667");
	is_double(m_ndcg(&e, 5), 0.7019, 0.00005, "ndcg_cut_5 q1 = 0.7019");
	is_double(m_ndcg(&e, 10), 0.8955, 0.00005, "ndcg_cut_10 q1 = 0.8955");
	is_double(m_recall(&e, 1, 5), 0.5, 1e-12, "recall_5 q1 = 0.5");
	qrels_query_release(&qq);
	hit_ctx_release(&c);
}

/* c3_norel_negrel n2: grade -1 documents are "unjudged"; -J drops them. */
static void test_judged_only(void)
{
	static const char *const jid[] = { "a", "b", "c", "d", "e" };
	static const int jrel[] = { 1, -1, 1, 0, -1 };
	static const struct doc run[] = { { "b", 5 }, { "e", 4 }, { "a", 3 }, { "z", 2 }, { "d", 1 } };
	struct qrels_query qq;
	struct hit_ctx c;
	struct query_eval e;

	hit_ctx_init(&c);
	make_qq(&qq, jid, jrel, ARRAY_SIZE(jid));
	eval_group(&c, run, ARRAY_SIZE(run), &qq, false, 0, &e);
	is_double(m_ap(&e, 1, 0), 0.1667, 0.00005, "map n2 = 0.1667");
	is_double(m_ndcg(&e, 5), 0.3066, 0.00005, "ndcg_cut_5 n2 = 0.3066");
	is_double(m_judged(&e, 5), 0.4, 1e-12, "Judged@5: a and d are judged, b and e are not");
	eval_group(&c, run, ARRAY_SIZE(run), &qq, true, 0, &e);
	is_int(e.num_ret, 2, "-J keeps the two judged documents");
	is_double(m_precision(&e, 1, 1), 1.0, 0, "P_1 n2 -J = 1");
	is_double(m_ndcg(&e, 5), 0.6131, 0.00005, "ndcg_cut_5 n2 -J = 0.6131");
	is_double(m_rprec(&e, 1), 0.5, 1e-12, "Rprec n2 -J = 0.5");
	qrels_query_release(&qq);
	hit_ctx_release(&c);
}

static void test_duplicates(void)
{
	static const char *const jid[] = { "c" };
	static const int jrel[] = { 1 };
	static const struct doc run[] = { { "c", 3 }, { "d", 2 }, { "c", 1 } };
	struct qrels_query qq;
	struct hit_ctx c;
	struct query_eval e;

	hit_ctx_init(&c);
	make_qq(&qq, jid, jrel, 1);
	test_capture_errors();
	ok(eval_group(&c, run, 3, &qq, false, 0, &e) < 0, "a docid twice in a judged query is refused");
	ok(strstr(test_captured(), "run:3: document 'c' listed twice") != NULL,
	   "the error names the file, the second line and the docid");
	ok(!eval_group(&c, run, 3, &qq, false, 2, &e), "-M 2 keeps one copy: no duplicate left");
	is_int(e.num_ret, 2, "-M 2 keeps two documents");
	qrels_query_release(&qq);
	hit_ctx_release(&c);
}

static int cmp_doc(const void *a, const void *b)
{
	const struct doc *x = a, *y = b;

	return run_rank_cmp(x->score, x->id, y->score, y->id);
}

static bool same_eval(const struct query_eval *a, const struct query_eval *b)
{
	if (a->num_ret != b->num_ret || a->nr_hits != b->nr_hits)
		return false;
	for (size_t i = 0; i < a->nr_hits; i++)
		if (a->hits[i].rank != b->hits[i].rank || a->hits[i].rel != b->hits[i].rel)
			return false;
	return true;
}

static void test_properties(void)
{
	char ids[60][8];
	const char *jid[20];
	int jrel[20];
	struct doc docs[60], sorted[60];
	bool bounded = true, monotone = true, shuffled = true, agree = true, judged_agree = true;
	bool cut_agree = true;
	struct hit_ctx c1, c2;

	hit_ctx_init(&c1);
	hit_ctx_init(&c2);
	for (int i = 0; i < 60; i++)
		snprintf(ids[i], sizeof(ids[i]), "d%d", i);
	for (int round = 0; round < 300; round++) {
		size_t n = 1 + rng() % 60, nj = rng() % 20;
		struct qrels_query qq;
		struct query_eval e, f;
		struct run_query rq;
		struct run_doc rd[60];
		long prev_k = 0;
		double prev = 0.0;

		/* a random subset of 'nj' distinct judged ids with grades -1..3 */
		for (size_t j = 0; j < nj; j++) {
			jid[j] = ids[(j * 7 + (size_t)round) % 60];
			jrel[j] = (int)(rng() % 5) - 1;
		}
		for (size_t j = 0; j < nj; j++)
			for (size_t i = 0; i < j; i++)
				if (!strcmp(jid[i], jid[j]))
					jid[j] = NULL;
		{
			size_t w = 0;

			for (size_t j = 0; j < nj; j++)
				if (jid[j]) {
					jid[w] = jid[j];
					jrel[w++] = jrel[j];
				}
			nj = w;
		}
		make_qq(&qq, jid, jrel, nj);
		/* 'n' distinct docs, scores with many ties */
		for (size_t i = 0; i < n; i++) {
			docs[i].id = ids[(i * 13 + (size_t)round * 3) % 60];
			docs[i].score = (double)(rng() % 5) / 2.0;
		}
		eval_group(&c1, docs, n, &qq, false, 0, &e);
		for (int m = MK_MAP; m < MK_COUNT; m++) {
			static const long ks[] = { 1, 3, 5, 10, 100 };

			for (size_t ki = 0; ki < ARRAY_SIZE(ks); ki++) {
				struct measure me = { (enum measure_kind)m, ks[ki], 1, "" };
				double v;

				if (m == MK_NUM_REL || m == MK_NUM_REL_RET || m == MK_NUM_RET)
					continue;
				v = measure_value(&me, &e);
				if (!(v >= 0.0 && v <= 1.0))
					bounded = false;
			}
		}
		for (long k = 1; k <= 64; k++) {
			double r = m_recall(&e, 1, k);

			if (k > prev_k && r < prev)
				monotone = false;
			prev = r;
			prev_k = k;
		}
		/* the same lines in another order */
		memcpy(sorted, docs, n * sizeof(*docs));
		for (size_t i = n; i > 1; i--) {
			size_t j = rng() % i;
			struct doc t = sorted[i - 1];

			sorted[i - 1] = sorted[j];
			sorted[j] = t;
		}
		eval_group(&c2, sorted, n, &qq, false, 0, &f);
		if (!same_eval(&e, &f) || m_ndcg(&e, 10) != m_ndcg(&f, 10) || m_ap(&e, 1, 0) != m_ap(&f, 1, 0))
			shuffled = false;
		/* the sort-free ranks agree with a full sort */
		qsort(sorted, n, sizeof(*sorted), cmp_doc);
		for (size_t i = 0; i < n; i++) {
			rd[i].id = (char *)sorted[i].id;
			rd[i].score = sorted[i].score;
			rd[i].line = 0;
		}
		memset(&rq, 0, sizeof(rq));
		rq.docs = rd;
		rq.nr = n;
		hits_from_ranked(&c2, &rq, &qq, false, &f);
		if (!same_eval(&e, &f))
			agree = false;
		eval_group(&c1, docs, n, &qq, true, 0, &e);
		hits_from_ranked(&c2, &rq, &qq, true, &f);
		if (!same_eval(&e, &f))
			judged_agree = false;
		if (n > 2) {
			/* -M: the first n-2 of the ranking */
			eval_group(&c1, docs, n, &qq, false, (long)n - 2, &e);
			rq.nr = n - 2;
			hits_from_ranked(&c2, &rq, &qq, false, &f);
			if (!same_eval(&e, &f))
				cut_agree = false;
		}
		qrels_query_release(&qq);
	}
	ok(bounded, "every measure stays within [0, 1] on random rankings");
	ok(monotone, "R@k never decreases with k");
	ok(shuffled, "a run's lines shuffled give the same ranks and scores");
	ok(agree, "ranks computed without sorting equal those of a full sort");
	ok(judged_agree, "the same holds with judged documents only (-J)");
	ok(cut_agree, "a depth cutoff (-M) equals truncating the sorted ranking");
	hit_ctx_release(&c1);
	hit_ctx_release(&c2);
}

static void test_hash(void)
{
	char buf[64];
	bool same = true;

	for (size_t len = 0; len < 40; len++) {
		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (char)('a' + (rng() % 26));
		if (qrels_hash(buf, len) != qrels_hash_padded(buf, len))
			same = false;
	}
	ok(same, "the padded hash equals the plain one for every length");
}

static void test_iprec(void)
{
	static const struct judged_hit hits[] = { { 1, 1 }, { 3, 0 }, { 4, 1 } };
	static const long levels[] = { 1, 3 };
	double pct[11], out[11];
	struct query_eval e = { 10, hits, 3, levels, 2, 1 };

	for (int i = 0; i <= 10; i++)
		pct[i] = i / 10.0;
	m_iprec_at_recall(&e, 1, pct, 11, out);
	/* 3 relevant; found at ranks 1 and 4: precision 1 at recall 1/3, 0.5 at 2/3 */
	is_double(out[0], 1.0, 0, "iprec at recall 0 is the best precision");
	is_double(out[3], 1.0, 0, "iprec at recall 0.3 (one relevant) = 1");
	is_double(out[5], 0.5, 0, "iprec at recall 0.5 (two relevant) = 2/4");
	is_double(out[10], 0.0, 0, "iprec at recall 1 is 0: the third is never found");
}

static void test_measure_names(void)
{
	struct measure m;

	ok(!measure_parse("P(rel=2)@5", &m) && m.kind == MK_P && m.k == 5 && m.rel == 2,
	   "P(rel=2)@5 parses");
	is_str(m.name, "P(rel=2)@5", "canonical name kept");
	ok(!measure_parse("Hit@10", &m) && m.kind == MK_SUCCESS, "Hit@k is Success@k");
	is_str(m.name, "Success@10", "Hit@10 is reported as Success@10");
	ok(!measure_parse("nDCG", &m) && m.kind == MK_NDCG && !m.k, "nDCG without cutoff");
	ok(!measure_parse("AP@100", &m) && m.kind == MK_MAP_CUT, "AP@k is map_cut");
	test_capture_errors();
	ok(measure_parse("Foo@10", &m) < 0, "an unknown measure is refused");
	ok(strstr(test_captured(), "supported: P@k") != NULL, "the error lists the supported measures");
	ok(measure_parse("nDGC@10", &m) < 0 && strstr(test_captured(), "did you mean 'nDCG@10'?") != NULL,
	   "a typo gets the closest name");
	ok(!measure_parse("MRR@10", &m) && m.kind == MK_RECIP_RANK && m.k == 10, "MRR@10 is RR@10");
	is_str(m.name, "RR@10", "MRR@10 is reported as RR@10");
	ok(!measure_parse("recall@5", &m) && m.kind == MK_RECALL, "recall@5 is R@5");
	ok(!measure_parse("MAP", &m) && m.kind == MK_MAP && !strcmp(m.name, "AP"), "MAP is AP");
	ok(measure_parse("R", &m) < 0, "R without @k is refused");
	ok(measure_parse("nDCG(rel=2)@5", &m) < 0, "nDCG takes no relevance threshold");
	ok(measure_parse("P@0", &m) < 0, "a cutoff must be positive");
	test_captured();
}

static void test_trec_names(void)
{
	struct te_selection s;
	struct te_column *cols;
	size_t n;

	te_selection_init(&s);
	ok(!te_select(&s, "ndcg_cut.10") && !te_select(&s, "P.10,5") && !te_select(&s, "map"),
	   "trec_eval names with cutoffs");
	n = te_columns(&s, &cols);
	is_int(n, 4, "four columns");
	is_str(cols[0].name, "map", "trec_eval order: map first");
	is_str(cols[1].name, "P_5", "cutoffs ascending");
	is_str(cols[3].name, "ndcg_cut_10", "ndcg_cut after P");
	free(cols);
	te_selection_init(&s);
	te_select(&s, "official");
	n = te_columns(&s, &cols);
	is_int(n, 30, "official: 10 single measures, 11 iprec levels, 9 P cutoffs");
	is_str(cols[10].name, "iprec_at_recall_0.00", "iprec names as %3.2f");
	free(cols);
	test_capture_errors();
	ok(te_select(&s, "prefs_simp") < 0, "an unsupported trec_eval measure is refused");
	ok(strstr(test_captured(), "supported: runid, num_q") != NULL, "and the supported ones listed");
	ok(te_select(&s, "P.5,5") < 0, "duplicate cutoffs are refused");
	ok(te_select(&s, "ndcg.1=3,x") < 0, "gain parameters must be name=value pairs");
	test_captured();
	te_selection_init(&s);
	ok(!te_select(&s, "set_F.0.5") && !te_select(&s, "ndcg.1=3,2=9") && !te_select(&s, "Rprec_mult"),
	   "value, pair and real-cutoff parameters");
	n = te_columns(&s, &cols);
	is_int(n, 12, "Rprec_mult has ten default multiples");
	is_str(cols[0].name, "Rprec_mult_0.20", "Rprec_mult names as %3.2f");
	is_str(cols[10].name, "ndcg_1=3,2=9", "pair parameters named verbatim");
	is_str(cols[11].name, "set_F_0.5", "value parameters named verbatim");
	free(cols);
	te_selection_init(&s);
	ok(!te_select(&s, "all_trec"), "all_trec");
	n = te_columns(&s, &cols);
	is_str(cols[n - 1].name, "unj_20", "all_trec ends with unj");
	free(cols);
}

int main(void)
{
	test_graded_against_trec_eval();
	test_ties();
	test_judged_only();
	test_duplicates();
	test_properties();
	test_hash();
	test_iprec();
	test_measure_names();
	test_trec_names();
	return test_done();
}
