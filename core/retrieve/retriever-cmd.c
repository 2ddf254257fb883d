/*
 * retriever-cmd: a retriever command speaking JSON lines (see retriever.h).
 *
 * The protocol is strictly one request, one reply, in order: the next
 * request is written only after the reply to the previous one was accepted,
 * so a hang is always attributed to the question being asked. Both pipe
 * ends are non-blocking and every wait goes through poll() with a deadline,
 * sliced so that an interrupt is noticed within 200 ms. The command runs in
 * its own process group so that stopping it also stops what it started.
 */
#include "retrieve/retriever.h"
#include "set/set.h"
#include "base/error.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define REPLY_MAX_BYTES (64u << 20)

struct child {
	pid_t pid;
	int in;                 /* its stdin, our write end */
	int out;                /* its stdout, our read end */
	struct strbuf rbuf;     /* bytes read, not yet consumed */
	bool reaped;
	int status;
};

/*
 * Open a pipe whose both ends close on exec: pipe2 where the system has it
 * (one step, no window for another thread's fork), else pipe and fcntl.
 */
static int pipe_cloexec(int fd[2])
{
#ifdef HAVE_PIPE2
	return pipe2(fd, O_CLOEXEC);
#else
	if (pipe(fd))
		return -1;
	if (fcntl(fd[0], F_SETFD, FD_CLOEXEC) || fcntl(fd[1], F_SETFD, FD_CLOEXEC)) {
		int e = errno;

		close(fd[0]);
		close(fd[1]);
		fd[0] = fd[1] = -1;
		errno = e;
		return -1;
	}
	return 0;
#endif
}

static int start_child(struct child *ch, const char *command, char *const *env)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 };

	if (pipe_cloexec(in) || pipe_cloexec(out)) {
		error("cannot create pipes for the retriever: %s", strerror(errno));
		goto fail;
	}
	ch->pid = fork();
	if (ch->pid < 0) {
		error("cannot start the retriever: %s", strerror(errno));
		goto fail;
	}
	if (!ch->pid) {
		/* The child: its own process group, so a timeout kills all it started. */
		setpgid(0, 0);
		signal(SIGPIPE, SIG_DFL);
		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0)
			_exit(127);
		execle("/bin/sh", "sh", "-c", command, (char *)NULL, env);
		_exit(127);
	}
	setpgid(ch->pid, ch->pid); /* also here: whichever runs first wins the race */
	close(in[0]);
	close(out[1]);
	ch->in = in[1];
	ch->out = out[0];
	fcntl(ch->in, F_SETFL, fcntl(ch->in, F_GETFL) | O_NONBLOCK);
	fcntl(ch->out, F_SETFL, fcntl(ch->out, F_GETFL) | O_NONBLOCK);
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (in[i] >= 0)
			close(in[i]);
		if (out[i] >= 0)
			close(out[i]);
	}
	return -1;
}

/* Wait up to 'grace_ms' for the child to exit; return true when it has. */
static bool reap(struct child *ch, double grace_ms)
{
	double deadline = retriever_now_ms() + grace_ms;

	while (!ch->reaped) {
		pid_t r = waitpid(ch->pid, &ch->status, WNOHANG);
		if (r == ch->pid || (r < 0 && errno != EINTR)) {
			ch->reaped = true;
			break;
		}
		if (retriever_now_ms() >= deadline)
			return false;
		usleep(10000);
	}
	return true;
}

/* Stop the child and everything it started: TERM, a second of grace, KILL. */
static void kill_child(struct child *ch)
{
	if (ch->reaped)
		return;
	if (kill(-ch->pid, SIGTERM) < 0)
		kill(ch->pid, SIGTERM);
	if (reap(ch, 1000))
		return;
	if (kill(-ch->pid, SIGKILL) < 0)
		kill(ch->pid, SIGKILL);
	reap(ch, 5000);
}

/* Describe how the child ended ("exited with status 1") into 'out'. */
static void describe_exit(struct child *ch, struct strbuf *out)
{
	if (!reap(ch, 1000)) {
		strbuf_addstr(out, "closed its output");
		return;
	}
	if (WIFEXITED(ch->status) && WEXITSTATUS(ch->status) > 128)
		strbuf_addf(out, "exited with status %d (signal %d in the shell's command?)",
			    WEXITSTATUS(ch->status), WEXITSTATUS(ch->status) - 128);
	else if (WIFEXITED(ch->status))
		strbuf_addf(out, "exited with status %d", WEXITSTATUS(ch->status));
	else if (WIFSIGNALED(ch->status))
		strbuf_addf(out, "was killed by signal %d", WTERMSIG(ch->status));
	else
		strbuf_addstr(out, "ended");
}

