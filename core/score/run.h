/*
 * run: a retriever's output for a set of questions (docs/design.md, "Runs,
 * results and what binds them"; docs/runs.md), in any of the three formats,
 * detected by content; gzip-compressed files are read directly.
 *
 *   TREC   `qid Q0 docid rank score tag`, whitespace separated. The rank
 *          column is ignored; a question's ranking is score descending, ties
 *          broken by docid descending in strcmp order (trec_eval's order).
 *          Blank lines and lines starting with '#' are skipped.
 *   JSONL  one object per question: {"qid", "results": [ids] or
 *          [{"id", "score"}], "abstained"}; list order is the ranking
 *          (run_rank_by_score ranks it like TREC instead); an optional first
 *          line {"meta": {...}}. An agent's question may give "calls":
 *          [{"query", "results"}, ...] instead of "results": its ranking
 *          is the union of the calls' results in call order, an id seen
 *          again counting once at its first place (docs/agents.md).
 *   JSON   {"qid": {"docid": score, ...}, ...}, ranked like TREC.
 *
 * Bad input is refused with FILE:LINE and the problem: fewer than 6 TREC
 * fields, a score that is not a finite number, a docid twice for one
 * question, a JSONL line that is not an object, "results" that is not a
 * list, a question listed twice, a binary file. An empty file is a valid,
 * empty run.
 *
 * Two ways in: run_load() builds a struct run in memory (for score, compare,
 * report: sets of hundreds of questions); run_trec_scan() streams a TREC file
 * one question at a time for trec-eval on runs of millions of lines.
 *
 * Ownership: a struct run owns everything it points to; run_release() frees
 * it. Lines handed to a scan callback live until the callback returns.
 */
#ifndef EVALSET_RUN_H
#define EVALSET_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "base/mempool.h"
#include "base/strbuf.h"
#include "base/strmap.h"

enum run_format { RUN_EMPTY, RUN_TREC, RUN_JSONL, RUN_JSON };
const char *run_format_name(enum run_format f);

struct run_doc {
	char *id;
	double score;     /* NAN when the run gives none (JSONL id lists) */
	long line;        /* where it was read (0: unknown) */
};

struct run_query {
	char *qid;
	struct run_doc *docs;   /* in ranking order */
	size_t nr, alloc;
	bool abstained;         /* JSONL "abstained": true */
	long line;              /* first line of the question */
	long *call_end;         /* JSONL "calls": docs[0..call_end[c]) is the union of
	                         * calls 1..c+1 (ascending, the last is nr); NULL
	                         * without "calls" */
	size_t nr_calls;        /* calls made; 0 without "calls" (the list is one call) */
	bool docs_pooled;       /* 'docs' is a block of the run's pool 'ids', sized
	                         * once (a TREC question): never grown or freed */
	bool dropped;           /* the list went to the run's 'each' hook, which took
	                         * what it needed: 'docs' is NULL, 'nr' its length */
};

struct run;
/*
 * A hook run_load_each calls with each question of a TREC run as soon as
 * its list is complete: checked for duplicates and ranked, its ids living
 * until the hook returns. The hook returns 1 when it took what it needs
 * (the list is then let go: q->dropped), 0 to keep it in the run, or -1
 * (reported) to stop the load. A NULL 'q' means "forget every question
 * handed over so far": the file is being read again from the start (a
 * question came back after another one, so the lists handed over may have
 * been incomplete).
 */
typedef int run_each_fn(struct run *r, struct run_query *q, void *data);

struct run {
	enum run_format format;
	char *path;
	char *name;             /* TREC tag of the last line, or meta "name"/"retriever" */
	char *meta;             /* JSONL meta object as compact JSON, or NULL */
	struct run_query *q;    /* in order of first appearance */
	size_t nr, alloc;
	struct strmap index;    /* qid -> index + 1 */
	struct mempool ids;     /* the documents' ids, and the pooled lists of docs */
	uint32_t *dup_slots;    /* run_check_dups's table, kept from question to question */
	size_t dup_cap;
	long nr_docs;
	bool reranked;          /* a JSONL run put in score order by run_rank_by_score */
	bool has_calls;         /* a question of the JSONL run gives "calls" */
	char sha256[72];        /* the file's SHA-256 when its TREC scan read it whole
	                         * (run_trec_scan_digest), else "" */
	run_each_fn *each;      /* run_load_each's hook, or NULL */
	void *each_data;
	struct run_doc *each_docs;  /* the list handed to 'each', reused from question to question */
	size_t each_alloc;
};

