/*
 * qrels: TREC relevance judgments (see qrels.h).
 *
 * A qrels file is small next to a run (thousands of lines, not millions), so
 * it is read with the line reader and every string is copied. Lookups during
 * scoring go through a per-query open-addressing table keyed by qrels_hash,
 * which the run scanner computes once per document.
 */
#include "score/qrels.h"

#include "base/error.h"
#include "base/lineio.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

#define QRELS_MAX_LINE (1u << 20)

/* Return the little-endian reading of the 8 bytes loaded into 'w'. */
static inline uint64_t le64(uint64_t w)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return __builtin_bswap64(w);
#else
	return w;
#endif
}

uint64_t qrels_hash(const char *s, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)len;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, s + i, 8);
		w = le64(w);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	if (i < len) {
		uint64_t w = 0;

		for (size_t b = 0; i < len; i++, b += 8)
			w |= (uint64_t)(unsigned char)s[i] << b;
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	}
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 32;
	return h;
}

uint64_t qrels_hash_padded(const char *s, size_t len)
{
	static const uint64_t tail_mask[8] = {
		0, 0xffULL, 0xffffULL, 0xffffffULL, 0xffffffffULL, 0xffffffffffULL,
		0xffffffffffffULL, 0xffffffffffffffULL,
	};
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)len, w;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		w = le64(w);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	if (i < len) {
		memcpy(&w, s + i, 8);
		w = le64(w) & tail_mask[len - i];
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	}
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 32;
	return h;
}

void qrels_init(struct qrels *qr)
{
	memset(qr, 0, sizeof(*qr));
}

void qrels_query_release(struct qrels_query *q)
{
	for (size_t i = 0; i < q->nr; i++)
		free(q->j[i].doc);
	free(q->j);
	free(q->levels);
	free(q->slots);
	free(q->qid);
	memset(q, 0, sizeof(*q));
}

void qrels_release(struct qrels *qr)
{
	for (size_t i = 0; i < qr->nr; i++)
		qrels_query_release(&qr->q[i]);
	free(qr->q);
	strmap_clear(&qr->index, 0);
	free(qr->file);
	memset(qr, 0, sizeof(*qr));
}

struct qrels_query *qrels_find(const struct qrels *qr, const char *qid, size_t len)
{
	struct strmap_entry *e = strmap_find(&qr->index, qid, len);

	return e ? &qr->q[(size_t)e->value - 1] : NULL;
}

struct qrels_query *qrels_add_query(struct qrels *qr, const char *qid)
{
	struct qrels_query *q;
	int added;
	struct strmap_entry *e = strmap_intern(&qr->index, qid, strlen(qid), &added);

	ALLOC_GROW(qr->q, qr->nr + 1, qr->alloc);
	q = &qr->q[qr->nr++];
	memset(q, 0, sizeof(*q));
	q->qid = xstrdup(qid);
	e->value = (void *)(uintptr_t)qr->nr;
	return q;
}

void qrels_query_add(struct qrels_query *q, const char *doc, int rel)
{
	struct qrel *j;

	ALLOC_GROW(q->j, q->nr + 1, q->alloc);
	j = &q->j[q->nr++];
	j->doc = xstrdup(doc);
	j->len = strlen(doc);
	j->hash = qrels_hash(doc, j->len);
	j->rel = rel;
}

static int cmp_qrel(const void *a, const void *b)
{
	return strcmp(((const struct qrel *)a)->doc, ((const struct qrel *)b)->doc);
}

