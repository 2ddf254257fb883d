/*
 * logmerge: stage two of an import (core/logs/logimport.c has the design): the
 * raw forms of the parts, in file order, redacted, normalised and grouped,
 * and their tallies added into their groups', on two threads where the
 * work allows.
 */
#include "logs/logimport-internal.h"

#include "base/error.h"
#include "text/text.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* A raw form new to the import: the text work done on it before it is grouped. */
struct fresh {
	const struct prow *pr;
	struct strbuf red;     /* redacted */
	struct pii_counts pc;
	size_t found;          /* PII spans */
	char *key;             /* the normalised redacted form (group key) */
	size_t key_len;
	uint64_t red_hash, key_hash;  /* strhash of each */
	/* what the resolving passes decide (import_merge_parts) */
	struct form *form;
	bool form_new, group_new;
	struct fresh *creator; /* the fresh form that created its group */
	size_t group;          /* when group_new: the group's index */
	struct raw *raw;
};

/* Return the raw form of 'im' with the bytes of 'pr', or NULL. */
static struct raw *raw_find(const struct import *im, const struct prow *pr)
{
	const struct import_htab *t = &im->shard[import_half_of(pr->hash)].raws;
	size_t mask = t->cap - 1;
	struct raw *r;

	if (!t->cap)
		return NULL;
	for (size_t i = (size_t)pr->hash & mask; (r = t->slot[i].p); i = (i + 1) & mask)
		if (t->slot[i].hash == pr->hash && r->len == pr->len && !memcmp(r->bytes, pr->bytes, pr->len))
			return r;
	return NULL;
}

struct text_work {
	struct import *im;
	struct prow **all;     /* the raw forms of both parts, in order of first record */
	size_t n;
	struct fresh *f;       /* by index into 'all' */
	size_t nr_fresh[2];    /* fresh forms found by each half of text_half */
};

/*
 * For every other raw form of the parts ('half' of them): find it in the
 * import, else redact and normalise it. Thread-safe: the import's table is
 * only read, and each form written by one thread.
 */
static void text_half(void *ctx, int half)
{
	struct text_work *w = ctx;

	for (size_t i = (size_t)half; i < w->n; i += 2) {
		struct prow *pr = w->all[i];
		struct fresh *f = &w->f[i];

		if (pr->invalid)
			continue;
		if ((pr->raw = raw_find(w->im, pr)))
			continue;
		f->pr = pr;
		w->nr_fresh[half]++;
		strbuf_init(&f->red, pr->len + 16);
		f->found = pii_redact_with(pr->bytes, pr->len, w->im->opt.pii_patterns, &f->red, &f->pc);
		strbuf_trim(&f->red);  /* "how to x  " is shown as "how to x" */
		f->key = text_normalize_query(f->red.buf, f->red.len);
		f->key_len = strlen(f->key);
		f->red_hash = strhash(f->red.buf, f->red.len);
		f->key_hash = strhash(f->key, f->key_len);
	}
}

/*
 * The first resolving pass, for the redacted texts in hash half 'half': the
 * first fresh form (in file order) with a text creates its struct form.
 */
static void forms_half(void *ctx, int half)
{
	struct text_work *w = ctx;
	struct import_shard *sh = &w->im->shard[half];
	struct strmap *forms = &sh->forms;

	/* about half the fresh forms come here: no growing while they do */
	strmap_reserve(forms, (w->nr_fresh[0] + w->nr_fresh[1]) / 16 * 9 + 64);
	for (size_t i = 0; i < w->n; i++) {
		struct fresh *f = &w->f[i];
		struct strmap_entry *e;
		int added;

		if (!f->pr || import_half_of(f->red_hash) != half)
			continue;
		e = strmap_find_hashed(forms, f->red.buf, f->red.len, f->red_hash);
		if (!e) {
			/* the form and its text live in the shard's arena */
			struct form *fm = import_arena_alloc(&sh->arena, sizeof(*fm) + f->red.len + 1);
			char *text = (char *)(fm + 1);

			memcpy(text, f->red.buf, f->red.len + 1);
			memset(fm, 0, sizeof(*fm));
			fm->text = text;
			e = strmap_intern_hashed(forms, text, f->red.len, f->red_hash, &added);
			e->value = fm;
			f->form_new = true;
		}
		f->form = e->value;
	}
}

