/*
 * t-set-check: the near-duplicate warnings of set_check (core/set/set-check.c)
 * are exactly those of comparing every pair: for each question, the first
 * earlier question it is a near-duplicate of (text_near_duplicate). The
 * reference below is the pairwise loop check ran before its inverted index
 * (each text's words hashed once, a pair confirmed by text_near_duplicate
 * itself); it is compared on a seeded random set built to hold many kinds of
 * near-duplicates, on 2,000 real SQuAD questions (tests/data/squad2-questions),
 * and the check is shown to run, and find a reworded question, past the
 * 20,000 questions where it used to stop.
 */
#include "test-lib.h"
#include "set/set.h"
#include "text/text.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the reference: every pair ---- */

struct ref_key {
	char *norm;      /* NULL: a blank text, never compared */
	uint64_t *h;
	size_t nr;
};

static bool blank(const char *s)
{
	for (; s && *s; s++)
		if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
			return false;
	return true;
}

static bool ref_candidates(const struct ref_key *a, const struct ref_key *b)
{
	size_t i = 0, j = 0, inter = 0, lo, hi;

	if (!strcmp(a->norm, b->norm))
		return true;
	lo = a->nr < b->nr ? a->nr : b->nr;
	hi = a->nr < b->nr ? b->nr : a->nr;
	if ((double)lo < TEXT_NEAR_DUP_THRESHOLD * (double)hi - 1e-9)
		return hi == 0;
	while (i < a->nr && j < b->nr) {
		if (a->h[i] == b->h[j])
			inter++, i++, j++;
		else if (a->h[i] < b->h[j])
			i++;
		else
			j++;
	}
	return (double)inter >= TEXT_NEAR_DUP_THRESHOLD * (double)(a->nr + b->nr - inter) - 1e-9;
}

/* Return, for each of the 'n' texts, the index of the first earlier text it
 * is a near-duplicate of, or -1 (caller frees). */
static long *ref_first_duplicates(const char *const *texts, size_t n)
{
	struct ref_key *k = xcalloc(n ? n : 1, sizeof(*k));
	long *first = xcalloc(n ? n : 1, sizeof(*first));

	for (size_t i = 0; i < n; i++) {
		if (blank(texts[i]))
			continue;
		k[i].norm = text_normalize(texts[i], strlen(texts[i]));
		k[i].h = text_word_hashes(texts[i], strlen(texts[i]), false, &k[i].nr);
		if (!k[i].nr) {
			free(k[i].h);
			k[i].h = text_word_hashes(texts[i], strlen(texts[i]), true, &k[i].nr);
		}
	}
	for (size_t i = 0; i < n; i++) {
		first[i] = -1;
		for (size_t j = 0; k[i].norm && j < i && first[i] < 0; j++)
			if (k[j].norm && ref_candidates(&k[i], &k[j]) &&
			    text_near_duplicate(texts[i], texts[j], TEXT_NEAR_DUP_THRESHOLD))
				first[i] = (long)j;
	}
	for (size_t i = 0; i < n; i++) {
		free(k[i].norm);
		free(k[i].h);
	}
	free(k);
	return first;
}

/* ---- the set ---- */

/* Append 's' to 'sb' as a YAML double-quoted scalar. */
static void add_quoted(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			strbuf_addch(sb, '\\');
		strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '"');
}

/* Load 'n' questions q-0, q-1, ... with 'texts' into 's'; question i is read on line 4 + 3i. */
static int load_texts(struct set *s, const char *const *texts, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	int rc;

	strbuf_addstr(&sb, "evalset: 1\nname: dups\nquestions:\n");
	for (size_t i = 0; i < n; i++) {
		strbuf_addf(&sb, "  - id: q-%zu\n    text: ", i);
		add_quoted(&sb, texts[i]);
		strbuf_addf(&sb, "\n    relevant: [c-%zu]\n", i % 7);
	}
	rc = set_load_buf(s, sb.buf, sb.len, "dups.yaml");
	strbuf_release(&sb);
	return rc;
}

/*
 * Check that set_check on 'texts' warns on exactly the questions the
 * reference finds, naming the same earlier question and its line; return
 * how many near-duplicates the reference found.
 */
static size_t check_same_as_pairs(const char *what, const char *const *texts, size_t n)
{
	struct set s = SET_INIT;
	struct findings f = FINDINGS_INIT;
	long *want = ref_first_duplicates(texts, n);
	size_t nr_want = 0, nr_got = 0, wrong = 0;

	if (load_texts(&s, texts, n) < 0) {
		ok(false, "%s: the set loads", what);
		free(want);
		return 0;
	}
	set_check(&s, NULL, &f);
	for (size_t i = 0; i < n; i++)
		nr_want += want[i] >= 0;
	for (size_t i = 0; i < f.nr; i++) {
		const struct finding *it = &f.items[i];
		long q, p, line;

		if (!strstr(it->message, "near-duplicate"))
			continue;
		nr_got++;
		if (sscanf(it->message, "question 'q-%ld' is a near-duplicate of 'q-%ld' (line %ld)",
			   &q, &p, &line) != 3 || q < 0 || (size_t)q >= n || want[q] != p ||
		    line != 4 + 3 * p || it->line != 4 + 3 * q) {
			if (wrong++ < 5)
				test_diag("%s: unexpected '%s' at line %ld", what, it->message, it->line);
		}
	}
	ok(nr_got == nr_want, "%s: as many near-duplicate warnings as comparing every pair gives "
	   "(%zu, %zu)", what, nr_got, nr_want);
	ok(!wrong, "%s: each names the first earlier duplicate, as every pair compared does (%zu wrong)",
	   what, wrong);
	findings_release(&f);
	set_release(&s);
	free(want);
	return nr_want;
}

