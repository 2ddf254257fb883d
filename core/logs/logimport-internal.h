/*
 * logimport-internal: what the four files of the import share, and nothing
 * else uses. logs/logimport.c says how an import reads a log; the structures
 * here are its parts: raw forms and their tallies as a reader keeps them
 * (stage one, logs/logpart.c) and as the import keeps them (stage two,
 * logs/logmerge.c). Calls go one way: logimport.c (the driver) calls the
 * stages, the stages call logtally.c, and no file calls one above it.
 *
 * Ownership: a struct part owns its tables, arena, batch and pool until
 * stage two hands the pool to struct import; struct raw, struct form and
 * document ids live in the import's arenas.
 */
#ifndef EVALSET_LOGIMPORT_INTERNAL_H
#define EVALSET_LOGIMPORT_INTERNAL_H

#include "logs/logimport.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct import_arena {
	struct import_arena *prev;  /* the chunk filled before */
	size_t used, cap;
	char mem[];
};

struct form {
	long group;            /* index into im->q; -1: dropped for PII; -2: empty */
	unsigned long count;   /* summed from the raw forms by import_label */
	const char *text;      /* the redacted text (the key in a shard's forms) */
};

/* A distinct raw query of the import, once checked, redacted and grouped. */
struct raw {
	struct form *form;
	long group;            /* form->group, copied */
	unsigned long count;   /* records that counted for the group */
	uint32_t len;
	bool pii;
	char bytes[];
};

/* A distinct raw query as one reader keeps it. */
struct prow {
	struct import_tally t;
	uint64_t hash;
	long long first;       /* offset of its first record in the file */
	long group;            /* stage two: the group its tally goes to, or < 0 */
	struct raw *raw;       /* stage two: the import's raw form of the same bytes */
	int part;              /* the part holding it (its document keys are the part's) */
	uint32_t len;
	bool invalid;          /* not UTF-8: each of its records is malformed */
	char bytes[];
};

/*
 * A record read into the batch of a part (see import_read_records): what folding it
 * needs, copied out of the reader, whose buffers the next record reuses.
 */
struct brec {
	size_t query;          /* offset of the query in part->bytes (or obox->bytes) */
	uint32_t len;
	uint64_t hash;         /* of the query */
	uint64_t sess;
	long long offset;      /* of the record in the file */
	long line;             /* in its half of the file */
	int half;
	double tm, dwell;
	bool dated, docs, other;
	bool own_sessions;     /* each of its 'n' records is a session of its own */
	bool event;            /* an event of a trace: only its documents count */
	enum signal_kind kind;
	uint32_t n;            /* records it stands for (a pre-aggregated row: its count) */
	uint32_t sess0, nr_sess;  /* its sessions' hashes in part->sess (0: 'sess' alone) */
	double last;           /* latest time, when dated */
	uint32_t key0, nr_keys;  /* document keys in part->keys (ids in obox->id) */
	struct prow *r;
};
#define BATCH 32
#define ROUND_BYTES (2LL << 20)  /* of its share a reader reads between two exchanges */

/* The records a reader passes to the other: what a struct brec needs, with its strings. */
struct obox {
	struct brec *rec;
	size_t nr, alloc;
	struct strbuf bytes;   /* the queries and document ids */
	struct log_value *id;  /* document ids: 's' is an offset into 'bytes' */
	size_t nr_id, alloc_id;
};

struct exchange {
	pthread_barrier_t barrier;
	bool done[2];          /* the reader has read its half */
};

/* Where a record was skipped, kept for the warnings and the summary. */
struct place {
	int half;          /* of the file: lines count from the half's start */
	long line;
	const char *why;   /* a string literal */
};

struct places {
	struct place at[IMPORT_KEEP_LINES];
	size_t nr;
};

