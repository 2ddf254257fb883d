/*
 * set: the in-memory set model, question ids, and the canonical form the
 * digest is computed over (see set.h).
 *
 * Canonical serialisation (docs/sets.md): one line per field, each value in a
 * JSON-like typed form with explicit escaping, questions sorted by id (strcmp),
 * fields in a fixed order, relevant labels sorted by chunk id, irrelevant
 * chunks and tags sorted and de-duplicated (tags are a set), provenance as
 * JSON with object keys sorted recursively and numbers in one form (integral
 * values as integers, others as the shortest "%.17g"-exact decimal).
 *
 * Two forms (set.h; docs/design.md, "The digests"): the set form
 * (set_canonical) starts with the header lines (schema, name, description,
 * parent, note, corpus) in that order, absent fields as null, then the language lines (the corpus's and
 * the set's, each only when present, so a set without one keeps the digest
 * it had before languages existed), then the questions; version, digest and
 * tagged_at are left out, so a frozen file can hold its own digest. The
 * content form (set_content_canonical) is the questions only. The two start
 * with different first lines, so they never coincide.
 */
#include "set/set.h"
#include "base/digest.h"
#include "base/jsonstr.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const origin_names[] = { "", "synthetic", "mined", "hand" };

const char *origin_name(enum origin o)
{
	if ((size_t)o >= ARRAY_SIZE(origin_names))
		return "";
	return origin_names[o];
}

int origin_parse(const char *s, enum origin *out)
{
	for (size_t i = 1; i < ARRAY_SIZE(origin_names); i++) {
		if (!strcmp(s, origin_names[i])) {
			*out = (enum origin)i;
			return 0;
		}
	}
	return -1;
}

void set_init(struct set *s)
{
	struct set blank = SET_INIT;
	*s = blank;
}

void question_release(struct question *q)
{
	free(q->id);
	free(q->text);
	for (size_t i = 0; i < q->nr_relevant; i++)
		free(q->relevant[i].chunk);
	free(q->relevant);
	question_clear_evidence(q);
	free(q->evidence);
	for (size_t i = 0; i < q->nr_irrelevant; i++)
		free(q->irrelevant[i]);
	free(q->irrelevant);
	for (size_t i = 0; i < q->nr_forbidden; i++)
		free(q->forbidden[i].id);
	free(q->forbidden);
	for (size_t i = 0; i < q->nr_tags; i++)
		free(q->tags[i]);
	free(q->tags);
	question_clear_conversation(q);
	free(q->answer);
	free(q->note);
	free(q->language);
	cJSON_Delete(q->provenance);
	memset(q, 0, sizeof(*q));
	q->answerable = true;
}

void set_release(struct set *s)
{
	free(s->name);
	free(s->description);
	free(s->version);
	free(s->digest);
	free(s->parent);
	free(s->parent_digest);
	free(s->tagged_at);
	free(s->note);
	free(s->corpus.path);
	free(s->corpus.fingerprint);
	free(s->corpus.language);
	free(s->language);
	for (size_t i = 0; i < s->nr; i++)
		question_release(&s->q[i]);
	free(s->q);
	free(s->file);
	set_clear_forbid(s);
	set_init(s);
}

static char **copy_strings(char **src, size_t nr, size_t *alloc)
{
	char **dst;

	*alloc = nr;
	if (!nr)
		return NULL;
	dst = xcalloc(nr, sizeof(*dst));
	for (size_t i = 0; i < nr; i++)
		dst[i] = xstrdup(src[i]);
	return dst;
}

