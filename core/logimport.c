/*
 * logimport: fold log records into query groups and decide labels.
 *
 * Stage one fills a struct part per reader: a table of the distinct raw
 * query forms the reader keeps, each with its tally, and the reader's own
 * document keys. A table slot holds the hash next to the pointer, so a
 * probe touches one slot and one record; records are folded in batches
 * whose passes ask for the memory the next pass reads, so that cache
 * misses overlap.
 *
 * A large plain JSON Lines file is read by two readers, one per half. The
 * raw forms are shared out by the parity of their hash: each reader keeps
 * the records of its parity and passes the others to the other reader in
 * rounds (struct exchange), so the two tables never hold the same form and
 * no tally is ever merged twice. Memory stays bounded by the distinct forms
 * and one round of passed records.
 *
 * Stage two merges the parts: the raw forms of both, in order of their
 * first record in the file, each find or become a raw form of struct
 * import (redacted and normalised once for the whole import), and its
 * tally is added into its group's. Forms and groups are therefore created in
 * the order a single reader creates them, and what a tally holds (sums,
 * minimum and maximum times, sketch unions) does not depend on the order
 * records are met in.
 *
 * Raw forms and document ids live in arenas, tallies in pools, each given
 * back at once.
 */
#include "logimport.h"

#include "error.h"
#include "fsutil.h"
#include "text.h"
#include "util.h"

#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define ARENA_CHUNK (1u << 20)
#define SPLIT_MIN_DEFAULT (16LL << 20)

struct import_arena {
	struct import_arena *prev;  /* the chunk filled before */
	size_t used, cap;
	char mem[];
};

struct form {
	long group;            /* index into im->q; -1: dropped for PII; -2: empty */
	unsigned long count;   /* summed from the raw forms by import_label */
	const char *text;      /* the redacted text (the key in a shard's forms) */
};

/* A distinct raw query of the import, once checked, redacted and grouped. */
struct raw {
	struct form *form;
	long group;            /* form->group, copied */
	unsigned long count;   /* records that counted for the group */
	uint32_t len;
	bool pii;
	char bytes[];
};

struct raw_slot {
	uint64_t hash;
	struct raw *r;         /* NULL: empty */
};

/* A distinct raw query as one reader keeps it. */
struct prow {
	struct import_tally t;
	uint64_t hash;
	long long first;       /* offset of its first record in the file */
	long group;            /* stage two: the group its tally goes to, or < 0 */
	struct raw *raw;       /* stage two: the import's raw form of the same bytes */
	int part;              /* the part holding it (its document keys are the part's) */
	uint32_t len;
	bool invalid;          /* not UTF-8: each of its records is malformed */
	char bytes[];
};

/* A raw form new to the import: the text work done on it before it is grouped. */
struct fresh {
	const struct prow *pr;
	struct strbuf red;     /* redacted */
	struct pii_counts pc;
	size_t found;          /* PII spans */
	char *key;             /* the normalised redacted form (group key) */
	size_t key_len;
	uint64_t red_hash, key_hash;  /* strhash of each */
	/* what the resolving passes decide (merge_parts) */
	struct form *form;
	bool form_new, group_new;
	struct fresh *creator; /* the fresh form that created its group */
	size_t group;          /* when group_new: the group's index */
	struct raw *raw;
};

struct pslot {
	uint64_t hash;
	struct prow *r;        /* NULL: empty */
};

/*
 * A record read into the batch of a part (see read_records): what folding it
 * needs, copied out of the reader, whose buffers the next record reuses.
 */
struct brec {
	size_t query;          /* offset of the query in part->bytes (or obox->bytes) */
	uint32_t len;
	uint64_t hash;         /* of the query */
	uint64_t sess;
	long long offset;      /* of the record in the file */
	long line;             /* in its half of the file */
	int half;
	double tm, dwell;
	bool dated, docs, other;
	enum signal_kind kind;
	uint32_t key0, nr_keys;  /* document keys in part->keys (ids in obox->id) */
	struct prow *r;
};
#define BATCH 32
#define ROUND_BYTES (2LL << 20)  /* of its share a reader reads between two exchanges */

/* The records a reader passes to the other: what a struct brec needs, with its strings. */
struct obox {
	struct brec *rec;
	size_t nr, alloc;
	struct strbuf bytes;   /* the queries and document ids */
	struct log_value *id;  /* document ids: 's' is an offset into 'bytes' */
	size_t nr_id, alloc_id;
};

struct exchange {
	pthread_barrier_t barrier;
	bool done[2];          /* the reader has read its half */
};

/* Where a record was skipped, kept for the warnings and the summary. */
struct place {
	int half;          /* of the file: lines count from the half's start */
	long line;
	const char *why;   /* a string literal */
};

struct places {
	struct place at[IMPORT_KEEP_LINES];
	size_t nr;
};

