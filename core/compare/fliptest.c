/*
 * fliptest: grouped sign-flip tests with step-down maxT and their inversion
 * (definitions in fliptest.h).
 *
 * Cost: rows are grouped once (sort, O(n log n) K); an enumerated outcome or
 * a drawn flip then costs O(G K) for G groups, plus one random word per 64
 * rows of a group when drawing. Memory: (outcomes or flips) x K doubles.
 */
#include "compare/fliptest.h"
#include "compare/stats.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct group {
	const double *row;   /* K values */
	size_t m;            /* rows in the group */
	double *pmf;         /* exact only: Binomial(m, 1/2) probabilities */
};

static size_t sort_k;  /* column count for cmp_rows (qsort has no context) */

static int cmp_rows(const void *a, const void *b)
{
	const double *x = *(const double *const *)a, *y = *(const double *const *)b;

	for (size_t r = 0; r < sort_k; r++)
		if (x[r] != y[r])
			return x[r] < y[r] ? -1 : 1;
	return 0;
}

/* Group the non-zero rows of 'x'; return the groups (caller frees). */
static struct group *make_groups(const double *x, size_t n, size_t K, size_t *nr)
{
	const double **rows = xmalloc((n + 1) * sizeof(*rows));
	struct group *g = xcalloc(n + 1, sizeof(*g));
	size_t nz = 0, ng = 0;

	for (size_t i = 0; i < n; i++) {
		bool zero = true;

		for (size_t r = 0; r < K && zero; r++)
			zero = x[i * K + r] == 0;
		if (!zero)
			rows[nz++] = x + i * K;
	}
	sort_k = K;
	qsort(rows, nz, sizeof(*rows), cmp_rows);
	for (size_t i = 0; i < nz; i++) {
		if (ng && !cmp_rows(&rows[i], &g[ng - 1].row)) {
			g[ng - 1].m++;
			continue;
		}
		g[ng].row = rows[i];
		g[ng].m = 1;
		ng++;
	}
	free(rows);
	*nr = ng;
	return g;
}

double flip_min_p(size_t n, long permutations)
{
	double exact = ldexp(1.0, -(int)(n < 2000 ? n : 2000));
	double drawn = 1.0 / ((double)permutations + 1);

	return exact > drawn ? exact : drawn;
}

/* Fill the K studentised statistics of the sums 's' into 't'. */
static void studentise(const double *s, const double *q, size_t K, double *t)
{
	for (size_t r = 0; r < K; r++)
		t[r] = q[r] > 0 ? s[r] / sqrt(q[r]) : 0;
}

static double tol_of(double t)
{
	return 1e-9 * (1 + fabs(t));
}

struct weighted {
	double v, w;
};

static int cmp_weighted_desc(const void *a, const void *b)
{
	double x = ((const struct weighted *)a)->v, y = ((const struct weighted *)b)->v;

	return (x < y) - (x > y);
}

/*
 * From the null values 'v[0..B)' with weights 'w' (NULL: each 1/(B+1),
 * plus 'base' = 1/(B+1) for the observed arrangement), return the p of 't'
 * and set '*crit' so that p < alpha exactly when t > *crit.
 */
static double tail(const double *v, const double *w, size_t B, double base, double t,
		   double alpha, double *crit)
{
	struct weighted *s = xmalloc((B + 1) * sizeof(*s));
	double p = base, cum = base, each = 1.0 / ((double)B + 1);
	double tol = tol_of(t);

	for (size_t b = 0; b < B; b++) {
		s[b].v = v[b];
		s[b].w = w ? w[b] : each;
		if (v[b] >= t - tol)
			p += s[b].w;
	}
	qsort(s, B, sizeof(*s), cmp_weighted_desc);
	*crit = INFINITY;
	if (base < alpha) {
		for (size_t b = 0; b < B; b++) {
			cum += s[b].w;
			/* values tied with s[b] count together */
			while (b + 1 < B && s[b + 1].v == s[b].v)
				cum += s[++b].w;
			if (cum >= alpha * (1 - 1e-12)) {
				/* reject when t - tol(t) > s[b].v: t > v + tol at v */
				*crit = s[b].v + tol_of(s[b].v);
				break;
			}
		}
	}
	free(s);
	return p > 1 ? 1 : p;
}

