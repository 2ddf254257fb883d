/*
 * gatetest: rounding, the exact test on rounded losses, Holm's family and
 * the sizes a rule needs (definitions and guarantees in gatetest.h).
 *
 * Cost: a p is one binexact_p (about 72 n b (1 - b) steps at worst), a
 * bound about 20 of them; the size search O(log n) p of the extreme outcome.
 */
#include "compare/gatetest.h"
#include "compare/binexact.h"
#include "compare/binom.h"
#include "base/util.h"
#include "compare/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_QUESTIONS 10000000

double gatetest_uniform(const char *id, uint64_t seed)
{
	uint64_t h = 0xcbf29ce484222325ULL;  /* FNV-1a over the id's bytes */

	for (const unsigned char *s = (const unsigned char *)id; *s; s++)
		h = (h ^ *s) * 0x100000001b3ULL;
	h = splitmix64_mix(h ^ mix64(seed + 0x9e3779b97f4a7c15ULL));
	return (double)(h >> 11) * 0x1.0p-53;
}

void gatetest_round(const double *loss, const double *u, size_t n, struct gatetest_counts *out)
{
	memset(out, 0, sizeof(*out));
	out->n = n;
	for (size_t i = 0; i < n; i++) {
		double l = loss[i], a = fabs(l);

		if (!(a > 0))
			continue;       /* 0 (and NAN, which no caller passes) stays 0 */
		if (a < 1)
			out->rounded++;
		else
			a = 1;
		if (u[i] < a) {
			if (l > 0)
				out->up++;
			else
				out->down++;
		}
	}
}

double gatetest_p_drop(const struct gatetest_counts *k, double margin)
{
	if (margin >= 1)
		return 1;
	return binexact_p(k->n, k->up, k->down, margin);
}

double gatetest_p_noninf(const struct gatetest_counts *k, double margin)
{
	if (margin >= 1)  /* every mean loss is below 1: shown whatever the outcome */
		return 0;
	return binexact_p(k->n, k->down, k->up, -margin);
}

double gatetest_lower(const struct gatetest_counts *k, double level)
{
	return binexact_bound(k->n, k->up, k->down, level);
}

double gatetest_upper(const struct gatetest_counts *k, double level)
{
	double b = binexact_bound(k->n, k->down, k->up, level);

	return isinf(b) ? INFINITY : -b;
}

double gatetest_min_p_drop(size_t n, double margin)
{
	if (!n || margin >= 1)
		return 1;
	return binexact_p(n, n, 0, margin);
}

double gatetest_p_noninf_unchanged(size_t n, double margin)
{
	if (!n)
		return 1;
	if (margin >= 1)
		return 0;
	return binexact_p(n, 0, 0, -margin);
}

/* Whether the rule's best p on 'n' questions (gatetest_min_p_drop, or
 * gatetest_p_noninf_unchanged when 'noninf') is below 'level' */
static bool best_p_below(size_t n, double margin, bool noninf, double level)
{
	if (noninf) {
		if (!n)
			return 1 < level;
		if (margin >= 1)
			return 0 < level;
		return binexact_p_below(n, 0, 0, -margin, level);
	}
	if (!n || margin >= 1)
		return 1 < level;
	return binexact_p_below(n, n, 0, margin, level);
}

