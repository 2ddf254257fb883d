/*
 * run: loading retriever outputs into a struct run (see run.h).
 *
 * This part holds struct run, the shared reading helpers and format
 * detection; the TREC scanner is in run-trec.c, the JSONL and JSON readers
 * in run-json.c (their shared helpers: run-internal.h). run_load reads the
 * whole file (decompressed) first, then decides the format by the first
 * non-blank byte: '[' is refused, '{' is JSONL when its first line is a
 * question or meta object and JSON otherwise, anything else is TREC.
 */
#include "score/run.h"
#include "score/run-internal.h"

#include "base/error.h"
#include "base/fsutil.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define RUN_MAX_JSON_BYTES ((size_t)1 << 31)

const char *run_format_name(enum run_format f)
{
	switch (f) {
	case RUN_TREC: return "trec";
	case RUN_JSONL: return "jsonl";
	case RUN_JSON: return "json";
	default: return "empty";
	}
}

int run_rank_cmp(double sa, const char *da, double sb, const char *db)
{
	if (sa > sb)
		return -1;
	if (sa < sb)
		return 1;
	return strcmp(db, da);
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
	return (long)got;
}

int run_check_binary(const char *path, const char *buf, size_t len)
{
	const char *nul = memchr(buf, '\0', len);
	long line = 1;

	if (!nul)
		return 0;
	for (const char *p = buf; p < nul; p++)
		line += *p == '\n';
	return error_at(path, line, 0, "binary file: NUL byte where text was expected");
}

/* ---- struct run ---- */

void run_init(struct run *r)
{
	memset(r, 0, sizeof(*r));
}

void run_release(struct run *r)
{
	for (size_t i = 0; i < r->nr; i++) {
		struct run_query *q = &r->q[i];

		for (size_t d = 0; d < q->nr; d++)
			free(q->docs[d].id);
		free(q->docs);
		free(q->qid);
	}
	free(r->q);
	strmap_clear(&r->index, 0);
	free(r->path);
	free(r->name);
	free(r->meta);
	memset(r, 0, sizeof(*r));
}

struct run_query *run_find(const struct run *r, const char *qid)
{
	struct strmap_entry *e = strmap_find(&r->index, qid, strlen(qid));

	return e ? &r->q[(uintptr_t)e->value - 1] : NULL;
}

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

void run_add_doc(struct run_query *q, const char *id, double score, long line)
{
	ALLOC_GROW(q->docs, q->nr + 1, q->alloc);
	q->docs[q->nr].id = xstrdup(id);
	q->docs[q->nr].score = score;
	q->docs[q->nr].line = line;
	q->nr++;
}

int run_check_dups(const struct run *r, const struct run_query *q)
{
	struct strmap ids = STRMAP_INIT;
	int ret = 0;

	for (size_t i = 0; i < q->nr && !ret; i++) {
		int added;
		struct strmap_entry *e = strmap_intern(&ids, q->docs[i].id, strlen(q->docs[i].id), &added);

		if (added) {
			e->value = (void *)&q->docs[i];
		} else {
			const struct run_doc *prev = e->value;
			long line = q->docs[i].line > prev->line ? q->docs[i].line : prev->line;
			long first = q->docs[i].line > prev->line ? prev->line : q->docs[i].line;

			if (line)
				ret = error_at(r->path, line, 0,
					       "document '%s' listed twice for question '%s' (first at line %ld)",
					       q->docs[i].id, q->qid, first);
			else
				ret = error("%s: document '%s' listed twice for question '%s'",
					    r->path, q->docs[i].id, q->qid);
		}
	}
	strmap_clear(&ids, 0);
	return ret;
}

static int cmp_doc_rank(const void *a, const void *b)
{
	const struct run_doc *x = a, *y = b;

	return run_rank_cmp(x->score, x->id, y->score, y->id);
}

void run_sort_docs(struct run_query *q)
{
	if (q->nr > 1)
		qsort(q->docs, q->nr, sizeof(*q->docs), cmp_doc_rank);
}

/* Add the question 'g' of a TREC scan to the run 'data', ranked. */
static int trec_group_to_run(struct trec_group *g, void *data)
{
	struct run *r = data;
	struct run_query *q = run_add_query(r, g->qid, g->nr ? g->lines[0].line : 0);

	if (!q)
		return -1;
	for (size_t i = 0; i < g->nr; i++)
		run_add_doc(q, g->lines[i].doc, g->lines[i].score, g->lines[i].line);
	r->nr_docs += (long)g->nr;
	if (run_check_dups(r, q) < 0)
		return -1;
	run_sort_docs(q);
	return 0;
}

static int read_all(const char *path, struct strbuf *sb)
{
	gzFile gz = run_open_gz(path);
	int ret = 0;

	if (!gz)
		return -1;
	for (;;) {
		long n;

		strbuf_grow(sb, 1u << 20);
		n = run_gz_read_block(gz, path, sb->buf + sb->len, sb->alloc - sb->len - 1);
		if (n < 0) {
			ret = -1;
			break;
		}
		strbuf_setlen(sb, sb->len + (size_t)n);
		if (!n)
			break;
		if (sb->len > RUN_MAX_JSON_BYTES) {
			ret = error("'%s' is too large to load in memory", path);
			break;
		}
	}
	gzclose(gz);
	return ret;
}

int run_load(struct run *r, const char *path)
{
	struct strbuf sb = STRBUF_INIT, tag = STRBUF_INIT;
	size_t i = 0;
	int ret = -1;

	r->path = xstrdup(path);
	if (read_all(path, &sb) < 0)
		goto out;
	if (run_check_binary(path, sb.buf, sb.len) < 0)
		goto out;
	if (sb.len >= 3 && !memcmp(sb.buf, "\xef\xbb\xbf", 3))
		i = 3;
	while (i < sb.len && (sb.buf[i] == ' ' || sb.buf[i] == '\t' || sb.buf[i] == '\r' || sb.buf[i] == '\n'))
		i++;
	if (i == sb.len) {
		r->format = RUN_EMPTY;
		ret = 0;
		goto out;
	}
	if (sb.buf[i] == '[') {
		ret = error("%s: a JSON list is not a run; use JSONL (one object per line) or {qid: {docid: score}}",
			    path);
		goto out;
	}
	if (sb.buf[i] == '{') {
		if (run_looks_jsonl(sb.buf + i, sb.len - i)) {
			r->format = RUN_JSONL;
			ret = run_parse_jsonl(r, sb.buf, sb.len);
		} else {
			r->format = RUN_JSON;
			ret = run_parse_json_dict(r, sb.buf, sb.len);  /* cJSON skips the BOM and blanks */
		}
		goto out;
	}
	r->format = RUN_TREC;
	ret = run_trec_scan_buffer(&sb, path, trec_group_to_run, r, &tag);
	if (!ret && tag.len)
		r->name = strbuf_detach(&tag, NULL);
out:
	strbuf_release(&sb);
	strbuf_release(&tag);
	if (ret < 0) {
		run_release(r);
		return -1;
	}
	return 0;
}
