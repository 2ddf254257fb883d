/*
 * common: what every subcommand shares: dying with an exit code,
 * noticing interrupts, printing a table.
 */
#include "builtin.h"
#include "base/config.h"
#include "base/fsutil.h"
#include "base/strbuf.h"
#include "base/table.h"
#include "base/util.h"

#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void apply_lock_wait(const char *arg, const char *const *usage, const struct option *opts)
{
	long ms;

	if (!arg)
		return;
	if (!*arg) {
		lock_set_wait(LOCK_WAIT_FOREVER);
		return;
	}
	if (parse_duration_ms(arg, LONG_CAP(30LL * 86400 * 1000), &ms) < 0) {
		error("bad --wait '%s': seconds, or a number with ms, s, m or h", arg);
		usage_with_options(usage, opts);
	}
	lock_set_wait(ms ? ms : 0);
}

void print_table(struct table *t)
{
	struct strbuf out = STRBUF_INIT;

	table_render(t, &out);
	fputs(out.buf, stdout);
	strbuf_release(&out);
	table_release(t);
}

enum run_rank apply_rank_by(const char *arg, const char *const *usage, const struct option *opts)
{
	enum run_rank rank = RUN_RANK_ORDER;

	if (arg && run_rank_parse(arg, &rank) < 0) {
		error("bad --rank-by '%s': order (a JSONL run's list order) or score (as trec_eval ranks)", arg);
		usage_with_options(usage, opts);
	}
	return rank;
}

int gate_settings_resolve(long k_flag, const char *gate_flag, bool want_gate,
			  struct gate_settings *out)
{
	struct config *cfg;
	struct config_origin from;

	memset(out, 0, sizeof(*out));
	if (config_use(&cfg) < 0)
		return -1;
	out->k = k_flag;
	if (k_flag != LONG_MIN) {
		out->k_source = xstrdup("--k");
	} else {
		memset(&from, 0, sizeof(from));
		if (config_get_long(cfg, "k", "EVALSET_K", 5, 1, 100000, &out->k, &from) < 0)
			return -1;
		out->k_source = config_origin_describe(&from);
	}
	out->gate_file = gate_flag;
	if (gate_flag) {
		out->gate_source = xstrdup("--gate");
	} else if (want_gate) {
		memset(&from, 0, sizeof(from));
		out->gate_file = config_get_string(cfg, "gate", "EVALSET_GATE", NULL, &from);
		if (out->gate_file)
			out->gate_source = config_origin_describe(&from);
	}
	return 0;
}

void gate_settings_release(struct gate_settings *s)
{
	free(s->k_source);
	free(s->gate_source);
	memset(s, 0, sizeof(*s));
}
