/*
 * corpuslint: chunks of a corpus a retriever would choke on, as check
 * findings at the corpus file's line (docs/formats/corpus.md, "What check
 * says about a corpus", is the user's contract):
 *  - empty: no token at all (only white space or punctuation): nothing to
 *    find it by; an error when a question labels it relevant;
 *  - huge: more than 'max_tokens' tokens (text_each_token);
 *  - mostly markup: at least LINT_MARKUP_SHARE of its non-space bytes are
 *    HTML tags, comments or entities, or Markdown syntax (link and image
 *    targets, table pipes and rules, fences, heading marks, "{ #anchor }"),
 *    with at least 8 such bytes;
 *  - duplicated: the same text after normalisation (text_normalize) under
 *    other ids, or a near duplicate (Jaccard of content words at or above
 *    TEXT_NEAR_DUP_THRESHOLD, both chunks with at least
 *    LINT_NEAR_MIN_WORDS content words), leaving out chunks of one document
 *    whose spans overlap (the windows of a chunking with overlap).
 * Each kind lists at most LINT_MAX_LISTED findings, then one that counts
 * the rest. A duplicate labelled relevant for a question whose other copy
 * is not labelled says so: a retriever returning that copy scores a miss.
 */
#ifndef EVALSET_CORPUSLINT_H
#define EVALSET_CORPUSLINT_H

#include <stddef.h>

struct corpus;
struct set;
struct findings;

#define LINT_DEFAULT_MAX_TOKENS 1024
#define LINT_MAX_LISTED 20
#define LINT_NEAR_MIN_WORDS 5
#define LINT_MARKUP_SHARE 0.6

/* Return the share (0..1) of the non-space bytes of 's' that are markup,
 * and the number of markup bytes in '*markup' (may be NULL). */
double lint_markup_share(const char *s, size_t len, size_t *markup);

/*
 * Append to 'out' the findings about the chunks of 'c' (read from c->path):
 * huge means more than 'max_tokens' tokens (0: not checked). 's' (may be
 * NULL) names the labels that make a finding worse.
 */
void corpus_lint(const struct corpus *c, const struct set *s, size_t max_tokens,
		 struct findings *out);

#endif
