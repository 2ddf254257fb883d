/*
 * evalset-forkserver: evalset, plus a mode in which it starts each command
 * by fork() from one process that has already started, for the test suites
 * of the sanitizer and emulated builds.
 *
 * Run as anything but "evalset-forkserver --listen SOCKET" it is evalset:
 * the same objects, with cmd/main.c's main() renamed evalset_main (meson
 * compiles that file apart with -Dmain=evalset_main).
 *
 * With --listen it serves on the Unix socket SOCKET: each connection is one
 * evalset command sent by client.c (protocol.h), which the server forks a
 * process for. That process takes on what the client's own process has
 * and an exec'd evalset would have kept: its descriptors 0, 1 and 2, its
 * command line, environment, working directory, umask, resource limits and
 * the signals it ignores and blocks; then it calls evalset_main. The server
 * itself calls nothing of evalset before it forks, so every command starts
 * from the state a fresh process starts from. The server tells the client
 * the process's id and, when it ends, its exit status or the signal that
 * ended it; when the client goes away first (killed), the server kills the
 * process.
 *
 * What a command started this way cannot see: its process id is not the
 * client's (the id $! gives a shell), its parent is the server, and the
 * sanitizer options are those the server started with. The start it saves
 * is the dynamic loader's and the sanitizer runtime's (about 80 of 90 ms
 * per command under AddressSanitizer on the machine it was measured on) or
 * the emulator's translation of the start-up code (under qemu-user).
 */
#include "protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

int evalset_main(int argc, const char **argv);

/* LeakSanitizer's entry point, where it is linked in (a weak reference:
 * NULL in a build without it) */
int __lsan_do_recoverable_leak_check(void) __attribute__((weak));

extern char **environ;

/* one command started and not yet reaped */
struct child {
	pid_t pid;
	int conn;	/* the client's connection, -1 once it went away */
};

static int sigchld_pipe[2] = { -1, -1 };

/*
 * What the server holds, and what a forked process takes from it, kept
 * where LeakSanitizer finds it when that process exits: a pointer held only
 * in a register or a dead stack slot would count as a leak of the server's
 * in every command.
 */
static struct child *kids;
static struct pollfd *pfd;
static char *request;
static const char **request_argv, **request_envp;

/* the greeting: a header and the start-time environment entries */
static char *greeting;
static size_t greeting_len;

/* Make the greeting from the environment the server started with. */
static int make_greeting(void)
{
	size_t len = 4;
	uint32_t n = 0;
	struct fs_header h = { FS_MAGIC, 0 };
	char *p;

	for (char **e = environ; *e; e++)
		if (fs_start_env(*e)) {
			len += strlen(*e) + 1;
			n++;
		}
	h.length = (uint32_t)len;
	greeting_len = sizeof(h) + len;
	greeting = p = malloc(greeting_len);
	if (!greeting)
		return -1;
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	memcpy(p, &n, 4);
	p += 4;
	for (char **e = environ; *e; e++)
		if (fs_start_env(*e)) {
			memcpy(p, *e, strlen(*e) + 1);
			p += strlen(*e) + 1;
		}
	return 0;
}

