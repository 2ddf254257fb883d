/*
 * corpusstore: a copy of each corpus a set was labelled against, kept in the
 * set's cache folder, so that the corpus a version's labels refer to can be
 * read again after its file was re-chunked in place (docs/runs.md, "The
 * corpus a run was made over").
 *
 * A copy is the corpus as JSONL (id, doc, start, end, title, text, in the
 * corpus's order), gzip-compressed, at
 * <set dir>/.evalset/corpora/<64 hex digits of its fingerprint>.jsonl.gz.
 * It is written by the commands that record a corpus fingerprint in the set
 * (init --corpus, tag, remap), never read on trust: corpus_store_get loads
 * a copy only when it gives back the fingerprint it is named by. The folder
 * is a cache (git-ignored, like the rest of .evalset/): a copy that cannot
 * be written, or that is missing, only means a later command cannot say
 * what changed in the corpus.
 */
#ifndef EVALSET_CORPUSSTORE_H
#define EVALSET_CORPUSSTORE_H

struct corpus;

/* Keep a copy of 'c' (fingerprint 'fp', "sha256:<hex>") for the set in
 * 'set_dir', unless one is there. Quiet: a copy that cannot be written is
 * no error. */
void corpus_store_put(const char *set_dir, const struct corpus *c, const char *fp);

/*
 * Load the copy of the corpus with fingerprint 'fp' kept for the set in
 * 'set_dir' into 'out' (CORPUS_INIT). Return 1 when found and its
 * fingerprint is 'fp', else 0 (nothing reported, 'out' left empty).
 */
int corpus_store_get(const char *set_dir, const char *fp, struct corpus *out);

/*
 * Load the corpus file 'path' into 'out' (CORPUS_INIT) when it exists, can
 * be read and, unless 'fp' is NULL, has fingerprint 'fp'. Return 1, or 0
 * (nothing reported, 'out' left empty).
 */
int corpus_load_if(const char *path, const char *fp, struct corpus *out);

struct set;

enum labelled_from {
	LABELLED_NONE,      /* the set names no corpus, or its file is missing and no copy is kept */
	LABELLED_FILE,      /* the file the set names: the corpus it records, or it records none */
	LABELLED_COPY,      /* the file changed since; the kept copy of the one the set records */
	LABELLED_CHANGED,   /* the file changed since and no copy is kept: the file as it is */
};

/*
 * Load into 'c' (CORPUS_INIT) the corpus the labels of 's' (opened from
 * 'set_dir') refer to: the file the set names when it still has the
 * fingerprint the set records, else the copy kept of that corpus, else
 * the file as it is. Say on stderr which when it is not the file
 * (LABELLED_COPY: a note; LABELLED_CHANGED: a warning that labels may
 * point at re-chunked text). Return the enum value, or -1 when the file
 * exists but cannot be read (reported).
 */
int set_corpus_load_labelled(const struct set *s, const char *set_dir, struct corpus *c);

#endif
