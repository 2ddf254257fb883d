/*
 * logconv: query logs read as conversations (import --conversations,
 * docs/conversations.md "Import").
 *
 * The records of one session are one conversation, in time order (records
 * without a time, or at the same time, in the order of the logs); the
 * records of a session without a time are in log order. Consecutive
 * records of a session with the same query text (once redacted) are one
 * turn, their events together: a log with one record per click repeats the
 * query. A record without a session is a conversation of its own.
 *
 * Each turn with a positive event (a click of unknown dwell or at least
 * min_dwell seconds, a citation, a positive rating: docs/import.md,
 * "Signals and labels") becomes a question: its query is the text, the
 * session's earlier turns its history (user turns: a log holds no answers),
 * and the documents with a positive event its relevant chunks (grade 1; one
 * session is one person, so min_clicks does not apply). Turns without one
 * stay in the history of later turns. The conversation id is "s-" and the
 * first 12 hex digits of the SHA-256 of the session value, so the session
 * (often a user id) is not written into the set.
 *
 * Personal data: every query is redacted as import redacts queries; with
 * PII_DROP a session holding one is dropped whole (a history with a hole
 * would mislead).
 *
 * Ownership: struct logconv owns everything it holds; logconv_release.
 */
#ifndef EVALSET_LOGCONV_H
#define EVALSET_LOGCONV_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strmap.h"
#include "logs/logimport.h"
#include "set/set.h"

struct corpus;

struct logconv_record {
	char *text;         /* the redacted query */
	char **docs;        /* documents with a positive event */
	size_t nr_docs, alloc_docs;
	double time;
	bool dated;
	unsigned long order;  /* place in the logs */
};

struct logconv_session {
	char *key;          /* the session value; NULL for a record without one */
	struct logconv_record *r;
	size_t nr, alloc;
	bool dropped;       /* PII_DROP and a query held personal data */
};

struct logconv {
	const struct import_options *o;  /* borrowed */
	struct strmap index;             /* session value -> index + 1 */
	struct logconv_session *s;
	size_t nr, alloc;
	unsigned long order;
	/* what was read */
	unsigned long records, malformed, missing_query, outside, pii_redacted, pii_sessions_dropped;
	/* what logconv_apply did */
	unsigned long conversations, turns, added, unlabelled_turns, dropped_labels;
	unsigned long already;   /* turns the set holds already (same conversation and turn) */
};

void logconv_init(struct logconv *lc, const struct import_options *o);
void logconv_release(struct logconv *lc);
/*
 * Read the log 'path' into 'lc'. Return 0, or -1 (reported): the log cannot
 * be read, or a record names documents with no signal field and no
 * assume_click (as import refuses it).
 */
int logconv_read(struct logconv *lc, const char *path);
/*
 * Append to 's' one question per turn with a positive event (above) that
 * 's' does not hold yet (a question of the same conversation id and turn,
 * or for a record without a session one of the same text outside any
 * conversation: the log imported before), ids
 * the next q-NNNN above '*floor' (updated), origin mined; labels on chunks
 * 'corpus' (may be NULL) lacks are dropped and counted. Return the number
 * of questions added.
 */
size_t logconv_apply(struct logconv *lc, struct set *s, const struct corpus *corpus, long *floor);

#endif
