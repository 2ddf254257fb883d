/*
 * t-gate: gate files (format and every error with FILE:LINE:COL) and the
 * judgement of a comparison by their rules.
 */
#include "test-lib.h"
#include "compare/compare.h"
#include "compare/gate.h"
#include "compare/gatepower.h"
#include "compare/gatetest.h"
#include "score/results.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int load(struct gate *g, const char *text)
{
	gate_init(g);
	return gate_load_buf(g, text, strlen(text), "gate.yaml");
}

static void test_load(void)
{
	struct gate g;
	const char *spec =
		"alpha: 0.05\n"
		"rules:\n"
		"  - measure: R@5\n"
		"    max_drop: 0.02\n"
		"    test: drop\n"
		"  - measure: Success@5\n"
		"    subset: {tag: hard}\n"
		"    max_drop: 0\n"
		"    test: none\n"
		"  - measure: Decline\n"
		"    max_drop: 0.05\n"
		"  - measure: FalseDecline\n"
		"    max_rise: 0.02\n"
		"    test: non-inferiority\n"
		"    min_questions: 30\n";

	is_int(load(&g, spec), 0, "a gate of every rule kind loads");
	is_int(g.nr, 4, "four rules");
	ok(g.alpha == 0.05 && !strcmp(g.rules[0].measure, "R@5") && g.rules[0].max_drop == 0.02 &&
	   g.rules[0].test == TEST_DROP && g.rules[0].subset == SUBSET_ALL && g.allow_missing == 0,
	   "rule 1 as written");
	ok(g.rules[1].subset == SUBSET_TAG && !strcmp(g.rules[1].subset_value, "hard") &&
	   g.rules[1].test == TEST_NONE && g.rules[1].max_drop == 0, "rule 2: tag subset, test none");
	ok(g.rules[2].test == TEST_DROP && g.rules[2].line == 10 && g.rules[2].col == 5,
	   "test defaults to drop; rules know their place (%ld:%ld)", g.rules[2].line, g.rules[2].col);
	ok(g.rules[3].rise && g.rules[3].test == TEST_NONINF && g.rules[3].min_questions == 30,
	   "FalseDecline: max_rise, non-inferiority, min_questions");
	gate_release(&g);
	test_capture_errors();
	is_int(load(&g, "allow_missing: 3\nrules:\n  - measure: R@5\n    max_drop: 0.02\n"
			"    significant: true\n  - {measure: RR, max_drop: 0.1, significant: false}\n"), 0,
	       "an old gate file loads");
	ok(g.rules[0].test == TEST_DROP && g.rules[1].test == TEST_NONE && g.allow_missing == 3,
	   "significant: true maps to test drop, false to none; allow_missing read");
	ok(strstr(test_captured(), "gate.yaml:5:18: 'significant: true' now means 'test: drop'") != NULL,
	   "with a warning at the old key, since its meaning changed");
	gate_release(&g);
	is_int(load(&g, "rules:\n  - {measure: R@5, max_drop: 0.1, subset: {answerable: false}}\n"), 0,
	       "answerable subset");
	ok(g.rules[0].subset == SUBSET_ANSWERABLE && !strcmp(g.rules[0].subset_value, "false") &&
	   g.alpha == 0.05, "answerable false, alpha defaults to 0.05");
	gate_release(&g);
	is_int(load(&g, "rules:\n  - {measure: R@5, max_drop: 0.1, subset: {turn: follow-up}}\n"), 0,
	       "turn subset");
	ok(g.rules[0].subset == SUBSET_TURN && !strcmp(g.rules[0].subset_value, "follow-up"),
	   "the follow-up turns of a conversational set");
	{
		char *d = gate_rule_describe(&g.rules[0]);
		ok(strstr(d, "on turn=follow-up") != NULL, "described as turn=follow-up");
		free(d);
	}
	gate_release(&g);
}

static void expect_error(const char *text, const char *where, const char *what)
{
	struct gate g;
	const char *msg;

	test_capture_errors();
	is_int(load(&g, text), -1, what);
	msg = test_captured();
	ok(strstr(msg, where) != NULL, "%s: reported at %s (%s)", what, where, msg);
}

