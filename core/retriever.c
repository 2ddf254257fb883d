/*
 * retriever: the three ways of answering a job (BM25, a command, an HTTP
 * endpoint) and the JSONL run writer (see retriever.h for the contract).
 *
 * Invariants: an answer is either untouched (answered false, no hits) or
 * complete and valid (answered true: ids non-empty and unique, at most k);
 * a reply that fails a check never leaves a half-filled answer behind, so
 * whatever stops a job, the answers kept are exactly the accepted ones.
 *
 * The command protocol is strictly one request, one reply, in order: the
 * next request is written only after the reply to the previous one was
 * accepted, so a hang is always attributed to the question being asked.
 * Both pipe ends are non-blocking and every wait goes through poll() with a
 * deadline, sliced so that an interrupt is noticed within 200 ms.
 */
#include "retriever.h"
#include "bm25.h"
#include "corpus.h"
#include "error.h"
#include "http.h"
#include "strmap.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REPLY_MAX_BYTES (64u << 20)
#define EXCERPT_BYTES 60

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

/* Append at most EXCERPT_BYTES of 's' to 'out', control bytes shown as '?'. */
static void add_excerpt(struct strbuf *out, const char *s, size_t len)
{
	size_t n = len < EXCERPT_BYTES ? len : EXCERPT_BYTES;

	for (size_t i = 0; i < n; i++)
		strbuf_addch(out, (unsigned char)s[i] < 0x20 ? '?' : s[i]);
	if (n < len)
		strbuf_addstr(out, "...");
}

/* ---- jobs and answers ---- */

void job_init(struct job *job, size_t nr, long k)
{
	memset(job, 0, sizeof(*job));
	job->nr = nr;
	job->k = k;
	job->qid = xcalloc(nr ? nr : 1, sizeof(*job->qid));
	job->query = xcalloc(nr ? nr : 1, sizeof(*job->query));
	job->ans = xcalloc(nr ? nr : 1, sizeof(*job->ans));
}

static void answer_clear(struct answer *a)
{
	for (size_t i = 0; i < a->nr; i++)
		free(a->hits[i].id);
	free(a->hits);
	memset(a, 0, sizeof(*a));
}

void job_release(struct job *job)
{
	for (size_t i = 0; i < job->nr; i++)
		answer_clear(&job->ans[i]);
	free(job->ans);
	free(job->qid);
	free(job->query);
	memset(job, 0, sizeof(*job));
}

