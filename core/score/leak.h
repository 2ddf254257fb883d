/*
 * leak: forbidden chunks a run retrieved (docs/access.md).
 *
 * A question leaks at k when one of the first k ids of its ranking is a
 * chunk its 'forbidden' list names, or a chunk of a document it names as
 * doc:NAME (the chunk's document: the corpus's "doc" field, else the
 * chunker's id form, set.h chunk_id_doc_len), or a chunk a set-wide rule
 * selects (set.h set_forbids: then every question forbids). Leak@k is the share of the
 * questions with a forbidden list (answerable or not) that leak at k; per
 * question it is 0 or 1. A question absent from the run leaks nothing.
 *
 * Ownership: struct leak_report owns its questions and their ids.
 */
#ifndef EVALSET_LEAK_H
#define EVALSET_LEAK_H

#include <stdbool.h>
#include <stddef.h>

struct set;
struct run;
struct corpus;
struct results;

struct leak_hit {
	long rank;           /* 1-based */
	char *chunk;         /* the id retrieved */
	char *entry;         /* the forbidden entry it matches (chunk id or doc:NAME) */
};

struct leak_question {
	char *id;
	struct leak_hit *hits;  /* ascending rank, within the first k */
	size_t nr, alloc;
};

struct leak_report {
	long k;
	size_t nr_forbidding;          /* questions with a forbidden list */
	struct leak_question *q;       /* the leaking ones, in set order */
	size_t nr, alloc;
};

/* Find the leaks of 'run' against 's' within the first 'k' ids ('corpus',
 * may be NULL, gives chunks their documents) into 'out' (zeroed). */
void leak_find(const struct set *s, const struct corpus *corpus, const struct run *run,
	       long k, struct leak_report *out);
/* Leak@k of 'r': leaking / forbidding questions (0 when none forbids). */
double leak_value(const struct leak_report *r);
void leak_report_release(struct leak_report *r);

/* Return true when a forbidden entry of 's' names a document (doc:NAME) or a
 * set-wide rule needs the corpus, so that finding leaks needs the corpus's
 * documents (and set_forbid_ready says whether they can be found). */
bool leak_needs_corpus(const struct set *s);
/*
 * Record in 'r' (scored from 'run' against 's') the leaks of every question
 * with a forbidden list over its whole ranking (results.h "leaks"), with
 * 'corpus' (may be NULL) giving chunks their documents. Questions of 's'
 * that 'r' lacks are skipped.
 */
void leak_record(const struct set *s, const struct corpus *corpus, const struct run *run,
		 struct results *r);

#endif