static void test_errors(void)
{
	expect_error("rules:\n  - measure: R@5\n    max_drop: 0.02\n    maxdrop: 1\n",
		     "gate.yaml:4:5: unknown rule key 'maxdrop'", "unknown rule key");
	expect_error("alpha: 0.05\nrule: []\n", "gate.yaml:2:1: unknown key 'rule'", "unknown top key");
	expect_error("rules:\n  - measure: Recal@5\n    max_drop: 0.02\n",
		     "gate.yaml:2:14: unknown measure 'Recal@5'; did you mean 'Recall@5'?", "unknown measure, the closest");
	expect_error("rules:\n  - measure: Declin\n    max_drop: 0.02\n",
		     "gate.yaml:2:14: unknown measure 'Declin'; did you mean 'Decline'?", "Decline among the closest");
	expect_error("rules:\n  - measure: [R@5]\n    max_drop: 0.02\n",
		     "gate.yaml:2:14: a measure is a name", "a measure that is a list");
	expect_error("rules:\n  - measure: R@0\n    max_drop: 0.02\n", "gate.yaml:2:14:", "cutoff 0");
	expect_error("rules:\n  - measure: R@5\n    max_drop: lots\n",
		     "gate.yaml:3:15: 'max_drop' must be a number", "max_drop not a number");
	expect_error("rules:\n  - measure: R@5\n    max_drop: -0.02\n",
		     "gate.yaml:3:15: 'max_drop' must be 0 or more", "negative max_drop");
	expect_error("alpha: 1.5\nrules:\n  - {measure: R@5, max_drop: 0}\n",
		     "gate.yaml:1:8: 'alpha' must be between 0 and 1", "alpha out of (0,1)");
	expect_error("alpha: 0\nrules:\n  - {measure: R@5, max_drop: 0}\n",
		     "gate.yaml:1:8:", "alpha 0");
	expect_error("alpha: 1\nrules:\n  - {measure: R@5, max_drop: 0.02}\n",
		     "gate.yaml:1:8: 'alpha' must be between 0 and 1 (exclusive), not '1'", "alpha 1");
	expect_error("rules:\n  - {measure: R@5, max_drop: 0.02, test: drop, significant: true}\n",
		     "gate.yaml:2:61: a rule takes one of 'test' and the older 'significant'",
		     "test and significant together");
	expect_error("rules:\n  - {measure: R@5, max_drop: 0.02, significant: false, test: none}\n",
		     "gate.yaml:2:49: a rule takes one of 'test' and the older 'significant'",
		     "significant and test together, in either order");
	expect_error("rules:\n  - measure: R@5\n    max_drop: 0\n    subset: {team: x}\n",
		     "gate.yaml:4:14: unknown subset key 'team'", "subset with an unknown key");
	expect_error("rules:\n  - measure: R@5\n    max_drop: 0\n    subset: {origin: web}\n",
		     "gate.yaml:4:22: unknown origin 'web'", "subset with an unknown origin");
	expect_error("rules:\n  - measure: R@5\n    max_drop: 0\n    subset: {turn: second}\n",
		     "gate.yaml:4:20: unknown turn 'second' (known: first, follow-up)",
		     "subset with an unknown turn position");
	expect_error("rules:\n  - {measure: FalseDecline, max_drop: 0.02}\n",
		     "gate.yaml:2:29: FalseDecline is worse when it rises", "FalseDecline with max_drop");
	expect_error("rules:\n  - {measure: R@5, max_rise: 0.02}\n",
		     "gate.yaml:2:20: 'max_rise' is for FalseDecline", "max_rise on R@5");
	expect_error("rules:\n  - {measure: R@5, max_drop: 0.02, test: maybe}\n",
		     "gate.yaml:2:42: unknown test 'maybe'", "unknown test");
	expect_error("rules:\n  - {measure: R@5, max_drop: 0.02, min_questions: 0}\n",
		     "gate.yaml:2:51: 'min_questions' must be a whole number", "min_questions 0");
	expect_error("rules:\n  - measure: R@5\n    max_drop: 0\n    significant: maybe\n",
		     "gate.yaml:4:18: 'significant' must be true or false", "significant not a boolean");
	expect_error("rules:\n  - measure: R@5\n", "gate.yaml:2:5: rule has no 'max_drop'", "max_drop missing");
	expect_error("rules: []\n", "gate.yaml:1:8: 'rules' must be a non-empty list", "no rules");
	expect_error("alpha: 0.05\n", "gate.yaml:1:1: gate has no 'rules'", "rules missing");
	expect_error("rules:\n  - measure: R@5\n   max_drop: [\n", "gate.yaml:3:", "YAML syntax error");
	expect_error("rules:\n  - {measure: R@5, max_drop: 0, measure: P@5}\n",
		     "duplicate key 'measure'", "duplicate key");
}

