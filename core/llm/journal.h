/*
 * journal: an append-only JSONL file that lets a long job resume after
 * Ctrl-C or kill -9 without redoing (or re-paying for) finished work
 * (docs/design.md, "Writing files: atomic writes and journals"). Used by
 * generate and judge.
 *
 * Each record is one JSON object on one line, written with a single write(2)
 * to a file opened O_APPEND and fsync'ed before journal_append returns, so a
 * record the caller was told is written survives a crash (journal_write and
 * journal_sync let a busy job group the fsyncs). A crash can only
 * tear the last line: the reader ignores a last line without its newline
 * (or that does not parse), and journal_open cuts such a tail off before
 * appending, so the file never holds a torn line in the middle. Any other
 * bad line is reported as FILE:LINE and refused.
 *
 * This is the one writer that does not go through fsutil's atomic
 * replacement: appending is its point; it never truncates good records.
 */
#ifndef EVALSET_JOURNAL_H
#define EVALSET_JOURNAL_H

#include <stddef.h>

struct cJSON;

#define JOURNAL_MAX_LINE (16u << 20)

struct journal {
	int fd;
	char *path;
};
#define JOURNAL_INIT { -1, NULL }

/*
 * Open 'path' for appending, creating it (and its directory) when missing,
 * and dropping a torn last line. Return 0 or -1 (reported).
 */
int journal_open(struct journal *j, const char *path);
/* Append 'rec' as one line and fsync. Return 0 or -1 (reported). */
int journal_append(struct journal *j, const struct cJSON *rec);
/*
 * Append 'rec' as one line without waiting for the disk: the record survives
 * the process being killed (it is in the kernel), not a power cut until the
 * next journal_sync. For jobs that write many records a second and sync
 * in groups. Return 0 or -1 (reported).
 */
int journal_write(struct journal *j, const struct cJSON *rec);
/* Flush every record written so far to disk. Return 0 or -1 (reported). */
int journal_sync(struct journal *j);
void journal_close(struct journal *j);

/* Receive one record ('line' is its 1-based line number); return 0 to go on,
 * non-zero to stop reading (journal_read then returns that value). */
typedef int (*journal_fn)(const struct cJSON *rec, long line, void *data);

/*
 * Call 'fn' for every complete record of 'path' in order. A missing file is
 * an empty journal. Return 0, fn's non-zero value, or -1 after an error
 * naming FILE:LINE for a bad record that is not the torn last line.
 */
int journal_read(const char *path, journal_fn fn, void *data);

#endif
