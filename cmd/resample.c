/*
 * resample: checking and applying the significance options of compare and
 * report (see resample.h).
 */
#include "resample.h"
#include "builtin.h"
#include "compare/compare.h"

void resample_opts_check(const struct resample_opts *ro, long max)
{
	if (ro->resamples < 1 || ro->resamples > max || ro->permutations < 1 || ro->permutations > max)
		die(EXIT_BAD_INPUT, "--resamples and --permutations must be between 1 and %ld", max);
	if (ro->seed < 0)
		die(EXIT_BAD_INPUT, "--seed must be 0 or more, not '%ld'", ro->seed);
}

void resample_opts_apply(const struct resample_opts *ro, struct compare_opts *co)
{
	co->resamples = ro->resamples;
	co->permutations = ro->permutations;
	co->seed = (uint64_t)ro->seed;
}
