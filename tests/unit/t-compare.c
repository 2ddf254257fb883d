/*
 * t-compare: the comparison of two results built in memory: identical runs,
 * a run that loses hits, digest refusal, subsets, lost/gained and power.
 */
#include "test-lib.h"
#include "compare/compare-out.h"
#include "compare/compare.h"
#include "compare/gate.h"
#include "score/results.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Build results over 'n' questions with measures R@5 and RR: question i is
 * answerable unless i % unans_every == unans_every - 1 (0: all answerable),
 * found at rank ranks[i] (0: not found). Tag "hard" on every third question,
 * origin mined on even ones, synthetic on odd ones. */
static void build(struct results *r, const char *digest, const char *version, size_t n,
		  const long *ranks, int unans_every, const bool *declined)
{
	static const char *const names[] = { "R@5", "RR" };

	memset(r, 0, sizeof(*r));
	r->set_name = xstrdup("demo");
	r->set_version = xstrdup(version);
	r->set_digest = xstrdup(digest);
	r->run_name = xstrdup(version);
	r->k = 5;
	r->depth = 50;
	r->nr_measures = 2;
	r->measures = xcalloc(2, sizeof(char *));
	for (size_t j = 0; j < 2; j++)
		r->measures[j] = xstrdup(names[j]);
	r->nr = n;
	r->q = xcalloc(n, sizeof(*r->q));
	for (size_t i = 0; i < n; i++) {
		struct question_result *q = &r->q[i];

		q->id = xstrfmt("q-%04zu", i + 1);
		q->text = xstrfmt("question %zu", i + 1);
		q->origin = xstrdup(i % 2 ? "synthetic" : "mined");
		q->answerable = !(unans_every && (int)(i % (size_t)unans_every) == unans_every - 1);
		if (i % 3 == 0) {
			q->nr_tags = 1;
			q->tags = xcalloc(1, sizeof(char *));
			q->tags[0] = xstrdup("hard");
		}
		q->declined = declined ? declined[i] : false;
		q->values = xcalloc(2, sizeof(double));
		if (!q->answerable) {
			q->values[0] = q->values[1] = NAN;
			continue;
		}
		if (ranks[i]) {
			q->nr_rel_ranks = 1;
			q->rel_ranks = xcalloc(1, sizeof(long));
			q->rel_ranks[0] = ranks[i];
		}
		q->values[0] = ranks[i] && ranks[i] <= 5 ? 1 : 0;
		q->values[1] = ranks[i] ? 1.0 / (double)ranks[i] : 0;
	}
}

/* Compare one baseline results with one candidate results. */
static int cmp2(struct compare *c, const struct results *a, const struct results *b,
		const struct compare_opts *o)
{
	const struct results *pa[] = { a }, *pb[] = { b };

	return compare_run(c, pa, 1, pb, 1, o);
}

static void release(struct results *r)
{
	for (size_t i = 0; i < r->nr; i++) {
		struct question_result *q = &r->q[i];

		free(q->id);
		free(q->text);
		free(q->origin);
		for (size_t t = 0; t < q->nr_tags; t++)
			free(q->tags[t]);
		free(q->tags);
		free(q->rel_ranks);
		free(q->values);
	}
	free(r->q);
	for (size_t j = 0; j < r->nr_measures; j++)
		free(r->measures[j]);
	free(r->measures);
	free(r->set_name);
	free(r->set_version);
	free(r->set_digest);
	free(r->run_name);
	memset(r, 0, sizeof(*r));
}