static void test_names(void)
{
	const char *good[] = { "R@5", "P@10", "Success@5", "Hit@1", "RR", "RR@10", "nDCG@10",
			       "nDCG", "AP", "AP@100", "Rprec", "Judged@10", "P(rel=2)@5", "Decline" };
	const char *bad[] = { "R", "P", "Recal@5", "R@", "R@x", "R@5x", "nDCG@-1", "Decline@5",
			      "P(rel=)@5", "", "MRRR" };
	/* the names -m takes, any case, shown by their canonical name */
	const char *typed[][2] = { { "MRR", "RR" }, { "Recall@5", "R@5" }, { "recall@5", "R@5" },
				   { "ndcg@10", "nDCG@10" }, { "Hit@5", "Success@5" }, { "MAP", "AP" },
				   { "HITRATE@3", "Success@3" }, { "decline", "Decline" },
				   { "falsedecline", "FalseDecline" }, { "p(rel=2)@5", "P(rel=2)@5" } };
	struct gate g;

	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		test_ok(gate_measure_name_ok(good[i]), __FILE__, __LINE__, "accepts '%s'", good[i]);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		test_ok(!gate_measure_name_ok(bad[i]), __FILE__, __LINE__, "refuses '%s'", bad[i]);
	for (size_t i = 0; i < ARRAY_SIZE(typed); i++) {
		char *text = xstrfmt("rules:\n  - measure: %s\n    max_%s: 0.02\n", typed[i][0],
				     strcmp(typed[i][1], "FalseDecline") ? "drop" : "rise");

		test_ok(load(&g, text) == 0 && g.nr == 1 && !strcmp(g.rules[0].measure, typed[i][1]),
			__FILE__, __LINE__, "a gate's '%s' is %s", typed[i][0], typed[i][1]);
		gate_release(&g);
		free(text);
	}
}

static void test_default(void)
{
	struct gate g;
	char *d;

	gate_init(&g);
	gate_default(&g, 10);
	d = gate_rule_describe(&g.rules[0]);
	ok(g.nr == 3 && g.alpha == 0.05 && !g.file && g.allow_missing == 0,
	   "default gate: three rules (and coverage), alpha 0.05");
	is_str(d, "R@10 max_drop 0.02 test drop", "default gate: R@k max_drop 0.02 test drop");
	free(d);
	d = gate_rule_describe(&g.rules[1]);
	is_str(d, "Decline max_drop 0.05 test drop", "then Decline");
	free(d);
	d = gate_rule_describe(&g.rules[2]);
	is_str(d, "FalseDecline max_rise 0.02 test drop", "then FalseDecline");
	free(d);
	gate_release(&g);
}

/* The set-size advice of check and tag: the worst need over retrievers. */
static void test_size_advice(void)
{
	struct gate g;
	long at10, at5;
	char *w;

	gate_init(&g);
	gate_default(&g, 5);
	at10 = gate_rule_size_any(&g, 0, GATE_SIZE_CHURN, 0.10, 0.8);
	ok(at10 > 50 && at10 < 1000, "a 10-point drop needs %ld questions whatever the retriever", at10);
	/* the exact search at a 5-point drop runs over sets four times larger:
	 * most of this test's time, the same code */
	if (test_repeats(1, 0, "sizes at a 5-point drop")) {
		at5 = gate_rule_size_any(&g, 0, GATE_SIZE_CHURN, 0.05, 0.8);
		ok(at5 > 3 * at10, "a 5-point drop needs more: %ld", at5);
	}
	is_int(gate_rule_size_any(&g, 0, GATE_SIZE_CHURN, 0.02, 0.8), -1,
	       "a drop at the margin needs no size: no set catches it");
	w = gate_size_warning((size_t)at10 - 1, 5);
	ok(w && strstr(w, "from") && strstr(w, "R@5"), "one question short is a warning: %s", w ? w : "none");
	free(w);
	w = gate_size_warning((size_t)at10, 5);
	ok(!w, "a set of that size is no warning");
	free(w);
	ok(!gate_size_warning(100000, 5), "a set is never too large");
	gate_release(&g);
}

/* Judge one rule 'text' on a comparison whose only rule shows 'loss' on 10
 * questions (the rule's test rejecting or not); return whether it passes. */
