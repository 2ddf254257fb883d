/*
 * error: how core/ reports problems, and the exit codes (docs/design.md,
 * "Exit codes").
 *
 * core/ never exits and never prints except through these helpers. error()
 * prints "error: MESSAGE" on stderr and returns -1, so a failing function can
 * say `return error("...")`. Messages name the problem first, the subject in
 * quotes, no final period, and the place as FILE:LINE[:COL] when one exists.
 *
 * Tests and commands that collect messages instead of printing them install
 * a routine with set_error_routine(); warnings can be muted the same way.
 */
#ifndef EVALSET_ERROR_H
#define EVALSET_ERROR_H

#include <stdarg.h>

enum exit_code {
	EXIT_OK = 0,          /* success, gate passed */
	EXIT_FAILED = 1,      /* gate failed, regression found, check found errors */
	EXIT_BAD_INPUT = 2,   /* bad usage or bad input */
	EXIT_REMOTE = 3,      /* LLM or retriever endpoint unreachable or refusing */
	EXIT_INTERRUPTED = 130,
};

/* Return codes of core functions beyond -1 (bad input), where a caller must
 * tell the cases apart. */
#define ERR_INPUT (-1)
#define ERR_REMOTE (-3)
#define ERR_INTERRUPTED (-130)

int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Report 'fmt' at 'file':'line':'col' ('col' 0: no column; 'line' 0: no line). */
int error_at(const char *file, long line, long col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning_at(const char *file, long line, long col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Print an informational line ("note: ...") on stderr unless quiet. */
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

typedef void (*report_fn)(const char *prefix, const char *msg);
/* Route messages of kind "error"/"warning"/"note" to 'fn' (NULL: stderr). */
void set_error_routine(report_fn fn);
void set_warning_routine(report_fn fn);
/* Return the routines installed (NULL: stderr), to restore them after a temporary one. */
report_fn get_error_routine(void);
report_fn get_warning_routine(void);
/* A routine that drops every message: install it to try something quietly. */
void report_nothing(const char *prefix, const char *msg);
/* Silence notes and warnings (--quiet); errors are always shown. */
void set_quiet(int quiet);
int is_quiet(void);
/* Number of warnings reported since start (for summaries and tests). */
unsigned long warning_count(void);

#endif
