/*
 * gate: loads gate files through libyaml's document API (so every node keeps
 * its line and column) and judges a struct compare by their rules. The
 * contract is in gate.h; docs/compare.md shows the format to users.
 */
#include "compare/gate.h"
#include "compare/gatetest.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "set/set.h"
#include "base/yamlguard.h"
#include "score/measures.h"
#include "score/results.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#define DROP_TOLERANCE 1e-12

void gate_init(struct gate *g)
{
	memset(g, 0, sizeof(*g));
	g->alpha = 0.05;
	g->max_leak = -1;
}

void gate_default_leak(struct gate *g, size_t nr_forbidding)
{
	if (nr_forbidding && g->max_leak < 0) {
		g->max_leak = 0;
		g->leak_k = 0;
	}
}

const char *gate_test_name(enum rule_test test)
{
	return test == TEST_DROP ? "drop" : test == TEST_NONINF ? "non-inferiority" : "none";
}

void gate_release(struct gate *g)
{
	for (size_t i = 0; i < g->nr; i++) {
		free(g->rules[i].measure);
		free(g->rules[i].subset_value);
	}
	free(g->rules);
	free(g->file);
	gate_init(g);
}

static void add_default(struct gate *g, char *measure, double margin, bool rise, bool optional)
{
	struct gate_rule *r;

	ALLOC_GROW(g->rules, g->nr + 1, g->alloc);
	r = &g->rules[g->nr++];
	memset(r, 0, sizeof(*r));
	r->measure = measure;
	r->max_drop = margin;
	r->test = TEST_DROP;
	r->rise = rise;
	r->optional = optional;
	r->subset = SUBSET_ALL;
}

void gate_default(struct gate *g, int k)
{
	gate_release(g);
	add_default(g, xstrfmt("R@%d", k > 0 ? k : 5), 0.02, false, false);
	add_default(g, xstrdup("Decline"), 0.05, false, true);
	add_default(g, xstrdup("FalseDecline"), 0.02, true, true);
}

/* The measures only a gate takes (compare computes them itself). */
static const char *const gate_own[] = { "Decline", "FalseDecline", NULL };

char *gate_measure_canonical(const char *name, struct strbuf *why)
{
	struct measure m;

	for (size_t i = 0; gate_own[i]; i++)
		if (!strcasecmp(name, gate_own[i]))
			return xstrdup(gate_own[i]);
	if (measure_parse_why(name, &m, gate_own, why) < 0)
		return NULL;
	return xstrdup(m.name);
}

char **gate_measures_canonical(const char *const *names, size_t nr)
{
	char **out = xcalloc(nr + 1, sizeof(*out));
	struct strbuf why = STRBUF_INIT;

	for (size_t i = 0; i < nr; i++) {
		strbuf_reset(&why);
		out[i] = gate_measure_canonical(names[i], &why);
		if (!out[i]) {
			error("measure '%s': %s", names[i], why.buf);
			strbuf_release(&why);
			gate_measures_free(out);
			return NULL;
		}
	}
	strbuf_release(&why);
	return out;
}

