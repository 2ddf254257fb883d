/*
 * progress: one line on stderr that says how far long work has got
 * (progress.h).
 */
#include "base/progress.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"

static bool silenced;

void progress_silence(void)
{
	silenced = true;
}

double progress_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double delay_from_env(void)
{
	const char *s = getenv("EVALSET_PROGRESS_DELAY");
	char *end;
	double d;

	if (!s || !*s)
		return PROGRESS_DELAY;
	d = strtod(s, &end);
	if (*end || !(d >= 0) || d > 3600)
		return PROGRESS_DELAY;
	return d;
}

void progress_begin(struct progress *p, const char *what, enum progress_unit unit,
		    const char *noun, double total)
{
	memset(p, 0, sizeof(*p));
	p->what = what;
	p->noun = noun ? noun : "";
	p->unit = unit;
	p->total = total > 0 ? total : 0;
	p->on = !silenced && !is_quiet() && isatty(STDERR_FILENO);
	p->start = p->phase_start = progress_clock();
	p->delay = delay_from_env();
	p->next_draw = p->start + p->delay;
}

/* Append 'n' (a whole count) with a comma between each three digits. */
static size_t put_count(char *buf, size_t size, double n)
{
	char digits[32];
	size_t len, out = 0;

	snprintf(digits, sizeof(digits), "%.0f", n < 0 ? 0 : floor(n));
	len = strlen(digits);
	for (size_t i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0 && out + 1 < size)
			buf[out++] = ',';
		if (out + 1 < size)
			buf[out++] = digits[i];
	}
	if (size)
		buf[out < size ? out : size - 1] = '\0';
	return out;
}

/* Append 's' seconds left, rounded up, in the largest units that help. */
static void put_left(char *buf, size_t size, double s)
{
	long n = (long)ceil(s);

	if (s < 1)
		snprintf(buf, size, "<1 s left");
	else if (n < 60)
		snprintf(buf, size, "%ld s left", n);
	else if (n < 3600)
		snprintf(buf, size, "%ld min %ld s left", n / 60, n % 60);
	else
		snprintf(buf, size, "%ld h %ld min left", n / 3600, n / 60 % 60);
}

size_t progress_format(char *buf, size_t size, const struct progress *p, double done,
		       double elapsed)
{
	char a[32], b[32], left[40];
	double rate = elapsed > 0 ? done / elapsed : 0;
	int len;

	if (!size)
		return 0;
	if (p->unit == PROGRESS_BYTES) {
		snprintf(a, sizeof(a), "%.1f", done / 1e6);
		snprintf(b, sizeof(b), "%.1f", p->total / 1e6);
	} else {
		put_count(a, sizeof(a), done);
		put_count(b, sizeof(b), p->total);
	}
	if (p->total > 0)
		len = snprintf(buf, size, "%s: %s of %s %s (%.0f%%)", p->what, a, b,
			       p->unit == PROGRESS_BYTES ? "MB" : p->noun,
			       floor(100 * (done < p->total ? done : p->total) / p->total));
	else
		len = snprintf(buf, size, "%s: %s %s", p->what, a,
			       p->unit == PROGRESS_BYTES ? "MB" : p->noun);
	if (len < 0 || (size_t)len >= size)
		return len < 0 ? 0 : size - 1;
	if (rate > 0) {
		double shown = p->unit == PROGRESS_BYTES ? rate / 1e6 : rate;
		const char *unit = p->unit == PROGRESS_BYTES ? "MB" : p->noun;
		char r[32];

		if (shown >= 100)
			put_count(r, sizeof(r), shown);
		else
			snprintf(r, sizeof(r), "%.1f", shown);
		len += snprintf(buf + len, size - (size_t)len, ", %s %s/s", r, unit);
		if ((size_t)len >= size)
			return size - 1;
		if (p->total > 0 && done < p->total) {
			put_left(left, sizeof(left), (p->total - done) / rate);
			len += snprintf(buf + len, size - (size_t)len, ", %s", left);
		}
	}
	return (size_t)len < size ? (size_t)len : size - 1;
}

/* Draw the line for 'done' if it is time; the caller holds 'drawing'. */
static void draw(struct progress *p, double done)
{
	char line[256];
	double now = progress_clock();
	size_t len;

	if (now < p->next_draw)
		return;
	p->next_draw = now + 1.0 / PROGRESS_HZ;
	len = progress_format(line, sizeof(line), p, done, now - p->phase_start);
	fprintf(stderr, "\r%s%*s", line, p->width > len ? (int)(p->width - len) : 0, "");
	fflush(stderr);
	p->width = len;
}

void progress_phase(struct progress *p, const char *noun, double total)
{
	p->noun = noun ? noun : "";
	p->total = total > 0 ? total : 0;
	p->phase_start = progress_clock();
	memset(p->lane, 0, sizeof(p->lane));
}

void progress_update(struct progress *p, double done)
{
	if (p->on)
		draw(p, done);
}

void progress_update_lane(struct progress *p, int lane, double done)
{
	double sum = 0;

	if (!p->on || lane < 0 || lane >= PROGRESS_LANES)
		return;
	__atomic_store(&p->lane[lane], &done, __ATOMIC_RELAXED);
	if (__atomic_exchange_n(&p->drawing, 1, __ATOMIC_ACQUIRE))
		return;
	for (int i = 0; i < PROGRESS_LANES; i++) {
		double d;

		__atomic_load(&p->lane[i], &d, __ATOMIC_RELAXED);
		sum += d;
	}
	draw(p, sum);
	__atomic_store_n(&p->drawing, 0, __ATOMIC_RELEASE);
}

void progress_end(struct progress *p)
{
	if (p->on && p->width) {
		fprintf(stderr, "\r%*s\r", (int)p->width, "");
		fflush(stderr);
	}
	p->width = 0;
}
