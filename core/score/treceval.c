/*
 * treceval: trec_eval v10.0 compatible evaluation (see treceval.h).
 *
 * Each query's values are computed as soon as its lines are read (only the
 * judged documents' ranks are needed, see score.c), stored as one row of
 * doubles, and printed at the end sorted by qid, so the output order never
 * depends on the order of the run file. Sums for the "all" line are taken in
 * that same qid order, as trec_eval does, so they round the same way.
 *
 * The driver of the module: the stages it calls are listed in
 * treceval-internal.h.
 */
#include "score/treceval.h"

#include "base/error.h"
#include "base/progress.h"
#include "score/run.h"
#include "score/treceval-internal.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void te_output_release(struct te_output *out)
{
	for (size_t i = 0; i < out->nr; i++) {
		free(out->q[i].qid);
		free(out->q[i].v);
		free(out->q[i].relstring);
	}
	free(out->q);
	free(out->cols);
	free(out->runid);
	memset(out, 0, sizeof(*out));
}

/* Beyond this many returning pieces the first pass stops (a shuffled run). */
#define MAX_PIECES_BACK 1024

static int on_group(struct trec_group *g, void *data)
{
	struct te_state *st = data;
	const struct qrels_query *qq = qrels_find(st->qr, g->qid, g->qid_len);
	struct query_eval e;

	if (!qq)
		return 0;
	if (st->pieces && st->seen[qq - st->qr->q]) {
		/* the question comes back: it is evaluated again, whole, afterwards */
		st->seen[qq - st->qr->q] = 2;
		if (++st->nr_back > MAX_PIECES_BACK) {
			st->too_scattered = true;
			return -1;
		}
		return 0;
	}
	if (!st->o->max_docs) {
		/* -M 0: trec_eval keeps no document (and so finds no duplicate) */
		memset(&e, 0, sizeof(e));
		e.levels = qq->levels;
		e.nr_levels = qq->nr_levels;
	} else if (hits_from_group(&st->hc, g, qq, st->o->judged_only, st->o->max_docs,
				   st->path, &e) < 0) {
		return -1;
	}
	e.rel_level = st->o->rel_level;
	te_add_row(st->out, st->o, &st->sc, qq->qid, &e);
	st->seen[qq - st->qr->q] = 1;
	return 0;
}

static void drop_rows(struct te_output *out)
{
	for (size_t i = 0; i < out->nr; i++) {
		free(out->q[i].qid);
		free(out->q[i].v);
		free(out->q[i].relstring);
	}
	out->nr = 0;
}

/* Drop the rows of the questions marked 2 in 'seen' (met again after their first piece). */
static void drop_rows_back(struct te_output *out, const struct qrels *qr, const unsigned char *seen)
{
	size_t kept = 0;

	for (size_t i = 0; i < out->nr; i++) {
		struct te_query *row = &out->q[i];
		const struct qrels_query *qq = qrels_find(qr, row->qid, strlen(row->qid));

		if (seen[qq - qr->q] == 2) {
			free(row->qid);
			free(row->v);
			free(row->relstring);
		} else {
			out->q[kept++] = *row;
		}
	}
	out->nr = kept;
}

static int cmp_row(const void *a, const void *b)
{
	return strcmp(((const struct te_query *)a)->qid, ((const struct te_query *)b)->qid);
}

/* ---- two halves in parallel ---- */

struct half {
	struct te_state st;
	struct te_output out;
	struct strbuf runid;
	off_t start, end;
	int lane;               /* of the progress line: 0 or 1 */
	int ret;
};

static void *half_main(void *arg)
{
	struct half *h = arg;

	run_trec_progress(h->st.o->progress, h->lane, 0);
	h->ret = run_trec_scan_range(h->st.path, h->start, h->end,
				     h->st.pieces ? RUN_SCAN_PIECES : RUN_SCAN_STREAM,
				     on_group, &h->st, &h->runid);
	return NULL;
}

/*
 * Evaluate the two halves of a large plain run, split at a question
 * boundary, on two threads. Return 0 when it worked (rows appended to 'out',
 * 'seen' and 'runid' filled; a question met in both halves is left for
 * afterwards, marked 2 in 'seen', its rows dropped), 2 when the run is too
 * scattered for it (see MAX_PIECES_BACK), or 1 when the caller must do it
 * again in one pass: any error (reported then with the right line number),
 * or, without pieces, a question met in both halves. Messages are muted
 * meanwhile.
 */
