/*
 * test-lib: a tiny TAP producer for the unit tests.
 *
 * Each check prints "ok N - description" or "not ok N - description" with a
 * diagnostic; test_done() prints the plan "1..N" and returns the exit code
 * (0 when every check passed). Checks never stop the test: later checks
 * still run, so one run reports every failure.
 */
#ifndef EVALSET_TEST_LIB_H
#define EVALSET_TEST_LIB_H

#include <stdbool.h>
#include <stddef.h>

bool test_ok(bool cond, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
bool test_int(long got, long want, const char *file, int line, const char *what);
bool test_str(const char *got, const char *want, const char *file, int line, const char *what);
bool test_double(double got, double want, double eps, const char *file, int line, const char *what);
void test_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int test_done(void);

/*
 * Return how many times to repeat a seeded randomized check: 'full' in a
 * plain native build, 'reduced' where EVALSET_TEST_REDUCED is set (meson
 * sets it under the sanitizers, in a cross build and under an emulator,
 * where the check is there for memory errors and 32-bit arithmetic, which
 * the same code paths on fewer draws find as well). Says which, as a
 * diagnostic naming 'what'.
 */
size_t test_repeats(size_t full, size_t reduced, const char *what);

/* Write 'content' to 'dir'/'name' (atomically, creating missing parent
 * directories) and return the path; caller frees. A failure is a diagnostic. */
char *test_write_file(const char *dir, const char *name, const char *content);

/* Remove the directory 'dir' and everything in it (links are removed, not
 * followed). A failure is a diagnostic. */
void test_remove_tree(const char *dir);

/* Capture error()/warning() output of core/ into a buffer the test can inspect. */
void test_capture_errors(void);
/* Return everything captured since the last call and reset; valid until the next call. */
const char *test_captured(void);

#define ok(cond, ...) test_ok((cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, what) test_int((long)(got), (long)(want), __FILE__, __LINE__, (what))
#define is_str(got, want, what) test_str((got), (want), __FILE__, __LINE__, (what))
#define is_double(got, want, eps, what) test_double((got), (want), (eps), __FILE__, __LINE__, (what))

#endif
