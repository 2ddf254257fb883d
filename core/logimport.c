/*
 * logimport: fold log records into query groups and decide labels.
 *
 * The hot path is a few hash probes per record. The raw query bytes find
 * their group through a table of distinct raw forms (hash and pointer side
 * by side, so a probe touches one slot and one record): each distinct raw
 * form is checked for UTF-8, redacted and normalised once. Document ids are
 * interned to small numbers once (a log names few documents), so a query's
 * documents are found by comparing numbers. A group's displayed text is its
 * most frequent redacted form (ties: the form seen first).
 *
 * Raw forms and document ids live in an arena freed at once. One thread
 * reads: on the shared 2-core machine two threads and a merge used more CPU
 * for a result a single reader gives as fast (docs/import.md, "Speed").
 */
#include "logimport.h"

#include "error.h"
#include "text.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define ARENA_CHUNK (1u << 20)

struct import_arena {
	struct import_arena *prev;  /* the chunk filled before */
	size_t used, cap;
	char mem[];
};

struct form {
	long group;            /* index into im->q; -1: dropped for PII; -2: empty */
	unsigned long count;   /* summed from the raw forms by import_label */
	const char *text;      /* the redacted text (the key in im->forms) */
};

/* A distinct raw query as read, with what the hot path needs in one place. */
struct raw {
	struct form *form;
	long group;            /* form->group, copied */
	unsigned long count;
	uint32_t len;
	bool pii;
	char bytes[];
};

struct raw_slot {
	uint64_t hash;
	struct raw *r;         /* NULL: empty */
};

static const char *const field_names[IMPORT_NR_FIELDS] = {
	"query", "doc", "signal", "session", "time", "dwell", "end",
};

const char *import_field_name(enum import_field f)
{
	return f < IMPORT_NR_FIELDS ? field_names[f] : "?";
}

int import_field_parse(const char *name)
{
	for (int f = 0; f < IMPORT_NR_FIELDS; f++)
		if (!strcmp(name, field_names[f]))
			return f;
	return -1;
}

void import_options_init(struct import_options *o)
{
	memset(o, 0, sizeof(*o));
	o->format = LOG_FORMAT_AUTO;
	o->min_clicks = 2;
	o->min_dwell = 30;
	o->pii = PII_REDACT;
	o->min_count = 1;
}

void import_init(struct import *im, const struct import_options *opt)
{
	memset(im, 0, sizeof(*im));
	im->opt = *opt;
}

