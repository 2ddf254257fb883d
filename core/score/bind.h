/*
 * bind: whether a run belongs to a set.
 *
 * A run written by `evalset run` records, on its JSONL meta line, the set
 * name, version, digest and questions digest (set_questions_digest: ids,
 * texts and answerability, labels excluded). A run is bound to a set when
 * the names agree and the questions digests agree, so relabelling a set
 * keeps its runs while a reworded, added or removed question does not. A
 * run recorded before the questions digest existed is bound when its set
 * digest or content digest matches. A run with no record (a TREC file, a
 * JSONL file without an evalset meta line) is accepted only when every one
 * of its question ids is in the set.
 *
 * Corpus: a run also records the corpus it was made over (the meta line's
 * "corpus": {"path", "fingerprint", "chunks"}; BM25 runs before it, only
 * params.corpus_fingerprint and params.corpus). The corpus a set was
 * labelled on is the fingerprint the set records, else the fingerprint of
 * the corpus file it names. bind_corpus compares the two and, when they
 * differ, says what changed: the documents added, removed and edited
 * (core/set/corpusdiff.h; from the two corpora, each found as its file,
 * or the set's kept copy, core/set/corpusstore.h) and the labels of the set
 * that point at chunks the run's corpus does not hold. A run or a set that
 * records no corpus cannot be told apart: nothing is checked.
 */
#ifndef EVALSET_BIND_H
#define EVALSET_BIND_H

#include <stdbool.h>

#include "base/strbuf.h"
#include "set/corpus.h"
#include "set/corpusdiff.h"

struct run;
struct set;

enum bind_verdict {
	BIND_SAME,        /* recorded for these questions */
	BIND_UNRECORDED,  /* no record; every id is in the set */
	BIND_OTHER,       /* recorded for another set or other questions, or foreign ids */
};

struct bind_record {
	char *set_name;   /* NULL when the run records none */
	char *version;    /* NULL: working copy or not recorded */
	bool has_version;
};

/*
 * Judge 'run' against 's' (named 'set_label' in messages). For BIND_OTHER,
 * append to 'why' one sentence naming both sides (no final period). Fill
 * 'rec' (may be NULL; release with bind_record_release) with what the run
 * records.
 */
enum bind_verdict bind_run(const struct run *run, const struct set *s, const char *set_label,
			   struct strbuf *why, struct bind_record *rec);
void bind_record_release(struct bind_record *rec);

enum corpus_verdict {
	CORPUS_SAME,      /* made over the corpus the set was labelled on */
	CORPUS_UNKNOWN,   /* the run or the set records no corpus */
	CORPUS_OTHER,     /* made over another corpus */
};

struct corpus_bind {
	enum corpus_verdict verdict;
	char *run_fp, *run_path;  /* what the run records (NULL: nothing) */
	char *set_fp;             /* the corpus the set was labelled on (NULL: none) */
	struct corpus run_corpus; /* the run's corpus, when found (have_run_corpus) */
	bool have_run_corpus;
	bool have_change;         /* both corpora were found: 'change' is filled */
	struct corpus_change change;
	struct absent_labels absent;  /* labels whose chunk the run's corpus lacks
				       * (filled when have_run_corpus) */
};
#define CORPUS_BIND_INIT { CORPUS_SAME, NULL, NULL, NULL, CORPUS_INIT, false, false, \
			   CORPUS_CHANGE_INIT, ABSENT_LABELS_INIT }

/*
 * Compare the corpus 'run' records with the one 's' (opened from 'set_dir')
 * was labelled on into 'out' (CORPUS_BIND_INIT). For CORPUS_OTHER, load
 * what can be found to say what changed; 'negligible' is passed to
 * corpus_change_compute. Nothing is reported: a corpus that cannot be read
 * only leaves less to say.
 */
void bind_corpus(const struct run *run, const struct set *s, const char *set_dir,
		 corpus_negligible_fn negligible, struct corpus_bind *out);
void corpus_bind_release(struct corpus_bind *b);

/*
 * Append to 'out' one sentence (no final period) saying that 'what' (a run
 * file, "baseline 'x.jsonl'") was made over another corpus than 'set_label':
 * both fingerprints, what changed in the documents (or that it cannot be
 * told) and the labels pointing at chunks no longer present.
 */
void corpus_bind_describe(const struct corpus_bind *b, const char *what, const char *set_label,
			  struct strbuf *out);

/*
 * Return the fingerprint of the corpus 's' (opened from 'set_dir') was
 * labelled on into 'out': the one it records, else that of the corpus file
 * it names. Return 1, or 0 when there is none (nothing reported).
 */
int bind_set_corpus(const struct set *s, const char *set_dir, char out[72]);

/*
 * Copy 's' into 'out' (SET_INIT) without the relevant labels listed in
 * 'absent' (and their evidence): a question left without one stays
 * answerable, so that score_set leaves it unjudged (score.h).
 */
void bind_drop_absent(const struct set *s, const struct absent_labels *absent, struct set *out);

#endif
