/*
 * bench/dedup: the per-distinct-query work of `evalset import`, alone:
 * text_normalize_query of every distinct query, dedup_text_prepare of every
 * group, and the near-duplicate filter over the groups in import's order,
 * each timed on the ASCII fast path and on the utf8proc path
 * (text_ascii_fast), and the filter with and without dedup_hint. Run by
 * bench/dedup.sh; not part of the build or the test suite.
 *
 * usage: dedup QUERIES      (one query a line, most frequent first)
 *
 * Prints one line per measure: name, best seconds of 5 rounds; then the
 * answers' check (hinted and unhinted filters agree on every query).
 */
#include "text/neardup.h"
#include "base/strmap.h"
#include "text/text.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ROUNDS 5

struct input {
	char **q;        /* distinct queries, most frequent first */
	size_t *len;
	size_t nr;
	char **group;    /* a query of each group (first seen), in order */
	size_t nr_group;
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void load(const char *path, struct input *in)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, alloc = 0, alloc_len = 0;
	ssize_t n;

	if (!f) {
		perror(path);
		exit(2);
	}
	memset(in, 0, sizeof(*in));
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		ALLOC_GROW(in->q, in->nr + 1, alloc);
		ALLOC_GROW(in->len, in->nr + 1, alloc_len);
		in->q[in->nr] = xstrndup(line, (size_t)n);
		in->len[in->nr++] = (size_t)n;
	}
	free(line);
	fclose(f);
}

/* Group the queries by text_normalize_query, as import does. */
static void group(struct input *in)
{
	struct strmap m = STRMAP_INIT;

	in->group = xcalloc(in->nr + 1, sizeof(char *));
	for (size_t i = 0; i < in->nr; i++) {
		char *key = text_normalize_query(in->q[i], in->len[i]);
		int added;
		if (*key) {
			strmap_intern(&m, key, strlen(key), &added);
			if (added)
				in->group[in->nr_group++] = in->q[i];
		}
		free(key);
	}
	strmap_clear(&m, 0);
}

static volatile uint64_t sink;

static double time_floor(const struct input *in)
{
	double t0 = now();
	uint64_t h = 0;
	for (size_t i = 0; i < in->nr; i++)
		h ^= strhash(in->q[i], in->len[i]);
	sink = h;
	return now() - t0;
}

static double time_normalize(const struct input *in)
{
	double t0 = now();
	for (size_t i = 0; i < in->nr; i++)
		free(text_normalize_query(in->q[i], in->len[i]));
	return now() - t0;
}

static double time_prepare(const struct input *in, struct dd_text *dd)
{
	double t0 = now();
	for (size_t i = 0; i < in->nr_group; i++)
		dedup_text_prepare(in->group[i], strlen(in->group[i]), &dd[i]);
	return now() - t0;
}

/* Run the filter over the prepared 'dd' (copies: the filter takes hashes),
 * with hints when 'hint'; write the answers into 'found'. */
static double time_filter(const struct input *in, const struct dd_text *dd, int hint, long *found)
{
	struct dd_text *copy = xcalloc(in->nr_group + 1, sizeof(*copy));
	struct dedup *d;
	double t0, t;

	for (size_t i = 0; i < in->nr_group; i++) {
		copy[i] = dd[i];
		copy[i].norm = xstrdup(dd[i].norm);
		copy[i].h = xcalloc(dd[i].nr + 1, sizeof(uint64_t));
		memcpy(copy[i].h, dd[i].h, dd[i].nr * sizeof(uint64_t));
	}
	t0 = now();
	d = dedup_new(TEXT_NEAR_DUP_THRESHOLD);
	for (size_t i = 0; hint && i < in->nr_group; i++)
		dedup_hint(d, &copy[i]);
	for (size_t i = 0; i < in->nr_group; i++)
		found[i] = dedup_check_prepared(d, in->group[i], &copy[i], (long)i);
	dedup_free(d);
	t = now() - t0;
	for (size_t i = 0; i < in->nr_group; i++)
		dedup_text_release(&copy[i]);
	free(copy);
	return t;
}

static void release_all(struct dd_text *dd, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dedup_text_release(&dd[i]);
}

int main(int argc, char **argv)
{
	struct input in;
	struct dd_text *dd;
	long *with, *without;
	double best[7];
	size_t dups = 0, differ = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: dedup QUERIES\n");
		return 2;
	}
	load(argv[1], &in);
	group(&in);
	dd = xcalloc(in.nr_group + 1, sizeof(*dd));
	with = xcalloc(in.nr_group + 1, sizeof(long));
	without = xcalloc(in.nr_group + 1, sizeof(long));
	for (int k = 0; k < 7; k++)
		best[k] = 1e9;
	for (int r = 0; r < ROUNDS; r++) {
		double t[7];
		t[0] = time_floor(&in);
		text_ascii_fast = false;
		t[1] = time_normalize(&in);
		t[3] = time_prepare(&in, dd);
		release_all(dd, in.nr_group);
		text_ascii_fast = true;
		t[2] = time_normalize(&in);
		t[4] = time_prepare(&in, dd);
		t[5] = time_filter(&in, dd, 0, without);
		t[6] = time_filter(&in, dd, 1, with);
		release_all(dd, in.nr_group);
		for (int k = 0; k < 7; k++)
			if (t[k] < best[k])
				best[k] = t[k];
	}
	for (size_t i = 0; i < in.nr_group; i++) {
		dups += with[i] >= 0;
		differ += with[i] != without[i];
	}
	printf("queries %zu groups %zu duplicates %zu\n", in.nr, in.nr_group, dups);
	printf("floor %.6f\n", best[0]);
	printf("normalize_utf8proc %.6f\n", best[1]);
	printf("normalize_fast %.6f\n", best[2]);
	printf("prepare_utf8proc %.6f\n", best[3]);
	printf("prepare_fast %.6f\n", best[4]);
	printf("filter_unhinted %.6f\n", best[5]);
	printf("filter_hinted %.6f\n", best[6]);
	printf("answers_differ %zu\n", differ);
	for (size_t i = 0; i < in.nr; i++)
		free(in.q[i]);
	free(in.q);
	free(in.len);
	free(in.group);
	free(dd);
	free(with);
	free(without);
	return differ ? 1 : 0;
}
