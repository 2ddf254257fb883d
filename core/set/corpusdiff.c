/*
 * corpusdiff: documents compared across two corpora, and labels pointing
 * at chunks a corpus lacks (see corpusdiff.h).
 *
 * Each document's chunks are taken by start; overlapping chunks of the two
 * sides are found by one sweep over both lists, and the text of each
 * overlap is compared byte for byte after converting its code points to
 * bytes inside each chunk's text.
 */
#include "set/corpusdiff.h"
#include "set/corpus.h"
#include "set/set.h"
#include "base/strmap.h"
#include "base/utf8.h"
#include "base/util.h"
#include "text/text.h"

#include <stdlib.h>
#include <string.h>

/* The chunks of one document on one side. */
struct doc_chunks {
	const struct chunk **c;
	size_t nr, alloc;
	bool spans;            /* every chunk has a span */
};

static void group(const struct corpus *c, struct strmap *docs, size_t *without_doc)
{
	for (size_t i = 0; i < c->nr; i++) {
		const struct chunk *ch = &c->chunks[i];
		struct doc_chunks *d;

		if (!ch->doc) {
			(*without_doc)++;
			continue;
		}
		d = strmap_get(docs, ch->doc);
		if (!d) {
			d = xcalloc(1, sizeof(*d));
			d->spans = true;
			strmap_put(docs, ch->doc, d);
		}
		ALLOC_GROW(d->c, d->nr + 1, d->alloc);
		d->c[d->nr++] = ch;
		d->spans &= ch->start >= 0;
	}
}

static void ungroup(struct strmap *docs)
{
	struct strmap_entry *e;

	strmap_for_each(docs, e) {
		struct doc_chunks *d = e->value;
		free(d->c);
		free(d);
	}
	strmap_clear(docs, 0);
}

static int by_start(const void *a, const void *b)
{
	const struct chunk *x = *(const struct chunk *const *)a;
	const struct chunk *y = *(const struct chunk *const *)b;

	if (x->start != y->start)
		return (x->start > y->start) - (x->start < y->start);
	return (x->end > y->end) - (x->end < y->end);
}

static int by_text(const void *a, const void *b)
{
	return strcmp((*(const struct chunk *const *)a)->text, (*(const struct chunk *const *)b)->text);
}

static void count_token(const char *w, size_t len, void *data)
{
	(void)w;
	(void)len;
	(*(size_t *)data)++;
}

static bool no_token(const char *doc, const char *text, size_t len)
{
	size_t n = 0;

	(void)doc;
	text_each_token(text, len, count_token, &n);
	return n == 0;
}

/* Point '*p' and '*n' at code points [lo, hi) of the document inside chunk 'c'. */
static void part(const struct chunk *c, long lo, long hi, const char **p, size_t *n)
{
	size_t len = strlen(c->text);
	size_t a = utf8_prefix(c->text, len, (size_t)(lo - c->start));
	size_t b = utf8_prefix(c->text, len, (size_t)(hi - c->start));

	*p = c->text + a;
	*n = b - a;
}

/* True when the spanned chunks 'x' and 'y' of one document agree. */
static bool same_by_spans(struct doc_chunks *x, struct doc_chunks *y, corpus_negligible_fn negl)
{
	bool *x_seen = xcalloc(x->nr + 1, 1), *y_seen = xcalloc(y->nr + 1, 1), same = true;
	long *maxend = xcalloc(y->nr + 1, sizeof(*maxend));
	size_t j0 = 0;

	qsort(x->c, x->nr, sizeof(*x->c), by_start);
	qsort(y->c, y->nr, sizeof(*y->c), by_start);
	/* maxend[j]: the furthest end of y's chunks up to j; the chunks before
	 * the first j whose maxend passes a's start cannot overlap a, nor any
	 * later chunk of x (they start no earlier) */
	for (size_t j = 0; j < y->nr; j++)
		maxend[j] = j && maxend[j - 1] > y->c[j]->end ? maxend[j - 1] : y->c[j]->end;
	for (size_t i = 0; i < x->nr && same; i++) {
		const struct chunk *a = x->c[i];

		while (j0 < y->nr && maxend[j0] <= a->start)
			j0++;
		for (size_t j = j0; j < y->nr && y->c[j]->start < a->end; j++) {
			const struct chunk *b = y->c[j];
			long lo = a->start > b->start ? a->start : b->start;
			long hi = a->end < b->end ? a->end : b->end;
			const char *pa, *pb;
			size_t na, nb;

			if (hi <= lo)
				continue;
			part(a, lo, hi, &pa, &na);
			part(b, lo, hi, &pb, &nb);
			if (na != nb || memcmp(pa, pb, na)) {
				same = false;
				break;
			}
			x_seen[i] = y_seen[j] = true;
		}
	}
	for (size_t i = 0; i < x->nr && same; i++)
		if (!x_seen[i])
			same = negl(x->c[i]->doc, x->c[i]->text, strlen(x->c[i]->text));
	for (size_t j = 0; j < y->nr && same; j++)
		if (!y_seen[j])
			same = negl(y->c[j]->doc, y->c[j]->text, strlen(y->c[j]->text));
	free(x_seen);
	free(y_seen);
	free(maxend);
	return same;
}