void gate_measures_free(char **names)
{
	for (size_t i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}

bool gate_measure_bounded(const char *name)
{
	struct strbuf why = STRBUF_INIT;
	struct measure m;
	int rc;

	for (size_t i = 0; gate_own[i]; i++)
		if (!strcmp(name, gate_own[i]))
			return true;
	rc = measure_parse_why(name, &m, gate_own, &why);
	strbuf_release(&why);
	return rc == 0 && m.kind != MK_NUM_RET && m.kind != MK_NUM_REL && m.kind != MK_NUM_REL_RET &&
	       m.kind != MK_CALLS &&
	       m.kind != MK_NUM_Q && m.kind != MK_RUNID;
}

bool gate_measure_name_ok(const char *name)
{
	struct strbuf why = STRBUF_INIT;
	char *canon = gate_measure_canonical(name, &why);

	strbuf_release(&why);
	free(canon);
	return canon != NULL;
}

/* Add what 'rule' watches: its measure, and its subset if any ("R@5 on tag=hard"). */
static void add_rule_what(struct strbuf *sb, const struct gate_rule *rule)
{
	static const char *const kinds[] = { "all", "origin", "answerable", "tag", "turn" };

	strbuf_addstr(sb, rule->measure);
	if (rule->subset != SUBSET_ALL)
		strbuf_addf(sb, " on %s=%s", kinds[rule->subset], rule->subset_value);
}

/* Add the settings of 'rule' ("max_drop 0.02 test drop"). */
static void add_rule_settings(struct strbuf *sb, const struct gate_rule *rule)
{
	strbuf_addf(sb, "%s %g test %s", rule->rise ? "max_rise" : "max_drop", rule->max_drop,
		    gate_test_name(rule->test));
}

char *gate_rule_describe(const struct gate_rule *rule)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s ", rule->measure);
	add_rule_settings(&sb, rule);
	if (rule->subset != SUBSET_ALL) {
		struct strbuf what = STRBUF_INIT;

		add_rule_what(&what, rule);
		strbuf_addstr(&sb, what.buf + strlen(rule->measure));
		strbuf_release(&what);
	}
	return strbuf_detach(&sb, NULL);
}

char *gate_leak_describe(const struct gate *g, long k)
{
	return xstrfmt("leak max_leak %ld at k %ld", g->max_leak, k);
}

/* ---- loading ---- */

struct loader {
	yaml_document_t *doc;
	const char *name;
	int errors;
};

static int node_error(struct loader *ld, const yaml_node_t *node, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int node_error(struct loader *ld, const yaml_node_t *node, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	error_at(ld->name, (long)node->start_mark.line + 1, (long)node->start_mark.column + 1,
		 "%s", sb.buf);
	strbuf_release(&sb);
	ld->errors++;
	return -1;
}

static const char *scalar(const yaml_node_t *node)
{
	return node && node->type == YAML_SCALAR_NODE ? (const char *)node->data.scalar.value : NULL;
}

static int get_bool(struct loader *ld, const yaml_node_t *node, const char *key, bool *out)
{
	const char *s = scalar(node);

	if (s && (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "yes"))) {
		*out = true;
		return 0;
	}
	if (s && (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "no"))) {
		*out = false;
		return 0;
	}
	return node_error(ld, node, "'%s' must be true or false, not '%s'", key, s ? s : "a collection");
}

static int get_number(struct loader *ld, const yaml_node_t *node, const char *key, double *out)
{
	const char *s = scalar(node);

	if (!s || parse_double(s, out) < 0)
		return node_error(ld, node, "'%s' must be a number, not '%s'", key,
				  s ? s : "a collection");
	return 0;
}

/* Read the whole number 'key' of at least 'min' into 'out'. */
static void get_count(struct loader *ld, const yaml_node_t *node, const char *key, long min,
		      long *out)
{
	double n;

	if (get_number(ld, node, key, &n) < 0)
		return;
	if (n < (double)min || n > 1e9 || n != floor(n))
		node_error(ld, node, "'%s' must be a whole number of %ld or more, not '%s'", key, min,
			   scalar(node));
	else
		*out = (long)n;
}

static bool duplicate_key(struct loader *ld, const yaml_node_t *map, const yaml_node_pair_t *upto)
{
	const char *key = scalar(yaml_document_get_node(ld->doc, upto->key));

	for (const yaml_node_pair_t *p = map->data.mapping.pairs.start; p < upto; p++) {
		const char *k = scalar(yaml_document_get_node(ld->doc, p->key));

		if (k && key && !strcmp(k, key))
			return true;
	}
	return false;
}

