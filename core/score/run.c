/*
 * run: loading retriever outputs into a struct run (see run.h).
 *
 * This part is the driver: struct run and format detection. It calls the
 * readers (run-internal.h): the TREC scanner in run-trec.c, the JSONL and
 * JSON readers in run-json.c. They, and this file, build on run-build.c
 * (run-build.h); no reader calls back into this file. run_load reads the
 * start of the file (decompressed) first and decides the format by the
 * first non-blank byte: '[' is refused, '{' is JSONL when its first line is
 * a question or meta object and JSON otherwise, anything else is TREC. Then
 * JSONL is read line by line and TREC question by question, plain or gzip
 * alike, with the same line limits (and gzip's ratio check, lineio.h):
 * nothing is inflated whole. Only a JSON object run (one document) and
 * standard input, which cannot be read twice, are read whole.
 */
#include "score/run.h"
#include "score/run-build.h"
#include "score/run-internal.h"

#include "base/error.h"
#include "base/fsutil.h"
#include "base/lineio.h"
#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define RUN_MAX_JSON_BYTES ((size_t)1 << 31)
#define RUN_SNIFF_BYTES (64u << 10)        /* what is read to decide the format */
#define RUN_JSONL_MAX_LINE (16u << 20)     /* a longer JSONL line is refused */

const char *run_format_name(enum run_format f)
{
	switch (f) {
	case RUN_TREC: return "trec";
	case RUN_JSONL: return "jsonl";
	case RUN_JSON: return "json";
	default: return "empty";
	}
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

		if (!q->docs_pooled)
			free(q->docs);
		free(q->call_end);
		free(q->qid);
	}
	free(r->q);
	strmap_clear(&r->index, 0);
	free(r->dup_slots);
	mempool_clear(&r->ids);
	free(r->path);
	free(r->name);
	free(r->meta);
	free(r->each_docs);
	memset(r, 0, sizeof(*r));
}

struct run_query *run_find(const struct run *r, const char *qid)
{
	struct strmap_entry *e = strmap_find(&r->index, qid, strlen(qid));

	return e ? &r->q[(uintptr_t)e->value - 1] : NULL;
}

int run_rank_parse(const char *s, enum run_rank *out)
{
	if (!strcmp(s, "order"))
		*out = RUN_RANK_ORDER;
	else if (!strcmp(s, "score"))
		*out = RUN_RANK_SCORE;
	else
		return -1;
	return 0;
}

int run_rank_by_score(struct run *r)
{
	if (r->format != RUN_JSONL)
		return 0;
	for (size_t i = 0; i < r->nr; i++)
		if (r->q[i].nr_calls)
			return error_at(r->path, r->q[i].line, 0,
					"question '%s' gives 'calls': its ranking is the calls' results in "
					"call order, which ranking by score would undo (rank by list order)",
					r->q[i].qid);
	/* check everything first, so that a refused run is left as it was read */
	for (size_t i = 0; i < r->nr; i++) {
		const struct run_query *q = &r->q[i];

		for (size_t d = 0; d < q->nr; d++)
			if (isnan(q->docs[d].score))
				return error_at(r->path, q->docs[d].line, 0,
						"result '%s' of question '%s' has no score, so the run cannot be ranked by score "
						"(give every result {\"id\", \"score\"}, or rank by list order)",
						q->docs[d].id, q->qid);
	}
	for (size_t i = 0; i < r->nr; i++)
		run_sort_docs(&r->q[i]);
	r->reranked = true;
	return 0;
}

int run_load_ranked(struct run *r, const char *path, enum run_rank rank)
{
	if (run_load(r, path) < 0)
		return -1;
	if (rank == RUN_RANK_SCORE && run_rank_by_score(r) < 0) {
		run_release(r);
		return -1;
	}
	return 0;
}

int run_load_each(struct run *r, const char *path, enum run_rank rank, run_each_fn *each,
		  void *data)
{
	r->each = each;
	r->each_data = data;
	return run_load_ranked(r, path, rank);
}

/*
 * Hand the question 'q' of the group 'g' to the run's hook, its list
 * borrowing the scan's ids; keep a copy in the pool unless the hook took it.
 */
static int hand_over(struct run *r, struct run_query *q, const struct trec_group *g)
{
	struct run_doc *kept;
	int rc;

	ALLOC_GROW(r->each_docs, g->nr, r->each_alloc);
	q->docs = r->each_docs;
	q->docs_pooled = true;  /* not q's to free */
	for (size_t i = 0; i < g->nr; i++) {
		q->docs[i].id = (char *)g->lines[i].doc;
		q->docs[i].score = g->lines[i].score;
		q->docs[i].line = g->lines[i].line;
	}
	q->nr = g->nr;
	r->nr_docs += (long)g->nr;
	if (run_check_dups(r, q) < 0)
		return -1;
	run_sort_docs(q);
	rc = r->each(r, q, r->each_data);
	if (rc < 0)
		return -1;
	if (rc > 0) {
		q->docs = NULL;
		q->dropped = true;
		return 0;
	}
	kept = mempool_bump(&r->ids, g->nr * sizeof(*kept), _Alignof(struct run_doc));
	for (size_t i = 0; i < g->nr; i++) {
		kept[i] = q->docs[i];
		kept[i].id = mempool_strndup(&r->ids, q->docs[i].id, strlen(q->docs[i].id));
	}
	q->docs = kept;
	return 0;
}