void run_init(struct run *r);
void run_release(struct run *r);
/* Load the run in 'path' ("-": stdin). Return 0, or -1 after reporting the problem. */
int run_load(struct run *r, const char *path);
/* Return the question 'qid' of 'r', or NULL. */
struct run_query *run_find(const struct run *r, const char *qid);

/* How a command ranks a JSONL run (TREC and JSON runs are always ranked by
 * score): by its list order, or by score as trec_eval ranks. */
enum run_rank { RUN_RANK_ORDER, RUN_RANK_SCORE };
/* Parse "order" or "score" into '*out'. Return 0, or -1 (nothing reported). */
int run_rank_parse(const char *s, enum run_rank *out);
/*
 * Rank every question of the loaded run 'r' by score, descending, ties by
 * docid descending in strcmp order (run_rank_cmp: trec_eval's rule). TREC
 * and JSON runs already are; a JSONL run is sorted, and each of its results
 * must carry a score: the first that does not is refused as FILE:LINE. A
 * run with "calls" is refused (its order is the calls' order).
 * Return 0, or -1 (reported; 'r' is left as it was read).
 */
int run_rank_by_score(struct run *r);
/* Load 'path' like run_load and rank it as 'rank' says. Return 0 or -1. */
int run_load_ranked(struct run *r, const char *path, enum run_rank rank);
/*
 * Like run_load_ranked, handing each question of a TREC run to 'each'
 * (run_each_fn) as soon as its list is complete, so that the lists the
 * hook takes are never all held at once: a run of millions of lines is
 * read in the memory of one question plus what the hook keeps. The
 * questions of JSONL and JSON runs are not handed over (the hook is not
 * called): they are loaded as run_load_ranked does.
 */
int run_load_each(struct run *r, const char *path, enum run_rank rank, run_each_fn *each,
		  void *data);

/* ---- streaming a TREC run ---- */

struct trec_line {
	const char *doc;  /* NUL-terminated, but in a mapped scan (run_trec_scan_mapped) */
	uint32_t len;
	long line;
	double score;
};

struct trec_group {
	const char *qid;  /* NUL-terminated, but in a mapped scan */
	size_t qid_len;
	struct trec_line *lines;  /* file order; the callback may reorder them */
	size_t nr;
	bool padded;              /* 7 readable bytes follow every doc and qid (see qrels_hash_padded) */
	/* RUN_SCAN_LINES: each line's qid (qid and qid_len above are the first line's) */
	const char *const *qids;
	const uint32_t *qid_lens;
};

/* Called once per question; return 0 to go on, or -1 (reported) to stop. */
typedef int (*trec_group_fn)(struct trec_group *g, void *data);

#define RUN_SCAN_UNSORTED 1

/*
 * Read the TREC run 'path' and call 'fn' for each question. Without
 * 'collect', lines are streamed and a question is handed over as soon as the
 * next one starts, so memory stays at one question; when a question id comes
 * back after another one, the scan stops and returns RUN_SCAN_UNSORTED (the
 * caller discards what it got and scans again with 'collect'). With
 * 'collect' the whole file is read and grouped first (memory proportional to
 * the file) and questions come in order of first appearance. 'runid', when
 * not NULL, receives the tag of the last line. Return 0, RUN_SCAN_UNSORTED,
 * or -1 after reporting FILE:LINE and the problem.
 */
int run_trec_scan(const char *path, bool collect, trec_group_fn fn, void *data,
		  struct strbuf *runid);

enum run_scan_mode {
	RUN_SCAN_STREAM,   /* run_trec_scan without 'collect' */
	RUN_SCAN_COLLECT,  /* run_trec_scan with 'collect' */
	RUN_SCAN_PIECES,   /* streaming, and a question may come back: 'fn' is called
			    * once per stretch of consecutive lines of one question */
	RUN_SCAN_LINES,    /* streaming, for runs in any order: 'fn' is called with
			    * batches of consecutive lines of any questions (g->qids) */
};

/*
 * Like run_trec_scan in 'mode'. In RUN_SCAN_PIECES memory stays at one
 * stretch plus one block whatever the order of the lines; "-" (stdin) is
 * read in one pass like a file.
 */
int run_trec_scan_mode(const char *path, enum run_scan_mode mode, trec_group_fn fn, void *data,
		       struct strbuf *runid);

