/*
 * importset: put the query groups of a log import into a set (docs/import.md).
 *
 * Order of decisions, each query group in turn (most frequent first):
 * near-duplicate of a question already in the set or of a group taken
 * before (text_near_duplicate at TEXT_NEAR_DUP_THRESHOLD) -> duplicate;
 * no label -> unlabelled (for hand labelling); else a candidate. Labels on
 * chunks the set's corpus does not hold are dropped (a group left without
 * labels becomes unlabelled). With a sample size, candidates are sampled
 * stratified by frequency (core/logs/sample.h); the rest are "not sampled".
 * Added questions get the next q-NNNN ids, origin mined and a provenance
 * map (docs/import.md). With replace_synthetic, synthetic questions whose
 * relevant chunks are all relevant to some mined question are removed.
 *
 * Ownership: struct import_outcome owns its arrays and strings.
 */
#ifndef EVALSET_IMPORTSET_H
#define EVALSET_IMPORTSET_H

#include <stdbool.h>
#include <stdint.h>

#include "logs/logimport.h"
#include "logs/sample.h"
#include "set/set.h"
#include "base/strbuf.h"

struct corpus;

struct import_apply_options {
	bool replace_synthetic;
	bool have_sample;
	long sample;                  /* candidates to keep */
	uint64_t seed;
	const struct corpus *corpus;  /* may be NULL */
	long floor;                   /* highest question number ever used */
};

enum import_status { IMPORT_ADDED, IMPORT_DUPLICATE, IMPORT_UNLABELLED, IMPORT_NOT_SAMPLED };

struct import_retired {
	char *id, *text;
	char *covered_by;   /* ids of mined questions covering its chunks, comma-separated */
};

struct import_outcome {
	enum import_status *status;   /* per query group of the import */
	enum stratum *stratum;        /* per query group */
	char **dup_of;                /* per group: id (set) or text (log) it duplicates */
	char **ids;                   /* per group: the id given when added */
	unsigned long added, duplicates, unlabelled, not_sampled, candidates;
	unsigned long dropped_labels; /* labels on chunks missing from the corpus */
	unsigned long long_labels;    /* labels on ids longer than a set holds */
	unsigned long added_by_stratum[NR_STRATA];
	struct import_retired *retired;
	size_t nr_retired, alloc_retired;
	long floor;                   /* highest question number used after the import */
	size_t nr;
};

/*
 * Apply the labelled import 'im' (after import_label) to 's' as described
 * above, filling 'out'. Return 0 (nothing here can fail on valid input).
 */
int import_apply(struct import *im, struct set *s, const struct import_apply_options *o,
		 struct import_outcome *out);
void import_outcome_release(struct import_outcome *out);

/* Append one JSON object per line for each unlabelled group to 'sb':
 * {"query", "count", "sessions", "first_seen", "last_seen", "docs": {...}}. */
void import_unlabelled_jsonl(const struct import *im, const struct import_outcome *out,
			     struct strbuf *sb);

#endif