static void load_subset(struct loader *ld, const yaml_node_t *node, struct gate_rule *r)
{
	const yaml_node_pair_t *p;
	const yaml_node_t *k, *v;
	const char *key, *val;

	if (node->type != YAML_MAPPING_NODE ||
	    node->data.mapping.pairs.top - node->data.mapping.pairs.start != 1) {
		node_error(ld, node, "'subset' must be a map with one key: origin, tag or answerable");
		return;
	}
	p = node->data.mapping.pairs.start;
	k = yaml_document_get_node(ld->doc, p->key);
	v = yaml_document_get_node(ld->doc, p->value);
	key = scalar(k);
	val = scalar(v);
	if (!key || (strcmp(key, "origin") && strcmp(key, "tag") && strcmp(key, "answerable") &&
		     strcmp(key, "turn"))) {
		node_error(ld, k, "unknown subset key '%s' (known: origin, tag, answerable, turn)",
			   key ? key : "?");
		return;
	}
	if (!val || !*val) {
		node_error(ld, v, "subset '%s' needs a value", key);
		return;
	}
	if (!strcmp(key, "origin")) {
		if (strcmp(val, "synthetic") && strcmp(val, "mined") && strcmp(val, "hand")) {
			node_error(ld, v, "unknown origin '%s' (known: synthetic, mined, hand)", val);
			return;
		}
		r->subset = SUBSET_ORIGIN;
		r->subset_value = xstrdup(val);
	} else if (!strcmp(key, "tag")) {
		r->subset = SUBSET_TAG;
		r->subset_value = xstrdup(val);
	} else if (!strcmp(key, "turn")) {
		if (strcmp(val, TURN_FIRST) && strcmp(val, TURN_FOLLOW_UP)) {
			node_error(ld, v, "unknown turn '%s' (known: first, follow-up)", val);
			return;
		}
		r->subset = SUBSET_TURN;
		r->subset_value = xstrdup(val);
	} else {
		bool b;

		if (get_bool(ld, v, "answerable", &b) < 0)
			return;
		r->subset = SUBSET_ANSWERABLE;
		r->subset_value = xstrdup(b ? "true" : "false");
	}
}

static void load_rule(struct loader *ld, struct gate *g, const yaml_node_t *node)
{
	struct gate_rule *r;
	const yaml_node_t *margin = NULL, *sig = NULL, *test = NULL;
	bool have_drop = false, have_rise = false;

	if (node->type != YAML_MAPPING_NODE) {
		node_error(ld, node, "a rule must be a map with 'measure' and 'max_drop'");
		return;
	}
	ALLOC_GROW(g->rules, g->nr + 1, g->alloc);
	r = &g->rules[g->nr++];
	memset(r, 0, sizeof(*r));
	r->test = TEST_DROP;
	r->subset = SUBSET_ALL;
	r->line = (long)node->start_mark.line + 1;
	r->col = (long)node->start_mark.column + 1;
	for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(ld->doc, p->key);
		const yaml_node_t *v = yaml_document_get_node(ld->doc, p->value);
		const char *key = scalar(k);

		if (!key) {
			node_error(ld, k, "a rule key must be a plain word");
		} else if (duplicate_key(ld, node, p)) {
			node_error(ld, k, "duplicate key '%s'", key);
		} else if (!strcmp(key, "measure")) {
			const char *m = scalar(v);
			struct strbuf why = STRBUF_INIT;

			if (!m)
				node_error(ld, v, "a measure is a name (e.g. R@5, nDCG@10, Success@5, RR, Decline, FalseDecline), not a collection");
			else if (!(r->measure = gate_measure_canonical(m, &why)))
				node_error(ld, v, "%s", why.buf);
			else if (!gate_measure_bounded(r->measure))
				node_error(ld, v, "'%s' counts documents; a gate rule takes a measure "
					   "between 0 and 1 (R@k, P@k, Success@k, RR, nDCG@k, AP, Judged@k, "
					   "Decline, FalseDecline, ...)", r->measure);
			strbuf_release(&why);
		} else if (!strcmp(key, "max_drop") || !strcmp(key, "max_rise")) {
			if (have_drop || have_rise) {
				node_error(ld, k, "a rule takes one of 'max_drop' and 'max_rise'");
				continue;
			}
			if (get_number(ld, v, key, &r->max_drop) == 0) {
				margin = k;
				have_drop = key[4] == 'd';
				have_rise = !have_drop;
				if (r->max_drop < 0 || r->max_drop > 1e6)
					node_error(ld, v, "'%s' must be 0 or more, not '%s' (a drop is baseline - candidate)",
						   key, scalar(v));
			}
		} else if (!strcmp(key, "test")) {
			const char *t = scalar(v);

			test = v;
			if (t && !strcmp(t, "drop"))
				r->test = TEST_DROP;
			else if (t && !strcmp(t, "non-inferiority"))
				r->test = TEST_NONINF;
			else if (t && !strcmp(t, "none"))
				r->test = TEST_NONE;
			else
				node_error(ld, v, "unknown test '%s' (known: drop, non-inferiority, none)",
					   t ? t : "a collection");
		} else if (!strcmp(key, "significant")) {
			bool b = true;

			sig = v;
			if (get_bool(ld, v, "significant", &b) == 0 && !test)
				r->test = b ? TEST_DROP : TEST_NONE;
		} else if (!strcmp(key, "min_questions")) {
			get_count(ld, v, "min_questions", 1, &r->min_questions);
		} else if (!strcmp(key, "subset")) {
			load_subset(ld, v, r);
		} else {
			node_error(ld, k, "unknown rule key '%s' (known: measure, max_drop, max_rise, test, subset, min_questions, significant)", key);
		}
	}
	if (ld->errors)
		return;
	if (!r->measure) {
		node_error(ld, node, "rule has no 'measure'");
		return;
	}
	r->rise = !strcmp(r->measure, "FalseDecline");
	if (!have_drop && !have_rise) {
		node_error(ld, node, "rule has no '%s'", r->rise ? "max_rise" : "max_drop");
	} else if (r->rise && have_drop) {
		node_error(ld, margin, "FalseDecline is worse when it rises: write 'max_rise', not 'max_drop'");
	} else if (!r->rise && have_rise) {
		node_error(ld, margin, "'max_rise' is for FalseDecline; '%s' is worse when it drops: write 'max_drop'",
			   r->measure);
	} else if (sig && test) {
		node_error(ld, sig, "a rule takes one of 'test' and the older 'significant'");
	} else if (sig && r->test == TEST_DROP) {
		warning_at(ld->name, (long)sig->start_mark.line + 1, (long)sig->start_mark.column + 1,
			   "'significant: true' now means 'test: drop': the rule fails when the %s is "
			   "significantly larger than %g, no longer when it exceeds %g and differs "
			   "significantly from 0; write 'test: drop' to silence this",
			   r->rise ? "rise" : "drop", r->max_drop, r->max_drop);
	}
}

