/*
 * check: report every rule violation and warning of a set (docs/sets.md,
 * "Rules"), then its composition.
 *
 * Exit 0 when there is no error (warnings allowed), 1 when the set can be
 * read but breaks a rule, 2 when it cannot be read at all (syntax, types,
 * encoding, limits, a tampered frozen version) or a corpus cannot be read.
 * Findings go to stdout, since they are this command's output:
 * "error: FILE:LINE:COL: message", then the composition and a summary line
 * "N errors, M warnings". Questions remap tagged stale or unmapped are
 * errors: they need a person (set_check_stale). The corpus is --corpus, else the one the set
 * records (relative to the set directory, else as written) when that file
 * exists; a missing or changed corpus is a warning. The warning about the
 * latest tag compares the questions only (content digest, docs/sets.md).
 *
 * With --record-languages, check first writes into the working copy the
 * languages detection finds where the set records none (set_record_languages,
 * docs/languages.md), under the set's lock, then checks the result; a frozen
 * version is refused (exit 2).
 *
 * With --results (a saved result, or two: their paired changes give the
 * churn), check also shows the power of the default gate's R@k rule on the
 * set, by the computation `evalset power --gate` prints
 * (core/compare/gatepower.h); a result scored against another version of
 * the set is a warning, not an error. Without results, a set smaller than
 * what that rule needs to catch a 10-point drop of any retriever is a
 * warning (the same computation, tag warns alike).
 */
#include "builtin.h"
#include "set/corpus.h"
#include "compare/compare.h"
#include "compare/gate.h"
#include "compare/gatepower.h"
#include "set/corpuscheck.h"
#include "chunk/corpuslint.h"
#include "base/fsutil.h"
#include "base/jsontree.h"
#include "score/results.h"
#include "set/set.h"
#include "base/strmap.h"
#include "base/table.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const check_usage[] = {
	"evalset check <set> [--corpus <file>] [--max-chunk-tokens <n>] [--format text|json]\n"
	"                    [--record-languages]\n"
	"                    [--results <file> [--results <file>]] [--k <k>] [--effect <e>] [--gate <file>]",
	NULL,
};

#define CHECK_MAX_RESULTS 2

/* The power shown with --results (core/compare/gatepower.h). */
struct power_view {
	char measure[32];
	const char *files[CHECK_MAX_RESULTS];
	size_t nr_files;
	double churn, effect;
	struct gate_size z;
};

struct tag_count {
	const char *tag;
	size_t n;
};

struct composition {
	size_t total, answerable, unanswerable;
	size_t by_origin[4];
	struct tag_count *tags;
	size_t nr_tags, alloc_tags;
	size_t rel_min, rel_max, rel_sum;
	size_t covered;  /* distinct relevant chunks found in the corpus */
	struct tag_count *langs;  /* questions per language code */
	size_t nr_langs, alloc_langs;
};

static int cmp_tag_count(const void *a, const void *b)
{
	const struct tag_count *x = a, *y = b;
	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->tag, y->tag);
}

