/*
 * logread: stream records out of a query log: JSON Lines, CSV or TSV,
 * plain or gzip-compressed (detected by content), in one pass that also
 * computes the SHA-256 of the file's bytes as stored.
 *
 * JSON Lines: one JSON object per line, parsed by a small strict parser
 * (core/logs/logjson.h) into a per-record arena (no allocation per value). A field is a dotted
 * path ("a.b.c"); where the path meets an array it continues into every
 * element, so "citations.id" collects the ids of a list of objects.
 *
 * CSV (RFC 4180) and TSV: the first record is the header and names the
 * columns; a field is a column name. Fields may be quoted ("..." with ""
 * for a quote) and quoted fields may hold the delimiter and newlines, in
 * both formats. A row whose field count differs from the header's is
 * malformed.
 *
 * Invariants: memory is bounded by the longest record, and a record longer
 * than LOG_MAX_RECORD bytes is skipped without being held in memory. Values
 * returned by log_reader_get point into the reader and stay valid until the
 * next log_reader_next. Values are not checked for UTF-8 here.
 */
#ifndef EVALSET_LOGREAD_H
#define EVALSET_LOGREAD_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"

#define LOG_MAX_RECORD (1u << 20)  /* longest record accepted, in bytes */
#define LOG_MAX_DEPTH 64           /* JSON nesting depth */

enum log_format { LOG_FORMAT_AUTO, LOG_FORMAT_JSONL, LOG_FORMAT_CSV, LOG_FORMAT_TSV };

/*
 * JSON Lines records that are flat objects (scalar values or lists of
 * scalars, strings without escapes) are read by a one-pass scanner; any
 * other line goes to the full parser. Both give the same values and the
 * same verdicts. True by default; tests turn it off to compare the two.
 */
extern bool log_json_fast;

/* Return 0 and set '*out' for "jsonl"/"json"/"ndjson", "csv", "tsv"; else -1 (nothing printed). */
int log_format_parse(const char *s, enum log_format *out);
const char *log_format_name(enum log_format f);

struct log_value {
	const char *s;  /* not NUL-terminated */
	size_t len;
};

struct log_values {
	struct log_value *v;
	size_t nr, alloc;
};
#define LOG_VALUES_INIT { NULL, 0, 0 }
void log_values_release(struct log_values *vals);

/* A compiled field reference: a dotted path for JSON, a column for CSV/TSV. */
struct log_path {
	char *text;     /* as given */
	char **parts;   /* the dotted components */
	size_t *lens;   /* their lengths */
	size_t nr;
	long column;    /* CSV/TSV column index, -1 when the header lacks it */
};

#define LOG_JSON_KEYS 16        /* top-level keys the JSON fast path remembers */
#define LOG_JSON_KEY_BYTES 256  /* room for their text (16 bytes kept free) */
#define LOG_JSON_SLOTS 8        /* paths whose lookups it remembers */
#define LOG_JSON_SLOT_KEY 32    /* longest first path component it remembers */

/*
 * What the JSON fast path (core/logs/logjson.c) keeps from record to record:
 * the top-level keys of the last flat record, copied, under a generation
 * number that changes whenever they do (0: none); the node of each in the
 * current record; and per path where its first component was found under
 * that generation. Zeroed with the reader; owns no memory.
 */
struct log_json_shape {
	unsigned long gen, last_gen;
	size_t nr;                                /* keys */
	unsigned short off[LOG_JSON_KEYS + 1];    /* key k: bytes[off[k], off[k + 1]) */
	char bytes[LOG_JSON_KEY_BYTES];
	long kid[LOG_JSON_KEYS];                  /* the node of key k */
	struct log_json_slot {
		const struct log_path *p;         /* compared, never followed */
		unsigned long gen;
		long at;                          /* key index, -1: absent */
		size_t len;
		char key[LOG_JSON_SLOT_KEY];      /* the component looked up */
	} slot[LOG_JSON_SLOTS];
	size_t next_slot;
};

