/*
 * compare-out: renders a struct compare and its gate outcomes as a terminal
 * table, JSON, Markdown (pull-request comment / $GITHUB_STEP_SUMMARY), JUnit
 * XML and GitHub Actions workflow commands. Each renderer appends to a
 * caller-owned strbuf and prints nothing; cmd/compare.c decides where the
 * text goes.
 *
 * Invariants every renderer keeps:
 *  - the verdict and every rule's line come first, then the rest; the
 *    gate lines are computed apart from the table, so they are the same
 *    whatever measures the table shows;
 *  - a comparison with set_changed says so (text header, JSON "set.changed"
 *    and "set.note", a Markdown warning line, a JUnit property and
 *    system-out, a ::warning:: command);
 *  - both seeds and the number of resamples and permutations are shown;
 *  - NAN values (rows with no questions) render as "-" / JSON null;
 *  - user strings (question text, labels, tags) are escaped for the target
 *    format (JSON by cJSON, Markdown table cells, XML, workflow commands).
 */
#ifndef EVALSET_COMPARE_OUT_H
#define EVALSET_COMPARE_OUT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"

struct compare;
struct gate;
struct gate_outcome;

struct compare_view {
	const struct compare *c;
	const char *set_label;              /* as the user named it, e.g. "demo@v1" */
	const char *set_note;               /* extra set-change note (or NULL) */
	const struct gate *gate;            /* required */
	const char *gate_source;            /* where the gate file was named ("--gate",
	                                     * "env EVALSET_GATE", ...), or NULL */
	const char *k_source;               /* where k came from ("--k", "built-in", ...), or NULL */
	const struct gate_outcome *outcomes; /* parallel to gate->rules */
	int nr_failed;
	long show;                          /* lost/gained listed (text, Markdown) */
	bool all_subsets;                   /* text: every subset, not only "all" */
	bool all_measures;                  /* text, Markdown: every measure computed, not
	                                     * the short table (JSON always has every one) */
	bool color;                         /* ANSI colour on the verdict and rule lines */
	const char *form_note;              /* the runs were asked in different query forms
	                                     * (docs/conversations.md), or NULL */
};

/* Return the one-line description of the set change, or NULL when the
 * comparison is over one set version; caller frees. */
char *compare_set_change_note(const struct compare_view *v);

/* Return the one-line verdict ("gate FAILED: 2 of 4 rules (...)"); caller frees. */
char *compare_verdict(const struct compare_view *v);

/* Return true when the text and Markdown tables show 'measure': every
 * measure with all_measures, else the short table: R@k, Success@k, nDCG@10,
 * RR, Decline, FalseDecline and the gate's measures. */
bool compare_short_measure(const struct compare_view *v, const char *measure);

void compare_render_text(const struct compare_view *v, struct strbuf *out);
/* Append the whole comparison as one JSON object (and a newline). */
void compare_render_json(const struct compare_view *v, struct strbuf *out);
void compare_render_markdown(const struct compare_view *v, struct strbuf *out);
/* One testcase per gate rule; a failure carries delta, CI and p. */
void compare_render_junit(const struct compare_view *v, struct strbuf *out);
/* "::error::" per failed rule, "::warning::" for a set change. */
void compare_render_annotations(const struct compare_view *v, struct strbuf *out);

#endif