static void compose(const struct set *s, const struct corpus *corpus, struct composition *c)
{
	struct strmap tags = STRMAP_INIT, chunks = STRMAP_INIT, langs = STRMAP_INIT;
	struct strmap_entry *e;

	memset(c, 0, sizeof(*c));
	c->total = s->nr;
	for (size_t i = 0; i < s->nr; i++) {
		const struct question *q = &s->q[i];
		int added;

		/* a question without an origin counts as hand-written (set.h) */
		c->by_origin[q->origin == ORIGIN_NONE ? ORIGIN_HAND : q->origin]++;
		if (q->answerable) {
			if (!c->answerable || q->nr_relevant < c->rel_min)
				c->rel_min = q->nr_relevant;
			if (q->nr_relevant > c->rel_max)
				c->rel_max = q->nr_relevant;
			c->rel_sum += q->nr_relevant;
			c->answerable++;
		} else {
			c->unanswerable++;
		}
		{
			const char *code = question_language(s, q);
			e = strmap_intern(&langs, code, strlen(code), &added);
			e->value = (void *)((uintptr_t)e->value + 1);
		}
		for (size_t k = 0; k < q->nr_tags; k++) {
			e = strmap_intern(&tags, q->tags[k], strlen(q->tags[k]), &added);
			e->value = (void *)((uintptr_t)e->value + 1);
		}
		for (size_t k = 0; k < q->nr_relevant; k++) {
			e = strmap_intern(&chunks, q->relevant[k].chunk, strlen(q->relevant[k].chunk),
					  &added);
			if (added && corpus && corpus_get(corpus, q->relevant[k].chunk))
				c->covered++;
		}
	}
	strmap_for_each(&tags, e) {
		ALLOC_GROW(c->tags, c->nr_tags + 1, c->alloc_tags);
		c->tags[c->nr_tags].tag = xstrdup(e->key);
		c->tags[c->nr_tags++].n = (uintptr_t)e->value;
	}
	if (c->nr_tags)
		qsort(c->tags, c->nr_tags, sizeof(*c->tags), cmp_tag_count);
	strmap_for_each(&langs, e) {
		ALLOC_GROW(c->langs, c->nr_langs + 1, c->alloc_langs);
		c->langs[c->nr_langs].tag = xstrdup(e->key);
		c->langs[c->nr_langs++].n = (uintptr_t)e->value;
	}
	if (c->nr_langs)
		qsort(c->langs, c->nr_langs, sizeof(*c->langs), cmp_tag_count);
	strmap_clear(&langs, 0);
	strmap_clear(&tags, 0);
	strmap_clear(&chunks, 0);
}

static void composition_release(struct composition *c)
{
	for (size_t i = 0; i < c->nr_tags; i++)
		free((char *)c->tags[i].tag);
	free(c->tags);
	for (size_t i = 0; i < c->nr_langs; i++)
		free((char *)c->langs[i].tag);
	free(c->langs);
}

/* A gate file checked against the set (--gate): each rule's chance of
 * failing a candidate whose true drop is GATE_RANDOM_DROP. */
struct gate_view {
	struct gate g;
	const char *from;    /* the results the model came from, or NULL (worst case) */
	size_t *n;           /* questions of each rule */
	double *chance;      /* per rule; NAN when the model cannot draw the drop */
};

/* Return the questions of 's' in rule 'r''s subset and kind. */
static size_t rule_questions(const struct set *s, const struct gate_rule *r)
{
	bool decline = !strcmp(r->measure, "Decline");
	size_t n = 0;

	for (size_t i = 0; i < s->nr; i++) {
		const struct question *q = &s->q[i];
		bool in = q->answerable != decline;

		if (in && r->subset == SUBSET_ORIGIN)
			in = !strcmp(origin_name(q->origin == ORIGIN_NONE ? ORIGIN_HAND : q->origin),
				     r->subset_value);
		else if (in && r->subset == SUBSET_ANSWERABLE)
			in = q->answerable == !strcmp(r->subset_value, "true");
		else if (in && r->subset == SUBSET_TAG) {
			in = false;
			for (size_t t = 0; t < q->nr_tags && !in; t++)
				in = !strcmp(q->tags[t], r->subset_value);
		} else if (in && r->subset == SUBSET_TURN)
			in = set_has_conversations(s) &&
			     !strcmp(question_turn_position(q), r->subset_value);
		n += in;
	}
	return n;
}

/*
 * Load the gate 'file' into 'gv' and judge it against the set 's': a rule
 * that could never decide there is an error (as compare reports it); a rule
 * that fails at random (gate_random_warning) a warning in 'f'. The model is
 * the first of 'results' when given, else the worst over 0/1 baselines.
 * Return 0, or -1 (reported).
 */
