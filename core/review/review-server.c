/*
 * review-server: libmicrohttpd serving the review page, its data and its
 * writes (see review-server.h for who may use it and why).
 *
 * Invariants: nothing is read from or written to the review before the
 * request passed every check of the header; a POST body is collected up to
 * REVIEW_MAX_BODY and refused beyond; replies are built whole in memory
 * and handed to libmicrohttpd to copy; every reply closes its connection,
 * and no connection outlives its deadlines (sweep) or its user's share of
 * the connections (on_connection).
 */
#include "review/review-server.h"
#include "review/mhd-lib.h"
#include "review/review-page.h"
#include "review/review.h"
#include "base/error.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __APPLE__
#include <sys/random.h>  /* getentropy */
#endif
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <unistd.h>

/* One open connection, as the guard sees it. */
struct client {
	int fd;
	int64_t accepted_ms;
	uid_t uid;          /* the local user whose socket it is (the server's own when unknown) */
	bool answered;      /* its request arrived whole and was answered */
	bool cut;           /* shut down by the guard */
};

struct server {
	struct review *r;
	char token[2 * REVIEW_TOKEN_BYTES + 1];
	char host[32];      /* "127.0.0.1:PORT" */
	char origin[48];    /* "http://127.0.0.1:PORT" */
	char host_name[32]; /* "localhost:PORT": the same server by its name */
	char origin_name[48];
	unsigned port;
	/* the open connections: added and removed by libmicrohttpd's
	 * callbacks, swept for deadlines between its rounds (one thread) */
	struct client *clients[REVIEW_MAX_CONNECTIONS + 8];
	size_t nr_clients;
};

/* A POST body being received. */
struct upload {
	struct strbuf body;
	bool too_big;
};

int review_random_hex(char *out, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char buf[64];

	if (n > sizeof(buf))
		return error("internal: %zu random bytes asked, at most %zu", n, sizeof(buf));
	/* POSIX getentropy: up to 256 bytes, all or nothing, from the system's CSPRNG */
	if (getentropy(buf, n) < 0)
		return error("cannot read random bytes: %s", strerror(errno));
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hex[buf[i] >> 4];
		out[2 * i + 1] = hex[buf[i] & 15];
	}
	out[2 * n] = '\0';
	return 0;
}

