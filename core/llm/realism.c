/*
 * realism: distributions of questions and two-sample tests (see realism.h).
 *
 * The regularised incomplete gamma function (for the chi-square p-value) is
 * computed by its power series below a + 1 and by its continued fraction
 * (modified Lentz) above, the textbook split that keeps both convergent.
 */
#include "llm/realism.h"
#include "text/text.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const qword_names[QW_NR] = {
	"what", "how", "why", "when", "where", "who", "which", "yes/no", "none",
};

const char *qword_name(enum qword w)
{
	return w < QW_NR ? qword_names[w] : "?";
}

enum qword qword_of(const char *text)
{
	static const struct { const char *w; enum qword c; } words[] = {
		{ "what", QW_WHAT }, { "whats", QW_WHAT }, { "how", QW_HOW }, { "hows", QW_HOW },
		{ "why", QW_WHY }, { "when", QW_WHEN }, { "where", QW_WHERE }, { "wheres", QW_WHERE },
		{ "who", QW_WHO }, { "whom", QW_WHO }, { "whose", QW_WHO }, { "whos", QW_WHO },
		{ "which", QW_WHICH },
		{ "is", QW_YESNO }, { "are", QW_YESNO }, { "was", QW_YESNO }, { "were", QW_YESNO },
		{ "do", QW_YESNO }, { "does", QW_YESNO }, { "did", QW_YESNO }, { "can", QW_YESNO },
		{ "could", QW_YESNO }, { "should", QW_YESNO }, { "will", QW_YESNO }, { "would", QW_YESNO },
		{ "has", QW_YESNO }, { "have", QW_YESNO }, { "had", QW_YESNO }, { "may", QW_YESNO },
		{ "must", QW_YESNO }, { "shall", QW_YESNO }, { "isnt", QW_YESNO }, { "cant", QW_YESNO },
	};
	struct tokens t = TOKENS_INIT;
	enum qword c = QW_NONE;

	text_tokenize(text, strlen(text), &t);
	if (t.nr) {
		char w[16];
		size_t o = 0;
		/* "what's" tokenises as "what" "s"; fold the apostrophe forms */
		for (const char *p = t.items[0]; *p && o < sizeof(w) - 1; p++)
			w[o++] = *p;
		w[o] = '\0';
		for (size_t i = 0; i < ARRAY_SIZE(words); i++)
			if (!strcmp(words[i].w, w))
				c = words[i].c;
	}
	tokens_release(&t);
	return c;
}

void realism_add(struct realism_side *s, const char *text, double overlap)
{
	struct tokens t = TOKENS_INIT;

	text_tokenize(text, strlen(text), &t);
	if (s->n == s->alloc) {
		s->alloc = s->alloc ? 2 * s->alloc : 64;
		s->len = xrealloc(s->len, s->alloc * sizeof(double));
		s->overlap = xrealloc(s->overlap, s->alloc * sizeof(double));
	}
	s->len[s->n] = (double)t.nr;
	s->overlap[s->n] = overlap;
	s->n++;
	s->qword[qword_of(text)]++;
	tokens_release(&t);
}

