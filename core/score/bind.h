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
 */
#ifndef EVALSET_BIND_H
#define EVALSET_BIND_H

#include <stdbool.h>

#include "base/strbuf.h"

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

#endif