/*
 * Wait until 'fd' is ready for 'events' or 'deadline' passes. Return 1 when
 * ready, 0 on timeout, ERR_INTERRUPTED when the job's stop() says so.
 */
static int wait_fd(int fd, short events, double deadline, struct job *job)
{
	for (;;) {
		struct pollfd p = { fd, events, 0 };
		double left = deadline - retriever_now_ms();
		int r;

		if (job->stop && job->stop())
			return ERR_INTERRUPTED;
		if (left <= 0)
			return 0;
		r = poll(&p, 1, left > 200 ? 200 : (int)left + 1);
		if (r > 0)
			return 1;
		if (r < 0 && errno != EINTR)
			return 1; /* let the read or write report the problem */
	}
}

enum io_result { IO_OK, IO_TIMEOUT, IO_CLOSED, IO_INTERRUPTED, IO_TOO_LONG };

static enum io_result send_all(struct child *ch, const char *buf, size_t len, double deadline,
			       struct job *job)
{
	while (len) {
		ssize_t n = write(ch->in, buf, len);
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			int w = wait_fd(ch->in, POLLOUT, deadline, job);
			if (w == ERR_INTERRUPTED)
				return IO_INTERRUPTED;
			if (!w)
				return IO_TIMEOUT;
			continue;
		}
		return IO_CLOSED; /* EPIPE: the child is gone */
	}
	return IO_OK;
}

/* Read one line (without "\n") into 'line'. */
static enum io_result recv_line(struct child *ch, struct strbuf *line, double deadline,
				struct job *job)
{
	char chunk[65536];

	for (;;) {
		char *nl = memchr(ch->rbuf.buf, '\n', ch->rbuf.len);
		ssize_t n;

		if (nl) {
			size_t len = (size_t)(nl - ch->rbuf.buf);
			strbuf_reset(line);
			strbuf_add(line, ch->rbuf.buf, len && nl[-1] == '\r' ? len - 1 : len);
			memmove(ch->rbuf.buf, nl + 1, ch->rbuf.len - len - 1);
			strbuf_setlen(&ch->rbuf, ch->rbuf.len - len - 1);
			return IO_OK;
		}
		if (ch->rbuf.len > REPLY_MAX_BYTES)
			return IO_TOO_LONG;
		n = read(ch->out, chunk, sizeof(chunk));
		if (n > 0) {
			strbuf_add(&ch->rbuf, chunk, (size_t)n);
			continue;
		}
		if (n == 0)
			return IO_CLOSED;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN) {
			int w = wait_fd(ch->out, POLLIN, deadline, job);
			if (w == ERR_INTERRUPTED)
				return IO_INTERRUPTED;
			if (!w)
				return IO_TIMEOUT;
			continue;
		}
		return IO_CLOSED;
	}
}

/* Check one reply line of the command for question 'i' and accept it. */
static int take_reply(struct job *job, size_t i, const struct strbuf *line)
{
	struct strbuf why = STRBUF_INIT;
	cJSON *reply = cJSON_ParseWithLength(line->buf, line->len);
	const cJSON *qid = NULL;
	const char *wrong = "";
	int rc = ERR_REMOTE;

	if (!cJSON_IsObject(reply)) {
		strbuf_addstr(&why, line->len ? "is not a JSON object: '" : "is an empty line");
		if (line->len) {
			retriever_excerpt(&why, line->buf, line->len);
			strbuf_addch(&why, '\'');
		}
		goto out;
	}
	qid = cJSON_GetObjectItemCaseSensitive(reply, "qid");
	if (!cJSON_IsString(qid)) {
		strbuf_addstr(&why, "has no \"qid\" string");
		goto out;
	}
	if (strcmp(qid->valuestring, job->qid[i])) {
		strbuf_addstr(&why, "is for another question '");
		retriever_excerpt(&why, qid->valuestring, strlen(qid->valuestring));
		strbuf_addch(&why, '\'');
		goto out;
	}
	if (job_accept_reply(job, i, reply, &why)) {
		wrong = "is wrong: ";
		goto out;
	}
	rc = 0;
out:
	if (rc)
		error("retriever's reply to question '%s' %s%s", job->qid[i], wrong, why.buf);
	cJSON_Delete(reply);
	strbuf_release(&why);
	return rc;
}

/* Return true when the variable 'var' ("NAME=value") is named by 'pat': a
 * name, or a prefix followed by '*'. */
static bool env_matches(const char *var, const char *pat)
{
	size_t n = strcspn(var, "="), p = strlen(pat);

	if (p && pat[p - 1] == '*')
		return n >= p - 1 && !strncmp(var, pat, p - 1);
	return n == p && !strncmp(var, pat, n);
}

