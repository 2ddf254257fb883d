/*
 * remap: choosing the new chunks that carry each label once its evidence is
 * located (remap-find.c), and writing the remapped set, its provenance and
 * the report (the rules are in remap.h).
 */
#include "chunk/remap-internal.h"
#include "base/error.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "base/util.h"
#include "set/corpus.h"
#include "set/corpuscheck.h"
#include "set/corpusstore.h"
#include "set/set.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static const char *const outcome_names[] = { "1:1", "1:n", "stale", "not mappable" };

const char *remap_outcome_name(enum remap_outcome o)
{
	return (size_t)o < ARRAY_SIZE(outcome_names) ? outcome_names[o] : "";
}

void remap_report_release(struct remap_report *r)
{
	for (size_t i = 0; i < r->nr; i++) {
		free(r->labels[i].question);
		free(r->labels[i].chunk);
		free(r->labels[i].why);
		for (size_t k = 0; k < r->labels[i].nr_chunks; k++)
			free(r->labels[i].chunks[k]);
		free(r->labels[i].chunks);
	}
	free(r->labels);
	memset(r, 0, sizeof(*r));
}

/* A set of new chunk indexes, kept small (the chunks one label maps to). */
struct targets {
	size_t *v;
	size_t nr, alloc;
};

static void target_add(struct targets *t, size_t i)
{
	for (size_t k = 0; k < t->nr; k++)
		if (t->v[k] == i)
			return;
	ALLOC_GROW(t->v, t->nr + 1, t->alloc);
	t->v[t->nr++] = i;
}

/* Add to 'out' the new chunks covering place 'p'; set '*split' when none
 * holds it whole. */
static void cover(const struct remapper *r, const struct place *p, struct targets *out,
		  bool *split)
{
	const struct doc_index *di = p->doc && p->start >= 0 ? strmap_get(&r->docs, p->doc) : NULL;
	size_t whole = 0, before = out->nr;
	long most = 0;

	*split = false;
	if (!di) {
		target_add(out, p->chunk);
		return;
	}
	for (size_t k = 0; k < di->nr; k++) {
		const struct chunk *c = &r->new->chunks[di->idx[k]];
		if (c->start <= p->start && p->end <= c->end) {
			target_add(out, di->idx[k]);
			whole++;
		}
	}
	if (whole)
		return;
	for (size_t k = 0; k < di->nr; k++) {
		const struct chunk *c = &r->new->chunks[di->idx[k]];
		long lo = c->start > p->start ? c->start : p->start;
		long hi = c->end < p->end ? c->end : p->end;
		if (hi <= lo)
			continue;
		if (hi - lo > most)
			most = hi - lo;
		if (2 * (hi - lo) >= p->end - p->start || 2 * (hi - lo) >= c->end - c->start) {
			target_add(out, di->idx[k]);
			*split = true;
		}
	}
	if (out->nr > before || !most)
		return;
	/* slivers only (a span cut in three or more): the chunks holding most of it */
	for (size_t k = 0; k < di->nr; k++) {
		const struct chunk *c = &r->new->chunks[di->idx[k]];
		long lo = c->start > p->start ? c->start : p->start;
		long hi = c->end < p->end ? c->end : p->end;
		if (hi - lo == most) {
			target_add(out, di->idx[k]);
			*split = true;
		}
	}
}

/* ---- the set ---- */

static struct remap_label *add_label(struct remap_report *rep, const char *q, const char *chunk)
{
	struct remap_label *l;

	ALLOC_GROW(rep->labels, rep->nr + 1, rep->alloc);
	l = &rep->labels[rep->nr++];
	memset(l, 0, sizeof(*l));
	l->question = xstrdup(q);
	l->chunk = xstrdup(chunk);
	return l;
}

static void set_grade(struct question *q, const char *chunk, int grade)
{
	int have = question_grade(q, chunk);
	if (have < grade)
		question_set_label(q, chunk, grade);
}

