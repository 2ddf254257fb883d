/*
 * fsutil: atomic writes, bounded reads, directories and flock locks
 * (see fsutil.h).
 */
#include "base/fsutil.h"
#include "base/digest.h"
#include "base/error.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void fsync_dir(const char *path)
{
	char *dir = dir_name(path);
	int fd = open(dir, O_RDONLY | O_DIRECTORY);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

static const char *file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device";
	if (S_ISLNK(m))
		return "a symbolic link";
	return "not a regular file";
}

/*
 * Create a fresh temporary file beside 'path' ("PATH.tmp-XXXXXX"): return
 * its descriptor and its name in '*tmp' (caller frees), or -1 (reported:
 * the message names 'path', and a missing folder as such).
 */
static int open_temp(const char *path, char **tmp)
{
	int fd;

	*tmp = xstrfmt("%s.tmp-XXXXXX", path);
	fd = mkstemp(*tmp);
	if (fd < 0) {
		char *dir = dir_name(path);

		if (errno == ENOENT && !is_dir(dir))
			error("cannot write '%s': no folder '%s' (create it first)", path, dir);
		else
			error("cannot create a temporary file beside '%s': %s", path, strerror(errno));
		free(dir);
		free(*tmp);
		*tmp = NULL;
	}
	return fd;
}

/* Write the content to a fresh temporary file beside 'path'; return its name (caller frees) or NULL. */
static char *write_temp(const char *path, const void *data, size_t len)
{
	char *tmp;
	int fd = open_temp(path, &tmp);

	if (fd < 0)
		return NULL;
	fchmod(fd, 0644);
	/* the message names the file asked for: the temporary one is gone */
	if (write_all(fd, data, len) < 0 || fsync(fd) < 0) {
		error("cannot write '%s': %s", path, strerror(errno));
		close(fd);
		unlink(tmp);
		free(tmp);
		return NULL;
	}
	if (close(fd) < 0) {
		error("cannot write '%s': %s", path, strerror(errno));
		unlink(tmp);
		free(tmp);
		return NULL;
	}
	return tmp;
}

/* True when 'name' is "T.tmp-XXXXXX" for a T of 'targets' or ending in 'ext'. */
static bool stale_temp_name(const char *name, const char *const *targets, const char *ext)
{
	const char *tmp = strstr(name, ".tmp-");
	size_t n;

	if (!tmp || strlen(tmp) != 11 || tmp == name)
		return false;
	for (const char *c = tmp + 5; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
			return false;
	n = (size_t)(tmp - name);
	for (size_t i = 0; targets && targets[i]; i++)
		if (strlen(targets[i]) == n && !strncmp(name, targets[i], n))
			return true;
	return ext && n > strlen(ext) && !strncmp(tmp - strlen(ext), ext, strlen(ext));
}

size_t remove_stale_temps(const char *dir, const char *const *targets, const char *ext)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t removed = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char *path;
		struct stat st;

		if (!stale_temp_name(e->d_name, targets, ext))
			continue;
		path = path_join(dir, e->d_name);
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && unlink(path) == 0)
			removed++;
		free(path);
	}
	closedir(d);
	return removed;
}

int write_stdout(const void *data, size_t len)
{
	if ((len && fwrite(data, 1, len, stdout) != len) || fflush(stdout) != 0)
		return error("cannot write to standard output: %s", strerror(errno));
	return 0;
}

/* Refuse to replace what rename(2) would wrongly replace: a device, FIFO
 * or socket (a directory makes rename fail; a symbolic link is replaced). */
static int check_replaceable(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode) &&
	    !S_ISDIR(st.st_mode))
		return error("refusing to replace '%s': it is %s, not a regular file", path,
			     file_kind(st.st_mode));
	return 0;
}

int atomic_file_open(struct atomic_file *f, const char *path)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	if (check_replaceable(path) < 0)
		return -1;
	f->fd = open_temp(path, &f->tmp);
	if (f->fd < 0)
		return -1;
	fchmod(f->fd, 0644);
	f->path = xstrdup(path);
	return 0;
}