/* qrels_query_finish, reporting a docno judged twice when 'report'. */
static int finish(struct qrels_query *q, const char *file, bool report)
{
	int max = -1;

	if (q->nr > 1)
		qsort(q->j, q->nr, sizeof(*q->j), cmp_qrel);
	for (size_t i = 0; i < q->nr; i++) {
		if (i && !strcmp(q->j[i].doc, q->j[i - 1].doc))
			return !report ? -1 : error_at(file, q->line, 0, "document '%s' judged twice for query '%s'",
						       q->j[i].doc, q->qid);
		if (q->j[i].rel > max)
			max = q->j[i].rel;
	}
	free(q->levels);
	q->nr_levels = max + 1;
	q->levels = xcalloc(q->nr_levels > 0 ? (size_t)q->nr_levels : 1, sizeof(long));
	for (size_t i = 0; i < q->nr; i++)
		if (q->j[i].rel >= 0)
			q->levels[q->j[i].rel]++;

	free(q->slots);
	q->cap = 8;
	while (q->cap < 2 * q->nr)
		q->cap *= 2;
	q->slots = xcalloc(q->cap, sizeof(uint32_t));
	for (size_t i = 0; i < q->nr; i++) {
		size_t s = q->j[i].hash & (q->cap - 1);

		while (q->slots[s])
			s = (s + 1) & (q->cap - 1);
		q->slots[s] = (uint32_t)(i + 1);
	}
	return 0;
}

int qrels_query_finish(struct qrels_query *q, const char *file)
{
	return finish(q, file, true);
}

int qrels_query_finish_quiet(struct qrels_query *q)
{
	return finish(q, NULL, false);
}

long qrels_query_lookup(const struct qrels_query *q, const char *doc, size_t len, uint64_t h)
{
	size_t s;

	if (!q->slots)
		return -1;
	s = h & (q->cap - 1);
	while (q->slots[s]) {
		const struct qrel *j = &q->j[q->slots[s] - 1];

		if (j->hash == h && j->len == len && !memcmp(j->doc, doc, len))
			return (long)(q->slots[s] - 1);
		s = (s + 1) & (q->cap - 1);
	}
	return -1;
}

/* Split 'line' at runs of blanks into at most 'max' fields; return the count. */
static int split_fields(char *line, char **f, int max)
{
	int n = 0;
	char *p = line;

	while (*p) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\v' || *p == '\f')
			p++;
		if (!*p)
			break;
		if (n == max)
			return n + 1;
		f[n++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\v' && *p != '\f')
			p++;
		if (*p)
			*p++ = '\0';
	}
	return n;
}

int qrels_load(struct qrels *qr, const char *path)
{
	struct line_reader lr;
	struct strbuf line = STRBUF_INIT;
	struct qrels_query *cur = NULL;
	int ret = -1, r;

	if (line_reader_open(&lr, path, QRELS_MAX_LINE) < 0)
		return -1;
	qr->file = xstrdup(path);
	while ((r = line_reader_next(&lr, &line)) == 1) {
		char *f[5];
		int n;
		long rel;

		if (strlen(line.buf) != line.len) {
			error_at(path, lr.lineno, 0, "binary file: NUL byte in a qrels line");
			goto out;
		}
		n = split_fields(line.buf, f, 4);
		if (!n || f[0][0] == '#')
			continue;
		if (n < 4) {
			error_at(path, lr.lineno, 0, "expected 4 fields 'qid iter docno rel', found %d", n);
			goto out;
		}
		if (parse_long(f[3], -1000000, 1000000, &rel) < 0) {
			error_at(path, lr.lineno, 0, "relevance '%s' is not an integer", f[3]);
			goto out;
		}
		if (!cur || strcmp(cur->qid, f[0])) {
			cur = qrels_find(qr, f[0], strlen(f[0]));
			if (!cur) {
				cur = qrels_add_query(qr, f[0]);
				cur->line = lr.lineno;
			}
		}
		qrels_query_add(cur, f[2], (int)rel);
	}
	if (r < 0)
		goto out;
	for (size_t i = 0; i < qr->nr; i++)
		if (qrels_query_finish(&qr->q[i], path) < 0)
			goto out;
	ret = 0;
out:
	line_reader_close(&lr);
	strbuf_release(&line);
	if (ret < 0)
		qrels_release(qr);
	return ret;
}
