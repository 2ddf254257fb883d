/*
 * t-report: the report's cutoff arithmetic agrees with the metrics of
 * `score` (trec_eval semantics), and a rendered page holds score's numbers,
 * the data of its question table, and nothing unescaped.
 */
#include "test-lib.h"
#include "score/measures.h"
#include "score/metrics.h"
#include "report/report.h"
#include "score/results.h"
#include "score/run.h"
#include "score/score.h"
#include "set/set.h"
#include "compare/stats.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp_desc(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x < y) - (x > y);
}

/* Random rankings with graded, judged-irrelevant and unjudged documents:
 * report_cutoff_measures must give what metrics.h gives at every k. */
static void test_cutoff_matches_metrics(void)
{
	struct rng rng;
	int worst_k = 0;
	double worst = 0;
	size_t checked = 0;

	rng_seed(&rng, 42);
	for (int trial = 0; trial < 2000; trial++) {
		struct judged_hit hits[40];
		int grades[40], ideal[60], page_grades[REPORT_SLIDER_MAX];
		long levels[4] = { 0, 0, 0, 0 };
		size_t n = (size_t)rng_below(&rng, 40), nr_hits = 0, nr_ideal = 0;
		long first = 0, num_rel = 0;
		struct query_eval e;

		for (size_t i = 0; i < n; i++) {
			int g = (int)rng_below(&rng, 6) - 2;   /* -2, -1: unjudged; 0..3 */
			grades[i] = g < 0 ? -1 : g;
			if (g >= 0) {
				hits[nr_hits++] = (struct judged_hit){ (long)i + 1, g };
				levels[g]++;
				if (g >= 1) {
					ideal[nr_ideal++] = g;
					if (!first)
						first = (long)i + 1;
				}
			}
		}
		for (int extra = (int)rng_below(&rng, 4); extra > 0; extra--) {
			int g = 1 + (int)rng_below(&rng, 3);   /* relevant, not retrieved */
			levels[g]++;
			ideal[nr_ideal++] = g;
		}
		num_rel = levels[1] + levels[2] + levels[3];
		qsort(ideal, nr_ideal, sizeof(*ideal), cmp_desc);
		memcpy(page_grades, grades, sizeof(page_grades));
		e = (struct query_eval){ (long)n, hits, nr_hits, levels, 4, 1 };
		for (int k = 1; k <= REPORT_SLIDER_MAX; k++) {
			double v[5], want[5];
			report_cutoff_measures(page_grades, n < REPORT_SLIDER_MAX ? n : REPORT_SLIDER_MAX,
					       ideal, nr_ideal < REPORT_SLIDER_MAX ? nr_ideal
										: REPORT_SLIDER_MAX,
					       num_rel, first, k, v);
			want[0] = m_precision(&e, 1, k);
			want[1] = m_recall(&e, 1, k);
			want[2] = m_success(&e, 1, k);
			want[3] = m_recip_rank(&e, 1, 0);
			want[4] = m_ndcg(&e, k);
			for (int m = 0; m < 5; m++) {
				double d = fabs(v[m] - want[m]);
				if (d > worst) {
					worst = d;
					worst_k = k;
				}
			}
			checked++;
		}
	}
	ok(worst < 1e-12, "P@k, R@k, Success@k, RR and nDCG@k equal metrics.h on %zu random "
	   "rankings x cutoffs (worst difference %g at k=%d)", checked, worst, worst_k);
}

static const char set_yaml[] =
	"evalset: 1\n"
	"name: tiny\n"
	"questions:\n"
	"  - id: q-0001\n"
	"    text: \"<script>alert(1)</script> alpha\"\n"
	"    origin: hand\n"
	"    relevant: {c-a: 2, c-b: 1}\n"
	"    tags: [\"<i>t</i>\"]\n"
	"  - id: q-0002\n"
	"    text: beta\n"
	"    relevant: [c-b]\n"
	"  - id: q-0003\n"
	"    text: nothing\n"
	"    answerable: false\n";

static const char run_jsonl[] =
	"{\"qid\": \"q-0001\", \"results\": [\"c-x\", \"c-b\", \"c-y\", \"c-a\"]}\n"
	"{\"qid\": \"q-0002\", \"results\": [\"c-b\", \"c-<img src=x onerror=alert(2)>\"]}\n"
	"{\"qid\": \"q-0003\", \"results\": []}\n";

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* Return the number in attribute data-value of the element with 'id'. */
static double page_value(const char *html, const char *id)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "id=\"%s\" data-value=\"", id);
	p = strstr(html, key);
	return p ? strtod(p + strlen(key), NULL) : NAN;
}

