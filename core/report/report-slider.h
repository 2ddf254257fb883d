/*
 * report-slider: the k slider section of the HTML report, kept apart from
 * core/report/report.c (which calls it) because it is a small program of its own:
 * a model of each question's ranking, the numbers at the starting k, and
 * the data the page's script (core/report/report.js) recomputes them from.
 *
 * Ownership: borrows everything; appends to a caller-owned strbuf.
 */
#ifndef EVALSET_REPORT_SLIDER_H
#define EVALSET_REPORT_SLIDER_H

#include "base/strbuf.h"

struct report_input;

/*
 * Append the slider section for the answerable questions of 'in->cand',
 * starting at cutoff 'k' (1..REPORT_SLIDER_MAX); 'label' names the
 * candidate. 'in->cand' must hold at least one answerable question. Then
 * the page's data block (<script type="application/json" id="report-data">),
 * which the slider and the question table (report_questions_section) read:
 * one row per answerable question of the candidate, its ranking to depth
 * REPORT_SLIDER_MAX and grades, its subsets, what became of it at 'k', its
 * first relevant rank in each run, its first relevant chunk and each run's
 * top chunk (with the start of their text, from 'in->corpus', for the
 * questions lost, gained or never found).
 */
void report_slider_section(struct strbuf *out, const struct report_input *in, int k,
			   const char *label);


#endif