/*
 * The second resolving pass, for hash half 'half': the raw forms in that
 * half are made, and the group keys in that half found or made
 * (the first creator in file order makes a group).
 */
static void raws_groups_half(void *ctx, int half)
{
	struct text_work *w = ctx;
	struct import_shard *sh = &w->im->shard[half];
	bool drop = w->im->opt.pii == PII_DROP;
	size_t expect = (w->nr_fresh[0] + w->nr_fresh[1]) / 16 * 9 + 64;

	strmap_reserve(&sh->groups, expect);
	import_htab_reserve(&sh->raws, expect);
	for (size_t i = 0; i < w->n; i++) {
		struct fresh *f = &w->f[i];
		struct strmap_entry *e;
		int added;

		if (!f->pr)
			continue;
		if (import_half_of(f->pr->hash) == half) {
			struct raw *r = import_arena_alloc(&sh->arena, sizeof(*r) + f->pr->len + 1);
			r->form = f->form;
			r->group = -1;
			r->count = 0;
			r->len = f->pr->len;
			r->pii = f->found > 0;
			memcpy(r->bytes, f->pr->bytes, (size_t)f->pr->len + 1);
			import_htab_insert(&sh->raws, f->pr->hash, r);
			f->raw = r;
		}
		if (!f->form_new || (f->found && drop) || !*f->key || import_half_of(f->key_hash) != half)
			continue;
		e = strmap_intern_hashed(&sh->groups, f->key, f->key_len, f->key_hash, &added);
		if (added)
			e->value = f;
		f->group_new = added;
		f->creator = e->value;  /* this import's fresh form, or an index + 1 of before */
	}
}

/* The last resolving pass, for hash half 'half': the new group keys get their indexes. */
static void group_values_half(void *ctx, int half)
{
	struct text_work *w = ctx;
	struct strmap *groups = &w->im->shard[half].groups;

	for (size_t i = 0; i < w->n; i++) {
		struct fresh *f = &w->f[i];
		if (f->group_new && import_half_of(f->key_hash) == half)  /* the group took the key */
			strmap_find(groups, w->im->q[f->group].key, f->key_len)->value =
				(void *)(uintptr_t)(f->group + 1);
	}
}

/* Return true when 'p' is one of the 'n' fresh forms 'f' (a creator of this import). */
static bool is_fresh(const struct fresh *f, size_t n, const void *p)
{
	return (const char *)p >= (const char *)f && (const char *)p < (const char *)(f + n);
}

/*
 * The sequential pass over the fresh form 'f' (in file order): a new form
 * joins the list and learns its group, a new group gets the next index.
 */
static void resolve_fresh(struct import *im, struct text_work *w, struct fresh *f)
{
	struct form *fm = f->form;

	for (int k = 0; k < PII_NR_KINDS; k++)
		im->st.pii.n[k] += f->pc.n[k];
	for (int k = 0; k < PII_MAX_PATTERNS; k++)
		im->st.pii.custom[k] += f->pc.custom[k];
	if (f->form_new) {
		ALLOC_GROW(im->form_list, im->nr_forms + 1, im->alloc_forms);
		im->form_list[im->nr_forms++] = fm;
		if (f->found && im->opt.pii == PII_DROP) {
			fm->group = -1;
		} else if (!*f->key) {
			fm->group = -2;
		} else if (f->group_new) {
			struct import_query *q;

			ALLOC_GROW(im->q, im->nr + 1, im->alloc);
			q = &im->q[im->nr];
			memset(q, 0, sizeof(*q));
			q->key = f->key;
			f->key = NULL;
			q->order = im->nr;
			q->text = fm->text;  /* for its near-duplicate form: any form prepares the same */
			f->group = im->nr++;
			fm->group = (long)f->group;
		} else if (is_fresh(w->f, w->n, f->creator)) {
			fm->group = (long)f->creator->group;
		} else {
			fm->group = (long)(uintptr_t)f->creator - 1;
		}
	}
	f->raw->group = fm->group;
}

