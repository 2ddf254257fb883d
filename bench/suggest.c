/*
 * bench/suggest.c: "did you mean" over a large corpus's chunk ids
 * (corpus_did_you_mean, core/set/corpus.c) against offering every id one by
 * one (suggest_offer) and against loading the corpus. Driven by
 * bench/suggest.sh.
 *
 * usage: suggest CORPUS.jsonl TYPOS.txt
 * Prints "name seconds" lines: load (corpus_load), index (the first lookup:
 * sorting the ids, then one lookup), lookups (every typo through the index),
 * naive (every typo through suggest_offer on every id), and the number of
 * typos; exits 1 when the two ways suggest differently for any typo.
 */
#include "base/strbuf.h"
#include "base/suggest.h"
#include "set/corpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct corpus c = CORPUS_INIT;
	char **typos = NULL, line[4096];
	size_t nr = 0, alloc = 0, differ = 0, found = 0;
	struct strbuf *fast, slow = STRBUF_INIT;
	double t0, t_load, t_index, t_lookups, t_naive;
	FILE *f;

	if (argc != 3)
		return 2;
	t0 = now();
	if (corpus_load(&c, argv[1]) < 0)
		return 2;
	t_load = now() - t0;
	if (!(f = fopen(argv[2], "r")))
		return 2;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (nr == alloc)
			typos = realloc(typos, (alloc = alloc ? 2 * alloc : 64) * sizeof(*typos));
		typos[nr++] = strdup(line);
	}
	fclose(f);
	fast = calloc(nr ? nr : 1, sizeof(*fast));
	for (size_t i = 0; i < nr; i++)
		strbuf_init(&fast[i], 0);
	t0 = now();
	corpus_did_you_mean(&c, typos[0], &fast[0]);
	t_index = now() - t0;
	t0 = now();
	for (size_t i = 1; i < nr; i++)
		corpus_did_you_mean(&c, typos[i], &fast[i]);
	t_lookups = now() - t0;
	t0 = now();
	for (size_t i = 0; i < nr; i++) {
		/* the same rule as corpus_did_you_mean, offered one id at a time in sorted order */
		size_t len = strlen(typos[i]), max = suggest_max_for(len);
		struct suggest sg;

		suggest_init(&sg, typos[i], len, max < 1 ? 1 : max > 8 ? 8 : max, true);
		for (size_t k = 0; k < c.ids->nr; k++)
			suggest_offer(&sg, c.ids->names[k]);
		strbuf_reset(&slow);
		suggest_did_you_mean(&sg, 3, NULL, &slow);
		suggest_release(&sg);
		/* one-by-one stops at SUGGEST_MAX_LEN bytes; the index does not */
		if (len <= SUGGEST_MAX_LEN && strcmp(slow.buf, fast[i].buf)) {
			fprintf(stderr, "differ for '%s': index '%s', one by one '%s'\n", typos[i],
				fast[i].buf, slow.buf);
			differ++;
		}
		found += fast[i].len > 0;
	}
	t_naive = now() - t0;
	printf("chunks %zu\nload %.6f\nindex %.6f\nlookups %.6f\nnaive %.6f\ntypos %zu\nfound %zu\n",
	       c.nr, t_load, t_index, t_lookups, t_naive, nr, found);
	for (size_t i = 0; i < nr; i++) {
		strbuf_release(&fast[i]);
		free(typos[i]);
	}
	free(fast);
	free(typos);
	strbuf_release(&slow);
	corpus_release(&c);
	return differ ? 1 : 0;
}