/* Compare 'len' bytes of 'a' and 'b' in time that does not depend on where they differ. */
static bool same_secret(const char *a, const char *b, size_t len)
{
	unsigned char d = 0;

	for (size_t i = 0; i < len; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Return the local user owning the other end of the TCP connection from
 * 'peer' to the server's 'port' on 127.0.0.1, from the kernel's socket
 * table (/proc/net/tcp, where each socket is listed with its owner); the
 * server's own user when the table cannot say (another system, a hidden
 * /proc): then only the deadlines hold.
 */
static uid_t peer_uid(const struct sockaddr_in *peer, unsigned port)
{
	FILE *fp = fopen("/proc/net/tcp", "r");
	char line[512];
	uid_t uid = getuid();

	if (!fp)
		return uid;
	while (fgets(line, sizeof(line), fp)) {
		unsigned la, lp, ra, rp, st, u;
		/* "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid ..." */
		if (sscanf(line, " %*u: %8X:%4X %8X:%4X %2X %*X:%*X %*X:%*X %*X %u", &la, &lp, &ra, &rp, &st, &u) != 6)
			continue;
		/* the peer's socket: its address and port are local, the server's are remote */
		if (la == (unsigned)peer->sin_addr.s_addr && lp == ntohs(peer->sin_port) && rp == port) {
			uid = (uid_t)u;
			break;
		}
	}
	fclose(fp);
	return uid;
}

/* Cut 'cl' off: the client gets an end of stream, libmicrohttpd closes the
 * connection (and only then forgets it: the descriptor is still this one). */
static void cut(struct client *cl)
{
	if (!cl->cut)
		shutdown(cl->fd, SHUT_RDWR);
	cl->cut = true;
}

/*
 * A connection opened or closed. A new one is
 * counted against its user: a local user other than the one who started
 * the review may hold REVIEW_MAX_PER_USER connections at once, so that
 * another user's process cannot take every connection and lock the page
 * out; one more is cut at once.
 */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct server *s = cls;
	struct client *cl = *socket_context;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const struct mhd_lib *mhd = mhd_lib();
		const union MHD_ConnectionInfo *fd =
			mhd->get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		const union MHD_ConnectionInfo *addr =
			mhd->get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		size_t same = 0;

		cl = xcalloc(1, sizeof(*cl));
		cl->fd = fd ? fd->connect_fd : -1;
		cl->accepted_ms = now_ms();
		/* s->port is set once, before the address is printed */
		cl->uid = addr && addr->client_addr->sa_family == AF_INET ?
			  peer_uid((const struct sockaddr_in *)(const void *)addr->client_addr, s->port) : getuid();
		for (size_t i = 0; i < s->nr_clients; i++)
			same += s->clients[i]->uid == cl->uid && !s->clients[i]->cut;
		if (cl->uid != getuid() && same >= REVIEW_MAX_PER_USER)
			cut(cl);
		if (s->nr_clients < ARRAY_SIZE(s->clients))
			s->clients[s->nr_clients++] = cl;
		else
			cut(cl);   /* cannot happen: libmicrohttpd holds at most REVIEW_MAX_CONNECTIONS */
		*socket_context = cl;
	} else if (cl) {
		for (size_t i = 0; i < s->nr_clients; i++)
			if (s->clients[i] == cl) {
				s->clients[i] = s->clients[--s->nr_clients];
				break;
			}
		free(cl);
		*socket_context = NULL;
	}
}

/* Record that the request of connection 'c' arrived whole and is answered. */
static void answered(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *info =
		mhd_lib()->get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct client *cl = info ? info->socket_context : NULL;

	if (!cl)
		return;
	cl->answered = true;
}

/*
 * Cut the connections past their deadlines (between libmicrohttpd's
 * rounds, at least every tenth of a second): a request must arrive whole,
 * headers and body, within REVIEW_REQUEST_DEADLINE_MS of the connection (a
 * byte every few seconds no longer keeps a connection, the idle timer
 * being reset by any byte), and no connection lives longer than
 * REVIEW_CONNECTION_MAX_MS.
 */
static void sweep(struct server *s)
{
	int64_t now = now_ms();

	for (size_t i = 0; i < s->nr_clients; i++) {
		struct client *cl = s->clients[i];
		int64_t age = now - cl->accepted_ms;
		if ((!cl->answered && age > REVIEW_REQUEST_DEADLINE_MS) || age > REVIEW_CONNECTION_MAX_MS)
			cut(cl);
	}
}

static void common_headers(struct MHD_Response *resp)
{
	/* one request a connection: the deadlines count from the connection */
	mhd_lib()->add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	mhd_lib()->add_response_header(resp, "Cache-Control", "no-store");
	mhd_lib()->add_response_header(resp, "X-Content-Type-Options", "nosniff");
	mhd_lib()->add_response_header(resp, "Referrer-Policy", "no-referrer");
	mhd_lib()->add_response_header(resp, "X-Frame-Options", "DENY");
	mhd_lib()->add_response_header(resp, "Cross-Origin-Resource-Policy", "same-origin");
	mhd_lib()->add_response_header(resp, "Cross-Origin-Opener-Policy", "same-origin");
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type,
			     const char *body, size_t len, const char *csp)
{
	struct MHD_Response *resp =
		mhd_lib()->create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;

	if (!resp)
		return MHD_NO;
	common_headers(resp);
	mhd_lib()->add_response_header(resp, "Content-Type", type);
	mhd_lib()->add_response_header(resp, "Content-Security-Policy",
				csp ? csp : "default-src 'none'; frame-ancestors 'none'");
	ret = mhd_lib()->queue_response(c, status, resp);
	mhd_lib()->destroy_response(resp);
	return ret;
}