void question_copy(struct question *dst, const struct question *src)
{
	*dst = *src;
	dst->id = xstrdup(src->id);
	dst->text = xstrdup(src->text);
	dst->answer = xstrdup(src->answer);
	dst->note = xstrdup(src->note);
	dst->language = xstrdup(src->language);
	dst->provenance = src->provenance ? cJSON_Duplicate(src->provenance, 1) : NULL;
	dst->alloc_relevant = src->nr_relevant;
	dst->relevant = NULL;
	if (src->nr_relevant) {
		dst->relevant = xcalloc(src->nr_relevant, sizeof(*dst->relevant));
		for (size_t i = 0; i < src->nr_relevant; i++) {
			dst->relevant[i] = src->relevant[i];
			dst->relevant[i].chunk = xstrdup(src->relevant[i].chunk);
		}
	}
	dst->evidence = NULL;
	dst->nr_evidence = dst->alloc_evidence = 0;
	for (size_t i = 0; i < src->nr_evidence; i++)
		question_add_evidence(dst, &src->evidence[i]);
	dst->irrelevant = copy_strings(src->irrelevant, src->nr_irrelevant, &dst->alloc_irrelevant);
	dst->tags = copy_strings(src->tags, src->nr_tags, &dst->alloc_tags);
	dst->alloc_forbidden = src->nr_forbidden;
	dst->forbidden = NULL;
	if (src->nr_forbidden) {
		dst->forbidden = xcalloc(src->nr_forbidden, sizeof(*dst->forbidden));
		for (size_t i = 0; i < src->nr_forbidden; i++) {
			dst->forbidden[i] = src->forbidden[i];
			dst->forbidden[i].id = xstrdup(src->forbidden[i].id);
		}
	}
	question_copy_conversation(dst, src);
}

void question_add_forbidden(struct question *q, const char *id)
{
	for (size_t i = 0; i < q->nr_forbidden; i++)
		if (!strcmp(q->forbidden[i].id, id))
			return;
	ALLOC_GROW(q->forbidden, q->nr_forbidden + 1, q->alloc_forbidden);
	q->forbidden[q->nr_forbidden].id = xstrdup(id);
	q->forbidden[q->nr_forbidden].line = 0;
	q->forbidden[q->nr_forbidden].col = 0;
	q->nr_forbidden++;
}

size_t set_nr_forbidding(const struct set *s)
{
	size_t n = 0;

	if (s->nr_forbid)
		return s->nr;
	for (size_t i = 0; i < s->nr; i++)
		n += s->q[i].nr_forbidden > 0;
	return n;
}

struct question *set_find(const struct set *s, const char *id)
{
	long i = set_index(s, id);
	return i < 0 ? NULL : &s->q[i];
}

long set_index(const struct set *s, const char *id)
{
	for (size_t i = 0; i < s->nr; i++)
		if (s->q[i].id && !strcmp(s->q[i].id, id))
			return (long)i;
	return -1;
}

void set_lookup_init(struct set_lookup *lk, const struct set *s)
{
	lk->map = (struct strmap)STRMAP_INIT;
	lk->map.borrowed = 1;
	strmap_reserve(&lk->map, s->nr);
	for (size_t i = 0; i < s->nr; i++) {
		const char *id = s->q[i].id;
		size_t len;
		struct strmap_entry *e;
		int added;

		if (!id)
			continue;
		len = strlen(id);
		e = strmap_intern_hashed(&lk->map, id, len, strhash(id, len), &added);
		if (added)
			e->value = &s->q[i];
	}
}

struct question *set_lookup_find(const struct set_lookup *lk, const char *id)
{
	return strmap_get(&lk->map, id);
}

void set_lookup_release(struct set_lookup *lk)
{
	strmap_clear(&lk->map, 0);
}

void set_reserve(struct set *s, size_t n)
{
	ALLOC_EXACT(s->q, s->nr + n, s->alloc);
}

struct question *set_append(struct set *s)
{
	struct question *q;

	ALLOC_GROW(s->q, s->nr + 1, s->alloc);
	q = &s->q[s->nr++];
	memset(q, 0, sizeof(*q));
	q->answerable = true;
	return q;
}

void set_remove(struct set *s, size_t index)
{
	if (index >= s->nr)
		return;
	question_release(&s->q[index]);
	memmove(&s->q[index], &s->q[index + 1], (s->nr - index - 1) * sizeof(*s->q));
	s->nr--;
}

static void remove_string(char **arr, size_t *nr, const char *s)
{
	for (size_t i = 0; i < *nr; i++) {
		if (!strcmp(arr[i], s)) {
			free(arr[i]);
			memmove(&arr[i], &arr[i + 1], (*nr - i - 1) * sizeof(*arr));
			(*nr)--;
			return;
		}
	}
}