static int load_gate_view(const char *file, const struct set *s, const struct string_list *results,
			  struct findings *f, struct gate_view *gv)
{
	struct results base;
	size_t m = 0;
	int ret = -1;

	results_init(&base);
	gate_init(&gv->g);
	if (gate_load(&gv->g, file) < 0)
		goto out;
	if (results->nr) {
		if (results_load(&base, results->items[0]) < 0)
			goto out;
		gv->from = results->items[0];
	}
	gv->n = xcalloc(gv->g.nr + 1, sizeof(*gv->n));
	gv->chance = xcalloc(gv->g.nr + 1, sizeof(*gv->chance));
	for (size_t i = 0; i < gv->g.nr; i++) {
		gv->n[i] = rule_questions(s, &gv->g.rules[i]);
		m += gv->g.rules[i].test == TEST_DROP;
	}
	for (size_t i = 0; i < gv->g.nr; i++) {
		const struct gate_rule *r = &gv->g.rules[i];
		char *label = r->subset == SUBSET_ALL ? xstrdup("all") : xstrfmt("%s=%s",
			r->subset == SUBSET_TAG ? "tag" : r->subset == SUBSET_ORIGIN ? "origin" :
			r->subset == SUBSET_TURN ? "turn" : "answerable",
			r->subset_value);
		char *w;
		int rc = gate_rule_check(&gv->g, i, gv->n[i], m, label);

		free(label);
		if (rc < 0)
			goto out;
		gv->chance[i] = gate_rule_chance(&gv->g, i, gv->from ? &base : NULL, gv->n[i],
						 GATE_SIZE_CHURN, GATE_RANDOM_DROP);
		if ((w = gate_random_warning(&gv->g, i, gv->from ? &base : NULL, gv->n[i]))) {
			findings_add_at(f, FINDING_WARNING, file, r->line, r->col, "%s", w);
			free(w);
		}
	}
	ret = 0;
out:
	results_release(&base);
	return ret;
}

static void gate_view_release(struct gate_view *gv)
{
	gate_release(&gv->g);
	free(gv->n);
	free(gv->chance);
	memset(gv, 0, sizeof(*gv));
}

static void print_gate_view(const struct gate_view *gv)
{
	printf("gate %s (alpha %g): the chance that each rule fails a candidate whose true drop is "
	       "%g point (power's model, churn %g, %s%s)\n", gv->g.file, gv->g.alpha,
	       GATE_RANDOM_DROP * 100, GATE_SIZE_CHURN,
	       gv->from ? "from " : "at its worst over 0/1 baselines of each rule's size",
	       gv->from ? gv->from : "");
	for (size_t i = 0; i < gv->g.nr; i++) {
		char *desc = gate_rule_describe(&gv->g.rules[i]);

		printf("  %s (%zu questions): ", desc, gv->n[i]);
		if (isnan(gv->chance[i]))
			printf("- (the model cannot draw that drop)\n");
		else
			printf("%.1f%%%s\n", gv->chance[i] * 100,
			       gv->g.rules[i].test != TEST_NONINF && gv->chance[i] > 2 * gv->g.alpha
			       ? ": fails at random" : gv->g.rules[i].test == TEST_NONINF
			       ? " (does not pass: it must show the drop is below its margin)" : "");
		free(desc);
	}
}

static void json_gate_view(cJSON *root, const struct gate_view *gv)
{
	cJSON *obj = cJSON_AddObjectToObject(root, "gate"), *arr;

	cJSON_AddStringToObject(obj, "file", gv->g.file);
	cJSON_AddNumberToObject(obj, "alpha", gv->g.alpha);
	cJSON_AddNumberToObject(obj, "true_drop", GATE_RANDOM_DROP);
	cJSON_AddNumberToObject(obj, "churn", GATE_SIZE_CHURN);
	json_add_str_or_null(obj, "results", gv->from);
	arr = cJSON_AddArrayToObject(obj, "rules");
	for (size_t i = 0; i < gv->g.nr; i++) {
		cJSON *it = cJSON_CreateObject();
		char *desc = gate_rule_describe(&gv->g.rules[i]);

		cJSON_AddStringToObject(it, "rule", desc);
		cJSON_AddNumberToObject(it, "questions", (double)gv->n[i]);
		json_add_num_or_null(it, "chance", gv->chance[i]);
		cJSON_AddBoolToObject(it, "fails_at_random", gv->g.rules[i].test != TEST_NONINF &&
				      gv->chance[i] > 2 * gv->g.alpha);
		cJSON_AddItemToArray(arr, it);
		free(desc);
	}
}