static void add_new_evidence(struct question *q, const char *chunk, const struct place *p)
{
	struct evidence e = { (char *)chunk, (char *)p->doc, p->start, p->end, p->quote, 0, 0 };

	if (p->start < 0 && !p->quote)
		return;
	for (size_t i = 0; i < q->nr_evidence; i++) {
		const struct evidence *x = &q->evidence[i];
		if (!strcmp(x->chunk, chunk) && x->start == p->start && x->end == p->end &&
		    !!x->quote == !!p->quote && (!x->quote || !strcmp(x->quote, p->quote)))
			return;
	}
	question_add_evidence(q, &e);
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

/* Locate 'e', add the chunks covering it to 't' and their evidence to 'nq'.
 * Return 0, or -1 when stale (with '*why'). */
static int map_entry(const struct remapper *r, const struct evidence *e, const struct chunk *oc,
		     struct question *nq, struct targets *t, struct remap_label *rl, char **why)
{
	struct place p;
	size_t before = t->nr;
	bool split;

	if (remap_locate(r, e, oc, &p, why) < 0)
		return -1;
	cover(r, &p, t, &split);
	rl->split |= split;
	rl->moved |= p.moved;
	for (size_t k = before; k < t->nr; k++)
		add_new_evidence(nq, r->new->chunks[t->v[k]].id, &p);
	free(p.quote);
	return 0;
}

/* Map label 'l' of 'q' into 'nq'; record the outcome in 'rl'. */
static void remap_label(const struct remapper *r, const struct question *q,
			const struct label *l, struct question *nq, struct remap_label *rl)
{
	const struct chunk *oc = r->old ? corpus_get(r->old, l->chunk) : NULL;
	struct targets t = { NULL, 0, 0 };
	size_t nr_entries = 0, stale = 0;
	char *why = NULL;

	for (size_t i = 0; i < q->nr_evidence; i++) {
		char *w = NULL;

		if (strcmp(q->evidence[i].chunk, l->chunk))
			continue;
		nr_entries++;
		if (map_entry(r, &q->evidence[i], oc, nq, &t, rl, &w) < 0) {
			stale++;
			free(why);
			why = w;
		}
	}
	if (!nr_entries && oc && remap_has_span(oc)) {
		/* no evidence: the old chunk's own span stands for it */
		struct evidence derived = { l->chunk, oc->doc, oc->start, oc->end, NULL, 0, 0 };
		nr_entries++;
		if (map_entry(r, &derived, oc, nq, &t, rl, &why) < 0)
			stale++;
	}
	if (t.nr > 1)
		qsort(t.v, t.nr, sizeof(*t.v), cmp_size);
	rl->chunks = t.nr ? xcalloc(t.nr, sizeof(*rl->chunks)) : NULL;
	for (size_t k = 0; k < t.nr; k++) {
		const char *id = r->new->chunks[t.v[k]].id;
		rl->chunks[rl->nr_chunks++] = xstrdup(id);
		set_grade(nq, id, l->grade);
	}
	free(t.v);
	if (rl->nr_chunks) {
		rl->outcome = rl->nr_chunks == 1 ? REMAP_ONE : REMAP_MANY;
		free(why);
	} else if (!nr_entries) {
		rl->outcome = REMAP_UNMAPPABLE;
		free(why);
		if (oc) {
			rl->why = xstrdup("no evidence, and the old chunk has no span (doc, start, end)");
		} else {
			struct strbuf sb = STRBUF_INIT;

			strbuf_addstr(&sb, "no evidence, and the chunk is not in the old corpus");
			if (r->old)
				corpus_did_you_mean(r->old, l->chunk, &sb);
			rl->why = strbuf_detach(&sb, NULL);
		}
	} else if (stale == nr_entries) {
		rl->outcome = REMAP_STALE;
		rl->why = why;
	} else {
		rl->outcome = REMAP_UNMAPPABLE;
		free(why);
		rl->why = xstrdup("its evidence falls between the chunks of the new corpus (white "
				  "space or markup the new chunking leaves out)");
	}
}

static cJSON *string_array(char **items, size_t nr)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < nr; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(items[i]));
	return a;
}

/* Add to 'out' the evidence of label 'chunk' of 'q' that remap looked for:
 * its entries, else the span of the old chunk 'oc' (may be NULL). */
