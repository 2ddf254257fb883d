/*
 * error: message helpers (see error.h). Messages go to stderr, one line each,
 * or to a routine a test or command installed.
 */
#include "base/error.h"
#include "base/redact.h"
#include "base/termtext.h"
#include "base/strbuf.h"

#include <stdio.h>

static report_fn error_routine, warning_routine;
static int quiet;
static unsigned long nr_warnings;

void set_error_routine(report_fn fn) { error_routine = fn; }
void set_warning_routine(report_fn fn) { warning_routine = fn; }
report_fn get_error_routine(void) { return error_routine; }
report_fn get_warning_routine(void) { return warning_routine; }
void set_quiet(int q) { quiet = q; }
int is_quiet(void) { return quiet; }
unsigned long warning_count(void) { return nr_warnings; }

void report_nothing(const char *prefix, const char *msg)
{
	(void)prefix;
	(void)msg;
}

static void emit(report_fn fn, const char *prefix, const char *file, long line,
		 long col, const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT, shown = STRBUF_INIT;

	if (file) {
		strbuf_addstr(&sb, file);
		if (line > 0)
			strbuf_addf(&sb, ":%ld", line);
		if (line > 0 && col > 0)
			strbuf_addf(&sb, ":%ld", col);
		strbuf_addstr(&sb, ": ");
	}
	strbuf_vaddf(&sb, fmt, ap);
	/* no key, password or credential in a URL is ever shown */
	redact_text(&sb);
	/* ids and texts in messages come from input: nothing in them acts on a terminal */
	term_add_visible(&shown, sb.buf, true);
	if (fn) {
		fn(prefix, shown.buf);
	} else {
		fflush(stdout);
		fprintf(stderr, "%s: %s\n", prefix, shown.buf);
	}
	strbuf_release(&sb);
	strbuf_release(&shown);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(error_routine, "error", NULL, 0, 0, fmt, ap);
	va_end(ap);
	return -1;
}

int error_at(const char *file, long line, long col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(error_routine, "error", file, line, col, fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	nr_warnings++;
	if (quiet && !warning_routine)
		return;
	va_start(ap, fmt);
	emit(warning_routine, "warning", NULL, 0, 0, fmt, ap);
	va_end(ap);
}

void warning_at(const char *file, long line, long col, const char *fmt, ...)
{
	va_list ap;

	nr_warnings++;
	if (quiet && !warning_routine)
		return;
	va_start(ap, fmt);
	emit(warning_routine, "warning", file, line, col, fmt, ap);
	va_end(ap);
}

void note(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	emit(warning_routine, "note", NULL, 0, 0, fmt, ap);
	va_end(ap);
}