static void test_render(void)
{
	static const char *const names[5] = { "P@5", "R@5", "Success@5", "RR", "nDCG@5" };
	static const char *const ids[5] = { "set-P", "set-R", "set-S", "set-RR", "set-nDCG" };
	char path[] = "/tmp/t-report-run-XXXXXX";
	struct set set;
	struct run run;
	struct results res;
	struct measure m[5];
	struct score_options so;
	struct score_summary sum;
	struct report_input in;
	struct strbuf out = STRBUF_INIT;
	int fd = mkstemp(path);

	set_init(&set);
	run_init(&run);
	results_init(&res);
	memset(&sum, 0, sizeof(sum));
	if (fd < 0 || write(fd, run_jsonl, strlen(run_jsonl)) != (ssize_t)strlen(run_jsonl)) {
		ok(0, "cannot write a temporary run");
		return;
	}
	close(fd);
	for (int i = 0; i < 5; i++)
		measure_parse(names[i], &m[i]);
	so = (struct score_options){ m, 5, 5, 50, false, false, 0, NULL, NULL };
	ok(set_load_buf(&set, set_yaml, strlen(set_yaml), "tiny.yaml") == 0 &&
	   run_load(&run, path) == 0 &&
	   score_set(&set, NULL, &run, path, &so, &res, &sum) == 0, "the fixture scores");

	memset(&in, 0, sizeof(in));
	in.set = &set;
	in.set_label = "tiny";
	in.cand = &res;
	ok(report_render(&in, &out) == 0, "a report renders from results alone");
	ok(starts_with(out.buf, "<!DOCTYPE html>") && ends_with(out.buf, "</html>\n"),
	   "the page is one HTML document");
	for (int i = 0; i < 5; i++) {
		long j = results_measure(&res, names[i]);
		double want = j >= 0 ? res.aggregate[j] : NAN;
		is_double(page_value(out.buf, ids[i]), want, 1e-12, names[i]);
	}
	ok(!strstr(out.buf, "<script>alert") && !strstr(out.buf, "<img") && !strstr(out.buf, "<i>t"),
	   "no string from the set or the run becomes markup");
	ok(strstr(out.buf, "&lt;script&gt;alert(1)&lt;/script&gt; alpha") != NULL,
	   "the question text shows escaped");
	ok(strstr(out.buf, "c-\\u003cimg src=x onerror=alert(2)\\u003e") != NULL,
	   "ids in the slider's JSON have their '<' escaped");
	/* the data block: one row per answerable question, for the slider and the table */
	ok(count(out.buf, "[\"q-000") == 2 && !strstr(out.buf, "[\"q-0003\""),
	   "the page's data holds a row per answerable question");
	ok(strstr(out.buf, ",\"found\",null,2,2,\"21\",\"-1-2\",[") != NULL,
	   "q-0001's row: found, no baseline, first relevant at 2, 2 relevant, ideal 2 1, "
	   "grades unjudged 1 unjudged 2");
	ok(strstr(out.buf, "<span id=\"n-found\">2</span>") && strstr(out.buf, "<span id=\"n-never\">0</span>"),
	   "the question table's counts: 2 found, 0 never found");
	ok(count(out.buf, "<main>") == 1 && !strstr(out.buf, "<select id=\"q\""),
	   "one main landmark; no <select> of every question");
	ok(count(out.buf, "http://") == count(out.buf, "http://www.w3.org/2000/svg") &&
	   count(out.buf, "https://") == 0 &&
	   count(out.buf, " src=\"") == 0 && count(out.buf, " href=\"http") == 0 &&
	   count(out.buf, "url(") == 0,
	   "nothing refers to the network (the SVG namespace is a name, not a fetch)");
	strbuf_reset(&out);

	in.k = 21;
	test_capture_errors();
	ok(report_render(&in, &out) < 0 && strstr(test_captured(), "out of range"),
	   "k beyond the slider's range is refused");
	in.k = 0;
	for (size_t i = 0; i < res.nr; i++)
		res.q[i].answerable = false;
	ok(report_render(&in, &out) < 0 && strstr(test_captured(), "no answerable question"),
	   "results without an answerable question are refused");

	unlink(path);
	strbuf_release(&out);
	score_summary_release(&sum);
	results_release(&res);
	run_release(&run);
	set_release(&set);
}

int main(void)
{
	test_cutoff_matches_metrics();
	test_render();
	return test_done();
}
