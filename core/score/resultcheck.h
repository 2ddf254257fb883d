/*
 * resultcheck: a saved results file checked against the set version it was
 * scored on, before anything is computed from it.
 *
 * A results file is a claim: "this run, scored against this set version,
 * gave these values". compare, power and report take a file only when the
 * claim holds together, since a file edited by hand (a value set back, a
 * question listed twice, a question dropped, an infinite value) would
 * otherwise move a gate silently. The checks:
 *  - the file is of format 2 (it records each question's judged ranks;
 *    format 1 files cannot be checked and are refused with how to redo
 *    them);
 *  - its question ids are unique and exactly the set version's questions;
 *  - text, origin, answerability and tags are taken from the set and
 *    replace the file's (they are not the file's to say);
 *  - every measure is one evalset computes, every value is finite and in
 *    the measure's range;
 *  - each question's judged documents are in ascending rank within
 *    num_ret, judged by the set's labels with the grades the labels give,
 *    its judged counts per grade are the labels', its relevant ranks and
 *    num_rel follow from them, a missing question retrieved nothing, an
 *    empty list is declined;
 *  - with a document-level measure, each question's relevant documents
 *    retrieved are in ascending rank and position, each position at most
 *    its rank, within num_ret, with grades its counts per grade hold; those
 *    counts agree with its chunks' (no more documents than relevant chunks,
 *    the same best grade), and every relevant chunk retrieved has a
 *    document of at least its grade retrieved by its rank (which document
 *    a chunk belongs to is the corpus's to say, and is not checked);
 *  - its leaks (forbidden ids retrieved) are recorded exactly for the
 *    questions the set forbids ids, in ascending rank, each matching an
 *    entry of the question's forbidden list (a chunk entry: that chunk),
 *    and agree with its top ids: every top id a chunk entry forbids is
 *    among them at its rank. A file that records no leaks at all for a set
 *    that forbids ids was written before leaks were saved: it loads, with
 *    results.leaks_absent set, and a gate with a leak rule refuses it;
 *  - every value recomputes from those ranks and labels (metrics.h: a
 *    measure depends on a ranking only through them; docrank.h: a
 *    document-level one through the documents), and the aggregates and
 *    decline shares recompute from the questions.
 * Results judged on another corpus (set.judged_on: labels carried by their
 * evidence) are checked the same way except against the set's labels: their
 * grades and counts are the carried ones, which only that corpus can tell.
 * Results of a run made over another corpus than the set's that left out
 * the labels that corpus lacks (run.labels_absent, docs/runs.md) may judge
 * fewer relevant documents than the labels, never more, and exactly
 * labels_absent fewer in all; a question they left without any is
 * unjudged: no values, in no total.
 *
 * What this cannot catch: a file whose ranks were forged together with its
 * values; a leak removed from below the top ids (the file keeps only the
 * first ids), or one of a forbidden document (doc:NAME) removed anywhere
 * (a chunk's document needs the corpus). The run digest it records is checked against the run file when
 * that file is at hand (compare-input.c).
 */
#ifndef EVALSET_RESULTCHECK_H
#define EVALSET_RESULTCHECK_H

struct results;
struct set;

/*
 * Check 'r' (loaded from r->file) against 's', the set version whose digest
 * it records ('set_label' names it in messages), and replace each question's
 * text, origin, answerability and tags with the set's. Return 0, or -1 after
 * one error naming the file, the question and the problem.
 */
int results_check(struct results *r, const struct set *s, const char *set_label);

#endif
