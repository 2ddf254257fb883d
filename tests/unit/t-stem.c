/*
 * t-stem: the Snowball stemmers through core/text/stem.h: the forms of one
 * word meet in one stem in every language a user is likely to index, short
 * words are left alone, and languages without a stemmer say so.
 */
#include "test-lib.h"
#include "text/lang.h"
#include "text/stem.h"
#include "text/text.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* Return the stem of 'word' in 'lang' (normalised first, as BM25 does); caller frees. */
static char *stem_of(struct stemmer *st, const char *word)
{
	char *norm = text_normalize(word, strlen(word)), *out;
	size_t n;
	const char *r = stemmer_stem(st, norm, strlen(norm), &n);

	out = xstrndup(r, n);
	free(norm);
	return out;
}

/* Check that every form in 'forms' (NULL-terminated) has the stem of the first. */
static void same_stem(const char *lang, const char *const *forms)
{
	struct stemmer *st = stemmer_new(lang_get(lang));
	char *first;
	int same = 1;

	if (!st) {
		ok(0, "%s has a stemmer", lang);
		return;
	}
	first = stem_of(st, forms[0]);
	for (size_t i = 1; forms[i]; i++) {
		char *s = stem_of(st, forms[i]);
		if (strcmp(s, first)) {
			test_diag("%s: '%s' -> '%s' but '%s' -> '%s'", lang, forms[0], first, forms[i], s);
			same = 0;
		}
		free(s);
	}
	ok(same, "%s: the forms of '%s' share the stem '%s'", lang, forms[0], first);
	free(first);
	stemmer_free(st);
}

int main(void)
{
	static const char *const en[] = { "connection", "connections", "connected", "connecting", NULL };
	static const char *const es[] = { "canciones", "canción", NULL };
	static const char *const de[] = { "Katzen", "Katze", NULL };
	static const char *const fr[] = { "continuer", "continuation", "continua", NULL };
	static const char *const ru[] = { "книга", "книги", "книгой", "книге", NULL };
	static const char *const el[] = { "πόλεις", "πόλη", "πόλης", NULL };
	static const char *const tr[] = { "kitaplar", "kitap", "kitaplardan", NULL };
	static const char *const ar[] = { "الكتاب", "كتاب", NULL };
	static const char *const ro[] = { "orașele", "orașul", NULL };
	static const char *const hi[] = { "लड़कों", "लड़के", NULL };
	struct stemmer *st;
	const char *w;
	size_t n;

	same_stem("en", en);
	same_stem("es", es);
	same_stem("de", de);
	same_stem("fr", fr);
	same_stem("ru", ru);
	same_stem("el", el);
	same_stem("tr", tr);
	same_stem("ar", ar);
	same_stem("ro", ro);
	same_stem("hi", hi);

	st = stemmer_new(lang_get("en"));
	w = stemmer_stem(st, "is", 2, &n);
	ok(n == 2 && !memcmp(w, "is", 2), "a two-letter word is left alone ('is', not 'i')");
	w = stemmer_stem(st, "as", 2, &n);
	ok(n == 2 && !memcmp(w, "as", 2), "'as' is left alone");
	w = stemmer_stem(st, "runs", 4, &n);
	ok(n == 3 && !memcmp(w, "run", 3), "a four-letter word is stemmed ('runs' -> 'run')");
	stemmer_free(st);
	st = stemmer_new(lang_get("ru"));
	w = stemmer_stem(st, "\xd0\xbe\xd0\xbd\xd0\xb8", 6, &n);  /* они: 3 letters, 6 bytes */
	ok(n == 4, "letters are counted, not bytes ('они' is stemmed as a three-letter word)");
	stemmer_free(st);

	ok(stemmer_new(lang_get("zh")) == NULL && stemmer_new(lang_get("th")) == NULL &&
	   stemmer_new(lang_und()) == NULL, "no stemmer for Chinese, Thai or undetermined text");
	w = stemmer_stem(NULL, "books", 5, &n);
	ok(n == 5 && !memcmp(w, "books", 5), "without a stemmer a word is kept");
	st = stemmer_new(lang_get("pt-BR"));
	ok(st != NULL, "a region tag finds the language's stemmer (pt-BR)");
	stemmer_free(st);
	st = stemmer_new(lang_get("nb"));
	ok(st != NULL, "an alias finds it too (nb: Norwegian)");
	stemmer_free(st);
	return test_done();
}
