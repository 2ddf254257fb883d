/*
 * run: loading retriever outputs into a struct run (see run.h).
 *
 * This part is the driver: struct run and format detection. It calls the
 * readers (run-internal.h): the TREC scanner in run-trec.c, the JSONL and
 * JSON readers in run-json.c. They, and this file, build on run-build.c
 * (run-build.h); no reader calls back into this file. run_load reads the
 * whole file (decompressed) first, then decides the format by the first
 * non-blank byte: '[' is refused, '{' is JSONL when its first line is a
 * question or meta object and JSON otherwise, anything else is TREC.
 */
#include "score/run.h"
#include "score/run-build.h"
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
