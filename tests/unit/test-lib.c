/*
 * test-lib: TAP output for unit tests (see test-lib.h).
 */
#include "test-lib.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/strbuf.h"

#include <ftw.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int count, failed;
static struct strbuf captured = STRBUF_INIT;
static char *last_captured;

static void vreport(bool pass, const char *file, int line, const char *fmt, va_list ap)
{
	struct strbuf desc = STRBUF_INIT;

	count++;
	strbuf_vaddf(&desc, fmt, ap);
	/* a description is one TAP line: fold newlines of captured messages */
	for (size_t i = 0; i < desc.len; i++)
		if (desc.buf[i] == '\n' || desc.buf[i] == '\r')
			desc.buf[i] = ' ';
	strbuf_trim(&desc);
	printf("%sok %d - %s\n", pass ? "" : "not ", count, desc.buf);
	strbuf_release(&desc);
	if (!pass) {
		failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
}

bool test_ok(bool cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(cond, file, line, fmt, ap);
	va_end(ap);
	return cond;
}

static bool report(bool pass, const char *file, int line, const char *what)
{
	return test_ok(pass, file, line, "%s", what);
}

bool test_int(long got, long want, const char *file, int line, const char *what)
{
	bool pass = got == want;

	report(pass, file, line, what);
	if (!pass)
		printf("#   got %ld, want %ld\n", got, want);
	return pass;
}

bool test_str(const char *got, const char *want, const char *file, int line, const char *what)
{
	bool pass = (got && want) ? !strcmp(got, want) : got == want;

	report(pass, file, line, what);
	if (!pass)
		printf("#   got  '%s'\n#   want '%s'\n", got ? got : "(null)", want ? want : "(null)");
	return pass;
}

bool test_double(double got, double want, double eps, const char *file, int line, const char *what)
{
	bool pass = fabs(got - want) <= eps || (isnan(got) && isnan(want));

	report(pass, file, line, what);
	if (!pass)
		printf("#   got %.10g, want %.10g (tolerance %g)\n", got, want, eps);
	return pass;
}

void test_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

size_t test_repeats(size_t full, size_t reduced, const char *what)
{
	const char *e = getenv("EVALSET_TEST_REDUCED");

	if (!e || !*e || !strcmp(e, "0"))
		return full;
	test_diag("%s: %zu of %zu (EVALSET_TEST_REDUCED: the plain build runs them all)", what,
		  reduced, full);
	return reduced;
}

static void capture(const char *prefix, const char *msg)
{
	strbuf_addf(&captured, "%s: %s\n", prefix, msg);
}

void test_capture_errors(void)
{
	set_error_routine(capture);
	set_warning_routine(capture);
}

const char *test_captured(void)
{
	free(last_captured);
	last_captured = strbuf_detach(&captured, NULL);
	return last_captured;
}

int test_done(void)
{
	printf("1..%d\n", count);
	if (failed)
		printf("# %d of %d checks failed\n", failed, count);
	strbuf_release(&captured);
	free(last_captured);
	last_captured = NULL;
	return failed ? 1 : 0;
}

char *test_write_file(const char *dir, const char *name, const char *content)
{
	char *path = path_join(dir, name), *parent = dir_name(path);

	if (mkdir_p(parent) < 0 || write_file_atomic(path, content, strlen(content)) < 0)
		test_diag("cannot write %s", path);
	free(parent);
	return path;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if ((flag == FTW_DP ? rmdir(path) : unlink(path)) < 0)
		test_diag("cannot remove %s", path);
	return 0;
}

void test_remove_tree(const char *dir)
{
	/* depth first, links not followed: what a test wrote, and nothing else */
	if (nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) < 0)
		test_diag("cannot remove %s", dir);
}
