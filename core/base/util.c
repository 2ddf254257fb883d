/*
 * util: allocation wrappers and small parsing helpers shared by every module.
 */
#include "base/util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void oom(size_t size)
{
	fprintf(stderr, "fatal: out of memory allocating %zu bytes\n", size);
	abort();
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		oom(size);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		oom(nmemb * size);
	return p;
}

void *xcalloc_written(size_t nmemb, size_t size)
{
	void *p;

	if (size && nmemb > SIZE_MAX / size)
		return xcalloc(nmemb, size);  /* dies, naming the size */
	p = xmalloc(nmemb * size);
	memset(p, 0, nmemb * size);
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);
	if (!p)
		oom(size);
	return p;
}

void *xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		oom(SIZE_MAX);
	return xrealloc(ptr, nmemb * size);
}

char *xstrdup(const char *s)
{
	if (!s)
		return NULL;
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t len)
{
	char *p = xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *xstrfmt(const char *fmt, ...)
{
	va_list ap, ap2;
	char probe[1];
	int n;
	char *p;

	if (!fmt) /* never true; tells gcc -fsanitize=undefined that fmt is not NULL */
		return xstrdup("");
	va_start(ap, fmt);
	va_copy(ap2, ap);
	n = vsnprintf(probe, sizeof(probe), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	p = xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap2);
	va_end(ap2);
	return p;
}

bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);
	return ls >= lx && memcmp(s + ls - lx, suffix, lx) == 0;
}

int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL))
		return -1;
	if (*end || end == s || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

int parse_size(const char *s, long max, long *bytes)
{
	static const char units[] = "KMGT";
	const char *p = s;
	unsigned long long v = 0, scale = 1;

	if (!s || !isdigit((unsigned char)*p))
		return -1;
	for (; isdigit((unsigned char)*p); p++) {
		v = v * 10 + (unsigned long long)(*p - '0');
		if (v > (unsigned long long)LONG_MAX)
			return -1;
	}
	if (*p && strchr(units, *p)) {
		for (const char *u = units; *u; u++) {
			scale *= 1024;
			if (*u == *p)
				break;
		}
		p++;
		if (*p == 'i' && p[1] == 'B')
			p++;
	}
	if (*p == 'B')
		p++;
	if (*p || v > (unsigned long long)max / scale)
		return -1;
	*bytes = (long)(v * scale);
	return 0;
}

int parse_duration_ms(const char *s, long max_ms, long *ms)
{
	static const struct { const char *unit; double ms; } units[] = {
		{ "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
	};
	size_t len = s ? strlen(s) : 0, num = len;
	double scale = 1000, v;
	char buf[64];

	while (num && !isdigit((unsigned char)s[num - 1]) && s[num - 1] != '.')
		num--;
	if (!num || num >= sizeof(buf))
		return -1;
	if (num < len) {
		scale = 0;
		for (size_t i = 0; i < ARRAY_SIZE(units); i++)
			if (!strcmp(s + num, units[i].unit))
				scale = units[i].ms;
		if (!scale)
			return -1;
	}
	memcpy(buf, s, num);
	buf[num] = '\0';
	if (parse_double(buf, &v) || !(v >= 0) || v * scale > (double)max_ms)
		return -1;
	*ms = (long)ceil(v * scale);
	return 0;
}

void utc_now_iso8601(char out[21])
{
	const char *fixed = getenv("EVALSET_NOW");
	time_t t;
	struct tm tm;

	if (fixed && strlen(fixed) == 20) {
		memcpy(out, fixed, 21);
		return;
	}
	t = time(NULL);
	gmtime_r(&t, &tm);
	strftime(out, 21, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int double_to_long(double d, long min, long max, long *out)
{
	/* compare as doubles first: only a value known to fit is converted */
	if (!(d >= (double)min && d <= (double)max) || d != floor(d) ||
	    d >= 9223372036854775808.0 || d < -9223372036854775808.0)
		return -1;
	*out = (long)d;
	return 0;
}

long double_clamp_long(double d, long min, long max)
{
	if (!(d > (double)min))  /* NaN too */
		return min;
	if (d >= (double)max || d >= 9223372036854775808.0)
		return max;
	return (long)d < min ? min : (long)d > max ? max : (long)d;
}