static void old_evidence(const struct question *q, const char *chunk, const struct chunk *oc,
			 cJSON *out)
{
	size_t n = 0;

	for (size_t i = 0; i < q->nr_evidence; i++) {
		if (strcmp(q->evidence[i].chunk, chunk))
			continue;
		cJSON_AddItemToArray(out, evidence_to_json(&q->evidence[i]));
		n++;
	}
	if (!n && oc && remap_has_span(oc)) {
		struct evidence span = { (char *)chunk, oc->doc, oc->start, oc->end, NULL, 0, 0 };

		cJSON_AddItemToArray(out, evidence_to_json(&span));
	}
}

/* Record in the provenance of 'nq' (from 'q') where its labels came from,
 * and the evidence of the stale ones (review shows it). */
static void note_provenance(struct question *nq, const struct question *q, const struct corpus *old,
			    const char *from, const char *old_fp, const struct remap_label *rl,
			    size_t nr)
{
	cJSON *o = cJSON_CreateObject(), *labels = cJSON_CreateObject();
	cJSON *split = cJSON_CreateArray(), *stale = cJSON_CreateArray();
	cJSON *unmapped = cJSON_CreateArray(), *evidence = cJSON_CreateArray();

	cJSON_AddStringToObject(o, "from", from);
	if (old_fp)
		cJSON_AddStringToObject(o, "corpus", old_fp);
	for (size_t i = 0; i < nr; i++) {
		cJSON_AddItemToObject(labels, rl[i].chunk, string_array(rl[i].chunks, rl[i].nr_chunks));
		if (rl[i].split)
			cJSON_AddItemToArray(split, cJSON_CreateString(rl[i].chunk));
		if (rl[i].outcome == REMAP_STALE) {
			cJSON_AddItemToArray(stale, cJSON_CreateString(rl[i].chunk));
			old_evidence(q, rl[i].chunk, old ? corpus_get(old, rl[i].chunk) : NULL, evidence);
		}
		if (rl[i].outcome == REMAP_UNMAPPABLE)
			cJSON_AddItemToArray(unmapped, cJSON_CreateString(rl[i].chunk));
	}
	cJSON_AddItemToObject(o, "labels", labels);
	if (cJSON_GetArraySize(split))
		cJSON_AddItemToObject(o, "split", split);
	else
		cJSON_Delete(split);
	if (cJSON_GetArraySize(stale))
		cJSON_AddItemToObject(o, "stale", stale);
	else
		cJSON_Delete(stale);
	if (cJSON_GetArraySize(unmapped))
		cJSON_AddItemToObject(o, "unmapped", unmapped);
	else
		cJSON_Delete(unmapped);
	if (cJSON_GetArraySize(evidence))
		cJSON_AddItemToObject(o, "stale_evidence", evidence);
	else
		cJSON_Delete(evidence);
	if (!nq->provenance)
		nq->provenance = cJSON_CreateObject();
	cJSON_DeleteItemFromObjectCaseSensitive(nq->provenance, "remapped_from");
	cJSON_AddItemToObject(nq->provenance, "remapped_from", o);
}

static void add_tag(struct question *q, const char *tag)
{
	if (question_has_tag(q, tag))
		return;
	ALLOC_GROW(q->tags, q->nr_tags + 1, q->alloc_tags);
	q->tags[q->nr_tags++] = xstrdup(tag);
}