static enum MHD_Result refuse(struct MHD_Connection *c, unsigned status, const char *why)
{
	struct strbuf sb = STRBUF_INIT;
	enum MHD_Result ret;

	strbuf_addf(&sb, "%s\n", why);
	ret = reply(c, status, "text/plain; charset=utf-8", sb.buf, sb.len, NULL);
	strbuf_release(&sb);
	return ret;
}

static enum MHD_Result serve_page(struct MHD_Connection *c)
{
	struct strbuf page = STRBUF_INIT, csp = STRBUF_INIT;
	char nonce[33];
	enum MHD_Result ret;

	if (review_random_hex(nonce, 16) < 0)
		return refuse(c, 500, "no randomness for the page's nonce");
	review_page(&page, nonce);
	strbuf_addf(&csp, "default-src 'none'; script-src 'nonce-%s'; style-src 'nonce-%s'; "
		    "connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; "
		    "frame-ancestors 'none'", nonce, nonce);
	ret = reply(c, 200, "text/html; charset=utf-8", page.buf, page.len, csp.buf);
	strbuf_release(&page);
	strbuf_release(&csp);
	return ret;
}

static enum MHD_Result serve_json(struct MHD_Connection *c, unsigned status, const struct strbuf *json)
{
	return reply(c, status, "application/json; charset=utf-8", json->buf, json->len, NULL);
}

/* Return NULL when the request may go on, else why not (and the status in '*status'). */
static const char *check_request(struct server *s, struct MHD_Connection *c, const char *url,
				 const char *method, unsigned *status)
{
	const char *host = mhd_lib()->lookup_connection_value(c, MHD_HEADER_KIND, "Host");
	const char *site = mhd_lib()->lookup_connection_value(c, MHD_HEADER_KIND, "Sec-Fetch-Site");
	size_t tl = strlen(s->token);

	*status = 403;
	/* the loopback address or the name "localhost" (which no other site can
	 * take: no rebinding), with the port */
	if (!host || (strcmp(host, s->host) && strcmp(host, s->host_name)))
		return "refused: the Host header must be the address the server printed";
	if (url[0] != '/' || strlen(url) < tl + 2 || !same_secret(url + 1, s->token, tl) || url[tl + 1] != '/')
		return "refused: this address needs the token evalset review printed";
	if (site && strcmp(site, "same-origin") && strcmp(site, "none"))
		return "refused: a request from another site";
	if (!strcmp(method, "POST")) {
		const char *origin = mhd_lib()->lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
		const char *type = mhd_lib()->lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
		if (!origin || (strcmp(origin, s->origin) && strcmp(origin, s->origin_name)))
			return "refused: a write must come from the review page itself (Origin)";
		if (!type || strncmp(type, "application/json", 16))
			return "refused: a write must be JSON";
	} else if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		*status = 405;
		return "method not allowed";
	}
	return NULL;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *data, size_t *size, void **con_cls)
{
	struct server *s = cls;
	struct upload *up = *con_cls;
	const char *why, *route;
	unsigned status;
	struct strbuf out = STRBUF_INIT;
	enum MHD_Result ret;

	(void)version;
	if (!up) {
		/* headers only: check them before reading any body */
		if ((why = check_request(s, c, url, method, &status))) {
			answered(c);
			return refuse(c, status, why);
		}
		up = xcalloc(1, sizeof(*up));
		strbuf_init(&up->body, 0);
		*con_cls = up;
		if (strcmp(method, "POST"))
			goto answer;
		return MHD_YES;
	}
	if (*size) {
		if (up->body.len + *size > REVIEW_MAX_BODY)
			up->too_big = true;
		else
			strbuf_add(&up->body, data, *size);
		*size = 0;
		return MHD_YES;
	}
answer:
	answered(c);
	route = url + strlen(s->token) + 2;
	if (!strcmp(method, "POST")) {
		if (up->too_big)
			return refuse(c, 413, "request too large");
		if (strcmp(route, "api/action"))
			return refuse(c, 404, "not found");
		status = (unsigned)review_apply(s->r, up->body.buf, up->body.len, &out);
		ret = serve_json(c, status, &out);
	} else if (!*route) {
		ret = serve_page(c);
	} else if (!strcmp(route, "favicon.ico")) {
		ret = reply(c, 204, "image/x-icon", "", 0, NULL);  /* no icon: the browser asks anyway */
	} else if (!strcmp(route, "api/search")) {
		const char *q = mhd_lib()->lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "q");
		status = (unsigned)review_search(s->r, q, &out);
		ret = serve_json(c, status, &out);
	} else if (!strcmp(route, "api/state")) {
		report_fn saved = get_error_routine();
		int rc = review_state(s->r, &out);
		set_error_routine(saved);
		if (rc < 0) {
			strbuf_reset(&out);
			strbuf_addstr(&out, "{\"error\":\"the file cannot be read; see the terminal\"}");
		}
		ret = serve_json(c, rc < 0 ? 500 : 200, &out);
	} else {
		ret = refuse(c, 404, "not found");
	}
	strbuf_release(&out);
	return ret;
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode t)
{
	struct upload *up = *con_cls;

	(void)cls;
	(void)c;
	(void)t;
	if (up) {
		strbuf_release(&up->body);
		free(up);
		*con_cls = NULL;
	}
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;

	(void)cls;
	strbuf_vaddf(&sb, fmt, ap);
	strbuf_trim(&sb);
	/* a client that went away, or one the guard cut: one line each would let
	 * a local process fill the terminal */
	if (!strstr(sb.buf, "closed by remote side with incomplete request"))
		warning("http server: %s", sb.buf);
	strbuf_release(&sb);
}