static void test_identical(void)
{
	long ranks[150];
	struct results a, b;
	struct compare c;
	struct compare_opts o = COMPARE_OPTS_INIT;
	const struct measure_cmp *m;

	for (int i = 0; i < 150; i++)
		ranks[i] = i % 4 == 0 ? 0 : (i % 7) + 1;
	build(&a, "sha256:aa", "v1", 150, ranks, 0, NULL);
	build(&b, "sha256:aa", "v1", 150, ranks, 0, NULL);
	compare_init(&c);
	o.resamples = o.permutations = 2000;
	is_int(cmp2(&c, &a, &b, &o), 0, "identical runs compare");
	is_int(c.nr_measures, 3, "every measure both results hold, FalseDecline, no Decline without unanswerable");
	m = &c.subsets[0].m[0];
	ok(m->delta == 0 && m->p == 1, "identical: delta 0, p 1");
	ok(m->tie == 150 && m->win == 0 && m->loss == 0, "identical: 150 ties");
	is_int(c.nr_lost + c.nr_gained, 0, "identical: nothing lost or gained");
	is_str(c.subsets[0].label, "all", "first subset is all");
	ok(compare_subset(&c, SUBSET_ORIGIN, "mined") && compare_subset(&c, SUBSET_TAG, "hard") &&
	   !compare_subset(&c, SUBSET_ORIGIN, "hand") && !compare_subset(&c, SUBSET_ANSWERABLE, "false"),
	   "subsets exist exactly for what the questions hold");
	compare_release(&c);
	release(&a);
	release(&b);
}

static void test_lost_hits(void)
{
	long rb[150], rc[150];
	struct results a, b;
	struct compare c;
	struct compare_opts o = COMPARE_OPTS_INIT;
	const struct measure_cmp *m;
	const struct subset_cmp *hard;

	/* Every question found at rank 2 in the baseline; the candidate pushes 30
	 * of them (every fifth) to rank 20. */
	for (int i = 0; i < 150; i++) {
		rb[i] = 2;
		rc[i] = i % 5 == 0 ? 20 : 2;
	}
	build(&a, "sha256:aa", "v1", 150, rb, 0, NULL);
	build(&b, "sha256:aa", "v1", 150, rc, 0, NULL);
	compare_init(&c);
	is_int(cmp2(&c, &a, &b, &o), 0, "lost hits compare");
	m = &c.subsets[0].m[0];
	is_double(m->baseline, 1, 1e-12, "baseline R@5 1");
	is_double(m->candidate, 0.8, 1e-12, "candidate R@5 0.8");
	is_double(m->delta, -0.2, 1e-12, "delta -0.2");
	ok(m->p < 0.001, "30 of 150 lost: p %g below 0.001", m->p);
	ok(m->win == 0 && m->tie == 120 && m->loss == 30, "win/tie/loss 0/120/30");
	/* deltas: 30 of -1, 120 of 0: mean -0.2, sd sqrt(30 * 0.64 + 120 * 0.04) / sqrt(149) */
	is_double(m->effect, -0.2 / sqrt((30 * 0.64 + 120 * 0.04) / 149), 1e-12, "effect size mean / sd");
	ok(m->ci_lo < -0.2 && m->ci_hi > -0.2 && m->ci_hi < 0, "CI [%g, %g] holds -0.2, excludes 0",
	   m->ci_lo, m->ci_hi);
	is_int(c.nr_lost, 30, "30 questions lost");
	is_int(c.nr_gained, 0, "none gained");
	ok(c.nr_lost && c.lost[0].rank_before == 2 && c.lost[0].rank_after == 20 &&
	   !strcmp(c.lost[0].id, "q-0001") && !strcmp(c.lost[0].text, "question 1"),
	   "a lost question carries id, text and both ranks");
	hard = compare_subset(&c, SUBSET_TAG, "hard");
	/* hard = i % 3 == 0 (50 questions); lost = i % 5 == 0; both: i % 15 == 0 (10). */
	ok(hard && hard->nr_questions == 50 && fabs(hard->m[0].delta + 0.2) < 1e-12,
	   "tag subset: 50 questions, delta -10/50");
	ok(c.boot_seed == 1 && c.perm_seed == 2, "default seeds 1 (bootstrap) and 2 (permutations)");
	compare_release(&c);
	release(&a);
	release(&b);
}

static void test_digest(void)
{
	long r[20] = { 0 };
	struct results a, b;
	struct compare c;
	struct compare_opts o = COMPARE_OPTS_INIT;
	const char *msg;

	build(&a, "sha256:aa", "v1", 20, r, 0, NULL);
	build(&b, "sha256:bb", "v2", 12, r, 0, NULL);
	compare_init(&c);
	test_capture_errors();
	is_int(cmp2(&c, &a, &b, &o), -1, "different digests refused");
	msg = test_captured();
	ok(strstr(msg, "'v1'") && strstr(msg, "'v2'"), "the refusal names both versions: %s", msg);
	compare_release(&c);
	o.allow_set_change = true;
	o.resamples = o.permutations = 100;
	is_int(cmp2(&c, &a, &b, &o), 0, "--allow-set-change compares");
	ok(c.set_changed && c.nr_questions == 12 && c.nr_only_base == 8 && c.nr_only_cand == 0,
	   "only the 12 common questions are compared, and it says so");
	compare_release(&c);
	release(&a);
	release(&b);
}

