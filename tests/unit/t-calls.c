/*
 * t-calls: an agent's calls (docs/agents.md): reading "calls" from a JSONL
 * run (core/score/run-json.c), the measures FirstR@k, CallSuccess@n and
 * Calls (core/score/measures.c), the calls to the first relevant chunk,
 * and where each call ends once unjudged chunks are dropped
 * (core/score/score.c).
 *
 * Expected values are worked out by hand from the definitions; the
 * arithmetic is in the comments.
 */
#include "test-lib.h"
#include "score/measures.h"
#include "score/metrics.h"
#include "score/qrels.h"
#include "score/results.h"
#include "score/run.h"
#include "score/score.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *dir;

/*
 * q1: call 1 [x1 c1 x2], call 2 [c1 x3 c2], call 3 [x4]: the union is
 *     x1 c1 x2 x3 c2 x4 (c1 again in call 2 counts once, at rank 2), the
 *     calls end at 3, 5, 6.
 * q2: call 1 [x1], call 2 [], call 3 [x1 c3]: union x1 c3, ends 1, 1, 2.
 * q3: a plain list [c4 x1]: one call.
 * q4: call 1 [x1 x2]: relevant c5 never reached.
 */
static const char *const run_text =
	"{\"qid\": \"q1\", \"calls\": [{\"query\": \"a\", \"results\": [\"x1\", \"c1\", \"x2\"]},"
	" {\"query\": \"b\", \"results\": [\"c1\", \"x3\", {\"id\": \"c2\", \"score\": 1}]},"
	" {\"results\": [\"x4\"]}]}\n"
	"{\"qid\": \"q2\", \"calls\": [{\"query\": \"a\", \"results\": [\"x1\"]},"
	" {\"query\": \"b\", \"results\": []}, {\"query\": null, \"results\": [\"x1\", \"c3\"]}]}\n"
	"{\"qid\": \"q3\", \"results\": [\"c4\", \"x1\"]}\n"
	"{\"qid\": \"q4\", \"calls\": [{\"query\": \"a\", \"results\": [\"x1\", \"x2\"]}]}\n";

/* q1 relevant c1 (grade 1), c2 (grade 2), x2 judged irrelevant; q2 c3;
 * q3 c4; q4 c5; q5 c6 (absent from the run) */
static const char *const qrels_text =
	"q1 0 c1 1\nq1 0 c2 2\nq1 0 x2 0\nq2 0 c3 1\nq3 0 c4 1\nq4 0 c5 1\nq5 0 c6 1\n";

