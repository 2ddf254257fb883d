/*
 * compare-input: turns a command-line <baseline> / <candidate> / <results>
 * argument into a struct results for compare, power and report: a saved results file
 * (core/score/results.h) is loaded; any other file is read as a run (core/score/run.h)
 * and scored against the set (core/score/score.h) with score's default measures
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

#include "base/strbuf.h"

struct results;
struct run;
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

/*
 * Read 'path' as the results of 'what' on 'set' without the set check of
 * compare_input_load: a saved results file is loaded as is, any other file
 * is read as a run and scored like compare_input_load does. When 'run' is
 * not NULL (run_init'ed; the caller releases it either way) it keeps the
 * run that was scored. Return 1 for a run, 0 for saved results, or -1 with
 * an error.
 */
int compare_input_read(struct results *r, const struct set *set, const char *path,
		       const char *what, const struct compare_input_opts *o, struct run *run);

/*
 * Return the name under which 'r' holds the measure 'name' of a gate rule:
 * 'name' itself, or its alias (Hit@k and Success@k are one measure) written
 * into 'buf' when only the alias is in 'r'.
 */
const char *compare_input_measure(const struct results *r, const char *name, char buf[64]);

#endif
