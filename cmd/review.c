/*
 * review: serve a local web page for the human part of building a set:
 * accepting, fixing, labelling and rejecting questions of a set's working
 * copy, or grading a pool worksheet 0..3 (docs/review.md).
 *
 * The server listens on 127.0.0.1 only, on --port or a free port, and
 * prints the address with its random token; it opens a browser only with
 * --open. Every change the page makes is written at once, atomically,
 * through the code the other commands use, with reviewed_by and
 * reviewed_at; a page whose file changed on disk since it loaded is
 * refused and reloads. Frozen versions are refused. SIGINT or SIGTERM
 * stops the server (exit 0: every change is already saved).
 */
#include "builtin.h"
#include "base/fsutil.h"
#include "base/util.h"
#include "review/review-server.h"
#include "review/review.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const review_usage[] = {
	"evalset review <set> [--port <n>] [--reviewer <name>] [--open] [--wait[=<seconds>]]",
	"evalset review <pool.yaml> [--port <n>] [--reviewer <name>] [--open] [--wait[=<seconds>]]",
	NULL,
};

struct ready_ctx {
	bool open;
	char *dir, *page;   /* --open's private folder and the page that redirects */
};

/*
 * Write, in a folder of its own only this user can read, a page that sends
 * the browser on to 'url'; return its path (NULL: reported). The browser is
 * given this file, not the address: a command line is readable by every
 * local user (/proc/PID/cmdline), and the address's token lets a page write.
 */
static char *redirect_page(struct ready_ctx *rc, const char *url)
{
	const char *base = getenv("XDG_RUNTIME_DIR");
	char *dir = xstrfmt("%s/evalset-review-XXXXXX", base && *base ? base : "/tmp");
	char *page, *html;

	if (!mkdtemp(dir)) {
		warning("--open: cannot make a private folder for the page that opens the review (%s); "
			"open the address by hand", strerror(errno));
		free(dir);
		return NULL;
	}
	page = xstrfmt("%s/open.html", dir);
	html = xstrfmt("<!doctype html><meta charset=\"utf-8\"><title>evalset review</title>"
		       "<meta http-equiv=\"refresh\" content=\"0; url=%s\"><a href=\"%s\">evalset review</a>\n",
		       url, url);
	/* the folder is the user's alone (mkdtemp: mode 0700) */
	if (write_file_new(page, html, strlen(html)) < 0) {
		warning("--open: cannot write the page that opens the review; open the address by hand");
		unlink(page);
		rmdir(dir);
		free(dir);
		free(page);
		free(html);
		return NULL;
	}
	free(html);
	rc->dir = dir;
	rc->page = page;
	return page;
}

/* Remove --open's page and its folder. */
static void redirect_page_remove(struct ready_ctx *rc)
{
	if (rc->page)
		unlink(rc->page);
	if (rc->dir)
		rmdir(rc->dir);
	free(rc->page);
	free(rc->dir);
	rc->page = rc->dir = NULL;
}

/* Print the address (a test or a person reads it from stdout), open it when asked. */
static void ready(const char *url, void *ctx)
{
	struct ready_ctx *rc = ctx;
	const char *page;

	printf("review: %s\n", url);
	printf("review: keep this address private (its token lets a page write); Ctrl-C stops\n");
	fflush(stdout);
	if (rc->open && (page = redirect_page(rc, url))) {
		pid_t pid = fork();
		if (pid == 0) {
			execlp("xdg-open", "xdg-open", page, (char *)NULL);
			_exit(127);
		}
		if (pid < 0)
			warning("cannot start xdg-open; open the address by hand");
	}
}

/* Return who the writes are recorded as: --reviewer, $EVALSET_REVIEWER, the login name. */
static const char *default_reviewer(void)
{
	const char *e = getenv("EVALSET_REVIEWER");
	const struct passwd *pw;

	if (e && *e)
		return e;
	pw = getpwuid(getuid());
	return pw && pw->pw_name ? pw->pw_name : "unknown";
}

static int stop_now(void)
{
	/* reap a finished xdg-open so it does not linger as a zombie */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	return interrupted();
}

int cmd_review(int argc, const char **argv)
{
	const char *reviewer = NULL;
	long port = 0;
	int open_browser = 0;
	const char *lock_wait = NULL;
	struct option opts[] = {
		OPT_INT(0, "port", &port, "n", "listen on this port of 127.0.0.1 (default: a free one)"),
		OPT_STRING(0, "reviewer", &reviewer, "name",
			   "record writes as made by this name (default: $EVALSET_REVIEWER, else the login name)"),
		OPT_BOOL(0, "open", &open_browser, "open the page in the desktop's browser (xdg-open)"),
		OPT_LOCK_WAIT(&lock_wait),
		OPT_END(),
	};
	struct review r = REVIEW_INIT;
	struct review_serve_options so = { 0, stop_now, ready, NULL };
	struct ready_ctx rc = { false, NULL, NULL };
	int ret = EXIT_BAD_INPUT;

	argc = parse_options(argc, argv, opts, review_usage);
	/* each write takes the lock for its own time only: --wait applies to each */
	apply_lock_wait(lock_wait, review_usage, opts);
	/* the reviewer on the page cannot give the server an option */
	lock_set_busy_advice("nothing was written: do it again once that command has finished "
			     "(a review server started with --wait=SECONDS makes each write wait for it)");
	if (argc != 1)
		usage_with_options(review_usage, opts);
	if (port < 0 || port > 65535) {
		error("--port must be in 0..65535");
		usage_with_options(review_usage, opts);
	}
	if (review_open(&r, argv[0], reviewer ? reviewer : default_reviewer()) < 0)
		goto out;
	rc.open = open_browser;
	so.port = (unsigned)port;
	so.ctx = &rc;
	handle_interrupts();
	if (review_serve(&r, &so) < 0)
		goto out;
	ret = EXIT_OK;
out:
	redirect_page_remove(&rc);
	review_release(&r);
	return ret;
}