static int evaluate_halves(struct te_state *main_st, off_t split, off_t size, struct strbuf *runid)
{
	struct half h[2];
	bool ok = true;
	size_t nr_both = 0;

	for (int i = 0; i < 2; i++) {
		memset(&h[i], 0, sizeof(h[i]));
		h[i].st = *main_st;
		hit_ctx_init(&h[i].st.hc);
		memset(&h[i].st.sc, 0, sizeof(h[i].st.sc));
		strbuf_init(&h[i].st.sc.relstring, 0);
		h[i].st.out = &h[i].out;
		h[i].st.seen = xcalloc(main_st->qr->nr + 1, 1);
		h[i].out.cols = main_st->out->cols;
		h[i].out.nr_cols = main_st->out->nr_cols;
		strbuf_init(&h[i].runid, 0);
	}
	h[0].start = 0;
	h[0].end = split;
	h[1].start = split;
	h[1].end = size;
	h[1].lane = 1;
	te_run_pair(half_main, &h[0], &h[1], true);

	ok = !h[0].ret && !h[1].ret;
	for (size_t q = 0; ok && q < main_st->qr->nr; q++) {
		unsigned char a = h[0].st.seen[q], b = h[1].st.seen[q];

		main_st->seen[q] = a && b ? 2 : a > b ? a : b;
		nr_both += a && b;
	}
	if (ok && nr_both && (!main_st->pieces ||
			      h[0].st.nr_back + h[1].st.nr_back + nr_both > MAX_PIECES_BACK)) {
		memset(main_st->seen, 0, main_st->qr->nr + 1);
		ok = false;
	}
	if (ok) {
		struct te_output *out = main_st->out;

		for (int i = 0; i < 2; i++) {
			for (size_t q = 0; q < h[i].out.nr; q++) {
				struct te_query *row = &h[i].out.q[q];
				const struct qrels_query *qq = qrels_find(main_st->qr, row->qid, strlen(row->qid));

				if (main_st->seen[qq - main_st->qr->q] == 2) {
					free(row->qid);
					free(row->v);
					free(row->relstring);
					continue;
				}
				ALLOC_GROW(out->q, out->nr + 1, out->alloc);
				out->q[out->nr++] = *row;
			}
			h[i].out.nr = 0;
		}
		strbuf_reset(runid);
		{
		const struct strbuf *last = h[1].runid.len ? &h[1].runid : &h[0].runid;

		strbuf_add(runid, last->buf, last->len);
	}
	}
	for (int i = 0; i < 2; i++) {
		h[i].out.cols = NULL;
		te_output_release(&h[i].out);
		hit_ctx_release(&h[i].st.hc);
		te_scratch_release(&h[i].st.sc);
		free(h[i].st.seen);
		strbuf_release(&h[i].runid);
	}
	if (!ok && main_st->pieces && (h[0].st.too_scattered || h[1].st.too_scattered ||
				       h[0].st.nr_back + h[1].st.nr_back + nr_both > MAX_PIECES_BACK))
		return 2;
	return ok ? 0 : 1;
}

#define STAND_IN_DOCNO "ceci_nest_pas_un_docno"

/*
 * Evaluate the qrels query 'qq', absent from the run, as trec_eval -c does:
 * a ranking of one document, STAND_IN_DOCNO with score 1, judged when the
 * qrels judge it; then zero what trec_eval zeroes for it.
 */
static void add_stand_in(struct te_state *st, const struct qrels_query *qq)
{
	const struct te_options *o = st->o;
	struct te_output *out = st->out;
	struct judged_hit hit = { 1, 0 };
	struct query_eval e;
	struct te_query *q;
	size_t len = strlen(STAND_IN_DOCNO);
	long jx = qrels_query_lookup(qq, STAND_IN_DOCNO, len, qrels_hash(STAND_IN_DOCNO, len));

	memset(&e, 0, sizeof(e));
	e.levels = qq->levels;
	e.nr_levels = qq->nr_levels;
	e.rel_level = o->rel_level;
	if (jx >= 0)
		hit.rel = qq->j[jx].rel < 0 ? REL_UNJUDGED : qq->j[jx].rel;
	if (o->max_docs >= 1 && (!o->judged_only || (jx >= 0 && hit.rel >= 0))) {
		e.num_ret = 1;
		if (jx >= 0) {
			e.hits = &hit;
			e.nr_hits = 1;
		}
	}
	q = te_add_row(out, o, &st->sc, qq->qid, &e);
	for (size_t i = 0; i < out->nr_cols; i++) {
		switch (out->cols[i].kind) {
		case TK_NUM_RET: case TK_UTILITY: case TK_UNJ: case TK_RBP_RESID:
			q->v[i] = 0.0;
			break;
		case TK_RELSTRING:
			q->relstring[0] = '\0';
			break;
		default:
			break;
		}
	}
}

int te_evaluate(const struct qrels *qr, const char *run_path, const struct te_options *o,
		struct te_output *out)
{
	struct te_state st;
	struct strbuf runid = STRBUF_INIT;
	int ret;

	memset(&st, 0, sizeof(st));
	st.qr = qr;
	st.o = o;
	st.path = run_path;
	st.out = out;
	st.seen = xcalloc(qr->nr + 1, 1);
	hit_ctx_init(&st.hc);
	strbuf_init(&st.sc.relstring, 0);
	out->nr_cols = te_columns(&o->sel, &out->cols);

