/*
 * sample: stratified sampling of mined queries by frequency (see sample.h).
 */
#include "logs/sample.h"

#include "base/util.h"

#include <stdlib.h>

static const char *const stratum_names[NR_STRATA] = { "head", "torso", "tail" };

const char *stratum_name(enum stratum s)
{
	return s < NR_STRATA ? stratum_names[s] : "?";
}

void strata_assign(const unsigned long *counts, size_t n, enum stratum *out)
{
	double total = 0, before = 0;

	for (size_t i = 0; i < n; i++)
		total += (double)counts[i];
	for (size_t i = 0; i < n; i++) {
		if (i && counts[i] == counts[i - 1])
			out[i] = out[i - 1];  /* equal counts share a stratum */
		else if (before * 3 < total)
			out[i] = STRATUM_HEAD;
		else if (before * 3 < 2 * total)
			out[i] = STRATUM_TORSO;
		else
			out[i] = STRATUM_TAIL;
		before += (double)counts[i];
	}
}

size_t sample_stratified(const enum stratum *strata, size_t n, size_t want, uint64_t seed,
			 bool *chosen)
{
	size_t have[NR_STRATA] = { 0 }, quota[NR_STRATA], picked = 0;
	uint64_t state = seed;
	size_t *idx = xcalloc(n ? n : 1, sizeof(size_t));

	for (size_t i = 0; i < n; i++) {
		chosen[i] = false;
		have[strata[i]]++;
	}
	if (want > n)
		want = n;
	for (int s = 0; s < NR_STRATA; s++)
		quota[s] = want / NR_STRATA;
	for (size_t r = want % NR_STRATA, s = NR_STRATA - 1; r > 0; r--, s--)
		quota[s]++;
	/* move what a stratum cannot fill to the others, rarest first */
	for (int round = 0; round < NR_STRATA; round++) {
		size_t spare = 0;
		for (int s = 0; s < NR_STRATA; s++)
			if (quota[s] > have[s]) {
				spare += quota[s] - have[s];
				quota[s] = have[s];
			}
		for (int s = NR_STRATA - 1; s >= 0 && spare; s--) {
			size_t room = have[s] - quota[s], add = room < spare ? room : spare;
			quota[s] += add;
			spare -= add;
		}
	}
	for (int s = 0; s < NR_STRATA; s++) {
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (strata[i] == (enum stratum)s)
				idx[m++] = i;
		/* partial Fisher-Yates: the first quota[s] of a shuffle */
		for (size_t k = 0; k < quota[s] && k < m; k++) {
			size_t j = k + (size_t)(splitmix64_next(&state) % (m - k));
			size_t t = idx[k];
			idx[k] = idx[j];
			idx[j] = t;
			chosen[idx[k]] = true;
			picked++;
		}
	}
	free(idx);
	return picked;
}
