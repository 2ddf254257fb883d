/*
 * logpart: stage one of an import (core/logs/logimport.c has the design): the
 * records of a reader's share of a log folded into its part, in batches;
 * with two readers, the records of the other reader's hash half passed to
 * it in rounds (struct exchange).
 */
#include "logs/logimport-internal.h"

#include "base/progress.h"
#include "base/util.h"
#include "base/utf8.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static bool parse_seconds(const struct log_value *v, double *out)
{
	char tmp[64];
	if (!v->len || v->len >= sizeof(tmp))
		return false;
	memcpy(tmp, v->s, v->len);
	tmp[v->len] = '\0';
	return !parse_double(tmp, out);
}

/*
 * Return the raw form 'raw' of 'len' bytes (hash 'h') of 'p', creating it
 * on first sight; 'offset' is the record's, for the form's first.
 */
static struct prow *part_raw(struct part *p, const char *raw, size_t len, uint64_t h,
			     long long offset)
{
	struct prow *r;

	if (p->tab.cap) {
		size_t mask = p->tab.cap - 1;
		for (size_t i = (size_t)h & mask; (r = p->tab.slot[i].p); i = (i + 1) & mask)
			if (p->tab.slot[i].hash == h && r->len == len && !memcmp(r->bytes, raw, len)) {
				if (offset < r->first)
					r->first = offset;
				return r;
			}
	}
	r = import_arena_alloc(&p->arena, sizeof(*r) + len + 1);
	memset(r, 0, sizeof(*r));
	r->first = offset;
	r->part = p->self;
	r->hash = h;
	r->len = (uint32_t)len;
	r->invalid = !utf8_valid(raw, len, NULL);
	memcpy(r->bytes, raw, len);
	r->bytes[len] = '\0';
	import_htab_insert(&p->tab, h, r);
	ALLOC_GROW(p->list, p->tab.nr, p->alloc_list);
	p->list[p->tab.nr - 1] = r;
	return r;
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

/* Fetch field 'f' of the current record into 'out' (appending); count it as seen. */
static size_t get_field(struct part *p, enum import_field f, struct log_values *out)
{
	size_t n = log_reader_get(&p->r, &p->path[f], out);
	if (n)
		p->field_seen[f]++;
	return n;
}

static void skip_malformed(struct part *p, int half, long line, const char *why)
{
	p->malformed++;
	import_keep_place(&p->bad, half, line, why);
}

/*
 * Read what makes the current record of 'p' a pre-aggregated row into 'e':
 * its count, its sessions, its latest time. Return 0, or -1 when the row is
 * malformed (counted).
 */
static int read_row(struct part *p, struct brec *e)
{
	struct log_values *v = &p->vals, *sv = &p->sessv;
	char tmp[32];
	double n = 0, last;

	v->nr = 0;
	if (get_field(p, FIELD_COUNT, v) && v->v[0].len && v->v[0].len < sizeof(tmp)) {
		memcpy(tmp, v->v[0].s, v->v[0].len);
		tmp[v->v[0].len] = '\0';
		if (parse_double(tmp, &n))
			n = 0;
	}
	if (!(n >= 1 && n <= IMPORT_MAX_ROW_COUNT && n == (double)(uint32_t)n)) {
		skip_malformed(p, e->half, e->line, "the count is not a whole number from 1 to 1000000000");
		return -1;
	}
	e->n = (uint32_t)n;
	if (e->dated) {
		e->last = e->tm;
		v->nr = 0;
		if (get_field(p, FIELD_LAST, v) && !import_parse_time(v->v[0].s, v->v[0].len, &last, NULL) &&
		    last > e->last)
			e->last = last;
	}
	if (!p->opt->field[FIELD_SESSIONS])
		return 0;
	v->nr = sv->nr = 0;
	get_field(p, FIELD_SESSIONS, v);
	for (size_t k = 0; k < v->nr; k++)
		split_cell(&v->v[k], sv);
	if (!sv->nr)
		return 0;  /* none named: the session field's, or each its own */
	if (sv->nr > e->n) {
		skip_malformed(p, e->half, e->line, "more sessions than the count of records");
		return -1;
	}
	e->own_sessions = false;
	e->sess0 = (uint32_t)p->nr_sess;
	e->nr_sess = (uint32_t)sv->nr;
	ALLOC_GROW(p->sess, p->nr_sess + sv->nr, p->alloc_sess);
	for (size_t k = 0; k < sv->nr; k++)
		p->sess[p->nr_sess++] = import_fast_hash(sv->v[k].s, sv->v[k].len);
	return 0;
}

/* get_field for field 'f' of the event 'item' of the current record ('item' < 0: of the record). */
static size_t get_in(struct part *p, long item, enum import_field f, struct log_values *out)
{
	size_t n;

	if (item < 0)
		return get_field(p, f, out);
	n = log_reader_get_in(&p->r, item, &p->path[f], out);
	if (n)
		p->field_seen[f]++;
	return n;
}

/* Return true when one of 'vals' is not empty. */
static bool any_value(const struct log_values *vals)
{
	for (size_t k = 0; k < vals->nr; k++)
		if (vals->v[k].len)
			return true;
	return false;
}

/* Return true when the current record (its event 'item', >= 0) holds field 'f', not empty. */
static bool has_in(struct part *p, long item, enum import_field f)
{
	struct log_values *v = &p->vals;

	v->nr = 0;
	if (item < 0)
		log_reader_get(&p->r, &p->path[f], v);
	else
		log_reader_get_in(&p->r, item, &p->path[f], v);
	return any_value(v);
}

/* Count one event of kind 'kind' (dwell 'dwell', -1 unknown) on 'd' of 't' by session 'sess'. */
static void count_event(const struct import_options *o, struct mempool *mp, struct import_tally *t,
			struct import_doc *d, enum signal_kind kind, double dwell, uint64_t sess)
{
	if (kind == SIGNAL_NEGATIVE) {
		d->negative++;
		t->negative++;
	} else if (kind == SIGNAL_SHORT_CLICK || (kind == SIGNAL_CLICK && dwell >= 0 && dwell < o->min_dwell)) {
		d->short_clicks++;
		t->short_clicks++;
	} else {
		if (kind == SIGNAL_CLICK)
			d->clicks++;
		else if (kind == SIGNAL_CITE)
			d->cites++;
		else
			d->ratings++;
		d->positive++;
		t->positive++;
		sketch_add(&d->sessions, sess, IMPORT_DOC_SKETCH, mp);
	}
}

/* Return the hash of the i-th session of its own of the row 'e' of 'p' (i < e->n). */
static uint64_t own_session(const struct part *p, const struct brec *e, uint32_t i)
{
	return splitmix64_mix(((uint64_t)p->file_idx << 48) ^ (uint64_t)e->offset ^ 0x5e55104eULL ^
			    ((uint64_t)i << 40));
}

/* Add the sessions of the row 'e' of 'p' to 'sk' (exact up to 'exact'). */
static void add_sessions(struct part *p, const struct brec *e, struct sketch *sk, size_t exact)
{
	if (e->nr_sess)
		for (uint32_t k = 0; k < e->nr_sess; k++)
			sketch_add(sk, p->sess[e->sess0 + k], exact, &p->mp);
	else if (e->own_sessions)
		for (uint32_t i = 0; i < e->n; i++)
			sketch_add(sk, own_session(p, e, i), exact, &p->mp);
	else
		sketch_add(sk, e->sess, exact, &p->mp);
}

/*
 * Count the 'e->n' events of the pre-aggregated row 'e' of 'p' on 'd' of
 * 't' (count_event for many records at once).
 */
static void count_row_event(struct part *p, struct import_tally *t, struct import_doc *d,
			    const struct brec *e)
{
	uint32_t n = e->n;

	if (e->kind == SIGNAL_NEGATIVE) {
		d->negative += n;
		t->negative += n;
	} else if (e->kind == SIGNAL_SHORT_CLICK ||
		   (e->kind == SIGNAL_CLICK && e->dwell >= 0 && e->dwell < p->opt->min_dwell)) {
		d->short_clicks += n;
		t->short_clicks += n;
	} else {
		if (e->kind == SIGNAL_CLICK)
			d->clicks += n;
		else if (e->kind == SIGNAL_CITE)
			d->cites += n;
		else
			d->ratings += n;
		d->positive += n;
		t->positive += n;
		add_sessions(p, e, &d->sessions, IMPORT_DOC_SKETCH);
	}
}

static void fold_batch(struct part *p);

/* Add the record 'e' (its query 'q', its valid distinct document ids 'ids') to the batch of 'p'. */
static void batch_add(struct part *p, const struct brec *e, const char *q,
		      const struct log_value *ids, size_t nr_ids)
{
	struct brec *b = &p->batch[p->nr_batch++];

	*b = *e;
	b->query = p->bytes.len;
	strbuf_add(&p->bytes, q, e->len);
	if (p->tab.cap)  /* fetched while the batch fills */
		__builtin_prefetch(&p->tab.slot[(size_t)e->hash & (p->tab.cap - 1)]);
	b->key0 = (uint32_t)p->nr_keys;
	b->nr_keys = (uint32_t)nr_ids;
	ALLOC_GROW(p->keys, p->nr_keys + nr_ids, p->alloc_keys);
	for (size_t k = 0; k < nr_ids; k++)
		p->keys[p->nr_keys++] = import_docs_intern(&p->dk, &p->arena, ids[k].s, ids[k].len,
						    import_fast_hash(ids[k].s, ids[k].len));
	if (p->nr_batch == BATCH)
		fold_batch(p);
}

/* Pass the record 'e' (query 'q', document ids 'ids') to the other reader. */
static void pass_record(struct obox *ob, const struct brec *e, const char *q,
			const struct log_value *ids, size_t nr_ids)
{
	struct brec *b;

	ALLOC_GROW(ob->rec, ob->nr + 1, ob->alloc);
	b = &ob->rec[ob->nr++];
	*b = *e;
	b->query = ob->bytes.len;
	strbuf_add(&ob->bytes, q, e->len);
	b->key0 = (uint32_t)ob->nr_id;
	b->nr_keys = (uint32_t)nr_ids;
	ALLOC_GROW(ob->id, ob->nr_id + nr_ids, ob->alloc_id);
	for (size_t k = 0; k < nr_ids; k++) {
		ob->id[ob->nr_id].s = (const char *)(uintptr_t)ob->bytes.len;
		ob->id[ob->nr_id++].len = ids[k].len;
		strbuf_add(&ob->bytes, ids[k].s, ids[k].len);
	}
}

/* Fold the records the other reader passed to 'p' (those in its hash half). */
static void take_passed(struct part *p, const struct obox *in)
{
	struct log_value *ids = NULL;
	size_t alloc = 0;

	for (size_t i = 0; i < in->nr; i++) {
		const struct brec *e = &in->rec[i];

		ALLOC_GROW(ids, e->nr_keys + 1, alloc);
		for (uint32_t k = 0; k < e->nr_keys; k++) {
			ids[k].s = in->bytes.buf + (uintptr_t)in->id[e->key0 + k].s;
			ids[k].len = in->id[e->key0 + k].len;
		}
		batch_add(p, e, in->bytes.buf + e->query, ids, e->nr_keys);
	}
	fold_batch(p);
	free(ids);
}

/*
 * Read the documents and signal of the current record of 'p' (or of its
 * event 'item', >= 0; or none when not 'with_docs') into a copy of 'ep'
 * and add it (its query 'query') to the batch, or pass it to the other
 * reader. An event naming no document is not added.
 */
static void add_event(struct part *p, const struct brec *ep, const char *query, long item,
		      bool with_docs)
{
	const struct import_options *o = p->opt;
	struct log_values *v = &p->vals, *docs = &p->docs;
	struct brec e = *ep;
	double end;
	size_t nr_ids = 0;

	docs->nr = 0;
	if (!with_docs || !get_in(p, item, FIELD_DOC, docs))
		goto add;
	if (p->r.format != LOG_FORMAT_JSONL) {
		struct log_value cell = docs->v[0];
		docs->nr = 0;
		split_cell(&cell, docs);
	}
	if (!any_value(docs))
		goto add;  /* an empty cell or list: no document */
	e.docs = true;
	v->nr = 0;
	if (get_in(p, item, FIELD_SIGNAL, v) && v->v[0].len) {
		e.kind = import_signal_kind(v->v[0].s, v->v[0].len);
	} else if (!o->assume_click && !has_in(p, item, FIELD_DWELL) && !has_in(p, item, FIELD_END)) {
		/* no evidence anyone used the documents: the import refuses the log */
		p->no_signal++;
		import_keep_place(&p->silent, p->self, p->r.lineno, "no signal");
		return;
	}
	if (e.kind == SIGNAL_OTHER) {
		e.other = true;
		goto add;
	}
	if (e.kind == SIGNAL_CLICK) {
		v->nr = 0;
		if (get_in(p, item, FIELD_DWELL, v) && parse_seconds(&v->v[0], &e.dwell)) {
			;
		} else if (e.dated && (v->nr = 0, get_in(p, item, FIELD_END, v))) {
			if (!import_parse_time(v->v[0].s, v->v[0].len, &end, NULL))
				e.dwell = end - e.tm;
		}
	}
	/* the valid, distinct ids, kept in place */
	for (size_t k = 0; k < docs->nr; k++) {
		const struct log_value id = docs->v[k];
		bool repeat = false;

		if (!id.len || !utf8_valid(id.s, id.len, NULL))
			continue;
		for (size_t j = 0; j < nr_ids && !repeat; j++)
			repeat = docs->v[j].len == id.len && !memcmp(docs->v[j].s, id.s, id.len);
		if (!repeat)
			docs->v[nr_ids++] = id;
	}
add:
	if (item >= 0 && !nr_ids && !e.other)
		return;  /* an event about no document (or only a refused one) */
	if (p->ex && import_half_of(e.hash) != p->self)
		pass_record(&p->out, &e, query, docs->v, nr_ids);
	else
		batch_add(p, &e, query, docs->v, nr_ids);
}

/*
 * Read the current record of the reader of 'p' into the batch of 'p' (or
 * pass it to the other reader), or count why it is skipped.
 */
static void batch_record(struct part *p)
{
	const struct import_options *o = p->opt;
	struct log_values *v = &p->vals;
	struct log_items *items = &p->items;
	struct brec e;
	struct log_value query;

	v->nr = 0;
	if (!get_field(p, FIELD_QUERY, v)) {
		p->missing_query++;
		import_keep_place(&p->missing, p->self, p->r.lineno, "no query");
		return;
	}
	query = v->v[0];
	memset(&e, 0, sizeof(e));
	e.line = p->r.lineno;
	e.half = p->self;
	e.offset = p->r.offset;
	e.dwell = -1;
	e.kind = SIGNAL_CLICK;

	v->nr = 0;
	if (get_field(p, FIELD_TIME, v))
		e.dated = !import_parse_time(v->v[0].s, v->v[0].len, &e.tm, NULL);
	if (o->have_since || o->have_until) {
		if (!e.dated) {
			p->undated++;
			return;
		}
		if ((o->have_since && e.tm < o->since) || (o->have_until && e.tm >= o->until)) {
			p->outside++;
			return;
		}
	}
	if (memchr(query.s, '\0', query.len)) {
		skip_malformed(p, e.half, e.line, "NUL character in the query");
		return;
	}
	e.len = (uint32_t)query.len;
	e.hash = import_fast_hash(query.s, query.len);

	v->nr = 0;
	e.n = 1;
	if (get_field(p, FIELD_SESSION, v) && v->v[0].len) {
		e.sess = import_fast_hash(v->v[0].s, v->v[0].len);
	} else {  /* a session of its own: the record's place in the file names it */
		e.sess = splitmix64_mix(((uint64_t)p->file_idx << 48) ^ (uint64_t)e.offset ^ 0x5e55104eULL);
		e.own_sessions = true;
	}
	if (o->field[FIELD_COUNT] && read_row(p, &e) < 0)
		return;

	if (!o->field[FIELD_EVENT]) {
		add_event(p, &e, query.s, -1, true);
		return;
	}
	/* a trace: the record counts for its query, each event for its documents */
	items->nr = 0;
	log_reader_items(&p->r, &p->path[FIELD_EVENT], items);
	if (items->nr)
		p->field_seen[FIELD_EVENT]++;
	add_event(p, &e, query.s, -1, false);
	e.event = true;
	for (size_t k = 0; k < items->nr; k++)
		add_event(p, &e, query.s, items->node[k], true);
}

/*
 * Fold the batch of 'p' into its tallies, in record order. The passes over
 * the batch ask for the memory the next pass reads (table slots, then raw
 * forms, then their session sets and documents) so that the cache misses
 * of a batch overlap instead of following one another.
 */
static void fold_batch(struct part *p)
{
	size_t n = p->nr_batch;

	for (size_t i = 0; p->tab.cap && i < n; i++) {
		const struct prow *r = p->tab.slot[(size_t)p->batch[i].hash & (p->tab.cap - 1)].p;
		if (r) {
			__builtin_prefetch(r);
			__builtin_prefetch(r->bytes);
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct brec *e = &p->batch[i];
		struct prow *r = part_raw(p, p->bytes.buf + e->query, e->len, e->hash, e->offset);
		const struct sketch *sk = &r->t.sessions;

		e->r = NULL;
		if (r->invalid) {
			if (!e->event)  /* counted once, with its record */
				skip_malformed(p, e->half, e->line, "invalid UTF-8 in the query");
			continue;
		}
		e->r = r;
		if (sk->h && !sk->kmv)
			__builtin_prefetch(&sk->h[(uint32_t)(e->sess | 1) & (sk->alloc - 1)]);
		if (e->nr_keys && r->t.docs)
			__builtin_prefetch(r->t.dkeys);
	}
	for (size_t i = 0; i < n; i++) {
		struct brec *e = &p->batch[i];
		struct import_tally *t;

		if (!e->r)
			continue;
		t = &e->r->t;
		if (e->event) {  /* an event of a trace: its record counted the query */
			if (e->other)
				t->other++;
			for (uint32_t k = 0; k < e->nr_keys; k++)
				count_event(p->opt, &p->mp, t,
					    import_doc_of(&p->dk, t, p->keys[e->key0 + k], &p->mp),
					    e->kind, e->dwell, e->sess);
			continue;
		}
		if (e->n != 1 || e->nr_sess) {  /* a pre-aggregated row */
			t->count += e->n;
			add_sessions(p, e, &t->sessions, IMPORT_SESSION_SKETCH);
			if (e->dated)
				import_tally_dates(t, e->tm, e->last);
			if (e->other)
				t->other += e->n;
			for (uint32_t k = 0; k < e->nr_keys; k++)
				count_row_event(p, t, import_doc_of(&p->dk, t, p->keys[e->key0 + k], &p->mp), e);
			continue;
		}
		t->count++;
		sketch_add(&t->sessions, e->sess, IMPORT_SESSION_SKETCH, &p->mp);
		if (e->dated)
			import_tally_dates(t, e->tm, e->tm);
		if (e->other)
			t->other++;
		for (uint32_t k = 0; k < e->nr_keys; k++)
			count_event(p->opt, &p->mp, t, import_doc_of(&p->dk, t, p->keys[e->key0 + k], &p->mp),
				    e->kind, e->dwell, e->sess);
	}
	p->nr_batch = 0;
	p->nr_keys = 0;
	p->nr_sess = 0;
	strbuf_reset(&p->bytes);
}

/*
 * Read the records of the reader of 'p': all of them, or, reading with the
 * other reader, those of the next round (up to a byte offset: both readers
 * end their shares in the same round). Return 1 when the share is read (or
 * failed), else 0.
 */
int import_read_records(struct part *p)
{
	long long end = LLONG_MAX;

	if (p->ex && ++p->round < p->rounds)
		end = p->start + p->len / p->rounds * p->round;
	for (;;) {
		int rc = log_reader_next(&p->r);

		if (rc == 0 || rc == -1) {
			p->failed = rc == -1;
			fold_batch(p);
			if (p->digest && !p->failed)
				log_reader_digest(&p->r, p->sum);
			return 1;
		}
		if (!(++p->records & 4095) && p->opt->progress)
			progress_update_lane(p->opt->progress, p->self,
					     (p->self ? 0 : p->opt->progress_base) +
					     (double)(p->r.offset - p->start));
		if (rc == -2)
			skip_malformed(p, p->self, p->r.lineno, p->r.why);
		else
			batch_record(p);
		if (p->r.offset >= end)
			break;
	}
	fold_batch(p);
	return 0;
}

static void obox_reset(struct obox *ob)
{
	ob->nr = ob->nr_id = 0;
	strbuf_reset(&ob->bytes);
}

static void obox_release(struct obox *ob)
{
	free(ob->rec);
	free(ob->id);
	strbuf_release(&ob->bytes);
}

/* Read the share of the file of 'p' with the other reader, a round at a time; a thread's body. */
void *import_read_shared(void *arg)
{
	struct part *p = arg;
	struct exchange *ex = p->ex;

	for (;;) {
		bool last;

		if (!ex->done[p->self] && import_read_records(p))
			ex->done[p->self] = true;
		pthread_barrier_wait(&ex->barrier);
		/* between the barriers no one writes 'done': both decide alike */
		last = ex->done[0] && ex->done[1];
		take_passed(p, &p->other->out);
		pthread_barrier_wait(&ex->barrier);
		obox_reset(&p->out);  /* the other has taken it */
		if (last)
			return NULL;
	}
}

/* Read the shares of both parts of 'p' in rounds on this thread (no thread to be had). */
void import_read_shared_here(struct part *p)
{
	struct exchange *ex = p[0].ex;

	while (!ex->done[0] || !ex->done[1]) {
		for (int k = 0; k < 2; k++)
			if (!ex->done[k] && import_read_records(&p[k]))
				ex->done[k] = true;
		take_passed(&p[0], &p[1].out);
		take_passed(&p[1], &p[0].out);
		obox_reset(&p[0].out);
		obox_reset(&p[1].out);
	}
}

void import_part_paths(struct part *p)
{
	for (int k = 0; k < IMPORT_NR_FIELDS; k++)
		log_path_init(&p->path[k], &p->r,
			      p->opt->field[k] ? p->opt->field[k] : import_field_name(k));
}

void import_part_release(struct part *p)
{
	mempool_clear(&p->mp);  /* the tallies not handed over to the import */
	free(p->list);
	free(p->tab.slot);
	import_arena_free(&p->arena);
	import_docs_release(&p->dk);
	for (int k = 0; k < IMPORT_NR_FIELDS; k++)
		log_path_release(&p->path[k]);
	log_values_release(&p->vals);
	log_values_release(&p->docs);
	free(p->batch);
	free(p->keys);
	free(p->sess);
	log_values_release(&p->sessv);
	log_items_release(&p->items);
	strbuf_release(&p->bytes);
	obox_release(&p->out);
	if (p->open)
		log_reader_close(&p->r);
	memset(p, 0, sizeof(*p));
}