/* Print the power line of 'p' ("power (...): with N answerable questions, ..."). */
static void print_power(const struct power_view *p)
{
	printf("power of the default gate's rule %s max_drop 0.02 test drop (churn %.3f %s '%s'%s%s%s): "
	       "with %zu answerable questions, ", p->measure, p->churn,
	       p->nr_files == 2 ? "from the changes" : "assumed; baseline", p->files[0],
	       p->nr_files == 2 ? " to '" : "", p->nr_files == 2 ? p->files[1] : "",
	       p->nr_files == 2 ? "'" : "", p->z.n);
	if (isnan(p->z.mde))
		printf("no drop the model can draw is caught 80%% of the time");
	else
		printf("the smallest true drop caught 80%% of the time is %.3f", p->z.mde);
	if (p->z.needed > 0)
		printf("; to catch a drop of %g it needs %ld questions\n", p->effect, p->z.needed);
	else
		printf("; no set size catches a drop of %g (within the margin, or nothing to lose)\n",
		       p->effect);
}

static void print_text(const char *file, const char *digest, const char *content,
		       const struct findings *f, const struct composition *c,
		       const struct corpus *corpus, const struct power_view *power,
		       const struct gate_view *gv)
{
	for (size_t i = 0; i < f->nr; i++) {
		const struct finding *it = &f->items[i];
		printf("%s: %s", it->level == FINDING_ERROR ? "error" : "warning",
		       it->file ? it->file : file);
		if (it->line > 0)
			printf(":%ld", it->line);
		if (it->line > 0 && it->col > 0)
			printf(":%ld", it->col);
		printf(": %s\n", it->message);
	}
	if (f->nr)
		printf("\n");
	printf("questions: %zu (answerable %zu, unanswerable %zu)\n", c->total, c->answerable,
	       c->unanswerable);
	printf("origin: synthetic %zu, mined %zu, hand %zu", c->by_origin[ORIGIN_SYNTHETIC],
	       c->by_origin[ORIGIN_MINED], c->by_origin[ORIGIN_HAND]);
	printf("\ntags:");
	if (!c->nr_tags)
		printf(" none");
	for (size_t i = 0; i < c->nr_tags; i++)
		printf(" %s %zu%s", c->tags[i].tag, c->tags[i].n, i + 1 < c->nr_tags ? "," : "");
	printf("\nlanguages:");
	if (!c->nr_langs)
		printf(" none");
	for (size_t i = 0; i < c->nr_langs; i++)
		printf(" %s %zu%s", c->langs[i].tag, c->langs[i].n, i + 1 < c->nr_langs ? "," : "");
	printf("\n");
	if (c->answerable)
		printf("relevant chunks per answerable question: min %zu, mean %.2f, max %zu\n",
		       c->rel_min, (double)c->rel_sum / (double)c->answerable, c->rel_max);
	printf("digest: %s\n", digest);
	printf("content digest: %s\n", content);
	if (corpus)
		printf("corpus: %s, %zu chunks, %zu labelled relevant (%.1f%%)\n", corpus->path,
		       corpus->nr, c->covered,
		       corpus->nr ? 100.0 * (double)c->covered / (double)corpus->nr : 0.0);
	if (power)
		print_power(power);
	if (gv)
		print_gate_view(gv);
	printf("%zu error%s, %zu warning%s\n", f->nr_errors, f->nr_errors == 1 ? "" : "s",
	       f->nr_warnings, f->nr_warnings == 1 ? "" : "s");
}

