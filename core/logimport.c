/*
 * logimport: fold log records into query groups and decide labels.
 *
 * The hot path is one hash lookup of the raw query bytes: each distinct raw
 * form is checked for UTF-8, redacted and normalised once, and remembered
 * with the group it belongs to. A group's displayed text is its most
 * frequent redacted form (ties: the form seen first).
 */
#include "logimport.h"

#include "error.h"
#include "text.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct form {
	long group;            /* index into im->q; -1: dropped for PII; -2: empty */
	unsigned long count;
	const char *text;      /* the redacted text (the key in im->forms) */
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

static void sketch_release(struct sketch *s)
{
	free(s->h);
	s->h = NULL;
	s->nr = s->alloc = 0;
}

/* Add 'h' to 's', keeping the 'cap' smallest distinct hashes in order. */
static void sketch_add(struct sketch *s, uint64_t h, uint32_t cap)
{
	uint32_t lo = 0, hi = s->nr;

	if (s->nr == cap && h >= s->h[cap - 1])
		return;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (s->h[mid] < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->nr && s->h[lo] == h)
		return;
	if (s->nr == cap) {
		s->nr--;  /* the largest falls out */
	} else if (s->nr == s->alloc) {
		s->alloc = s->alloc ? s->alloc * 2 : 4;
		if (s->alloc > cap)
			s->alloc = cap;
		s->h = xreallocarray(s->h, s->alloc, sizeof(uint64_t));
	}
	memmove(s->h + lo + 1, s->h + lo, (s->nr - lo) * sizeof(uint64_t));
	s->h[lo] = h;
	s->nr++;
}