/* One reader's share of a file and what it found (stage one). */
struct part {
	const struct import_options *opt;
	size_t file_idx;
	struct log_reader r;
	bool open, failed;
	struct log_path path[IMPORT_NR_FIELDS];
	struct log_values vals, docs;
	struct import_arena *arena;
	struct pslot *tab;
	size_t cap, nr;
	struct prow **list;          /* in order of first appearance */
	size_t alloc_list;
	struct import_docs dk;
	struct mempool mp;           /* the tallies */
	bool digest;                 /* its reader computes the file's digest, into 'sum' */
	char sum[72];
	unsigned long records, malformed, missing_query, undated, outside;
	unsigned long field_seen[IMPORT_NR_FIELDS];
	struct places bad, missing;
	/* reading with another reader: which raw forms are kept here (hash parity) */
	int self;
	long long start, len;        /* the share of the file, in bytes */
	long rounds, round;          /* exchanges in all, and done */
	struct exchange *ex;
	struct part *other;
	struct obox out;             /* records for the other */
	/* the batch of records read but not yet folded */
	struct brec *batch;
	size_t nr_batch;
	struct strbuf bytes;         /* their queries */
	uint32_t *keys;              /* their documents' keys */
	size_t nr_keys, alloc_keys;
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
	o->split_min = SPLIT_MIN_DEFAULT;
}

void import_init(struct import *im, const struct import_options *opt)
{
	memset(im, 0, sizeof(*im));
	im->opt = *opt;
	for (int h = 0; h < 2; h++) {
		/* forms' texts live in the shard arenas, group keys in their queries */
		im->shard[h].forms.borrowed = 1;
		im->shard[h].groups.borrowed = 1;
	}
}

/* Return 'len' bytes of the arena '*ap', aligned for any record. */
static void *arena_alloc(struct import_arena **ap, size_t len)
{
	struct import_arena *a = *ap;

	len = (len + 15) & ~(size_t)15;
	if (!a || a->cap - a->used < len) {
		size_t cap = len > ARENA_CHUNK ? len : ARENA_CHUNK;
		a = xmalloc(sizeof(*a) + cap);
		a->prev = *ap;
		a->used = 0;
		a->cap = cap;
		*ap = a;
	}
	a->used += len;
	return a->mem + a->used - len;
}