void question_add_evidence(struct question *q, const struct evidence *e)
{
	struct evidence *d;

	ALLOC_GROW(q->evidence, q->nr_evidence + 1, q->alloc_evidence);
	d = &q->evidence[q->nr_evidence++];
	*d = *e;
	d->chunk = xstrdup(e->chunk);
	d->doc = xstrdup(e->doc);
	d->quote = xstrdup(e->quote);
}

static void evidence_release(struct evidence *e)
{
	free(e->chunk);
	free(e->doc);
	free(e->quote);
}

void question_clear_evidence(struct question *q)
{
	for (size_t i = 0; i < q->nr_evidence; i++)
		evidence_release(&q->evidence[i]);
	q->nr_evidence = 0;
}

/* Remove the evidence of 'chunk' from 'q': it is no longer relevant. */
static void drop_evidence(struct question *q, const char *chunk)
{
	size_t k = 0;

	for (size_t i = 0; i < q->nr_evidence; i++) {
		if (!strcmp(q->evidence[i].chunk, chunk))
			evidence_release(&q->evidence[i]);
		else
			q->evidence[k++] = q->evidence[i];
	}
	q->nr_evidence = k;
}

void question_set_label(struct question *q, const char *chunk, int grade)
{
	size_t i;

	for (i = 0; i < q->nr_relevant; i++)
		if (!strcmp(q->relevant[i].chunk, chunk))
			break;
	if (grade < 0) {
		remove_string(q->irrelevant, &q->nr_irrelevant, chunk);
		if (i < q->nr_relevant) {
			free(q->relevant[i].chunk);
			memmove(&q->relevant[i], &q->relevant[i + 1],
				(q->nr_relevant - i - 1) * sizeof(*q->relevant));
			q->nr_relevant--;
		}
		return;
	}
	if (grade == 0) {
		if (i < q->nr_relevant) {
			drop_evidence(q, chunk);
			free(q->relevant[i].chunk);
			memmove(&q->relevant[i], &q->relevant[i + 1],
				(q->nr_relevant - i - 1) * sizeof(*q->relevant));
			q->nr_relevant--;
		}
		for (size_t k = 0; k < q->nr_irrelevant; k++)
			if (!strcmp(q->irrelevant[k], chunk))
				return;
		ALLOC_GROW(q->irrelevant, q->nr_irrelevant + 1, q->alloc_irrelevant);
		q->irrelevant[q->nr_irrelevant++] = xstrdup(chunk);
		return;
	}
	remove_string(q->irrelevant, &q->nr_irrelevant, chunk);
	if (i < q->nr_relevant) {
		if (grade != 1)
			q->relevant_as_list = false;
		q->relevant[i].grade = grade;
		return;
	}
	question_append_label(q, chunk, grade);
}

void question_append_label(struct question *q, const char *chunk, int grade)
{
	if (grade != 1)
		q->relevant_as_list = false;
	ALLOC_GROW(q->relevant, q->nr_relevant + 1, q->alloc_relevant);
	q->relevant[q->nr_relevant].chunk = xstrdup(chunk);
	q->relevant[q->nr_relevant].grade = grade;
	q->relevant[q->nr_relevant].line = 0;
	q->relevant[q->nr_relevant].col = 0;
	q->nr_relevant++;
}

int question_grade(const struct question *q, const char *chunk)
{
	for (size_t i = 0; i < q->nr_relevant; i++)
		if (!strcmp(q->relevant[i].chunk, chunk))
			return q->relevant[i].grade;
	for (size_t i = 0; i < q->nr_irrelevant; i++)
		if (!strcmp(q->irrelevant[i], chunk))
			return 0;
	return -1;
}

bool question_has_tag(const struct question *q, const char *tag)
{
	for (size_t i = 0; i < q->nr_tags; i++)
		if (!strcmp(q->tags[i], tag))
			return true;
	return false;
}

long question_id_number(const char *id)
{
	long n;

	if (!id || !starts_with(id, "q-") || !id[2] || strlen(id) > 20)
		return -1;
	for (const char *p = id + 2; *p; p++)
		if (*p < '0' || *p > '9')
			return -1;
	if (parse_long(id + 2, 0, LONG_CAP(999999999999LL), &n) < 0)
		return -1;
	return n;
}