int review_serve(struct review *r, const struct review_serve_options *o)
{
	struct server s;
	struct sockaddr_in addr;
	struct MHD_Daemon *d;
	const union MHD_DaemonInfo *info;
	char url[160];
	unsigned port;
	int ret = 0;

	memset(&s, 0, sizeof(s));
	s.r = r;
	if (review_random_hex(s.token, REVIEW_TOKEN_BYTES) < 0)
		return -1;
	memset(&addr, 0, sizeof(addr));
	addr.sin_family = AF_INET;
	addr.sin_port = htons((uint16_t)o->port);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	/* no thread of libmicrohttpd's own: its rounds run here, between the
	 * sweeps and the checks of o->stop */
	d = mhd_lib()->start_daemon(MHD_USE_ERROR_LOG, (uint16_t)o->port,
			     NULL, NULL, handle, &s,
			     MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
			     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
			     MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
			     MHD_OPTION_NOTIFY_CONNECTION, on_connection, &s,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned)REVIEW_MAX_CONNECTIONS,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)(REVIEW_CONNECTION_MAX_MS / 1000),
			     MHD_OPTION_END);
	if (!d)
		return error("cannot listen on 127.0.0.1:%u (in use? try another --port)", o->port);
	info = mhd_lib()->get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	port = info ? info->port : o->port;
	s.port = port;
	snprintf(s.host, sizeof(s.host), "127.0.0.1:%u", port);
	snprintf(s.origin, sizeof(s.origin), "http://127.0.0.1:%u", port);
	snprintf(s.host_name, sizeof(s.host_name), "localhost:%u", port);
	snprintf(s.origin_name, sizeof(s.origin_name), "http://localhost:%u", port);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/%s/", port, s.token);
	if (o->ready)
		o->ready(url, o->ctx);
	while (!o->stop()) {
		/* returns on a request, a signal or after 100 ms */
		if (mhd_lib()->run_wait(d, 100) != MHD_YES) {
			ret = error("the review server stopped: libmicrohttpd could not wait for requests");
			break;
		}
		sweep(&s);
	}
	mhd_lib()->stop_daemon(d);
	return ret;
}