/* Load 'max_leak': a count, or {questions: N, k: K}. */
static void load_max_leak(struct loader *ld, struct gate *g, const yaml_node_t *v)
{
	g->leak_line = (long)v->start_mark.line + 1;
	g->leak_col = (long)v->start_mark.column + 1;
	g->max_leak = 0;
	if (v->type != YAML_MAPPING_NODE) {
		get_count(ld, v, "max_leak", 0, &g->max_leak);
		return;
	}
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(ld->doc, p->key);
		const yaml_node_t *x = yaml_document_get_node(ld->doc, p->value);
		const char *key = scalar(k);

		if (!key)
			node_error(ld, k, "a max_leak key must be a plain word");
		else if (duplicate_key(ld, v, p))
			node_error(ld, k, "duplicate key '%s'", key);
		else if (!strcmp(key, "questions"))
			get_count(ld, x, "questions", 0, &g->max_leak);
		else if (!strcmp(key, "k"))
			get_count(ld, x, "k", 1, &g->leak_k);
		else
			node_error(ld, k, "unknown max_leak key '%s' (known: questions, k)", key);
	}
	if (g->leak_k > 100000)
		node_error(ld, v, "max_leak's 'k' must be between 1 and 100000, not %ld", g->leak_k);
}

static void load_root(struct loader *ld, struct gate *g, const yaml_node_t *root)
{
	const yaml_node_t *rules = NULL;

	if (root->type != YAML_MAPPING_NODE) {
		node_error(ld, root, "a gate file must be a map with 'rules' (and optionally 'alpha')");
		return;
	}
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(ld->doc, p->key);
		const yaml_node_t *v = yaml_document_get_node(ld->doc, p->value);
		const char *key = scalar(k);

		if (!key) {
			node_error(ld, k, "a gate key must be a plain word");
		} else if (duplicate_key(ld, root, p)) {
			node_error(ld, k, "duplicate key '%s'", key);
		} else if (!strcmp(key, "alpha")) {
			if (get_number(ld, v, "alpha", &g->alpha) == 0 && !(g->alpha > 0 && g->alpha < 1))
				node_error(ld, v, "'alpha' must be between 0 and 1 (exclusive), not '%s'", scalar(v));
		} else if (!strcmp(key, "allow_missing")) {
			get_count(ld, v, "allow_missing", 0, &g->allow_missing);
		} else if (!strcmp(key, "max_leak")) {
			load_max_leak(ld, g, v);
		} else if (!strcmp(key, "rules")) {
			rules = v;
		} else {
			node_error(ld, k, "unknown key '%s' (known: alpha, allow_missing, max_leak, rules)", key);
		}
	}
	if (!rules) {
		if (!ld->errors)
			node_error(ld, root, "gate has no 'rules'");
		return;
	}
	if (rules->type != YAML_SEQUENCE_NODE ||
	    rules->data.sequence.items.top == rules->data.sequence.items.start) {
		node_error(ld, rules, "'rules' must be a non-empty list of rules");
		return;
	}
	for (yaml_node_item_t *it = rules->data.sequence.items.start; it < rules->data.sequence.items.top; it++)
		load_rule(ld, g, yaml_document_get_node(ld->doc, *it));
}

