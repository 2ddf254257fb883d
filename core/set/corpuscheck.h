/*
 * corpuscheck: finding the corpus a set names, and noticing when it is no
 * longer the corpus a set version was labelled against.
 *
 * A set's labels are chunk ids. When a corpus is re-chunked, ids can stay
 * while the text behind them moves, so labels silently point at the wrong
 * text. tag records the corpus fingerprint (a digest of the sorted (chunk id,
 * text digest) pairs: docs/design.md, "The digests") in the frozen version;
 * every command that uses a set together with its corpus calls
 * set_corpus_load (or set_corpus_verify) to warn when the fingerprint
 * differs. It is a warning,
 * not an error: a corpus that only gained chunks is still usable.
 */
#ifndef EVALSET_CORPUSCHECK_H
#define EVALSET_CORPUSCHECK_H

struct set;
struct corpus;

/*
 * Return the path of the corpus 's' names, resolved against the set
 * directory 'set_dir' unless it is absolute, or NULL when the set names
 * none. Corpus paths are relative to the set directory in the working copy
 * and in frozen versions alike (docs/versions.md). Caller frees.
 */
char *set_corpus_path(const struct set *s, const char *set_dir);

/*
 * Compare the fingerprint of the loaded corpus 'c' with the one 's' records
 * (a frozen version records the fingerprint it was tagged against). When
 * they differ, warn "corpus 'P' has fingerprint A but set version V was
 * tagged against B: labels may point at re-chunked text" and return 1;
 * return 0 when they match or 's' records none.
 */
int set_corpus_verify(const struct set *s, const struct corpus *c);

/*
 * Load the corpus 's' names (relative to 'set_dir'; failing that, for sets
 * written with a path relative to the working directory, the path as
 * written) into 'c' (CORPUS_INIT) and run set_corpus_verify. Return 1 when
 * loaded; 0 when the set names no corpus, or names one that does not exist
 * (with a warning); -1 when it exists but cannot be loaded (reported).
 */
int set_corpus_load(const struct set *s, const char *set_dir, struct corpus *c);

/*
 * Load the corpus a command works with into 'c' (CORPUS_INIT): 'path' when
 * given (the user's --corpus) and run set_corpus_verify, else the one 's'
 * names (set_corpus_load). Return 1 when loaded; 0 when 'path' is NULL and
 * the set names no corpus that exists; -1 when it cannot be loaded
 * (reported).
 */
int set_corpus_open(const struct set *s, const char *set_dir, const char *path, struct corpus *c);

#endif