int remap_set(const struct set *s, const struct corpus *old, const struct corpus *new,
	      const char *from, struct set *out, struct remap_report *rep)
{
	struct remapper r = { old, new, STRMAP_INIT };
	char fp[72], old_fp[72];

	remap_index_docs(&r);
	corpus_fingerprint(new, fp);
	/* the corpus the labels refer to: the one the set records, which the
	 * file of the old corpus may no longer be (re-chunked in place) */
	if (s->has_corpus && s->corpus.fingerprint && *s->corpus.fingerprint)
		snprintf(old_fp, sizeof(old_fp), "%s", s->corpus.fingerprint);
	else if (old)
		corpus_fingerprint(old, old_fp);
	else
		old_fp[0] = '\0';
	out->schema = s->schema;
	out->name = xstrdup(s->name);
	out->description = xstrdup(s->description);
	out->note = xstrfmt("labels remapped from %s to the corpus %s", from, fp);
	out->has_corpus = true;
	out->corpus.fingerprint = xstrdup(fp);
	out->corpus.chunks = (long)new->nr;
	set_copy_forbid(out, s);
	for (size_t i = 0; i < s->nr; i++) {
		const struct question *q = &s->q[i];
		struct question *nq = set_append(out);
		size_t first = rep->nr, stale = 0;

		question_copy(nq, q);
		for (size_t k = 0; k < nq->nr_relevant; k++)
			free(nq->relevant[k].chunk);
		nq->nr_relevant = 0;
		question_clear_evidence(nq);
		for (size_t k = 0; k < nq->nr_irrelevant; k++)
			free(nq->irrelevant[k]);
		rep->dropped_irrelevant += nq->nr_irrelevant;
		nq->nr_irrelevant = 0;
		nq->relevant_as_list = q->relevant_as_list;
		for (size_t k = 0; k < q->nr_relevant; k++) {
			struct remap_label *rl = add_label(rep, q->id ? q->id : "", q->relevant[k].chunk);
			remap_label(&r, q, &q->relevant[k], nq, rl);
			rep->count[rl->outcome]++;
			rep->moved += rl->moved;
			stale += rl->outcome == REMAP_STALE;
		}
		if (q->nr_relevant)
			note_provenance(nq, q, old, from, *old_fp ? old_fp : NULL, rep->labels + first,
					rep->nr - first);
		if (q->nr_relevant && !nq->nr_relevant) {
			nq->answerable = false;
			add_tag(nq, stale == q->nr_relevant ? "stale" : "unmapped");
			rep->emptied++;
		}
	}
	remap_index_release(&r);
	return 0;
}

/* Undo what remap_set does to a question left without a label ('q', from
 * 'orig'): answerable again, without the tag it added. */
static void unmark_emptied(struct question *q, const struct question *orig)
{
	size_t kept = 0;

	q->answerable = true;
	for (size_t t = 0; t < q->nr_tags; t++) {
		if ((!strcmp(q->tags[t], "stale") || !strcmp(q->tags[t], "unmapped")) &&
		    !question_has_tag(orig, q->tags[t])) {
			free(q->tags[t]);
			continue;
		}
		q->tags[kept++] = q->tags[t];
	}
	q->nr_tags = kept;
}

int remap_judge_set(const struct set *s, const char *set_dir, const char *from, const char *path,
		    struct set *out, char **fingerprint)
{
	struct corpus old = CORPUS_INIT, other = CORPUS_INIT;
	struct remap_report rep = REMAP_REPORT_INIT;
	char fp[72];
	size_t lost;
	int has_old, rc = -1;

	has_old = set_corpus_load_labelled(s, set_dir, &old);
	if (has_old < 0 || corpus_load(&other, path) < 0)
		goto out;
	remap_set(s, has_old > 0 ? &old : NULL, &other, from, out, &rep);
	/* a question left without a label is unjudged, not unanswerable
	 * (core/score/score.h): judging never turns a question into another */
	for (size_t i = 0; i < out->nr && i < s->nr; i++)
		if (s->q[i].answerable && !out->q[i].answerable)
			unmark_emptied(&out->q[i], &s->q[i]);
	lost = rep.count[REMAP_STALE] + rep.count[REMAP_UNMAPPABLE];
	if (lost)
		warning("%zu of %zu labels cannot be judged on '%s' (%zu stale, %zu not mappable; "
			"'evalset remap' lists them): left out, not counted as misses; %zu question%s "
			"left without any %s unjudged", lost, rep.nr, path, rep.count[REMAP_STALE],
			rep.count[REMAP_UNMAPPABLE], rep.emptied, rep.emptied == 1 ? "" : "s",
			rep.emptied == 1 ? "is" : "are");
	out->version = s->version ? xstrdup(s->version) : NULL;
	out->file = s->file ? xstrdup(s->file) : NULL;
	corpus_fingerprint(&other, fp);
	*fingerprint = xstrdup(fp);
	rc = 0;
out:
	remap_report_release(&rep);
	corpus_release(&old);
	corpus_release(&other);
	return rc;
}