size_t gatetest_questions_needed(size_t n, double margin, bool noninf, double level)
{
	size_t lo = n + 1, hi = n + 1;

	if (!noninf && margin >= 1)
		return 0;
	/* the best p falls as questions are added: bracket, then bisect */
	while (!best_p_below(hi, margin, noninf, level)) {
		if (hi >= MAX_QUESTIONS)
			return 0;
		lo = hi + 1;
		hi = hi * 2 > MAX_QUESTIONS ? MAX_QUESTIONS : hi * 2;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (best_p_below(mid, margin, noninf, level))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

size_t gatetest_family_size(const bool *in_family, size_t K)
{
	size_t m = 0;

	for (size_t r = 0; r < K; r++)
		m += in_family[r];
	return m;
}

struct ranked {
	double p;
	size_t r;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return (x->r > y->r) - (x->r < y->r);
}

void gatetest_holm(const double *p, const bool *in_family, size_t K, double alpha,
		   struct gatetest_holm *out)
{
	struct ranked *ord = xcalloc(K + 1, sizeof(*ord));
	size_t m = 0;
	double running = 0, stop_level = NAN;
	bool stopped = false;

	for (size_t r = 0; r < K; r++) {
		out[r].p_adj = p[r];
		out[r].level = alpha;
		out[r].reject = p[r] < alpha;
		if (in_family[r])
			ord[m++] = (struct ranked){ p[r], r };
	}
	qsort(ord, m, sizeof(*ord), cmp_ranked);
	for (size_t j = 0; j < m; j++) {
		size_t left = m - j, r = ord[j].r;
		double step = ord[j].p * (double)left;

		if (step > 1)
			step = 1;
		if (step > running)
			running = step;
		if (!stopped && !(ord[j].p < alpha / (double)left)) {
			stopped = true;
			stop_level = alpha / (double)left;
		}
		out[r].p_adj = running;
		out[r].level = stopped ? stop_level : alpha / (double)left;
		out[r].reject = !stopped;
	}
	free(ord);
}

/* ---- the p cache ---- */

struct gatetest_cache_entry {
	size_t n, up, down;
	double margin;
	bool noninf, used;
	double p;
};

void gatetest_cache_release(struct gatetest_cache *c)
{
	free(c->slots);
	memset(c, 0, sizeof(*c));
}

static size_t cache_slot(const struct gatetest_cache *c, const struct gatetest_counts *k,
			 double margin, bool noninf)
{
	uint64_t bits;
	uint64_t h;

	memcpy(&bits, &margin, sizeof(bits));
	h = mix64(k->n * 0x9e3779b97f4a7c15ULL ^ mix64(k->up * 31 + k->down * 1000003ULL + noninf) ^ bits);
	return (size_t)h & (c->cap - 1);
}

static void cache_grow(struct gatetest_cache *c)
{
	struct gatetest_cache_entry *old = c->slots;
	size_t oldcap = c->cap;

	c->cap = oldcap ? oldcap * 2 : 1024;
	c->slots = xcalloc(c->cap, sizeof(*c->slots));
	c->nr = 0;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].used) {
			struct gatetest_counts k = { old[i].n, old[i].up, old[i].down, 0 };
			size_t s = cache_slot(c, &k, old[i].margin, old[i].noninf);

			while (c->slots[s].used)
				s = (s + 1) & (c->cap - 1);
			c->slots[s] = old[i];
			c->nr++;
		}
	free(old);
}

double gatetest_p_cached(struct gatetest_cache *c, const struct gatetest_counts *k,
			 double margin, bool noninf)
{
	size_t s;
	double p;

	if (!c)
		return noninf ? gatetest_p_noninf(k, margin) : gatetest_p_drop(k, margin);
	if ((c->nr + 1) * 2 > c->cap)
		cache_grow(c);
	for (s = cache_slot(c, k, margin, noninf); c->slots[s].used; s = (s + 1) & (c->cap - 1)) {
		const struct gatetest_cache_entry *e = &c->slots[s];

		if (e->n == k->n && e->up == k->up && e->down == k->down && e->margin == margin &&
		    e->noninf == noninf)
			return e->p;
	}
	p = noninf ? gatetest_p_noninf(k, margin) : gatetest_p_drop(k, margin);
	c->slots[s] = (struct gatetest_cache_entry){ k->n, k->up, k->down, margin, noninf, true, p };
	c->nr++;
	return p;
}

/* ---- power of one rule ---- */

/* Return P(Binomial(m, q) = x), 'lq' the logs of q when 0 < q < 1. */
static double binom_pmf(const struct binom *bn, size_t m, size_t x, double q, struct binom_q lq)
{
	if (q <= 0)
		return x ? 0 : 1;
	if (q >= 1)
		return x == m;
	return exp(binom_log_pmf(bn, m, x, lq));
}

/* Return P(Binomial(m, q) >= t) by summing the terms (m is at most a few
 * thousand where this is called per count). */
static double binom_upper(const struct binom *bn, size_t m, double q, struct binom_q lq, size_t t)
{
	double sum = 0;

	if (t == 0)
		return 1;
	if (t > m)
		return 0;
	if ((double)t > (double)m * q) {
		for (size_t x = t; x <= m; x++) {
			double term = binom_pmf(bn, m, x, q, lq);

			sum += term;
			if (term < 1e-18)
				break;
		}
		return sum > 1 ? 1 : sum;
	}
	/* below the mean: one minus the lower tail, summed down from t - 1 */
	for (size_t x = t - 1;; x--) {
		double term = binom_pmf(bn, m, x, q, lq);

		sum += term;
		if (!x || term < 1e-18)
			break;
	}
	return sum >= 1 ? 0 : 1 - sum;
}

/*
 * What region_power keeps between calls, in the thread that makes them
 * (besides binom_shared's log factorials): for each n of the last (d, z)
 * the smallest u of the region for each v found so far (-1 where not yet
 * searched): a size search asks for the power of many models (every
 * baseline mean, every drop) at the same n's and critical value, and these
 * depend on neither. The values are those computed afresh. Kept until the
 * process exits; for at most POWER_EDGE_SLOTS / 2 n's, each at most
 * POWER_EDGE_MAX_N (a larger n is searched afresh each time), all dropped
 * when full or when (d, z) changes.
 */
#define POWER_EDGE_SLOTS 256
#define POWER_EDGE_MAX_N 65536
struct power_edges {
	size_t n;   /* 0: a free slot */
	long *u;    /* n + 1 entries */
};
static _Thread_local struct power_edges power_edges[POWER_EDGE_SLOTS];
static _Thread_local double power_edges_d = NAN, power_edges_z = NAN;
static _Thread_local size_t power_edges_used;