static __attribute__((format(printf, 1, 2))) void say(const char *fmt, ...)
{
	va_list ap;

	fputs("evalset-forkserver: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void on_sigchld(int sig)
{
	int saved = errno;
	char b = 0;

	(void)sig;
	if (write(sigchld_pipe[1], &b, 1) < 0) {
		/* the pipe is full: a wake-up is pending already */
	}
	errno = saved;
}

static void reply(int conn, enum fs_reply_kind kind, int32_t value)
{
	struct fs_reply r = { (uint32_t)kind, value };

	if (conn >= 0 && fs_write_all(conn, &r, sizeof(r)) < 0) {
		/* the client is gone; the process table says so when it reaps */
	}
}

/* A cursor over a request's body; 'bad' once it ran past the end. */
struct body {
	const char *p, *end;
	bool bad;
};

static uint64_t take_u(struct body *b, size_t width)
{
	uint64_t v = 0;

	if (b->bad || (size_t)(b->end - b->p) < width) {
		b->bad = true;
		return 0;
	}
	if (width == 4) {
		uint32_t v32;

		memcpy(&v32, b->p, 4);
		v = v32;
	} else {
		memcpy(&v, b->p, 8);
	}
	b->p += width;
	return v;
}

static const char *take_str(struct body *b)
{
	const char *s = b->p, *nul;

	if (b->bad || !(nul = memchr(b->p, '\0', (size_t)(b->end - b->p)))) {
		b->bad = true;
		return "";
	}
	b->p = nul + 1;
	return s;
}

/* Take a u32 count followed by that many strings: a NULL-terminated array
 * into 'b' (caller frees the array, not the strings), or NULL. */
static const char **take_strs(struct body *b, uint32_t *count)
{
	uint64_t n = take_u(b, 4);
	const char **v;

	if (b->bad || n > (uint64_t)(b->end - b->p))
		return NULL;
	v = calloc((size_t)n + 1, sizeof(*v));
	if (!v)
		return NULL;
	for (uint64_t i = 0; i < n; i++)
		v[i] = take_str(b);
	if (b->bad) {
		free(v);
		return NULL;
	}
	*count = (uint32_t)n;
	return v;
}

/*
 * In the forked process: become the client's command as 'body' describes it,
 * with 'fds' as descriptors 0, 1 and 2, and run it. Never returns.
 */
static void become(struct body *b, const int fds[3])
{
	uint32_t argc = 0, envc = 0, nlim;
	const char **argv = request_argv = take_strs(b, &argc);
	const char **envp = request_envp = take_strs(b, &envc);
	const char *cwd = take_str(b);
	mode_t mask = (mode_t)take_u(b, 4);
	struct sigaction dfl = { .sa_handler = SIG_DFL }, ign = { .sa_handler = SIG_IGN };
	uint64_t ignored, blocked;
	sigset_t set;

	if (!argv || !envp || argc == 0) {
		say("a request without a command line");
		_exit(125);
	}
	nlim = (uint32_t)take_u(b, 4);
	for (uint32_t r = 0; r < nlim && !b->bad; r++) {
		uint64_t cur = take_u(b, 8), max = take_u(b, 8);
		struct rlimit lim;

		if (r >= RLIM_NLIMITS || b->bad)
			continue;
		lim.rlim_cur = cur == FS_RLIM_INFINITY ? RLIM_INFINITY : (rlim_t)cur;
		lim.rlim_max = max == FS_RLIM_INFINITY ? RLIM_INFINITY : (rlim_t)max;
		if (setrlimit((int)r, &lim) < 0) {
			say("cannot set resource limit %u as the client has it: %s", r,
			    strerror(errno));
			_exit(125);
		}
	}
	ignored = take_u(b, 8);
	blocked = take_u(b, 8);
	if (b->bad) {
		say("a request cut short");
		_exit(125);
	}
	/*
	 * Signals: ignored where the client ignores them (exec keeps that);
	 * else at their default where the server ignores them or handles them
	 * itself (SIGCHLD, SIGPIPE), and otherwise as they are: a sanitizer
	 * runtime's handlers (SIGSEGV, SIGBUS, SIGFPE) are installed when the
	 * server starts, as they would be when evalset starts. Those the C
	 * library keeps for itself refuse, and are left as they are.
	 */
	for (int s = 1; s <= FS_MAX_SIGNAL; s++) {
		struct sigaction old;

		if (s == SIGKILL || s == SIGSTOP || sigaction(s, NULL, &old) < 0)
			continue;
		if ((ignored >> (s - 1)) & 1)
			(void)sigaction(s, &ign, NULL);
		else if (s == SIGCHLD || s == SIGPIPE || old.sa_handler == SIG_IGN)
			(void)sigaction(s, &dfl, NULL);
	}
	sigemptyset(&set);
	for (int s = 1; s <= FS_MAX_SIGNAL; s++)
		if ((blocked >> (s - 1)) & 1)
			(void)sigaddset(&set, s);
	umask(mask);
	if (chdir(cwd) < 0) {
		say("cannot enter the client's working directory '%s': %s", cwd, strerror(errno));
		_exit(125);
	}
	for (int fd = 0; fd < 3; fd++)
		if (dup2(fds[fd], fd) < 0) {
			say("cannot take the client's descriptor %d: %s", fd, strerror(errno));
			_exit(125);
		}
	for (int fd = 0; fd < 3; fd++)
		if (fds[fd] > 2)
			close(fds[fd]);
	environ = (char **)envp;
	(void)sigprocmask(SIG_SETMASK, &set, NULL);
	exit(evalset_main((int)argc, argv));
}

/* Receive the header and the three descriptors of a request on 'conn';
 * return 0, or -1. */
static int receive_header(int conn, struct fs_header *h, int fds[3])
{
	char control[CMSG_SPACE(3 * sizeof(int))];
	struct iovec iov = { h, sizeof(*h) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control, .msg_controllen = sizeof(control),
	};
	struct cmsghdr *c;
	ssize_t r;
	bool got = false;

	memset(control, 0, sizeof(control));
	do
		r = recvmsg(conn, &msg, 0);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return -1;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		if (c->cmsg_len == CMSG_LEN(3 * sizeof(int))) {
			memcpy(fds, CMSG_DATA(c), 3 * sizeof(int));
			got = true;
		} else {
			/* a count other than three: close what came */
			size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			for (size_t i = 0; i < n; i++) {
				int fd;

				memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
				close(fd);
			}
		}
	}
	if (got)
		for (int i = 0; i < 3; i++)
			(void)fcntl(fds[i], F_SETFD, FD_CLOEXEC);
	if (!got || (size_t)r > sizeof(*h)
	    || fs_read_all(conn, (char *)h + r, sizeof(*h) - (size_t)r) < 0
	    || h->magic != FS_MAGIC || h->length > FS_MAX_BODY) {
		if (got)
			for (int i = 0; i < 3; i++)
				close(fds[i]);
		return -1;
	}
	return 0;
}

/* Serve the request of the new connection 'conn': fork its command; return
 * its process id, or -1 (the connection is then closed). */
static pid_t start(int conn, int listener, size_t nkids)
{
	struct fs_header h;
	int fds[3];
	char *data;
	pid_t pid;

	if (fs_write_all(conn, greeting, greeting_len) < 0 || receive_header(conn, &h, fds) < 0)
		goto refused;
	data = request = malloc(h.length ? h.length : 1);
	if (!data || fs_read_all(conn, data, h.length) < 0) {
		free(data);
		request = NULL;
		for (int i = 0; i < 3; i++)
			close(fds[i]);
		goto refused;
	}
	pid = fork();
	if (pid == 0) {
		struct body b = { data, data + h.length, false };

		close(listener);
		close(sigchld_pipe[0]);
		close(sigchld_pipe[1]);
		close(conn);
		for (size_t i = 0; i < nkids; i++)
			if (kids[i].conn >= 0)
				close(kids[i].conn);
		become(&b, fds);
	}
	free(data);
	request = NULL;
	for (int i = 0; i < 3; i++)
		close(fds[i]);
	if (pid < 0) {
		say("cannot fork: %s", strerror(errno));
		goto refused;
	}
	reply(conn, FS_STARTED, (int32_t)pid);
	return pid;
refused:
	close(conn);
	return -1;
}

/* Reap every ended process and tell its client how it ended. */
static void reap(size_t *nkids)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (size_t i = 0; i < *nkids; i++) {
			if (kids[i].pid != pid)
				continue;
			if (WIFEXITED(status))
				reply(kids[i].conn, FS_EXITED, WEXITSTATUS(status));
			else if (WIFSIGNALED(status))
				reply(kids[i].conn, FS_SIGNALED, WTERMSIG(status));
			if (kids[i].conn >= 0)
				close(kids[i].conn);
			kids[i] = kids[--*nkids];
			break;
		}
	}
}

