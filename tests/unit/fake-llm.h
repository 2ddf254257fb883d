/*
 * fake-llm: start and stop tests/fakes/fake_llm.py from a unit test.
 *
 * fake_start() runs the server with the given extra arguments, reads the port
 * it prints and returns its base URL ("http://127.0.0.1:PORT/v1"). The
 * server exits when its standard input closes, so fake_stop() (or the test
 * dying) never leaves it running. Header-only: each test program includes it
 * once.
 */
#ifndef EVALSET_FAKE_LLM_H
#define EVALSET_FAKE_LLM_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

struct fake {
	pid_t pid;
	int in_fd;
	char base[96];
	char root[80];
};

/* Start the fake with NULL-terminated 'args'; return 0 or -1. */
static int fake_start(struct fake *f, const char *const *args)
{
	int to_child[2], from_child[2];
	const char *src = getenv("EVALSET_SRC");
	char script[4096];
	const char *argv[40];
	size_t n = 0;
	char buf[32];
	ssize_t got;
	size_t len = 0;

	snprintf(script, sizeof(script), "%s/tests/fakes/fake_llm.py", src ? src : ".");
	argv[n++] = "python3";
	argv[n++] = script;
	for (size_t i = 0; args && args[i] && n < 38; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	if (pipe(to_child) || pipe(from_child))
		return -1;
	f->pid = fork();
	if (f->pid < 0)
		return -1;
	if (f->pid == 0) {
		dup2(to_child[0], 0);
		dup2(from_child[1], 1);
		close(to_child[0]);
		close(to_child[1]);
		close(from_child[0]);
		close(from_child[1]);
		execvp("python3", (char *const *)argv);
		_exit(127);
	}
	close(to_child[0]);
	close(from_child[1]);
	f->in_fd = to_child[1];
	while (len < sizeof(buf) - 1 && (got = read(from_child[0], buf + len, 1)) == 1) {
		if (buf[len] == '\n')
			break;
		len++;
	}
	buf[len] = '\0';
	close(from_child[0]);
	if (!len)
		return -1;
	snprintf(f->root, sizeof(f->root), "http://127.0.0.1:%s", buf);
	snprintf(f->base, sizeof(f->base), "http://127.0.0.1:%s/v1", buf);
	return 0;
}

static void fake_stop(struct fake *f)
{
	if (f->pid <= 0)
		return;
	close(f->in_fd);
	kill(f->pid, SIGTERM);
	waitpid(f->pid, NULL, 0);
	f->pid = 0;
}

#endif
