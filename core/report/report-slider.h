/*
 * report-slider: the k slider section of the HTML report, kept apart from
 * core/report/report.c (which calls it) because it is a small program of its own:
 * a model of each question's ranking, the numbers at the starting k, and
 * the inline script that recomputes them.
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
 * candidate. 'in->cand' must hold at least one answerable question.
 */
void report_slider_section(struct strbuf *out, const struct report_input *in, int k,
			   const char *label);

/* The page's script (no <script> tags): the slider's handlers. */
extern const char report_slider_js[];

#endif