/* Return 0, or -1 (reported) when standard output does not take it. */
static int print_json(const struct set *s, const char *file, const char *digest, const char *content,
		      const struct gate_view *gv,
		      const struct findings *f, const struct composition *c,
		      const struct corpus *corpus, const struct power_view *power)
{
	cJSON *root = cJSON_CreateObject(), *arr, *comp, *obj;

	cJSON_AddStringToObject(root, "file", file);
	cJSON_AddStringToObject(root, "digest", digest);
	cJSON_AddStringToObject(root, "content_digest", content);
	cJSON_AddNumberToObject(root, "errors", (double)f->nr_errors);
	cJSON_AddNumberToObject(root, "warnings", (double)f->nr_warnings);
	arr = cJSON_AddArrayToObject(root, "findings");
	for (size_t i = 0; i < f->nr; i++) {
		cJSON *it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "level",
					f->items[i].level == FINDING_ERROR ? "error" : "warning");
		cJSON_AddStringToObject(it, "file", f->items[i].file ? f->items[i].file : file);
		cJSON_AddNumberToObject(it, "line", (double)f->items[i].line);
		cJSON_AddNumberToObject(it, "col", (double)f->items[i].col);
		cJSON_AddStringToObject(it, "message", f->items[i].message);
		cJSON_AddItemToArray(arr, it);
	}
	comp = cJSON_AddObjectToObject(root, "composition");
	cJSON_AddNumberToObject(comp, "questions", (double)c->total);
	cJSON_AddNumberToObject(comp, "answerable", (double)c->answerable);
	cJSON_AddNumberToObject(comp, "unanswerable", (double)c->unanswerable);
	obj = cJSON_AddObjectToObject(comp, "origin");
	for (size_t o = ORIGIN_SYNTHETIC; o <= ORIGIN_HAND; o++)
		cJSON_AddNumberToObject(obj, origin_name((enum origin)o), (double)c->by_origin[o]);
	obj = cJSON_AddObjectToObject(comp, "tags");
	for (size_t i = 0; i < c->nr_tags; i++)
		cJSON_AddNumberToObject(obj, c->tags[i].tag, (double)c->tags[i].n);
	/* recorded languages (null: none recorded), and questions per language */
	obj = cJSON_AddObjectToObject(comp, "languages");
	json_add_str_or_null(obj, "set", s->language);
	json_add_str_or_null(obj, "corpus", s->has_corpus ? s->corpus.language : NULL);
	{
		cJSON *per = cJSON_AddObjectToObject(obj, "questions");
		for (size_t i = 0; i < c->nr_langs; i++)
			cJSON_AddNumberToObject(per, c->langs[i].tag, (double)c->langs[i].n);
	}
	obj = cJSON_AddObjectToObject(comp, "relevant_per_question");
	cJSON_AddNumberToObject(obj, "min", (double)c->rel_min);
	cJSON_AddNumberToObject(obj, "mean",
				c->answerable ? (double)c->rel_sum / (double)c->answerable : 0.0);
	cJSON_AddNumberToObject(obj, "max", (double)c->rel_max);
	if (corpus) {
		obj = cJSON_AddObjectToObject(comp, "corpus");
		cJSON_AddStringToObject(obj, "path", corpus->path ? corpus->path : "");
		cJSON_AddNumberToObject(obj, "chunks", (double)corpus->nr);
		cJSON_AddNumberToObject(obj, "covered", (double)c->covered);
	}
	if (power) {
		obj = cJSON_AddObjectToObject(root, "power");
		cJSON_AddStringToObject(obj, "measure", power->measure);
		cJSON_AddStringToObject(obj, "rule", "default gate: max_drop 0.02, test drop");
		arr = cJSON_AddArrayToObject(obj, "results");
		for (size_t i = 0; i < power->nr_files; i++)
			cJSON_AddItemToArray(arr, cJSON_CreateString(power->files[i]));
		cJSON_AddBoolToObject(obj, "paired", power->nr_files == 2);
		cJSON_AddNumberToObject(obj, "questions", (double)power->z.n);
		cJSON_AddNumberToObject(obj, "churn", power->churn);
		cJSON_AddNumberToObject(obj, "alpha", 0.05);
		cJSON_AddNumberToObject(obj, "power", 0.8);
		json_add_num_or_null(obj, "mde", power->z.mde);
		cJSON_AddNumberToObject(obj, "effect", power->effect);
		if (power->z.needed > 0)
			cJSON_AddNumberToObject(obj, "needed", (double)power->z.needed);
		else
			cJSON_AddNullToObject(obj, "needed");
	}
	if (gv)
		json_gate_view(root, gv);
	return json_print_tree(root, true);
}

