/*
 * t-fsutil: the writes every command relies on (base/fsutil.h): a file is
 * replaced whole, a frozen version is never overwritten, no temporary file
 * is left behind after a write that succeeded or one that failed, and
 * written files are readable by others (mode 0644), as a plain write under
 * the usual umask 022 would make them.
 */
#include "test-lib.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Return how many names in 'dir' hold ".tmp-" (temporary files left behind). */
static int temps_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strstr(e->d_name, ".tmp-") != NULL;
	closedir(d);
	return n;
}

static int mode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (int)(st.st_mode & 07777) : -1;
}

static char *content(const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	if (read_file(path, &sb, 0) < 0) {
		strbuf_release(&sb);
		return xstrdup("(unreadable)");
	}
	return strbuf_detach(&sb, NULL);
}

static void test_atomic(const char *dir)
{
	char *path = xstrfmt("%s/results.json", dir), *got;

	is_int(write_file_atomic(path, "one\n", 4), 0, "a new file is written");
	is_int(mode_of(path), 0644, "with mode 0644 (others may read it), not the temporary file's 0600");
	chmod(path, 0600);
	is_int(write_file_atomic(path, "two\n", 4), 0, "an existing file is replaced");
	got = content(path);
	is_str(got, "two\n", "by the new content, whole");
	free(got);
	is_int(mode_of(path), 0644, "the replaced file has mode 0644 too");
	is_int(temps_in(dir), 0, "no temporary file is left after a write");
	free(path);
}

static void test_new(const char *dir)
{
	char *path = xstrfmt("%s/v1.yaml", dir), *got;

	is_int(write_file_new(path, "frozen\n", 7), 0, "a frozen version is created");
	is_int(mode_of(path), 0644, "with mode 0644");
	is_int(temps_in(dir), 0, "no temporary file is left beside a new frozen version");
	test_capture_errors();
	is_int(write_file_new(path, "other\n", 6), -1, "a frozen version is never overwritten");
	ok(strstr(test_captured(), "refusing to overwrite") != NULL, "with a message saying so");
	got = content(path);
	is_str(got, "frozen\n", "its content is the first one");
	free(got);
	is_int(temps_in(dir), 0, "no temporary file is left after the refusal either");
	free(path);
}

