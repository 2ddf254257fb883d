/*
 * t-gate: gate files (format and every error with FILE:LINE:COL) and the
 * judgement of a comparison by their rules.
 */
#include "test-lib.h"
#include "compare/compare.h"
#include "compare/gate.h"
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
		"    significant: true\n"
		"  - measure: Success@5\n"
		"    subset: {tag: hard}\n"
		"    max_drop: 0\n"
		"    significant: false\n"
		"  - measure: Decline\n"
		"    max_drop: 0.05\n";

	is_int(load(&g, spec), 0, "the gate of SPEC section 5 loads");
	is_int(g.nr, 3, "three rules");
	ok(g.alpha == 0.05 && !strcmp(g.rules[0].measure, "R@5") && g.rules[0].max_drop == 0.02 &&
	   g.rules[0].significant && g.rules[0].subset == SUBSET_ALL, "rule 1 as written");
	ok(g.rules[1].subset == SUBSET_TAG && !strcmp(g.rules[1].subset_value, "hard") &&
	   !g.rules[1].significant && g.rules[1].max_drop == 0, "rule 2: tag subset, not significant");
	ok(g.rules[2].significant && g.rules[2].line == 10 && g.rules[2].col == 5,
	   "significant defaults to true; rules know their place (%ld:%ld)", g.rules[2].line, g.rules[2].col);
	gate_release(&g);
	is_int(load(&g, "rules:\n  - {measure: R@5, max_drop: 0.1, subset: {answerable: false}}\n"), 0,
	       "answerable subset");
	ok(g.rules[0].subset == SUBSET_ANSWERABLE && !strcmp(g.rules[0].subset_value, "false") &&
	   g.alpha == 0.05, "answerable false, alpha defaults to 0.05");
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
	expect_error("rules:\n  - measure: Recall@5\n    max_drop: 0.02\n",
		     "gate.yaml:2:14: bad measure name 'Recall@5'", "bad measure name");
	expect_error("rules:\n  - measure: R@0\n    max_drop: 0.02\n", "gate.yaml:2:14:", "cutoff 0");
	expect_error("rules:\n  - measure: R@5\n    max_drop: lots\n",
		     "gate.yaml:3:15: 'max_drop' must be a number", "max_drop not a number");
	expect_error("rules:\n  - measure: R@5\n    max_drop: -0.02\n",
		     "gate.yaml:3:15: 'max_drop' must be 0 or more", "negative max_drop");
	expect_error("alpha: 1.5\nrules:\n  - {measure: R@5, max_drop: 0}\n",
		     "gate.yaml:1:8: 'alpha' must be between 0 and 1", "alpha out of (0,1)");
	expect_error("alpha: 0\nrules:\n  - {measure: R@5, max_drop: 0}\n",
		     "gate.yaml:1:8:", "alpha 0");
	expect_error("rules:\n  - measure: R@5\n    max_drop: 0\n    subset: {team: x}\n",
		     "gate.yaml:4:14: unknown subset key 'team'", "subset with an unknown key");
	expect_error("rules:\n  - measure: R@5\n    max_drop: 0\n    subset: {origin: web}\n",
		     "gate.yaml:4:22: unknown origin 'web'", "subset with an unknown origin");
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
	const char *bad[] = { "R", "P", "Recall@5", "R@", "R@x", "R@5x", "nDCG@-1", "Decline@5",
			      "P(rel=)@5", "" };
	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		test_ok(gate_measure_name_ok(good[i]), __FILE__, __LINE__, "accepts '%s'", good[i]);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		test_ok(!gate_measure_name_ok(bad[i]), __FILE__, __LINE__, "refuses '%s'", bad[i]);
}