/* Compute the null statistics: 'tstar' (N x K), 'w' (N weights, NULL when
 * drawn). Return N. */
static size_t null_stats(const struct group *g, size_t ng, size_t K, const double *q,
			 const struct flip_opts *o, double **tstar, double **w, bool *exact)
{
	double outcomes = 1;
	double *s = xcalloc(K + 1, sizeof(*s));
	size_t N;

	for (size_t i = 0; i < ng && outcomes <= o->exact_limit; i++)
		outcomes *= (double)g[i].m + 1;
	*exact = outcomes <= o->exact_limit;
	if (*exact) {
		size_t *j = xcalloc(ng + 1, sizeof(*j));

		N = (size_t)outcomes;
		*tstar = xmalloc((N * K + 1) * sizeof(double));
		*w = xmalloc((N + 1) * sizeof(double));
		for (size_t i = 0; i < ng; i++) {
			struct group *gi = (struct group *)&g[i];

			gi->pmf = xmalloc((gi->m + 1) * sizeof(double));
			for (size_t k = 0; k <= gi->m; k++)
				gi->pmf[k] = exp(lgamma((double)gi->m + 1) - lgamma((double)k + 1) -
						 lgamma((double)(gi->m - k) + 1) - (double)gi->m * M_LN2);
		}
		for (size_t b = 0; b < N; b++) {
			double wt = 1;

			memset(s, 0, K * sizeof(*s));
			for (size_t i = 0; i < ng; i++) {
				double f = (double)g[i].m - 2.0 * (double)j[i];

				wt *= g[i].pmf[j[i]];
				for (size_t r = 0; r < K; r++)
					s[r] += f * g[i].row[r];
			}
			studentise(s, q, K, *tstar + b * K);
			(*w)[b] = wt;
			for (size_t i = 0; i < ng; i++) {  /* odometer */
				if (++j[i] <= g[i].m)
					break;
				j[i] = 0;
			}
		}
		for (size_t i = 0; i < ng; i++) {
			free(g[i].pmf);
			((struct group *)&g[i])->pmf = NULL;
		}
		free(j);
	} else {
		struct rng rng;

		N = (size_t)o->permutations;
		*tstar = xmalloc((N * K + 1) * sizeof(double));
		*w = NULL;
		rng_seed(&rng, o->seed);
		for (size_t b = 0; b < N; b++) {
			memset(s, 0, K * sizeof(*s));
			for (size_t i = 0; i < ng; i++) {
				size_t m = g[i].m, flipped = 0;
				double f;

				for (; m >= 64; m -= 64)
					flipped += (size_t)__builtin_popcountll(rng_next(&rng));
				if (m)
					flipped += (size_t)__builtin_popcountll(rng_next(&rng) &
										 ((1ULL << m) - 1));
				f = (double)g[i].m - 2.0 * (double)flipped;
				for (size_t r = 0; r < K; r++)
					s[r] += f * g[i].row[r];
			}
			studentise(s, q, K, *tstar + b * K);
		}
	}
	free(s);
	return N;
}

static bool has_fixed(const struct flip_opts *o, size_t r)
{
	return o->fixed_p && !isnan(o->fixed_p[r]);
}

struct order {
	double t;
	size_t r;
};

static int cmp_order(const void *a, const void *b)
{
	const struct order *x = a, *y = b;

	if (x->t != y->t)
		return x->t > y->t ? -1 : 1;
	return (x->r > y->r) - (x->r < y->r);
}

