/*
 * logconv: query logs read as conversations (contract in logconv.h).
 */
#include "logs/logconv.h"
#include "logs/logfield.h"
#include "logs/logread.h"
#include "set/corpus.h"
#include "text/pii.h"
#include "base/digest.h"
#include "base/error.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The fields this reader reads, in the order of 'paths' below. */
static const enum import_field conv_fields[] = {
	FIELD_QUERY, FIELD_DOC, FIELD_SIGNAL, FIELD_SESSION, FIELD_TIME, FIELD_DWELL,
};
#define NR_CONV_FIELDS (sizeof(conv_fields) / sizeof(conv_fields[0]))

void logconv_init(struct logconv *lc, const struct import_options *o)
{
	struct strmap blank = STRMAP_INIT;

	memset(lc, 0, sizeof(*lc));
	lc->o = o;
	lc->index = blank;
}

static void record_release(struct logconv_record *r)
{
	free(r->text);
	for (size_t i = 0; i < r->nr_docs; i++)
		free(r->docs[i]);
	free(r->docs);
}

void logconv_release(struct logconv *lc)
{
	for (size_t i = 0; i < lc->nr; i++) {
		for (size_t k = 0; k < lc->s[i].nr; k++)
			record_release(&lc->s[i].r[k]);
		free(lc->s[i].r);
		free(lc->s[i].key);
	}
	free(lc->s);
	strmap_clear(&lc->index, 0);
	memset(lc, 0, sizeof(*lc));
}

/* Return the session 'key' ('len' bytes; NULL: a record without one, a
 * session of its own). */
static struct logconv_session *session_of(struct logconv *lc, const char *key, size_t len)
{
	struct strmap_entry *e = NULL;
	struct logconv_session *s;
	int added = 1;

	if (key) {
		e = strmap_intern(&lc->index, key, len, &added);
		if (!added)
			return &lc->s[(uintptr_t)e->value - 1];
	}
	ALLOC_GROW(lc->s, lc->nr + 1, lc->alloc);
	s = &lc->s[lc->nr++];
	memset(s, 0, sizeof(*s));
	s->key = key ? xstrndup(key, len) : NULL;
	if (e)
		e->value = (void *)(uintptr_t)lc->nr;
	return s;
}

static void add_doc(struct logconv_record *r, const char *id, size_t len)
{
	for (size_t i = 0; i < r->nr_docs; i++)
		if (strlen(r->docs[i]) == len && !memcmp(r->docs[i], id, len))
			return;
	ALLOC_GROW(r->docs, r->nr_docs + 1, r->alloc_docs);
	r->docs[r->nr_docs++] = xstrndup(id, len);
}

/*
 * Decide whether the current record's documents had a positive event
 * (docs/import.md, "Signals and labels"). Return 1 or 0, or -1 after
 * refusing a record that names documents with nothing saying what
 * happened to them.
 */
static int positive(const struct logconv *lc, const struct log_reader *r, const struct log_values *sig,
		    const struct log_values *dwell, const char *path)
{
	const struct import_options *o = lc->o;
	double d = NAN;

	if (dwell->nr) {
		char *t = xstrndup(dwell->v[0].s, dwell->v[0].len);
		char *end;
		d = strtod(t, &end);
		if (end == t || *end)
			d = NAN;
		free(t);
	}
	if (sig->nr) {
		switch (import_signal_kind(sig->v[0].s, sig->v[0].len)) {
		case SIGNAL_CLICK:
			return isnan(d) || d >= o->min_dwell;
		case SIGNAL_CITE:
		case SIGNAL_POSITIVE:
			return 1;
		default:
			return 0;
		}
	}
	if (dwell->nr || o->assume_click)
		return isnan(d) || d >= o->min_dwell;
	return error_at(path, r->lineno, 0, "record names a document (field '%s') but has no signal "
			"field ('%s'): map the field that says what happened with --field signal=PATH, "
			"or pass --assume-click if such records are clicks",
			o->field[FIELD_DOC] ? o->field[FIELD_DOC] : "doc",
			o->field[FIELD_SIGNAL] ? o->field[FIELD_SIGNAL] : "signal");
}

