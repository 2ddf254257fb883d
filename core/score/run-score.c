/*
 * run-score: the exact score parser of the run readers (run_parse_score,
 * contract in run.h). A score is what strtod makes of its text, correctly
 * rounded, finite; the usual short decimal is read without strtod by
 * Clinger's fast path (an integer of at most 53 bits and a power of ten of
 * at most 22, both exact, so one correctly rounded multiplication or
 * division), anything else by strtod on a NUL-terminated copy.
 */
#include "score/run.h"

#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const double pow10_exact[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

static int parse_score_slow(const char *s, size_t len, double *out)
{
	char small[64];
	char *tmp = len < sizeof(small) ? small : xmalloc(len + 1);
	char *end;
	double v;
	int ret = -1;

	memcpy(tmp, s, len);
	tmp[len] = '\0';
	errno = 0;
	v = strtod(tmp, &end);
	if (len && end == tmp + len && isfinite(v)) {
		*out = v;
		ret = 0;
	}
	if (tmp != small)
		free(tmp);
	return ret;
}

int run_parse_score(const char *s, size_t len, double *out)
{
	const unsigned char *p = (const unsigned char *)s, *e = p + len, *frac;
	uint64_t m = 0;
	unsigned d;
	int nd, exp10 = 0;
	bool neg = false;
	double v;

	if (p < e && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	frac = p;
	while (p < e && (d = (unsigned)*p - '0') < 10) {
		m = m * 10 + d;
		p++;
	}
	nd = (int)(p - frac);
	if (p < e && *p == '.') {
		frac = ++p;
		while (p < e && (d = (unsigned)*p - '0') < 10) {
			m = m * 10 + d;
			p++;
		}
		exp10 = -(int)(p - frac);
		nd -= exp10;
	}
	/* 19 digits always fit in 64 bits; more (even leading zeros) take the slow path */
	if (!nd || nd > 19)
		return parse_score_slow(s, len, out);
	if (p < e && (*p == 'e' || *p == 'E')) {
		bool eneg = false;
		int x = 0;

		p++;
		if (p < e && (*p == '-' || *p == '+'))
			eneg = *p++ == '-';
		if (p == e || (unsigned)*p - '0' >= 10)
			return parse_score_slow(s, len, out);
		for (; p < e && (d = (unsigned)*p - '0') < 10; p++) {
			if (x > 10000)
				return parse_score_slow(s, len, out);
			x = x * 10 + (int)d;
		}
		exp10 += eneg ? -x : x;
	}
	if (p != e)
		return parse_score_slow(s, len, out);
	if (!m) {
		*out = neg ? -0.0 : 0.0;
		return 0;
	}
	if (m > ((uint64_t)1 << 53) || exp10 < -22 || exp10 > 22)
		return parse_score_slow(s, len, out);
	/* Clinger's fast path: both operands exact, so one correctly rounded operation */
	v = (double)m;
	v = exp10 >= 0 ? v * pow10_exact[exp10] : v / pow10_exact[-exp10];
	*out = neg ? -v : v;
	return 0;
}
