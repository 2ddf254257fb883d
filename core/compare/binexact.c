/*
 * binexact: the exact unconditional score test of a 0/1 measure's mean loss
 * against a margin (definitions in binexact.h).
 *
 * Cost of one p: 72 nuisance points, each summing O(sd) binomial weights of
 * the count of -1 losses, each times a binomial tail of O(sd) terms: about
 * 72 * 400 n b (1 - b) operations at worst, with a threshold search of
 * O(log n) per count, cached.
 */
#include "compare/binexact.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>

#define NUISANCE_GRID 48
#define NUISANCE_REFINE 24
#define SPREAD 9.0

struct region {
	size_t n;
	double d, z, tol;
	long *t;      /* per count of -1 losses: the smallest count of +1 losses in the region */
};

static double restricted_b(size_t n, double u, double v, double d)
{
	double B = u * (1 + d) + v * (1 - d) - 2 * (double)n * d;
	double C = v * d * (1 - d), disc = B * B + 8 * (double)n * C;
	double b = (B + sqrt(disc > 0 ? disc : 0)) / (4 * (double)n);
	double lo = d < 0 ? -d : 0, hi = (1 - d) / 2;

	return b < lo ? lo : b > hi ? hi : b;
}

static double score(size_t n, double u, double v, double d)
{
	double b = restricted_b(n, u, v, d), var = 2 * b + d - d * d;
	double w = u - v - (double)n * d;

	if (!(var > 1e-300))
		return w > 0 ? INFINITY : w < 0 ? -INFINITY : 0;
	return w / sqrt((double)n * var);
}

double binexact_z(size_t n, size_t up, size_t down, double d)
{
	return score(n, (double)up, (double)down, d);
}

/* The smallest u in [0, n - v] with Z(u, v) in the region (Z grows with u),
 * or n - v + 1 when none. */
static size_t threshold(struct region *r, size_t v)
{
	size_t lo = 0, hi = r->n - v + 1;

	if (r->t[v] >= 0)
		return (size_t)r->t[v];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (score(r->n, (double)mid, (double)v, r->d) >= r->z - r->tol)
			hi = mid;
		else
			lo = mid + 1;
	}
	r->t[v] = (long)lo;
	return lo;
}

static double log_pmf(size_t m, size_t x, double q)
{
	return lgamma((double)m + 1) - lgamma((double)x + 1) - lgamma((double)(m - x) + 1) +
	       (double)x * log(q) + (double)(m - x) * log1p(-q);
}

/* Return P(Binomial(m, q) >= t). */
static double binom_tail(size_t m, double q, size_t t)
{
	double sum = 0, term, ratio, mode;

	if (t == 0)
		return 1;
	if (t > m || q <= 0)
		return 0;
	if (q >= 1)
		return 1;
	mode = floor(((double)m + 1) * q);
	if ((double)t > (double)m * q) {
		ratio = q / (1 - q);
		term = exp(log_pmf(m, t, q));
		for (size_t j = t; j <= m; j++) {
			sum += term;
			if ((double)j > mode && term < sum * 1e-17)
				break;
			term *= (double)(m - j) / (double)(j + 1) * ratio;
		}
		return sum > 1 ? 1 : sum;
	}
	ratio = (1 - q) / q;
	term = exp(log_pmf(m, t - 1, q));
	for (size_t j = t - 1;; j--) {
		sum += term;
		if (!j || ((double)j < mode && term < sum * 1e-17))
			break;
		term *= (double)j / (double)(m - j + 1) * ratio;
	}
	return sum >= 1 ? 0 : 1 - sum;
}

/* Return the chance of the region when a loss is -1 with probability 'b'
 * and +1 with probability b + d. */
static double region_chance(struct region *r, double b)
{
	size_t n = r->n, lo, hi;
	double a = b + r->d, q, mean, sd, p = 0;

	if (b <= 0)
		return binom_tail(n, a, threshold(r, 0));
	q = a / (1 - b);
	if (q > 1)
		q = 1;
	mean = (double)n * b;
	sd = sqrt((double)n * b * (1 - b));
	lo = mean - SPREAD * sd - 2 > 0 ? (size_t)(mean - SPREAD * sd - 2) : 0;
	hi = mean + SPREAD * sd + 2 < (double)n ? (size_t)(mean + SPREAD * sd + 2) : n;
	for (size_t v = lo; v <= hi; v++) {
		size_t t = threshold(r, v);
		double w;

		if (t > n - v)
			continue;
		w = b >= 1 ? (v == n) : exp(log_pmf(n, v, b));
		if (w > 0)
			p += w * binom_tail(n - v, q, t);
	}
	return p;
}