/* True when 'x' and 'y' hold the same texts (chunks without spans). */
static bool same_by_texts(struct doc_chunks *x, struct doc_chunks *y)
{
	if (x->nr != y->nr)
		return false;
	qsort(x->c, x->nr, sizeof(*x->c), by_text);
	qsort(y->c, y->nr, sizeof(*y->c), by_text);
	for (size_t i = 0; i < x->nr; i++)
		if (strcmp(x->c[i]->text, y->c[i]->text))
			return false;
	return true;
}

static void add_name(char ***v, size_t *nr, size_t *alloc, const char *name)
{
	ALLOC_GROW(*v, *nr + 1, *alloc);
	(*v)[(*nr)++] = xstrdup(name);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void corpus_change_compute(const struct corpus *old, const struct corpus *new,
			   corpus_negligible_fn negligible, struct corpus_change *out)
{
	struct strmap a = STRMAP_INIT, b = STRMAP_INIT;
	struct strmap_entry *e;

	if (!negligible)
		negligible = no_token;
	group(old, &a, &out->chunks_without_doc);
	group(new, &b, &out->chunks_without_doc);
	strmap_for_each(&a, e) {
		struct doc_chunks *x = e->value, *y = strmap_get(&b, e->key);

		if (!y)
			add_name(&out->removed, &out->nr_removed, &out->alloc_removed, e->key);
		else if (x->spans && y->spans ? same_by_spans(x, y, negligible) : same_by_texts(x, y))
			out->nr_same++;
		else
			add_name(&out->edited, &out->nr_edited, &out->alloc_edited, e->key);
	}
	strmap_for_each(&b, e)
		if (!strmap_get(&a, e->key))
			add_name(&out->added, &out->nr_added, &out->alloc_added, e->key);
	if (out->nr_added)
		qsort(out->added, out->nr_added, sizeof(char *), cmp_str);
	if (out->nr_removed)
		qsort(out->removed, out->nr_removed, sizeof(char *), cmp_str);
	if (out->nr_edited)
		qsort(out->edited, out->nr_edited, sizeof(char *), cmp_str);
	ungroup(&a);
	ungroup(&b);
}

static void free_names(char **v, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(v[i]);
	free(v);
}

void corpus_change_release(struct corpus_change *c)
{
	free_names(c->added, c->nr_added);
	free_names(c->removed, c->nr_removed);
	free_names(c->edited, c->nr_edited);
	memset(c, 0, sizeof(*c));
}

bool corpus_change_none(const struct corpus_change *c)
{
	return !c->nr_added && !c->nr_removed && !c->nr_edited;
}

static void describe_kind(struct strbuf *out, const char *what, char **names, size_t nr)
{
	strbuf_addf(out, "%zu %s", nr, what);
	for (size_t i = 0; i < nr && i < 3; i++)
		strbuf_addf(out, "%s%s", i ? ", " : " (", names[i]);
	if (nr)
		strbuf_addstr(out, nr > 3 ? ", ...)" : ")");
}

void corpus_change_describe(const struct corpus_change *c, struct strbuf *out)
{
	strbuf_addstr(out, "documents: ");
	describe_kind(out, "edited", c->edited, c->nr_edited);
	strbuf_addstr(out, ", ");
	describe_kind(out, "added", c->added, c->nr_added);
	strbuf_addstr(out, ", ");
	describe_kind(out, "removed", c->removed, c->nr_removed);
	if (c->chunks_without_doc)
		strbuf_addf(out, "; %zu chunks name no document", c->chunks_without_doc);
}

/* ---- labels ---- */

void corpus_absent_labels(const struct set *s, const struct corpus *c, struct absent_labels *out)
{
	for (size_t i = 0; i < s->nr; i++) {
		const struct question *q = &s->q[i];
		size_t absent = 0;

		for (size_t k = 0; k < q->nr_relevant; k++) {
			out->labels++;
			if (corpus_get(c, q->relevant[k].chunk))
				continue;
			ALLOC_GROW(out->items, out->nr + 1, out->alloc);
			out->items[out->nr].question = xstrdup(q->id ? q->id : "");
			out->items[out->nr].chunk = xstrdup(q->relevant[k].chunk);
			out->nr++;
			absent++;
		}
		out->questions += absent > 0;
		out->questions_all += absent && absent == q->nr_relevant;
	}
}

void absent_labels_release(struct absent_labels *a)
{
	for (size_t i = 0; i < a->nr; i++) {
		free(a->items[i].question);
		free(a->items[i].chunk);
	}
	free(a->items);
	memset(a, 0, sizeof(*a));
}

void absent_labels_describe(const struct absent_labels *a, size_t max, struct strbuf *out)
{
	strbuf_addf(out, "%zu of %zu labels (%zu question%s) point at chunks not in it", a->nr,
		    a->labels, a->questions, a->questions == 1 ? "" : "s");
	for (size_t i = 0; i < a->nr && i < max; i++)
		strbuf_addf(out, "%s%s %s", i ? ", " : ": ", a->items[i].question, a->items[i].chunk);
	if (a->nr > max)
		strbuf_addstr(out, ", ...");
}
