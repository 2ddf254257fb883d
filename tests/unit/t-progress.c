/*
 * t-progress: the progress line of long work (base/progress.h): what it
 * says (done of total, share, rate, time left, in counts or megabytes),
 * and that it draws nothing when stderr is not a terminal or under
 * --quiet, so that logs and pipes get the command's output only.
 */
#include "test-lib.h"
#include "base/error.h"
#include "base/progress.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *line(const struct progress *p, double done, double elapsed)
{
	static char buf[256];

	progress_format(buf, sizeof(buf), p, done, elapsed);
	return buf;
}

static struct progress counting(double total)
{
	struct progress p;

	progress_begin(&p, "power", PROGRESS_COUNT, "draws", total);
	return p;
}

static void test_format(void)
{
	struct progress p = counting(5000);
	char small[12];

	is_str(line(&p, 1250, 2), "power: 1,250 of 5,000 draws (25%), 625 draws/s, 6 s left",
	       "a quarter done in 2 s: rate and the 6 s left");
	is_str(line(&p, 0, 1.5), "power: 0 of 5,000 draws (0%)", "nothing done yet: no rate, no estimate");
	is_str(line(&p, 4999, 1), "power: 4,999 of 5,000 draws (99%), 4,999 draws/s, <1 s left",
	       "the share rounds down (never 100% before the end); under a second left");
	is_str(line(&p, 5000, 4), "power: 5,000 of 5,000 draws (100%), 1,250 draws/s",
	       "all done: no time left shown");
	is_str(line(&p, 10, 100), "power: 10 of 5,000 draws (0%), 0.1 draws/s, 13 h 51 min left",
	       "slow work: 4,990 / 0.1 = 49,900 s, hours and minutes");
	is_str(line(&p, 1000, 60), "power: 1,000 of 5,000 draws (20%), 16.7 draws/s, 4 min 0 s left",
	       "minutes and seconds");
	p = counting(0);
	is_str(line(&p, 1234567, 2), "power: 1,234,567 draws, 617,283 draws/s",
	       "unknown total: count and rate only");
	progress_begin(&p, "trec-eval", PROGRESS_BYTES, NULL, 136e6);
	is_str(line(&p, 41.2e6, 0.8), "trec-eval: 41.2 of 136.0 MB (30%), 51.5 MB/s, 2 s left",
	       "bytes in megabytes");
	progress_begin(&p, "compare", PROGRESS_COUNT, "gate rules", 12);
	is_str(line(&p, 11.5, 1), "compare: 11 of 12 gate rules (95%), 11.5 gate rules/s, <1 s left",
	       "a count is shown whole, rounded down: never 12 of 12 before the end");
	progress_phase(&p, "subsets", 9);
	is_str(line(&p, 3, 1), "compare: 3 of 9 subsets (33%), 3.0 subsets/s, 2 s left",
	       "a new phase counts its own things from 0");
	/* a new pass of work on threads: what the lanes had done counts no more */
	progress_begin(&p, "trec-eval", PROGRESS_BYTES, NULL, 300e6);
	p.lane[0] = 10e6;
	p.lane[1] = 20e6;
	progress_phase(&p, NULL, 300e6);
	ok(p.lane[0] == 0 && p.lane[1] == 0, "a new phase starts every lane from 0");
	p = counting(5000);
	is_int(progress_format(small, sizeof(small), &p, 1250, 2), 11, "a short buffer: cut, length returned");
	is_str(small, "power: 1,25", "cut at the buffer, terminated");
}

/* Run 'fn' with stderr sent to a file and return what was written there. */
static char *stderr_of(void (*fn)(void))
{
	char path[] = "/tmp/t-progress-XXXXXX", *buf;
	int fd = mkstemp(path), saved = dup(2);
	struct stat st;
	FILE *fp;

	fflush(stderr);
	dup2(fd, 2);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	fstat(fd, &st);
	buf = calloc(1, (size_t)st.st_size + 1);
	fp = fdopen(fd, "r");
	if (fread(buf, 1, (size_t)st.st_size, fp) != (size_t)st.st_size)
		buf[0] = '\0';
	fclose(fp);
	unlink(path);
	return buf;
}

static void work(void)
{
	struct progress p;

	progress_begin(&p, "import", PROGRESS_COUNT, "lines", 100);
	for (int i = 0; i <= 100; i++) {
		progress_update(&p, i);
		progress_update_lane(&p, i % 2, i);
	}
	progress_end(&p);
}

static void test_not_a_terminal(void)
{
	char *out;

	setenv("EVALSET_PROGRESS_DELAY", "0", 1);
	out = stderr_of(work);
	is_str(out, "", "stderr not a terminal: no line, even with no delay");
	free(out);
}

#if defined(__linux__)
#include <pty.h>
#endif

/* On a pseudo-terminal the line is drawn and wiped; --quiet turns it off. */
static void test_terminal(void)
{
	int master, slave, saved;
	char buf[4096];
	ssize_t n;
	size_t got = 0;

	if (openpty(&master, &slave, NULL, NULL, NULL) < 0) {
		ok(0, "openpty: a pseudo-terminal for the test");
		return;
	}
	setenv("EVALSET_PROGRESS_DELAY", "0", 1);
	fflush(stderr);
	saved = dup(2);
	dup2(slave, 2);
	work();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(slave);
	fcntl(master, F_SETFL, O_NONBLOCK);
	while (got < sizeof(buf) - 1 && (n = read(master, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += (size_t)n;
	buf[got] = '\0';
	close(master);
	ok(strstr(buf, "\rimport: 0 of 100 lines (0%)") != NULL, "on a terminal the line is drawn from the start (delay 0)");
	ok(got > 2 && buf[got - 1] == '\r' && buf[got - 2] == ' ', "and wiped at the end: spaces, then back to column 0");
	ok(strchr(buf, '\n') == NULL, "never a new line: drawn in place");

	/* the same with --quiet: nothing */
	progress_silence();
	if (openpty(&master, &slave, NULL, NULL, NULL) < 0)
		return;
	saved = dup(2);
	dup2(slave, 2);
	work();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(slave);
	fcntl(master, F_SETFL, O_NONBLOCK);
	n = read(master, buf, sizeof(buf));
	ok(n <= 0, "--quiet: nothing drawn on a terminal either");
	close(master);
}

int main(void)
{
	test_format();
	test_not_a_terminal();
	test_terminal();
	return test_done();
}