struct log_stream;

struct log_reader {
	const char *path;        /* borrowed, for messages */
	enum log_format format;
	long lineno;             /* first line of the current record */
	long next_line;          /* line where the next record starts */
	long long offset;        /* byte offset of the current record in the (decoded) stream */
	const char *why;         /* what was wrong with the last malformed record */
	struct log_stream *st;
	struct strbuf rec;       /* the current record (JSON: decoded in place) */
	/* JSON arena */
	struct jnode *nodes;
	size_t nr_nodes, alloc_nodes;
	struct log_json_shape json;  /* JSON fast path memory (logjson.c) */
	/* CSV/TSV */
	struct log_value *cells;
	size_t nr_cells, alloc_cells;
	char **header;
	size_t nr_header;
};

/*
 * Open 'path' ("-": standard input) in format 'fmt'; LOG_FORMAT_AUTO picks
 * by the name (.jsonl/.ndjson/.json, .csv, .tsv, each optionally .gz), else
 * by content (a first byte '{' is JSON Lines, a tab in the first line TSV,
 * else CSV). For CSV/TSV the header is read here. Return 0, or -1 (reported).
 */
int log_reader_open(struct log_reader *r, const char *path, enum log_format fmt);

/*
 * Split a large log for two readers: when 'r' (just opened) reads a plain
 * (not compressed) JSON Lines regular file of at least 'min_size' bytes,
 * stop 'r' at the first line break at or after 'percent' percent of the
 * file and return the offset of the line after it, for
 * log_reader_open_range(). Otherwise change nothing and return -1. A split
 * reader computes no digest: the caller digests the file (file_sha256).
 */
long long log_reader_split(struct log_reader *r, long long min_size, int percent);

/*
 * Open the JSON Lines file 'path' from byte 'start' (a line start) to its
 * end: line numbers count from 1 at 'start', offsets from the file's start,
 * and no digest is computed. Return 0, or -1 (reported).
 */
int log_reader_open_range(struct log_reader *r, const char *path, long long start);

/*
 * Read the next record. Return 1 for a record, 0 at end of file, -2 for a
 * malformed record (skipped; 'lineno' and 'why' say where and what; the
 * caller reports it and goes on), -1 on a read error (reported).
 */
int log_reader_next(struct log_reader *r);

/* Resolve 'text' into 'p' for this reader (CSV/TSV: find the column). */
void log_path_init(struct log_path *p, const struct log_reader *r, const char *text);
void log_path_release(struct log_path *p);

/*
 * Append the values 'p' selects in the current record to 'out': a JSON
 * key holding dots ("gen_ai.request.model") is found by the path that
 * spells it when no key is the first component alone. Strings
 * (unescaped), numbers and booleans as their text; arrays contribute each
 * element; null, objects and absent keys contribute nothing. Return the
 * number of values appended.
 */
size_t log_reader_get(struct log_reader *r, const struct log_path *p, struct log_values *out);

/*
 * Objects of the current record, for fields read relative to each (the
 * events of a trace): node numbers of the JSON arena, valid until the next
 * log_reader_next.
 */
struct log_items {
	long *node;
	size_t nr, alloc;
};
void log_items_release(struct log_items *it);
/*
 * Append the objects 'p' selects in the current JSON Lines record to 'out'
 * (an array contributes each element that is an object); CSV and TSV
 * records have none. Return the number appended.
 */
size_t log_reader_items(struct log_reader *r, const struct log_path *p, struct log_items *out);
/* log_reader_get for 'p' read from the object 'item' (of log_reader_items) on. */
size_t log_reader_get_in(struct log_reader *r, long item, const struct log_path *p,
			 struct log_values *out);

/* After end of file: the digest of the whole file's bytes as stored ("sha256:..."). */
void log_reader_digest(struct log_reader *r, char out[72]);
/* True when the file was gzip-compressed. */
bool log_reader_gzip(const struct log_reader *r);
void log_reader_close(struct log_reader *r);

#endif
