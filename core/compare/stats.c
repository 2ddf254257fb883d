/*
 * stats: PRNG, inverse normal CDF, paired bootstrap and randomisation tests,
 * Holm adjustment and power (definitions in stats.h).
 *
 * Speed (bench/compare.sh): the tests run over a row-major n x m delta
 * matrix. Rows whose deltas are all zero are dropped first (they change no
 * sum and no sign flip; a bootstrap draw that lands on one adds nothing),
 * but every question keeps its own draws, so the result for one measure is
 * the same whatever measures share the call.
 * Each resample draws its n indices (two 32-bit draws per PRNG call) and
 * each permutation its sign vector (64 signs per call) into an index list
 * once, then sum_rows adds the listed rows four measures at a time in
 * registers. The sign-flip sum is S - 2 * (sum of the rows flipped).
 */
#include "compare/stats.h"
#include "base/util.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void rng_seed(struct rng *r, uint64_t seed)
{
	uint64_t x = seed;

	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64_next(&x);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

/*
 * Return the high 64 bits of the 128-bit product of "a" and "b", from
 * 32-bit halves so that no compiler needs a 128-bit type (32-bit targets).
 */
static inline uint64_t mul_high64(uint64_t a, uint64_t b)
{
	uint64_t a_lo = a & 0xffffffffu, a_hi = a >> 32;
	uint64_t b_lo = b & 0xffffffffu, b_hi = b >> 32;
	uint64_t lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo;
	uint64_t lo_hi = a_lo * b_hi, hi_hi = a_hi * b_hi;
	uint64_t mid = (lo_lo >> 32) + (hi_lo & 0xffffffffu) + lo_hi;

	return hi_hi + (hi_lo >> 32) + (mid >> 32);
}

/* Map a draw onto [0, n) by the high half of draw * n (Lemire's method, without the rejection step). */
uint64_t rng_below(struct rng *r, uint64_t n)
{
	return mul_high64(rng_next(r), n);
}

double rng_uniform(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

double norm_quantile(double p)
{
	static const double a[] = { -3.969683028665376e+01, 2.209460984245205e+02,
		-2.759285104469687e+02, 1.383577518672690e+02,
		-3.066479806614716e+01, 2.506628277459239e+00 };
	static const double b[] = { -5.447609879822406e+01, 1.615858368580409e+02,
		-1.556989798598866e+02, 6.680131188771972e+01,
		-1.328068155288572e+01 };
	static const double c[] = { -7.784894002430293e-03, -3.223964580411365e-01,
		-2.400758277161838e+00, -2.549732539343734e+00,
		4.374664141464968e+00, 2.938163982698783e+00 };
	static const double d[] = { 7.784695709041462e-03, 3.224671290700398e-01,
		2.445134137142996e+00, 3.754408661907416e+00 };
	const double plow = 0.02425;
	double q, r, x, e, u;

	if (isnan(p) || p < 0 || p > 1)
		return NAN;
	if (p == 0)
		return -INFINITY;
	if (p == 1)
		return INFINITY;
	if (p < plow) {
		q = sqrt(-2 * log(p));
		x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	} else if (p <= 1 - plow) {
		q = p - 0.5;
		r = q * q;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
		    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
	} else {
		q = sqrt(-2 * log1p(-p));
		x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		     ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	}
	/* One Halley step on Phi(x) - p brings the error to machine precision. */
	e = 0.5 * erfc(-x / sqrt(2)) - p;
	u = e * sqrt(2 * M_PI) * exp(x * x / 2);
	return x - u / (1 + x * u / 2);
}

double stats_mean(const double *x, size_t n)
{
	double s = 0;

	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		s += x[i];
	return s / (double)n;
}

double stats_sd(const double *x, size_t n)
{
	double mu, ss = 0;

	if (n < 2)
		return 0;
	mu = stats_mean(x, n);
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - mu) * (x[i] - mu);
	return sqrt(ss / (double)(n - 1));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Return the type-7 quantile 'q' of the sorted 'v[0..n)'. */
static double quantile_sorted(const double *v, size_t n, double q)
{
	double h = (double)(n - 1) * q;
	size_t lo = (size_t)floor(h);

	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + (h - (double)lo) * (v[lo + 1] - v[lo]);
}

/*
 * 'delta' holds the 'nz' rows whose deltas are not all zero, of 'n' rows in
 * all (the zero rows, left out, add nothing to a sum); 'map[i]' is question
 * i's row there, ZERO_ROW for a left-out one. Each resample draws n
 * questions in [0, n) and each permutation n signs, one per question, so
 * the draws a question gets do not depend on which rows were left out.
 */
#define ZERO_ROW UINT32_MAX

/* 32-bit draws, two per rng_next call, for the bootstrap's n < 2^32. */
struct halves {
	struct rng r;
	uint64_t word;
	int left;
};

static inline uint32_t next32(struct halves *h)
{
	uint32_t v;

	if (!h->left) {
		h->word = rng_next(&h->r);
		h->left = 2;
	}
	v = (uint32_t)h->word;
	h->word >>= 32;
	h->left--;
	return v;
}

/* Return a uniform integer in [0, n), n >= 1, exactly (Lemire's
 * multiply-shift with rejection of the few biased values). */
static inline uint32_t below32(struct halves *h, uint32_t n)
{
	uint64_t x = (uint64_t)next32(h) * n;

	if ((uint32_t)x < n) {
		uint32_t t = (uint32_t)-n % n;

		while ((uint32_t)x < t)
			x = (uint64_t)next32(h) * n;
	}
	return (uint32_t)(x >> 32);
}

/* Set 'acc[0..m)' to the sums over the rows 'idx[0..k)' of 'delta' (m
 * columns). Four columns at a time in registers: the sums never touch
 * memory inside the row loop. */
static void sum_rows(const double *delta, size_t m, const uint32_t *idx, size_t k, double *acc)
{
	size_t j = 0;

	for (; j + 4 <= m; j += 4) {
		double a0 = 0, a1 = 0, a2 = 0, a3 = 0;

		for (size_t i = 0; i < k; i++) {
			const double *row = delta + (size_t)idx[i] * m + j;

			a0 += row[0];
			a1 += row[1];
			a2 += row[2];
			a3 += row[3];
		}
		acc[j] = a0;
		acc[j + 1] = a1;
		acc[j + 2] = a2;
		acc[j + 3] = a3;
	}
	for (; j < m; j++) {
		double a = 0;

		for (size_t i = 0; i < k; i++)
			a += delta[(size_t)idx[i] * m + j];
		acc[j] = a;
	}
}

static void bootstrap(const double *delta, size_t n, const uint32_t *map, size_t m, long resamples,
		      uint64_t seed, double level, struct paired_result *out)
{
	struct halves h = { { { 0 } }, 0, 0 };
	double *acc = xcalloc(m, sizeof(*acc));
	double *means = xmalloc((size_t)resamples * m * sizeof(*means));
	uint32_t *idx = xmalloc((n + 1) * sizeof(*idx));

	rng_seed(&h.r, seed);
	for (long b = 0; b < resamples; b++) {
		size_t k = 0;

		for (size_t i = 0; i < n; i++) {
			uint32_t at = map[below32(&h, (uint32_t)n)];

			idx[k] = at;
			k += at != ZERO_ROW;
		}
		sum_rows(delta, m, idx, k, acc);
		for (size_t j = 0; j < m; j++)
			means[j * (size_t)resamples + (size_t)b] = acc[j] / (double)n;
	}
	for (size_t j = 0; j < m; j++) {
		double *v = means + j * (size_t)resamples;

		qsort(v, (size_t)resamples, sizeof(*v), cmp_double);
		out[j].ci_lo = quantile_sorted(v, (size_t)resamples, (1 - level) / 2);
		out[j].ci_hi = quantile_sorted(v, (size_t)resamples, (1 + level) / 2);
	}
	free(acc);
	free(means);
	free(idx);
}

static void randomisation(const double *delta, size_t nz, size_t n, const uint32_t *map,
			  size_t m, long permutations, uint64_t seed, struct paired_result *out)
{
	struct rng r;
	double *total = xcalloc(m, sizeof(*total));
	double *absum = xcalloc(m, sizeof(*absum));
	double *neg = xmalloc(m * sizeof(*neg));
	long *count = xcalloc(m, sizeof(*count));
	uint32_t *idx = xmalloc((n + 1) * sizeof(*idx));

	for (size_t i = 0; i < nz; i++)
		for (size_t j = 0; j < m; j++) {
			total[j] += delta[i * m + j];
			absum[j] += fabs(delta[i * m + j]);
		}
	rng_seed(&r, seed);
	for (long p = 0; p < permutations; p++) {
		size_t k = 0;

		for (size_t base = 0; base < n; base += 64) {
			uint64_t bits = rng_next(&r);
			size_t end = n - base < 64 ? n - base : 64;

			for (size_t b = 0; b < end; b++, bits >>= 1) {
				idx[k] = map[base + b];
				k += (bits & 1) & (idx[k] != ZERO_ROW);
			}
		}
		sum_rows(delta, m, idx, k, neg);
		for (size_t j = 0; j < m; j++) {
			double tol = 1e-10 * absum[j];

			if (fabs(total[j] - 2 * neg[j]) >= fabs(total[j]) - tol)
				count[j]++;
		}
	}
	for (size_t j = 0; j < m; j++)
		out[j].p = absum[j] == 0 ? 1.0
			 : (double)(count[j] + 1) / (double)(permutations + 1);
	free(total);
	free(absum);
	free(neg);
	free(count);
	free(idx);
}

int paired_tests(const double *delta, size_t n, size_t m, long resamples,
		 long permutations, uint64_t seed, double level,
		 struct paired_result *out)
{
	double *nonzero;
	uint32_t *map;
	size_t nz = 0;

	if (!n) {
		for (size_t j = 0; j < m; j++)
			out[j].mean = out[j].ci_lo = out[j].ci_hi = out[j].p = NAN;
		return 0;
	}
	for (size_t j = 0; j < m; j++) {
		double s = 0;

		for (size_t i = 0; i < n; i++)
			s += delta[i * m + j];
		out[j].mean = s / (double)n;
	}
	/* Questions on which the two runs agree on every measure change no sum
	 * and no sign flip: keep only the others (in order), which is exact.
	 * 'map' takes each question to its kept row, so every question still
	 * draws its own resample index and sign: a measure's numbers do not
	 * depend on which other measures share the call. */
	nonzero = xmalloc((n * m + 1) * sizeof(*nonzero));
	map = xmalloc((n + 1) * sizeof(*map));
	for (size_t i = 0; i < n; i++) {
		const double *row = delta + i * m;
		bool zero = true;

		for (size_t j = 0; j < m && zero; j++)
			zero = row[j] == 0;
		map[i] = zero ? ZERO_ROW : (uint32_t)nz;
		if (!zero)
			memcpy(nonzero + nz++ * m, row, m * sizeof(*row));
	}
	bootstrap(nonzero, n, map, m, resamples, seed, level, out);
	randomisation(nonzero, nz, n, map, m, permutations, seed + 1, out);
	free(nonzero);
	free(map);
	return 0;
}

struct p_index {
	double p;
	size_t i;
};

static int cmp_p_index(const void *a, const void *b)
{
	const struct p_index *x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

void holm_adjust(const double *p, size_t m, double *adj)
{
	struct p_index *v = xmalloc((m ? m : 1) * sizeof(*v));
	size_t k = 0;
	double running = 0;

	for (size_t i = 0; i < m; i++)
		if (!isnan(p[i]))
			v[k++] = (struct p_index){ p[i], i };
	qsort(v, k, sizeof(*v), cmp_p_index);
	for (size_t i = 0; i < m; i++)
		if (isnan(p[i]))
			adj[i] = NAN;
	for (size_t r = 0; r < k; r++) {
		double a = (double)(k - r) * v[r].p;

		if (a > 1)
			a = 1;
		if (a > running)
			running = a;
		adj[v[r].i] = running;
	}
	free(v);
}

double power_mde(double sd, size_t n, double alpha, double power)
{
	if (!n)
		return NAN;
	return (norm_quantile(1 - alpha / 2) + norm_quantile(power)) * sd / sqrt((double)n);
}

long power_needed(double sd, double effect, double alpha, double power)
{
	double z = norm_quantile(1 - alpha / 2) + norm_quantile(power);
	double n;

	if (!(sd > 0) || !(effect > 0))
		return -1;
	n = ceil(z * sd / effect * z * sd / effect - 1e-9);
	if (n > 1e15)
		return -1;
	return n < 2 ? 2 : (long)n;
}