/*
 * Warn in 'f' when the results 'r' were not scored against the set 's'
 * (digest 'digest'): say how many of the set's answerable questions they
 * hold, since the spread then comes from other questions.
 */
static void warn_results_set(const struct set *s, const char *digest, const struct results *r,
			     struct findings *f)
{
	size_t answerable = 0, covered = 0;

	if (r->set_digest && !strcmp(r->set_digest, digest))
		return;
	for (size_t i = 0; i < s->nr; i++) {
		const struct question_result *qr;

		if (!s->q[i].answerable)
			continue;
		answerable++;
		qr = s->q[i].id ? results_find(r, s->q[i].id) : NULL;
		covered += qr && qr->answerable;
	}
	findings_add(f, FINDING_WARNING, 0, 0,
		     "results '%s' were scored against %s %s (%.19s), not this set: they hold "
		     "%zu of its %zu answerable questions", r->file ? r->file : "?",
		     r->set_name ? r->set_name : "?", compare_version_name(r->set_version),
		     r->set_digest ? r->set_digest : "no digest", covered, answerable);
}

/*
 * Load the results 'files' and size the default gate's R@'k' rule for a
 * true drop of 'effect' into 'p' (gate_rule_size; with two results the churn
 * is estimated from their paired changes, else 0.05). Return 0, or -1
 * (reported).
 */
static int load_power(const struct string_list *files, long k, double effect,
		      const struct set *s, const char *digest, struct findings *f,
		      struct power_view *p)
{
	struct results r[CHECK_MAX_RESULTS];
	struct gate g;
	int ret = -1;

	gate_init(&g);
	gate_default(&g, (int)k);
	for (size_t i = 0; i < CHECK_MAX_RESULTS; i++)
		results_init(&r[i]);
	snprintf(p->measure, sizeof(p->measure), "R@%ld", k);
	p->nr_files = files->nr;
	p->effect = effect;
	p->churn = 0.05;
	for (size_t i = 0; i < files->nr; i++) {
		p->files[i] = files->items[i];
		if (results_load(&r[i], files->items[i]) < 0)
			goto out;
		warn_results_set(s, digest, &r[i], f);
	}
	if (files->nr == 2 && gate_churn_estimate(&g, 0, &r[0], &r[1], &p->churn) < 0)
		goto out;
	if (gate_rule_size(&g, 0, &r[0], p->churn, effect, 0.8, &p->z) < 0)
		goto out;
	ret = 0;
out:
	for (size_t i = 0; i < CHECK_MAX_RESULTS; i++)
		results_release(&r[i]);
	gate_release(&g);
	return ret;
}

/*
 * Record the detected languages of 's' (set_record_languages) and save it to
 * the working copy of 'ref' when anything was recorded; say what on stderr.
 * Return 0 or -1 (reported).
 */