static void test_failures(const char *dir)
{
	char *sub = xstrfmt("%s/sub", dir), *fifo = xstrfmt("%s/pipe", dir);
	char *missing = xstrfmt("%s/none/file", dir);

	/* a folder where the file should be: the rename fails */
	mkdir(sub, 0755);
	test_capture_errors();
	is_int(write_file_atomic(sub, "x", 1), -1, "replacing a folder fails");
	ok(strstr(test_captured(), "cannot replace") != NULL, "with a message naming it");
	is_int(temps_in(dir), 0, "and leaves no temporary file behind the failed rename");
	if (mkfifo(fifo, 0644) == 0) {
		struct stat st;

		is_int(write_file_atomic(fifo, "x", 1), -1, "a FIFO is not replaced by a file");
		ok(strstr(test_captured(), "it is a FIFO") != NULL || strstr(test_captured(), "not a regular file"),
		   "refused as not a regular file");
		ok(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO is still there");
		is_int(temps_in(dir), 0, "nothing left beside it");
	} else {
		test_diag("mkfifo failed: FIFO checks skipped");
	}
	is_int(write_file_atomic(missing, "x", 1), -1, "a missing folder is an error");
	ok(strstr(test_captured(), "no folder") != NULL, "saying the folder is missing");
	test_captured();
	free(sub);
	free(fifo);
	free(missing);
}

/* A file written in pieces: nothing changes at 'path' until the commit;
 * an abort or a failed write leaves the old file and no temporary one. */
static void test_pieces(const char *dir)
{
	char *path = xstrfmt("%s/corpus.jsonl", dir), *fifo = xstrfmt("%s/pieces-pipe", dir), *got;
	struct atomic_file f;

	write_file_atomic(path, "old\n", 4);
	is_int(atomic_file_open(&f, path), 0, "pieces: a temporary file is opened");
	is_int(atomic_file_write(&f, "a\n", 2), 0, "a first piece is written");
	is_int(atomic_file_write(&f, "b\n", 2), 0, "and a second");
	got = content(path);
	is_str(got, "old\n", "before the commit the file is the old one");
	free(got);
	is_int(temps_in(dir), 1, "the pieces are in one temporary file beside it");
	is_int(atomic_file_commit(&f), 0, "the commit puts the pieces in place");
	got = content(path);
	is_str(got, "a\nb\n", "whole and in order");
	free(got);
	is_int(mode_of(path), 0644, "with mode 0644");
	is_int(temps_in(dir), 0, "and no temporary file is left");

	atomic_file_open(&f, path);
	atomic_file_write(&f, "half", 4);
	atomic_file_abort(&f);
	got = content(path);
	is_str(got, "a\nb\n", "an abort leaves the file as it was");
	free(got);
	is_int(temps_in(dir), 0, "and removes the temporary file");

	/* a write that fails (the descriptor closed under it) */
	atomic_file_open(&f, path);
	close(f.fd);
	test_capture_errors();
	is_int(atomic_file_write(&f, "x", 1), -1, "a failed write is reported");
	ok(strstr(test_captured(), path) != NULL, "naming the file asked for, not the temporary one");
	is_int(atomic_file_write(&f, "y", 1), -1, "later writes fail too");
	f.fd = -1;
	is_int(atomic_file_commit(&f), -1, "a commit after a failed write fails: no part is put in place");
	got = content(path);
	is_str(got, "a\nb\n", "the old file is kept");
	free(got);
	is_int(temps_in(dir), 0, "and the temporary file is removed");

	/* a write the file system refuses half way (a file size limit, as a
	 * full disk would): the part written must not be put in place */
	{
		struct rlimit old, lim;
		char big[100];

		memset(big, 'z', sizeof(big));
		getrlimit(RLIMIT_FSIZE, &old);
		lim = old;
		lim.rlim_cur = 10;
		signal(SIGXFSZ, SIG_IGN);
		atomic_file_open(&f, path);
		setrlimit(RLIMIT_FSIZE, &lim);
		test_capture_errors();
		is_int(atomic_file_write(&f, big, sizeof(big)), -1, "a write cut short by the file system fails");
		setrlimit(RLIMIT_FSIZE, &old);
		is_int(atomic_file_commit(&f), -1, "and the commit after it refuses the part written");
		test_captured();
		signal(SIGXFSZ, SIG_DFL);
		got = content(path);
		is_str(got, "a\nb\n", "the old file is kept whole");
		free(got);
		is_int(temps_in(dir), 0, "and the part written is removed");
	}

	mkfifo(fifo, 0644);
	test_capture_errors();
	is_int(atomic_file_open(&f, fifo), -1, "a FIFO is not replaced by pieces either");
	is_int(temps_in(dir), 0, "nothing is left behind");
	unlink(fifo);
	free(fifo);
	free(path);
}

static void test_stale_temps(const char *dir)
{
	static const char *const targets[] = { "set.yaml", NULL };
	const char *removed[] = { "set.yaml.tmp-AbC123", "runs.json.tmp-x1y2z3" };
	const char *kept[] = { "set.yaml.tmp-AbC12", "set.yaml.tmp-AbC1234", "other.yaml.tmp-abcdef",
			       "set.yaml", "set.yaml.tmp-ab.c12" };
	char *sub = xstrfmt("%s/stale", dir);
	size_t n;

	mkdir(sub, 0755);
	for (size_t i = 0; i < ARRAY_SIZE(removed); i++)
		free(test_write_file(sub, removed[i], "x"));
	for (size_t i = 0; i < ARRAY_SIZE(kept); i++)
		free(test_write_file(sub, kept[i], "x"));
	n = remove_stale_temps(sub, targets, ".json");
	is_int(n, 2, "the temporary files of the targets and of the extension are removed");
	for (size_t i = 0; i < ARRAY_SIZE(kept); i++) {
		char *p = xstrfmt("%s/%s", sub, kept[i]);

		ok(access(p, F_OK) == 0, "'%s' is not a temporary file of a target: kept", kept[i]);
		free(p);
	}
	free(sub);
}

int main(void)
{
	char tmpl[] = "/tmp/t-fsutil-XXXXXX";
	char *dir = mkdtemp(tmpl);

	if (!dir) {
		ok(0, "a scratch folder");
		return test_done();
	}
	umask(022);
	test_atomic(dir);
	test_new(dir);
	test_failures(dir);
	test_pieces(dir);
	test_stale_temps(dir);
	test_remove_tree(dir);
	return test_done();
}
