/*
 * report-cells: the small pieces the sections of the HTML report share, so
 * a number or a run's name reads the same in every section: four decimals,
 * a dash for a missing value, the exact value in data-value for sorting.
 *
 * The sections (report.c, report-questions.c, report-slider.c) call these;
 * these call nothing of theirs. All append to a caller-owned strbuf.
 */
#ifndef EVALSET_REPORT_CELLS_H
#define EVALSET_REPORT_CELLS_H

#include "base/strbuf.h"

struct question_result;
struct results;

/* Return the rank of the first relevant document of 'qr' (0: none, or 'qr' NULL). */
long report_first_rel(const struct question_result *qr);
/* Append 'v' with its sign and four decimals, or a dash for NAN. */
void report_signed_num(struct strbuf *out, double v);
/* Append a numeric table cell of 'v' (four decimals, a dash for NAN)
 * carrying the exact value in data-value. */
void report_td_num(struct strbuf *out, double v);
/* Return the name to show for the run of 'r': its name, else its path,
 * else its file (borrowed from 'r'). */
const char *report_run_label(const struct results *r);

#endif
