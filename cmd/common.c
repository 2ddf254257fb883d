/*
 * common: what every subcommand shares: dying with an exit code and
 * noticing interrupts.
 */
#include "builtin.h"
#include "base/strbuf.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static volatile sig_atomic_t got_signal;

void die(int code, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	error("%s", sb.buf);
	strbuf_release(&sb);
	exit(code);
}

static void on_signal(int sig)
{
	got_signal = sig;
}

void handle_interrupts(void)
{
	struct sigaction sa;

	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int interrupted(void)
{
	return got_signal;
}