static bool verdict(const char *text, double loss, bool reject)
{
	struct gate g;
	struct compare c;
	struct rule_cmp rc;
	struct gate_outcome out[2];
	bool pass = false;

	memset(&c, 0, sizeof(c));
	memset(&rc, 0, sizeof(rc));
	rc.measure = (char *)"R@5";
	rc.subset_label = (char *)"all";
	rc.n = 10;
	rc.baseline = 0.5;
	rc.candidate = 0.5 - loss;
	rc.loss = loss;
	rc.p = rc.p_adj = reject ? 0.001 : 0.5;
	rc.level = 0.05;
	rc.reject = reject;
	rc.effect = NAN;
	c.rules = &rc;
	c.nr_rules = 1;
	c.rules_family = 1;
	if (load(&g, text) == 0 && gate_evaluate(&g, &c, out) >= 0) {
		pass = out[0].pass;
		gate_outcomes_release(out, GATE_OUTCOMES(&g));
	}
	gate_release(&g);
	return pass;
}

static void test_verdicts(void)
{
	const char *none = "rules:\n  - {measure: R@5, max_drop: 0.1, test: none}\n";
	const char *noninf = "rules:\n  - {measure: R@5, max_drop: 0.1, test: non-inferiority}\n";
	const char *drop = "rules:\n  - {measure: R@5, max_drop: 0.1, test: drop}\n";
	volatile double a = 0.4, b = 0.3;

	ok(verdict(noninf, 0.01, true), "non-inferiority: a test that rejects (loss shown below the margin) passes");
	ok(!verdict(noninf, 0.01, false), "non-inferiority: a test that does not reject fails");
	ok(!verdict(drop, 0.3, true), "drop: a test that rejects (loss shown above the margin) fails");
	ok(verdict(drop, 0.3, false), "drop: a test that does not reject passes");
	ok(verdict(none, 0.1, false), "none: a drop exactly at the margin passes");
	/* 0.4 - 0.3 is 0.10000000000000003 in doubles: a drop equal to the
	 * margin but for rounding is within it */
	ok(a - b > 0.1 && verdict(none, a - b, false), "none: a drop at the margin but for rounding passes");
	ok(!verdict(none, 0.1 + 1e-9, false), "none: a drop above the margin fails");
}

/* Return whether the coverage rule passes a candidate missing 'missing'
 * questions the baseline answered, under 'allow_missing: allow'. */
static bool coverage_passes(long allow, size_t missing)
{
	struct gate g;
	struct compare c;
	struct rule_cmp rc;
	struct gate_outcome out[2];
	char *text = xstrfmt("allow_missing: %ld\nrules:\n  - {measure: R@5, max_drop: 0.1, test: none}\n", allow);
	bool pass = false;

	memset(&c, 0, sizeof(c));
	memset(&rc, 0, sizeof(rc));
	rc.measure = (char *)"R@5";
	rc.subset_label = (char *)"all";
	rc.n = 10;
	rc.effect = NAN;
	c.rules = &rc;
	c.nr_rules = 1;
	c.missing_new = missing;
	if (load(&g, text) == 0 && gate_evaluate(&g, &c, out) >= 0) {
		pass = out[1].pass;
		gate_outcomes_release(out, GATE_OUTCOMES(&g));
	}
	gate_release(&g);
	free(text);
	return pass;
}

/* The checks before anything is computed: a rule is refused exactly when
 * its set is too small for it to ever decide. */