void realism_release(struct realism_side *s)
{
	free(s->len);
	free(s->overlap);
	memset(s, 0, sizeof(*s));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double realism_quantile(double *v, size_t n, double q)
{
	double pos;
	size_t lo;

	if (!n)
		return 0;
	qsort(v, n, sizeof(double), cmp_double);
	pos = q * (double)(n - 1);
	lo = (size_t)pos;
	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + (v[lo + 1] - v[lo]) * (pos - (double)lo);
}

double ks_q(double lambda)
{
	double sum = 0, prev = 0;

	if (lambda < 0.2)
		return 1.0;
	for (int j = 1; j <= 100; j++) {
		double term = exp(-2.0 * j * j * lambda * lambda);
		sum += (j % 2 ? 2.0 : -2.0) * term;
		if (term < 1e-12 * sum || fabs(sum - prev) < 1e-15)
			break;
		prev = sum;
	}
	return sum < 0 ? 0 : sum > 1 ? 1 : sum;
}

struct ks_result ks_two_sample(const double *a, size_t na, const double *b, size_t nb)
{
	struct ks_result r = { 0, 1 };
	double *x, *y, ne;
	size_t i = 0, j = 0;

	if (!na || !nb)
		return r;
	x = xmalloc(na * sizeof(double));
	y = xmalloc(nb * sizeof(double));
	memcpy(x, a, na * sizeof(double));
	memcpy(y, b, nb * sizeof(double));
	qsort(x, na, sizeof(double), cmp_double);
	qsort(y, nb, sizeof(double), cmp_double);
	/* walk both sorted samples; the gap is measured after every distinct value */
	while (i < na && j < nb) {
		double v = x[i] < y[j] ? x[i] : y[j], gap;
		while (i < na && x[i] <= v)
			i++;
		while (j < nb && y[j] <= v)
			j++;
		gap = fabs((double)i / (double)na - (double)j / (double)nb);
		if (gap > r.d)
			r.d = gap;
	}
	free(x);
	free(y);
	ne = (double)na * (double)nb / (double)(na + nb);
	r.p = ks_q((sqrt(ne) + 0.12 + 0.11 / sqrt(ne)) * r.d);
	return r;
}

/* Regularised lower incomplete gamma P(a, x) by its series (x < a + 1). */
static double gamma_p_series(double a, double x)
{
	double sum = 1.0 / a, term = sum, ap = a;

	for (int n = 0; n < 1000; n++) {
		ap += 1;
		term *= x / ap;
		sum += term;
		if (fabs(term) < fabs(sum) * 1e-15)
			break;
	}
	return sum * exp(-x + a * log(x) - lgamma(a));
}

/* Regularised upper incomplete gamma Q(a, x) by its continued fraction (x >= a + 1). */
static double gamma_q_cf(double a, double x)
{
	const double tiny = 1e-300;
	double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;

	for (int i = 1; i < 1000; i++) {
		double an = -i * (i - a), del;
		b += 2;
		d = an * d + b;
		if (fabs(d) < tiny)
			d = tiny;
		c = b + an / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return exp(-x + a * log(x) - lgamma(a)) * h;
}

double chi2_sf(double x, double df)
{
	double a = df / 2, h = x / 2;

	if (!(x > 0) || !(df > 0))
		return 1.0;
	if (h < a + 1)
		return 1.0 - gamma_p_series(a, h);
	return gamma_q_cf(a, h);
}

struct chi2_result chi2_two_sample(const size_t *a, const size_t *b, size_t k)
{
	struct chi2_result r = { 0, 1, 0 };
	double na = 0, nb = 0;
	int used = 0;

	for (size_t i = 0; i < k; i++) {
		na += (double)a[i];
		nb += (double)b[i];
	}
	if (!na || !nb)
		return r;
	for (size_t i = 0; i < k; i++) {
		double col = (double)a[i] + (double)b[i], ea, eb;
		if (!col)
			continue;
		used++;
		ea = col * na / (na + nb);
		eb = col * nb / (na + nb);
		r.x2 += ((double)a[i] - ea) * ((double)a[i] - ea) / ea + ((double)b[i] - eb) * ((double)b[i] - eb) / eb;
	}
	r.df = used - 1;
	r.p = r.df > 0 ? chi2_sf(r.x2, r.df) : 1.0;
	return r;
}

struct realism_gap realism_compare(const struct realism_side *s, const struct realism_side *r)
{
	struct realism_gap g;

	g.len = ks_two_sample(s->len, s->n, r->len, r->n);
	g.overlap = ks_two_sample(s->overlap, s->n, r->overlap, r->n);
	g.qword = chi2_two_sample(s->qword, r->qword, QW_NR);
	return g;
}