/* Add the tally 'from' (document keys of a part, 'map' gives the import's) into 'into'. */
static void tally_add(const struct import *im, struct import_tally *into, struct import_tally *from,
		      const uint32_t *map, struct mempool *mp)
{
	if (!into->count && !into->nr_docs) {
		/* the first tally of the group: taken over, not copied */
		*into = *from;
		memset(from, 0, sizeof(*from));
		for (size_t k = 0; k < into->nr_docs; k++) {
			struct import_doc *d = &into->docs[k];
			d->key = into->dkeys[k] = map[d->key];
			d->id = im->docs.names[d->key].id;
		}
		if (into->dtab)
			import_doc_table_grow(into, mp);
		return;
	}
	into->count += from->count;
	into->positive += from->positive;
	into->negative += from->negative;
	into->short_clicks += from->short_clicks;
	into->other += from->other;
	sketch_merge(&into->sessions, &from->sessions, IMPORT_SESSION_SKETCH, mp);
	if (from->dated)
		import_tally_dates(into, from->first, from->last);
	for (size_t k = 0; k < from->nr_docs; k++) {
		const struct import_doc *s = &from->docs[k];
		struct import_doc *d = import_doc_of(&im->docs, into, map[s->key], mp);

		d->positive += s->positive;
		d->negative += s->negative;
		d->short_clicks += s->short_clicks;
		d->clicks += s->clicks;
		d->cites += s->cites;
		d->ratings += s->ratings;
		sketch_merge(&d->sessions, &s->sessions, IMPORT_DOC_SKETCH, mp);
	}
	import_tally_release(from, mp);
}

/* Merge the places 'a' and 'b' into 'out', the first IMPORT_KEEP_LINES. */
static void first_places(const struct places *a, const struct places *b, struct places *out)
{
	*out = *a;
	for (size_t k = 0; k < b->nr; k++)
		import_keep_place(out, b->at[k].half, b->at[k].line, b->at[k].why);
}

/*
 * Keep the places of both parts 'p' as "PATH:LINE" (the second half's
 * lines count from 'line1' + 1), warning about the malformed records.
 */
static void keep_places(struct import *im, const char *path, const struct part *p, long line1)
{
	struct places bad, missing;

	first_places(&p[0].bad, &p[1].bad, &bad);
	first_places(&p[0].missing, &p[1].missing, &missing);
	for (size_t k = 0; k < bad.nr && im->st.nr_malformed_at < IMPORT_KEEP_LINES; k++) {
		long line = (bad.at[k].half ? line1 : 0) + bad.at[k].line;
		warning_at(path, line, 0, "skipping malformed record: %s", bad.at[k].why);
		im->st.malformed_at[im->st.nr_malformed_at++] = xstrfmt("%s:%ld", path, line);
	}
	for (size_t k = 0; k < missing.nr && im->st.nr_missing_at < IMPORT_KEEP_LINES; k++)
		im->st.missing_at[im->st.nr_missing_at++] =
			xstrfmt("%s:%ld", path, (missing.at[k].half ? line1 : 0) + missing.at[k].line);
}

struct fold_work {
	struct import *im;
	struct part *p;           /* the parts */
	struct prow **all;        /* their raw forms, in order of first record */
	size_t n;
	uint32_t *map[2];         /* the parts' document keys in the import */
	size_t first_new;         /* groups from here on are new: prepare them */
};

/* Add the tallies of the groups of parity 'half' (in order), prepare their new groups. */
static void fold_half(void *ctx, int half)
{
	struct fold_work *w = ctx;
	struct import *im = w->im;

	for (size_t i = 0; i < w->n; i++) {
		struct prow *pr = w->all[i];
		if (pr->group >= 0 && (pr->group & 1) == half)
			tally_add(im, &im->q[pr->group].t, &pr->t, w->map[pr->part], &w->p[half].mp);
	}
	for (size_t g = w->first_new + ((w->first_new & 1) != (size_t)half); g < im->nr; g += 2) {
		struct import_query *q = &im->q[g];
		/* any form of the group prepares the same */
		dedup_text_prepare(q->text, strlen(q->text), &q->dd);
	}
}