static void test_decline_and_small(void)
{
	long r[40];
	bool da[40] = { 0 }, db[40] = { 0 };
	struct results a, b;
	struct compare c;
	struct compare_opts o = COMPARE_OPTS_INIT;
	const char *want[] = { "RR" };
	long d;
	const struct subset_cmp *un;

	/* Every fourth question unanswerable (10); baseline declines all of them,
	 * candidate declines 6. */
	for (int i = 0; i < 40; i++) {
		r[i] = 1;
		da[i] = i % 4 == 3;
		db[i] = i % 4 == 3 && i < 24;
	}
	build(&a, "sha256:aa", "v1", 40, r, 4, da);
	build(&b, "sha256:aa", "v1", 40, r, 4, db);
	compare_init(&c);
	o.resamples = o.permutations = 1000;
	is_int(cmp2(&c, &a, &b, &o), 0, "compare with unanswerable questions");
	d = compare_measure(&c, "Decline");
	ok(d == 2, "Decline is compared after the results' measures");
	if (d >= 0) {
		const struct measure_cmp *m = &c.subsets[0].m[d];

		ok(m->n == 10 && m->baseline == 1 && fabs(m->candidate - 0.6) < 1e-12,
		   "Decline over the 10 unanswerable questions: 1 -> 0.6");
	}
	un = compare_subset(&c, SUBSET_ANSWERABLE, "false");
	ok(un && un->m[0].n == 0 && isnan(un->m[0].p), "no R@5 on unanswerable questions");
	un = compare_subset(&c, SUBSET_TAG, "hard");
	/* hard = i % 3 == 0; unanswerable among them: i = 3, 15, 27, 39 */
	ok(un && un->m[d].n == 4, "Decline on the 4 unanswerable questions tagged hard");
	compare_release(&c);
	o.measures = want;
	o.nr_measures = 1;
	is_int(cmp2(&c, &a, &b, &o), 0, "-m selects measures");
	ok(c.nr_measures == 1 && !strcmp(c.measures[0], "RR"), "only the selected measure");
	compare_release(&c);
	want[0] = "nDCG@10";
	test_capture_errors();
	is_int(cmp2(&c, &a, &b, &o), -1, "a measure neither result holds is refused");
	ok(strstr(test_captured(), "nDCG@10") != NULL, "naming it");
	compare_release(&c);
	release(&a);
	release(&b);
}

static void test_power(void)
{
	long r[100];
	struct results a, b;
	struct power_estimate pe;

	for (int i = 0; i < 100; i++)
		r[i] = i % 2 ? 1 : 0; /* R@5 alternates 1, 0 */
	build(&a, "sha256:aa", "v1", 100, r, 0, NULL);
	build(&b, "sha256:aa", "v1", 100, r, 0, NULL);
	is_int(power_estimate(&a, NULL, "R@5", 0.05, &pe), 0, "power from one result");
	/* 50 ones and 50 zeros: sample sd = sqrt(25 / 99) */
	is_double(pe.sd, sqrt(25.0 / 99), 1e-12, "per-question sd");
	is_double(pe.mde, 2.801585218 * sqrt(25.0 / 99) / 10, 1e-6, "MDE at n = 100");
	ok(pe.needed > 100 && pe.needed == (long)ceil(pow(2.801585218 * sqrt(25.0 / 99) / 0.05, 2)),
	   "questions needed for 0.05 (%ld)", pe.needed);
	is_int(power_estimate(&a, &b, "R@5", 0.05, &pe), 0, "power from two results");
	ok(pe.paired && pe.sd == 0 && pe.needed == -1, "identical runs: no spread of deltas");
	test_capture_errors();
	is_int(power_estimate(&a, NULL, "AP", 0.05, &pe), -1, "unknown measure refused");
	release(&a);
	release(&b);
}

