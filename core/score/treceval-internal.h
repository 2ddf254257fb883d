/*
 * treceval-internal: what the files of the treceval module share. The
 * public contract is treceval.h. Calls go one way, top first:
 *
 *   treceval.c            the driver: te_evaluate (streamed, two halves on
 *                         two threads, pieces met again), the -c stand-in,
 *                         te_print
 *     treceval-scatter.c    runs whose questions are not grouped: one
 *                           streaming pass of 16 bytes a line (two
 *                           threads for a large plain file)
 *       treceval-settle.c     each question after that pass, and the
 *                             passes that read the run again (both share
 *                             treceval-scatter.h)
 *       treceval-row.c        one query's row of values from its judged hits
 *         treceval-measures.c, treceval-names.c
 *
 * A stage never calls the driver or a stage above it.
 */
#ifndef EVALSET_TRECEVAL_INTERNAL_H
#define EVALSET_TRECEVAL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"
#include "score/qrels.h"
#include "score/score.h"
#include "score/treceval.h"

/* Scratch space reused from one query to the next (owns its buffers). */
struct te_scratch {
	int *rel;
	size_t alloc;
	struct strbuf relstring;
};

/* One evaluation in progress (one per thread when the halves run apart). */
struct te_state {
	const struct qrels *qr;
	const struct te_options *o;
	const char *path;
	struct te_output *out;
	struct hit_ctx hc;
	struct te_scratch sc;
	unsigned char *seen;   /* per qrels query: 0 not met, 1 evaluated, 2 met again */
	bool pieces;           /* a question may come back (no -M): see te_evaluate */
	size_t nr_back;        /* pieces of questions met before */
	bool too_scattered;    /* so many that the optimistic pass was given up */
};

/*
 * Append to 'out' the row of query 'qid' from its judged hits 'e': every
 * column of 'out->cols' computed with the options 'o'. Return the row.
 */
struct te_query *te_add_row(struct te_output *out, const struct te_options *o,
			    struct te_scratch *sc, const char *qid, const struct query_eval *e);
void te_scratch_release(struct te_scratch *sc);

/*
 * Call fn(a) here and fn(b) on a second thread (or here after, when no
 * thread can be made), and wait for both. With 'mute', errors and warnings
 * are dropped meanwhile: work tried on two threads is done again on one
 * to report its failure at the right place.
 */
void te_run_pair(void *(*fn)(void *), void *a, void *b, bool mute);

/*
 * Start another pass over the run for the progress of 'o' (none: nothing
 * to do): the bytes read count from 0 again, on this thread's lane 0.
 */
void te_progress_pass(const struct te_options *o);

/*
 * Evaluate the run 'st->path', whatever the order of its lines, in one
 * streaming pass (rarely two or three): every query of the qrels, or with
 * 'only' those marked 2 there; rows go to 'st->out' and 'st->seen' marks
 * them 1 (with -M too). The run must be a file: it is read again when a
 * question needs it (rarely). 'runid', when not NULL, receives the tag of
 * the last line; 'threads', when not NULL, the number of threads the pass
 * read the run on (1 or 2, as st->o->threads allows). Return 0 or -1
 * (reported).
 */
int te_evaluate_scattered(struct te_state *st, const unsigned char *only, struct strbuf *runid,
			  int *threads);

#endif