	/*
	 * Without -M a question's lines are evaluated piece by piece as they
	 * come (streamed, on two threads for a large plain file): when a
	 * question comes back later in the file, only the questions that did
	 * are evaluated again, in the passes of te_evaluate_scattered; when
	 * many do, the first pass is given up for te_evaluate_scattered on all.
	 * With -M (which needs every rank of a question) a run found ungrouped
	 * is given to te_evaluate_scattered whole. Standard input, which
	 * cannot be read twice, is read whole into memory instead (a streamed
	 * read of "-" collects).
	 */
	st.pieces = o->max_docs == LONG_MAX && strcmp(run_path, "-");
	{
		off_t size = 0, split = o->threads == 1 ? 0 : run_trec_split(run_path, &size);

		te_progress_pass(o);
		ret = split > 0 ? evaluate_halves(&st, split, size, &runid) : 1;
		out->threads = split > 0 && !ret ? 2 : 1;
	}
	if (ret == 1) {
		drop_rows(out);
		memset(st.seen, 0, qr->nr + 1);
		st.nr_back = 0;
		te_progress_pass(o);
		ret = run_trec_scan_mapped(run_path, st.pieces ? RUN_SCAN_PIECES : RUN_SCAN_STREAM,
					   on_group, &st, &runid);
		if (ret < 0 && st.too_scattered)
			ret = 2;
	}
	if (ret == 2 || ret == RUN_SCAN_UNSORTED) {
		/* too scattered to be read piece by piece, or ungrouped under -M */
		drop_rows(out);
		memset(st.seen, 0, qr->nr + 1);
		ret = te_evaluate_scattered(&st, NULL, &runid, &out->threads);
	} else if (!ret && st.pieces) {
		bool back = false;

		for (size_t i = 0; i < qr->nr && !back; i++)
			back = st.seen[i] == 2;
		if (back) {
			drop_rows_back(out, qr, st.seen);
			ret = te_evaluate_scattered(&st, st.seen, NULL, NULL);
		}
	}
	if (ret < 0)
		goto out;
	out->runid = strbuf_detach(&runid, NULL);
	for (size_t i = 0; i < qr->nr; i++) {
		if (o->complete)
			for (int g = 1; g < qr->q[i].nr_levels; g++)
				out->summary_num_rel += qr->q[i].levels[g];
		if (st.seen[i])
			continue;
		if (!o->complete) {
			ret = error("query '%s' of '%s' has no results in '%s' (trec_eval v10.0 "
				    "refuses this too); use -c to count it as zero",
				    qr->q[i].qid, qr->file, run_path);
			goto out;
		}
		add_stand_in(&st, &qr->q[i]);
	}
	if (!out->nr) {
		ret = error("no query of '%s' has judgments in '%s'", run_path, qr->file);
		goto out;
	}
	qsort(out->q, out->nr, sizeof(*out->q), cmp_row);
	ret = 0;
out:
	run_trec_progress(NULL, 0, 0);
	strbuf_release(&runid);
	hit_ctx_release(&st.hc);
	te_scratch_release(&st.sc);
	free(st.seen);
	return ret;
}

void te_print(const struct te_output *out, const struct te_options *o, FILE *fp)
{
	double n = (double)out->nr;

	if (o->per_query) {
		for (size_t q = 0; q < out->nr; q++) {
			for (size_t i = 0; i < out->nr_cols; i++) {
				const struct te_column *c = &out->cols[i];

				if (c->type == TE_FLOAT)
					fprintf(fp, "%-22s\t%s\t%6.4f\n", c->name, out->q[q].qid, out->q[q].v[i]);
				else if (c->type == TE_LONG)
					fprintf(fp, "%-22s\t%s\t%ld\n", c->name, out->q[q].qid, (long)out->q[q].v[i]);
				else if (c->type == TE_STRING)
					fprintf(fp, "%-22s\t%s\t'%s'\n", c->name, out->q[q].qid,
						out->q[q].relstring ? out->q[q].relstring : "");
			}
		}
	}
	if (o->no_summary)
		return;
	for (size_t i = 0; i < out->nr_cols; i++) {
		const struct te_column *c = &out->cols[i];
		double sum = 0.0;

		for (size_t q = 0; q < out->nr; q++)
			sum += out->q[q].v[i];
		if (c->kind == TK_NUM_REL && o->complete)
			sum = (double)out->summary_num_rel;
		switch (c->type) {
		case TE_FLOAT:
			fprintf(fp, "%-22s\t%s\t%6.4f\n", c->name, "all", out->nr ? sum / n : 0.0);
			break;
		case TE_LONG:
			fprintf(fp, "%-22s\t%s\t%ld\n", c->name, "all", (long)sum);
			break;
		case TE_GEO:
			fprintf(fp, "%-22s\t%s\t%6.4f\n", c->name, "all", out->nr ? exp(sum / n) : 0.0);
			break;
		case TE_COUNT_Q:
			fprintf(fp, "%-22s\t%s\t%ld\n", c->name, "all", (long)out->nr);
			break;
		case TE_RUNID:
			fprintf(fp, "%-22s\t%s\t%s\n", c->name, "all", out->runid ? out->runid : "");
			break;
		case TE_STRING:
			break;
		}
	}
}