static void test_render(void)
{
	long rb[40], rc[40];
	struct results a, b;
	struct compare c;
	struct compare_opts o = COMPARE_OPTS_INIT;
	struct gate g;
	struct gate_outcome out[4];
	struct compare_view v;
	struct strbuf sb = STRBUF_INIT;
	cJSON *json;
	int failed;

	for (int i = 0; i < 40; i++) {
		rb[i] = 1;
		rc[i] = i < 20 ? 0 : 1;
	}
	build(&a, "sha256:aa", "v1", 40, rb, 0, NULL);
	build(&b, "sha256:aa", "v1", 40, rc, 0, NULL);
	free(b.q[0].text);
	b.q[0].text = xstrdup("pipes | and <tags> & 100% \"quotes\"\nsecond line");
	free(a.q[0].text);
	a.q[0].text = xstrdup(b.q[0].text);
	compare_init(&c);
	o.resamples = o.permutations = 500;
	gate_init(&g);
	gate_default(&g, 5);
	o.gate = &g;
	is_int(cmp2(&c, &a, &b, &o), 0, "compare with the default gate");
	failed = gate_evaluate(&g, &c, out);
	is_int(failed, 1, "losing half the hits fails the default gate");
	v = (struct compare_view){ .c = &c, .set_label = "demo@v1", .gate = &g, .outcomes = out,
				   .nr_failed = failed, .show = 5 };

	compare_render_markdown(&v, &sb);
	ok(strstr(sb.buf, "pipes \\| and \\<tags\\> & 100% \"quotes\" second line |") != NULL,
	   "Markdown: a question's pipes, angle brackets and newline cannot break the table");
	ok(strstr(sb.buf, "15 more not shown.") != NULL, "Markdown: --show limits the lost list");
	strbuf_reset(&sb);
	compare_render_junit(&v, &sb);
	ok(strstr(sb.buf, "<failure type=\"regression\"") && strstr(sb.buf, "failures=\"1\""),
	   "JUnit: one failure");
	strbuf_reset(&sb);
	v.set_label = "demo <v1> & \"x\" 'y'\x01\xEF\xBF\xBF\xFF";
	compare_render_junit(&v, &sb);
	ok(strstr(sb.buf, "<testsuite name=\"evalset gate demo &lt;v1&gt; &amp; &quot;x&quot; &apos;y&apos;"
		   "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\" tests=\"4\"") != NULL,
	   "JUnit: <, &, quotes escaped; a control character, U+FFFF and a stray byte, "
	   "which well-formed XML cannot hold, replaced by U+FFFD");
	v.set_label = "demo@v1";
	strbuf_reset(&sb);
	compare_render_annotations(&v, &sb);
	ok(starts_with(sb.buf, "::error title=evalset gate::R@5") && strstr(sb.buf, "97.5%25 (one-sided") &&
	   strchr(sb.buf, '\n') == sb.buf + sb.len - 1,
	   "annotations: one line per failed rule, '%%' escaped: %s", sb.buf);
	strbuf_reset(&sb);
	compare_render_json(&v, &sb);
	json = cJSON_Parse(sb.buf);
	ok(json != NULL, "JSON output parses");
	if (json) {
		cJSON *lost = cJSON_GetObjectItem(json, "lost");
		cJSON *first = cJSON_GetArrayItem(lost, 0);

		ok(cJSON_GetArraySize(lost) == 20 &&
		   !strcmp(cJSON_GetObjectItem(first, "text")->valuestring, b.q[0].text) &&
		   cJSON_IsNull(cJSON_GetObjectItem(first, "rank_after")),
		   "JSON lists every lost question, text intact, no rank as null");
		ok(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(json, "gate"), "passed")),
		   "JSON: gate passed false");
		cJSON_Delete(json);
	}
	strbuf_reset(&sb);
	compare_render_text(&v, &sb);
	ok(!strchr(sb.buf, '\033'), "text without colour has no escape sequences");
	strbuf_release(&sb);
	gate_outcomes_release(out, GATE_OUTCOMES(&g));
	gate_release(&g);
	compare_release(&c);
	release(&a);
	release(&b);
}