/* Return the query of the record, redacted and trimmed, into 'out'; the
 * number of personal data spans replaced. */
static size_t redacted_query(const struct logconv *lc, const struct log_value *q, struct strbuf *out)
{
	struct strbuf raw = STRBUF_INIT;
	size_t n;

	strbuf_reset(out);
	strbuf_add(&raw, q->s, q->len);
	strbuf_trim(&raw);
	n = pii_redact_with(raw.buf, raw.len, lc->o->pii_patterns, out, NULL);
	strbuf_trim(out);
	strbuf_release(&raw);
	return n;
}

int logconv_read(struct logconv *lc, const char *path)
{
	const struct import_options *o = lc->o;
	struct log_reader r;
	struct log_path paths[NR_CONV_FIELDS];
	struct log_values v[NR_CONV_FIELDS];
	struct strbuf q = STRBUF_INIT;
	int rc, ret = -1;

	if (log_reader_open(&r, path, o->format) < 0)
		return -1;
	for (size_t f = 0; f < NR_CONV_FIELDS; f++) {
		const char *name = o->field[conv_fields[f]];
		log_path_init(&paths[f], &r, name ? name : import_field_name(conv_fields[f]));
		memset(&v[f], 0, sizeof(v[f]));
	}
	while ((rc = log_reader_next(&r)) != 0) {
		struct logconv_session *s;
		struct logconv_record *rec;
		double t = 0;
		bool dated = false;
		size_t spans;
		int pos = 0;

		if (rc == -1)
			goto out;
		lc->records++;
		if (rc == -2) {
			lc->malformed++;
			continue;
		}
		for (size_t f = 0; f < NR_CONV_FIELDS; f++) {
			v[f].nr = 0;
			log_reader_get(&r, &paths[f], &v[f]);
		}
		if (!v[0].nr || !v[0].v[0].len) {
			lc->missing_query++;
			continue;
		}
		if (v[4].nr)
			dated = import_parse_time(v[4].v[0].s, v[4].v[0].len, &t, NULL) == 0;
		if ((o->have_since || o->have_until) &&
		    (!dated || (o->have_since && t < o->since) || (o->have_until && t >= o->until))) {
			lc->outside++;
			continue;
		}
		if (v[1].nr && (pos = positive(lc, &r, &v[2], &v[5], path)) < 0)
			goto out;
		spans = redacted_query(lc, &v[0].v[0], &q);
		if (!q.len) {
			lc->missing_query++;
			continue;
		}
		s = session_of(lc, v[3].nr ? v[3].v[0].s : NULL, v[3].nr ? v[3].v[0].len : 0);
		if (spans && o->pii == PII_DROP) {
			if (!s->dropped)
				lc->pii_sessions_dropped++;
			s->dropped = true;
			continue;
		}
		lc->pii_redacted += spans > 0;
		ALLOC_GROW(s->r, s->nr + 1, s->alloc);
		rec = &s->r[s->nr++];
		memset(rec, 0, sizeof(*rec));
		rec->text = xstrdup(q.buf);
		rec->time = t;
		rec->dated = dated;
		rec->order = lc->order++;
		for (size_t k = 0; pos && k < v[1].nr; k++)
			if (v[1].v[k].len)
				add_doc(rec, v[1].v[k].s, v[1].v[k].len);
	}
	ret = 0;
out:
	for (size_t f = 0; f < NR_CONV_FIELDS; f++) {
		log_path_release(&paths[f]);
		log_values_release(&v[f]);
	}
	log_reader_close(&r);
	strbuf_release(&q);
	return ret;
}