/* ---- the inputs ---- */

static uint64_t rng = 39;

static size_t pick(size_t n)
{
	return (size_t)(splitmix64_next(&rng) % n);
}

/*
 * A seeded random set built for near-duplicates: short questions over a
 * small vocabulary (shared content words), stop words only, no word at all,
 * blank texts, case and punctuation variants of earlier ones, words
 * reordered, and German questions that share stems.
 */
static char **random_texts(size_t n)
{
	static const char *const content[] = {
		"rotate", "key", "api", "token", "webhook", "retry", "limit", "export",
		"audit", "log", "region", "saml", "billing", "invoice", "rotated", "keys",
	};
	static const char *const stop[] = { "the", "of", "what", "is", "how", "do", "i", "an", "a", "to" };
	static const char *const de[] = {
		"Wann wurden die Häuser in Berlin gebaut?", "Wann wurde das Haus in Berlin gebaut?",
		"Wo wurde das Haus gebaut?", "Welche Häuser stehen in Berlin?",
	};
	char **t = xcalloc(n, sizeof(*t));

	for (size_t i = 0; i < n; i++) {
		struct strbuf sb = STRBUF_INIT;
		size_t kind = pick(20), words = 1 + pick(6);

		if (kind == 0) {
			strbuf_addstr(&sb, pick(2) ? "   " : "");
		} else if (kind == 1) {
			strbuf_addstr(&sb, pick(2) ? "?" : "-- !");
		} else if (kind == 2) {
			for (size_t w = 0; w < words; w++)
				strbuf_addf(&sb, "%s%s", w ? " " : "", stop[pick(ARRAY_SIZE(stop))]);
		} else if (kind <= 5 && i) {
			/* a variant of an earlier text: case, punctuation, spacing */
			const char *src = t[pick(i)];
			for (const char *p = src; *p; p++)
				strbuf_addch(&sb, kind == 3 && *p >= 'a' && *p <= 'z' ? (char)(*p - 32) : *p);
			strbuf_addstr(&sb, kind == 4 ? "?!" : kind == 5 ? "  ." : "");
		} else if (kind == 6) {
			strbuf_addstr(&sb, de[pick(ARRAY_SIZE(de))]);
		} else {
			for (size_t w = 0; w < words; w++) {
				bool c = pick(3) != 0;
				strbuf_addf(&sb, "%s%s", w ? " " : "",
					    c ? content[pick(ARRAY_SIZE(content))] : stop[pick(ARRAY_SIZE(stop))]);
			}
			strbuf_addstr(&sb, "?");
		}
		t[i] = strbuf_detach(&sb, NULL);
	}
	return t;
}

static char **read_lines(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	char **t = NULL, line[4096];
	size_t alloc = 0;

	*n = 0;
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		ALLOC_GROW(t, *n + 1, alloc);
		t[(*n)++] = xstrdup(line);
	}
	fclose(f);
	return t;
}

static void free_texts(char **t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(t[i]);
	free(t);
}

static void test_random(void)
{
	size_t n = 1500, found;
	char **t = random_texts(n);

	found = check_same_as_pairs("seeded random set", (const char *const *)t, n);
	ok(found > n / 4, "the random set holds many near-duplicates (%zu)", found);
	free_texts(t, n);
}

static void test_squad(void)
{
	size_t n, found;
	char **t = read_lines("tests/data/squad2-questions/questions.txt", &n);

	ok(t && n == 2000, "2,000 SQuAD questions read");
	if (!t)
		return;
	found = check_same_as_pairs("SQuAD questions", (const char *const *)t, n);
	ok(found >= 5, "real questions hold near-duplicates (%zu)", found);
	free_texts(t, n);
}

/*
 * Past 20,000 questions the check went on only for the same normalised text;
 * a reworded question must still be found there, and each question is
 * compared with every earlier one whatever the size.
 */
static void test_large(void)
{
	size_t n = 20003;
	char **t = xcalloc(n, sizeof(*t));
	struct set s = SET_INIT;
	struct findings f = FINDINGS_INIT;
	size_t dups = 0;
	bool reworded = false;

	for (size_t i = 0; i < n - 2; i++)
		t[i] = xstrfmt("which zx%zu and yq%zu belong to wv%zu", i, i * 7 + 3, i * 13 + 5);
	t[n - 2] = xstrdup("How do I rotate an API key for the billing webhook?");
	t[n - 1] = xstrdup("How can I rotate an API key for the billing webhook?");
	ok(load_texts(&s, (const char *const *)t, n) == 0, "a set of %zu questions loads", n);
	set_check(&s, NULL, &f);
	for (size_t i = 0; i < f.nr; i++) {
		if (!strstr(f.items[i].message, "duplicate"))
			continue;
		dups++;
		reworded = reworded || strstr(f.items[i].message, "question 'q-20002' is a near-duplicate "
					      "of 'q-20001'") != NULL;
	}
	ok(reworded, "a reworded question is found among %zu questions", n);
	is_int((long)dups, 1, "and nothing else is taken for a duplicate");
	findings_release(&f);
	set_release(&s);
	free_texts(t, n);
}

int main(void)
{
	test_random();
	test_squad();
	test_large();
	return test_done();
}