/* Compare a baseline found at rank 1 on 'n' questions with a candidate that
 * finds none on the first 'lost' of them, and judge it by the gate 'text';
 * return the number of failed rules (-1: not judged) and the first rule's
 * outcome in 'why' (caller frees). */
static int judge_loss(size_t n, size_t lost, const char *text, char **why)
{
	long *base = xcalloc(n, sizeof(long)), *cand = xcalloc(n, sizeof(long));
	struct results a, b;
	struct compare c;
	struct compare_opts o = COMPARE_OPTS_INIT;
	struct gate g;
	struct gate_outcome out[4];
	int failed = -1;

	*why = NULL;
	for (size_t i = 0; i < n; i++) {
		base[i] = 1;
		cand[i] = i < lost ? 0 : 1;
	}
	build(&a, "sha256:aa", "v1", n, base, 0, NULL);
	build(&b, "sha256:aa", "v1", n, cand, 0, NULL);
	gate_init(&g);
	compare_init(&c);
	if (gate_load_buf(&g, text, strlen(text), "gate.yaml") == 0 && g.nr <= 3) {
		o.gate = &g;
		o.resamples = o.permutations = 200;
		if (cmp2(&c, &a, &b, &o) == 0) {
			failed = gate_evaluate(&g, &c, out);
			*why = xstrdup(out[0].why ? out[0].why : "");
			gate_outcomes_release(out, GATE_OUTCOMES(&g));
		}
	}
	compare_release(&c);
	gate_release(&g);
	release(&a);
	release(&b);
	free(base);
	free(cand);
	return failed;
}

/* The verdict of each kind of rule, in the direction a user relies on:
 * non-inferiority passes when the loss is shown smaller than the margin,
 * drop fails when it is shown larger, a plain threshold fails only above
 * its margin. */
static void test_gate_verdicts(void)
{
	const char *noninf = "rules:\n  - {measure: R@5, max_drop: 0.05, test: non-inferiority}\n";
	const char *drop = "rules:\n  - {measure: R@5, max_drop: 0.05, test: drop}\n";
	const char *none = "rules:\n  - {measure: R@5, max_drop: 0.05, test: none}\n";
	char *why;

	/* 400 unchanged questions: a 5-point loss would leave all 400 unchanged
	 * with chance 0.95^400, about 1e-9 */
	is_int(judge_loss(400, 0, noninf, &why), 0, "non-inferiority: an unchanged candidate on 400 questions passes");
	ok(why && strstr(why, "is shown smaller than 0.05"), "  because its loss is shown smaller (%s)",
	   why ? why : "no outcome");
	free(why);
	is_int(judge_loss(400, 80, noninf, &why), 1, "non-inferiority: losing 80 of 400 (a drop of 0.2) fails");
	ok(why && strstr(why, "is not shown smaller than 0.05"), "  because it is not shown smaller (%s)",
	   why ? why : "no outcome");
	free(why);
	is_int(judge_loss(400, 80, drop, &why), 1, "drop: losing 80 of 400 fails a 0.05 margin");
	free(why);
	is_int(judge_loss(400, 0, drop, &why), 0, "drop: an unchanged candidate passes");
	free(why);
	/* a plain threshold: 20 of 400 is a drop of exactly 0.05 */
	is_int(judge_loss(400, 20, none, &why), 0, "none: a drop exactly at the margin passes");
	ok(why && strstr(why, "drop 0.0500 within 0.05"), "  within (%s)", why ? why : "no outcome");
	free(why);
	is_int(judge_loss(400, 21, none, &why), 1, "none: one more question lost fails");
	free(why);
}

/* Two drop rules on the same losses form one family (Holm): the count of
 * questions that fails them, which a passing rule states, is the count
 * that does; a non-inferiority rule beside a drop rule is not in the
 * family. */