/* Return 'len' bytes of the arena of 'im', aligned for any record. */
static void *arena_alloc(struct import *im, size_t len)
{
	struct import_arena *a = im->arena;

	len = (len + 15) & ~(size_t)15;
	if (!a || a->cap - a->used < len) {
		size_t cap = len > ARENA_CHUNK ? len : ARENA_CHUNK;
		a = xmalloc(sizeof(*a) + cap);
		a->prev = im->arena;
		a->used = 0;
		a->cap = cap;
		im->arena = a;
	}
	a->used += len;
	return a->mem + a->used - len;
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/*
 * Return a 64-bit hash of 'len' bytes of 's', eight bytes at a time: the
 * hot path hashes every query, document id and session of the log.
 */
static uint64_t fast_hash(const char *s, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ len, w;

	while (len >= 8) {
		memcpy(&w, s, 8);
		h = (h ^ mix64(w)) * 0xff51afd7ed558ccdULL;
		s += 8;
		len -= 8;
	}
	w = 0;
	memcpy(&w, s, len);
	h = (h ^ mix64(w ^ ((uint64_t)len << 56))) * 0xc4ceb9fe1a85ec53ULL;
	return mix64(h);
}

/* Free what query 'q' owns. */
static void query_release(struct import_query *q)
{
	for (size_t d = 0; d < q->nr_docs; d++)
		sketch_release(&q->docs[d].sessions);
	free(q->docs);
	free(q->dkeys);
	free(q->dtab);
	sketch_release(&q->sessions);
	dedup_text_release(&q->dd);
	free(q->key);
}

void import_release(struct import *im)
{
	struct strmap_entry *e;

	for (size_t i = 0; i < im->nr; i++)
		query_release(&im->q[i]);
	free(im->q);
	strmap_for_each(&im->forms, e)
		free(e->value);
	strmap_clear(&im->forms, 0);
	free(im->form_list);
	free(im->rtab);
	while (im->arena) {
		struct import_arena *prev = im->arena->prev;
		free(im->arena);
		im->arena = prev;
	}
	strmap_clear(&im->groups, 0);
	free(im->doc_names);
	free(im->doctab);
	for (size_t i = 0; i < im->nr_logs; i++)
		free(im->logs[i].path);
	free(im->logs);
	for (size_t i = 0; i < im->st.nr_malformed_at; i++)
		free(im->st.malformed_at[i]);
	for (size_t i = 0; i < im->st.nr_missing_at; i++)
		free(im->st.missing_at[i]);
	memset(im, 0, sizeof(*im));
}

/* ---- reading ---- */

/* Where a record was skipped, kept for the warnings and the summary. */
struct place {
	long line;
	const char *why;   /* a string literal */
};

struct places {
	struct place at[IMPORT_KEEP_LINES];
	size_t nr;
};

static void keep_place(struct places *p, long line, const char *why)
{
	if (p->nr < IMPORT_KEEP_LINES) {
		p->at[p->nr].line = line;
		p->at[p->nr++].why = why;
	}
}

static bool parse_seconds(const struct log_value *v, double *out)
{
	char tmp[64];
	if (!v->len || v->len >= sizeof(tmp))
		return false;
	memcpy(tmp, v->s, v->len);
	tmp[v->len] = '\0';
	return !parse_double(tmp, out);
}

/* Insert 'r' of hash 'h' into the raw table, growing it to stay at most half full. */
static void raw_insert(struct import *im, uint64_t h, struct raw *r)
{
	size_t mask, i;

	if (2 * (im->nr_raw + 1) > im->rcap) {
		struct raw_slot *old = im->rtab;
		size_t oldcap = im->rcap;
		im->rcap = im->rcap ? 2 * im->rcap : 1024;
		im->rtab = xcalloc(im->rcap, sizeof(*im->rtab));
		im->nr_raw = 0;
		for (size_t k = 0; k < oldcap; k++)
			if (old[k].r)
				raw_insert(im, old[k].hash, old[k].r);
		free(old);
	}
	mask = im->rcap - 1;
	for (i = (size_t)h & mask; im->rtab[i].r; i = (i + 1) & mask)
		;
	im->rtab[i].hash = h;
	im->rtab[i].r = r;
	im->nr_raw++;
}

/* Return the group of the redacted form 'red' (a new one on first sight). */
static long group_of(struct import *im, const struct strbuf *red)
{
	char *key = text_normalize_query(red->buf, red->len);
	struct strmap_entry *g;
	int added;

	if (!*key) {
		free(key);
		return -2;
	}
	g = strmap_intern(&im->groups, key, strlen(key), &added);
	if (!added) {
		free(key);
		return (long)(uintptr_t)g->value - 1;
	}
	ALLOC_GROW(im->q, im->nr + 1, im->alloc);
	memset(&im->q[im->nr], 0, sizeof(im->q[0]));
	im->q[im->nr].key = key;
	im->q[im->nr].order = im->nr;
	/* any form of the group prepares the same: done once, while reading */
	dedup_text_prepare(red->buf, red->len, &im->q[im->nr].dd);
	g->value = (void *)(uintptr_t)(im->nr + 1);
	return (long)im->nr++;
}

/*
 * Return the raw form 'raw' of 'len' bytes, creating it (and its redacted
 * form and group) on first sight, or NULL when it is not valid UTF-8.
 */
static struct raw *raw_of(struct import *im, const char *raw, size_t len)
{
	uint64_t h = fast_hash(raw, len);
	struct strbuf red = STRBUF_INIT;
	struct pii_counts pc = { { 0 } };
	struct strmap_entry *e;
	struct form *f;
	struct raw *r;
	size_t found;
	int added;

	if (im->rcap) {
		size_t mask = im->rcap - 1;
		for (size_t i = (size_t)h & mask; (r = im->rtab[i].r); i = (i + 1) & mask)
			if (im->rtab[i].hash == h && r->len == len && !memcmp(r->bytes, raw, len))
				return r;
	}
	if (!utf8_valid(raw, len, NULL))
		return NULL;
	found = pii_redact(raw, len, &red, &pc);
	for (int k = 0; k < PII_NR_KINDS; k++)
		im->st.pii.n[k] += pc.n[k];
	e = strmap_intern(&im->forms, red.buf, red.len, &added);
	if (!added) {
		f = e->value;
	} else {
		f = xcalloc(1, sizeof(*f));
		f->text = e->key;
		e->value = f;
		ALLOC_GROW(im->form_list, im->nr_forms + 1, im->alloc_forms);
		im->form_list[im->nr_forms++] = f;
		f->group = found && im->opt.pii == PII_DROP ? -1 : group_of(im, &red);
	}
	strbuf_release(&red);
	r = arena_alloc(im, sizeof(*r) + len + 1);
	r->form = f;
	r->group = f->group;
	r->count = 0;
	r->len = (uint32_t)len;
	r->pii = found > 0;
	memcpy(r->bytes, raw, len);
	r->bytes[len] = '\0';
	raw_insert(im, h, r);
	return r;
}

/* Insert document key 'key' (of hash 'h') into the id table, growing it. */
static void doc_key_insert(struct import *im, uint64_t h, uint32_t key)
{
	size_t mask, i;

	if (2 * (size_t)(key + 1) > im->doccap) {
		free(im->doctab);
		im->doccap = im->doccap ? 2 * im->doccap : 256;
		im->doctab = xcalloc(im->doccap, sizeof(*im->doctab));
		for (uint32_t k = 0; k < key; k++)
			doc_key_insert(im, im->doc_names[k].hash, k);
	}
	mask = im->doccap - 1;
	for (i = (size_t)h & mask; im->doctab[i]; i = (i + 1) & mask)
		;
	im->doctab[i] = key + 1;
}

/* Return the number of document id 'id' of 'len' bytes, interning it on first sight. */
static uint32_t doc_key(struct import *im, const char *id, size_t len)
{
	uint64_t h = fast_hash(id, len);
	struct import_doc_name *n;
	uint32_t key;
	char *copy;

	if (im->doccap) {
		size_t mask = im->doccap - 1;
		for (size_t i = (size_t)h & mask; im->doctab[i]; i = (i + 1) & mask) {
			n = &im->doc_names[im->doctab[i] - 1];
			if (n->hash == h && n->len == len &&
			    !memcmp(len < sizeof(n->inl) ? n->inl : n->id, id, len))
				return im->doctab[i] - 1;
		}
	}
	key = (uint32_t)im->nr_doc_names;
	copy = arena_alloc(im, len + 1);
	memcpy(copy, id, len);
	copy[len] = '\0';
	ALLOC_GROW(im->doc_names, im->nr_doc_names + 1, im->alloc_doc_names);
	n = &im->doc_names[im->nr_doc_names++];
	n->id = copy;
	n->hash = h;
	n->len = len;
	if (len < sizeof(n->inl))
		memcpy(n->inl, copy, len + 1);
	doc_key_insert(im, h, key);
	return key;
}

/* Return the slot of a query's document table where 'key' is or belongs. */
static size_t doc_slot(const struct import_query *q, uint32_t key)
{
	size_t mask = q->dcap - 1, i = (size_t)mix64(key) & mask;

	while (q->dtab[i] && q->dkeys[q->dtab[i] - 1] != key)
		i = (i + 1) & mask;
	return i;
}

/* Rebuild the document table of 'q' with room for twice its documents. */
static void doc_table_grow(struct import_query *q)
{
	size_t cap = 16;
	while (cap < 2 * (q->nr_docs + 1))
		cap *= 2;
	free(q->dtab);
	q->dtab = xcalloc(cap, sizeof(uint32_t));
	q->dcap = cap;
	for (size_t k = 0; k < q->nr_docs; k++)
		q->dtab[doc_slot(q, q->dkeys[k])] = (uint32_t)(k + 1);
}

/*
 * Return the statistics of document 'id' for 'q', creating them. A query's
 * documents are found by the id's number: a scan of their numbers while
 * there are few, a small hash table once there are many.
 */
static struct import_doc *doc_of(struct import *im, struct import_query *q, const char *id, size_t len)
{
	uint32_t key = doc_key(im, id, len);
	struct import_doc *d;
	size_t slot = 0;

	if (!q->dtab) {
		for (size_t k = 0; k < q->nr_docs; k++)
			if (q->dkeys[k] == key)
				return &q->docs[k];
	} else {
		slot = doc_slot(q, key);
		if (q->dtab[slot])
			return &q->docs[q->dtab[slot] - 1];
	}
	if (q->nr_docs == q->alloc_docs) {
		ALLOC_GROW(q->docs, q->nr_docs + 1, q->alloc_docs);
		q->dkeys = xreallocarray(q->dkeys, q->alloc_docs, sizeof(*q->dkeys));
	}
	q->dkeys[q->nr_docs] = key;
	d = &q->docs[q->nr_docs++];
	memset(d, 0, sizeof(*d));
	d->key = key;
	d->id = im->doc_names[key].id;
	if (q->nr_docs > 8 && (!q->dtab || 2 * q->nr_docs > q->dcap))
		doc_table_grow(q);
	else if (q->dtab)
		q->dtab[slot] = (uint32_t)q->nr_docs;
	return d;
}

/* Split a CSV/TSV cell holding several document ids ("a,b", "a;b", "[\"a\", \"b\"]"). */
static void split_cell(const struct log_value *cell, struct log_values *out)
{
	const char *s = cell->s, *end = s + cell->len;
	while (s < end) {
		while (s < end && strchr(",;| \t\n\r[]\"'", *s))
			s++;
		const char *b = s;
		while (s < end && !strchr(",;| \t\n\r[]\"'", *s))
			s++;
		if (s > b) {
			ALLOC_GROW(out->v, out->nr + 1, out->alloc);
			out->v[out->nr].s = b;
			out->v[out->nr].len = (size_t)(s - b);
			out->nr++;
		}
	}
}

/* The state of reading one log. */
struct reader_ctx {
	struct log_path path[IMPORT_NR_FIELDS];
	struct log_values vals, docs;
	size_t file_idx;
	struct places malformed, missing;
};

/* Fetch field 'f' of the current record into 'out' (appending); count it as seen. */
static size_t get_field(struct import *im, struct log_reader *r, struct reader_ctx *cx,
			enum import_field f, struct log_values *out)
{
	size_t n = log_reader_get(r, &cx->path[f], out);
	if (n)
		im->st.field_seen[f]++;
	return n;
}

static void skip_malformed(struct import *im, struct reader_ctx *cx, long line, const char *why)
{
	im->st.malformed++;
	keep_place(&cx->malformed, line, why);
}

/* Count one event of kind 'kind' (dwell 'dwell', -1 unknown) on 'd' of 'q' by session 'sess'. */
static void count_event(struct import *im, struct import_query *q, struct import_doc *d,
			enum signal_kind kind, double dwell, uint64_t sess)
{
	if (kind == SIGNAL_NEGATIVE) {
		d->negative++;
		q->negative++;
		im->st.negative++;
	} else if (kind == SIGNAL_CLICK && dwell >= 0 && dwell < im->opt.min_dwell) {
		d->short_clicks++;
		q->short_clicks++;
		im->st.short_clicks++;
	} else {
		if (kind == SIGNAL_CLICK)
			d->clicks++;
		else if (kind == SIGNAL_CITE)
			d->cites++;
		else
			d->ratings++;
		d->positive++;
		q->positive++;
		im->st.positive++;
		sketch_add(&d->sessions, sess, IMPORT_DOC_SKETCH);
	}
}

/* Fold the current record of 'r' into 'im'. */
static void fold_record(struct import *im, struct log_reader *r, struct reader_ctx *cx)
{
	const struct import_options *o = &im->opt;
	struct log_values *v = &cx->vals;
	struct import_query *q;
	struct raw *rf;
	double t = 0, dwell = -1, end;
	bool dated = false;
	uint64_t sess;
	enum signal_kind kind = SIGNAL_CLICK;
	struct log_value query;

	v->nr = 0;
	if (!get_field(im, r, cx, FIELD_QUERY, v)) {
		im->st.missing_query++;
		keep_place(&cx->missing, r->lineno, "no query");
		return;
	}
	query = v->v[0];

	v->nr = 0;
	if (get_field(im, r, cx, FIELD_TIME, v))
		dated = !import_parse_time(v->v[0].s, v->v[0].len, &t, NULL);
	if (o->have_since || o->have_until) {
		if (!dated) {
			im->st.undated++;
			return;
		}
		if ((o->have_since && t < o->since) || (o->have_until && t >= o->until)) {
			im->st.outside++;
			return;
		}
	}

	if (memchr(query.s, '\0', query.len)) {
		skip_malformed(im, cx, r->lineno, "NUL character in the query");
		return;
	}
	rf = raw_of(im, query.s, query.len);
	if (!rf) {
		skip_malformed(im, cx, r->lineno, "invalid UTF-8 in the query");
		return;
	}
	if (rf->pii)
		im->st.pii_records++;
	if (rf->group == -1) {
		im->st.pii_dropped++;
		return;
	}
	if (rf->group == -2) {
		im->st.empty_query++;
		return;
	}
	im->st.used++;
	rf->count++;
	q = &im->q[rf->group];
	q->count++;

	v->nr = 0;
	if (get_field(im, r, cx, FIELD_SESSION, v) && v->v[0].len)
		sess = fast_hash(v->v[0].s, v->v[0].len);
	else
		sess = mix64(((uint64_t)cx->file_idx << 40) ^ (uint64_t)r->lineno ^ 0x5e55104eULL);
	sketch_add(&q->sessions, sess, IMPORT_SESSION_SKETCH);
	if (dated) {
		if (!q->dated || t < q->first)
			q->first = t;
		if (!q->dated || t > q->last)
			q->last = t;
		q->dated = true;
	}

	cx->docs.nr = 0;
	if (!get_field(im, r, cx, FIELD_DOC, &cx->docs))
		return;
	if (r->format != LOG_FORMAT_JSONL) {
		struct log_value cell = cx->docs.v[0];
		cx->docs.nr = 0;
		split_cell(&cell, &cx->docs);
	}
	v->nr = 0;
	if (get_field(im, r, cx, FIELD_SIGNAL, v))
		kind = import_signal_kind(v->v[0].s, v->v[0].len);
	if (kind == SIGNAL_OTHER) {
		im->st.other_signals++;
		return;
	}
	if (kind == SIGNAL_CLICK) {
		v->nr = 0;
		if (get_field(im, r, cx, FIELD_DWELL, v) && parse_seconds(&v->v[0], &dwell)) {
			;
		} else if (dated && (v->nr = 0, get_field(im, r, cx, FIELD_END, v))) {
			if (!import_parse_time(v->v[0].s, v->v[0].len, &end, NULL))
				dwell = end - t;
		}
	}
	for (size_t k = 0; k < cx->docs.nr; k++) {
		const struct log_value *id = &cx->docs.v[k];
		bool repeat = false;

		if (!id->len || !utf8_valid(id->s, id->len, NULL))
			continue;
		for (size_t j = 0; j < k && !repeat; j++)
			repeat = cx->docs.v[j].len == id->len && !memcmp(cx->docs.v[j].s, id->s, id->len);
		if (!repeat)
			count_event(im, q, doc_of(im, q, id->s, id->len), kind, dwell, sess);
	}
}

/* Warn about the skipped records of 'cx' and keep them for the summary. */
static void report_places(struct import *im, const char *path, const struct reader_ctx *cx)
{
	for (size_t k = 0; k < cx->malformed.nr; k++) {
		long line = cx->malformed.at[k].line;
		if (im->st.nr_malformed_at < IMPORT_KEEP_LINES) {
			warning_at(path, line, 0, "skipping malformed record: %s", cx->malformed.at[k].why);
			im->st.malformed_at[im->st.nr_malformed_at++] = xstrfmt("%s:%ld", path, line);
		}
	}
	for (size_t k = 0; k < cx->missing.nr; k++)
		if (im->st.nr_missing_at < IMPORT_KEEP_LINES)
			im->st.missing_at[im->st.nr_missing_at++] =
				xstrfmt("%s:%ld", path, cx->missing.at[k].line);
}

int import_read(struct import *im, const char *path)
{
	struct reader_ctx cx;
	struct import_log lg;
	struct log_reader r;
	unsigned long before = im->st.records;
	int rc, ret = -1;

	memset(&cx, 0, sizeof(cx));
	memset(&lg, 0, sizeof(lg));
	cx.file_idx = im->nr_logs;
	if (log_reader_open(&r, path, im->opt.format) < 0)
		return -1;
	for (int k = 0; k < IMPORT_NR_FIELDS; k++)
		log_path_init(&cx.path[k], &r, im->opt.field[k] ? im->opt.field[k] : field_names[k]);
	if (r.format != LOG_FORMAT_JSONL && cx.path[FIELD_QUERY].column < 0) {
		error_at(path, 1, 0, "no column '%s' for the query in the header",
			 cx.path[FIELD_QUERY].text);
		goto out;
	}
	while ((rc = log_reader_next(&r)) != 0) {
		if (rc == -1)
			goto out;
		im->st.records++;
		if (rc == -2) {
			skip_malformed(im, &cx, r.lineno, r.why);
			continue;
		}
		fold_record(im, &r, &cx);
	}
	report_places(im, path, &cx);
	log_reader_digest(&r, lg.digest);
	lg.gzip = log_reader_gzip(&r);
	lg.format = r.format;
	lg.path = xstrdup(path);
	lg.records = im->st.records - before;
	ALLOC_GROW(im->logs, im->nr_logs + 1, im->alloc_logs);
	im->logs[im->nr_logs++] = lg;
	ret = 0;
out:
	for (int k = 0; k < IMPORT_NR_FIELDS; k++)
		log_path_release(&cx.path[k]);
	log_values_release(&cx.vals);
	log_values_release(&cx.docs);
	log_reader_close(&r);
	return ret;
}

/* ---- labels ---- */

static int by_count(const void *a, const void *b)
{
	const struct import_query *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Give every group the text of its most frequent form (ties: the form seen first). */
static void choose_texts(struct import *im)
{
	for (size_t i = 0; i < im->nr_forms; i++)
		im->form_list[i]->count = 0;
	for (size_t i = 0; i < im->rcap; i++)
		if (im->rtab[i].r)
			im->rtab[i].r->form->count += im->rtab[i].r->count;
	for (size_t i = 0; i < im->nr; i++)
		im->q[i].text_count = 0;
	for (size_t i = 0; i < im->nr_forms; i++) {
		struct form *f = im->form_list[i];
		if (f->group >= 0 && f->count > im->q[f->group].text_count) {
			im->q[f->group].text_count = f->count;
			im->q[f->group].text = f->text;
		}
	}
}

void import_label(struct import *im)
{
	size_t kept = 0;

	choose_texts(im);
	im->st.pii_dropped_queries = 0;
	for (size_t i = 0; i < im->nr_forms; i++)
		im->st.pii_dropped_queries += im->form_list[i]->group == -1;

	for (size_t i = 0; i < im->nr; i++) {
		struct import_query *q = &im->q[i];

		if (q->count < (unsigned long)im->opt.min_count) {
			im->st.below_min_count++;
			query_release(q);
			continue;
		}
		q->nr_labels = 0;
		for (size_t d = 0; d < q->nr_docs; d++) {
			struct import_doc *doc = &q->docs[d];
			doc->grade = 0;
			if (sketch_count(&doc->sessions, IMPORT_DOC_SKETCH) >= (double)im->opt.min_clicks) {
				doc->grade = 2 * doc->positive >= q->positive ? 2 : 1;
				q->nr_labels++;
			}
		}
		if (q->nr_labels)
			im->st.labelled++;
		else
			im->st.unlabelled++;
		im->q[kept++] = *q;
	}
	im->nr = kept;
	/* the group map holds indexes from before the filter: it is done with */
	strmap_clear(&im->groups, 0);
	if (im->nr)
		qsort(im->q, im->nr, sizeof(im->q[0]), by_count);
}
