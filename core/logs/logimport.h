/*
 * logimport: turn query logs into labelled query groups (evalset import,
 * docs/import.md).
 *
 * Records are read with logread and folded into one group per normalised
 * query (text_normalize_query after PII redaction). Memory grows with the
 * distinct query forms, the documents per query and a bounded sketch of
 * sessions per query (core/text/sketch.h: exact up to IMPORT_SESSION_SKETCH
 * sessions, estimated past that with about 3% standard error), never with
 * the number of log lines.
 *
 * Reading is two-stage. Per record the work is a few hash probes into a
 * reader's own tables: the raw query bytes find their tally, document ids
 * are interned to small integers. No text is normalised while reading.
 * After the file, each distinct raw form is redacted, normalised and given
 * its group once, and its tally is added into the group's: sums, minima,
 * maxima and sketch unions, which do not depend on the order of records,
 * so a file read by two threads gives exactly what one reader gives.
 *
 * Signals (docs/import.md has the table): a record naming documents is an
 * event on each of them. Its kind comes from the signal field: "click",
 * "cite"/"citation"/"cited",
 * positive ratings ("thumbs_up", "up", "like", "positive", "+1", "rating:N"
 * or a number N > 0, true), negative ratings (N < 0, "thumbs_down", "down",
 * "dislike", "negative", false); other values (impressions...) are counted
 * and ignored. A record naming documents without a signal field is a
 * click when it has a dwell (or end) field or opt.assume_click is set;
 * otherwise the import refuses the log (import_read fails): a trace of
 * what a system retrieved is no evidence that anyone used it. A click
 * whose dwell is known (the dwell field, or the end field minus the time
 * field, in seconds) and below min_dwell is a short click. Positive events: clicks that are not short, citations, positive
 * ratings.
 *
 * Labels: a document is relevant to a query when its positive events come
 * from at least min_clicks distinct sessions; grade 2 when it holds at least
 * half of the query's positive events, else grade 1. A record without a
 * session counts as a session of its own.
 *
 * Ownership: struct import owns every string it points to; import_release
 * frees all of it.
 */
#ifndef EVALSET_LOGIMPORT_H
#define EVALSET_LOGIMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "logs/logfield.h"
#include "logs/logread.h"
#include "base/mempool.h"
#include "text/pii.h"
#include "logs/sample.h"
#include "text/neardup.h"
#include "text/sketch.h"
#include "base/strmap.h"

#define IMPORT_SESSION_SKETCH 1024 /* exact distinct-session counts below this */
#define IMPORT_DOC_SKETCH 64       /* per document; also the largest min_clicks */
#define IMPORT_KEEP_LINES 5        /* malformed line numbers kept for the summary */
#define IMPORT_MAX_ROW_COUNT 1000000000  /* the largest count of a pre-aggregated row */

enum import_field {
	FIELD_QUERY, FIELD_DOC, FIELD_SIGNAL, FIELD_SESSION, FIELD_TIME, FIELD_DWELL, FIELD_END,
	/* pre-aggregated rows: read only when mapped (import_options.field) */
	FIELD_COUNT, FIELD_SESSIONS, FIELD_LAST,
	/* traces: read only when mapped; doc, signal, dwell, end are read in each event */
	FIELD_EVENT,
	IMPORT_NR_FIELDS
};
/* Return the name of field 'f' ("query", "doc", ...). */
const char *import_field_name(enum import_field f);
/* Return the field called 'name', or -1. */
int import_field_parse(const char *name);

enum pii_mode { PII_REDACT, PII_DROP };

struct progress;

struct import_options {
	/*
	 * Paths; NULL: the field's own name, except count, sessions and last,
	 * which are read only when given. With count, each record is a
	 * pre-aggregated row standing for that many records of its query, docs
	 * and signal: sessions lists their distinct sessions (without it the
	 * session field is the session of all of them, else each is a session
	 * of its own), time is the earliest and last the latest time.
	 */
	const char *field[IMPORT_NR_FIELDS];
	enum log_format format;
	long min_clicks;        /* default 2 */
	double min_dwell;       /* seconds, default 30 */
	enum pii_mode pii;
	const struct pii_patterns *pii_patterns;  /* user patterns (borrowed), or NULL */
	long min_count;         /* default 1 */
	bool have_since, have_until;
	double since, until;    /* epoch seconds; since <= t < until */
	long long split_min;    /* read logs this large with two threads (default 16 MiB) */
	long long split_round;  /* bytes each reader reads between exchanges (0: 2 MiB) */
	bool assume_click;      /* a record naming documents without a signal is a click */
	struct progress *progress;  /* NULL, or told of the bytes read (import_read's 'base' on) */
	double progress_base;   /* bytes of earlier files, added to this file's */
};
void import_options_init(struct import_options *o);

struct import_doc {
	const char *id;          /* interned in struct import */
	uint32_t key;            /* the id's number in struct import */
	int grade;               /* set by import_label: 0 not relevant */
	uint32_t positive, negative, short_clicks;
	uint32_t clicks, cites, ratings;  /* positive events by kind */
	struct sketch sessions;  /* sessions with a positive event */
};

/* Return the id of 'd' (owned by the struct import 'd' belongs to). */
static inline const char *import_doc_id(const struct import_doc *d)
{
	return d->id;
}

/*
 * What the records of a query add up to: for a raw form while reading, for
 * a group after. Its arrays and sketches live in the pools of struct import.
 */