/* One reader's share of a file and what it found (stage one). */
struct part {
	const struct import_options *opt;
	size_t file_idx;
	struct log_reader r;
	bool open, failed;
	struct log_path path[IMPORT_NR_FIELDS];
	struct log_values vals, docs;
	struct import_arena *arena;
	struct import_htab tab;      /* its raw forms (struct prow) */
	struct prow **list;          /* the same tab.nr forms, in order of first appearance */
	size_t alloc_list;
	struct import_docs dk;
	struct mempool mp;           /* the tallies */
	bool digest;                 /* its reader computes the file's digest, into 'sum' */
	char sum[72];
	unsigned long records, malformed, missing_query, undated, outside;
	unsigned long field_seen[IMPORT_NR_FIELDS];
	struct places bad, missing;
	unsigned long no_signal;     /* records naming documents without a signal */
	struct places silent;        /* where the first were */
	/* reading with another reader: the hash half whose raw forms are kept here */
	int self;
	long long start, len;        /* the share of the file, in bytes */
	long rounds, round;          /* exchanges in all, and done */
	struct exchange *ex;
	struct part *other;
	struct obox out;             /* records for the other */
	/* the batch of records read but not yet folded */
	struct brec *batch;
	size_t nr_batch;
	struct strbuf bytes;         /* their queries */
	uint32_t *keys;              /* their documents' keys */
	size_t nr_keys, alloc_keys;
	uint64_t *sess;              /* their session lists (pre-aggregated rows), hashed */
	size_t nr_sess, alloc_sess;
	struct log_values sessv;     /* a row's session ids */
	struct log_items items;      /* a trace's events */
};

/* ---- logtally.c: what both stages use ---- */

/* Insert 'p' of hash 'h' into 't', growing it to stay at most half full. */
void import_htab_insert(struct import_htab *t, uint64_t h, void *p);
/* Make room in 't' for 'n' more pointers (no growing while they come). */
void import_htab_reserve(struct import_htab *t, size_t n);

/* Return 'len' bytes of the arena '*ap', aligned for any record. */
void *import_arena_alloc(struct import_arena **ap, size_t len);
void import_arena_free(struct import_arena **ap);
/* Return which of two halves (0 or 1) hash 'h' belongs to (its top bit). */
int import_half_of(uint64_t h);
/* Return a 64-bit hash of 'len' bytes of 's' (the hot path's hash). */
uint64_t import_fast_hash(const char *s, size_t len);
/* Widen the times of 't' to take in 'first'..'last' (epoch seconds). */
void import_tally_dates(struct import_tally *t, double first, double last);
/* Give the memory of tally 't' back to pool 'mp' (for reuse) and empty it. */
void import_tally_release(struct import_tally *t, struct mempool *mp);
void import_docs_release(struct import_docs *dk);
/* Return the key of id 'id' of 'len' bytes and hash 'h' in 'dk', interning it (in '*ap'). */
uint32_t import_docs_intern(struct import_docs *dk, struct import_arena **ap, const char *id,
			    size_t len, uint64_t h);
/* Rebuild the document table of 't' with room for twice its documents. */
void import_doc_table_grow(struct import_tally *t, struct mempool *mp);
/* Return the statistics of the document of key 'key' (named in 'dk') in 't', creating them. */
struct import_doc *import_doc_of(const struct import_docs *dk, struct import_tally *t, uint32_t key,
				 struct mempool *mp);
/* Run fn(ctx, 0) and fn(ctx, 1), on two threads when 'big', else one after the other. */
void import_run_halves(void (*fn)(void *ctx, int half), void *ctx, bool big);
/* Keep the place ('half', 'line') if it is among the IMPORT_KEEP_LINES first. */
void import_keep_place(struct places *p, int half, long line, const char *why);

/* ---- logpart.c: stage one ---- */

/*
 * Read the records of the reader of 'p': all of them, or, reading with the
 * other reader, those of the next round. Return 1 when its share is read
 * (or failed), else 0.
 */
int import_read_records(struct part *p);
/* Read the share of the part 'arg' with the other reader, a round at a time; a thread's body. */
void *import_read_shared(void *arg);
/* Read the shares of both parts 'p' in rounds on this thread (no thread to be had). */
void import_read_shared_here(struct part *p);
/* Resolve the field paths of 'p' for its reader. */
void import_part_paths(struct part *p);
void import_part_release(struct part *p);

/* ---- logmerge.c: stage two ---- */

/*
 * Fold the parts 'p' of the file 'path' into 'im' (the second half's lines
 * count from 'line1' + 1); afterwards the parts' pools belong to 'im'.
 */
void import_merge_parts(struct import *im, const char *path, struct part *p, long line1);

#endif