int gate_load_buf(struct gate *g, const char *buf, size_t len, const char *name)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	struct loader ld = { &doc, name, 0 };
	const yaml_node_t *root;
	size_t bad;

	if (!utf8_valid(buf, len, &bad))
		return error("%s: invalid UTF-8 at byte %zu", name, bad);
	if (yaml_guard_depth(buf, len, name, YAML_GUARD_DEPTH) < 0)
		return -1;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, &doc)) {
		error_at(name, (long)parser.problem_mark.line + 1, (long)parser.problem_mark.column + 1,
			 "YAML syntax: %s", parser.problem ? parser.problem : "unknown error");
		yaml_parser_delete(&parser);
		return -1;
	}
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		error_at(name, 1, 0, "empty gate file");
		ld.errors++;
	} else {
		load_root(&ld, g, root);
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	g->file = xstrdup(name);
	if (ld.errors) {
		gate_release(g);
		return -1;
	}
	return 0;
}

int gate_load(struct gate *g, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (read_file(path, &sb, GATE_MAX_FILE_BYTES) < 0) {
		strbuf_release(&sb);  /* read_file leaves what it read */
		return -1;
	}
	ret = gate_load_buf(g, sb.buf, sb.len, path);
	strbuf_release(&sb);
	return ret;
}

/* ---- checking a rule against a set ---- */

/* Describe the level a rule is judged at ("0.0125 (alpha 0.05 / 4 drop
 * rules)"); caller frees. */
static char *level_text(const struct gate *g, double level, size_t m)
{
	if (m <= 1)
		return xstrfmt("%g (alpha)", level);
	return xstrfmt("%.4g (alpha %g over %zu drop rules)", level, g->alpha, m);
}

