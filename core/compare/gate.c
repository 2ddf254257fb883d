/*
 * gate: loads gate files through libyaml's document API (so every node keeps
 * its line and column) and judges a struct compare by their rules. The
 * contract is in gate.h; docs/compare.md shows the format to users.
 */
#include "compare/gate.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "base/yamlguard.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define DROP_TOLERANCE 1e-12

void gate_init(struct gate *g)
{
	memset(g, 0, sizeof(*g));
	g->alpha = 0.05;
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

void gate_default(struct gate *g, int k)
{
	struct gate_rule *r;

	gate_release(g);
	ALLOC_GROW(g->rules, 1, g->alloc);
	r = &g->rules[g->nr++];
	memset(r, 0, sizeof(*r));
	r->measure = xstrfmt("R@%d", k > 0 ? k : 5);
	r->max_drop = 0.02;
	r->significant = true;
	r->subset = SUBSET_ALL;
}

bool gate_measure_name_ok(const char *name)
{
	static const char *const cut[] = { "P", "R", "Success", "Hit", "RR", "nDCG", "AP", "Judged" };
	static const char *const whole[] = { "RR", "nDCG", "AP", "Rprec", "NumRet", "NumRel",
					     "NumRelRet", "Decline", "FalseDecline" };
	const char *s = name;
	size_t len = 0;
	bool known_cut = false, known_whole = false;

	while (isalpha((unsigned char)s[len]))
		len++;
	for (size_t i = 0; i < ARRAY_SIZE(cut); i++)
		known_cut |= strlen(cut[i]) == len && !strncmp(cut[i], s, len);
	for (size_t i = 0; i < ARRAY_SIZE(whole); i++)
		known_whole |= strlen(whole[i]) == len && !strncmp(whole[i], s, len);
	if (!known_cut && !known_whole)
		return false;
	s += len;
	if (starts_with(s, "(rel=")) {
		s += 5;
		if (!isdigit((unsigned char)*s))
			return false;
		while (isdigit((unsigned char)*s))
			s++;
		if (*s++ != ')')
			return false;
	}
	if (!*s)
		return known_whole;
	if (*s != '@' || !known_cut)
		return false;
	s++;
	if (!isdigit((unsigned char)*s) || *s == '0')
		return false;
	while (isdigit((unsigned char)*s))
		s++;
	return !*s;
}

char *gate_rule_describe(const struct gate_rule *rule)
{
	static const char *const kinds[] = { "all", "origin", "answerable", "tag" };
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s max_drop %g%s", rule->measure, rule->max_drop,
		    rule->significant ? " significant" : "");
	if (rule->subset != SUBSET_ALL)
		strbuf_addf(&sb, " on %s=%s", kinds[rule->subset], rule->subset_value);
	return strbuf_detach(&sb, NULL);
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
	if (!key || (strcmp(key, "origin") && strcmp(key, "tag") && strcmp(key, "answerable"))) {
		node_error(ld, k, "unknown subset key '%s' (known: origin, tag, answerable)",
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
	bool have_drop = false;

	if (node->type != YAML_MAPPING_NODE) {
		node_error(ld, node, "a rule must be a map with 'measure' and 'max_drop'");
		return;
	}
	ALLOC_GROW(g->rules, g->nr + 1, g->alloc);
	r = &g->rules[g->nr++];
	memset(r, 0, sizeof(*r));
	r->significant = true;
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

			if (!m || !gate_measure_name_ok(m))
				node_error(ld, v, "bad measure name '%s' (e.g. R@5, nDCG@10, Success@5, RR, Decline)",
					   m ? m : "a collection");
			else
				r->measure = xstrdup(m);
		} else if (!strcmp(key, "max_drop")) {
			if (get_number(ld, v, "max_drop", &r->max_drop) == 0) {
				have_drop = true;
				if (r->max_drop < 0)
					node_error(ld, v, "'max_drop' must be 0 or more, not '%s' (a drop is baseline - candidate)",
						   scalar(v));
			}
		} else if (!strcmp(key, "significant")) {
			get_bool(ld, v, "significant", &r->significant);
		} else if (!strcmp(key, "subset")) {
			load_subset(ld, v, r);
		} else {
			node_error(ld, k, "unknown rule key '%s' (known: measure, max_drop, significant, subset)", key);
		}
	}
	if (!r->measure && !ld->errors)
		node_error(ld, node, "rule has no 'measure'");
	if (!have_drop && !ld->errors)
		node_error(ld, node, "rule has no 'max_drop'");
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
		} else if (!strcmp(key, "rules")) {
			rules = v;
		} else {
			node_error(ld, k, "unknown key '%s' (known: alpha, rules)", key);
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

/* ---- judging ---- */

/* Return the measure of 'c' the rule means, accepting Hit@k for Success@k. */
static long rule_measure(const struct compare *c, const char *name)
{
	long j = compare_measure(c, name);
	char *alt = NULL;

	if (j >= 0)
		return j;
	if (starts_with(name, "Hit@"))
		alt = xstrfmt("Success@%s", name + 4);
	else if (starts_with(name, "Success@"))
		alt = xstrfmt("Hit@%s", name + 8);
	if (alt)
		j = compare_measure(c, alt);
	free(alt);
	return j;
}

static void judge(const struct gate *g, const struct gate_rule *r, const struct compare *c,
		  long j, struct gate_outcome *o)
{
	const struct subset_cmp *s = compare_subset(c, r->subset, r->subset_value);
	const struct measure_cmp *m;
	char *desc = gate_rule_describe(r);
	struct strbuf sb = STRBUF_INIT;
	bool over;

	o->drop = NAN;
	if (!s || !s->m[j].n) {
		o->pass = false;
		o->judged = true;
		strbuf_addf(&sb, "%s: no question to judge %s on %s", desc, r->measure,
			    s ? s->label : "that subset");
		goto out;
	}
	m = &s->m[j];
	o->m = m;
	o->subset_label = s->label;
	o->drop = m->baseline - m->candidate;
	over = o->drop > r->max_drop + DROP_TOLERANCE;
	o->judged = true;
	strbuf_addf(&sb, "%s: ", desc);
	if (r->significant && m->too_small) {
		o->judged = false;
		o->pass = true;
		strbuf_addf(&sb, "too small to judge (%zu questions, fewer than %d)", m->n, COMPARE_MIN_N);
	} else if (o->drop <= 0) {
		o->pass = true;
		strbuf_addstr(&sb, "no drop");
	} else if (!over) {
		o->pass = true;
		strbuf_addf(&sb, "drop %.4f within max_drop %g", o->drop, r->max_drop);
	} else if (r->significant && !(m->p_adj < g->alpha)) {
		o->pass = true;
		strbuf_addf(&sb, "drop %.4f exceeds max_drop %g but is not significant (p_adj %.4g >= alpha %g)",
			    o->drop, r->max_drop, m->p_adj, g->alpha);
	} else {
		o->pass = false;
		strbuf_addf(&sb, "drop %.4f exceeds max_drop %g", o->drop, r->max_drop);
		if (r->significant)
			strbuf_addf(&sb, " and is significant (p_adj %.4g < alpha %g)", m->p_adj, g->alpha);
	}
	strbuf_addf(&sb, "; delta %+.4f, %g%% CI [%+.4f, %+.4f], p %.4g, p_adj %.4g, n %zu",
		    m->delta, c->level * 100, m->ci_lo, m->ci_hi, m->p, m->p_adj, m->n);
out:
	o->why = strbuf_detach(&sb, NULL);
	free(desc);
}

int gate_evaluate(const struct gate *g, const struct compare *c, struct gate_outcome *out)
{
	int failed = 0;

	memset(out, 0, g->nr * sizeof(*out));
	for (size_t i = 0; i < g->nr; i++) {
		const struct gate_rule *r = &g->rules[i];
		long j = rule_measure(c, r->measure);

		if (j < 0) {
			gate_outcomes_release(out, i);
			if (g->file)
				return error_at(g->file, r->line, r->col,
						"measure '%s' is not in both results", r->measure);
			return error("measure '%s' of the default gate is not in both results (pass --gate or --k)",
				     r->measure);
		}
		judge(g, r, c, j, &out[i]);
		failed += !out[i].pass;
	}
	return failed;
}

void gate_outcomes_release(struct gate_outcome *out, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		free(out[i].why);
		out[i].why = NULL;
	}
}