/* A comparison with one measure R@5 on 'all' and on tag=small (n 5). */
static void fake_compare(struct compare *c, double base, double cand, double p_adj)
{
	compare_init(c);
	c->level = 0.95;
	c->nr_measures = 1;
	c->measures = xcalloc(1, sizeof(char *));
	c->measures[0] = xstrdup("R@5");
	c->nr_subsets = 2;
	c->subsets = xcalloc(2, sizeof(*c->subsets));
	c->subsets[0].kind = SUBSET_ALL;
	c->subsets[0].label = xstrdup("all");
	c->subsets[1].kind = SUBSET_TAG;
	c->subsets[1].value = xstrdup("small");
	c->subsets[1].label = xstrdup("tag=small");
	for (int s = 0; s < 2; s++) {
		struct measure_cmp *m = c->subsets[s].m = xcalloc(1, sizeof(*m));

		m->n = s ? 5 : 150;
		m->too_small = s == 1;
		m->baseline = base;
		m->candidate = cand;
		m->delta = cand - base;
		m->ci_lo = m->delta - 0.01;
		m->ci_hi = m->delta + 0.01;
		m->p = m->p_adj = p_adj;
	}
}

static int judge(const char *gate_text, double base, double cand, double p_adj, char **why)
{
	struct gate g;
	struct compare c;
	struct gate_outcome out[4];
	int failed;

	if (load(&g, gate_text) < 0)
		return -2;
	fake_compare(&c, base, cand, p_adj);
	failed = gate_evaluate(&g, &c, out);
	*why = failed >= 0 ? xstrdup(out[0].why) : NULL;
	if (failed >= 0)
		gate_outcomes_release(out, g.nr);
	compare_release(&c);
	gate_release(&g);
	return failed;
}

static void test_judge(void)
{
	const char *sig = "rules:\n  - {measure: R@5, max_drop: 0.02}\n";
	const char *nosig = "rules:\n  - {measure: R@5, max_drop: 0.02, significant: false}\n";
	char *why;

	is_int(judge(sig, 0.6, 0.5, 0.001, &why), 1, "significant drop beyond max_drop fails");
	ok(why && strstr(why, "drop 0.1000 exceeds max_drop 0.02") && strstr(why, "CI") &&
	   strstr(why, "p_adj 0.001"), "and says why, with CI and p: %s", why);
	free(why);
	is_int(judge(sig, 0.6, 0.5, 0.2, &why), 0, "a drop that is not significant passes");
	ok(why && strstr(why, "not significant"), "and says so: %s", why);
	free(why);
	is_int(judge(nosig, 0.6, 0.5, 0.2, &why), 1, "significant: false fails on the drop alone");
	free(why);
	is_int(judge(sig, 0.6, 0.59, 0.0001, &why), 0, "a significant drop within max_drop passes");
	free(why);
	is_int(judge(sig, 0.62, 0.60, 0.0001, &why), 0, "a drop exactly at max_drop passes");
	free(why);
	is_int(judge(sig, 0.5, 0.6, 0.0001, &why), 0, "a gain passes");
	free(why);
	is_int(judge("rules:\n  - {measure: R@5, max_drop: 0, subset: {tag: small}}\n", 0.6, 0.2, 0.001, &why),
	       0, "a subset too small to judge passes a significant rule");
	ok(why && strstr(why, "too small to judge"), "and says so: %s", why);
	free(why);
	is_int(judge("rules:\n  - {measure: R@5, max_drop: 0, subset: {tag: small}, significant: false}\n",
		     0.6, 0.2, 0.001, &why), 1, "without significance a small subset is judged on the drop");
	free(why);
	is_int(judge("rules:\n  - {measure: R@5, max_drop: 0, subset: {tag: gone}}\n", 0.6, 0.6, 1, &why),
	       1, "a rule on a subset with no questions fails");
	free(why);
	test_capture_errors();
	is_int(judge("rules:\n  - {measure: nDCG@10, max_drop: 0}\n", 0.6, 0.6, 1, &why), -1,
	       "a rule on a measure not compared is an error");
	ok(strstr(test_captured(), "gate.yaml:2:5: measure 'nDCG@10'") != NULL, "at the rule's place");
}

static void test_default(void)
{
	struct gate g;
	char *d;

	gate_init(&g);
	gate_default(&g, 10);
	d = gate_rule_describe(&g.rules[0]);
	ok(g.nr == 1 && g.alpha == 0.05 && !g.file, "default gate: one rule, alpha 0.05");
	is_str(d, "R@10 max_drop 0.02 significant", "default gate: R@k max_drop 0.02 significant");
	free(d);
	gate_release(&g);
}

int main(void)
{
	test_load();
	test_errors();
	test_names();
	test_judge();
	test_default();
	return test_done();
}