double sketch_count(const struct sketch *s, uint32_t cap)
{
	if (s->nr < cap)
		return s->nr;
	/* k-minimum-values estimate */
	return (double)(cap - 1) / ((double)s->h[cap - 1] / 18446744073709551616.0);
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

void import_release(struct import *im)
{
	struct strmap_entry *e;

	for (size_t i = 0; i < im->nr; i++) {
		struct import_query *q = &im->q[i];
		for (size_t d = 0; d < q->nr_docs; d++)
			sketch_release(&q->docs[d].sessions);
		free(q->docs);
		free(q->dtab);
		sketch_release(&q->sessions);
		free(q->key);
	}
	free(im->q);
	strmap_for_each(&im->forms, e)
		free(e->value);
	strmap_clear(&im->forms, 0);
	strmap_clear(&im->raw, 0);
	strmap_clear(&im->groups, 0);
	strmap_clear(&im->docs, 0);
	for (size_t i = 0; i < im->nr_logs; i++)
		free(im->logs[i].path);
	free(im->logs);
	for (size_t i = 0; i < im->st.nr_malformed_at; i++)
		free(im->st.malformed_at[i]);
	for (size_t i = 0; i < im->st.nr_missing_at; i++)
		free(im->st.missing_at[i]);
	memset(im, 0, sizeof(*im));
}

/* ---- time ---- */

static long days_from_civil(long y, long m, long d)
{
	y -= m <= 2;
	long era = (y >= 0 ? y : y - 399) / 400;
	long yoe = y - era * 400;
	long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int digits(const char *s, size_t len, size_t *i, int n, long *out)
{
	long v = 0;
	for (int k = 0; k < n; k++, (*i)++) {
		if (*i >= len || s[*i] < '0' || s[*i] > '9')
			return -1;
		v = v * 10 + (s[*i] - '0');
	}
	*out = v;
	return 0;
}

int import_parse_time(const char *s, size_t len, double *out, bool *date_only)
{
	size_t i = 0;
	long y, mo, d, h = 0, mi = 0, sec = 0, zh, zm;
	double frac = 0, off = 0;
	char tmp[64];

	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	if (!len || len >= sizeof(tmp))
		return -1;
	if (date_only)
		*date_only = false;
	if (len < 10 || s[4] != '-') {
		double v;
		memcpy(tmp, s, len);
		tmp[len] = '\0';
		if (parse_double(tmp, &v) || v < 0)
			return -1;
		*out = v > 1e11 ? v / 1000 : v;
		return 0;
	}
	if (digits(s, len, &i, 4, &y) || s[i++] != '-' || digits(s, len, &i, 2, &mo) ||
	    i >= len || s[i++] != '-' || digits(s, len, &i, 2, &d))
		return -1;
	if (mo < 1 || mo > 12 || d < 1 || d > 31)
		return -1;
	if (i == len) {
		if (date_only)
			*date_only = true;
		goto done;
	}
	if (s[i] != 'T' && s[i] != 't' && s[i] != ' ')
		return -1;
	i++;
	if (digits(s, len, &i, 2, &h) || i >= len || s[i++] != ':' || digits(s, len, &i, 2, &mi))
		return -1;
	if (i < len && s[i] == ':') {
		i++;
		if (digits(s, len, &i, 2, &sec))
			return -1;
		if (i < len && (s[i] == '.' || s[i] == ',')) {
			double scale = 0.1;
			i++;
			if (i >= len || s[i] < '0' || s[i] > '9')
				return -1;
			while (i < len && s[i] >= '0' && s[i] <= '9') {
				frac += (s[i++] - '0') * scale;
				scale /= 10;
			}
		}
	}
	if (h > 24 || mi > 59 || sec > 60)
		return -1;
	if (i < len && (s[i] == 'Z' || s[i] == 'z')) {
		i++;
	} else if (i < len && (s[i] == '+' || s[i] == '-')) {
		int sign = s[i++] == '-' ? -1 : 1;
		if (digits(s, len, &i, 2, &zh))
			return -1;
		if (i < len && s[i] == ':')
			i++;
		if (digits(s, len, &i, 2, &zm))
			return -1;
		off = sign * (zh * 3600.0 + zm * 60.0);
	}
	if (i != len)
		return -1;
done:
	*out = (double)days_from_civil(y, mo, d) * 86400.0 + h * 3600.0 + mi * 60.0 + sec + frac - off;
	return 0;
}

void import_format_time(double t, char out[32])
{
	time_t tt = (time_t)floor(t);
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- signals ---- */

static bool word_is(const char *s, size_t len, const char *w)
{
	size_t n = strlen(w);
	if (n != len)
		return false;
	for (size_t k = 0; k < n; k++) {
		char c = s[k];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c + 32);
		if (c == '-' || c == ' ')
			c = '_';
		if (c != w[k])
			return false;
	}
	return true;
}

enum signal_kind import_signal_kind(const char *s, size_t len)
{
	static const char *const pos[] = { "thumbs_up", "thumbsup", "up", "like", "liked",
		"positive", "helpful", "good", "true", "yes", NULL };
	static const char *const neg[] = { "thumbs_down", "thumbsdown", "down", "dislike",
		"disliked", "negative", "unhelpful", "not_helpful", "bad", "false", "no", NULL };
	char tmp[32];
	double v;

	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (word_is(s, len, "click") || word_is(s, len, "clicked") || word_is(s, len, "open"))
		return SIGNAL_CLICK;
	if (word_is(s, len, "cite") || word_is(s, len, "citation") || word_is(s, len, "cited") ||
	    word_is(s, len, "cites"))
		return SIGNAL_CITE;
	for (size_t k = 0; pos[k]; k++)
		if (word_is(s, len, pos[k]))
			return SIGNAL_POSITIVE;
	for (size_t k = 0; neg[k]; k++)
		if (word_is(s, len, neg[k]))
			return SIGNAL_NEGATIVE;
	if (len > 7 && word_is(s, 7, "rating:")) {
		s += 7;
		len -= 7;
	}
	if (len && len < sizeof(tmp)) {
		memcpy(tmp, s, len);
		tmp[len] = '\0';
		if (!parse_double(tmp, &v) || (tmp[0] == '+' && !parse_double(tmp + 1, &v))) {
			if (v > 0)
				return SIGNAL_POSITIVE;
			if (v < 0)
				return SIGNAL_NEGATIVE;
		}
	}
	return SIGNAL_OTHER;
}

/* ---- reading ---- */

static void keep_place(char **at, size_t *nr, const char *path, long line)
{
	if (*nr < IMPORT_KEEP_LINES)
		at[(*nr)++] = xstrfmt("%s:%ld", path, line);
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

/*
 * Return the form for the raw query 'raw', creating it (and its group) on
 * first sight. '*pii' tells whether the raw form held PII; the raw map keeps
 * that in the low bit of the (aligned) form pointer.
 */
static struct form *form_of(struct import *im, const char *raw, size_t len, bool *bad_utf8, bool *pii)
{
	struct strmap_entry *e = strmap_find(&im->raw, raw, len);
	struct strbuf red = STRBUF_INIT;
	struct form *f;
	size_t found;
	int added;

	*bad_utf8 = false;
	if (e) {
		*pii = (uintptr_t)e->value & 1;
		return (struct form *)((uintptr_t)e->value & ~(uintptr_t)1);
	}
	if (!utf8_valid(raw, len, NULL)) {
		*bad_utf8 = true;
		return NULL;
	}
	found = pii_redact(raw, len, &red, &im->st.pii);
	*pii = found > 0;
	e = strmap_intern(&im->forms, red.buf, red.len, &added);
	if (!added) {
		f = e->value;
	} else {
		f = xcalloc(1, sizeof(*f));
		f->text = e->key;
		e->value = f;
		if (found && im->opt.pii == PII_DROP) {
			f->group = -1;
			im->st.pii_dropped_queries++;
		} else {
			char *key = text_normalize_query(red.buf, red.len);
			if (!*key) {
				f->group = -2;
				free(key);
			} else {
				struct strmap_entry *g = strmap_intern(&im->groups, key, strlen(key), &added);
				if (added) {
					ALLOC_GROW(im->q, im->nr + 1, im->alloc);
					memset(&im->q[im->nr], 0, sizeof(im->q[0]));
					im->q[im->nr].key = key;
					im->q[im->nr].order = im->nr;
					g->value = (void *)(uintptr_t)(im->nr + 1);
					im->nr++;
				} else {
					free(key);
				}
				f->group = (long)(uintptr_t)g->value - 1;
			}
		}
	}
	strbuf_release(&red);
	e = strmap_intern(&im->raw, raw, len, &added);
	e->value = (void *)((uintptr_t)f | (uintptr_t)*pii);
	return f;
}

static size_t ptr_slot(const void *p, size_t cap)
{
	return (size_t)mix64((uint64_t)(uintptr_t)p) & (cap - 1);
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
	for (size_t k = 0; k < q->nr_docs; k++) {
		size_t i = ptr_slot(q->docs[k].id, cap);
		while (q->dtab[i])
			i = (i + 1) & (cap - 1);
		q->dtab[i] = (uint32_t)(k + 1);
	}
}

/*
 * Return the statistics of document 'id' for 'q', creating them. Ids are
 * interned, so a query's documents are found by pointer: a linear scan
 * while there are few, a small hash table once there are many.
 */
static struct import_doc *doc_of(struct import *im, struct import_query *q, const char *id, size_t len)
{
	struct strmap_entry *e;
	const char *key;
	size_t i = 0;
	int added;

	e = strmap_intern(&im->docs, id, len, &added);
	key = e->key;
	if (!q->dtab) {
		for (size_t k = 0; k < q->nr_docs; k++)
			if (q->docs[k].id == key)
				return &q->docs[k];
	} else {
		for (i = ptr_slot(key, q->dcap); q->dtab[i]; i = (i + 1) & (q->dcap - 1))
			if (q->docs[q->dtab[i] - 1].id == key)
				return &q->docs[q->dtab[i] - 1];
	}
	ALLOC_GROW(q->docs, q->nr_docs + 1, q->alloc_docs);
	memset(&q->docs[q->nr_docs], 0, sizeof(q->docs[0]));
	q->docs[q->nr_docs].id = key;
	q->nr_docs++;
	if (q->nr_docs > 8 && (!q->dtab || 2 * q->nr_docs > q->dcap))
		doc_table_grow(q);
	else if (q->dtab)
		q->dtab[i] = (uint32_t)q->nr_docs;
	return &q->docs[q->nr_docs - 1];
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

struct reader_ctx {
	struct log_path path[IMPORT_NR_FIELDS];
	bool mapped[IMPORT_NR_FIELDS];
	struct log_values vals, docs;
};

static void skip_malformed(struct import *im, const char *path, long line, const char *why)
{
	im->st.malformed++;
	if (im->st.nr_malformed_at < IMPORT_KEEP_LINES)
		warning_at(path, line, 0, "skipping malformed record: %s", why);
	keep_place(im->st.malformed_at, &im->st.nr_malformed_at, path, line);
}

/* Fold the current record of 'r' into 'im'. */
static void fold_record(struct import *im, struct log_reader *r, struct reader_ctx *cx, size_t file_idx)
{
	const struct import_options *o = &im->opt;
	struct log_values *v = &cx->vals;
	struct import_query *q;
	struct form *f;
	double t = 0, dwell = -1, end;
	bool dated = false, bad_utf8, pii;
	uint64_t sess;
	enum signal_kind kind = SIGNAL_CLICK;
	struct log_value query;

	for (int k = 0; k < IMPORT_NR_FIELDS; k++) {
		v->nr = 0;
		if (cx->mapped[k] && log_reader_get(r, &cx->path[k], v))
			im->st.field_seen[k]++;
	}
	v->nr = 0;
	if (!log_reader_get(r, &cx->path[FIELD_QUERY], v)) {
		im->st.missing_query++;
		keep_place(im->st.missing_at, &im->st.nr_missing_at, r->path, r->lineno);
		return;
	}
	query = v->v[0];

	v->nr = 0;
	if (log_reader_get(r, &cx->path[FIELD_TIME], v))
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
		skip_malformed(im, r->path, r->lineno, "NUL character in the query");
		return;
	}
	f = form_of(im, query.s, query.len, &bad_utf8, &pii);
	if (bad_utf8) {
		skip_malformed(im, r->path, r->lineno, "invalid UTF-8 in the query");
		return;
	}
	if (pii)
		im->st.pii_records++;
	if (f->group == -1) {
		im->st.pii_dropped++;
		return;
	}
	if (f->group == -2) {
		im->st.empty_query++;
		return;
	}
	im->st.used++;
	q = &im->q[f->group];
	f->count++;
	if (f->count > q->text_count) {
		q->text_count = f->count;
		q->text = f->text;
	}
	q->count++;

	v->nr = 0;
	if (log_reader_get(r, &cx->path[FIELD_SESSION], v) && v->v[0].len)
		sess = mix64(strhash(v->v[0].s, v->v[0].len));
	else
		sess = mix64(((uint64_t)file_idx << 40) ^ (uint64_t)r->lineno ^ 0x5e55104eULL);
	sketch_add(&q->sessions, sess, IMPORT_SESSION_SKETCH);
	if (dated) {
		if (!q->dated || t < q->first)
			q->first = t;
		if (!q->dated || t > q->last)
			q->last = t;
		q->dated = true;
	}

	cx->docs.nr = 0;
	if (!log_reader_get(r, &cx->path[FIELD_DOC], &cx->docs))
		return;
	if (r->format != LOG_FORMAT_JSONL) {
		struct log_value cell = cx->docs.v[0];
		cx->docs.nr = 0;
		split_cell(&cell, &cx->docs);
	}
	v->nr = 0;
	if (log_reader_get(r, &cx->path[FIELD_SIGNAL], v))
		kind = import_signal_kind(v->v[0].s, v->v[0].len);
	if (kind == SIGNAL_OTHER) {
		im->st.other_signals++;
		return;
	}
	if (kind == SIGNAL_CLICK) {
		v->nr = 0;
		if (log_reader_get(r, &cx->path[FIELD_DWELL], v) && parse_seconds(&v->v[0], &dwell)) {
			;
		} else if (dated && (v->nr = 0, log_reader_get(r, &cx->path[FIELD_END], v))) {
			if (!import_parse_time(v->v[0].s, v->v[0].len, &end, NULL))
				dwell = end - t;
		}
	}
	for (size_t k = 0; k < cx->docs.nr; k++) {
		const struct log_value *id = &cx->docs.v[k];
		struct import_doc *d;
		bool repeat = false;

		if (!id->len || !utf8_valid(id->s, id->len, NULL))
			continue;
		for (size_t j = 0; j < k && !repeat; j++)
			repeat = cx->docs.v[j].len == id->len && !memcmp(cx->docs.v[j].s, id->s, id->len);
		if (repeat)
			continue;
		d = doc_of(im, q, id->s, id->len);
		if (kind == SIGNAL_NEGATIVE) {
			d->negative++;
			q->negative++;
			im->st.negative++;
		} else if (kind == SIGNAL_CLICK && dwell >= 0 && dwell < o->min_dwell) {
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
}

int import_read(struct import *im, const char *path)
{
	struct log_reader r;
	struct reader_ctx cx;
	struct import_log *lg;
	unsigned long before = im->st.records;
	size_t file_idx = im->nr_logs;
	int rc, ret = -1;

	memset(&cx, 0, sizeof(cx));
	if (log_reader_open(&r, path, im->opt.format) < 0)
		return -1;
	for (int k = 0; k < IMPORT_NR_FIELDS; k++) {
		cx.mapped[k] = im->opt.field[k] != NULL;
		log_path_init(&cx.path[k], &r, im->opt.field[k] ? im->opt.field[k] : field_names[k]);
	}
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
			skip_malformed(im, path, r.lineno, r.why);
			continue;
		}
		fold_record(im, &r, &cx, file_idx);
	}
	ALLOC_GROW(im->logs, im->nr_logs + 1, im->alloc_logs);
	lg = &im->logs[im->nr_logs++];
	memset(lg, 0, sizeof(*lg));
	lg->path = xstrdup(path);
	log_reader_digest(&r, lg->digest);
	lg->gzip = log_reader_gzip(&r);
	lg->format = r.format;
	lg->records = im->st.records - before;
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

void import_label(struct import *im)
{
	size_t kept = 0;

	for (size_t i = 0; i < im->nr; i++) {
		struct import_query *q = &im->q[i];

		if (q->count < (unsigned long)im->opt.min_count) {
			im->st.below_min_count++;
			for (size_t d = 0; d < q->nr_docs; d++)
				sketch_release(&q->docs[d].sessions);
			free(q->docs);
			free(q->dtab);
			sketch_release(&q->sessions);
			free(q->key);
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