static bool ends_are(const struct run_query *q, const long *want, size_t n)
{
	if (!q || q->nr_calls != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (q->call_end[i] != want[i])
			return false;
	return true;
}

static void test_read(const char *path)
{
	struct run r;
	const struct run_query *q;
	static const long e1[] = { 3, 5, 6 }, e2[] = { 1, 1, 2 };

	run_init(&r);
	ok(run_load(&r, path) == 0, "a run with calls loads");
	ok(r.has_calls, "the run says it has calls");
	q = run_find(&r, "q1");
	ok(q && q->nr == 6 && !strcmp(q->docs[1].id, "c1") && !strcmp(q->docs[3].id, "x3") &&
	   !strcmp(q->docs[4].id, "c2") && !strcmp(q->docs[5].id, "x4"),
	   "q1: the union x1 c1 x2 x3 c2 x4, c1 once where it came first");
	ok(ends_are(q, e1, 3), "q1: the calls end at 3, 5, 6");
	ok(q && q->nr == 6 && q->docs[4].score == 1.0, "q1: a result's score is kept");
	q = run_find(&r, "q2");
	ok(q && q->nr == 2 && !strcmp(q->docs[1].id, "c3"), "q2: the union x1 c3");
	ok(ends_are(q, e2, 3), "q2: an empty call ends where the call before it did (1, 1, 2)");
	q = run_find(&r, "q3");
	ok(q && q->nr_calls == 0 && !q->call_end && q->nr == 2, "q3: a plain list has no calls");
	is_int(r.nr_docs, 6 + 2 + 2 + 2, "the run's documents count each union once");
	ok(run_rank_by_score(&r) < 0, "a run with calls is not ranked by score");
	run_release(&r);
}

/* Score 'run' against 'qrels' with 'names' into 'res'. */
static int score_with(const char *qrels_path, const char *run_path, const char *const *names,
		      size_t n, bool judged_only, struct results *res)
{
	struct qrels qr;
	struct run run;
	struct measure ms[8];
	struct score_options so;
	struct score_summary sum;
	int rc;

	for (size_t i = 0; i < n; i++)
		if (measure_parse(names[i], &ms[i]) < 0)
			return -1;
	memset(&so, 0, sizeof(so));
	memset(&sum, 0, sizeof(sum));
	so.measures = ms;
	so.nr_measures = n;
	so.k = 5;
	so.depth = 50;
	so.judged_only = judged_only;
	qrels_init(&qr);
	run_init(&run);
	results_init(res);
	rc = qrels_load(&qr, qrels_path);
	if (!rc)
		rc = run_load(&run, run_path);
	if (!rc)
		rc = score_qrels(&qr, &run, run_path, &so, res, &sum);
	score_summary_release(&sum);
	run_release(&run);
	qrels_release(&qr);
	return rc;
}

static double value(const struct results *r, const char *qid, const char *measure)
{
	const struct question_result *q = results_find(r, qid);
	long m = results_measure(r, measure);

	return q && m >= 0 ? q->values[m] : NAN;
}

static void test_measures(const char *qrels_path, const char *run_path)
{
	static const char *const names[] = {
		"R@5", "FirstR@5", "FirstR@1", "CallSuccess@1", "CallSuccess@2", "CallSuccess@3",
		"Calls", "FirstR(rel=2)@5",
	};
	struct results res;
	struct calls_to_rel ctr;
	const struct question_result *q;

	ok(score_with(qrels_path, run_path, names, ARRAY_SIZE(names), false, &res) == 0,
	   "the run is scored");
	ok(res.has_calls, "the results record the calls");
	/* q1: relevant c1 (rank 2, call 1), c2 (rank 5, call 2) */
	is_double(value(&res, "q1", "R@5"), 1.0, 0, "q1 R@5 = 2/2 over the union");
	is_double(value(&res, "q1", "FirstR@5"), 0.5, 0, "q1 FirstR@5 = 1/2: call 1 holds c1 only");
	is_double(value(&res, "q1", "FirstR@1"), 0.0, 0, "q1 FirstR@1 = 0: x1 first");
	is_double(value(&res, "q1", "FirstR(rel=2)@5"), 0.0, 0,
		  "q1 FirstR(rel=2)@5 = 0: the grade-2 c2 came in call 2");
	is_double(value(&res, "q1", "CallSuccess@1"), 1.0, 0, "q1 CallSuccess@1 = 1 (c1)");
	is_double(value(&res, "q1", "Calls"), 3.0, 0, "q1 made 3 calls");
	/* q2: c3 at rank 2, which call 3 brought (calls end 1, 1, 2) */
	is_double(value(&res, "q2", "CallSuccess@1"), 0.0, 0, "q2 CallSuccess@1 = 0");
	is_double(value(&res, "q2", "CallSuccess@2"), 0.0, 0, "q2 CallSuccess@2 = 0: call 2 found nothing");
	is_double(value(&res, "q2", "CallSuccess@3"), 1.0, 0, "q2 CallSuccess@3 = 1");
	is_double(value(&res, "q2", "FirstR@5"), 0.0, 0, "q2 FirstR@5 = 0");
	/* q3: a plain list is one call: FirstR is R, CallSuccess@1 is Success */
	is_double(value(&res, "q3", "FirstR@5"), 1.0, 0, "q3 (no calls) FirstR@5 = R@5 = 1");
	is_double(value(&res, "q3", "CallSuccess@1"), 1.0, 0, "q3 CallSuccess@1 = 1");
	is_double(value(&res, "q3", "Calls"), 1.0, 0, "q3 made one call");
	/* q4: nothing relevant; q5: missing, no call */
	is_double(value(&res, "q4", "CallSuccess@3"), 0.0, 0, "q4 never reaches c5");
	is_double(value(&res, "q5", "Calls"), 0.0, 0, "q5 (missing) made no call");
	q = results_find(&res, "q5");
	ok(q && q->nr_calls == 0, "a missing question records no call");
	q = results_find(&res, "q3");
	ok(q && q->nr_calls == 1 && q->call_end[0] == 2, "a plain list records one call ending at its length");
	/* calls to the first relevant: q1 1, q2 3, q3 1; q4 and q5 none: (1 + 3 + 1) / 3 */
	score_calls_to_rel(&res, &ctr);
	is_int(ctr.questions, 5, "five answerable questions");
	is_int(ctr.reached, 3, "three reach a relevant chunk");
	is_double(ctr.mean, 5.0 / 3.0, 1e-12, "calls to the first relevant: (1 + 3 + 1) / 3");
	/* the means: Calls (3 + 3 + 1 + 1 + 0) / 5 = 1.6 */
	is_double(res.aggregate[results_measure(&res, "Calls")], 1.6, 1e-12, "Calls averages 1.6");
	results_release(&res);

	/*
	 * judged only: unjudged chunks leave the ranking first. q1 keeps c1,
	 * x2 (call 1), c2 (call 2): ends 2, 3, 3, and c1 is now at rank 1:
	 * FirstR@1 = 1/2. q2 keeps c3 alone: ends 0, 0, 1.
	 */
	ok(score_with(qrels_path, run_path, names, ARRAY_SIZE(names), true, &res) == 0,
	   "the run is scored judged only");
	q = results_find(&res, "q1");
	ok(q && q->nr_calls == 3 && q->call_end[0] == 2 && q->call_end[1] == 3 && q->call_end[2] == 3,
	   "judged only, q1's calls end at 2, 3, 3 (x1, x3, x4 dropped)");
	is_double(value(&res, "q1", "FirstR@1"), 0.5, 0, "judged only, q1 FirstR@1 = 1/2 (c1 first)");
	q = results_find(&res, "q2");
	ok(q && q->nr_calls == 3 && q->call_end[0] == 0 && q->call_end[1] == 0 && q->call_end[2] == 1,
	   "judged only, q2's calls end at 0, 0, 1");
	is_double(value(&res, "q2", "CallSuccess@2"), 0.0, 0,
		  "judged only, q2 CallSuccess@2 = 0 (no position yet, not 'the whole list')");
	results_release(&res);
}

static void test_plain_list_values(void)
{
	/* a ranking with no call information: one call over num_ret positions */
	struct judged_hit hits[] = { { 3, 1 } };
	long levels[] = { 0, 1 };
	struct query_eval e = { 4, hits, 1, levels, 2, 1 };
	struct measure m;
	long ends[] = { 2, 4 };
	struct call_eval two = { ends, 2 }, none = { NULL, 0 };

	ok(measure_parse("FirstR@5", &m) == 0 && measure_value_all(&m, &e, NULL, NULL) == 1.0,
	   "FirstR@5 without calls is R@5");
	ok(measure_value_all(&m, &e, NULL, &two) == 0.0, "FirstR@5 with call 1 ending at 2 misses rank 3");
	{
		long three_ends[] = { 3, 4 };
		struct call_eval three = { three_ends, 2 };

		/* call 1 ends at 3, one past k = 2: its rank 3 is beyond the cutoff */
		ok(measure_parse("FirstR@2", &m) == 0 && measure_value_all(&m, &e, NULL, &three) == 0.0,
		   "FirstR@2 = 0 with the relevant chunk at rank 3 of call 1");
		ok(measure_parse("FirstR@3", &m) == 0 && measure_value_all(&m, &e, NULL, &three) == 1.0,
		   "FirstR@3 = 1 with the relevant chunk at rank 3 of call 1");
		ok(measure_parse("FirstR@5", &m) == 0, "FirstR@5 again");
	}
	ok(measure_parse("CallSuccess@1", &m) == 0 && measure_value_all(&m, &e, NULL, &two) == 0.0,
	   "CallSuccess@1 = 0: rank 3 came in call 2");
	ok(measure_parse("CallSuccess@9", &m) == 0 && measure_value_all(&m, &e, NULL, &two) == 1.0,
	   "CallSuccess@9 with 2 calls: all of them");
	ok(measure_value_all(&m, &e, NULL, &none) == 0.0, "no call at all: CallSuccess 0");
	ok(measure_parse("Calls", &m) == 0 && measure_value_all(&m, &e, NULL, &two) == 2.0 &&
	   measure_value_all(&m, &e, NULL, NULL) == 1.0, "Calls: 2, and 1 without calls");
	is_int(calls_to_relevant(&e, &two, 1), 2, "rank 3 reached by call 2");
	is_int(calls_to_relevant(&e, NULL, 1), 1, "without calls, call 1");
	is_int(calls_to_relevant(&e, &two, 2), 0, "nothing of grade 2: none");
	ok(measure_parse("callhit@2", &m) == 0 && !strcmp(m.name, "CallSuccess@2"), "CallHit is CallSuccess");
	ok(measure_parse("firstrecall@3", &m) == 0 && !strcmp(m.name, "FirstR@3"), "FirstRecall is FirstR");
	ok(measure_parse("CallSuccess", &m) < 0, "CallSuccess needs a number of calls");
}

int main(void)
{
	char tmpl[] = "/tmp/t-calls-XXXXXX";
	char *run_path = NULL, *qrels_path = NULL;

	test_capture_errors();
	dir = mkdtemp(tmpl);
	if (dir) {
		run_path = test_write_file(dir, "run.jsonl", run_text);
		qrels_path = test_write_file(dir, "qrels.txt", qrels_text);
	}
	ok(run_path && qrels_path, "the files are written");
	if (run_path && qrels_path) {
		test_read(run_path);
		test_measures(qrels_path, run_path);
	}
	test_plain_list_values();
	free(run_path);
	free(qrels_path);
	if (dir)
		test_remove_tree(dir);
	return test_done();
}