int flip_test(const double *x, size_t n, size_t K, const bool *in_family,
	      const struct flip_opts *o, struct flip_result *out, bool *exact, double *outcomes)
{
	size_t ng, N, nf = 0;
	struct group *g = make_groups(x, n, K, &ng);
	double *s = xcalloc(K + 1, sizeof(*s)), *q = xcalloc(K + 1, sizeof(*q));
	double *t = xcalloc(K + 1, sizeof(*t)), *tstar = NULL, *w = NULL;
	double *col, *u, base;
	struct order *ord = xcalloc(K + 1, sizeof(*ord));

	for (size_t i = 0; i < n; i++)
		for (size_t r = 0; r < K; r++) {
			s[r] += x[i * K + r];
			q[r] += x[i * K + r] * x[i * K + r];
		}
	studentise(s, q, K, t);
	N = null_stats(g, ng, K, q, o, &tstar, &w, exact);
	*outcomes = (double)N;
	base = *exact ? 0 : 1.0 / ((double)N + 1);
	col = xmalloc((N + 1) * sizeof(*col));
	u = xmalloc((N + 1) * sizeof(*u));

	/* marginal p and critical value of every hypothesis */
	for (size_t r = 0; r < K; r++) {
		out[r].level = o->alpha;
		if (has_fixed(o, r)) {
			out[r].t = NAN;
			out[r].p = o->fixed_p[r];
			out[r].crit = NAN;
		} else {
			for (size_t b = 0; b < N; b++)
				col[b] = tstar[b * K + r];
			out[r].t = t[r];
			out[r].p = tail(col, w, N, base, t[r], o->alpha, &out[r].crit);
		}
		out[r].p_adj = out[r].p;
		out[r].reject = out[r].p < o->alpha;
	}

	/*
	 * Step-down over the family: the sign-flip members form one unit whose
	 * p is the maxT p of its highest remaining T; each member with a fixed
	 * p is a unit of its own. With m units left, the unit of smallest p is
	 * judged at alpha / m (a Bonferroni-Holm step over the units, a
	 * closed-testing shortcut; with no fixed p, m = 1 throughout and this is
	 * the plain step-down maxT).
	 */
	for (size_t r = 0; r < K; r++)
		if (in_family[r] && !has_fixed(o, r))
			ord[nf++] = (struct order){ t[r], r };
	qsort(ord, nf, sizeof(*ord), cmp_order);
	{
		bool *left = xcalloc(K + 1, sizeof(*left));
		size_t units = 0, next_a = 0;
		double running = 0, stop_level = NAN, stop_crit = NAN;
		bool stopped = false;

		for (size_t r = 0; r < K; r++)
			if (in_family[r] && has_fixed(o, r)) {
				left[r] = true;
				units++;
			}
		for (;;) {
			size_t m = units + (next_a < nf), pick = K;
			double pa = INFINITY, crit_a = INFINITY, level, pk, step;

			if (!m)
				break;
			level = stopped ? stop_level : o->alpha / (double)m;
			if (next_a < nf) {
				for (size_t b = 0; b < N; b++) {
					double mx = -INFINITY;

					for (size_t j = next_a; j < nf; j++)
						if (tstar[b * K + ord[j].r] > mx)
							mx = tstar[b * K + ord[j].r];
					u[b] = mx;
				}
				pa = tail(u, w, N, base, t[ord[next_a].r], level, &crit_a);
			}
			/* the unit of smallest p; on a tie the sign-flip unit, then
			 * the earlier rule */
			pk = pa;
			for (size_t r = 0; r < K; r++)
				if (left[r] && o->fixed_p[r] < pk) {
					pk = o->fixed_p[r];
					pick = r;
				}
			step = pk * (double)m > 1 ? 1 : pk * (double)m;
			if (step > running)
				running = step;
			if (!stopped && !(running < o->alpha)) {
				stopped = true;
				stop_level = level;
				stop_crit = crit_a;
			}
			if (pick == K) {
				size_t r = ord[next_a++].r;

				out[r].p_adj = running;
				out[r].reject = running < o->alpha;
				out[r].level = level;
				out[r].crit = stopped && stop_crit > crit_a ? stop_crit : crit_a;
			} else {
				out[pick].p_adj = running;
				out[pick].reject = running < o->alpha;
				out[pick].level = level;
				left[pick] = false;
				units--;
			}
		}
		free(left);
	}
	free(col);
	free(u);
	free(tstar);
	free(w);
	free(g);
	free(s);
	free(q);
	free(t);
	free(ord);
	return 0;
}

static double stat_at(const double *loss, size_t n, double d, int dir)
{
	double s = 0, q = 0;

	for (size_t i = 0; i < n; i++) {
		double v = dir > 0 ? loss[i] - d : d - loss[i];

		s += v;
		q += v * v;
	}
	return q > 0 ? s / sqrt(q) : 0;
}

