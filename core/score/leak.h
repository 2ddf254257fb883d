/*
 * leak: forbidden chunks a run retrieved (docs/access.md).
 *
 * A question leaks at k when one of the first k ids of its ranking is a
 * chunk its 'forbidden' list names, or a chunk of a document it names as
 * doc:NAME (the chunk's document: the corpus's "doc" field, else the
 * chunker's id form, set.h chunk_id_doc_len). Leak@k is the share of the
 * questions with a forbidden list (answerable or not) that leak at k; per
 * question it is 0 or 1. A question absent from the run leaks nothing.
 *
 * Ownership: struct leak_report owns its questions and their ids.
 */
#ifndef EVALSET_LEAK_H
#define EVALSET_LEAK_H

#include <stddef.h>

struct set;
struct run;
struct corpus;

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

#endif
