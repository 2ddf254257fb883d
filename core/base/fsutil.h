/*
 * fsutil: the only way evalset writes files, and bounded reads.
 *
 * Every write is atomic (docs/design.md, "Writing files: atomic writes and
 * journals"): the content goes to a temporary file in the destination's
 * directory, is fsync'ed, renamed over the target, and the directory is
 * fsync'ed. A reader sees the old file or the new one,
 * never a truncated mix. Frozen versions are written with write_file_new(),
 * which refuses to replace an existing file.
 *
 * Locks are flock(2) locks on a file, released by the kernel when the
 * process dies, so a killed evalset never leaves a stale lock behind.
 *
 * Hostile trees: a repository may commit a symbolic link or a FIFO where
 * evalset expects its own files. Files written in place (locks, journals)
 * are opened with O_NOFOLLOW and must be regular files, and their directory
 * (.evalset/) must be a real directory, so a link never redirects a write.
 * Every file read is opened without blocking and must be a regular file
 * ("-" is standard input), so a FIFO never hangs a command.
 */
#ifndef EVALSET_FSUTIL_H
#define EVALSET_FSUTIL_H

#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>

#include "base/strbuf.h"

/*
 * Remove from the folder 'dir' the temporary files a killed write left:
 * regular files named "T.tmp-XXXXXX" (the name write_file_atomic gives
 * them, six letters or digits) where T is one of the NULL-terminated
 * 'targets', or any name ending in 'ext' when 'ext' is not NULL. Only for a
 * caller that holds the lock every writer of those targets takes (no write
 * is under way). Return how many were removed.
 */
size_t remove_stale_temps(const char *dir, const char *const *targets, const char *ext);
/* Replace 'path' atomically with 'len' bytes of 'data' (a device, FIFO
 * or socket there is refused). Return 0 or -1 (reported). */
int write_file_atomic(const char *path, const void *data, size_t len);
/*
 * A file written piece by piece and put in place whole, for output too
 * large to hold in memory: the pieces go to a temporary file beside 'path'
 * (mode 0644) and atomic_file_commit() renames it over 'path' as
 * write_file_atomic does, so a reader sees the old file or the whole new
 * one, never a part. After a failed write the file is still to be
 * committed or aborted; commit then fails and removes the temporary file.
 */
struct atomic_file {
	char *path;   /* the file to replace */
	char *tmp;    /* the temporary file (NULL once committed or aborted) */
	int fd;
	int err;      /* errno of the first failed write (0: none) */
};
/* Open a temporary file for 'path'. Return 0 or -1 (reported; nothing to release). */
int atomic_file_open(struct atomic_file *f, const char *path);
/* Append 'len' bytes of 'data'. Return 0 or -1 (reported once). */
int atomic_file_write(struct atomic_file *f, const void *data, size_t len);
/* Flush, close and rename the file over its path. Return 0 or -1
 * (reported; the temporary file is removed and 'path' left as it was). */
int atomic_file_commit(struct atomic_file *f);
/* Remove the temporary file, leaving 'path' as it was (after commit: nothing). */
void atomic_file_abort(struct atomic_file *f);
/* Write the 'len' bytes of 'data' to standard output and flush it. Return 0,
 * or -1 (reported: "cannot write to standard output: REASON"). */
int write_stdout(const void *data, size_t len);
/* Create 'path' with the content, atomically; refuse (-1, reported) when it exists. */
int write_file_new(const char *path, const void *data, size_t len);

/*
 * Read all of 'path' into 'out' (appending). Refuse files larger than 'limit'
 * bytes (0: no limit). Return 0, or -1 with an error naming the file.
 * "-" reads standard input.
 */
int read_file(const char *path, struct strbuf *out, size_t limit);

/*
 * Open 'path' for reading: a regular file only (symbolic links to one are
 * followed), opened without blocking so a FIFO or device is refused rather
 * than waited on. Return the descriptor (blocking again), or -1 with an
 * error naming the file.
 */
int open_regular(const char *path);
/* The same as a stdio stream ("rb"); NULL when refused (reported). */
FILE *fopen_regular(const char *path);
/*
 * Open 'path' for writing in place with 'flags' (O_RDWR, O_CREAT, O_APPEND...)
 * and 'mode': never through a symbolic link, and only a regular file. Return
 * the descriptor or -1 (reported).
 */
int open_private(const char *path, int flags, unsigned mode);
/*
 * Make sure 'path' is a directory of its own (created with its parents when
 * missing), not a symbolic link or another kind of file. Return 0 or -1
 * (reported).
 */
int mkdir_private(const char *path);

bool path_exists(const char *path);
bool is_dir(const char *path);
/* Create 'path' and its missing parents (mode 0777 & umask). Return 0 or -1 (reported). */
int mkdir_p(const char *path);
/* Return the directory part of 'path' ("." when none); caller frees. */
char *dir_name(const char *path);
/*
 * Return the directory of evalset's data 'sub' ("prompts", "presets")
 * holding the file 'probe' (caller frees): <prefix>/share/evalset/SUB beside
 * an installed binary, else <prefix>/evalset/SUB (where a Python wheel puts
 * its data), else SUB beside the binary (a build directory), else
 * the compiled-in data directory's SUB (which may not exist).
 */
char *data_dir_find(const char *sub, const char *probe);
/* Return 'dir' (taken over) when 'dir'/'probe' exists, else free it and return NULL. */
char *dir_holding(char *dir, const char *probe);
/* Append 'a' "/" 'b' to a new string; caller frees. */
char *path_join(const char *a, const char *b);
/* Return 'path' relative to the directory 'dir' (both must exist), e.g.
 * "../../corpus/chunks.jsonl"; or a copy of 'path' when either cannot be
 * resolved. Caller frees. */
char *path_relative_to(const char *path, const char *dir);

/* Return true when the resolved path 'path' is the resolved directory 'dir'
 * or lies under it (both as realpath(3) gives them). */
bool path_inside(const char *path, const char *dir);
/* Return the project folder of the directory 'dir': the nearest folder at
 * or above it (resolved) that holds ".git", else 'dir' resolved; NULL when
 * 'dir' cannot be resolved. Caller frees. */
char *project_root(const char *dir);

/* SHA-256 of the content of 'path' as "sha256:<64 hex>" in 'out'. Return 0 or -1. */
int file_sha256(const char *path, char out[72]);

struct lock_file {
	int fd;
	char *path;
};
#define LOCK_FILE_INIT { -1, NULL }

/*
 * Take the exclusive lock 'path', waiting for it as lock_set_wait() said
 * (by default not at all). Return 0, or -1 with an error naming 'what' when
 * another process holds it (with its pid when known) past the wait.
 */
int lock_take(struct lock_file *lk, const char *path, const char *what);
/*
 * How long lock_take waits for a lock another process holds: 'ms'
 * milliseconds, LOCK_WAIT_FOREVER, or 0 (the default: refuse at once). A
 * wait is announced once with a note naming the holder; it polls every
 * 50 ms, so it ends within a poll of the holder's release.
 */
void lock_set_wait(long ms);
#define LOCK_WAIT_FOREVER (-1L)
/*
 * What the error of a lock held elsewhere tells the user to do, after
 * "in use by another evalset process; " (borrowed; NULL: the default, "try
 * again when it has finished, or give --wait"). A server whose user cannot
 * give options (the review page) says what its user can do instead.
 */
void lock_set_busy_advice(const char *advice);
void lock_release(struct lock_file *lk);

#endif
