/*
 * t-dupindex: the near-duplicate indexes find exactly what
 * text_near_duplicate would find: core/dupindex (its pre-checks may only
 * skip pairs text_near_duplicate rejects) and the prefix-filtered filter of
 * core/text/neardup (struct dedup), with and without frequency hints, answering
 * the held duplicate with the smallest id.
 */
#include "test-lib.h"
#include "text/dupindex.h"
#include "text/text.h"
#include "base/util.h"

#include "text/neardup.h"
#include "base/strbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const known[] = {
	"How do I rotate an API key?",
	"What is the retry limit for webhooks?",
	"Which regions support single sign-on with SAML?",
	"Can I export the audit log as CSV?",
	"the and of",
};

static const char *const probes[] = {
	"how do I ROTATE an api key",                     /* same after normalisation */
	"How can I rotate an API key?",                   /* near: same content words */
	"What is the retry limit for webhook deliveries?",
	"Which regions support SAML single sign-on?",
	"Is there a limit on exported rows?",
	"the of and",
	"Totally unrelated question about billing",
	"",
};

static void test_dup_index(void)
{
	struct dup_index d = DUP_INDEX_INIT;
	const struct dup_entry *e;

	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		dup_index_add(&d, known[i], (int)i);
	e = dup_index_find(&d, "how do I ROTATE an api key", TEXT_NEAR_DUP_THRESHOLD);
	ok(e && e->tag == 0, "exact match after normalisation found");
	ok(dup_index_find(&d, "Totally unrelated question about billing", TEXT_NEAR_DUP_THRESHOLD) == NULL,
	   "unrelated text not a duplicate");
	for (size_t p = 0; p < ARRAY_SIZE(probes); p++) {
		bool want = false;
		for (size_t i = 0; i < ARRAY_SIZE(known); i++)
			want = want || text_near_duplicate(probes[p], known[i], TEXT_NEAR_DUP_THRESHOLD);
		e = dup_index_find(&d, probes[p], TEXT_NEAR_DUP_THRESHOLD);
		ok((e != NULL) == want, "index agrees with text_near_duplicate on '%s' (%d)", probes[p], want);
	}
	/* lower thresholds too */
	for (size_t p = 0; p < ARRAY_SIZE(probes); p++) {
		bool want = false;
		for (size_t i = 0; i < ARRAY_SIZE(known); i++)
			want = want || text_near_duplicate(probes[p], known[i], 0.3);
		e = dup_index_find(&d, probes[p], 0.3);
		ok((e != NULL) == want, "agrees at threshold 0.3 on '%s' (%d)", probes[p], want);
	}
	dup_index_release(&d);
}

/* ---- struct dedup (core/text/neardup) ---- */

static uint64_t rng_state = 7;

static uint64_t rng(void)
{
	return splitmix64_next(&rng_state);
}

/* A small vocabulary: a few frequent words, stop words and rarer words
 * (random_texts adds many rare ones). */
static const char *const vocab[] = {
	"api", "api", "api", "key", "key", "rotate", "token", "error", "limit", "the", "how", "do",
	"i", "what", "is", "webhook", "saml", "export", "csv", "audit", "log", "region",
};

/* Return 'n' random texts, many of them variants of earlier ones; caller frees. */
static char **random_texts(size_t n)
{
	char **t = xcalloc(n, sizeof(*t));

	for (size_t i = 0; i < n; i++) {
		struct strbuf sb = STRBUF_INIT;
		if (i && rng() % 2) {
			/* a variant of an earlier text: case, punctuation, one word more or changed */
			const char *base = t[rng() % i];
			size_t cut = strlen(base);
			uint64_t how = rng() % 5;
			if (how == 3 && strrchr(base, ' '))
				cut = (size_t)(strrchr(base, ' ') - base);
			for (size_t k = 0; k < cut; k++)
				strbuf_addch(&sb, how == 0 && base[k] >= 'a' && base[k] <= 'z' ? base[k] - 32 : base[k]);
			if (how == 1)
				strbuf_addstr(&sb, "?!");
			else if (how >= 2)
				strbuf_addf(&sb, " %s", vocab[rng() % ARRAY_SIZE(vocab)]);
		} else {
			size_t words = (size_t)(rng() % 7);  /* 0 words: empty text */
			for (size_t w = 0; w < words; w++) {
				strbuf_addstr(&sb, w ? (rng() % 4 ? " " : ", ") : "");
				if (rng() % 3)
					strbuf_addstr(&sb, vocab[rng() % ARRAY_SIZE(vocab)]);
				else  /* rare words: the filter's token table must grow */
					strbuf_addf(&sb, "r%u", (unsigned)(rng() % 1500));
			}
		}
		t[i] = strbuf_detach(&sb, NULL);
	}
	return t;
}

