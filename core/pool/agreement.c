/*
 * agreement: Cohen's kappa and confusion tables (see agreement.h).
 */
#include "pool/agreement.h"

#include <math.h>

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