char *set_next_id(const struct set *s, long floor)
{
	long hi = floor > 0 ? floor : 0;

	for (size_t i = 0; i < s->nr; i++) {
		long n = question_id_number(s->q[i].id);
		if (n > hi)
			hi = n;
	}
	return set_id_after(hi);
}

char *set_id_after(long hi)
{
	return xstrfmt("q-%04ld", hi + 1);
}

/* ---- canonical form and digest ---- */

static void canon_number(struct strbuf *out, double d)
{
	char buf[64];

	if (!isfinite(d)) {
		strbuf_addstr(out, isnan(d) ? "nan" : d > 0 ? "inf" : "-inf");
		return;
	}
	if (d == floor(d) && fabs(d) < 1e18) {
		strbuf_addf(out, "%lld", (long long)d);
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	strbuf_addstr(out, buf);
}

static int cmp_json_key(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
	return strcmp(x->string ? x->string : "", y->string ? y->string : "");
}

static void canon_json(struct strbuf *out, const cJSON *j)
{
	if (!j || cJSON_IsNull(j)) {
		strbuf_addstr(out, "null");
	} else if (cJSON_IsBool(j)) {
		strbuf_addstr(out, cJSON_IsTrue(j) ? "true" : "false");
	} else if (cJSON_IsNumber(j)) {
		canon_number(out, j->valuedouble);
	} else if (cJSON_IsString(j)) {
		json_add_string(out, j->valuestring, JSON_CANON);
	} else if (cJSON_IsArray(j)) {
		const cJSON *c;
		int first = 1;
		strbuf_addch(out, '[');
		cJSON_ArrayForEach(c, j) {
			if (!first)
				strbuf_addch(out, ',');
			first = 0;
			canon_json(out, c);
		}
		strbuf_addch(out, ']');
	} else if (cJSON_IsObject(j)) {
		const cJSON **items = NULL, *c;
		size_t nr = 0, alloc = 0;
		cJSON_ArrayForEach(c, j) {
			ALLOC_GROW(items, nr + 1, alloc);
			items[nr++] = c;
		}
		if (nr)
			qsort(items, nr, sizeof(*items), cmp_json_key);
		strbuf_addch(out, '{');
		for (size_t i = 0; i < nr; i++) {
			if (i)
				strbuf_addch(out, ',');
			json_add_string(out, items[i]->string, JSON_CANON);
			strbuf_addch(out, ':');
			canon_json(out, items[i]);
		}
		strbuf_addch(out, '}');
		free(items);
	} else {
		strbuf_addstr(out, "null");
	}
}

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_label(const void *a, const void *b)
{
	const struct label *x = a, *y = b;
	int c = strcmp(x->chunk, y->chunk);
	return c ? c : (x->grade > y->grade) - (x->grade < y->grade);
}

struct canon_item {
	const char *id;
	char *text;   /* the question's canonical lines */
};

/* Order by id, then by content, so even a set with duplicate ids (refused
 * elsewhere, but still hashable) has one canonical form. */
static int cmp_canon_item(const void *a, const void *b)
{
	const struct canon_item *x = a, *y = b;
	int c = strcmp(x->id ? x->id : "", y->id ? y->id : "");
	return c ? c : strcmp(x->text, y->text);
}

/* Append 'key' and the sorted, de-duplicated strings of 'arr' one per line. */
static void canon_string_set(struct strbuf *out, const char *key, char **arr, size_t nr)
{
	char **sorted;

	if (!nr)
		return;
	sorted = xcalloc(nr, sizeof(*sorted));
	memcpy(sorted, arr, nr * sizeof(*sorted));
	qsort(sorted, nr, sizeof(*sorted), cmp_str_ptr);
	for (size_t i = 0; i < nr; i++) {
		if (i && !strcmp(sorted[i], sorted[i - 1]))
			continue;
		strbuf_addf(out, "%s ", key);
		json_add_string(out, sorted[i], JSON_CANON);
		strbuf_addch(out, '\n');
	}
	free(sorted);
}

static int cmp_str_null(const char *a, const char *b)
{
	if (!a || !b)
		return !!a - !!b;
	return strcmp(a, b);
}

static int cmp_evidence(const void *a, const void *b)
{
	const struct evidence *x = a, *y = b;
	int c = strcmp(x->chunk, y->chunk);

	if (!c)
		c = cmp_str_null(x->doc, y->doc);
	if (!c)
		c = (x->start > y->start) - (x->start < y->start);
	if (!c)
		c = (x->end > y->end) - (x->end < y->end);
	return c ? c : cmp_str_null(x->quote, y->quote);
}

/* Append one line per evidence entry of 'q', sorted; nothing when it has
 * none, so sets without evidence keep the digests they always had. */
static void canon_evidence(struct strbuf *out, const struct question *q)
{
	struct evidence *ev;

	if (!q->nr_evidence)
		return;
	ev = xcalloc(q->nr_evidence, sizeof(*ev));
	memcpy(ev, q->evidence, q->nr_evidence * sizeof(*ev));
	qsort(ev, q->nr_evidence, sizeof(*ev), cmp_evidence);
	for (size_t i = 0; i < q->nr_evidence; i++) {
		strbuf_addstr(out, "evidence ");
		json_add_string(out, ev[i].chunk, JSON_CANON);
		strbuf_addch(out, ' ');
		json_add_string(out, ev[i].doc, JSON_CANON);
		if (ev[i].start >= 0)
			strbuf_addf(out, " %ld %ld ", ev[i].start, ev[i].end);
		else
			strbuf_addstr(out, " null null ");
		json_add_string(out, ev[i].quote, JSON_CANON);
		strbuf_addch(out, '\n');
	}
	free(ev);
}

/* Append the forbidden entries of 'q', sorted; nothing when it has none, so
 * sets without them keep the digests they always had. */
static void canon_forbidden(struct strbuf *out, const struct question *q)
{
	char **ids;

	if (!q->nr_forbidden)
		return;
	ids = xcalloc(q->nr_forbidden, sizeof(*ids));
	for (size_t i = 0; i < q->nr_forbidden; i++)
		ids[i] = q->forbidden[i].id;
	canon_string_set(out, "forbidden", ids, q->nr_forbidden);
	free(ids);
}

/* Append the conversation and history of 'q', the turns in their order;
 * nothing when it has neither, so sets without conversations keep the
 * digests they always had. */
static void canon_conversation(struct strbuf *out, const struct question *q)
{
	if (q->conversation) {
		strbuf_addstr(out, "conversation ");
		json_add_string(out, q->conversation, JSON_CANON);
		strbuf_addf(out, " %ld\n", q->turn);
	}
	for (size_t i = 0; i < q->nr_history; i++) {
		strbuf_addstr(out, "history ");
		json_add_string(out, q->history[i].role, JSON_CANON);
		strbuf_addch(out, ' ');
		json_add_string(out, q->history[i].text, JSON_CANON);
		strbuf_addch(out, '\n');
	}
}

static void canon_question(struct strbuf *out, const struct question *q)
{
	struct label *rel;

	strbuf_addstr(out, "question ");
	json_add_string(out, q->id, JSON_CANON);
	strbuf_addstr(out, "\ntext ");
	json_add_string(out, q->text, JSON_CANON);
	strbuf_addstr(out, "\norigin ");
	json_add_string(out, q->origin == ORIGIN_NONE ? NULL : origin_name(q->origin), JSON_CANON);
	strbuf_addf(out, "\nanswerable %s\n", q->answerable ? "true" : "false");
	canon_conversation(out, q);
	if (q->nr_relevant) {
		rel = xcalloc(q->nr_relevant, sizeof(*rel));
		memcpy(rel, q->relevant, q->nr_relevant * sizeof(*rel));
		qsort(rel, q->nr_relevant, sizeof(*rel), cmp_label);
		for (size_t i = 0; i < q->nr_relevant; i++) {
			strbuf_addstr(out, "relevant ");
			json_add_string(out, rel[i].chunk, JSON_CANON);
			strbuf_addf(out, " %d\n", rel[i].grade);
		}
		free(rel);
	}
	canon_evidence(out, q);
	canon_string_set(out, "irrelevant", q->irrelevant, q->nr_irrelevant);
	canon_forbidden(out, q);
	canon_string_set(out, "tag", q->tags, q->nr_tags);
	if (q->provenance && !cJSON_IsNull(q->provenance)) {  /* null: none */
		strbuf_addstr(out, "provenance ");
		canon_json(out, q->provenance);
		strbuf_addch(out, '\n');
	}
	if (q->answer) {
		strbuf_addstr(out, "answer ");
		json_add_string(out, q->answer, JSON_CANON);
		strbuf_addch(out, '\n');
	}
	if (q->note) {
		strbuf_addstr(out, "note ");
		json_add_string(out, q->note, JSON_CANON);
		strbuf_addch(out, '\n');
	}
	if (q->language) {
		strbuf_addstr(out, "language ");
		json_add_string(out, q->language, JSON_CANON);
		strbuf_addch(out, '\n');
	}
	strbuf_addstr(out, "end\n");
}

/* Append what a retriever sees of 'q': id, text, answerability, and its
 * conversation and history when it has them. */
static void canon_question_text(struct strbuf *out, const struct question *q)
{
	strbuf_addstr(out, "question ");
	json_add_string(out, q->id, JSON_CANON);
	strbuf_addstr(out, "\ntext ");
	json_add_string(out, q->text, JSON_CANON);
	strbuf_addf(out, "\nanswerable %s\n", q->answerable ? "true" : "false");
	canon_conversation(out, q);
}

/*
 * Where canonical text goes: a buffer, and when 'hash' is set, a digest it
 * feeds as the text grows, so that a set of thousands of questions is
 * digested without its whole canonical text in memory.
 */
struct canon_out {
	struct strbuf *buf;
	struct sha256_ctx *hash;
};

#define CANON_PIECE ((size_t)64 << 10)

/* Hand what 'o' holds to its digest (when it has one) past a piece, or
 * always with 'all'. */
static void canon_flush(struct canon_out *o, bool all)
{
	if (o->hash && (all || o->buf->len >= CANON_PIECE)) {
		sha256_update(o->hash, o->buf->buf, o->buf->len);
		strbuf_reset(o->buf);
	}
}

static int cmp_question_id(const void *a, const void *b)
{
	const struct question *const *x = a, *const *y = b;

	return strcmp((*x)->id ? (*x)->id : "", (*y)->id ? (*y)->id : "");
}

/* Append the canonical lines ('one' per question) of the questions of 's',
 * sorted by id, and questions of one id (a set that check refuses) by
 * their lines. */
static void canon_questions_with(const struct set *s, struct canon_out *o,
				 void (*one)(struct strbuf *, const struct question *))
{
	const struct question **by_id;

	if (!s->nr)
		return;
	by_id = xcalloc(s->nr, sizeof(*by_id));
	for (size_t i = 0; i < s->nr; i++)
		by_id[i] = &s->q[i];
	qsort(by_id, s->nr, sizeof(*by_id), cmp_question_id);
	for (size_t i = 0, j; i < s->nr; i = j) {
		for (j = i + 1; j < s->nr && !cmp_question_id(&by_id[i], &by_id[j]); j++)
			;
		if (j == i + 1) {
			one(o->buf, by_id[i]);
		} else {
			struct canon_item *items = xcalloc(j - i, sizeof(*items));

			for (size_t k = i; k < j; k++) {
				struct strbuf sb = STRBUF_INIT;

				one(&sb, by_id[k]);
				items[k - i].id = by_id[k]->id;
				items[k - i].text = strbuf_detach(&sb, NULL);
			}
			qsort(items, j - i, sizeof(*items), cmp_canon_item);
			for (size_t k = 0; k < j - i; k++) {
				strbuf_addstr(o->buf, items[k].text);
				free(items[k].text);
			}
			free(items);
		}
		canon_flush(o, false);
	}
	free(by_id);
}

static void canon_questions(const struct set *s, struct canon_out *o)
{
	canon_questions_with(s, o, canon_question);
}

/* Append the set-wide forbidden rules of 's', sorted and de-duplicated;
 * nothing when it has none, so sets without them keep their digests. */
static void canon_forbid_rules(const struct set *s, struct strbuf *out)
{
	char **lines;
	size_t n = 0;

	if (!s->nr_forbid)
		return;
	lines = xcalloc(s->nr_forbid, sizeof(*lines));
	for (size_t i = 0; i < s->nr_forbid; i++) {
		struct strbuf sb = STRBUF_INIT;

		strbuf_addf(&sb, "forbidden-rule %s ", forbid_kind_name(s->forbid[i].kind));
		json_add_string(&sb, s->forbid[i].value, JSON_CANON);
		strbuf_addch(&sb, '\n');
		lines[i] = strbuf_detach(&sb, NULL);
	}
	qsort(lines, s->nr_forbid, sizeof(*lines), cmp_str_ptr);
	for (size_t i = 0; i < s->nr_forbid; i++) {
		if (!n || strcmp(lines[i], lines[n - 1]))
			lines[n++] = lines[i];
		else
			free(lines[i]);
	}
	for (size_t i = 0; i < n; i++) {
		strbuf_addstr(out, lines[i]);
		free(lines[i]);
	}
	free(lines);
}

static void canon_field(struct strbuf *out, const char *key, const char *value)
{
	strbuf_addf(out, "%s ", key);
	json_add_string(out, value, JSON_CANON);
	strbuf_addch(out, '\n');
}

static void canonical_to(const struct set *s, struct canon_out *o)
{
	struct strbuf *out = o->buf;

	strbuf_addf(out, "evalset-set %d\n", SET_SCHEMA);
	strbuf_addf(out, "schema %d\n", s->schema);
	canon_field(out, "name", s->name);
	canon_field(out, "description", s->description);
	canon_field(out, "parent", s->parent);
	if (s->parent_digest)  /* absent in versions tagged before it existed */
		canon_field(out, "parent_digest", s->parent_digest);
	canon_field(out, "note", s->note);
	if (!s->has_corpus) {
		strbuf_addstr(out, "corpus null\n");
	} else {
		strbuf_addstr(out, "corpus ");
		json_add_string(out, s->corpus.path, JSON_CANON);
		strbuf_addch(out, ' ');
		json_add_string(out, s->corpus.fingerprint, JSON_CANON);
		if (s->corpus.chunks >= 0)
			strbuf_addf(out, " %ld\n", s->corpus.chunks);
		else
			strbuf_addstr(out, " null\n");
		if (s->corpus.language)
			canon_field(out, "corpus-language", s->corpus.language);
	}
	if (s->language)
		canon_field(out, "language", s->language);
	canon_forbid_rules(s, out);
	canon_questions(s, o);
}

void set_canonical(const struct set *s, struct strbuf *out)
{
	struct canon_out o = { out, NULL };

	canonical_to(s, &o);
}

static void content_canonical_to(const struct set *s, struct canon_out *o)
{
	strbuf_addf(o->buf, "evalset-canonical %d\n", SET_SCHEMA);
	canon_forbid_rules(s, o->buf);
	canon_questions(s, o);
}

void set_content_canonical(const struct set *s, struct strbuf *out)
{
	struct canon_out o = { out, NULL };

	content_canonical_to(s, &o);
}

/* Write the SHA-256 of the text 'canonical' gives of 's' into 'out', the
 * text hashed piece by piece as it is made. */
static void digest_of(const struct set *s, char out[72],
		      void (*canonical)(const struct set *, struct canon_out *))
{
	struct strbuf sb = STRBUF_INIT;
	struct canon_out o = { &sb, sha256_new() };

	canonical(s, &o);
	canon_flush(&o, true);
	sha256_final(o.hash, out);
	strbuf_release(&sb);
}

void set_digest(const struct set *s, char out[72])
{
	digest_of(s, out, canonical_to);
}

void set_content_digest(const struct set *s, char out[72])
{
	digest_of(s, out, content_canonical_to);
}

static void questions_canonical(const struct set *s, struct canon_out *o)
{
	strbuf_addf(o->buf, "evalset-questions %d\n", SET_SCHEMA);
	canon_questions_with(s, o, canon_question_text);
}

void set_questions_digest(const struct set *s, char out[72])
{
	digest_of(s, out, questions_canonical);
}