int atomic_file_write(struct atomic_file *f, const void *data, size_t len)
{
	if (f->err)
		return -1;
	if (f->fd < 0 || write_all(f->fd, data, len) < 0) {
		f->err = f->fd < 0 ? EBADF : errno;
		/* the message names the file asked for: the temporary one goes */
		return error("cannot write '%s': %s", f->path ? f->path : "(closed)", strerror(f->err));
	}
	return 0;
}

void atomic_file_abort(struct atomic_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (f->tmp)
		unlink(f->tmp);
	free(f->tmp);
	f->tmp = NULL;
	free(f->path);
	f->path = NULL;
}

int atomic_file_commit(struct atomic_file *f)
{
	int fd = f->fd;

	if (!f->tmp || f->err) {
		atomic_file_abort(f);
		return -1;
	}
	f->fd = -1;
	if (fsync(fd) < 0 || close(fd) < 0) {
		error("cannot write '%s': %s", f->path, strerror(errno));
		atomic_file_abort(f);
		return -1;
	}
	if (check_replaceable(f->path) < 0) {
		atomic_file_abort(f);
		return -1;
	}
	if (rename(f->tmp, f->path) < 0) {
		error("cannot replace '%s': %s", f->path, strerror(errno));
		atomic_file_abort(f);
		return -1;
	}
	fsync_dir(f->path);
	free(f->tmp);
	f->tmp = NULL;
	free(f->path);
	f->path = NULL;
	return 0;
}