char **retrieve_cmd_env(const char *const *pass, size_t nr_pass)
{
	static const char *const keep[] = {
		"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "LC_*", "TZ", "TMPDIR",
	};
	size_t nr = 0, alloc = 0;
	char **env = NULL;

	for (char **e = environ; e && *e; e++) {
		bool take = false;
		for (size_t i = 0; !take && i < ARRAY_SIZE(keep); i++)
			take = env_matches(*e, keep[i]);
		for (size_t i = 0; !take && i < nr_pass; i++)
			take = env_matches(*e, pass[i]);
		if (!take)
			continue;
		ALLOC_GROW(env, nr + 2, alloc);
		env[nr++] = *e;
	}
	ALLOC_GROW(env, nr + 1, alloc);
	env[nr] = NULL;
	return env;
}

int retrieve_cmd(const char *command, char *const *env, long timeout_ms, struct job *job)
{
	struct child ch = { -1, -1, -1, STRBUF_INIT, false, 0 };
	struct strbuf req = STRBUF_INIT, line = STRBUF_INIT, how = STRBUF_INIT;
	struct sigaction ign, old_pipe;
	int rc = 0;

	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old_pipe); /* a dead child must give EPIPE, not kill us */
	if (start_child(&ch, command, env)) {
		rc = ERR_REMOTE;
		goto out;
	}
	for (size_t i = 0; i < job->nr; i++) {
		cJSON *o = cJSON_CreateObject();
		char *s;
		double t0 = retriever_now_ms(), deadline = t0 + (double)timeout_ms;
		enum io_result io;

		if (job->ans[i].answered) { /* kept from an earlier run (--resume) */
			cJSON_Delete(o);
			continue;
		}
		cJSON_AddStringToObject(o, "qid", job->qid[i]);
		cJSON_AddStringToObject(o, "query", job->query[i]);
		cJSON_AddNumberToObject(o, "k", (double)job->k);
		if (job->with_history && job->question) {
			const struct question *q = job->question[i];
			cJSON_AddItemToObject(o, "history", job_history_json(job, i));
			if (q && q->conversation) {
				cJSON *c = cJSON_AddObjectToObject(o, "conversation");
				cJSON_AddStringToObject(c, "id", q->conversation);
				cJSON_AddNumberToObject(c, "turn", (double)q->turn);
			}
		}
		s = cJSON_PrintUnformatted(o);
		cJSON_Delete(o);
		strbuf_reset(&req);
		strbuf_addstr(&req, s);
		strbuf_addch(&req, '\n');
		cJSON_free(s);

		io = send_all(&ch, req.buf, req.len, deadline, job);
		if (io == IO_OK)
			io = recv_line(&ch, &line, deadline, job);
		switch (io) {
		case IO_OK:
			job->ans[i].latency_ms = retriever_now_ms() - t0;
			rc = take_reply(job, i, &line);
			break;
		case IO_INTERRUPTED:
			rc = ERR_INTERRUPTED;
			break;
		case IO_TIMEOUT:
			rc = ERR_REMOTE;
			error("retriever did not answer question '%s' within %g s",
			      job->qid[i], timeout_ms / 1000.0);
			break;
		case IO_TOO_LONG:
			rc = ERR_REMOTE;
			error("retriever's reply to question '%s' is longer than %u MiB without a newline",
			      job->qid[i], REPLY_MAX_BYTES >> 20);
			break;
		case IO_CLOSED:
			rc = ERR_REMOTE;
			describe_exit(&ch, &how);
			error("retriever %s before answering question '%s'", how.buf, job->qid[i]);
			break;
		}
		if (rc)
			goto out;
	}

	/* Every question answered: end of input tells the command to finish. */
	close(ch.in);
	ch.in = -1;
	if (!reap(&ch, 2000)) {
		warning("retriever still running after its input ended; stopping it");
		kill_child(&ch);
	} else if (WIFEXITED(ch.status) && WEXITSTATUS(ch.status)) {
		warning("retriever exited with status %d after answering every question",
			WEXITSTATUS(ch.status));
	} else if (WIFSIGNALED(ch.status)) {
		warning("retriever was killed by signal %d after answering every question",
			WTERMSIG(ch.status));
	}
out:
	if (ch.pid > 0)
		kill_child(&ch);
	if (ch.in >= 0)
		close(ch.in);
	if (ch.out >= 0)
		close(ch.out);
	sigaction(SIGPIPE, &old_pipe, NULL);
	strbuf_release(&ch.rbuf);
	strbuf_release(&req);
	strbuf_release(&line);
	strbuf_release(&how);
	return rc;
}