size_t job_answered(const struct job *job)
{
	size_t n = 0;

	for (size_t i = 0; i < job->nr; i++)
		n += job->ans[i].answered;
	return n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double job_latency(const struct job *job, double p)
{
	double *v = xmalloc((job->nr ? job->nr : 1) * sizeof(*v)), r;
	size_t n = 0, rank;

	for (size_t i = 0; i < job->nr; i++)
		if (job->ans[i].answered)
			v[n++] = job->ans[i].latency_ms;
	if (!n) {
		free(v);
		return -1;
	}
	qsort(v, n, sizeof(*v), cmp_double);
	rank = (size_t)ceil(p * (double)n);
	r = v[rank ? rank - 1 : 0];
	free(v);
	return r;
}

int job_accept(struct job *job, size_t i, const cJSON *results, const cJSON *abstained,
	       struct strbuf *why)
{
	struct answer a = { NULL, 0, 0, false, false, 0 };
	struct strmap seen = STRMAP_INIT;
	const cJSON *item;
	long pos = 0;
	int rc = -1;

	if (abstained && !cJSON_IsBool(abstained)) {
		strbuf_addstr(why, "\"abstained\" is not true or false");
		goto out;
	}
	a.abstained = cJSON_IsTrue(abstained);
	if (!results && !a.abstained) {
		strbuf_addstr(why, "no \"results\" list");
		goto out;
	}
	if (results && !cJSON_IsArray(results)) {
		strbuf_addstr(why, "\"results\" is not a list");
		goto out;
	}
	cJSON_ArrayForEach(item, results) {
		const cJSON *id = item, *score = NULL;
		int added;

		pos++;
		if (cJSON_IsObject(item)) {
			id = cJSON_GetObjectItemCaseSensitive(item, "id");
			score = cJSON_GetObjectItemCaseSensitive(item, "score");
		}
		if (!cJSON_IsString(id) || !*id->valuestring) {
			strbuf_addf(why, "result %ld is neither an id string nor an object with an \"id\" string", pos);
			goto out;
		}
		if (score && !cJSON_IsNumber(score)) {
			strbuf_addf(why, "result %ld ('%s') has a \"score\" that is not a number", pos,
				    id->valuestring);
			goto out;
		}
		strmap_intern(&seen, id->valuestring, strlen(id->valuestring), &added);
		if (!added) {
			strbuf_addf(why, "document '%s' is listed twice", id->valuestring);
			goto out;
		}
		if ((long)a.nr >= job->k)
			continue; /* beyond k: checked, not kept */
		ALLOC_GROW(a.hits, a.nr + 1, a.alloc);
		a.hits[a.nr].id = xstrdup(id->valuestring);
		a.hits[a.nr].score = score ? score->valuedouble : NAN;
		a.nr++;
	}
	a.answered = true;
	a.latency_ms = job->ans[i].latency_ms;
	answer_clear(&job->ans[i]);
	job->ans[i] = a;
	memset(&a, 0, sizeof(a));
	rc = 0;
out:
	answer_clear(&a);
	strmap_clear(&seen, 0);
	return rc;
}

/* ---- BM25 ---- */

int retrieve_bm25(const struct bm25 *ix, struct job *job)
{
	struct bm25_hit *hits = xmalloc((size_t)job->k * sizeof(*hits));
	int rc = 0;

	for (size_t i = 0; i < job->nr; i++) {
		struct answer *a = &job->ans[i];
		double t0 = now_ms();
		size_t n;

		if (job->stop && job->stop()) {
			rc = ERR_INTERRUPTED;
			break;
		}
		n = bm25_search(ix, job->query[i], (size_t)job->k, hits);
		answer_clear(a);
		a->hits = xcalloc(n ? n : 1, sizeof(*a->hits));
		a->alloc = n ? n : 1;
		for (size_t h = 0; h < n; h++) {
			a->hits[h].id = xstrdup(ix->corpus->chunks[hits[h].doc].id);
			a->hits[h].score = hits[h].score;
		}
		a->nr = n;
		a->answered = true;
		a->latency_ms = now_ms() - t0;
	}
	free(hits);
	return rc;
}

/* ---- a command speaking JSON lines ---- */

struct child {
	pid_t pid;
	int in;                 /* its stdin, our write end */
	int out;                /* its stdout, our read end */
	struct strbuf rbuf;     /* bytes read, not yet consumed */
	bool reaped;
	int status;
};

static int start_child(struct child *ch, const char *command)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 };

	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) {
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
		execl("/bin/sh", "sh", "-c", command, (char *)NULL);
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
	double deadline = now_ms() + grace_ms;

	while (!ch->reaped) {
		pid_t r = waitpid(ch->pid, &ch->status, WNOHANG);
		if (r == ch->pid || (r < 0 && errno != EINTR)) {
			ch->reaped = true;
			break;
		}
		if (now_ms() >= deadline)
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
		double left = deadline - now_ms();
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
			add_excerpt(&why, line->buf, line->len);
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
		add_excerpt(&why, qid->valuestring, strlen(qid->valuestring));
		strbuf_addch(&why, '\'');
		goto out;
	}
	if (job_accept(job, i, cJSON_GetObjectItemCaseSensitive(reply, "results"),
		       cJSON_GetObjectItemCaseSensitive(reply, "abstained"), &why)) {
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

int retrieve_cmd(const char *command, long timeout_ms, struct job *job)
{
	struct child ch = { -1, -1, -1, STRBUF_INIT, false, 0 };
	struct strbuf req = STRBUF_INIT, line = STRBUF_INIT, how = STRBUF_INIT;
	struct sigaction ign, old_pipe;
	int rc = 0;

	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old_pipe); /* a dead child must give EPIPE, not kill us */
	if (start_child(&ch, command)) {
		rc = ERR_REMOTE;
		goto out;
	}
	for (size_t i = 0; i < job->nr; i++) {
		cJSON *o = cJSON_CreateObject();
		char *s;
		double t0 = now_ms(), deadline = t0 + (double)timeout_ms;
		enum io_result io;

		cJSON_AddStringToObject(o, "qid", job->qid[i]);
		cJSON_AddStringToObject(o, "query", job->query[i]);
		cJSON_AddNumberToObject(o, "k", (double)job->k);
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
			job->ans[i].latency_ms = now_ms() - t0;
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

/* ---- an HTTP endpoint ---- */

/* Append 's' JSON-escaped (no quotes) to 'out'. */
static void add_json_escaped(struct strbuf *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '"': strbuf_addstr(out, "\\\""); break;
		case '\\': strbuf_addstr(out, "\\\\"); break;
		case '\n': strbuf_addstr(out, "\\n"); break;
		case '\r': strbuf_addstr(out, "\\r"); break;
		case '\t': strbuf_addstr(out, "\\t"); break;
		default:
			if (c < 0x20)
				strbuf_addf(out, "\\u%04x", c);
			else
				strbuf_addch(out, (char)c);
		}
	}
}

int url_render_body(const char *tmpl, const char *qid, const char *query, long k,
		    struct strbuf *out)
{
	const char *p = tmpl;
	cJSON *check;

	strbuf_reset(out);
	while (*p) {
		const char *open = strstr(p, "{{"), *close;
		if (!open) {
			strbuf_addstr(out, p);
			break;
		}
		strbuf_add(out, p, (size_t)(open - p));
		close = strstr(open + 2, "}}");
		if (!close)
			return error("unclosed '{{' in the body template");
		if (close - open == 7 && !strncmp(open, "{{query}}", 9))
			add_json_escaped(out, query);
		else if (close - open == 5 && !strncmp(open, "{{qid}}", 7))
			add_json_escaped(out, qid);
		else if (close - open == 3 && !strncmp(open, "{{k}}", 5))
			strbuf_addf(out, "%ld", k);
		else
			return error("unknown placeholder '%.*s' in the body template "
				     "(known: {{query}}, {{qid}}, {{k}})", (int)(close + 2 - open), open);
		p = close + 2;
	}
	check = cJSON_ParseWithLength(out->buf, out->len);
	if (!check)
		return error("the body template does not give valid JSON (put {{query}} "
			     "inside quotes): '%s'", out->buf);
	cJSON_Delete(check);
	return 0;
}

char *url_redact(const char *url)
{
	const char *scheme = strstr(url, "://"), *host, *end, *at;
	struct strbuf sb = STRBUF_INIT;

	host = scheme ? scheme + 3 : url;
	end = host + strcspn(host, "/?#");
	at = memchr(host, '@', (size_t)(end - host));
	while (at && memchr(at + 1, '@', (size_t)(end - at - 1)))
		at = memchr(at + 1, '@', (size_t)(end - at - 1));
	strbuf_add(&sb, url, (size_t)(host - url));
	strbuf_add(&sb, at ? at + 1 : host, (size_t)(end - (at ? at + 1 : host)));
	strbuf_add(&sb, end, strcspn(end, "?#"));
	return strbuf_detach(&sb, NULL);
}

/* Follow the dotted 'path' ("data.hits", "results.0.docs") from 'root'; NULL when absent. */
static const cJSON *follow_path(const cJSON *root, const char *path)
{
	const cJSON *cur = root;
	struct strbuf seg = STRBUF_INIT;

	while (cur && *path) {
		size_t n = strcspn(path, ".");
		long idx;

		strbuf_reset(&seg);
		strbuf_add(&seg, path, n);
		if (cJSON_IsArray(cur) && !parse_long(seg.buf, 0, INT32_MAX, &idx))
			cur = cJSON_GetArrayItem(cur, (int)idx);
		else if (cJSON_IsObject(cur))
			cur = cJSON_GetObjectItemCaseSensitive(cur, seg.buf);
		else
			cur = NULL;
		path += n;
		if (*path == '.')
			path++;
	}
	strbuf_release(&seg);
	return cur;
}

struct url_ctx {
	const struct url_retriever *u;
	struct job *job;
};

struct url_req {
	struct url_ctx *ctx;
	size_t i;   /* the question it asks */
};

static int url_done(const struct http_response *res, void *data)
{
	struct url_req *r = data;
	struct job *job = r->ctx->job;
	const char *qid = job->qid[r->i];
	const char *path = r->ctx->u->results_path;
	struct strbuf why = STRBUF_INIT;
	cJSON *reply = NULL;
	const cJSON *results;
	int rc = 1;

	if (res->cancelled)
		return 0;
	if (!res->status) {
		error("endpoint unreachable for question '%s' after %d attempt%s: %s", qid,
		      res->attempts, res->attempts == 1 ? "" : "s", res->error);
		goto out;
	}
	if (res->status < 200 || res->status > 299) {
		add_excerpt(&why, res->body, res->body_len);
		error("endpoint answered HTTP %ld for question '%s' after %d attempt%s: '%s'",
		      res->status, qid, res->attempts, res->attempts == 1 ? "" : "s", why.buf);
		goto out;
	}
	reply = cJSON_ParseWithLength(res->body, res->body_len);
	if (!reply) {
		add_excerpt(&why, res->body, res->body_len);
		error("endpoint's reply to question '%s' is not JSON: '%s'", qid, why.buf);
		goto out;
	}
	results = *path ? follow_path(reply, path) : reply;
	if (!results) {
		error("endpoint's reply to question '%s' has no '%s' (set the path with --results)",
		      qid, path);
		goto out;
	}
	if (!cJSON_IsArray(results)) {
		error("endpoint's reply to question '%s' has a '%s' that is not a list", qid, path);
		goto out;
	}
	job->ans[r->i].latency_ms = res->elapsed * 1000.0;
	if (job_accept(job, r->i, results,
		       cJSON_IsObject(reply) ? cJSON_GetObjectItemCaseSensitive(reply, "abstained") : NULL,
		       &why)) {
		error("endpoint's reply to question '%s' is wrong: %s", qid, why.buf);
		goto out;
	}
	rc = 0;
out:
	cJSON_Delete(reply);
	strbuf_release(&why);
	return rc;
}

static int url_stop(void *data)
{
	struct url_ctx *ctx = data;
	return ctx->job->stop && ctx->job->stop();
}

/* True when 'headers' sets 'name' (case-insensitive). */
static bool has_header(const char *const *headers, const char *name)
{
	size_t n = strlen(name);

	for (; headers && *headers; headers++)
		if (!strncasecmp(*headers, name, n) && (*headers)[n] == ':')
			return true;
	return false;
}

int retrieve_url(const struct url_retriever *u, struct job *job)
{
	struct http_options o = HTTP_OPTIONS_INIT;
	struct url_ctx ctx = { u, job };
	struct url_req *reqs = xcalloc(job->nr ? job->nr : 1, sizeof(*reqs));
	struct strbuf body = STRBUF_INIT;
	const char **headers;
	size_t nh = 0;
	struct http_client *c = NULL;
	int rc = 0;

	for (const char *const *h = u->headers; h && *h; h++)
		nh++;
	headers = xcalloc(nh + 3, sizeof(*headers));
	nh = 0;
	for (const char *const *h = u->headers; h && *h; h++)
		headers[nh++] = *h;
	if (!has_header(u->headers, "Content-Type"))
		headers[nh++] = "Content-Type: application/json";
	if (!has_header(u->headers, "Accept"))
		headers[nh++] = "Accept: application/json";

	o.concurrency = u->concurrency > 0 ? u->concurrency : 4;
	if (u->timeout_ms > 0)
		o.timeout_ms = u->timeout_ms;
	if (u->max_attempts > 0)
		o.max_attempts = u->max_attempts;
	o.done = url_done;
	o.stop = url_stop;
	o.ctx = &ctx;
	c = http_client_new(&o);
	for (size_t i = 0; i < job->nr; i++) {
		if (url_render_body(u->body, job->qid[i], job->query[i], job->k, &body)) {
			rc = ERR_INPUT;
			goto out;
		}
		reqs[i].ctx = &ctx;
		reqs[i].i = i;
		http_submit(c, "POST", u->url, headers, body.buf, body.len, &reqs[i]);
	}
	rc = http_run(c);
	if (rc && rc != ERR_INTERRUPTED)
		rc = ERR_REMOTE;
out:
	if (c)
		http_client_free(c);
	free(headers);
	free(reqs);
	strbuf_release(&body);
	return rc;
}

/* ---- the run file ---- */

static cJSON *answer_line(const struct job *job, size_t i, bool with_latency)
{
	const struct answer *a = &job->ans[i];
	cJSON *o = cJSON_CreateObject(), *list = cJSON_CreateArray();
	bool scored = true;

	for (size_t h = 0; h < a->nr; h++)
		if (isnan(a->hits[h].score))
			scored = false;
	for (size_t h = 0; h < a->nr; h++) {
		if (scored) {
			cJSON *r = cJSON_CreateObject();
			cJSON_AddStringToObject(r, "id", a->hits[h].id);
			cJSON_AddNumberToObject(r, "score", a->hits[h].score);
			cJSON_AddItemToArray(list, r);
		} else {
			cJSON_AddItemToArray(list, cJSON_CreateString(a->hits[h].id));
		}
	}
	cJSON_AddStringToObject(o, "qid", job->qid[i]);
	cJSON_AddItemToObject(o, "results", list);
	cJSON_AddBoolToObject(o, "abstained", a->abstained);
	if (with_latency)
		cJSON_AddNumberToObject(o, "latency_ms", round(a->latency_ms * 100) / 100);
	return o;
}

static void add_line(struct strbuf *out, cJSON *o)
{
	char *s = cJSON_PrintUnformatted(o);

	strbuf_addstr(out, s);
	strbuf_addch(out, '\n');
	cJSON_free(s);
	cJSON_Delete(o);
}

void run_format(const struct run_meta *meta, const struct job *job, bool with_latency,
		struct strbuf *out)
{
	cJSON *line = cJSON_CreateObject(), *m = cJSON_CreateObject();
	size_t answered = job_answered(job);
	char now[21];

	utc_now_iso8601(now);
	cJSON_AddNumberToObject(m, "evalset_run", 1);
	cJSON_AddStringToObject(m, "set", meta->set_name);
	if (meta->version)
		cJSON_AddStringToObject(m, "version", meta->version);
	else
		cJSON_AddNullToObject(m, "version");
	cJSON_AddStringToObject(m, "digest", meta->digest);
	cJSON_AddStringToObject(m, "retriever", meta->retriever);
	if (meta->params)
		cJSON_AddItemToObject(m, "params", cJSON_Duplicate(meta->params, 1));
	cJSON_AddNumberToObject(m, "k", (double)job->k);
	cJSON_AddNumberToObject(m, "questions", (double)job->nr);
	cJSON_AddNumberToObject(m, "answered", (double)answered);
	cJSON_AddBoolToObject(m, "complete", answered == job->nr);
	cJSON_AddStringToObject(m, "created_at", now);
	if (with_latency && answered) {
		cJSON *l = cJSON_CreateObject();
		cJSON_AddNumberToObject(l, "p50", round(job_latency(job, 0.5) * 100) / 100);
		cJSON_AddNumberToObject(l, "p95", round(job_latency(job, 0.95) * 100) / 100);
		cJSON_AddItemToObject(m, "latency_ms", l);
	}
	cJSON_AddItemToObject(line, "meta", m);
	add_line(out, line);
	for (size_t i = 0; i < job->nr; i++)
		if (job->ans[i].answered)
			add_line(out, answer_line(job, i, with_latency));
}