static int by_first(const void *a, const void *b)
{
	const struct prow *x = *(const struct prow *const *)a, *y = *(const struct prow *const *)b;
	return x->first < y->first ? -1 : x->first > y->first;
}

/*
 * Stage two: fold the parts 'p' of the file 'path' into 'im' (see the top
 * of the file). The text work on new raw forms and the tallies run on two
 * threads when there is much of it; the order of forms and groups is fixed
 * by a sequential pass in between.
 */
void import_merge_parts(struct import *im, const char *path, struct part *p, long line1)
{
	struct import_stats *st = &im->st;
	size_t n = p[0].tab.nr + p[1].tab.nr;
	struct prow **all = xcalloc(n + 1, sizeof(*all));
	struct text_work tw = { im, all, n, xcalloc(n + 1, sizeof(struct fresh)), { 0, 0 } };
	struct fold_work fw = { im, p, all, n, { NULL, NULL }, im->nr };

	/* in the order of the file: the order one reader creates them in */
	if (p[0].tab.nr)
		memcpy(all, p[0].list, p[0].tab.nr * sizeof(*all));
	if (p[1].tab.nr)
		memcpy(all + p[0].tab.nr, p[1].list, p[1].tab.nr * sizeof(*all));
	qsort(all, n, sizeof(*all), by_first);
	import_run_halves(text_half, &tw, n > 4096);
	import_run_halves(forms_half, &tw, n > 4096);
	import_run_halves(raws_groups_half, &tw, n > 4096);
	keep_places(im, path, p, line1);
	for (int k = 0; k < 2; k++) {
		struct part *pk = &p[k];

		st->records += pk->records;
		st->malformed += pk->malformed;
		st->missing_query += pk->missing_query;
		st->undated += pk->undated;
		st->outside += pk->outside;
		for (int f = 0; f < IMPORT_NR_FIELDS; f++)
			st->field_seen[f] += pk->field_seen[f];
		fw.map[k] = xcalloc(pk->dk.nr + 1, sizeof(uint32_t));
		for (size_t d = 0; d < pk->dk.nr; d++)
			fw.map[k][d] = import_docs_intern(&im->docs, &im->arena, pk->dk.names[d].id,
						   pk->dk.names[d].len, pk->dk.names[d].hash);
	}
	for (size_t i = 0; i < n; i++) {
		struct prow *pr = all[i];
		struct import_tally *t = &pr->t;
		struct raw *r;

		pr->group = -1;
		if (pr->invalid)
			continue;  /* its records were counted as malformed */
		if (!(r = pr->raw)) {
			resolve_fresh(im, &tw, &tw.f[i]);
			r = tw.f[i].raw;
		}
		if (r->pii)
			st->pii_records += t->count;
		if (r->group == -1) {
			st->pii_dropped += t->count;
			continue;
		}
		if (r->group == -2) {
			st->empty_query += t->count;
			continue;
		}
		r->count += t->count;
		st->used += t->count;
		st->positive += t->positive;
		st->negative += t->negative;
		st->short_clicks += t->short_clicks;
		st->other_signals += t->other;
		pr->group = r->group;
	}
	import_run_halves(group_values_half, &tw, n > 4096);
	import_run_halves(fold_half, &fw, im->nr - fw.first_new + n > 4096);
	/* the tallies now belong to the groups: so does their memory */
	for (int k = 0; k < 2; k++) {
		ALLOC_GROW(im->pools, im->nr_pools + 1, im->alloc_pools);
		im->pools[im->nr_pools++] = p[k].mp;
		memset(&p[k].mp, 0, sizeof(p[k].mp));
	}
	for (size_t i = 0; i < n; i++) {
		strbuf_release(&tw.f[i].red);
		free(tw.f[i].key);
	}
	free(tw.f);
	free(all);
	free(fw.map[0]);
	free(fw.map[1]);
}