static double p_of_z(size_t n, double z, double d);

double binexact_p(size_t n, size_t up, size_t down, double d)
{
	if (!n)
		return 1;
	if (d > 1 - 1e-9)
		d = 1 - 1e-9;
	if (d < -1 + 1e-9)
		d = -1 + 1e-9;
	return p_of_z(n, score(n, (double)up, (double)down, d), d);
}

double binexact_critical_z(size_t n, double d, double level)
{
	double lo = -40, hi, zmax;

	if (!n)
		return INFINITY;
	if (d > 1 - 1e-9)
		d = 1 - 1e-9;
	if (d < -1 + 1e-9)
		d = -1 + 1e-9;
	/* the most extreme outcome (every loss +1) has the largest Z */
	zmax = score(n, (double)n, 0, d);
	if (!(p_of_z(n, zmax, d) < level))
		return INFINITY;
	hi = zmax;
	/* p falls as z grows: the smallest z whose p is below 'level' */
	for (int i = 0; i < 40 && hi - lo > 1e-6; i++) {
		double mid = lo + (hi - lo) / 2;

		if (p_of_z(n, mid, d) < level)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* Return the exact p of an observed Z of 'z' (definitions in binexact.h). */
static double p_of_z(size_t n, double z, double d)
{
	struct region r;
	double lo = d < 0 ? -d : 0, hi = (1 - d) / 2, best = 0, bb = lo;
	double pts[NUISANCE_GRID + 1];
	size_t ib = 0;

	lo = d < 0 ? -d : 0;
	hi = (1 - d) / 2;
	r.n = n;
	r.d = d;
	r.z = z;
	r.tol = 1e-9 * (1 + (isinf(r.z) ? 0 : fabs(r.z)));
	r.t = xmalloc((n + 1) * sizeof(*r.t));
	for (size_t v = 0; v <= n; v++)
		r.t[v] = -1;
	for (size_t i = 0; i <= NUISANCE_GRID; i++) {
		double f = (double)i / NUISANCE_GRID, c;

		pts[i] = lo + (hi - lo) * f * f;
		c = region_chance(&r, pts[i]);
		if (c > best) {
			best = c;
			bb = pts[i];
			ib = i;
		}
	}
	/* golden-section search for the largest chance between the best
	 * point's neighbours */
	{
		double x0 = pts[ib ? ib - 1 : 0], x1 = pts[ib < NUISANCE_GRID ? ib + 1 : ib];
		const double g = (sqrt(5.0) - 1) / 2;
		double c1 = x1 - g * (x1 - x0), c2 = x0 + g * (x1 - x0);
		double f1 = region_chance(&r, c1), f2 = region_chance(&r, c2);

		for (int i = 0; i < NUISANCE_REFINE; i++) {
			if (f1 > best)
				best = f1, bb = c1;
			if (f2 > best)
				best = f2, bb = c2;
			if (f1 >= f2) {
				x1 = c2;
				c2 = c1;
				f2 = f1;
				c1 = x1 - g * (x1 - x0);
				f1 = region_chance(&r, c1);
			} else {
				x0 = c1;
				c1 = c2;
				f1 = f2;
				c2 = x0 + g * (x1 - x0);
				f2 = region_chance(&r, c2);
			}
		}
		if (f1 > best)
			best = f1;
		if (f2 > best)
			best = f2;
	}
	(void)bb;
	free(r.t);
	return best > 1 ? 1 : best;
}

double binexact_bound(size_t n, size_t up, size_t down, double level)
{
	double lo = -1 + 1e-9, hi = n ? ((double)up - (double)down) / (double)n : 0, near;

	if (!n || binexact_p(n, up, down, lo) >= level)
		return -INFINITY;
	if (hi > 1 - 1e-9)
		hi = 1 - 1e-9;
	/* a first bracket near the normal bound saves most steps */
	near = hi - 10 * sqrt(((double)up + (double)down) / (double)n + 1.0 / (double)n) /
		    sqrt((double)n) - 0.01;
	if (near > lo && binexact_p(n, up, down, near) < level)
		lo = near;
	/* p(hi) >= level: at the observed mean Z = 0 and the region holds half
	 * or more of the null; bisect keeping p(lo) < level <= p(hi) */
	while (hi - lo > 1e-5) {
		double mid = lo + (hi - lo) / 2;

		if (binexact_p(n, up, down, mid) < level)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

size_t binexact_min_losses(size_t n, double margin, double alpha)
{
	size_t lo = 1, hi = n;

	if (!n || binexact_p(n, n, 0, margin) >= alpha)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (binexact_p(n, mid, 0, margin) < alpha)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}