/*
 * Return what the filter must answer for each text, checked in turn with
 * 'nr_set' texts held first without checks (as import holds a set's
 * questions): the smallest id among held texts text_near_duplicate accepts.
 */
static long *brute_force(char **texts, size_t n, size_t nr_set, const long *ids, double t)
{
	long *want = xcalloc(n, sizeof(long));
	bool *held = xcalloc(n, sizeof(bool));

	for (size_t i = 0; i < n; i++) {
		want[i] = -1;
		if (i >= nr_set)
			for (size_t j = 0; j < i; j++)
				if (held[j] && (want[i] < 0 || ids[j] < want[i]) &&
				    text_near_duplicate(texts[i], texts[j], t))
					want[i] = ids[j];
		held[i] = i < nr_set || want[i] < 0;
	}
	free(held);
	return want;
}

/* Return how many of 'n' answers of the filter differ from 'want'; 'hint':
 * 0 none, 1 every text, 2 every other text. */
static size_t run_filter(char **texts, size_t n, size_t nr_set, const long *ids, double t, int hint,
			 const long *want)
{
	struct dedup *d = dedup_new(t);
	size_t wrong = 0;

	for (size_t i = 0; hint && i < n; i++) {
		struct dd_text dt;
		if (hint == 2 && i % 2)
			continue;
		dedup_text_prepare(texts[i], strlen(texts[i]), &dt);
		dedup_hint(d, &dt);
		dedup_text_release(&dt);
	}
	for (size_t i = 0; i < n; i++) {
		long got;
		if (i < nr_set) {
			dedup_add(d, texts[i], ids[i]);
			continue;
		}
		if (i % 3 == 0) {
			got = dedup_check(d, texts[i], ids[i]);
		} else {
			struct dd_text dt;
			dedup_text_prepare(texts[i], strlen(texts[i]), &dt);
			got = dedup_check_prepared(d, texts[i], &dt, ids[i]);
			dedup_text_release(&dt);
		}
		if (got != want[i] && wrong++ < 3)
			test_diag("text %zu '%s': got %ld, want %ld", i, texts[i], got, want[i]);
	}
	dedup_free(d);
	return wrong;
}

static void test_dedup_random(void)
{
	const size_t n = test_repeats(1500, 500, "random texts against brute force"), nr_set = 40;
	char **texts = random_texts(n);
	long *inc = xcalloc(n, sizeof(long)), *perm = xcalloc(n, sizeof(long));
	static const double thresholds[] = { TEXT_NEAR_DUP_THRESHOLD, 0.5, 1.0 };
	size_t dups = 0;

	for (size_t i = 0; i < n; i++)
		inc[i] = perm[i] = (long)(i * 10);
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(rng() % i);
		long x = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = x;
	}
	for (size_t k = 0; k < ARRAY_SIZE(thresholds); k++) {
		double t = thresholds[k];
		for (int order = 0; order < 2; order++) {
			const long *ids = order ? perm : inc;
			long *want = brute_force(texts, n, nr_set, ids, t);
			if (k == 0 && !order)
				for (size_t i = 0; i < n; i++)
					dups += want[i] >= 0;
			for (int hint = 0; hint < 3; hint++)
				is_int(run_filter(texts, n, nr_set, ids, t, hint, want), 0,
				       order ? "random ids: the filter answers as brute force"
					     : "increasing ids: the filter answers as brute force");
			test_diag("threshold %.2f, %s ids, hints none/all/half", t, order ? "random" : "increasing");
			free(want);
		}
	}
	ok(dups > n / 4 && dups < n - nr_set, "the random texts hold many near-duplicates (%zu of %zu)",
	   dups, n);
	for (size_t i = 0; i < n; i++)
		free(texts[i]);
	free(texts);
	free(inc);
	free(perm);
}

