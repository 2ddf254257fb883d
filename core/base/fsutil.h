/*
 * fsutil: the only way evalset writes files, and bounded reads.
 *
 * Every write is atomic (SPEC section 7): the content goes to a temporary
 * file in the destination's directory, is fsync'ed, renamed over the target,
 * and the directory is fsync'ed. A reader sees the old file or the new one,
 * never a truncated mix. Frozen versions are written with write_file_new(),
 * which refuses to replace an existing file.
 *
 * Locks are flock(2) locks on a file, released by the kernel when the
 * process dies, so a killed evalset never leaves a stale lock behind.
 */
#ifndef EVALSET_FSUTIL_H
#define EVALSET_FSUTIL_H

#include <stddef.h>
#include <stdbool.h>

#include "base/strbuf.h"

/* Replace 'path' atomically with 'len' bytes of 'data'. Return 0 or -1 (reported). */
int write_file_atomic(const char *path, const void *data, size_t len);
/* Create 'path' with the content, atomically; refuse (-1, reported) when it exists. */
int write_file_new(const char *path, const void *data, size_t len);

/*
 * Read all of 'path' into 'out' (appending). Refuse files larger than 'limit'
 * bytes (0: no limit). Return 0, or -1 with an error naming the file.
 * "-" reads standard input.
 */
int read_file(const char *path, struct strbuf *out, size_t limit);

bool path_exists(const char *path);
bool is_dir(const char *path);
/* Create 'path' and its missing parents (mode 0777 & umask). Return 0 or -1 (reported). */
int mkdir_p(const char *path);
/* Return the directory part of 'path' ("." when none); caller frees. */
char *dir_name(const char *path);
/* Append 'a' "/" 'b' to a new string; caller frees. */
char *path_join(const char *a, const char *b);
/* Return 'path' relative to the directory 'dir' (both must exist), e.g.
 * "../../corpus/chunks.jsonl"; or a copy of 'path' when either cannot be
 * resolved. Caller frees. */
char *path_relative_to(const char *path, const char *dir);

/* SHA-256 of the content of 'path' as "sha256:<64 hex>" in 'out'. Return 0 or -1. */
int file_sha256(const char *path, char out[72]);

struct lock_file {
	int fd;
	char *path;
};
#define LOCK_FILE_INIT { -1, NULL }

/*
 * Take the exclusive lock 'path' without waiting. Return 0, or -1 with an
 * error naming 'what' when another process holds it (with its pid when known).
 */
int lock_take(struct lock_file *lk, const char *path, const char *what);
void lock_release(struct lock_file *lk);

#endif
