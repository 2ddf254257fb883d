/*
 * compare-input: the one place where compare, power and report turn a
 * command-line <baseline> / <candidate> / <results> argument into a struct
 * results: a saved results file (core/score/results.h) is loaded; any other
 * file is read as a run (core/score/run.h), checked against the set it is
 * compared on (core/score/bind.h) and scored against it
 * (core/score/score.h) with score's default measures plus the ones the
 * caller names.
 *
 * Binding (refused with an error naming both sides unless the caller
 * allows set changes):
 *  - a results file must carry the digest of the set version named on the
 *    command line (its values were computed with that version's labels),
 *    and hold together against it (resultcheck.h); when the run it records
 *    is at hand, that file must still have the digest recorded;
 *  - a run must be bound to the set (bind.h); a run with no record is
 *    accepted, with a warning, when its ids are all in the set and every
 *    version of the set asks the same questions (else it cannot be told
 *    which version it answered, and it is refused unless the caller allows
 *    unrecorded runs).
 * A run or results recorded for another set (another name) is refused even
 * when set changes are allowed: they bridge versions of one set.
 * With set changes allowed, one line per such input is appended to 'note'
 * (every output shows it); a run made for other questions is scored on the
 * set named, and the questions whose text, answerability or history differ from the
 * version the run records are marked stale (compare leaves them out); when
 * that version cannot be loaded the run is refused.
 *
 * Corpus (core/score/bind.h): a run made over another corpus than the one
 * the set was labelled on, or results of such a run, are refused with an
 * error naming both fingerprints and what changed, unless the comparison
 * declares it: 'corpus' (the run was made over that chunking; its record
 * must then name that corpus) or 'allow_corpus_change' (scored against the
 * set's labels, those pointing at chunks the run's corpus lacks left out,
 * a question left with none unjudged; a note in every output).
 */
#ifndef EVALSET_COMPARE_INPUT_H
#define EVALSET_COMPARE_INPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"
#include "score/run.h"

struct results;
struct run;
struct set;
struct set_ref;

struct compare_input_opts {
	bool allow_set_change;
	bool allow_unrecorded;          /* take a run that records no set even when the set's
					 * versions ask different questions */
	int k;                          /* context size when scoring a run */
	const char *const *measures;    /* also scored for a run ("Decline" ignored) */
	size_t nr_measures;
	const char *corpus;             /* a run was made on this chunking of the set's
					 * documents: judged on it (remap_judge_set), or NULL */
	enum run_rank rank;             /* how a JSONL run is ranked (run.h) */
	bool allow_corpus_change;       /* accept a run over another corpus (see above) */
	const char *corpus_option;      /* the option that declares a corpus for this
					 * input ("--baseline-corpus"), NULL when none */
};

/*
 * Load 'path' as the results of 'what' ("baseline", "candidate", ...) on
 * 'set' (opened from 'set_arg', resolved as 'ref'). 'r' is initialised by
 * results_init; the caller releases it either way. When 'run' is not NULL
 * (run_init'ed; the caller releases it) it keeps the run that was scored.
 * Return 1 for a run, 0 for saved results, or -1 with an error.
 */
int compare_input_load(struct results *r, const struct set *set, const struct set_ref *ref,
		       const char *set_arg, const char *path, const char *what,
		       const struct compare_input_opts *o, struct strbuf *note, struct run *run);

/*
 * Refuse one run given twice, told by the run digest each input records
 * (a run's file, or the run saved results were scored from): twice on one
 * side (it would count twice), on both sides when a side has several runs
 * (a baseline run among the candidate's halves every change), or a
 * candidate scored from the baseline's own run file (same path and
 * digest). One run on each side with the same bytes at two paths is a
 * retriever that did not change: taken, with a line in 'note'. 'b' and 'c'
 * are the loaded inputs of each side, 'bfiles' and 'cfiles' their names.
 * Return 0, or -1 with an error naming both.
 */
int compare_inputs_distinct(const struct results *b, const char *const *bfiles, size_t nb,
			    const struct results *c, const char *const *cfiles, size_t nc,
			    struct strbuf *note);

/*
 * Return the name under which 'r' holds the measure 'name' of a gate rule:
 * 'name' itself, or its alias (Hit@k and Success@k are one measure) written
 * into 'buf' when only the alias is in 'r'.
 */
const char *compare_input_measure(const struct results *r, const char *name, char buf[64]);

#endif