/* Listen on the Unix socket 'path' (made under a temporary name and renamed
 * when it listens, so that a waiting script sees it only when it can
 * connect); serve until killed. Return 125 if it cannot listen. */
static int serve(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct sigaction sa = { .sa_handler = on_sigchld, .sa_flags = SA_RESTART };
	size_t nkids = 0, cap = 0;
	char tmp[sizeof(addr.sun_path)];
	int listener;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp)) {
		say("socket path too long: '%s'", path);
		return 125;
	}
	/* gone with the script that started it, however that ends */
	(void)prctl(PR_SET_PDEATHSIG, SIGTERM);
	signal(SIGPIPE, SIG_IGN);
	/*
	 * LeakSanitizer's check at the exit of every command reads all of its
	 * runtime's tables, about 9 MB never written: each page of them a page
	 * fault in every process (about 2,200 per command, a third of one's
	 * start on the machine measured). Checked once here, the pages are
	 * mapped in the server, and a forked process has them mapped too.
	 */
	if (__lsan_do_recoverable_leak_check && __lsan_do_recoverable_leak_check()) {
		say("leaks before serving anything (above)");
		return 125;
	}
	if (make_greeting() < 0 || pipe(sigchld_pipe) < 0)
		goto fail;
	for (int i = 0; i < 2; i++)
		if (fcntl(sigchld_pipe[i], F_SETFL, O_NONBLOCK) < 0
		    || fcntl(sigchld_pipe[i], F_SETFD, FD_CLOEXEC) < 0)
			goto fail;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGCHLD, &sa, NULL) < 0)
		goto fail;
	listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (listener < 0)
		goto fail;
	memcpy(addr.sun_path, tmp, strlen(tmp) + 1);
	unlink(tmp);
	if (bind(listener, (struct sockaddr *)&addr, sizeof(addr)) < 0 || listen(listener, 64) < 0
	    || rename(tmp, path) < 0)
		goto fail;
	for (;;) {
		size_t n = 0;

		if (cap < nkids + 1) {
			cap = 2 * (nkids + 1);
			kids = realloc(kids, cap * sizeof(*kids));
			pfd = realloc(pfd, (cap + 2) * sizeof(*pfd));
			if (!kids || !pfd) {
				say("out of memory");
				return 125;
			}
		}
		pfd[n++] = (struct pollfd){ .fd = sigchld_pipe[0], .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = listener, .events = POLLIN };
		for (size_t i = 0; i < nkids; i++)
			pfd[n++] = (struct pollfd){ .fd = kids[i].conn, .events = POLLIN };
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		/* a client that went away (it sends nothing after its request):
		 * its command is killed, as it would have died with it */
		for (size_t i = 0; i < nkids; i++)
			if (kids[i].conn >= 0 && pfd[2 + i].revents) {
				close(kids[i].conn);
				kids[i].conn = -1;
				kill(kids[i].pid, SIGKILL);
			}
		if (pfd[0].revents) {
			char drain[64];

			while (read(sigchld_pipe[0], drain, sizeof(drain)) > 0)
				;
			reap(&nkids);
		}
		if (pfd[1].revents) {
			int conn = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
			pid_t pid;

			if (conn < 0)
				continue;
			pid = start(conn, listener, nkids);
			if (pid > 0)
				kids[nkids++] = (struct child){ pid, conn };
			/* a command that ended before it was in the table */
			reap(&nkids);
		}
	}
fail:
	say("cannot serve on '%s': %s", path, strerror(errno));
	return 125;
}

int main(int argc, const char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--listen"))
		return serve(argv[2]);
	return evalset_main(argc, argv);
}
