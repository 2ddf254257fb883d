/*
 * binexact: the exact unconditional score test of a 0/1 measure's mean loss
 * against a margin (definitions in binexact.h).
 *
 * Cost of one p: 72 nuisance points, each summing O(sd) binomial weights of
 * the count of -1 losses, each times a binomial tail of O(sd) terms: about
 * 72 * 400 n b (1 - b) operations at worst, with a threshold search of
 * O(log n) per count, cached. A binomial term is one exp: the log factorials
 * are the thread's table (binom_shared: made once, not per p) and the logs
 * of each q are taken once (binom.h). A decision (p < level) stops at the
 * first nuisance point whose chance reaches the level.
 */
#include "compare/binexact.h"
#include "compare/binom.h"
#include "compare/stats.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NUISANCE_GRID 48
#define NUISANCE_REFINE 24
#define SPREAD 9.0

struct region {
	size_t n;
	double d, floor;  /* the smallest Z in the region (region_floor) */
	long *t;      /* per count of -1 losses: the smallest count of +1 losses in the region */
	const struct binom *bn;  /* log factorials up to n at least (binom_shared) */
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

/* Return the smallest Z in the region of an observed Z of 'z': z less a
 * relative 1e-9, so that an outcome whose Z is z but for rounding is in. */
static double region_floor(double z)
{
	return z - 1e-9 * (1 + (isinf(z) ? 0 : fabs(z)));
}

/* Return the smallest u in [0, n - v] with Z(u, v) >= 'floor' (Z grows
 * with u), or n - v + 1 when none. */
static size_t edge(size_t n, double d, double floor, size_t v)
{
	size_t lo = 0, hi = n - v + 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (score(n, (double)mid, (double)v, d) >= floor)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* edge() of region 'r' for 'v', kept in r->t. */
static size_t threshold(struct region *r, size_t v)
{
	if (r->t[v] < 0)
		r->t[v] = (long)edge(r->n, r->d, r->floor, v);
	return (size_t)r->t[v];
}

/* Set t[v] to the edge of the region of 'z' for every v in [0, n]: the
 * region whole. A p depends on z only through it. */
static void region_edges(size_t n, double d, double z, long *t)
{
	double floor = region_floor(z);

	for (size_t v = 0; v <= n; v++)
		t[v] = (long)edge(n, d, floor, v);
}

/*
 * Return P(Binomial(m, q) >= t), 'lq' the logs of q when 0 < q < 1. The
 * terms are summed from 't' away from the mode; a term that underflowed to 0 makes every later one 0, so the
 * sum stops there: without that, a 't' deep in a tail (the region far from
 * a nuisance point) summed all m - t terms, and a p cost O(n^1.5).
 */
static double binom_tail(const struct binom *bn, size_t m, double q, struct binom_q lq, size_t t)
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
		term = exp(binom_log_pmf(bn, m, t, lq));
		for (size_t j = t; j <= m; j++) {
			sum += term;
			if (term == 0 || ((double)j > mode && term < sum * 1e-17))
				break;
			term *= (double)(m - j) / (double)(j + 1) * ratio;
		}
		return sum > 1 ? 1 : sum;
	}
	ratio = (1 - q) / q;
	term = exp(binom_log_pmf(bn, m, t - 1, lq));
	for (size_t j = t - 1;; j--) {
		sum += term;
		if (!j || term == 0 || ((double)j < mode && term < sum * 1e-17))
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
	struct binom_q lb = { 0, 0 }, lq = { 0, 0 };

	if (b <= 0) {
		if (a > 0 && a < 1)
			lq = binom_q(a);
		return binom_tail(r->bn, n, a, lq, threshold(r, 0));
	}
	q = a / (1 - b);
	if (q > 1)
		q = 1;
	if (q > 0 && q < 1)
		lq = binom_q(q);
	if (b < 1)
		lb = binom_q(b);
	mean = (double)n * b;
	sd = sqrt((double)n * b * (1 - b));
	lo = mean - SPREAD * sd - 2 > 0 ? (size_t)(mean - SPREAD * sd - 2) : 0;
	hi = mean + SPREAD * sd + 2 < (double)n ? (size_t)(mean + SPREAD * sd + 2) : n;
	for (size_t v = lo; v <= hi; v++) {
		size_t t = threshold(r, v);
		double w;

		if (t > n - v)
			continue;
		w = b >= 1 ? (v == n) : exp(binom_log_pmf(r->bn, n, v, lb));
		if (w > 0)
			p += w * binom_tail(r->bn, n - v, q, lq, t);
	}
	return p;
}

static double p_of_z_until(size_t n, double z, double d, double stop);
static bool p_below(size_t n, double z, double d, double level);

/* binexact_p, or once the search finds a chance of 'stop' or more, that
 * chance (p_of_z_until) */
static double p_until(size_t n, size_t up, size_t down, double d, double stop)
{
	if (!n)
		return 1;
	if (d > 1 - 1e-9)
		d = 1 - 1e-9;
	if (d < -1 + 1e-9)
		d = -1 + 1e-9;
	return p_of_z_until(n, score(n, (double)up, (double)down, d), d, stop);
}

double binexact_p(size_t n, size_t up, size_t down, double d)
{
	return p_until(n, up, down, d, INFINITY);
}

bool binexact_p_below(size_t n, size_t up, size_t down, double d, double level)
{
	return p_until(n, up, down, d, level) < level;
}

static double bisect_critical(size_t n, double d, double level, double lo, double hi,
			      bool lo_known);

double binexact_critical_z(size_t n, double d, double level)
{
	double lo, hi, zmax, step = 0.25;
	bool lo_known = true;  /* p(lo) >= level was computed */

	if (!n)
		return INFINITY;
	if (d > 1 - 1e-9)
		d = 1 - 1e-9;
	if (d < -1 + 1e-9)
		d = -1 + 1e-9;
	/* the most extreme outcome (every loss +1) has the largest Z */
	zmax = score(n, (double)n, 0, d);
	if (!p_below(n, zmax, d, level))
		return INFINITY;
	/* p falls as z grows: bracket the smallest z whose p is below 'level'
	 * around the normal critical value, widening the steps until it holds,
	 * then bisect (a bracket of 0.25 takes 18 halvings instead of 40 from
	 * [-40, zmax]) */
	lo = norm_quantile(1 - level);
	if (!(lo < zmax))
		lo = zmax - step;
	if (lo < -40)
		lo = -40;
	if (p_below(n, lo, d, level)) {
		hi = lo;
		for (lo = hi - step; lo > -40 && p_below(n, lo, d, level); lo = hi - step) {
			hi = lo;
			step *= 2;
		}
		if (lo <= -40) {  /* its p was not computed */
			lo = -40;
			lo_known = false;
		}
	} else {
		for (hi = lo + step; hi < zmax && !p_below(n, hi, d, level); hi = lo + step) {
			lo = hi;
			step *= 2;
		}
		if (hi > zmax)
			hi = zmax;
	}
	return bisect_critical(n, d, level, lo, hi, lo_known);
}

/*
 * Bisect [lo, hi] (p(hi) < level, and p(lo) >= level when 'lo_known') to
 * the smallest z whose p is below 'level', within 1e-6. The p of an
 * outcome's Z depends on z only through the region of outcomes at least as
 * extreme, which changes only where z passes a Z some outcome has: once
 * the middle's region is hi's (or lo's, when its p is known), its p is
 * hi's (lo's) without computing it. So the same halvings are made as by
 * computing every p, to the same value, and a p is computed only while the
 * bracket still holds more than one Z of an outcome: about half of them
 * (a p is thousands of binomial terms, a region n binary searches).
 */
static double bisect_critical(size_t n, double d, double level, double lo, double hi,
			      bool lo_known)
{
	long *e_lo = xreallocarray(NULL, n + 1, sizeof(long));
	long *e_hi = xreallocarray(NULL, n + 1, sizeof(long));
	long *e_mid = xreallocarray(NULL, n + 1, sizeof(long)), *swap;
	size_t bytes = (n + 1) * sizeof(long);

	region_edges(n, d, lo, e_lo);
	region_edges(n, d, hi, e_hi);
	for (int i = 0; i < 60 && hi - lo > 1e-6; i++) {
		double mid = lo + (hi - lo) / 2;
		bool below;

		region_edges(n, d, mid, e_mid);
		if (!memcmp(e_mid, e_hi, bytes))
			below = true;
		else if (lo_known && !memcmp(e_mid, e_lo, bytes))
			below = false;
		else
			below = p_below(n, mid, d, level);
		if (below) {
			hi = mid;
			swap = e_hi, e_hi = e_mid, e_mid = swap;
		} else {
			lo = mid;
			lo_known = true;
			swap = e_lo, e_lo = e_mid, e_mid = swap;
		}
	}
	free(e_lo);
	free(e_hi);
	free(e_mid);
	return hi;
}

/*
 * The grid point whose chance was the largest in the last full search of
 * this thread: where p_of_z_until looks first. The order the grid is
 * searched in changes no result (a tie keeps the lowest index, as the
 * search in index order does); it only makes an early stop come early,
 * since the best point moves little between the calls of one search.
 */
static _Thread_local size_t grid_hint;

/*
 * Return the exact p of an observed Z of 'z' (definitions in binexact.h),
 * or, once the largest chance found reaches 'stop', that chance: a caller
 * that only asks whether p < stop has its answer then (p is a largest
 * chance, so it can only be larger still), without the rest of the search.
 * With 'stop' INFINITY the p itself.
 */
static double p_of_z_until(size_t n, double z, double d, double stop)
{
	struct region r;
	double lo = d < 0 ? -d : 0, hi = (1 - d) / 2, best = 0;
	double pts[NUISANCE_GRID + 1];
	size_t ib = 0, first = grid_hint <= NUISANCE_GRID ? grid_hint : 0;

	r.n = n;
	r.d = d;
	r.floor = region_floor(z);
	r.t = xreallocarray(NULL, n + 1, sizeof(*r.t));
	r.bn = binom_shared(n);
	for (size_t v = 0; v <= n; v++)
		r.t[v] = -1;
	for (size_t i = 0; i <= NUISANCE_GRID; i++) {
		double f = (double)i / NUISANCE_GRID;

		pts[i] = lo + (hi - lo) * f * f;
	}
	/* the hinted point first, then the others in order */
	for (size_t k = 0; k <= NUISANCE_GRID; k++) {
		size_t i = k == 0 ? first : k <= first ? k - 1 : k;
		double c = region_chance(&r, pts[i]);

		if (c > best || (c == best && i < ib)) {
			best = c;
			ib = i;
		}
		if (best >= stop)
			goto out;
	}
	grid_hint = ib;
	/* golden-section search for the largest chance between the best
	 * point's neighbours */
	{
		double x0 = pts[ib ? ib - 1 : 0], x1 = pts[ib < NUISANCE_GRID ? ib + 1 : ib];
		const double g = (sqrt(5.0) - 1) / 2;
		double c1 = x1 - g * (x1 - x0), c2 = x0 + g * (x1 - x0);
		double f1 = region_chance(&r, c1), f2 = region_chance(&r, c2);

		for (int i = 0; i < NUISANCE_REFINE; i++) {
			if (f1 > best)
				best = f1;
			if (f2 > best)
				best = f2;
			if (best >= stop)
				goto out;
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
out:
	free(r.t);
	return best > 1 ? 1 : best;
}

/* Whether the p of an observed Z of 'z' is below 'level' (< 1), as
 * p_of_z_until(n, z, d, INFINITY) < level, stopping once it cannot be. */
static bool p_below(size_t n, double z, double d, double level)
{
	return p_of_z_until(n, z, d, level) < level;
}

/* Return log(p / level), the function whose sign change the bound is. */
static double bound_gap(size_t n, size_t up, size_t down, double d, double level)
{
	double p = binexact_p(n, up, down, d);

	return log(p > 1e-300 ? p : 1e-300) - log(level);
}

double binexact_bound(size_t n, size_t up, size_t down, double level)
{
	double lo = -1 + 1e-9, hi = n ? ((double)up - (double)down) / (double)n : 0;
	double flo, fhi = NAN, width, x, f;
	int kept = 0;

	if (!n || (flo = bound_gap(n, up, down, lo, level)) >= 0)
		return -INFINITY;
	if (hi > 1 - 1e-9)
		hi = 1 - 1e-9;
	/* p(hi) >= level: at the observed mean Z = 0 and the region holds half
	 * or more of the null. A first bracket from the normal bound, checked
	 * and widened until it holds, saves most steps. */
	{
		double se = sqrt((((double)up + (double)down) / (double)n + 1.0 / (double)n) /
				 (double)n);
		double step = se;

		x = hi - norm_quantile(1 - level) * se;
		while (x > lo && (f = bound_gap(n, up, down, x, level)) >= 0) {
			hi = x;
			fhi = f;
			x -= step;
			step *= 2;
		}
		if (x > lo) {
			lo = x;
			flo = f;
			x = lo + se / 2;
			if (x < hi) {
				if ((f = bound_gap(n, up, down, x, level)) < 0) {
					lo = x;
					flo = f;
				} else {
					hi = x;
					fhi = f;
				}
			}
		}
	}
	if (isnan(fhi))
		fhi = bound_gap(n, up, down, hi, level);
	/* keep p(lo) < level <= p(hi) and shrink the bracket to 1e-5 by the
	 * Illinois method on log(p / level) (the secant through the bracket's
	 * ends, the value of an end kept twice halved), with a halving
	 * whenever three steps failed to halve the bracket: never much slower
	 * than bisection, and a few steps where p is smooth */
	width = hi - lo;
	for (int i = 0; i < 200 && hi - lo > 1e-5; i++) {
		if (i % 3 == 2 && hi - lo > width / 2) {
			x = lo + (hi - lo) / 2;
		} else {
			x = lo - flo * (hi - lo) / (fhi - flo);
			if (!(x > lo + 2e-6 && x < hi - 2e-6))
				x = lo + (hi - lo) / 2;
		}
		if (i % 3 == 2)
			width = hi - lo;
		f = bound_gap(n, up, down, x, level);
		if (f < 0) {
			lo = x;
			flo = f;
			if (kept < 0)
				fhi /= 2;
			kept = -1;
		} else {
			hi = x;
			fhi = f;
			if (kept > 0)
				flo /= 2;
			kept = 1;
		}
	}
	return lo;
}

size_t binexact_min_losses(size_t n, double margin, double alpha)
{
	size_t lo, hi, guess, step = 1;
	double z;

	if (!n || !binexact_p_below(n, n, 0, margin, alpha))
		return 0;
	/* the first count whose normal Z reaches the normal critical value,
	 * then a bracket around it widened until p changes sides (p falls as
	 * the count grows), then bisection: a few p in place of log2(n) */
	z = norm_quantile(1 - alpha);
	lo = 1;
	hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (score(n, (double)mid, 0, margin) >= z)
			hi = mid;
		else
			lo = mid + 1;
	}
	guess = lo;
	if (binexact_p_below(n, guess, 0, margin, alpha)) {
		hi = guess;
		lo = guess > step ? guess - step : 1;
		while (lo > 1 && binexact_p_below(n, lo, 0, margin, alpha)) {
			hi = lo;
			step *= 2;
			lo = lo > step ? lo - step : 1;
		}
		if (lo == 1 && binexact_p_below(n, 1, 0, margin, alpha))
			return 1;
	} else {
		lo = guess;
		hi = guess + step < n ? guess + step : n;
		while (hi < n && !binexact_p_below(n, hi, 0, margin, alpha)) {
			lo = hi;
			step *= 2;
			hi = hi + step < n ? hi + step : n;
		}
	}
	/* p(lo) >= alpha > p(hi): the smallest rejecting count is in (lo, hi] */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (binexact_p_below(n, mid, 0, margin, alpha))
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}
