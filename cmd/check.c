/*
 * check: report every rule violation and warning of SPEC section 2 for a
 * set, then its composition.
 *
 * Exit 0 when there is no error (warnings allowed), 1 when the set can be
 * read but breaks a rule, 2 when it cannot be read at all (syntax, types,
 * encoding, limits, a tampered frozen version) or a corpus cannot be read.
 * Findings go to stdout, since they are this command's output:
 * "error: FILE:LINE:COL: message", then the composition and a summary line
 * "N errors, M warnings". The corpus is --corpus, else the one the set
 * records when that file exists (a missing or changed corpus is a warning).
 */
#include "builtin.h"
#include "../core/corpus.h"
#include "../core/fsutil.h"
#include "../core/set.h"
#include "../core/strmap.h"
#include "../core/util.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const check_usage[] = {
	"evalset check <set> [--corpus <file>] [--format text|json]",
	NULL,
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
	struct strmap tags = STRMAP_INIT, chunks = STRMAP_INIT;
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
	strmap_clear(&tags, 0);
	strmap_clear(&chunks, 0);
}

static void composition_release(struct composition *c)
{
	for (size_t i = 0; i < c->nr_tags; i++)
		free((char *)c->tags[i].tag);
	free(c->tags);
}

static void print_text(const char *file, const char *digest, const struct findings *f,
		       const struct composition *c, const struct corpus *corpus)
{
	for (size_t i = 0; i < f->nr; i++) {
		const struct finding *it = &f->items[i];
		printf("%s: %s", it->level == FINDING_ERROR ? "error" : "warning", file);
		if (it->line > 0)
			printf(":%ld:%ld", it->line, it->col);
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
	printf("\n");
	if (c->answerable)
		printf("relevant chunks per answerable question: min %zu, mean %.2f, max %zu\n",
		       c->rel_min, (double)c->rel_sum / (double)c->answerable, c->rel_max);
	printf("digest: %s\n", digest);
	if (corpus)
		printf("corpus: %s, %zu chunks, %zu labelled relevant (%.1f%%)\n", corpus->path,
		       corpus->nr, c->covered,
		       corpus->nr ? 100.0 * (double)c->covered / (double)corpus->nr : 0.0);
	printf("%zu error%s, %zu warning%s\n", f->nr_errors, f->nr_errors == 1 ? "" : "s",
	       f->nr_warnings, f->nr_warnings == 1 ? "" : "s");
}

static void print_json(const char *file, const char *digest, const struct findings *f,
		       const struct composition *c, const struct corpus *corpus)
{
	cJSON *root = cJSON_CreateObject(), *arr, *comp, *obj;
	char *text;

	cJSON_AddStringToObject(root, "file", file);
	cJSON_AddStringToObject(root, "digest", digest);
	cJSON_AddNumberToObject(root, "errors", (double)f->nr_errors);
	cJSON_AddNumberToObject(root, "warnings", (double)f->nr_warnings);
	arr = cJSON_AddArrayToObject(root, "findings");
	for (size_t i = 0; i < f->nr; i++) {
		cJSON *it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "level",
					f->items[i].level == FINDING_ERROR ? "error" : "warning");
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
	text = cJSON_Print(root);
	printf("%s\n", text);
	free(text);
	cJSON_Delete(root);
}

int cmd_check(int argc, const char **argv)
{
	const char *corpus_arg = NULL, *format = "text";
	struct option opts[] = {
		OPT_STRING(0, "corpus", &corpus_arg, "file",
			   "check chunk ids against this corpus (default: the one the set records)"),
		OPT_STRING(0, "format", &format, "format", "text (default) or json"),
		OPT_END(),
	};
	struct set_ref ref = SET_REF_INIT;
	struct set s = SET_INIT;
	struct corpus corpus = CORPUS_INIT;
	struct findings f = FINDINGS_INIT, pre = FINDINGS_INIT;
	struct composition comp;
	bool have_corpus = false;
	char digest[72], latest[72], *latest_tag = NULL;
	int ret = EXIT_BAD_INPUT;

	argc = parse_options(argc, argv, opts, check_usage);
	if (argc != 1)
		usage_with_options(check_usage, opts);
	if (strcmp(format, "text") && strcmp(format, "json")) {
		error("unknown format '%s' (text or json)", format);
		usage_with_options(check_usage, opts);
	}
	if (set_ref_resolve(&ref, argv[0], true) < 0 || set_open_ref(&s, &ref, false) < 0)
		goto out;
	if (corpus_arg) {
		if (corpus_load(&corpus, corpus_arg) < 0)
			goto out;
		have_corpus = true;
	} else if (s.has_corpus && s.corpus.path) {
		if (!path_exists(s.corpus.path)) {
			findings_add(&pre, FINDING_WARNING, 0, 0,
				     "corpus '%s' the set records not found; chunk ids not checked",
				     s.corpus.path);
		} else {
			if (corpus_load(&corpus, s.corpus.path) < 0)
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
	set_check(&s, have_corpus ? &corpus : NULL, &f);
	for (size_t i = 0; i < pre.nr; i++)
		findings_add(&f, pre.items[i].level, 0, 0, "%s", pre.items[i].message);
	set_digest(&s, digest);
	if (!ref.tag && set_latest_digest(&ref, latest, &latest_tag) == 1) {
		if (strcmp(digest, latest))
			findings_add(&f, FINDING_WARNING, 0, 0,
				     "the working copy differs from its latest tag '%s'", latest_tag);
	}
	compose(&s, have_corpus ? &corpus : NULL, &comp);
	if (!strcmp(format, "json"))
		print_json(ref.file, digest, &f, &comp, have_corpus ? &corpus : NULL);
	else
		print_text(ref.file, digest, &f, &comp, have_corpus ? &corpus : NULL);
	composition_release(&comp);
	ret = f.nr_errors ? EXIT_FAILED : EXIT_OK;
out:
	free(latest_tag);
	findings_release(&f);
	findings_release(&pre);
	corpus_release(&corpus);
	set_release(&s);
	set_ref_release(&ref);
	return ret;
}