/* Add the question 'g' of a TREC scan to the run 'data', ranked. */
static int trec_group_to_run(struct trec_group *g, void *data)
{
	struct run *r = data;
	struct run_query *q = run_add_query(r, g->qid, g->nr ? g->lines[0].line : 0);

	if (!q)
		return -1;
	if (r->each)
		return hand_over(r, q, g);
	/* the question's whole list is known: one exact block of the run's
	 * pool, and each id a copy of the length the scan measured */
	q->docs = mempool_bump(&r->ids, g->nr * sizeof(*q->docs), _Alignof(struct run_doc));
	q->docs_pooled = true;
	for (size_t i = 0; i < g->nr; i++) {
		struct run_doc *d = &q->docs[i];

		d->id = mempool_strndup(&r->ids, g->lines[i].doc, g->lines[i].len);
		d->score = g->lines[i].score;
		d->line = g->lines[i].line;
	}
	q->nr = g->nr;
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

/* Read the first RUN_SNIFF_BYTES of 'path' (decompressed) into 'head'. Return 0 or -1 (reported). */
static int sniff(const char *path, struct strbuf *head)
{
	gzFile gz = run_open_gz(path);
	long n;

	if (!gz)
		return -1;
	strbuf_grow(head, RUN_SNIFF_BYTES + 1);
	n = run_gz_read_block(gz, path, head->buf, RUN_SNIFF_BYTES);
	gzclose(gz);
	if (n < 0)
		return -1;
	strbuf_setlen(head, (size_t)n);
	return 0;
}

/* Read the JSONL run 'path' line by line into 'r' (plain or gzip alike). */
static int stream_jsonl(struct run *r, const char *path)
{
	struct line_reader lr;
	struct strbuf line = STRBUF_INIT;
	int n, ret = 0;

	if (line_reader_open(&lr, path, RUN_JSONL_MAX_LINE) < 0)
		return -1;
	while ((n = line_reader_next(&lr, &line)) > 0)
		if (run_parse_jsonl_line(r, line.buf, line.len, lr.lineno) < 0) {
			ret = -1;
			break;
		}
	if (n < 0)
		ret = -1;  /* a read error, or a line over the limit (reported) */
	line_reader_close(&lr);
	strbuf_release(&line);
	return ret;
}

/* Read the TREC run 'path' into 'r', question by question when they are
 * grouped, else (a question coming back) again with every line kept. */
static int stream_trec(struct run *r, const char *path, struct strbuf *tag)
{
	int ret = run_trec_scan_digest(path, RUN_SCAN_STREAM, trec_group_to_run, r, tag, r->sha256);

	if (ret == RUN_SCAN_UNSORTED) {
		char *keep = r->path;
		run_each_fn *each = r->each;
		void *each_data = r->each_data;

		r->path = NULL;
		run_release(r);
		r->path = keep;
		r->format = RUN_TREC;
		r->each = each;
		r->each_data = each_data;
		strbuf_reset(tag);
		if (each && each(r, NULL, each_data) < 0)
			return -1;
		ret = run_trec_scan_digest(path, RUN_SCAN_COLLECT, trec_group_to_run, r, tag,
					   r->sha256);
	}
	return ret;
}

int run_load(struct run *r, const char *path)
{
	struct strbuf sb = STRBUF_INIT, tag = STRBUF_INIT;
	size_t i = 0;
	int ret = -1;
	bool whole = !strcmp(path, "-");  /* standard input cannot be read twice */

	r->path = xstrdup(path);
	if ((whole ? read_all(path, &sb) : sniff(path, &sb)) < 0)
		goto out;
	if (run_check_binary(path, sb.buf, sb.len) < 0)
		goto out;
	if (sb.len >= 3 && !memcmp(sb.buf, "\xef\xbb\xbf", 3))
		i = 3;
	while (i < sb.len && (sb.buf[i] == ' ' || sb.buf[i] == '\t' || sb.buf[i] == '\r' || sb.buf[i] == '\n'))
		i++;
	if (i == sb.len && (whole || sb.len < RUN_SNIFF_BYTES)) {
		r->format = RUN_EMPTY;
		ret = 0;
		goto out;
	}
	if (i < sb.len && sb.buf[i] == '[') {
		ret = error("%s: a JSON list is not a run; use JSONL (one object per line) or {qid: {docid: score}}",
			    path);
		goto out;
	}
	if (i < sb.len && sb.buf[i] == '{') {
		/* the first line decides; one longer than what was read is read whole */
		if (!whole && !memchr(sb.buf + i, '\n', sb.len - i) && sb.len == RUN_SNIFF_BYTES) {
			strbuf_reset(&sb);
			if (read_all(path, &sb) < 0)
				goto out;
			whole = true;
		}
		if (run_looks_jsonl(sb.buf + i, sb.len - i)) {
			r->format = RUN_JSONL;
			ret = whole ? run_parse_jsonl(r, sb.buf, sb.len) : stream_jsonl(r, path);
		} else {
			r->format = RUN_JSON;
			if (!whole) {
				strbuf_reset(&sb);
				if (read_all(path, &sb) < 0)
					goto out;
			}
			ret = run_parse_json_dict(r, sb.buf, sb.len);  /* cJSON skips the BOM and blanks */
		}
		goto out;
	}
	r->format = RUN_TREC;
	if (whole) {
		ret = run_trec_scan_buffer(&sb, path, trec_group_to_run, r, &tag);
	} else {
		strbuf_release(&sb);
		ret = stream_trec(r, path, &tag);
	}
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