int gate_rule_check(const struct gate *g, size_t rule, size_t n, size_t m, const char *subset)
{
	const struct gate_rule *r = &g->rules[rule];
	const char *file = g->file ? g->file : "default gate";
	long line = g->file ? r->line : 0, col = g->file ? r->col : 0;
	double level = g->alpha / (double)(m ? m : 1), p;
	size_t need;
	char *lt;
	int ret;

	if (!n)
		return error_at(file, line, col, "rule '%s' on %s has no question to judge; "
				"remove the rule or fix its subset", r->measure, subset);
	if (r->min_questions && (long)n < r->min_questions)
		return error_at(file, line, col, "rule '%s' on %s has %zu question%s, fewer than its "
				"min_questions %ld: add at least %ld more question%s to %s, or lower "
				"min_questions", r->measure, subset, n, n == 1 ? "" : "s",
				r->min_questions, r->min_questions - (long)n,
				r->min_questions - (long)n == 1 ? "" : "s", subset);
	if (r->test == TEST_NONE)
		return 0;
	if (r->test == TEST_NONINF) {
		p = gatetest_p_noninf_unchanged(n, r->max_drop);
		if (p < g->alpha)
			return 0;
		need = gatetest_questions_needed(n, r->max_drop, true, g->alpha);
		return error_at(file, line, col, "rule '%s' (test non-inferiority) on %s can never pass "
				"a candidate that changes nothing: with %zu question%s its p is then "
				"%.3g, not below alpha %g (so few questions cannot rule out a %s of %g); "
				"add at least %zu more question%s to %s (%zu in all), raise max_%s, or "
				"use test: drop", r->measure, subset, n, n == 1 ? "" : "s", p, g->alpha,
				r->rise ? "rise" : "drop", r->max_drop, need - n,
				need - n == 1 ? "" : "s", subset, need, r->rise ? "rise" : "drop");
	}
	if (r->max_drop >= 1)
		return error_at(file, line, col, "rule '%s' (test drop) on %s can never fail: a "
				"question loses at most 1, so a mean %s never exceeds %g; lower the "
				"margin below 1, or use test: none", r->measure, subset,
				r->rise ? "rise" : "drop", r->max_drop);
	p = gatetest_min_p_drop(n, r->max_drop);
	if (p < level)
		return 0;
	need = gatetest_questions_needed(n, r->max_drop, false, level);
	lt = level_text(g, level, m);
	ret = error_at(file, line, col, "rule '%s' (test drop) on %s can never fail: with %zu "
		       "question%s its smallest p (every question losing 1) is %.3g, not below the "
		       "level it is judged at, %s; add at least %zu more question%s to %s (%zu in "
		       "all)%s", r->measure, subset, n, n == 1 ? "" : "s", p, lt, need - n,
		       need - n == 1 ? "" : "s", subset, need,
		       m > 1 ? ", or judge fewer drop rules" : "");
	free(lt);
	return ret;
}

/* ---- judging ---- */

static void add_number(struct strbuf *sb, double x)
{
	if (isinf(x))
		strbuf_addstr(sb, x > 0 ? "inf" : "-inf");
	else
		strbuf_addf(sb, "%.4f", fabs(x) < 5e-5 ? 0.0 : x);
}

static void add_pvalue(struct strbuf *sb, const char *name, double p)
{
	strbuf_addf(sb, ", %s %.4g", name, p);
}

/* Add the level a rule was judged at, as a confidence and how it came. */
static void add_level(struct strbuf *sb, const struct gate *g, const struct compare *c,
		      const struct gate_rule *r, const struct rule_cmp *rc)
{
	strbuf_addf(sb, " at %.4g%% (one-sided; level %.4g", (1 - rc->level) * 100, rc->level);
	if (r->test == TEST_DROP && c->rules_family > 1)
		strbuf_addf(sb, ", alpha %g over %zu drop rules by Holm", g->alpha, c->rules_family);
	else
		strbuf_addf(sb, " = alpha");
	strbuf_addf(sb, "; exact test");
	if (rc->rounded)
		strbuf_addf(sb, ", %zu graded loss%s rounded to 0/1", rc->rounded,
			    rc->rounded == 1 ? "" : "es");
	strbuf_addch(sb, ')');
}

