/*
 * run-build: what the run readers (run-trec.c, run-json.c) and the driver
 * (run.c) share, below all three: opening and reading a possibly compressed
 * file, refusing binary input, and building a struct run. Nothing here calls
 * a reader or the driver.
 *
 * Errors are reported through error()/error_at() with the run's path (and
 * line where known) before -1 (or NULL) is returned.
 */
#include "score/qrels.h"
#include "score/run-build.h"

#include "base/error.h"
#include "base/lineio.h"
#include "base/fsutil.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

int run_rank_cmp(double sa, const char *da, double sb, const char *db)
{
	if (sa > sb)
		return -1;
	if (sa < sb)
		return 1;
	return strcmp(db, da);
}

int run_rank_cmp_len(double sa, const char *da, size_t la, double sb, const char *db, size_t lb)
{
	if (sa > sb)
		return -1;
	if (sa < sb)
		return 1;
	return run_docid_cmp(db, lb, da, la);
}

/* ---- reading ---- */

gzFile run_open_gz(const char *path)
{
	gzFile gz;

	if (!strcmp(path, "-")) {
		int fd = dup(STDIN_FILENO);

		gz = fd < 0 ? NULL : gzdopen(fd, "rb");
	} else {
		int fd = open_regular(path);

		if (fd < 0)
			return NULL;
		gz = gzdopen(fd, "rb");
		if (!gz)
			close(fd);
	}
	if (!gz) {
		error("cannot open '%s': %s", path, strerror(errno ? errno : ENOMEM));
		return NULL;
	}
	gzbuffer(gz, 1u << 20);
	return gz;
}

long run_gz_read_block(gzFile gz, const char *path, char *dst, size_t want)
{
	size_t got = 0;

	while (got < want) {
		unsigned chunk = want - got > (1u << 30) ? (1u << 30) : (unsigned)(want - got);
		int n = gzread(gz, dst + got, chunk);
		int err;

		if (n < 0) {
			const char *msg = gzerror(gz, &err);

			error("cannot read '%s': %s", path, err == Z_ERRNO ? strerror(errno) : msg);
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got && gz_check_ratio(gz, path) < 0)
		return -1;
	return (long)got;
}

int run_check_binary(const char *path, const char *buf, size_t len)
{
	const char *nul = memchr(buf, '\0', len);

	if (!nul)
		return 0;
	return error_at(path, line_number_at(buf, (size_t)(nul - buf)), 0,
			"binary file: NUL byte where text was expected");
}

/* ---- building a struct run ---- */

struct run_query *run_add_query(struct run *r, const char *qid, long line)
{
	int added;
	struct strmap_entry *e = strmap_intern(&r->index, qid, strlen(qid), &added);
	struct run_query *q;

	if (!added) {
		q = &r->q[(uintptr_t)e->value - 1];
		error_at(r->path, line, 0, "question '%s' listed twice (first at line %ld)",
			 qid, q->line);
		return NULL;
	}
	ALLOC_GROW(r->q, r->nr + 1, r->alloc);
	q = &r->q[r->nr++];
	memset(q, 0, sizeof(*q));
	q->qid = xstrdup(qid);
	q->line = line;
	e->value = (void *)(uintptr_t)r->nr;
	return q;
}

void run_add_doc(struct run *r, struct run_query *q, const char *id, double score, long line)
{
	size_t len = strlen(id);
	char *copy = mempool_alloc(&r->ids, len + 1);

	memcpy(copy, id, len + 1);
	if (q->docs_pooled) {  /* a bug of the caller: a pooled list is never grown */
		fprintf(stderr, "fatal: run_add_doc: question '%s' has a pooled list\n", q->qid);
		abort();
	}
	ALLOC_GROW(q->docs, q->nr + 1, q->alloc);
	q->docs[q->nr].id = copy;
	q->docs[q->nr].score = score;
	q->docs[q->nr].line = line;
	q->nr++;
}

int run_check_dups(struct run *r, const struct run_query *q)
{
	size_t cap = 16, mask;
	uint32_t *slot;

	/* an open-addressing table of list positions + 1, at most half full,
	 * emptied for each question and grown only for a longer list */
	while (cap < 2 * q->nr)
		cap *= 2;
	if (cap > r->dup_cap) {
		free(r->dup_slots);
		r->dup_slots = xmalloc(cap * sizeof(*r->dup_slots));
		r->dup_cap = cap;
	}
	slot = r->dup_slots;
	mask = cap - 1;
	memset(slot, 0, cap * sizeof(*slot));
	for (size_t i = 0; i < q->nr; i++) {
		const char *id = q->docs[i].id;
		size_t len = strlen(id), s = (size_t)qrels_hash(id, len) & mask;
		const struct run_doc *prev = NULL;

		for (; slot[s]; s = (s + 1) & mask)
			if (!strcmp(q->docs[slot[s] - 1].id, id)) {
				prev = &q->docs[slot[s] - 1];
				break;
			}
		if (!prev) {
			slot[s] = (uint32_t)(i + 1);
			continue;
		}
		{
			long line = q->docs[i].line > prev->line ? q->docs[i].line : prev->line;
			long first = q->docs[i].line > prev->line ? prev->line : q->docs[i].line;

			if (line)
				return error_at(r->path, line, 0,
						"document '%s' listed twice for question '%s' (first at line %ld)",
						id, q->qid, first);
			return error("%s: document '%s' listed twice for question '%s'",
				     r->path, id, q->qid);
		}
	}
	return 0;
}

static int cmp_doc_rank(const void *a, const void *b)
{
	const struct run_doc *x = a, *y = b;

	return run_rank_cmp(x->score, x->id, y->score, y->id);
}

void run_sort_docs(struct run_query *q)
{
	size_t i = 1;

	/* a retriever's run is usually in rank order already: one pass tells */
	while (i < q->nr && cmp_doc_rank(&q->docs[i - 1], &q->docs[i]) <= 0)
		i++;
	if (i < q->nr)
		qsort(q->docs, q->nr, sizeof(*q->docs), cmp_doc_rank);
}
