/*
 * report-questions: the per-question sections of the HTML report (find
 * versus rank, lost / gained / never found, declining and judged
 * documents). report.c calls them in page order; they borrow 'in' and
 * append to a caller-owned strbuf.
 */
#ifndef EVALSET_REPORT_QUESTIONS_H
#define EVALSET_REPORT_QUESTIONS_H

#include "base/strbuf.h"

struct report_input;

/* Append the candidate's leaking questions at 'k' (forbidden ids in the
 * top k, docs/access.md), first thing after the headline; nothing when
 * none leaks, a warning when its results record no leaks. */
void report_leaks_section(struct strbuf *out, const struct report_input *in, int k);
/* Append the find-versus-rank bars of both runs and the candidate's
 * diagnosis at context size 'k'. */
void report_find_rank_section(struct strbuf *out, const struct report_input *in, int k);
/* Append the lost and gained tables (with a comparison) and the questions
 * no run found in its top 'k'. */
void report_questions_section(struct strbuf *out, const struct report_input *in, int k);
/* Append Decline, FalseDecline, Judged@k and the unjudged count per run. */
void report_decline_section(struct strbuf *out, const struct report_input *in, int k);

#endif