static void test_dedup_smallest_id(void)
{
	struct dedup *d = dedup_new(TEXT_NEAR_DUP_THRESHOLD);
	struct dd_text a, b;

	dedup_add(d, "rotate api key now", 7);
	dedup_add(d, "Rotate the API key", 3);
	dedup_add(d, "rotate api key", 5);
	is_int(dedup_find(d, "rotate API key!"), 3,
	       "of several held duplicates, the one with the smallest id is answered");
	is_int(dedup_find(d, "rotate the api key, now"), 3, "also when ids were held out of order");
	is_int(dedup_find(d, "delete api key"), -1, "a text with no held near-duplicate gets -1");
	is_int(dedup_check(d, "what is it", 9), -1, "a text of stop words only is new ...");
	is_int(dedup_find(d, "What is it?"), 9, "... and matches on all its words");
	is_int(dedup_find(d, "what is the it"), -1, "(3 of 4 words is below 0.8)");
	is_int(dedup_find(d, "?!"), -1, "a text without words matches no text with words");
	is_int(dedup_check(d, "", 11), -1, "an empty text is held ...");
	is_int(dedup_check(d, "...", 12), 11, "... and texts without words match it");
	dedup_free(d);

	/* hints never change an answer, and late hints are ignored: held with
	 * "rotate" (rarer than "key") first, a lookup must still take "rotate"
	 * first after "rotate" was hinted more often than "key" */
	d = dedup_new(TEXT_NEAR_DUP_THRESHOLD);
	dedup_text_prepare("api key", 7, &a);
	dedup_text_prepare("rotate key", 10, &b);
	dedup_hint(d, &a);
	dedup_hint(d, &a);
	dedup_hint(d, &b);
	is_int(dedup_check_prepared(d, "rotate key", &b, 1), -1, "first text held");
	ok(b.h == NULL, "holding a prepared text takes its hashes");
	dedup_text_release(&b);
	dedup_text_prepare("rotate", 6, &b);
	for (int k = 0; k < 4; k++)
		dedup_hint(d, &b);
	is_int(dedup_check(d, "Rotate KEY.", 2), 1, "a variant is found after late hints");
	dedup_text_release(&a);
	dedup_text_release(&b);
	dedup_free(d);
}

static void test_dedup_prepare(void)
{
	static const char *const in[] = {
		"How do I rotate an API key?", "ＡＰＩ\xe2\x80\x83Key", "Stra\xc3\x9f" "e und Caf\xc3\xa9",
		"the and of", "", "a\tb\x01c", "bad\xff" "byte",
	};
	bool same = true;

	for (size_t i = 0; i < ARRAY_SIZE(in); i++) {
		struct dd_text f, s;
		char *norm = text_normalize(in[i], strlen(in[i]));
		dedup_text_prepare(in[i], strlen(in[i]), &f);
		text_ascii_fast = false;
		dedup_text_prepare(in[i], strlen(in[i]), &s);
		text_ascii_fast = true;
		is_str(f.norm, norm, "a prepared text carries its text_normalize form");
		same = same && !strcmp(f.norm, s.norm) && f.nr == s.nr && f.stop_only == s.stop_only &&
		       !memcmp(f.h, s.h, f.nr * sizeof(uint64_t));
		free(norm);
		dedup_text_release(&f);
		dedup_text_release(&s);
	}
	ok(same, "preparing on the ASCII path and the utf8proc path gives the same");
}

int main(void)
{
	test_dup_index();
	test_dedup_smallest_id();
	test_dedup_prepare();
	test_dedup_random();
	return test_done();
}