static int record_languages(struct set *s, const struct set_ref *ref, const struct corpus *corpus)
{
	struct language_record rec;

	if (!set_record_languages(s, corpus, &rec)) {
		fprintf(stderr, "languages: nothing to record\n");
		return 0;
	}
	if (set_save(s, ref->file) < 0)
		return -1;
	fprintf(stderr, "languages recorded in '%s':", ref->file);
	if (rec.set)
		fprintf(stderr, " the set %s", rec.set);
	if (rec.corpus)
		fprintf(stderr, "%s the corpus %s", rec.set ? "," : "", rec.corpus);
	if (rec.questions)
		fprintf(stderr, "%s %zu question%s in another language", rec.set || rec.corpus ? "," : "",
			rec.questions, rec.questions == 1 ? "" : "s");
	fprintf(stderr, "\n");
	return 0;
}

int cmd_check(int argc, const char **argv)
{
	const char *corpus_arg = NULL, *format = "text", *gate_file = NULL;
	struct gate_view gv;
	struct string_list results = STRING_LIST_INIT;
	struct lock_file lock = LOCK_FILE_INIT;
	int record = 0;
	long k = 5, max_tokens = LINT_DEFAULT_MAX_TOKENS;
	double effect = 0.05;
	struct option opts[] = {
		OPT_STRING(0, "corpus", &corpus_arg, "file",
			   "check chunk ids against this corpus (default: the one the set records)"),
		OPT_INT(0, "max-chunk-tokens", &max_tokens, "n",
			"warn about corpus chunks over n tokens (default 1024; 0: no limit)"),
		OPT_STRING(0, "format", &format, "format", "text (default) or json"),
		OPT_BOOL(0, "record-languages", &record,
			 "write the detected languages into the set where it records none"),
		OPT_STRING_LIST(0, "results", &results, "file",
				"a saved result: show the power of the default gate's R@k rule (twice: churn from the pair)"),
		OPT_INT(0, "k", &k, "k", "the k of R@k for --results (default 5)"),
		OPT_DOUBLE(0, "effect", &effect, "e",
			   "the true drop to size the set for with --results (default 0.05)"),
		OPT_STRING(0, "gate", &gate_file, "file",
			   "check a gate file against the set: rules that cannot decide, rules that fail at random"),
		OPT_END(),
	};
	struct power_view power;
	struct set_ref ref = SET_REF_INIT;
	struct set s = SET_INIT;
	struct corpus corpus = CORPUS_INIT;
	struct findings f = FINDINGS_INIT, pre = FINDINGS_INIT;
	struct composition comp;
	bool have_corpus = false;
	char digest[72], content[72], latest[72], *latest_tag = NULL, *recorded = NULL;
	enum table_format fmt;
	int ret = EXIT_BAD_INPUT, failed = 0;

	argc = parse_options(argc, argv, opts, check_usage);
	if (argc != 1)
		usage_with_options(check_usage, opts);
	if (table_format_parse(format, "text|json", &fmt) < 0)
		usage_with_options(check_usage, opts);
	if (results.nr > CHECK_MAX_RESULTS) {
		error("--results given %zu times: give one saved result, or two for paired deltas",
		      results.nr);
		usage_with_options(check_usage, opts);
	}
	if (k < 1 || k > 1000) {
		error("--k must be 1..1000, not %ld", k);
		usage_with_options(check_usage, opts);
	}
	if (max_tokens < 0) {
		error("--max-chunk-tokens must be 0 (no limit) or more, not %ld", max_tokens);
		usage_with_options(check_usage, opts);
	}
	if (!(effect > 0 && effect <= 1)) {
		error("--effect must be above 0 and at most 1, not '%g'", effect);
		usage_with_options(check_usage, opts);
	}
	memset(&power, 0, sizeof(power));
	memset(&gv, 0, sizeof(gv));
	if (set_ref_resolve(&ref, argv[0], true) < 0)
		goto out;
	if (record && ref.tag) {
		error("cannot record languages in frozen version '%s'; versions are never rewritten",
		      argv[0]);
		goto out;
	}
	if (record && set_lock_take(&lock, &ref) < 0)
		goto out;
	if (set_open_ref(&s, &ref, false) < 0)
		goto out;
	if (corpus_arg) {
		if (corpus_load(&corpus, corpus_arg) < 0)
			goto out;
		have_corpus = true;
	} else if ((recorded = set_corpus_path(&s, ref.dir))) {
		/* relative to the set directory; failing that, as written (docs/versions.md) */
		if (!path_exists(recorded) && path_exists(s.corpus.path)) {
			free(recorded);
			recorded = xstrdup(s.corpus.path);
		}
		if (!path_exists(recorded)) {
			findings_add(&pre, FINDING_WARNING, 0, 0,
				     "corpus '%s' the set records not found (looked for '%s'); "
				     "chunk ids not checked", s.corpus.path, recorded);
		} else {
			if (corpus_load(&corpus, recorded) < 0)
				goto out;
			have_corpus = true;
		}
	}
	if (have_corpus && s.corpus.fingerprint) {
		char fp[72];
		corpus_fingerprint(&corpus, fp);
		if (strcmp(fp, s.corpus.fingerprint))
			findings_add(&pre, FINDING_WARNING, 0, 0,
				     "corpus '%s' differs from the one the set records "
				     "(fingerprint %s recorded, %s now)", corpus.path ? corpus.path : "",
				     s.corpus.fingerprint, fp);
	}
	if (record && record_languages(&s, &ref, have_corpus ? &corpus : NULL) < 0)
		goto out;
	set_check(&s, have_corpus ? &corpus : NULL, &f);
	set_check_stale(&s, FINDING_ERROR, &f);
	{
		size_t answerable = 0;
		char *small;

		for (size_t i = 0; i < s.nr; i++)
			answerable += s.q[i].answerable;
		if ((small = gate_size_warning(answerable, (int)k))) {
			findings_add(&f, FINDING_WARNING, 0, 0, "%s", small);
			free(small);
		}
	}
	if (have_corpus)
		corpus_lint(&corpus, &s, (size_t)max_tokens, &f);
	for (size_t i = 0; i < pre.nr; i++)
		findings_add(&f, pre.items[i].level, 0, 0, "%s", pre.items[i].message);
	set_digest(&s, digest);
	set_content_digest(&s, content);
	if (!ref.tag) {
		struct set last = SET_INIT;
		int found = set_latest_load(&ref, &last, &latest_tag);

		if (found < 0)
			goto out;
		if (found) {
			set_content_digest(&last, latest);
			if (strcmp(content, latest))
				findings_add(&f, FINDING_WARNING, 0, 0,
					     "the working copy differs from its latest tag '%s'",
					     latest_tag);
		}
		set_release(&last);
	}
	if (results.nr && load_power(&results, k, effect, &s, digest, &f, &power) < 0)
		goto out;
	if (gate_file && load_gate_view(gate_file, &s, &results, &f, &gv) < 0)
		goto out;
	compose(&s, have_corpus ? &corpus : NULL, &comp);
	if (fmt == TABLE_JSON)
		failed = print_json(&s, ref.file, digest, content, gate_file ? &gv : NULL, &f, &comp,
				    have_corpus ? &corpus : NULL, results.nr ? &power : NULL);
	else
		print_text(ref.file, digest, content, &f, &comp, have_corpus ? &corpus : NULL,
			   results.nr ? &power : NULL, gate_file ? &gv : NULL);
	composition_release(&comp);
	if (!failed)
		ret = f.nr_errors ? EXIT_FAILED : EXIT_OK;
out:
	gate_view_release(&gv);
	lock_release(&lock);
	string_list_clear(&results);
	free(recorded);
	free(latest_tag);
	findings_release(&f);
	findings_release(&pre);
	corpus_release(&corpus);
	set_release(&s);
	set_ref_release(&ref);
	return ret;
}
