/*
 * The fork server's client: a small native program, linked statically,
 * that the test scripts run as "evalset". It sends its command line,
 * environment, working directory, umask, resource limits, the signals it
 * ignores and blocks, and its descriptors 0, 1 and 2 to the server whose
 * socket EVALSET_FORKSERVER names (server.c, protocol.h), and ends as the
 * command ends: with its exit status, or killed by the same signal. The
 * signals a script sends it (kill, timeout, Ctrl-C) go on to the command.
 *
 * When it cannot reach the server or the server drops the command it says
 * so and exits 125, a status no evalset command has.
 */
#include "protocol.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <fcntl.h>
#include <unistd.h>

extern char **environ;

static volatile sig_atomic_t command_pid;
static volatile sig_atomic_t pending[FS_MAX_SIGNAL + 1];

/* the signals passed on to the command */
static const int forwarded[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM };

static void forward(int sig)
{
	int saved = errno;

	if (command_pid > 0)
		kill((pid_t)command_pid, sig);
	else
		pending[sig] = 1;
	errno = saved;
}

static void fail(const char *what)
{
	fprintf(stderr, "evalset (fork server client): %s\n", what);
	exit(125);
}

/* a growable byte buffer for the request body */
struct buf {
	char *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = 2 * (b->len + n) + 4096;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			fail("out of memory");
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void put_u32(struct buf *b, uint32_t v)
{
	put(b, &v, sizeof(v));
}

static void put_u64(struct buf *b, uint64_t v)
{
	put(b, &v, sizeof(v));
}

static void put_str(struct buf *b, const char *s)
{
	put(b, s, strlen(s) + 1);
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * Read the server's greeting on 'sock' and return whether the entries of
 * this process's environment that only matter when a process starts
 * (fs_start_env) are those the server started with.
 */
static int same_start_env(int sock)
{
	struct fs_header h;
	const char **theirs, **ours;
	char *data, *p, *end;
	uint32_t n;
	size_t m = 0, k = 0;

	if (fs_read_all(sock, &h, sizeof(h)) < 0 || h.magic != FS_MAGIC || h.length < 4
	    || h.length > FS_MAX_BODY)
		fail("the fork server sent no greeting");
	data = malloc(h.length + 1);
	if (!data || fs_read_all(sock, data, h.length) < 0)
		fail("the fork server's greeting is cut short");
	data[h.length] = '\0';
	memcpy(&n, data, 4);
	if (n > h.length)
		fail("the fork server's greeting is malformed");
	theirs = calloc((size_t)n + 1, sizeof(*theirs));
	for (p = data + 4, end = data + h.length; theirs && m < n && p < end; p += strlen(p) + 1)
		theirs[m++] = p;
	if (!theirs || m != n)
		fail("the fork server's greeting is malformed");
	for (char **e = environ; *e; e++)
		k += fs_start_env(*e);
	ours = calloc(k + 1, sizeof(*ours));
	if (!ours)
		fail("out of memory");
	k = 0;
	for (char **e = environ; *e; e++)
		if (fs_start_env(*e))
			ours[k++] = *e;
	if (k != m)
		return 0;
	qsort(theirs, m, sizeof(*theirs), by_string);
	qsort(ours, k, sizeof(*ours), by_string);
	for (size_t i = 0; i < k; i++)
		if (strcmp(theirs[i], ours[i]))
			return 0;
	return 1;
}

/*
 * Execute evalset itself, as EVALSET_FORKSERVER_EXEC names it (the program
 * and the words before evalset's arguments, one per line: the emulator and
 * the binary under one), with this process's arguments after them.
 */
static void exec_itself(int argc, char **argv)
{
	const char *words = getenv("EVALSET_FORKSERVER_EXEC");
	char *copy, *line, *nl;
	char **args;
	int n = 0;

	if (!words || !*words)
		fail("the environment differs from the fork server's where only a new process "
		     "would see it, and EVALSET_FORKSERVER_EXEC names no program to run instead");
	copy = strdup(words);
	args = calloc(strlen(words) + (size_t)argc + 1, sizeof(*args));
	if (!copy || !args)
		fail("out of memory");
	for (line = copy; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (*line)
			args[n++] = line;
		if (!nl)
			break;
	}
	if (n == 0)
		fail("EVALSET_FORKSERVER_EXEC names no program");
	for (int i = 1; i < argc; i++)
		args[n++] = argv[i];
	execv(args[0], args);
	fprintf(stderr, "evalset (fork server client): cannot execute '%s': %s\n", args[0],
		strerror(errno));
	exit(125);
}

int main(int argc, char **argv)
{
	const char *path = getenv("EVALSET_FORKSERVER");
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct buf body = { 0 };
	struct fs_header h;
	struct fs_reply r;
	char cwd[4096], control[CMSG_SPACE(3 * sizeof(int))];
	struct iovec iov;
	struct msghdr msg = { 0 };
	struct cmsghdr *c;
	uint64_t ignored = 0, blocked = 0;
	sigset_t mask;
	mode_t um;
	int fds[3], sock, n;

	if (!path || !*path)
		fail("EVALSET_FORKSERVER names no socket");
	if (strlen(path) >= sizeof(addr.sun_path))
		fail("the socket path in EVALSET_FORKSERVER is too long");
	memcpy(addr.sun_path, path, strlen(path) + 1);

	put_u32(&body, (uint32_t)argc);
	for (int i = 0; i < argc; i++)
		put_str(&body, argv[i]);
	n = 0;
	while (environ[n])
		n++;
	put_u32(&body, (uint32_t)n);
	for (int i = 0; i < n; i++)
		put_str(&body, environ[i]);
	if (!getcwd(cwd, sizeof(cwd)))
		fail("cannot read the working directory");
	put_str(&body, cwd);
	um = umask(0);
	umask(um);
	put_u32(&body, (uint32_t)um);
	put_u32(&body, RLIM_NLIMITS);
	for (int res = 0; res < RLIM_NLIMITS; res++) {
		struct rlimit lim;

		if (getrlimit(res, &lim) < 0)
			fail("cannot read a resource limit");
		put_u64(&body, lim.rlim_cur == RLIM_INFINITY ? FS_RLIM_INFINITY : (uint64_t)lim.rlim_cur);
		put_u64(&body, lim.rlim_max == RLIM_INFINITY ? FS_RLIM_INFINITY : (uint64_t)lim.rlim_max);
	}
	sigprocmask(SIG_SETMASK, NULL, &mask);
	for (int s = 1; s <= FS_MAX_SIGNAL; s++) {
		struct sigaction old;

		if (sigaction(s, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			ignored |= (uint64_t)1 << (s - 1);
		if (sigismember(&mask, s) == 1)
			blocked |= (uint64_t)1 << (s - 1);
	}
	put_u64(&body, ignored);
	put_u64(&body, blocked);

	/* a closed standard descriptor goes as /dev/null, as evalset would
	 * open it in its place */
	for (int fd = 0; fd < 3; fd++) {
		fds[fd] = fd;
		if (fcntl(fd, F_GETFD) < 0 && (fds[fd] = open("/dev/null", O_RDWR)) < 0)
			fail("cannot open /dev/null");
	}

	sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sock < 0 || connect(sock, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		fprintf(stderr, "evalset (fork server client): cannot reach the fork server at '%s': %s\n",
			path, strerror(errno));
		return 125;
	}
	if (!same_start_env(sock)) {
		close(sock);
		exec_itself(argc, argv);
	}

	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++) {
		struct sigaction sa = { .sa_handler = forward, .sa_flags = SA_RESTART };

		sigemptyset(&sa.sa_mask);
		sigaction(forwarded[i], &sa, NULL);
	}
	sigprocmask(SIG_UNBLOCK, &mask, NULL);
	h.magic = FS_MAGIC;
	h.length = (uint32_t)body.len;
	iov.iov_base = &h;
	iov.iov_len = sizeof(h);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = control;
	msg.msg_controllen = sizeof(control);
	memset(control, 0, sizeof(control));
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(3 * sizeof(int));
	memcpy(CMSG_DATA(c), fds, 3 * sizeof(int));
	while (sendmsg(sock, &msg, MSG_NOSIGNAL) != (ssize_t)sizeof(h))
		if (errno != EINTR)
			fail("cannot send the command to the fork server");
	if (fs_write_all(sock, body.p, body.len) < 0)
		fail("cannot send the command to the fork server");
	if (fs_read_all(sock, &r, sizeof(r)) < 0 || r.kind != FS_STARTED || r.value <= 0)
		fail("the fork server did not start the command");
	command_pid = r.value;
	for (int s = 1; s <= FS_MAX_SIGNAL; s++)
		if (pending[s])
			kill((pid_t)r.value, s);
	if (fs_read_all(sock, &r, sizeof(r)) < 0)
		fail("the fork server went away before the command ended");
	if (r.kind == FS_EXITED)
		return r.value;
	if (r.kind == FS_SIGNALED && r.value > 0 && r.value <= FS_MAX_SIGNAL) {
		struct rlimit none = { 0, 0 };
		struct sigaction dfl = { .sa_handler = SIG_DFL };
		sigset_t one;

		/* end the same way: a shell sees 128 + the signal; no core file */
		setrlimit(RLIMIT_CORE, &none);
		sigaction(r.value, &dfl, NULL);
		sigemptyset(&one);
		sigaddset(&one, r.value);
		sigprocmask(SIG_UNBLOCK, &one, NULL);
		raise(r.value);
		_exit(128 + r.value);
	}
	fail("the fork server sent an unknown reply");
}
