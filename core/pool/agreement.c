/*
 * agreement: Cohen's kappa and confusion tables (see agreement.h).
 */
#include "pool/agreement.h"
#include "base/util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

void agreement_add(struct agreement *a, int label, int judge)
{
	label = label < 0 ? 0 : label >= AGREEMENT_LEVELS ? AGREEMENT_LEVELS - 1 : label;
	judge = judge < 0 ? 0 : judge >= AGREEMENT_LEVELS ? AGREEMENT_LEVELS - 1 : judge;
	a->table[label][judge]++;
	a->n++;
}

static long table_total(const long *table, int k)
{
	long n = 0;

	for (int i = 0; i < k * k; i++)
		n += table[i];
	return n;
}

double observed_agreement(const long *table, int k)
{
	long n = table_total(table, k), diag = 0;

	if (!n)
		return NAN;
	for (int i = 0; i < k; i++)
		diag += table[i * k + i];
	return (double)diag / (double)n;
}

double cohen_kappa(const long *table, int k)
{
	long n = table_total(table, k);
	double po, pe = 0;

	if (!n)
		return NAN;
	po = observed_agreement(table, k);
	for (int i = 0; i < k; i++) {
		long row = 0, col = 0;
		for (int j = 0; j < k; j++) {
			row += table[i * k + j];
			col += table[j * k + i];
		}
		pe += ((double)row / (double)n) * ((double)col / (double)n);
	}
	if (pe >= 1 - 1e-12)
		return NAN;
	return (po - pe) / (1 - pe);
}

double agreement_kappa(const struct agreement *a)
{
	return cohen_kappa(&a->table[0][0], AGREEMENT_LEVELS);
}

void agreement_binary(const struct agreement *a, int min_grade, long out[2][2])
{
	out[0][0] = out[0][1] = out[1][0] = out[1][1] = 0;
	for (int i = 0; i < AGREEMENT_LEVELS; i++)
		for (int j = 0; j < AGREEMENT_LEVELS; j++)
			out[i >= min_grade][j >= min_grade] += a->table[i][j];
}

double agreement_kappa_binary(const struct agreement *a, int min_grade)
{
	long b[2][2];

	agreement_binary(a, min_grade, b);
	return cohen_kappa(&b[0][0], 2);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int kappa_interval(const long *table, int k, unsigned long long seed, double *lo, double *hi)
{
	long n = table_total(table, k);
	long *cum, *draw;
	double *kappas;
	uint64_t state = seed;

	*lo = *hi = NAN;
	if (n < 2 || k < 1 || isnan(cohen_kappa(table, k)))
		return -1;
	cum = xcalloc((size_t)(k * k), sizeof(*cum));
	draw = xcalloc((size_t)(k * k), sizeof(*draw));
	kappas = xcalloc(KAPPA_INTERVAL_RESAMPLES, sizeof(*kappas));
	for (int c = 0; c < k * k; c++)
		cum[c] = table[c] + (c ? cum[c - 1] : 0);
	for (int r = 0; r < KAPPA_INTERVAL_RESAMPLES; r++) {
		double kr;

		for (int c = 0; c < k * k; c++)
			draw[c] = 0;
		for (long i = 0; i < n; i++) {
			long u = (long)(splitmix64_next(&state) % (uint64_t)n);
			int c = 0;
			while (cum[c] <= u)
				c++;
			draw[c]++;
		}
		kr = cohen_kappa(draw, k);
		kappas[r] = isnan(kr) ? -INFINITY : kr;
	}
	qsort(kappas, KAPPA_INTERVAL_RESAMPLES, sizeof(*kappas), cmp_double);
	*lo = kappas[(int)(0.025 * KAPPA_INTERVAL_RESAMPLES)];
	*hi = kappas[(int)(0.975 * KAPPA_INTERVAL_RESAMPLES) - 1];
	if (isinf(*lo))
		*lo = -1;  /* the least a kappa can be is not defined below -1 here */
	free(cum);
	free(draw);
	free(kappas);
	return 0;
}
