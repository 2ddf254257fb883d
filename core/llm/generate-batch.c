/*
 * generate-batch: `evalset generate --batch`, and --batch-out/--batch-in,
 * the batch API routes (docs/generate.md, docs/scale.md). --batch runs the
 * job through llm/llmbatch.h. --batch-out writes one request line
 * per planned item not yet journaled, its custom_id being the item's
 * journal key; --batch-in reads output and error files, joins lines on
 * custom_id and hands each reply to the same journal-and-apply path as a
 * live reply (gen_record_result), so a batch reply and a live one leave the
 * same journal record.
 */
#include "llm/generate-internal.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/util.h"
#include "llm/llmjob.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Return the batch requests of the items not yet done (custom id: the
 * journal key; body: the live path's), their number in '*n'; NULL after a
 * rendering error (reported). Free with free_requests.
 */
static struct llmbatch_request *batch_requests(struct gen *g, size_t *n)
{
	struct llmbatch_request *reqs = xcalloc(g->nr_items + 1, sizeof(*reqs));
	struct strbuf sys = STRBUF_INIT, user = STRBUF_INIT, body = STRBUF_INIT;

	*n = 0;
	for (size_t i = 0; i < g->nr_items && reqs; i++) {
		struct item *it = &g->items[i];
		if (it->done)
			continue;
		strbuf_reset(&sys);
		strbuf_reset(&user);
		if (gen_render(g, it, &sys, &user)) {
			for (size_t k = 0; k < *n; k++)
				free((char *)reqs[k].body);
			free(reqs);
			reqs = NULL;
			break;
		}
		llm_request_body(g->llm, sys.buf, user.buf, LLM_JSON_SCHEMA, 0, &body);
		reqs[*n].custom_id = it->key;
		reqs[(*n)++].body = strbuf_detach(&body, NULL);
	}
	strbuf_release(&sys);
	strbuf_release(&user);
	strbuf_release(&body);
	return reqs;
}

static void free_requests(struct llmbatch_request *reqs, size_t n)
{
	for (size_t i = 0; reqs && i < n; i++)
		free((char *)reqs[i].body);
	free(reqs);
}

int gen_batch_out(struct gen *g)
{
	struct strbuf out = STRBUF_INIT;
	size_t n;
	struct llmbatch_request *reqs = batch_requests(g, &n);
	int rc = -1;

	if (reqs) {
		for (size_t i = 0; i < n; i++)
			llmbatch_input_line(g->llm, reqs[i].custom_id, reqs[i].body, &out);
		g->st->batch_written = n;
		rc = write_file_atomic(g->o->batch_out, out.buf, out.len);
	}
	free_requests(reqs, n);
	strbuf_release(&out);
	return rc;
}

/* One line of a --batch-in file: matched on custom_id, then the live reply's path. */
static int on_batch_in(const char *custom_id, const char *body, size_t len, const char *why, bool final,
		       void *ctx)
{
	struct gen *g = ctx;
	uintptr_t at = (uintptr_t)strmap_get(&g->plan, custom_id);
	struct llm_result res;

	(void)why;
	(void)final;
	if (!at)
		g->st->batch_unmatched++;
	else
		g->st->batch_matched++;
	if (at && !g->items[at - 1].done) {
		if (!body) {
			g->st->batch_errors++;
		} else {
			llm_accept(g->llm, body, len, &g->items[at - 1], &res);
			gen_record_result(g, &g->items[at - 1], &res);
		}
	}
	return g->abort ? -1 : 0;
}

int gen_batch_in(struct gen *g)
{
	for (size_t f = 0; f < g->o->nr_batch_in && !g->abort; f++)
		if (llmbatch_read_file(g->o->batch_in[f], on_batch_in, g))
			return -1;
	return 0;
}

/*
 * A result of --batch: the same journal-and-apply path as a live reply. A
 * reply that cannot be used is not recorded while a follow-up batch can
 * ask it again (return 1).
 */
static int on_batch_result(const char *custom_id, const char *body, size_t len, const char *why,
			   bool final, void *ctx)
{
	struct gen *g = ctx;
	uintptr_t at = (uintptr_t)strmap_get(&g->plan, custom_id);
	struct item *it;
	struct llm_result res;

	(void)why;
	if (!at || g->abort)
		return 0;
	it = &g->items[at - 1];
	if (it->done)
		return 0;
	if (body) {
		int rc = llm_accept(g->llm, body, len, it, &res);
		if (rc && !final)
			return rc == 1 ? LLMBATCH_LONGER : LLMBATCH_AGAIN;
		gen_record_result(g, it, &res);
	} else if (final) {
		/* not journaled: the next run asks it again */
		memset(&res, 0, sizeof(res));
		res.status = LLM_FAILED;
		res.why = why;
		gen_record_result(g, it, &res);
	}
	return 0;
}

static int batch_stop(void *ctx)
{
	struct gen *g = ctx;

	return llmjob_stop(g->abort, &g->o->llm.http);
}

static void batch_progress(const struct llmbatch_stats *bst, void *ctx)
{
	struct gen *g = ctx;

	g->st->batch = *bst;
	if (g->o->progress)
		g->o->progress(g->st, g->o->ctx);
}

int gen_batch_run(struct gen *g, const struct llmbatch_options *opts)
{
	struct llmbatch_options bo = *opts;
	size_t n;
	struct llmbatch_request *reqs = batch_requests(g, &n);
	int rc;

	if (!reqs)
		return ERR_INPUT;
	bo.result = on_batch_result;
	bo.stop = batch_stop;
	bo.progress = batch_progress;
	bo.ctx = g;
	bo.deadline_ms = g->o->llm.http.deadline_ms;   /* --deadline: polling included */
	rc = llmbatch_run(g->llm, &bo, reqs, n, &g->st->batch);
	if (!rc && g->abort)
		rc = g->abort_code;
	free_requests(reqs, n);
	return rc;
}