double flip_bound(const double *loss, size_t n, double crit, int dir)
{
	double lo, hi, lmin = INFINITY, lmax = -INFINITY, span;

	if (!n || (isinf(crit) && crit > 0))
		return dir > 0 ? -INFINITY : INFINITY;
	for (size_t i = 0; i < n; i++) {
		if (loss[i] < lmin)
			lmin = loss[i];
		if (loss[i] > lmax)
			lmax = loss[i];
	}
	span = lmax - lmin + 1;
	/* 'in' is a margin the test rejects, 'outm' one it does not */
	{
		double in = dir > 0 ? lmin - span : lmax + span;
		double outm = dir > 0 ? lmax + span : lmin - span;
		int tries = 0;

		while (!(stat_at(loss, n, in, dir) > crit) && tries++ < 60)
			in = dir > 0 ? lmin - (lmin - in) * 2 : lmax + (in - lmax) * 2;
		if (!(stat_at(loss, n, in, dir) > crit))
			return dir > 0 ? -INFINITY : INFINITY;
		tries = 0;
		while (stat_at(loss, n, outm, dir) > crit && tries++ < 60)
			outm = dir > 0 ? lmax + (outm - lmax) * 2 : lmin - (lmin - outm) * 2;
		if (stat_at(loss, n, outm, dir) > crit)
			return dir > 0 ? INFINITY : -INFINITY;
		lo = in;
		hi = outm;
		for (int i = 0; i < 200 && lo != hi; i++) {
			double mid = lo + (hi - lo) / 2;

			if (mid == lo || mid == hi)
				break;
			if (stat_at(loss, n, mid, dir) > crit)
				lo = mid;
			else
				hi = mid;
		}
	}
	return lo;
}

/* Fill 'cdf[0..m]' with P(Binomial(m, 1/2) <= j). */
static void binom_cdf(size_t m, double *cdf)
{
	double acc = 0;

	for (size_t j = 0; j <= m; j++) {
		acc += exp(lgamma((double)m + 1) - lgamma((double)j + 1) -
			   lgamma((double)(m - j) + 1) - (double)m * M_LN2);
		cdf[j] = acc;
	}
}

/* Return the exact p of k losses of 1 among n questions against 'margin':
 * the observed sum is a(1 - margin) - b margin with a = k, b = n - k, and a
 * flip of i losses and j others gives (k - 2i)(1 - margin) - (n - k - 2j) margin. */
static double p_of_losses(size_t n, size_t k, double margin, double *cdf)
{
	double up = 1 - margin, s_obs = (double)k * up - (double)(n - k) * margin;
	double tol = 1e-9 * (1 + fabs(s_obs)), p = 0;
	size_t m = n - k;

	binom_cdf(m, cdf);
	for (size_t i = 0; i <= k; i++) {
		double pi = exp(lgamma((double)k + 1) - lgamma((double)i + 1) -
				lgamma((double)(k - i) + 1) - (double)k * M_LN2);
		double rest = s_obs - tol - (double)((long)k - 2 * (long)i) * up;
		/* need -(m - 2j) margin >= rest: j >= (m + rest / margin) / 2 */
		double jmin;

		if (margin <= 0) {
			if (rest <= 0)
				p += pi;
			continue;
		}
		jmin = ceil(((double)m + rest / margin) / 2 - 1e-12);
		if (jmin <= 0)
			p += pi;
		else if (jmin <= (double)m)
			p += pi * (1 - cdf[(size_t)jmin - 1]);
	}
	return p;
}

size_t flip_min_losses(size_t n, double margin, double alpha)
{
	double *cdf = xmalloc((n + 2) * sizeof(*cdf));
	size_t lo = 1, hi = n, found = 0;

	/* p falls as k grows: search for the first k with p < alpha */
	if (n && p_of_losses(n, n, margin, cdf) < alpha) {
		found = n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (p_of_losses(n, mid, margin, cdf) < alpha)
				hi = mid;
			else
				lo = mid + 1;
		}
		found = lo;
	}
	free(cdf);
	return found;
}
