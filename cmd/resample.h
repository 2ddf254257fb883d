/*
 * resample: the options compare and report share for the significance of a
 * comparison (core/compare/compare.h): --resamples, --permutations and --seed, with
 * their defaults, checks and messages in one place.
 */
#ifndef EVALSET_CMD_RESAMPLE_H
#define EVALSET_CMD_RESAMPLE_H

#include "parse-options.h"

struct compare_opts;

struct resample_opts {
	long resamples, permutations, seed;
};
#define RESAMPLE_OPTS_INIT { 10000, 10000, 1 }

/* The three option table rows, filling the struct resample_opts at 'ro'. */
#define OPT_RESAMPLE(ro) \
	OPT_INT(0, "resamples", &(ro)->resamples, "n", "bootstrap resamples (default 10000)"), \
	OPT_INT(0, "permutations", &(ro)->permutations, "n", \
		"randomisation permutations (default 10000)"), \
	OPT_INT(0, "seed", &(ro)->seed, "s", "bootstrap seed; permutations use s + 1 (default 1)")

/* Die with exit 2 unless resamples and permutations are between 1 and
 * 'max' and the seed is 0 or more. */
void resample_opts_check(const struct resample_opts *ro, long max);
/* Copy the checked options 'ro' into 'co'. */
void resample_opts_apply(const struct resample_opts *ro, struct compare_opts *co);

#endif