struct import_tally {
	/* what every record touches comes first */
	unsigned long count, positive, negative, short_clicks, other;
	struct sketch sessions;
	struct import_doc *docs;
	uint32_t *dkeys;         /* the key of each of docs, side by side for the scan */
	size_t nr_docs, alloc_docs;
	uint32_t *dtab;          /* index + 1 of docs by document key, once there are many */
	size_t dcap;
	double first, last;      /* epoch seconds, when 'dated' */
	bool dated;
};

struct import_query {
	struct import_tally t;   /* docs sorted by id after import_label */
	char *key;               /* normalised form */
	const char *text;        /* most frequent original (redacted) form (import_label) */
	unsigned long text_count;
	size_t nr_labels;        /* set by import_label */
	size_t order;            /* order of first appearance */
	struct dd_text dd;       /* prepared for the near-duplicate filter */
};

struct import_stats {
	unsigned long records;          /* records read (incl. skipped) */
	unsigned long malformed;        /* unparseable, too long, ragged, invalid UTF-8 */
	char *malformed_at[IMPORT_KEEP_LINES];  /* "FILE:LINE" of the first few */
	size_t nr_malformed_at;
	unsigned long missing_query;    /* records without the query field */
	char *missing_at[IMPORT_KEEP_LINES];
	size_t nr_missing_at;
	unsigned long empty_query;      /* query empty after normalisation */
	unsigned long undated, outside; /* --since/--until */
	unsigned long used;             /* records that counted for a query */
	unsigned long pii_records;      /* records whose query held PII */
	unsigned long pii_dropped;      /* records dropped for PII (--pii drop) */
	unsigned long pii_dropped_queries;  /* distinct query forms dropped (import_label) */
	struct pii_counts pii;          /* spans by kind, over distinct forms */
	unsigned long positive, negative, short_clicks, other_signals;
	unsigned long field_seen[IMPORT_NR_FIELDS];  /* records holding the field */
	unsigned long below_min_count;  /* queries dropped by min_count (import_label) */
	unsigned long too_long;         /* queries longer than a set holds (import_label) */
	unsigned long labelled, unlabelled;
};

struct import_log {
	char *path;
	char digest[72];
	bool gzip;
	enum log_format format;
	unsigned long records;
	int readers;             /* 1, or 2 when read from both halves at once */
};

struct import_arena;

/*
 * An open-addressing table of pointers by 64-bit hash, at most half full;
 * each slot holds the hash beside the pointer, so a probe touches one slot
 * and, on a match, one record. The caller compares records itself.
 */
struct import_hslot {
	uint64_t hash;
	void *p;                     /* NULL: empty */
};
struct import_htab {
	struct import_hslot *slot;
	size_t cap, nr;
};

/* Document ids interned to small numbers (keys), in an arena. */
struct import_doc_name {
	const char *id;              /* in the arena */
	uint64_t hash;
	size_t len;
	char inl[24];                /* a copy of a shorter id: compared without a pointer to chase */
};
struct import_docs {
	struct import_doc_name *names;  /* by key */
	size_t nr, alloc;
	uint32_t *tab;               /* key + 1 by id hash, open addressing */
	size_t cap;
};

/*
 * Half of the import's tables, by the top bit of a hash, so that two threads
 * can fill them at once: raw forms by the hash of their bytes, redacted
 * forms and groups by the strhash of their texts.
 */
struct import_shard {
	struct import_arena *arena;  /* its raw forms */
	struct import_htab raws;     /* distinct raw queries (struct raw) */
	struct strmap forms;         /* redacted text -> struct form * */
	struct strmap groups;        /* normalised key -> index + 1 */
};

struct import {
	struct import_options opt;
	struct import_arena *arena;  /* document ids */
	struct import_shard shard[2];
	struct form **form_list;     /* forms in order of first appearance */
	size_t nr_forms, alloc_forms;
	struct import_docs docs;
	struct mempool *pools;       /* the memory of every tally, given back at once */
	size_t nr_pools, alloc_pools;
	struct import_query *q;
	size_t nr, alloc;
	struct import_log *logs;
	size_t nr_logs, alloc_logs;
	struct import_stats st;
};

void import_init(struct import *im, const struct import_options *opt);
void import_release(struct import *im);
/*
 * import_release in three parts for two threads. import_release_early frees
 * what reading, import_label and import_apply needed but the queries'
 * output does not (the near-duplicate forms and keys of the queries, the
 * tables of raw and redacted forms); import_release_tallies frees the
 * queries' texts, tallies and documents, once nothing reads them (after
 * import_unlabelled_jsonl). The two touch different memory and may run at
 * once on two threads; import_release frees the rest (and whatever of the
 * two was not done).
 */
void import_release_early(struct import *im);
void import_release_tallies(struct import *im);

/*
 * Read every record of the log 'path' into 'im'. Malformed records and
 * records without a query are skipped, counted and warned about (the first
 * few). A plain JSON Lines file of at least opt.split_min bytes is read by
 * two threads, each from one half; the result is the same as one reader's.
 * Return 0, or -1 when the file cannot be opened or read (reported).
 */
int import_read(struct import *im, const char *path);

/*
 * Decide the labels of every query (see above) and drop the queries seen
 * fewer than min_count times. Afterwards the queries are sorted by count,
 * most frequent first (ties by first appearance).
 */
void import_label(struct import *im);
#endif
