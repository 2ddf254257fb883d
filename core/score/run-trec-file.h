/*
 * run-trec-file: the TREC run file beneath the scanner of run-trec.c,
 * which calls it and which it never calls: what a byte of a run line is
 * (the classes both the scanner and the cutting read lines by), a plain
 * file's range mapped into memory and dropped from it as the scan goes, a
 * range read by pread, and the cutting of a plain file at question and line
 * boundaries for reading it on several threads (run_trec_split and
 * run_trec_cut, declared in run.h).
 *
 * Errors are reported through error() with the run's path before -1 is
 * returned; what only decides how a file is read (a file that cannot be
 * mapped or cut) is not an error and is not reported.
 */
#ifndef EVALSET_RUN_TREC_FILE_H
#define EVALSET_RUN_TREC_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Byte classes: 1 blank (a field separator), 2 end of line, 0 anything else. */
static const unsigned char trec_byte_class[256] = {
	['\t'] = 1, ['\r'] = 1, ['\v'] = 1, ['\f'] = 1, [' '] = 1, ['\n'] = 2,
};
/* Spaces and tabs by comparison (no table load on the hot path), the rare rest by table. */
#define TREC_IS_BLANK(c) ((c) == ' ' || (c) == '\t' || \
			  ((unsigned char)(c) < 0x20 && trec_byte_class[(unsigned char)(c)] == 1))
#define TREC_IS_TEXT(c) (!trec_byte_class[(unsigned char)(c)])

/* A range of a plain file mapped for a scan (trec_map_range). */
struct trec_map {
	char *area;       /* the mapping and its length */
	size_t area_len;
	char *buf;        /* the range's first byte, inside 'area' */
	size_t len;       /* the range's length; a page of zeros or more follows */
	size_t dropped;   /* bytes of 'buf' already dropped from memory */
};

/*
 * Map the bytes [start, end) of the regular file open as 'fd' into 'm',
 * with at least a page of zeros after them (the slack word-wide reads
 * need; the mapping is private, so the scanner may write that slack).
 * Return 0, or -1 when it cannot be mapped (nothing reported: the caller
 * reads the file instead).
 */
int trec_map_range(struct trec_map *m, int fd, off_t start, off_t end);
/* Drop the whole pages of 'm' before m->buf + 'keep' (what the scan no
 * longer needs) from memory: read again from the file if touched, but no
 * longer counted in the process's memory. */
void trec_map_drop(struct trec_map *m, size_t keep);
void trec_map_release(struct trec_map *m);

/* Read up to 'want' bytes of the file open as 'fd' ('path' for messages)
 * from '*off', not past 'end', into 'dst'; advance '*off'. Return the count
 * (short only at 'end' or the end of the file), or -1 (reported). */
long trec_pread_block(int fd, const char *path, off_t *off, off_t end, char *dst, size_t want);

#endif