/* The edges of 'n' for (d, z) in power_edges, made (all -1) if missing;
 * NULL when n is too large to keep. */
static long *edges_of(size_t n, double d, double z)
{
	size_t i = (n * 0x9e3779b97f4a7c15ULL) >> 56 & (POWER_EDGE_SLOTS - 1);

	if (n > POWER_EDGE_MAX_N)
		return NULL;
	if (power_edges_d != d || power_edges_z != z || power_edges_used >= POWER_EDGE_SLOTS / 2) {
		for (size_t k = 0; k < POWER_EDGE_SLOTS; k++) {
			free(power_edges[k].u);
			power_edges[k] = (struct power_edges){ 0, NULL };
		}
		power_edges_d = d;
		power_edges_z = z;
		power_edges_used = 0;
	}
	while (power_edges[i].n && power_edges[i].n != n)
		i = (i + 1) & (POWER_EDGE_SLOTS - 1);
	if (!power_edges[i].n) {
		power_edges[i].n = n;
		power_edges[i].u = xreallocarray(NULL, n + 1, sizeof(long));
		for (size_t v = 0; v <= n; v++)
			power_edges[i].u[v] = -1;
		power_edges_used++;
	}
	return power_edges[i].u;
}

/* The smallest u with Z(u, v) >= 'z' among 'n' questions against 'd' (n - v
 * + 1 when none), kept in 'edges' (when not NULL). */
static size_t region_edge(long *edges, size_t n, size_t v, double d, double z)
{
	size_t ulo = 0, uhi = n - v + 1;

	if (edges && edges[v] >= 0)
		return (size_t)edges[v];
	/* Z grows with u: the smallest u of the region */
	while (ulo < uhi) {
		size_t mid = ulo + (uhi - ulo) / 2;

		if (binexact_z(n, mid, v, d) >= z)
			uhi = mid;
		else
			ulo = mid + 1;
	}
	if (edges)
		edges[v] = (long)ulo;
	return ulo;
}

/* Return the chance of the region Z >= 'z' of the test against 'd' when a
 * rounded loss is +1 with chance 'a' and -1 with chance 'b'. */
static double region_power(size_t n, double a, double b, double d, double z)
{
	double total = 0, q, mean, sd;
	struct binom_q lb = { 0, 0 }, lq = { 0, 0 };
	size_t lo, hi;
	long *edges;
	const struct binom *bn;

	if (isinf(z))
		return z > 0 ? 0 : 1;
	q = b < 1 ? a / (1 - b) : 0;
	if (q > 1)
		q = 1;
	if (q > 0 && q < 1)
		lq = binom_q(q);
	if (b > 0 && b < 1)
		lb = binom_q(b);
	mean = (double)n * b;
	sd = sqrt((double)n * b * (1 - b));
	lo = mean - 9 * sd - 2 > 0 ? (size_t)(mean - 9 * sd - 2) : 0;
	hi = mean + 9 * sd + 2 < (double)n ? (size_t)(mean + 9 * sd + 2) : n;
	bn = binom_shared(n);
	edges = edges_of(n, d, z);
	for (size_t v = lo; v <= hi; v++) {
		double w = binom_pmf(bn, n, v, b, lb);

		if (!(w > 0))
			continue;
		total += w * binom_upper(bn, n - v, q, lq, region_edge(edges, n, v, d, z));
	}
	return total > 1 ? 1 : total;
}

static double power_with(size_t n, double a, double b, double margin, bool noninf, double level,
			 bool exact)
{
	double d, z, p;

	if (!n || !(level > 0 && level < 1))
		return NAN;
	if (noninf) {  /* tested on the negated losses against -margin */
		double t = a;

		a = b;
		b = t;
		d = -margin;
	} else {
		if (margin >= 1)
			return 0;
		d = margin;
	}
	if (d > 1 - 1e-9)
		d = 1 - 1e-9;
	if (!exact) {
		z = norm_quantile(1 - level);
	} else {
		/* the critical value depends on n, d and level only: callers ask
		 * for many a and b at once (every baseline mean, every drop) */
		static _Thread_local size_t last_n;
		static _Thread_local double last_d = NAN, last_level = NAN, last_z;

		if (n != last_n || d != last_d || level != last_level) {
			last_z = binexact_critical_z(n, d, level);
			last_n = n;
			last_d = d;
			last_level = level;
		}
		z = last_z;
	}
	p = region_power(n, a, b, d, z);
	return noninf ? 1 - p : p;
}

double gatetest_power(size_t n, double a, double b, double margin, bool noninf, double level)
{
	return power_with(n, a, b, margin, noninf, level, true);
}

double gatetest_power_approx(size_t n, double a, double b, double margin, bool noninf, double level)
{
	return power_with(n, a, b, margin, noninf, level, false);
}