static void arena_free(struct import_arena **ap)
{
	while (*ap) {
		struct import_arena *prev = (*ap)->prev;
		free(*ap);
		*ap = prev;
	}
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
 * Return which of two halves (0 or 1) hash 'h' belongs to: its top bit, as
 * hash tables take their slots from the low bits (a half of a table by a
 * low bit would leave every other slot to collisions).
 */
static int half_of(uint64_t h)
{
	return (int)(h >> 63);
}

/*
 * Return a 64-bit hash of 'len' bytes of 's', eight bytes at a time with one
 * multiplication each and a full mix at the end: the hot path hashes every
 * query, document id and session of the log. Sessions are counted by their
 * hashes (core/sketch.h), so two ids collide with a chance of about 2^-56.
 */
static uint64_t fast_hash(const char *s, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ len, w;

	while (len >= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 29;
		s += 8;
		len -= 8;
	}
	/* the last 0..7 bytes, in fixed-size loads (a memcpy of 'len' bytes is a call) */
	if (len >= 4) {
		uint32_t a, b;
		memcpy(&a, s, 4);
		memcpy(&b, s + len - 4, 4);
		w = (uint64_t)a | (uint64_t)b << 32;
	} else {
		w = len ? (uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[len / 2] << 8 |
			  (uint64_t)(unsigned char)s[len - 1] << 16 : 0;
	}
	h = (h ^ w ^ ((uint64_t)len << 56)) * 0xc4ceb9fe1a85ec53ULL;
	return mix64(h);
}

/* Give the memory of tally 't' back to pool 'mp' (for reuse) and empty it. */
static void tally_release(struct import_tally *t, struct mempool *mp)
{
	for (size_t d = 0; d < t->nr_docs; d++)
		sketch_release(&t->docs[d].sessions, mp);
	mempool_free(mp, t->docs, t->alloc_docs * sizeof(*t->docs));
	mempool_free(mp, t->dkeys, t->alloc_docs * sizeof(*t->dkeys));
	mempool_free(mp, t->dtab, t->dcap * sizeof(*t->dtab));
	sketch_release(&t->sessions, mp);
	memset(t, 0, sizeof(*t));
}

/* Free what query 'q' owns outside the pools (its tally is pool memory). */
static void query_release(struct import_query *q)
{
	dedup_text_release(&q->dd);
	free(q->key);
	q->key = NULL;
}

static void docs_release(struct import_docs *dk)
{
	free(dk->names);
	free(dk->tab);
	memset(dk, 0, sizeof(*dk));
}

void import_release_early(struct import *im)
{
	for (size_t i = 0; i < im->nr; i++)
		query_release(&im->q[i]);
	for (int h = 0; h < 2; h++) {
		struct import_shard *sh = &im->shard[h];

		strmap_clear(&sh->forms, 0);
		strmap_clear(&sh->groups, 0);
		free(sh->rtab);
		sh->rtab = NULL;
		sh->rcap = sh->nr_raw = 0;
	}
	free(im->form_list);
	im->form_list = NULL;
	im->nr_forms = im->alloc_forms = 0;
}

void import_release_tallies(struct import *im)
{
	for (int h = 0; h < 2; h++)
		arena_free(&im->shard[h].arena);
	for (size_t i = 0; i < im->nr_pools; i++)
		mempool_clear(&im->pools[i]);
	free(im->pools);
	im->pools = NULL;
	im->nr_pools = im->alloc_pools = 0;
	arena_free(&im->arena);
	docs_release(&im->docs);
}

void import_release(struct import *im)
{
	import_release_early(im);
	import_release_tallies(im);
	free(im->q);
	for (size_t i = 0; i < im->nr_logs; i++)
		free(im->logs[i].path);
	free(im->logs);
	for (size_t i = 0; i < im->st.nr_malformed_at; i++)
		free(im->st.malformed_at[i]);
	for (size_t i = 0; i < im->st.nr_missing_at; i++)
		free(im->st.missing_at[i]);
	memset(im, 0, sizeof(*im));
}

/* ---- document keys and a query's documents ---- */

/* Insert key 'key' (of id hash 'h') into the id table of 'dk', growing it. */
static void docs_insert(struct import_docs *dk, uint64_t h, uint32_t key)
{
	size_t mask, i;

	if (2 * (size_t)(key + 1) > dk->cap) {
		free(dk->tab);
		dk->cap = dk->cap ? 2 * dk->cap : 256;
		dk->tab = xcalloc_written(dk->cap, sizeof(*dk->tab));
		for (uint32_t k = 0; k < key; k++)
			docs_insert(dk, dk->names[k].hash, k);
	}
	mask = dk->cap - 1;
	for (i = (size_t)h & mask; dk->tab[i]; i = (i + 1) & mask)
		;
	dk->tab[i] = key + 1;
}

/* Return the key of id 'id' of 'len' bytes and hash 'h' in 'dk', interning it (in '*ap'). */
static uint32_t docs_intern(struct import_docs *dk, struct import_arena **ap, const char *id,
			    size_t len, uint64_t h)
{
	struct import_doc_name *n;
	uint32_t key;
	char *copy;

	if (dk->cap) {
		size_t mask = dk->cap - 1;
		for (size_t i = (size_t)h & mask; dk->tab[i]; i = (i + 1) & mask) {
			n = &dk->names[dk->tab[i] - 1];
			if (n->hash == h && n->len == len &&
			    !memcmp(len < sizeof(n->inl) ? n->inl : n->id, id, len))
				return dk->tab[i] - 1;
		}
	}
	key = (uint32_t)dk->nr;
	copy = arena_alloc(ap, len + 1);
	memcpy(copy, id, len);
	copy[len] = '\0';
	ALLOC_GROW(dk->names, dk->nr + 1, dk->alloc);
	n = &dk->names[dk->nr++];
	n->id = copy;
	n->hash = h;
	n->len = len;
	if (len < sizeof(n->inl))
		memcpy(n->inl, copy, len + 1);
	docs_insert(dk, h, key);
	return key;
}

/* Return the slot of a tally's document table where 'key' is or belongs. */
static size_t doc_slot(const struct import_tally *t, uint32_t key)
{
	size_t mask = t->dcap - 1, i = (size_t)mix64(key) & mask;

	while (t->dtab[i] && t->dkeys[t->dtab[i] - 1] != key)
		i = (i + 1) & mask;
	return i;
}

/* Rebuild the document table of 't' with room for twice its documents. */
static void doc_table_grow(struct import_tally *t, struct mempool *mp)
{
	size_t cap = 16;
	while (cap < 2 * (t->nr_docs + 1))
		cap *= 2;
	mempool_free(mp, t->dtab, t->dcap * sizeof(*t->dtab));
	t->dtab = mempool_calloc(mp, cap, sizeof(uint32_t));
	t->dcap = cap;
	for (size_t k = 0; k < t->nr_docs; k++)
		t->dtab[doc_slot(t, t->dkeys[k])] = (uint32_t)(k + 1);
}

/*
 * Return the statistics of the document of key 'key' (named in 'dk') in
 * 't', creating them. A tally's documents are found by key: a scan of the
 * keys while there are few, a small hash table once there are many.
 */
static struct import_doc *doc_of(const struct import_docs *dk, struct import_tally *t, uint32_t key,
				  struct mempool *mp)
{
	struct import_doc *d;
	size_t slot = 0;

	if (!t->dtab) {
		for (size_t k = 0; k < t->nr_docs; k++)
			if (t->dkeys[k] == key)
				return &t->docs[k];
	} else {
		slot = doc_slot(t, key);
		if (t->dtab[slot])
			return &t->docs[t->dtab[slot] - 1];
	}
	if (t->nr_docs == t->alloc_docs) {
		/* most queries lead to a document or two: start small */
		size_t n = t->alloc_docs ? 2 * t->alloc_docs : 2;
		t->docs = mempool_realloc(mp, t->docs, t->alloc_docs * sizeof(*t->docs), n * sizeof(*t->docs));
		t->dkeys = mempool_realloc(mp, t->dkeys, t->alloc_docs * sizeof(*t->dkeys),
					   n * sizeof(*t->dkeys));
		t->alloc_docs = n;
	}
	t->dkeys[t->nr_docs] = key;
	d = &t->docs[t->nr_docs++];
	memset(d, 0, sizeof(*d));
	d->key = key;
	d->id = dk->names[key].id;
	if (t->nr_docs > 8 && (!t->dtab || 2 * t->nr_docs > t->dcap))
		doc_table_grow(t, mp);
	else if (t->dtab)
		t->dtab[slot] = (uint32_t)t->nr_docs;
	return d;
}

/* ---- stage one: a reader's records into its part ---- */

static bool place_before(int half, long line, const struct place *p)
{
	return half != p->half ? half < p->half : line < p->line;
}

/*
 * Keep the place ('half', 'line') if it is among the IMPORT_KEEP_LINES
 * first (records are not met in order).
 */
static void keep_place(struct places *p, int half, long line, const char *why)
{
	size_t k = p->nr;

	if (k == IMPORT_KEEP_LINES) {
		if (!place_before(half, line, &p->at[k - 1]))
			return;
		k--;
	} else {
		p->nr++;
	}
	for (; k > 0 && place_before(half, line, &p->at[k - 1]); k--)
		p->at[k] = p->at[k - 1];
	p->at[k].half = half;
	p->at[k].line = line;
	p->at[k].why = why;
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

/* Insert 'r' of hash 'h' into the table of 'p', growing it to stay at most half full. */
static void part_insert(struct part *p, uint64_t h, struct prow *r)
{
	size_t mask, i;

	if (2 * (p->nr + 1) > p->cap) {
		struct pslot *old = p->tab;
		size_t oldcap = p->cap;
		p->cap = p->cap ? 2 * p->cap : 1024;
		p->tab = xcalloc_written(p->cap, sizeof(*p->tab));
		p->nr = 0;
		for (size_t k = 0; k < oldcap; k++)
			if (old[k].r)
				part_insert(p, old[k].hash, old[k].r);
		free(old);
	}
	mask = p->cap - 1;
	for (i = (size_t)h & mask; p->tab[i].r; i = (i + 1) & mask)
		;
	p->tab[i].hash = h;
	p->tab[i].r = r;
	p->nr++;
}

/*
 * Return the raw form 'raw' of 'len' bytes (hash 'h') of 'p', creating it
 * on first sight; 'offset' is the record's, for the form's first.
 */
static struct prow *part_raw(struct part *p, const char *raw, size_t len, uint64_t h,
			     long long offset)
{
	struct prow *r;

	if (p->cap) {
		size_t mask = p->cap - 1;
		for (size_t i = (size_t)h & mask; (r = p->tab[i].r); i = (i + 1) & mask)
			if (p->tab[i].hash == h && r->len == len && !memcmp(r->bytes, raw, len)) {
				if (offset < r->first)
					r->first = offset;
				return r;
			}
	}
	r = arena_alloc(&p->arena, sizeof(*r) + len + 1);
	memset(r, 0, sizeof(*r));
	r->first = offset;
	r->part = p->self;
	r->hash = h;
	r->len = (uint32_t)len;
	r->invalid = !utf8_valid(raw, len, NULL);
	memcpy(r->bytes, raw, len);
	r->bytes[len] = '\0';
	part_insert(p, h, r);
	ALLOC_GROW(p->list, p->nr + 1, p->alloc_list);
	p->list[p->nr - 1] = r;
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
	keep_place(&p->bad, half, line, why);
}

/* Count one event of kind 'kind' (dwell 'dwell', -1 unknown) on 'd' of 't' by session 'sess'. */
static void count_event(const struct import_options *o, struct mempool *mp, struct import_tally *t,
			struct import_doc *d, enum signal_kind kind, double dwell, uint64_t sess)
{
	if (kind == SIGNAL_NEGATIVE) {
		d->negative++;
		t->negative++;
	} else if (kind == SIGNAL_CLICK && dwell >= 0 && dwell < o->min_dwell) {
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

static void fold_batch(struct part *p);

/* Add the record 'e' (its query 'q', its valid distinct document ids 'ids') to the batch of 'p'. */
static void batch_add(struct part *p, const struct brec *e, const char *q,
		      const struct log_value *ids, size_t nr_ids)
{
	struct brec *b = &p->batch[p->nr_batch++];

	*b = *e;
	b->query = p->bytes.len;
	strbuf_add(&p->bytes, q, e->len);
	if (p->cap)  /* fetched while the batch fills */
		__builtin_prefetch(&p->tab[(size_t)e->hash & (p->cap - 1)]);
	b->key0 = (uint32_t)p->nr_keys;
	b->nr_keys = (uint32_t)nr_ids;
	ALLOC_GROW(p->keys, p->nr_keys + nr_ids, p->alloc_keys);
	for (size_t k = 0; k < nr_ids; k++)
		p->keys[p->nr_keys++] = docs_intern(&p->dk, &p->arena, ids[k].s, ids[k].len,
						    fast_hash(ids[k].s, ids[k].len));
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

/* Fold the records the other reader passed to 'p' (those of its parity). */
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
 * Read the current record of the reader of 'p' into the batch of 'p' (or
 * pass it to the other reader), or count why it is skipped.
 */
static void batch_record(struct part *p)
{
	const struct import_options *o = p->opt;
	struct log_values *v = &p->vals, *docs = &p->docs;
	struct brec e;
	double end;
	struct log_value query;
	size_t nr_ids = 0;

	v->nr = 0;
	if (!get_field(p, FIELD_QUERY, v)) {
		p->missing_query++;
		keep_place(&p->missing, p->self, p->r.lineno, "no query");
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
	e.hash = fast_hash(query.s, query.len);

	v->nr = 0;
	if (get_field(p, FIELD_SESSION, v) && v->v[0].len)
		e.sess = fast_hash(v->v[0].s, v->v[0].len);
	else  /* a session of its own: the record's place in the file names it */
		e.sess = mix64(((uint64_t)p->file_idx << 48) ^ (uint64_t)e.offset ^ 0x5e55104eULL);

	docs->nr = 0;
	if (!get_field(p, FIELD_DOC, docs))
		goto add;
	if (p->r.format != LOG_FORMAT_JSONL) {
		struct log_value cell = docs->v[0];
		docs->nr = 0;
		split_cell(&cell, docs);
	}
	e.docs = true;
	v->nr = 0;
	if (get_field(p, FIELD_SIGNAL, v))
		e.kind = import_signal_kind(v->v[0].s, v->v[0].len);
	if (e.kind == SIGNAL_OTHER) {
		e.other = true;
		goto add;
	}
	if (e.kind == SIGNAL_CLICK) {
		v->nr = 0;
		if (get_field(p, FIELD_DWELL, v) && parse_seconds(&v->v[0], &e.dwell)) {
			;
		} else if (e.dated && (v->nr = 0, get_field(p, FIELD_END, v))) {
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
	if (p->ex && half_of(e.hash) != p->self)
		pass_record(&p->out, &e, query.s, docs->v, nr_ids);
	else
		batch_add(p, &e, query.s, docs->v, nr_ids);
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

	for (size_t i = 0; p->cap && i < n; i++) {
		const struct pslot *sl = &p->tab[(size_t)p->batch[i].hash & (p->cap - 1)];
		if (sl->r) {
			__builtin_prefetch(sl->r);
			__builtin_prefetch(sl->r->bytes);
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct brec *e = &p->batch[i];
		struct prow *r = part_raw(p, p->bytes.buf + e->query, e->len, e->hash, e->offset);
		const struct sketch *sk = &r->t.sessions;

		e->r = NULL;
		if (r->invalid) {
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
		t->count++;
		sketch_add(&t->sessions, e->sess, IMPORT_SESSION_SKETCH, &p->mp);
		if (e->dated) {
			if (!t->dated || e->tm < t->first)
				t->first = e->tm;
			if (!t->dated || e->tm > t->last)
				t->last = e->tm;
			t->dated = true;
		}
		if (e->other)
			t->other++;
		for (uint32_t k = 0; k < e->nr_keys; k++)
			count_event(p->opt, &p->mp, t, doc_of(&p->dk, t, p->keys[e->key0 + k], &p->mp),
				    e->kind, e->dwell, e->sess);
	}
	p->nr_batch = 0;
	p->nr_keys = 0;
	strbuf_reset(&p->bytes);
}

/*
 * Read the records of the reader of 'p': all of them, or, reading with the
 * other reader, those of the next round (up to a byte offset: both readers
 * end their shares in the same round). Return 1 when the share is read (or
 * failed), else 0.
 */
static int read_records(struct part *p)
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
		p->records++;
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
static void *read_shared(void *arg)
{
	struct part *p = arg;
	struct exchange *ex = p->ex;

	for (;;) {
		bool last;

		if (!ex->done[p->self] && read_records(p))
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
static void read_shared_here(struct part *p)
{
	struct exchange *ex = p[0].ex;

	while (!ex->done[0] || !ex->done[1]) {
		for (int k = 0; k < 2; k++)
			if (!ex->done[k] && read_records(&p[k]))
				ex->done[k] = true;
		take_passed(&p[0], &p[1].out);
		take_passed(&p[1], &p[0].out);
		obox_reset(&p[0].out);
		obox_reset(&p[1].out);
	}
}

static void part_paths(struct part *p)
{
	for (int k = 0; k < IMPORT_NR_FIELDS; k++)
		log_path_init(&p->path[k], &p->r,
			      p->opt->field[k] ? p->opt->field[k] : field_names[k]);
}

static void part_release(struct part *p)
{
	mempool_clear(&p->mp);  /* the tallies not handed over to the import */
	free(p->list);
	free(p->tab);
	arena_free(&p->arena);
	docs_release(&p->dk);
	for (int k = 0; k < IMPORT_NR_FIELDS; k++)
		log_path_release(&p->path[k]);
	log_values_release(&p->vals);
	log_values_release(&p->docs);
	free(p->batch);
	free(p->keys);
	strbuf_release(&p->bytes);
	obox_release(&p->out);
	if (p->open)
		log_reader_close(&p->r);
	memset(p, 0, sizeof(*p));
}

/* ---- stage two: parts into the import ---- */

/* Insert 'r' of hash 'h' into the raw table of 'sh', growing it to stay at most half full. */
static void raw_insert(struct import_shard *sh, uint64_t h, struct raw *r)
{
	size_t mask, i;

	if (2 * (sh->nr_raw + 1) > sh->rcap) {
		struct raw_slot *old = sh->rtab;
		size_t oldcap = sh->rcap;
		sh->rcap = sh->rcap ? 2 * sh->rcap : 1024;
		sh->rtab = xcalloc_written(sh->rcap, sizeof(*sh->rtab));
		sh->nr_raw = 0;
		for (size_t k = 0; k < oldcap; k++)
			if (old[k].r)
				raw_insert(sh, old[k].hash, old[k].r);
		free(old);
	}
	mask = sh->rcap - 1;
	for (i = (size_t)h & mask; sh->rtab[i].r; i = (i + 1) & mask)
		;
	sh->rtab[i].hash = h;
	sh->rtab[i].r = r;
	sh->nr_raw++;
}

/* Make room in the raw table of 'sh' for 'n' more forms. */
static void raw_reserve(struct import_shard *sh, size_t n)
{
	struct raw_slot *old = sh->rtab;
	size_t oldcap = sh->rcap, cap = sh->rcap ? sh->rcap : 1024;

	while (2 * (sh->nr_raw + n) > cap)
		cap *= 2;
	if (cap == oldcap)
		return;
	sh->rtab = xcalloc_written(cap, sizeof(*sh->rtab));
	sh->rcap = cap;
	sh->nr_raw = 0;
	for (size_t k = 0; k < oldcap; k++)
		if (old[k].r)
			raw_insert(sh, old[k].hash, old[k].r);
	free(old);
}

/* Return the raw form of 'im' with the bytes of 'pr', or NULL. */
static struct raw *raw_find(const struct import *im, const struct prow *pr)
{
	const struct import_shard *sh = &im->shard[half_of(pr->hash)];
	size_t mask = sh->rcap - 1;
	struct raw *r;

	if (!sh->rcap)
		return NULL;
	for (size_t i = (size_t)pr->hash & mask; (r = sh->rtab[i].r); i = (i + 1) & mask)
		if (sh->rtab[i].hash == pr->hash && r->len == pr->len && !memcmp(r->bytes, pr->bytes, pr->len))
			return r;
	return NULL;
}

/*
 * Run fn(ctx, 0) and fn(ctx, 1) (each does its half of some work), on two
 * threads when 'big', else one after the other.
 */
struct halves {
	void (*fn)(void *ctx, int half);
	void *ctx;
};

static void *half_main(void *arg)
{
	struct halves *h = arg;
	h->fn(h->ctx, 1);
	return NULL;
}

static void run_halves(void (*fn)(void *ctx, int half), void *ctx, bool big)
{
	struct halves h = { fn, ctx };
	pthread_t thread;
	bool threaded = big && !pthread_create(&thread, NULL, half_main, &h);

	fn(ctx, 0);
	if (threaded)
		pthread_join(thread, NULL);
	else
		fn(ctx, 1);
}

struct text_work {
	struct import *im;
	struct prow **all;     /* the raw forms of both parts, in order of first record */
	size_t n;
	struct fresh *f;       /* by index into 'all' */
	size_t nr_fresh[2];    /* fresh forms found by each half of text_half */
};

/* Remove the spaces, tabs and line breaks at both ends of 'sb'. */
static void trim_spaces(struct strbuf *sb)
{
	size_t a = 0, b = sb->len;

	while (a < b && (sb->buf[a] == ' ' || sb->buf[a] == '\t' || sb->buf[a] == '\r' ||
			 sb->buf[a] == '\n'))
		a++;
	while (b > a && (sb->buf[b - 1] == ' ' || sb->buf[b - 1] == '\t' || sb->buf[b - 1] == '\r' ||
			 sb->buf[b - 1] == '\n'))
		b--;
	if (a)
		memmove(sb->buf, sb->buf + a, b - a);
	strbuf_setlen(sb, b - a);
}

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
		f->found = pii_redact(pr->bytes, pr->len, &f->red, &f->pc);
		trim_spaces(&f->red);  /* "how to x  " is shown as "how to x" */
		f->key = text_normalize_query(f->red.buf, f->red.len);
		f->key_len = strlen(f->key);
		f->red_hash = strhash(f->red.buf, f->red.len);
		f->key_hash = strhash(f->key, f->key_len);
	}
}

/*
 * The first resolving pass, for the redacted texts of parity 'half': the
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

		if (!f->pr || half_of(f->red_hash) != half)
			continue;
		e = strmap_find_hashed(forms, f->red.buf, f->red.len, f->red_hash);
		if (!e) {
			/* the form and its text live in the shard's arena */
			struct form *fm = arena_alloc(&sh->arena, sizeof(*fm) + f->red.len + 1);
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
 * The second resolving pass, for the parity 'half': the raw forms of that
 * hash parity are made, and the group keys of that parity found or made
 * (the first creator in file order makes a group).
 */
static void raws_groups_half(void *ctx, int half)
{
	struct text_work *w = ctx;
	struct import_shard *sh = &w->im->shard[half];
	bool drop = w->im->opt.pii == PII_DROP;
	size_t expect = (w->nr_fresh[0] + w->nr_fresh[1]) / 16 * 9 + 64;

	strmap_reserve(&sh->groups, expect);
	raw_reserve(sh, expect);
	for (size_t i = 0; i < w->n; i++) {
		struct fresh *f = &w->f[i];
		struct strmap_entry *e;
		int added;

		if (!f->pr)
			continue;
		if (half_of(f->pr->hash) == half) {
			struct raw *r = arena_alloc(&sh->arena, sizeof(*r) + f->pr->len + 1);
			r->form = f->form;
			r->group = -1;
			r->count = 0;
			r->len = f->pr->len;
			r->pii = f->found > 0;
			memcpy(r->bytes, f->pr->bytes, (size_t)f->pr->len + 1);
			raw_insert(sh, f->pr->hash, r);
			f->raw = r;
		}
		if (!f->form_new || (f->found && drop) || !*f->key || half_of(f->key_hash) != half)
			continue;
		e = strmap_intern_hashed(&sh->groups, f->key, f->key_len, f->key_hash, &added);
		if (added)
			e->value = f;
		f->group_new = added;
		f->creator = e->value;  /* this import's fresh form, or an index + 1 of before */
	}
}

/* The last resolving pass, for the parity 'half': the new group keys get their indexes. */
static void group_values_half(void *ctx, int half)
{
	struct text_work *w = ctx;
	struct strmap *groups = &w->im->shard[half].groups;

	for (size_t i = 0; i < w->n; i++) {
		struct fresh *f = &w->f[i];
		if (f->group_new && half_of(f->key_hash) == half)  /* the group took the key */
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
			doc_table_grow(into, mp);
		return;
	}
	into->count += from->count;
	into->positive += from->positive;
	into->negative += from->negative;
	into->short_clicks += from->short_clicks;
	into->other += from->other;
	sketch_merge(&into->sessions, &from->sessions, IMPORT_SESSION_SKETCH, mp);
	if (from->dated) {
		if (!into->dated || from->first < into->first)
			into->first = from->first;
		if (!into->dated || from->last > into->last)
			into->last = from->last;
		into->dated = true;
	}
	for (size_t k = 0; k < from->nr_docs; k++) {
		const struct import_doc *s = &from->docs[k];
		struct import_doc *d = doc_of(&im->docs, into, map[s->key], mp);

		d->positive += s->positive;
		d->negative += s->negative;
		d->short_clicks += s->short_clicks;
		d->clicks += s->clicks;
		d->cites += s->cites;
		d->ratings += s->ratings;
		sketch_merge(&d->sessions, &s->sessions, IMPORT_DOC_SKETCH, mp);
	}
	tally_release(from, mp);
}

/* Merge the places 'a' and 'b' into 'out', the first IMPORT_KEEP_LINES. */
static void first_places(const struct places *a, const struct places *b, struct places *out)
{
	*out = *a;
	for (size_t k = 0; k < b->nr; k++)
		keep_place(out, b->at[k].half, b->at[k].line, b->at[k].why);
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
static void merge_parts(struct import *im, const char *path, struct part *p, long line1)
{
	struct import_stats *st = &im->st;
	size_t n = p[0].nr + p[1].nr;
	struct prow **all = xcalloc(n + 1, sizeof(*all));
	struct text_work tw = { im, all, n, xcalloc(n + 1, sizeof(struct fresh)), { 0, 0 } };
	struct fold_work fw = { im, p, all, n, { NULL, NULL }, im->nr };

	/* in the order of the file: the order one reader creates them in */
	if (p[0].nr)
		memcpy(all, p[0].list, p[0].nr * sizeof(*all));
	if (p[1].nr)
		memcpy(all + p[0].nr, p[1].list, p[1].nr * sizeof(*all));
	qsort(all, n, sizeof(*all), by_first);
	run_halves(text_half, &tw, n > 4096);
	run_halves(forms_half, &tw, n > 4096);
	run_halves(raws_groups_half, &tw, n > 4096);
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
			fw.map[k][d] = docs_intern(&im->docs, &im->arena, pk->dk.names[d].id,
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
	run_halves(group_values_half, &tw, n > 4096);
	run_halves(fold_half, &fw, im->nr - fw.first_new + n > 4096);
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

struct digest_job {
	const char *path;
	int rc;
	char sum[72];
};

/* Digest the file of 'arg' (a struct digest_job); a thread's body. */
static void *digest_main(void *arg)
{
	struct digest_job *dg = arg;
	dg->rc = file_sha256(dg->path, dg->sum);
	return NULL;
}

/*
 * Start 'fn'('arg') on a thread that runs only when a core is idle
 * (SCHED_IDLE; a normal thread when that is refused). The digest of a log
 * read by two readers runs so: in the readers' waits and the sequential
 * passes, not in their way. Return true when the thread started.
 */
static bool start_idle_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	struct sched_param sp = { 0 };
	bool ok = false;

	if (!pthread_attr_init(&attr)) {
		if (!pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED) &&
		    !pthread_attr_setschedpolicy(&attr, SCHED_IDLE) &&
		    !pthread_attr_setschedparam(&attr, &sp))
			ok = !pthread_create(t, &attr, fn, arg);
		pthread_attr_destroy(&attr);
	}
	return ok || !pthread_create(t, NULL, fn, arg);
}

int import_read(struct import *im, const char *path)
{
	struct part p[2];
	struct import_log lg;
	struct exchange ex;
	struct digest_job dg = { NULL, 0, { 0 } };
	pthread_t thread, digester;
	bool threaded = false, barrier = false, digesting = false;
	long long split = -1;
	int ret = -1;

	memset(p, 0, sizeof(p));
	memset(&lg, 0, sizeof(lg));
	memset(&ex, 0, sizeof(ex));
	for (int k = 0; k < 2; k++) {
		p[k].opt = &im->opt;
		p[k].file_idx = im->nr_logs;
		p[k].self = k;
		p[k].other = &p[1 - k];
		p[k].bytes = (struct strbuf)STRBUF_INIT;
		p[k].out.bytes = (struct strbuf)STRBUF_INIT;
		p[k].batch = xcalloc(BATCH, sizeof(*p[k].batch));
	}
	if (log_reader_open(&p[0].r, path, im->opt.format) < 0)
		goto out;
	p[0].open = true;
	part_paths(&p[0]);
	if (p[0].r.format != LOG_FORMAT_JSONL && p[0].path[FIELD_QUERY].column < 0) {
		error_at(path, 1, 0, "no column '%s' for the query in the header",
			 p[0].path[FIELD_QUERY].text);
		goto out;
	}
	p[0].digest = true;
	if (im->opt.split_min > 0)
		split = log_reader_split(&p[0].r, im->opt.split_min, 50);
	if (split > 0) {
		struct stat sb;
		long long round_bytes = im->opt.split_round > 0 ? im->opt.split_round : ROUND_BYTES;

		if (log_reader_open_range(&p[1].r, path, split) < 0 || stat(path, &sb) < 0)
			goto out;
		p[1].open = true;
		part_paths(&p[1]);
		/* a split reader does not hash: a third thread digests the file meanwhile */
		p[0].digest = false;
		dg.path = path;
		digesting = start_idle_thread(&digester, digest_main, &dg);
		p[0].start = 0;
		p[0].len = p[1].start = split;
		p[1].len = (long long)sb.st_size - split;
		p[0].rounds = p[1].rounds = 1 + (long)(split / round_bytes);
		p[0].ex = p[1].ex = &ex;
		barrier = !pthread_barrier_init(&ex.barrier, NULL, 2);
		threaded = barrier && !pthread_create(&thread, NULL, read_shared, &p[1]);
		if (threaded) {
			read_shared(&p[0]);
			pthread_join(thread, NULL);
		} else {
			read_shared_here(p);
		}
	} else {
		read_records(&p[0]);
	}
	if (split > 0) {
		if (digesting)
			pthread_join(digester, NULL);
		else
			digest_main(&dg);
		digesting = false;
		if (dg.rc < 0)
			goto out;
		memcpy(p[0].sum, dg.sum, sizeof(p[0].sum));
	}
	if (p[0].failed || p[1].failed)
		goto out;

	memcpy(lg.digest, p[0].sum, sizeof(lg.digest));
	lg.gzip = log_reader_gzip(&p[0].r);
	lg.format = p[0].r.format;
	lg.path = xstrdup(path);
	lg.records = p[0].records + p[1].records;
	lg.readers = split > 0 ? 2 : 1;
	merge_parts(im, path, p, split > 0 ? p[0].r.next_line - 1 : 0);
	ALLOC_GROW(im->logs, im->nr_logs + 1, im->alloc_logs);
	im->logs[im->nr_logs++] = lg;
	ret = 0;
out:
	if (digesting)
		pthread_join(digester, NULL);
	if (barrier)
		pthread_barrier_destroy(&ex.barrier);
	part_release(&p[0]);
	part_release(&p[1]);
	return ret;
}

/* ---- labels ---- */

struct count_key {
	unsigned long count;
	size_t order, at;  /* 'at': index into im->q */
};

static int by_count(const void *a, const void *b)
{
	const struct count_key *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Sort the queries of 'im' by count, most frequent first (ties: first seen first). */
static void sort_queries(struct import *im)
{
	struct count_key *k = xcalloc(im->nr + 1, sizeof(*k));
	struct import_query *sorted = xcalloc(im->nr + 1, sizeof(*sorted));

	/* sort small keys, then move each (large) query once */
	for (size_t i = 0; i < im->nr; i++) {
		k[i].count = im->q[i].t.count;
		k[i].order = im->q[i].order;
		k[i].at = i;
	}
	qsort(k, im->nr, sizeof(*k), by_count);
	for (size_t i = 0; i < im->nr; i++)
		sorted[i] = im->q[k[i].at];
	free(im->q);
	im->q = sorted;
	im->alloc = im->nr + 1;
	free(k);
}

static int by_id(const void *a, const void *b)
{
	const struct import_doc *x = a, *y = b;
	return strcmp(x->id, y->id);
}

/* Give every group the text of its most frequent form (ties: the form seen first). */
static void choose_texts(struct import *im)
{
	for (size_t i = 0; i < im->nr_forms; i++)
		im->form_list[i]->count = 0;
	for (int h = 0; h < 2; h++)
		for (size_t i = 0; i < im->shard[h].rcap; i++)
			if (im->shard[h].rtab[i].r)
				im->shard[h].rtab[i].r->form->count += im->shard[h].rtab[i].r->count;
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

/* Sort the documents and decide the labels of every other query ('half' of them). */
static void label_half(void *ctx, int half)
{
	struct import *im = ctx;

	for (size_t i = (size_t)half; i < im->nr; i += 2) {
		struct import_tally *t = &im->q[i].t;

		if (t->count < (unsigned long)im->opt.min_count)
			continue;
		/* the order records came in (or readers split them) does not show */
		if (t->nr_docs > 1)
			qsort(t->docs, t->nr_docs, sizeof(t->docs[0]), by_id);
		/* pool memory: given back with the pools */
		t->dkeys = t->dtab = NULL;
		t->dcap = 0;
		im->q[i].nr_labels = 0;
		for (size_t d = 0; d < t->nr_docs; d++) {
			struct import_doc *doc = &t->docs[d];
			doc->grade = 0;
			if (sketch_count(&doc->sessions, IMPORT_DOC_SKETCH) >= (double)im->opt.min_clicks) {
				doc->grade = 2 * doc->positive >= t->positive ? 2 : 1;
				im->q[i].nr_labels++;
			}
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
	run_halves(label_half, im, im->nr > 4096);
	for (size_t i = 0; i < im->nr; i++) {
		struct import_query *q = &im->q[i];

		if (q->t.count < (unsigned long)im->opt.min_count) {
			im->st.below_min_count++;
			query_release(q);
			continue;
		}
		if (q->nr_labels)
			im->st.labelled++;
		else
			im->st.unlabelled++;
		if (kept != i)
			im->q[kept] = *q;
		kept++;
	}
	im->nr = kept;
	/* the group maps hold indexes from before the filter: they are done with */
	for (int h = 0; h < 2; h++)
		strmap_clear(&im->shard[h].groups, 0);
	sort_queries(im);
}