static void test_gate_family(void)
{
	const char *two = "rules:\n  - {measure: R@5, max_drop: 0.05, test: drop}\n"
			  "  - {measure: RR, max_drop: 0.05, test: drop}\n";
	const char *mixed = "rules:\n  - {measure: R@5, max_drop: 0.05, test: drop}\n"
			    "  - {measure: RR, max_drop: 0.05, test: non-inferiority}\n";
	const char *at;
	char *why;
	size_t k = 0, n = 0;

	is_int(judge_loss(400, 0, two, &why), 0, "two drop rules: an unchanged candidate passes");
	at = why ? strstr(why, "fails once ") : NULL;
	ok(at && sscanf(at, "fails once %zu of %zu", &k, &n) == 2 && k > 1 && n == 400,
	   "and is told how many lost questions would fail it (%s)", why ? why : "no outcome");
	ok(why && strstr(why, "alpha 0.05 over 2 drop rules by Holm"), "judged by Holm over the two");
	free(why);
	is_int(judge_loss(400, k, two, &why), 2, "losing that many questions fails both rules");
	free(why);
	is_int(judge_loss(400, k - 1, two, &why), 0, "one fewer passes both");
	free(why);
	is_int(judge_loss(400, 0, mixed, &why), 0, "a drop and a non-inferiority rule: unchanged passes");
	ok(why && strstr(why, "level 0.05 = alpha") && !strstr(why, "over 2"),
	   "the drop rule alone in its family is judged at alpha (%s)", why ? why : "no outcome");
	free(why);
}

/* Rename measure 'j' of 'r' to 'name'. */
static void rename_measure(struct results *r, size_t j, const char *name)
{
	free(r->measures[j]);
	r->measures[j] = xstrdup(name);
}

/*
 * Each measure's per-question values are read once over every pair and
 * kept by name; every subset must then take its own measure's values, also
 * when one name is a prefix of another (R@5, R@50) and the measures are
 * asked in another order than the results hold them.
 */
static void test_columns_by_name(void)
{
	long r[30], rc[30];
	struct results a, b;
	struct compare c;
	struct compare_opts o = COMPARE_OPTS_INIT;
	const char *want[] = { "R@50", "R@5" };
	const struct subset_cmp *hard;
	double b50 = 0, c50 = 0, b5 = 0, c5 = 0, hb50 = 0, hc5 = 0;
	size_t nh = 0;

	for (int i = 0; i < 30; i++) {
		r[i] = i % 7 + 1;
		rc[i] = i % 4 ? i % 9 + 1 : 0;
	}
	build(&a, "sha256:aa", "v1", 30, r, 0, NULL);
	build(&b, "sha256:aa", "v1", 30, rc, 0, NULL);
	rename_measure(&a, 1, "R@50");
	rename_measure(&b, 1, "R@50");
	for (size_t i = 0; i < 30; i++) {
		b5 += a.q[i].values[0];
		c5 += b.q[i].values[0];
		b50 += a.q[i].values[1];
		c50 += b.q[i].values[1];
		if (i % 3 == 0) {
			hb50 += a.q[i].values[1];
			hc5 += b.q[i].values[0];
			nh++;
		}
	}
	compare_init(&c);
	o.resamples = o.permutations = 100;
	o.measures = want;
	o.nr_measures = 2;
	is_int(cmp2(&c, &a, &b, &o), 0, "compare R@50 and R@5");
	ok(c.nr_measures == 2 && !strcmp(c.measures[0], "R@50") && !strcmp(c.measures[1], "R@5"),
	   "the measures in the order asked");
	ok(fabs(c.subsets[0].m[0].baseline - b50 / 30) < 1e-12 &&
	   fabs(c.subsets[0].m[0].candidate - c50 / 30) < 1e-12,
	   "R@50 over all questions is R@50's values, not R@5's");
	ok(fabs(c.subsets[0].m[1].baseline - b5 / 30) < 1e-12 &&
	   fabs(c.subsets[0].m[1].candidate - c5 / 30) < 1e-12,
	   "R@5 over all questions is R@5's values, not R@50's");
	hard = compare_subset(&c, SUBSET_TAG, "hard");
	ok(hard && hard->nr_questions == nh && hard->m[0].n == nh &&
	   fabs(hard->m[0].baseline - hb50 / (double)nh) < 1e-12 &&
	   fabs(hard->m[1].candidate - hc5 / (double)nh) < 1e-12,
	   "a subset takes its own questions' values of each measure");
	compare_release(&c);
	release(&a);
	release(&b);
}

int main(void)
{
	test_gate_verdicts();
	test_gate_family();
	test_identical();
	test_lost_hits();
	test_digest();
	test_decline_and_small();
	test_power();
	test_columns_by_name();
	test_render();
	return test_done();
}