static void test_rule_check(void)
{
	struct gate g;
	size_t need;

	ok(coverage_passes(2, 2), "coverage: missing as many questions as allow_missing passes");
	ok(!coverage_passes(2, 3), "coverage: one more fails");
	ok(coverage_passes(0, 0) && !coverage_passes(0, 1), "coverage: allow_missing 0 allows none");

	test_capture_errors();
	is_int(load(&g, "rules:\n  - {measure: R@5, max_drop: 0.02, test: drop}\n"), 0, "a drop rule loads");
	need = gatetest_questions_needed(1, 0.02, false, 0.05);
	ok(need > 1 && gate_rule_check(&g, 0, need, 1, "all") == 0,
	   "a drop rule alone is accepted on the %zu questions it needs", need);
	ok(gate_rule_check(&g, 0, need - 1, 1, "all") < 0 &&
	   strstr(test_captured(), "can never fail") != NULL, "and refused on one fewer");
	need = gatetest_questions_needed(1, 0.02, false, 0.025);
	ok(gate_rule_check(&g, 0, need, 2, "all") == 0 && gate_rule_check(&g, 0, need - 1, 2, "all") < 0,
	   "one of two drop rules needs the questions of alpha / 2 (%zu)", need);
	gate_release(&g);
	is_int(load(&g, "rules:\n  - {measure: R@5, max_drop: 0.02, test: non-inferiority}\n"), 0,
	       "a non-inferiority rule loads");
	ok(gate_rule_check(&g, 0, 149, 0, "all") == 0 && gate_rule_check(&g, 0, 149, 2, "all") == 0,
	   "non-inferiority at 0.02 is accepted on 149 questions, at alpha whatever the drop rules beside it");
	ok(gate_rule_check(&g, 0, 148, 0, "all") < 0 &&
	   strstr(test_captured(), "add at least 1 more question to all (149 in all)") != NULL,
	   "and refused on 148, saying one more is needed");
	gate_release(&g);
	is_int(load(&g, "rules:\n  - {measure: R@5, max_drop: 0.1, test: none, min_questions: 30}\n"), 0,
	       "a rule with min_questions loads");
	ok(gate_rule_check(&g, 0, 30, 0, "all") == 0, "min_questions 30: 30 questions are enough");
	ok(gate_rule_check(&g, 0, 29, 0, "all") < 0 &&
	   strstr(test_captured(), "fewer than its min_questions 30: add at least 1 more question") != NULL,
	   "29 are refused, saying one more is needed");
	gate_release(&g);
}

/* max_leak: a count or {questions, k}, every error at its place; the
 * default for a set that forbids ids. */
static void test_leak_load(void)
{
	struct gate g;
	const char *rule = "rules:\n  - {measure: R@5, max_drop: 0.1, test: none}\n";
	char *text;

	is_int(load(&g, rule), 0, "a gate without max_leak loads");
	ok(g.max_leak < 0, "and has no leak rule (%ld)", g.max_leak);
	is_int(GATE_OUTCOMES(&g), 2, "one rule and coverage");
	gate_default_leak(&g, 3);
	ok(g.max_leak == 0 && g.leak_k == 0 && GATE_OUTCOMES(&g) == 3,
	   "a set forbidding ids adds max_leak 0 at the comparison's k, a third outcome");
	gate_release(&g);
	is_int(load(&g, rule), 0, "reloaded");
	gate_default_leak(&g, 0);
	ok(g.max_leak < 0, "a set forbidding nothing adds no leak rule");
	gate_release(&g);

	text = xstrfmt("max_leak: 2\n%s", rule);
	is_int(load(&g, text), 0, "max_leak: 2 loads");
	ok(g.max_leak == 2 && g.leak_k == 0 && g.leak_line == 1 && g.leak_col == 11,
	   "a count, at the comparison's k, its place known (%ld:%ld)", g.leak_line, g.leak_col);
	gate_default_leak(&g, 5);
	is_int(g.max_leak, 2, "the file's max_leak stands over the default");
	gate_release(&g);
	free(text);
	text = xstrfmt("max_leak: {questions: 1, k: 10}\n%s", rule);
	is_int(load(&g, text), 0, "max_leak: {questions, k} loads");
	ok(g.max_leak == 1 && g.leak_k == 10, "questions 1 at k 10");
	gate_release(&g);
	free(text);
	text = xstrfmt("max_leak: {k: 20}\n%s", rule);
	is_int(load(&g, text), 0, "max_leak: {k} loads");
	ok(g.max_leak == 0 && g.leak_k == 20, "questions default to 0");
	gate_release(&g);
	free(text);

	expect_error("max_leak: -1\nrules:\n  - {measure: R@5, max_drop: 0}\n",
		     "gate.yaml:1:11: 'max_leak' must be a whole number of 0 or more", "negative max_leak");
	expect_error("max_leak: 0.5\nrules:\n  - {measure: R@5, max_drop: 0}\n",
		     "gate.yaml:1:11: 'max_leak' must be a whole number", "fractional max_leak");
	expect_error("max_leak: {k: 0}\nrules:\n  - {measure: R@5, max_drop: 0}\n",
		     "gate.yaml:1:15: 'k' must be a whole number of 1 or more", "max_leak k 0");
	expect_error("max_leak: {k: 200000}\nrules:\n  - {measure: R@5, max_drop: 0}\n",
		     "gate.yaml:1:11: max_leak's 'k' must be between 1 and 100000", "max_leak k too large");
	expect_error("max_leak: {question: 0}\nrules:\n  - {measure: R@5, max_drop: 0}\n",
		     "gate.yaml:1:12: unknown max_leak key 'question' (known: questions, k)",
		     "max_leak with an unknown key");
	expect_error("max_leak: 0\nmax_leak: 1\nrules:\n  - {measure: R@5, max_drop: 0}\n",
		     "gate.yaml:2:1: duplicate key 'max_leak'", "max_leak twice");
}