static void judge(const struct gate *g, const struct gate_rule *r, const struct compare *c,
		  const struct rule_cmp *rc, struct gate_outcome *o)
{
	const char *what = r->rise ? "rise" : "drop";
	struct strbuf sb = STRBUF_INIT;

	o->rc = rc;
	o->drop = rc->loss;
	add_rule_what(&sb, r);
	o->what = strbuf_detach(&sb, NULL);
	add_rule_settings(&sb, r);
	strbuf_addstr(&sb, ": ");
	if (!rc->n) {
		o->pass = true;
		strbuf_addstr(&sb, "no question of this kind in the set (default rule left out)");
		goto out;
	}
	switch (r->test) {
	case TEST_DROP:
		o->pass = !rc->reject;
		if (o->pass)
			strbuf_addf(&sb, "%s %.4f is not shown larger than %g", what, rc->loss, r->max_drop);
		else
			strbuf_addf(&sb, "%s %.4f is significantly larger than %g", what, rc->loss, r->max_drop);
		strbuf_addf(&sb, "; %s >= ", what);
		add_number(&sb, rc->bound);
		add_level(&sb, g, c, r, rc);
		add_pvalue(&sb, "p", rc->p);
		if (c->rules_family > 1)
			add_pvalue(&sb, "p_adj", rc->p_adj);
		if (o->pass && rc->min_lost)
			strbuf_addf(&sb, "; with no other change it fails once %zu of %zu questions each %s by 1 (a %s of %.4f)",
				    rc->min_lost, rc->n, what, what, (double)rc->min_lost / (double)rc->n);
		break;
	case TEST_NONINF:
		o->pass = rc->reject;
		if (o->pass)
			strbuf_addf(&sb, "%s %.4f is shown smaller than %g", what, rc->loss, r->max_drop);
		else
			strbuf_addf(&sb, "%s %.4f is not shown smaller than %g", what, rc->loss, r->max_drop);
		strbuf_addf(&sb, "; %s <= ", what);
		add_number(&sb, rc->bound);
		add_level(&sb, g, c, r, rc);
		add_pvalue(&sb, "p", rc->p);
		break;
	case TEST_NONE:
		o->pass = !(rc->loss > r->max_drop + DROP_TOLERANCE);
		strbuf_addf(&sb, "plain threshold, no test: %s %.4f %s %g", what, rc->loss,
			    o->pass ? "within" : "exceeds", r->max_drop);
		break;
	}
	strbuf_addf(&sb, "; n %zu, effect ", rc->n);
	if (isnan(rc->effect))
		strbuf_addstr(&sb, "- (no spread)");
	else
		strbuf_addf(&sb, "%.2f", fabs(rc->effect) < 5e-3 ? 0.0 : rc->effect);
	strbuf_addf(&sb, ", win/tie/loss %zu/%zu/%zu", rc->win, rc->tie, rc->loss_n);
out:
	o->why = strbuf_detach(&sb, NULL);
}

static void judge_coverage(const struct gate *g, const struct compare *c, struct gate_outcome *o)
{
	struct strbuf sb = STRBUF_INIT;

	o->rc = NULL;
	o->drop = NAN;
	o->missing = c->missing_new;
	o->pass = (long)c->missing_new <= g->allow_missing;
	o->what = xstrdup("coverage");
	strbuf_addf(&sb, "allow_missing %ld: the candidate misses %zu question%s the baseline "
		    "answered (missing: baseline %zu, candidate %zu)", g->allow_missing, c->missing_new,
		    c->missing_new == 1 ? "" : "s", c->missing_base, c->missing_cand);
	for (size_t i = 0; i < c->nr_missing_new_ids; i++)
		strbuf_addf(&sb, "%s%s", i ? ", " : "; e.g. ", c->missing_new_ids[i]);
	if (c->missing_new > c->nr_missing_new_ids)
		strbuf_addstr(&sb, ", ...");
	o->why = strbuf_detach(&sb, NULL);
}

/* The leaking questions named in a verdict line; the rest are counted. */
#define LEAKS_NAMED 20

/* Judge the leak rule: an exact count, no test (docs/access.md, "The
 * gate"); name each leaking question with what it retrieved. */