static int cmp_record(const void *a, const void *b)
{
	const struct logconv_record *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Put the records of 's' in time order when every one has a time (else
 * they stay in log order), then merge consecutive records of one text. */
static void make_turns(struct logconv_session *s)
{
	bool all_dated = true;
	size_t n = 0;

	for (size_t i = 0; i < s->nr; i++)
		all_dated &= s->r[i].dated;
	if (all_dated)
		qsort(s->r, s->nr, sizeof(*s->r), cmp_record);
	for (size_t i = 0; i < s->nr; i++) {
		if (n && !strcmp(s->r[n - 1].text, s->r[i].text)) {
			for (size_t k = 0; k < s->r[i].nr_docs; k++)
				add_doc(&s->r[n - 1], s->r[i].docs[k], strlen(s->r[i].docs[k]));
			record_release(&s->r[i]);
			continue;
		}
		s->r[n++] = s->r[i];
	}
	s->nr = n;
}

size_t logconv_apply(struct logconv *lc, struct set *s, const struct corpus *corpus, long *floor)
{
	struct strmap have = STRMAP_INIT;  /* "conversation TAB turn" of the set's questions */
	struct strbuf key = STRBUF_INIT;
	long next = *floor > 0 ? *floor : 0;
	size_t added = 0;
	int fresh;

	for (size_t i = 0; i < s->nr; i++) {
		long n = question_id_number(s->q[i].id);
		if (n > next)
			next = n;
		strbuf_reset(&key);
		if (s->q[i].conversation)
			strbuf_addf(&key, "%s\t%ld", s->q[i].conversation, s->q[i].turn);
		else if (s->q[i].text && !s->q[i].nr_history)
			strbuf_addf(&key, "\t%s", s->q[i].text);
		if (key.len)
			strmap_intern(&have, key.buf, key.len, &fresh);
	}
	for (size_t i = 0; i < lc->nr; i++) {
		struct logconv_session *ss = &lc->s[i];
		char conv[72];

		if (ss->dropped || !ss->nr)
			continue;
		make_turns(ss);
		lc->conversations++;
		lc->turns += ss->nr;
		if (ss->key) {
			char digest[72];
			sha256_hex(ss->key, strlen(ss->key), digest);
			snprintf(conv, sizeof(conv), "s-%.12s", digest + strlen("sha256:"));
		}
		for (size_t t = 0; t < ss->nr; t++) {
			const struct logconv_record *rec = &ss->r[t];
			struct question *q;
			size_t kept = 0;

			for (size_t k = 0; k < rec->nr_docs; k++)
				kept += !corpus || corpus_get(corpus, rec->docs[k]);
			lc->dropped_labels += rec->nr_docs - kept;
			if (!kept) {
				lc->unlabelled_turns++;
				continue;
			}
			strbuf_reset(&key);
			if (ss->key)
				strbuf_addf(&key, "%s\t%zu", conv, t + 1);
			else
				strbuf_addf(&key, "\t%s", rec->text);
			strmap_intern(&have, key.buf, key.len, &fresh);
			if (!fresh) {
				lc->already++;  /* imported before: the same session and turn */
				continue;
			}
			q = set_append(s);
			q->id = xstrfmt("q-%04ld", ++next);
			q->text = xstrdup(rec->text);
			q->origin = ORIGIN_MINED;
			q->answerable = true;
			q->relevant_as_list = true;
			for (size_t k = 0; k < rec->nr_docs; k++)
				if (!corpus || corpus_get(corpus, rec->docs[k]))
					question_append_label(q, rec->docs[k], 1);
			if (ss->key) {
				q->conversation = xstrdup(conv);
				q->turn = (long)t + 1;
				for (size_t h = 0; h < t; h++)
					question_add_turn(q, TURN_USER, ss->r[h].text);
			}
			q->provenance = cJSON_CreateObject();
			cJSON_AddStringToObject(q->provenance, "source", "log conversation");
			if (rec->dated) {
				char when[32];
				import_format_time(rec->time, when);
				cJSON_AddStringToObject(q->provenance, "time", when);
			}
			added++;
		}
	}
	lc->added = added;
	*floor = next;
	strmap_clear(&have, 0);
	strbuf_release(&key);
	return added;
}
