/*
 * compare-input: turns a command-line BASELINE / CANDIDATE / RESULTS argument
 * into a struct results for compare and power: a saved results file
 * (core/results.h) is loaded; any other file is read as a run (core/run.h)
 * and scored against the set (core/score.h) with score's default measures
 * plus the ones the caller names.
 *
 * Invariant: a results whose set digest differs from the set version named
 * on the command line is refused (naming both versions), unless the caller
 * allows set changes; then one line per such input is appended to 'note',
 * which the caller shows on every output.
 */
#ifndef EVALSET_COMPARE_INPUT_H
#define EVALSET_COMPARE_INPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "strbuf.h"

struct results;
struct set;

struct compare_input_opts {
	bool allow_set_change;
	int k;                          /* context size when scoring a run */
	const char *const *measures;    /* also scored for a run ("Decline" ignored) */
	size_t nr_measures;
};

/*
 * Load 'path' as the results of 'what' ("baseline", "candidate", ...) on
 * 'set' (opened from 'set_arg'). 'r' is initialised by results_init; the
 * caller releases it either way. Return 0, or -1 with an error.
 */
int compare_input_load(struct results *r, const struct set *set, const char *set_arg,
		       const char *path, const char *what,
		       const struct compare_input_opts *o, struct strbuf *note);

#endif
