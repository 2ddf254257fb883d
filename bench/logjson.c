/*
 * logjson bench: the JSON Lines parse and field lookup of `evalset import`
 * (core/logs/logjson.c) on their own, without the reading, hashing and folding
 * around them. Built and run by bench/logjson.sh, never by the test suite.
 *
 * usage: logjson LOG [fast|full] [parse]
 *
 * The whole log is read into memory first. Each round copies every line
 * into a scratch buffer (the full parser decodes in place), parses it and
 * looks up the seven fields import asks for (query, doc, signal, session,
 * ts, dwell, end; "end" is absent from the generated log, so one lookup
 * misses). The copy loop alone is timed too, as the in-process floor.
 * Prints the best of 5 rounds of each, in seconds, and a checksum of the
 * values (their count and total length) so two builds can be compared.
 * "full" turns the flat fast path off; "parse" skips the lookups.
 */
#define _POSIX_C_SOURCE 200809L

#include "logs/logjson.h"
#include "logs/logread.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ROUNDS 5

static volatile char sink;  /* keeps the copy loop from being optimized away */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t alloc = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		if (n == alloc) {
			alloc = alloc ? alloc * 2 : 1 << 20;
			buf = realloc(buf, alloc);
			if (!buf)
				abort();
		}
		got = fread(buf + n, 1, alloc - n, f);
		n += got;
	} while (got);
	fclose(f);
	*len = n;
	return buf;
}

int main(int argc, char **argv)
{
	static const char *const fields[] = { "query", "doc", "signal", "session", "ts", "dwell", "end" };
	struct log_path paths[7];
	struct log_reader r;
	struct log_values out = LOG_VALUES_INIT;
	double best = 1e9, best_floor = 1e9;
	unsigned long nvals = 0, total = 0, lines = 0, bad = 0;
	size_t len, nr_fields, scratch_len = 1 << 20;
	char *data, *scratch;

	if (argc < 2 || !(data = slurp(argv[1], &len))) {
		fprintf(stderr, "usage: logjson LOG [fast|full] [parse]\n");
		return 2;
	}
	log_json_fast = !(argc > 2 && !strcmp(argv[2], "full"));
	nr_fields = argc > 3 && !strcmp(argv[3], "parse") ? 0 : 7;
	scratch = malloc(scratch_len);
	memset(&r, 0, sizeof(r));
	r.format = LOG_FORMAT_JSONL;
	for (size_t f = 0; f < 7; f++)
		log_path_init(&paths[f], &r, fields[f]);

	for (int round = 0; round < ROUNDS; round++) {
		double t0 = now();
		for (char *p = data, *end = data + len, *nl; p < end; p = nl + 1) {
			nl = memchr(p, '\n', (size_t)(end - p));
			if (!nl)
				nl = end;
			if ((size_t)(nl - p) < scratch_len)
				memcpy(scratch, p, (size_t)(nl - p));
			sink ^= scratch[0];
		}
		double t1 = now();
		if (t1 - t0 < best_floor)
			best_floor = t1 - t0;

		nvals = total = lines = bad = 0;
		t0 = now();
		for (char *p = data, *end = data + len, *nl; p < end; p = nl + 1) {
			size_t n;
			nl = memchr(p, '\n', (size_t)(end - p));
			if (!nl)
				nl = end;
			n = (size_t)(nl - p);
			if (n >= scratch_len)
				continue;
			memcpy(scratch, p, n);
			lines++;
			if (log_json_parse(&r, scratch, n) != 0) {
				bad++;
				continue;
			}
			for (size_t f = 0; f < nr_fields; f++) {
				out.nr = 0;
				log_json_get(&r, &paths[f], &out);
				nvals += out.nr;
				for (size_t k = 0; k < out.nr; k++)
					total += out.v[k].len;
			}
		}
		t1 = now();
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	printf("%.4f %.4f lines %lu bad %lu values %lu bytes %lu\n", best, best_floor, lines, bad,
	       nvals, total);
	for (size_t f = 0; f < 7; f++)
		log_path_release(&paths[f]);
	log_values_release(&out);
	free(r.nodes);
	free(scratch);
	free(data);
	return 0;
}