static void judge_leak(const struct gate *g, const struct compare *c, struct gate_outcome *o)
{
	struct strbuf sb = STRBUF_INIT;
	char *desc = gate_leak_describe(g, c->leak_k);
	size_t named = c->nr_leaks < LEAKS_NAMED ? c->nr_leaks : LEAKS_NAMED;

	o->rc = NULL;
	o->drop = NAN;
	o->pass = (long)c->nr_leaks <= g->max_leak;
	o->leak = true;
	o->leaking = c->nr_leaks;
	o->base_leaking = c->base_leaking;
	o->base_leaks_known = !c->base_leaks_absent;
	o->what = xstrdup("leak");
	/* the description without its leading "leak ", which 'what' holds */
	strbuf_addf(&sb, "%s (an exact count, no statistics: more than %ld leaking question%s "
		    "fail%s the gate): ", desc + strlen("leak "), g->max_leak, g->max_leak == 1 ? "" : "s",
		    g->max_leak == 1 ? "s" : "");
	if (!c->leak_forbidding) {
		strbuf_addstr(&sb, "no question of the set forbids ids");
		goto out;
	}
	strbuf_addf(&sb, "%zu of %zu question%s with forbidden ids retrieved one in the top %ld",
		    c->nr_leaks, c->leak_forbidding, c->leak_forbidding == 1 ? "" : "s", c->leak_k);
	for (size_t i = 0; i < named; i++) {
		const struct leak_cmp *l = &c->leaks[i];

		strbuf_addf(&sb, "%s%s (", i ? "; " : ": ", l->id);
		for (size_t h = 0; h < l->nr; h++)
			strbuf_addf(&sb, "%s'%s' at rank %ld, forbidden by '%s'", h ? ", " : "",
				    l->hits[h].chunk, l->hits[h].rank, l->hits[h].entry);
		if (l->in_baseline)
			strbuf_addstr(&sb, "; also in baseline");
		strbuf_addch(&sb, ')');
	}
	if (c->nr_leaks > named)
		strbuf_addf(&sb, "; and %zu more", c->nr_leaks - named);
	if (c->base_leaks_absent)
		strbuf_addstr(&sb, "; the baseline records no leaks (saved before they were)");
	else
		strbuf_addf(&sb, "; baseline: %zu leaking", c->base_leaking);
out:
	o->why = strbuf_detach(&sb, NULL);
	free(desc);
}

int gate_evaluate(const struct gate *g, const struct compare *c, struct gate_outcome *out)
{
	int failed = 0;

	memset(out, 0, GATE_OUTCOMES(g) * sizeof(*out));
	if (c->nr_rules != g->nr)
		return error("the comparison was not computed with this gate");
	for (size_t i = 0; i < g->nr; i++) {
		judge(g, &g->rules[i], c, &c->rules[i], &out[i]);
		failed += !out[i].pass;
	}
	judge_coverage(g, c, &out[GATE_COVERAGE(g)]);
	failed += !out[GATE_COVERAGE(g)].pass;
	if (g->max_leak >= 0) {
		if (!c->leak_k)
			return error("the comparison was not computed with this gate's leak rule");
		judge_leak(g, c, &out[GATE_LEAK(g)]);
		failed += !out[GATE_LEAK(g)].pass;
	}
	return failed;
}

void gate_outcome_change(const struct gate_outcome *o, const char *arrow, struct strbuf *sb)
{
	const struct rule_cmp *rc = o->rc;
	double delta;

	if (o->leak) {
		if (o->base_leaks_known)
			strbuf_addf(sb, "%zu %s ", o->base_leaking, arrow);
		strbuf_addf(sb, "%zu leaking", o->leaking);
		return;
	}
	if (!rc) {
		strbuf_addf(sb, "%zu newly missing", o->missing);
		return;
	}
	if (!rc->n) {
		strbuf_addstr(sb, "(no question)");
		return;
	}
	delta = rc->candidate - rc->baseline;
	add_number(sb, rc->baseline);
	strbuf_addf(sb, " %s ", arrow);
	add_number(sb, rc->candidate);
	/* the sign always shown, and never on a zero: "(+0.0000)", not "(-0.0000)" */
	strbuf_addf(sb, " (%c", delta < -5e-5 ? '-' : '+');
	add_number(sb, fabs(delta));
	strbuf_addch(sb, ')');
}

char *gate_outcome_line(const struct gate_outcome *o)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s ", o->what ? o->what : "");
	gate_outcome_change(o, "->", &sb);
	strbuf_addf(&sb, " %s  %s", o->pass ? "pass" : "FAIL", o->why ? o->why : "");
	return strbuf_detach(&sb, NULL);
}

void gate_outcomes_release(struct gate_outcome *out, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		free(out[i].what);
		free(out[i].why);
		out[i].what = out[i].why = NULL;
	}
}