/* Judge a gate 'text' whose one rule passes on a comparison where the
 * candidate leaks 'nr' of 3 forbidding questions (q-1 also in the
 * baseline) at k 5; return the leak outcome's pass, its text in 'why'. */
static int leak_verdict(const char *text, size_t nr, char **why)
{
	struct gate g;
	struct compare c;
	struct rule_cmp rc;
	struct gate_outcome out[3];
	struct results_leak hits[3] = {
		{ 2, (char *)"c-9", (char *)"c-9" },
		{ 4, (char *)"d.md#0123456789ab", (char *)"doc:d.md" },
		{ 1, (char *)"c-7", (char *)"c-7" },
	};
	struct leak_cmp lq[3] = {
		{ (char *)"q-1", &hits[0], 2, true },
		{ (char *)"q-2", &hits[2], 1, false },
		{ (char *)"q-3", &hits[2], 1, false },
	};
	int pass = -1, failed;

	memset(&c, 0, sizeof(c));
	memset(&rc, 0, sizeof(rc));
	rc.measure = (char *)"R@5";
	rc.subset_label = (char *)"all";
	rc.n = 10;
	rc.effect = NAN;
	c.rules = &rc;
	c.nr_rules = 1;
	c.leak_k = 5;
	c.leak_forbidding = 3;
	c.leaks = lq;
	c.nr_leaks = nr;
	c.base_leaking = 1;
	*why = NULL;
	if (load(&g, text) == 0) {
		gate_default_leak(&g, 3);
		failed = gate_evaluate(&g, &c, out);
		if (failed >= 0 && GATE_OUTCOMES(&g) == 3) {
			pass = out[GATE_LEAK(&g)].pass;
			*why = xstrdup(out[GATE_LEAK(&g)].why);
			if (failed != !pass)
				pass = -2;  /* the count of failed rules disagrees */
		}
		if (failed >= 0)
			gate_outcomes_release(out, GATE_OUTCOMES(&g));
	}
	gate_release(&g);
	return pass;
}

static void test_leak_verdicts(void)
{
	const char *dflt = "rules:\n  - {measure: R@5, max_drop: 0.1, test: none}\n";
	const char *two = "max_leak: 2\nrules:\n  - {measure: R@5, max_drop: 0.1, test: none}\n";
	char *why;

	is_int(leak_verdict(dflt, 0, &why), 1, "max_leak 0: no leaking question passes");
	ok(why && strstr(why, "0 of 3 questions with forbidden ids retrieved one in the top 5"),
	   "and says so: %s", why ? why : "(none)");
	free(why);
	is_int(leak_verdict(dflt, 1, &why), 0, "max_leak 0: a single leaking question fails");
	ok(why && strstr(why, "max_leak 0 at k 5 (an exact count, no statistics"),
	   "stated as an exact rule, not a test: %s", why ? why : "(none)");
	ok(why && strstr(why, "q-1 ('c-9' at rank 2, forbidden by 'c-9', 'd.md#0123456789ab' at rank 4, "
			      "forbidden by 'doc:d.md'; also in baseline)"),
	   "names the question, what it retrieved and that the baseline leaked it too");
	free(why);
	is_int(leak_verdict(two, 2, &why), 1, "max_leak 2: two leaking questions pass");
	ok(why && strstr(why, "q-2 ('c-7' at rank 1, forbidden by 'c-7')") && !strstr(why, "q-2 ('c-7' at rank 1, forbidden by 'c-7'; also"),
	   "a leak new in the candidate is not said to be in the baseline");
	free(why);
	is_int(leak_verdict(two, 3, &why), 0, "max_leak 2: a third fails");
	free(why);
}

int main(void)
{
	test_leak_load();
	test_leak_verdicts();
	test_rule_check();
	test_verdicts();
	test_size_advice();
	test_load();
	test_errors();
	test_names();
	test_default();
	return test_done();
}