/*
 * Like run_trec_scan_mode, writing into 'sha' the SHA-256 ("sha256:<hex>",
 * the form of file_sha256) of the bytes read when 'path' is a plain (not
 * compressed) file and the scan read all of it (returned 0); else an empty
 * string. For a reader that also records the file's digest: the file is
 * then read once.
 */
int run_trec_scan_digest(const char *path, enum run_scan_mode mode, trec_group_fn fn, void *data,
			 struct strbuf *runid, char sha[72]);

/*
 * Like run_trec_scan_mode, for a callback that reads qids and docids by
 * their lengths: in every mode but RUN_SCAN_COLLECT a plain regular file is
 * mapped into memory rather than read (no copy), and the qids and docids
 * handed over are then not NUL-terminated (7 readable bytes still follow
 * each, as g->padded says). Compressed files, stdin and RUN_SCAN_COLLECT
 * are read as by run_trec_scan_mode. A file truncated by another
 * process while it is mapped stops the process with SIGBUS.
 */
int run_trec_scan_mapped(const char *path, enum run_scan_mode mode, trec_group_fn fn, void *data,
			 struct strbuf *runid);

/*
 * Like run_trec_scan_mapped (RUN_SCAN_STREAM or RUN_SCAN_PIECES) over the
 * bytes [start, end) of the plain file 'path', 'start' being the beginning
 * of a line: qids and docids are not NUL-terminated. Line numbers count
 * from the start of the range, so callers use it only where a failure is
 * retried with run_trec_scan to report the right place.
 */
int run_trec_scan_range(const char *path, off_t start, off_t end, enum run_scan_mode mode,
			trec_group_fn fn, void *data, struct strbuf *runid);
/*
 * Whether the TREC scanner may read with its copy for AVX2 and BMI2 (used
 * when the processor has them; the default) or only with the SSE2 one.
 * Both give the same results; this is for tests and for ruling the copy
 * out. Call it before any scan starts (it is not synchronised).
 */
void run_trec_set_simd(bool allow);

struct progress;
/*
 * Make the scans this thread runs from now on tell 'p' (NULL: nothing) of
 * the bytes of their file they have read, every few megabytes, as its
 * lane 'lane' (progress_update_lane), 'base' bytes added: for a range, the
 * bytes from its start; for a compressed file, the compressed bytes (its
 * size is the total). Per thread: a thread that reads part of a file sets
 * its own lane.
 */
void run_trec_progress(struct progress *p, int lane, double base);

/*
 * Return an offset near the middle of the plain (not compressed) TREC file
 * 'path' where one question ends and the next begins, for splitting the work
 * in two; 0 when there is none (a small, compressed or special file, or one
 * question spanning the middle megabyte). '*size' receives the file size.
 */
off_t run_trec_split(const char *path, off_t *size);
/*
 * Cut the plain (not compressed) regular file 'path' into at most 'max'
 * pieces of about equal size at line starts: fill cuts[0] = 0 < cuts[1] <
 * ... < cuts[n] = its size ('cuts' holds max + 1) and return n; return 0
 * when it cannot be cut (not a regular file, compressed, or under 2 bytes). A
 * piece may hold a line longer than 64 KiB whole: cuts are only searched
 * that far.
 */
int run_trec_cut(const char *path, off_t *cuts, int max);

/*
 * Parse the 'len' bytes at 's' as a decimal floating-point number, exactly
 * as strtod would (correctly rounded). Return 0, or -1 when the text is not
 * a number or not finite.
 */
int run_parse_score(const char *s, size_t len, double *out);

/* Compare two ranked documents in trec_eval order: score descending, then
 * docid descending (strcmp). Negative when 'a' ranks first. */
int run_rank_cmp(double sa, const char *da, double sb, const char *db);
/* run_rank_cmp for docids given by their lengths (no NUL byte in them). */
int run_rank_cmp_len(double sa, const char *da, size_t la, double sb, const char *db, size_t lb);
/* strcmp(a, b) for docids given by their lengths: no docid holds a NUL
 * byte (the scanner refuses one), so the shorter of two with a common start
 * comes first. */
static inline int run_docid_cmp(const char *a, size_t la, const char *b, size_t lb)
{
	int c = memcmp(a, b, la < lb ? la : lb);

	return c ? c : (la > lb) - (la < lb);
}

#endif