int write_file_atomic(const char *path, const void *data, size_t len)
{
	char *tmp;

	if (check_replaceable(path) < 0)
		return -1;
	tmp = write_temp(path, data, len);
	if (!tmp)
		return -1;
	if (rename(tmp, path) < 0) {
		error("cannot replace '%s': %s", path, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	fsync_dir(path);
	return 0;
}

int write_file_new(const char *path, const void *data, size_t len)
{
	char *tmp = write_temp(path, data, len);

	if (!tmp)
		return -1;
	/* link(2) fails with EEXIST instead of replacing: never rewrite a frozen file. */
	if (link(tmp, path) < 0) {
		int e = errno;
		unlink(tmp);
		free(tmp);
		if (e == EEXIST)
			return error("refusing to overwrite '%s': it exists", path);
		return error("cannot create '%s': %s", path, strerror(e));
	}
	unlink(tmp);
	free(tmp);
	fsync_dir(path);
	return 0;
}

/* Check that the open 'fd' of 'path' is a regular file and make it blocking
 * again; close it and return -1 (reported) when it is not. */
static int keep_regular(int fd, const char *path)
{
	struct stat st;
	int fl;

	if (fstat(fd, &st) < 0) {
		error("cannot read '%s': %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		error("refusing '%s': it is %s, not a regular file", path, file_kind(st.st_mode));
		close(fd);
		return -1;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

int open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	if (fd < 0) {
		error("cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	return keep_regular(fd, path);
}

FILE *fopen_regular(const char *path)
{
	int fd = open_regular(path);
	FILE *fp;

	if (fd < 0)
		return NULL;
	fp = fdopen(fd, "rb");
	if (!fp) {
		error("cannot open '%s': %s", path, strerror(errno));
		close(fd);
	}
	return fp;
}

int open_private(const char *path, int flags, unsigned mode)
{
	int fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, (mode_t)mode);

	if (fd < 0) {
		struct stat st;
		if (errno == ELOOP || (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)))
			error("refusing '%s': it is a symbolic link, and evalset writes its own "
			      "files only in place", path);
		else
			error("cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	return keep_regular(fd, path);
}

int mkdir_private(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0) {
		if (errno != ENOENT)
			return error("cannot use directory '%s': %s", path, strerror(errno));
		if (mkdir_p(path) < 0)
			return -1;
		if (lstat(path, &st) < 0)
			return error("cannot use directory '%s': %s", path, strerror(errno));
	}
	if (!S_ISDIR(st.st_mode))
		return error("refusing directory '%s': it is %s", path, file_kind(st.st_mode));
	return 0;
}

int read_file(const char *path, struct strbuf *out, size_t limit)
{
	FILE *fp;
	size_t old_limit = out->limit;
	int rc;

	if (!strcmp(path, "-"))
		fp = stdin;
	else if (!(fp = fopen_regular(path)))
		return -1;
	out->limit = limit ? out->len + limit : 0;
	rc = strbuf_read_fp(out, fp);
	out->limit = old_limit;
	if (fp != stdin)
		fclose(fp);
	if (rc == -2)
		return error("'%s' is larger than the limit of %zu bytes", path, limit);
	if (rc < 0)
		return error("cannot read '%s': %s", path, strerror(errno));
	return 0;
}

bool path_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int mkdir_p(const char *path)
{
	char *p = xstrdup(path);
	int rc = 0;

	for (char *s = p + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;
			*s = '\0';
			if (mkdir(p, 0777) < 0 && errno != EEXIST) {
				rc = error("cannot create directory '%s': %s", p, strerror(errno));
				break;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	if (!rc && !is_dir(path))
		rc = error("cannot create directory '%s': a file is in the way", path);
	free(p);
	return rc;
}

char *dir_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

char *path_join(const char *a, const char *b)
{
	size_t la = strlen(a);

	if (la && a[la - 1] == '/')
		return xstrfmt("%s%s", a, b);
	return xstrfmt("%s/%s", a, b);
}

int file_sha256(const char *path, char out[72])
{
	FILE *fp = fopen_regular(path);
	struct sha256_ctx *c;
	char buf[65536];
	size_t n;

	if (!fp)
		return -1;
	c = sha256_new();
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		sha256_update(c, buf, n);
	if (ferror(fp)) {
		fclose(fp);
		sha256_final(c, out);
		return error("cannot read '%s': %s", path, strerror(errno));
	}
	fclose(fp);
	sha256_final(c, out);
	return 0;
}

static long lock_wait_ms;
static const char *lock_busy_advice;

void lock_set_busy_advice(const char *advice)
{
	lock_busy_advice = advice;
}

void lock_set_wait(long ms)
{
	lock_wait_ms = ms;
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Put the pid written in the lock file 'fd' into 'pid' ("" when none). */
static void lock_holder(int fd, char pid[32])
{
	ssize_t n = pread(fd, pid, 31, 0);

	pid[n > 0 ? n : 0] = '\0';
	pid[strcspn(pid, "\n")] = '\0';
}

/* Wait for the lock on 'fd' as lock_wait_ms says. Return 0 once held, -1 when the wait ends first. */
static int lock_wait(int fd, const char *what)
{
	int64_t until = mono_ms() + (lock_wait_ms > 0 ? lock_wait_ms : 0);
	char pid[32];

	if (!lock_wait_ms)
		return -1;
	lock_holder(fd, pid);
	note("%s is in use by another evalset process%s%s%s; waiting for it%s", what,
	     *pid ? " (pid " : "", pid, *pid ? ")" : "", lock_wait_ms > 0 ? " (--wait)" : "");
	for (;;) {
		struct timespec nap = { 0, 50 * 1000000L };
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -1;
		if (lock_wait_ms > 0 && mono_ms() >= until)
			return -1;
		nanosleep(&nap, NULL);
	}
}

int lock_take(struct lock_file *lk, const char *path, const char *what)
{
	char pid[32];
	int fd;

	fd = open_private(path, O_RDWR | O_CREAT, 0644);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0 && lock_wait(fd, what) < 0) {
		const char *after = lock_wait_ms > 0 ? " after waiting" : "";
		lock_holder(fd, pid);
		close(fd);
		const char *advice = lock_busy_advice ? lock_busy_advice :
				     "try again when it has finished, or give --wait";
		if (*pid)
			return error("%s is in use by another evalset process (pid %s)%s; %s", what, pid,
				     after, advice);
		return error("%s is in use by another evalset process%s; %s", what, after, advice);
	}
	if (ftruncate(fd, 0) == 0) {
		int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
		if (pwrite(fd, pid, (size_t)n, 0) < 0) {
			/* the pid is only a courtesy for the message above */
		}
	}
	lk->fd = fd;
	lk->path = xstrdup(path);
	return 0;
}

void lock_release(struct lock_file *lk)
{
	if (lk->fd >= 0) {
		close(lk->fd);
		lk->fd = -1;
	}
	free(lk->path);
	lk->path = NULL;
}

/* Return 'path' relative to the directory 'dir' (both must exist), e.g.
 * "../../corpus/chunks.jsonl"; or a copy of 'path' when either cannot be
 * resolved. Caller frees. */
char *path_relative_to(const char *path, const char *dir)
{
	char *abs_path = realpath(path, NULL), *abs_dir = realpath(dir, NULL);
	struct strbuf sb = STRBUF_INIT;
	size_t common = 0;

	if (!abs_path || !abs_dir) {
		free(abs_path);
		free(abs_dir);
		return xstrdup(path);
	}
	/* the longest common prefix that ends at a component boundary */
	if (!strncmp(abs_path, abs_dir, strlen(abs_dir)) && abs_path[strlen(abs_dir)] == '/') {
		common = strlen(abs_dir);
	} else {
		for (size_t i = 0; abs_path[i] && abs_path[i] == abs_dir[i]; i++)
			if (abs_path[i] == '/')
				common = i;
	}
	for (const char *p = abs_dir + common; *p; p++)
		if (*p == '/')
			strbuf_addstr(&sb, "../");
	strbuf_addstr(&sb, abs_path + common + 1);
	free(abs_path);
	free(abs_dir);
	return strbuf_detach(&sb, NULL);
}

bool path_inside(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

char *project_root(const char *dir)
{
	char *real = realpath(dir, NULL), *at;

	if (!real)
		return NULL;
	at = xstrdup(real);
	for (;;) {
		char *git = path_join(at, ".git"), *slash;
		bool found = path_exists(git);

		free(git);
		if (found) {
			free(real);
			return at;
		}
		slash = strrchr(at, '/');
		if (!slash || !strcmp(at, "/"))
			break;
		if (slash == at)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	free(at);
	return real;
}

/*
 * Return the directory of the running executable (caller frees), or NULL
 * where the system does not say (then only the compiled-in data directory
 * is left). No path of the build is compiled in: two builds of one commit
 * in different folders give the same binary.
 */
static char *exe_dir(void)
{
#ifdef __linux__
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	return dir_name(exe);
#else
	return NULL;
#endif
}

char *dir_holding(char *dir, const char *probe)
{
	char *file;
	bool ok;

	if (!dir)
		return NULL;
	file = path_join(dir, probe);
	ok = path_exists(file);
	free(file);
	if (ok)
		return dir;
	free(dir);
	return NULL;
}

char *data_dir_find(const char *sub, const char *probe)
{
	char *bin = exe_dir(), *dir = NULL;

	if (bin) {
		/* installed or staged: <prefix>/bin/evalset and <prefix>/share/evalset/SUB */
		dir = dir_holding(xstrfmt("%s/../share/evalset/%s", bin, sub), probe);
		/* a Python wheel's data: <venv>/bin/evalset and <venv>/evalset/SUB
		 * (its data scheme is the prefix itself, docs/python.md) */
		if (!dir)
			dir = dir_holding(xstrfmt("%s/../evalset/%s", bin, sub), probe);
		/* a build directory: meson copies SUB beside the binary */
		if (!dir)
			dir = dir_holding(path_join(bin, sub), probe);
		free(bin);
		if (dir)
			return dir;
	}
	return xstrfmt("%s/%s", EVALSET_DATADIR, sub);
}
