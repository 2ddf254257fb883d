/*
 * t-text: normalisation, tokens, similarity and overlap (core/text), and
 * corpus loading and fingerprints (core/corpus). The ASCII fast path of
 * core/text must give byte-identical results to the utf8proc path: checked
 * on every ASCII byte and on many random ASCII and mixed strings.
 */
#include "test-lib.h"
#include "set/corpus.h"
#include "base/fsutil.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "text/text.h"
#include "text/dupindex.h"
#include "text/lang.h"
#include "base/util.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Return whether 'w' is a stop word of language 'tag'. */
static bool sw(const char *tag, const char *w)
{
	return lang_is_stopword(lang_get(tag), w, strlen(w));
}

static void check_norm(const char *in, const char *want, const char *what)
{
	char *got = text_normalize(in, strlen(in));
	is_str(got, want, what);
	free(got);
}

static void check_query(const char *in, const char *want, const char *what)
{
	char *got = text_normalize_query(in, strlen(in));
	is_str(got, want, what);
	free(got);
}

static void test_normalize(void)
{
	check_norm("  How do I   rotate an API key? ", "how do i rotate an api key",
		   "case, punctuation and spaces collapse");
	check_norm("ＡＰＩ\xe2\x80\x83Key", "api key", "NFKC folds full-width letters and em spaces");
	check_norm("Stra\xc3\x9f" "e", "strasse", "case folding maps sharp s to ss");
	check_norm("caf\xc3\xa9 vs cafe\xcc\x81", "caf\xc3\xa9 vs caf\xc3\xa9",
		   "composed and decomposed accents normalise alike");
	check_norm("bad\xff" "byte", "bad byte", "an invalid byte becomes a separator");
	check_norm("", "", "empty text stays empty");
	check_query("How do I reset it?!  ", "how do i reset it", "trailing punctuation is dropped");
	check_query("What is C++ v1.2", "what is c++ v1.2", "inner punctuation is kept");
	check_query("a\t\tb\nc", "a b c", "whitespace runs collapse");
}

static void test_tokens(void)
{
	struct tokens t = TOKENS_INIT;

	text_tokenize("Don't re-use keys; 2FA is 100% required.", 41, &t);
	is_int(t.nr, 9, "tokens split at punctuation");
	if (t.nr == 9) {
		is_str(t.items[0], "don", "first token");
		is_str(t.items[5], "2fa", "letters and digits stay together");
		is_str(t.items[7], "100", "numbers are tokens");
	}
	tokens_release(&t);
	ok(sw("en", "the") && sw("en", "what"), "stop words are known");
	ok(!sw("en", "rotate"), "content words are not stop words");
}

static void test_similarity(void)
{
	ok(text_near_duplicate("How do I rotate an API key?", "how do i rotate an api key",
			       TEXT_NEAR_DUP_THRESHOLD), "case and punctuation variants are duplicates");
	ok(text_near_duplicate("How can I rotate my API key", "How do I rotate an API key?",
			       TEXT_NEAR_DUP_THRESHOLD), "the same content words are near duplicates");
	ok(!text_near_duplicate("How do I rotate an API key?", "How do I delete an API key?",
				TEXT_NEAR_DUP_THRESHOLD), "a different verb is not a near duplicate");
	is_double(text_similarity("rotate api key", "rotate api key"), 1.0, 1e-12, "identical similarity is 1");
	is_double(text_similarity("rotate api key", "delete user"), 0.0, 1e-12, "disjoint similarity is 0");
	is_double(text_similarity("rotate api key", "rotate api token"), 0.5, 1e-12,
		  "Jaccard of {rotate,api,key} and {rotate,api,token} is 2/4");
}

static void test_overlap(void)
{
	const char *chunk = "To rotate an API key, open Settings and choose Regenerate.";

	is_double(text_overlap("How do I rotate an API key?", chunk), 1.0, 1e-12,
		  "every content word found gives overlap 1");
	is_double(text_overlap("How can I change my credentials?", chunk), 0.0, 1e-12,
		  "no content word found gives overlap 0");
	is_double(text_overlap("rotate credentials", chunk), 0.5, 1e-12, "half the content words found");
	is_double(text_overlap("what is it", chunk), 0.0, 1e-12, "only stop words gives 0");
	is_double(text_copied_share("open settings and choose regenerate", chunk), 1.0, 1e-12,
		  "a question copied from the chunk has copied share 1");
	is_double(text_copied_share("choose settings and open regenerate", chunk), 0.4, 1e-12,
		  "the longest copied run is 'settings and' (2 of 5 tokens)");
}

/* ---- ASCII fast path against the utf8proc path ---- */

static void join_token(const char *w, size_t len, void *data)
{
	strbuf_add(data, w, len);
	strbuf_addch(data, '|');
}

static char *join_tokens(const struct tokens *t)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < t->nr; i++) {
		strbuf_addstr(&sb, t->items[i]);
		strbuf_addch(&sb, '|');
	}
	return strbuf_detach(&sb, NULL);
}

static void test_each_token(void)
{
	struct tokens t = TOKENS_INIT;
	char *joined;
	struct strbuf sb = STRBUF_INIT;

	text_each_token("Don't re-use keys; 2FA!", 23, join_token, &sb);
	is_str(sb.buf, "don|t|re|use|keys|2fa|", "text_each_token gives the tokens of text_tokenize");
	text_tokenize("Don't re-use keys; 2FA!", 23, &t);
	joined = join_tokens(&t);
	is_str(joined, sb.buf, "both agree");
	free(joined);
	tokens_release(&t);
	strbuf_release(&sb);
	ok(lang_is_stopword(lang_get("en"), "whatever", 4), "a stop word is found by length ('what')");
	ok(!lang_is_stopword(lang_get("en"), "the", 2), "a prefix of a stop word is not one ('th')");
	ok(!lang_is_stopword(lang_get("en"), "thex", 4) &&
	   lang_is_stopword(lang_get("en"), "yourselvesx", 10),
	   "longer words are compared by their length");
	ok(sw("en", "a") && sw("en", "yourselves") && sw("en", "whom") &&
	   sw("en", "themselves"), "the shortest and longest stop words are found");
	ok(!sw("en", "") && !sw("en", "thee") && !sw("en", "The"),
	   "the empty word, a near miss and an unfolded word are not stop words");
	ok(!sw("en", "die") && sw("de", "die") && !sw("de", "rotate"),
	   "stop words belong to their language");
}

/* Every result of core/text for 'len' bytes of 's', one string; caller frees. */
static char *all_results(const char *s, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	struct tokens t = TOKENS_INIT;
	char *n = text_normalize(s, len), *q = text_normalize_query(s, len), *tok, *z = xstrndup(s, len);

	text_tokenize(s, len, &t);
	tok = join_tokens(&t);
	/* the similarity functions read NUL-terminated text */
	strbuf_addf(&sb, "norm=[%s] query=[%s] tokens=[%s] sim=%.17g overlap=%.17g copied=%.17g",
		    n, q, tok, text_similarity(z, "the api key"), text_overlap(z, "rotate the api key"),
		    text_copied_share(z, "the api key"));
	free(n);
	free(q);
	free(tok);
	free(z);
	tokens_release(&t);
	return strbuf_detach(&sb, NULL);
}

/* Return whether both paths agree on 'len' bytes of 's'; report the first disagreement. */
static bool paths_agree(const char *s, size_t len, const char *what)
{
	char *fast, *slow;
	bool same;

	text_ascii_fast = true;
	fast = all_results(s, len);
	text_ascii_fast = false;
	slow = all_results(s, len);
	text_ascii_fast = true;
	same = !strcmp(fast, slow);
	if (!same) {
		struct strbuf hex = STRBUF_INIT;
		for (size_t i = 0; i < len; i++)
			strbuf_addf(&hex, "%02x", (unsigned char)s[i]);
		test_diag("%s: input %s", what, hex.buf);
		test_diag("fast: %s", fast);
		test_diag("slow: %s", slow);
		strbuf_release(&hex);
	}
	free(fast);
	free(slow);
	return same;
}

static uint64_t rng_state = 42;

static uint64_t rng(void)
{
	return splitmix64_next(&rng_state);
}

/* Non-ASCII pieces whose folding or class matters next to ASCII. */
static const char *const pieces[] = {
	"\xc3\xa9",             /* e acute (precomposed) */
	"\xcc\x81",             /* combining acute: composes with a preceding ASCII letter */
	"\xc3\x9f",             /* sharp s: folds to "ss" */
	"\xef\xbc\xa1",         /* full-width A */
	"\xe2\x80\x83",         /* em space (Zs) */
	"\xc2\xa0",             /* no-break space (Zs) */
	"\xc2\xad",             /* soft hyphen (default ignorable) */
	"\xe2\x80\x99",         /* right single quote (Pf) */
	"\xc2\xbf",             /* inverted question mark (Po) */
	"\xef\xac\x81",         /* fi ligature: folds to "fi" */
	"\xe2\x80\xa8",         /* line separator (Zl) */
	"\xe2\x82\xac",         /* euro sign (Sc) */
	"\xff",                 /* invalid byte */
	"\xe2\x80",             /* truncated sequence */
	"\xd9\xa3",             /* arabic-indic digit three (Nd) */
	"\xcc\xb8",             /* combining long solidus: "=" and it compose to U+2260 */
	"\xe1\x84\x80",         /* Hangul choseong kiyeok: composes with a following vowel */
	"\xe1\x85\xa1",         /* Hangul jungseong a */
	"\xe2\x84\xaa",         /* Kelvin sign: folds to ASCII "k" */
	"\xcf\x82",             /* Greek final sigma: folds to sigma */
	"\xe6\x97\xa5",         /* CJK ideograph (bigrams) */
	"\xf0\x9f\x98\x80",     /* emoji (So) */
	"\xe2\x80\x8d",         /* zero-width joiner (default ignorable) */
};

static void test_ascii_fast_path(void)
{
	char buf[128];
	size_t bad = 0, n;

	/* every ASCII byte alone, inside a word, between words and at the end */
	for (int c = 0; c < 128; c++) {
		char one[1] = { (char)c };
		bool same = paths_agree(one, 1, "one byte");
		n = (size_t)snprintf(buf, sizeof(buf), "Ab%cCd e%c", c ? c : ' ', c ? c : ' ');
		buf[2] = (char)c;
		buf[n - 1] = (char)c;
		same = paths_agree(buf, n, "byte in context") && same;
		ok(same, "byte 0x%02x: the ASCII path and the utf8proc path agree", c);
	}
	/* random strings over all 128 bytes, biased to letters, spaces and punctuation */
	for (int r = 0; r < 3000; r++) {
		n = (size_t)(rng() % 40);
		for (size_t i = 0; i < n; i++) {
			uint64_t k = rng() % 8;
			buf[i] = (char)(k < 3 ? "aBcDeTh zYq"[rng() % 11] : k < 5 ? " ?!.,-+'"[rng() % 8]
					 : (int)(rng() % 128));
		}
		bad += !paths_agree(buf, n, "random ASCII");
	}
	is_int(bad, 0, "3000 random ASCII strings: both paths agree");
	bad = 0;
	/* random mixed strings: ASCII with non-ASCII pieces anywhere */
	for (int r = 0; r < 3000; r++) {
		size_t len = 0, parts = (size_t)(rng() % 12);
		for (size_t p = 0; p < parts && len + 4 < sizeof(buf); p++) {
			if (rng() % 3 == 0) {
				const char *x = pieces[rng() % ARRAY_SIZE(pieces)];
				if (len + strlen(x) >= sizeof(buf))
					break;
				memcpy(buf + len, x, strlen(x));
				len += strlen(x);
			} else {
				buf[len++] = (char)(rng() % 3 ? "aBcDeTh zYq?!. -"[rng() % 16] : (int)(rng() % 128));
			}
		}
		bad += !paths_agree(buf, len, "random mixed");
	}
	is_int(bad, 0, "3000 random mixed strings: both paths agree");
}

/* ---- thread safety: first use from two threads at once ---- */

static const char *const thread_inputs[] = {
	"How do I rotate an API key?!", "  Stra\xc3\x9f\x65  ", "What is C++ v1.2 ...", "a\tb\nc",
};

static void *thread_normalize(void *arg)
{
	char **out = arg;
	for (size_t i = 0; i < ARRAY_SIZE(thread_inputs); i++)
		out[i] = text_normalize_query(thread_inputs[i], strlen(thread_inputs[i]));
	return NULL;
}

static void test_threads(void)
{
	static const char *const want[] = { "how do i rotate an api key", "strasse", "what is c++ v1.2",
					    "a b c" };
	char *got[2][ARRAY_SIZE(thread_inputs)];
	pthread_t th[2];
	bool same = true;

	for (int k = 0; k < 2; k++)
		pthread_create(&th[k], NULL, thread_normalize, got[k]);
	for (int k = 0; k < 2; k++)
		pthread_join(th[k], NULL);
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < ARRAY_SIZE(thread_inputs); i++) {
			same = same && !strcmp(got[k][i], want[i]);
			free(got[k][i]);
		}
	ok(same, "two threads normalising at first use both get the right forms");
}

static void test_corpus(void)
{
	char dir[] = "/tmp/t-text-XXXXXX";
	struct corpus c = CORPUS_INIT, c2 = CORPUS_INIT;
	char *p1, *p2, *p3, fp1[72], fp2[72];
	const char *a = "{\"id\": \"c1\", \"text\": \"alpha\", \"title\": \"A\"}\n"
			"{\"_id\": \"c2\", \"text\": \"beta\"}\n\n";
	const char *b = "{\"_id\": \"c2\", \"text\": \"beta\"}\n"
			"{\"id\": \"c1\", \"text\": \"alpha\", \"title\": \"A\"}\n";
	const char *dup = "{\"id\": \"c1\", \"text\": \"x\"}\n{\"id\": \"c1\", \"text\": \"y\"}\n";

	if (!mkdtemp(dir)) {
		ok(0, "cannot make a temporary directory");
		return;
	}
	p1 = path_join(dir, "a.jsonl");
	p2 = path_join(dir, "b.jsonl");
	p3 = path_join(dir, "dup.jsonl");
	write_file_atomic(p1, a, strlen(a));
	write_file_atomic(p2, b, strlen(b));
	write_file_atomic(p3, dup, strlen(dup));
	ok(corpus_load(&c, p1) == 0, "a corpus with id and _id loads");
	is_int(c.nr, 2, "two chunks, blank line skipped");
	ok(corpus_get(&c, "c2") && !strcmp(corpus_get(&c, "c2")->text, "beta"), "chunks are found by id");
	ok(corpus_get(&c, "c3") == NULL, "an unknown id is not found");
	ok(corpus_load(&c2, p2) == 0, "the reordered corpus loads");
	corpus_fingerprint(&c, fp1);
	corpus_fingerprint(&c2, fp2);
	is_str(fp1, fp2, "line order does not change the fingerprint");
	free(c2.chunks[0].text);
	c2.chunks[0].text = xstrdup("beta, re-chunked");
	corpus_fingerprint(&c2, fp2);
	ok(strcmp(fp1, fp2) != 0, "changed chunk text changes the fingerprint");
	corpus_release(&c2);
	test_capture_errors();
	ok(corpus_load(&c2, p3) < 0, "a duplicate chunk id is refused");
	ok(strstr(test_captured(), "dup.jsonl:2: duplicate chunk id 'c1'") != NULL,
	   "the error names the file, the line and the id");
	corpus_release(&c);
	unlink(p1);
	unlink(p2);
	unlink(p3);
	rmdir(dir);
	free(p1);
	free(p2);
	free(p3);
}

/*
 * One question in the 12 XQuAD languages: a near-duplicate variant, a
 * different question on the same subject, a passage that answers it and a
 * question that shares no words with it. Every language must give the
 * decisions English gives: the variant is a near duplicate, the other
 * question is not, the question overlaps its passage (> 0.5), the
 * vocabulary-gap question does not.
 */
struct translated {
	const char *lang, *q, *variant, *other, *chunk, *gap;
};
static const struct translated translated[] = {
	{ "en", "When was the Eiffel Tower in Paris built\077", "When has the Eiffel Tower in Paris been built\077", "Who designed the Eiffel Tower in Paris\077", "The Eiffel Tower in Paris was built between 1887 and 1889.", "Which iron landmark of the French capital dates from the 1880s\077" },
	{ "es", "\302\277Cu\303\241ndo se construy\303\263 la Torre Eiffel en Par\303\255s\077", "\302\277Cu\303\241ndo fue construy\303\263 la Torre Eiffel de Par\303\255s\077", "\302\277Qui\303\251n dise\303\261\303\263 la Torre Eiffel en Par\303\255s\077", "La Torre Eiffel en Par\303\255s se construy\303\263 entre 1887 y 1889.", "\302\277Qu\303\251 monumento de hierro de la capital francesa data de la d\303\251cada de 1880\077" },
	{ "de", "Wann wurde der Eiffelturm in Paris gebaut\077", "Wann ist der Eiffelturm in Paris gebaut worden\077", "Wer hat den Eiffelturm in Paris entworfen\077", "Der Eiffelturm in Paris wurde zwischen 1887 und 1889 gebaut.", "Welches eiserne Wahrzeichen der franz\303\266sischen Hauptstadt stammt aus den 1880er Jahren\077" },
	{ "el", "\316\240\317\214\317\204\316\265 \317\207\317\204\316\257\317\203\317\204\316\267\316\272\316\265 \316\277 \316\240\317\215\317\201\316\263\316\277\317\202 \317\204\316\277\317\205 \316\206\316\271\317\206\316\265\316\273 \317\203\317\204\316\277 \316\240\316\261\317\201\316\257\317\203\316\271;", "\316\240\317\214\317\204\316\265 \317\207\317\204\316\257\317\203\317\204\316\267\316\272\316\265 \316\277 \316\240\317\215\317\201\316\263\316\277\317\202 \317\204\316\277\317\205 \316\206\316\271\317\206\316\265\316\273 \317\203\317\204\316\267 \316\240\316\261\317\201\316\257\317\203\316\271;", "\316\240\316\277\316\271\316\277\317\202 \317\203\317\207\316\265\316\264\316\257\316\261\317\203\316\265 \317\204\316\277\316\275 \316\240\317\215\317\201\316\263\316\277 \317\204\316\277\317\205 \316\206\316\271\317\206\316\265\316\273 \317\203\317\204\316\277 \316\240\316\261\317\201\316\257\317\203\316\271;", "\316\237 \316\240\317\215\317\201\316\263\316\277\317\202 \317\204\316\277\317\205 \316\206\316\271\317\206\316\265\316\273 \317\203\317\204\316\277 \316\240\316\261\317\201\316\257\317\203\316\271 \317\207\317\204\316\257\317\203\317\204\316\267\316\272\316\265 \316\274\316\265\317\204\316\261\316\276\317\215 1887 \316\272\316\261\316\271 1889.", "\316\240\316\277\316\271\316\277 \317\203\316\271\316\264\316\265\317\201\316\255\316\275\316\271\316\277 \316\277\317\201\317\214\317\203\316\267\316\274\316\277 \317\204\316\267\317\202 \316\263\316\261\316\273\316\273\316\271\316\272\316\256\317\202 \317\200\317\201\317\211\317\204\316\265\317\215\316\277\317\205\317\203\316\261\317\202 \317\207\317\201\316\277\316\275\316\277\316\273\316\277\316\263\316\265\316\257\317\204\316\261\316\271 \316\261\317\200\317\214 \317\204\316\267 \316\264\316\265\316\272\316\261\316\265\317\204\316\257\316\261 \317\204\316\277\317\205 1880;" },
	{ "ru", "\320\232\320\276\320\263\320\264\320\260 \320\261\321\213\320\273\320\260 \320\277\320\276\321\201\321\202\321\200\320\276\320\265\320\275\320\260 \320\255\320\271\321\204\320\265\320\273\320\265\320\262\320\260 \320\261\320\260\321\210\320\275\321\217 \320\262 \320\237\320\260\321\200\320\270\320\266\320\265\077", "\320\232\320\276\320\263\320\264\320\260 \320\266\320\265 \320\261\321\213\320\273\320\260 \320\277\320\276\321\201\321\202\321\200\320\276\320\265\320\275\320\260 \320\255\320\271\321\204\320\265\320\273\320\265\320\262\320\260 \320\261\320\260\321\210\320\275\321\217 \320\262 \320\237\320\260\321\200\320\270\320\266\320\265\077", "\320\232\321\202\320\276 \321\201\320\277\321\200\320\276\320\265\320\272\321\202\320\270\321\200\320\276\320\262\320\260\320\273 \320\255\320\271\321\204\320\265\320\273\320\265\320\262\321\203 \320\261\320\260\321\210\320\275\321\216 \320\262 \320\237\320\260\321\200\320\270\320\266\320\265\077", "\320\255\320\271\321\204\320\265\320\273\320\265\320\262\320\260 \320\261\320\260\321\210\320\275\321\217 \320\262 \320\237\320\260\321\200\320\270\320\266\320\265 \320\261\321\213\320\273\320\260 \320\277\320\276\321\201\321\202\321\200\320\276\320\265\320\275\320\260 \320\274\320\265\320\266\320\264\321\203 1887 \320\270 1889 \320\263\320\276\320\264\320\260\320\274\320\270.", "\320\232\320\260\320\272\320\260\321\217 \320\266\320\265\320\273\320\265\320\267\320\275\320\260\321\217 \320\264\320\276\321\201\321\202\320\276\320\277\321\200\320\270\320\274\320\265\321\207\320\260\321\202\320\265\320\273\321\214\320\275\320\276\321\201\321\202\321\214 \321\204\321\200\320\260\320\275\321\206\321\203\320\267\321\201\320\272\320\276\320\271 \321\201\321\202\320\276\320\273\320\270\321\206\321\213 \320\276\321\202\320\275\320\276\321\201\320\270\321\202\321\201\321\217 \320\272 1880-\320\274\077" },
	{ "tr", "Paris'teki Eyfel Kulesi ne zaman in\305\237a edildi\077", "Paris'teki Eyfel Kulesi ne zaman in\305\237a edildi acaba\077", "Paris'teki Eyfel Kulesi'ni kim tasarlad\304\261\077", "Paris'teki Eyfel Kulesi 1887 ile 1889 aras\304\261nda in\305\237a edildi.", "Frans\304\261z ba\305\237kentinin hangi demir simgesi 1880'lere dayan\304\261r\077" },
	{ "ar", "\331\205\330\252\331\211 \330\252\331\205 \330\250\331\206\330\247\330\241 \330\250\330\261\330\254 \330\245\331\212\331\201\331\204 \331\201\331\212 \330\250\330\247\330\261\331\212\330\263\330\237", "\331\205\330\252\331\211 \330\252\331\205 \330\250\331\206\330\247\330\241 \330\250\330\261\330\254 \330\245\331\212\331\201\331\204 \331\201\331\212 \331\205\330\257\331\212\331\206\330\251 \330\250\330\247\330\261\331\212\330\263\330\237", "\331\205\331\206 \330\265\331\205\331\205 \330\250\330\261\330\254 \330\245\331\212\331\201\331\204 \331\201\331\212 \330\250\330\247\330\261\331\212\330\263\330\237", "\330\252\331\205 \330\250\331\206\330\247\330\241 \330\250\330\261\330\254 \330\245\331\212\331\201\331\204 \331\201\331\212 \330\250\330\247\330\261\331\212\330\263 \330\250\331\212\331\206 \330\271\330\247\331\205\331\212 1887 \331\210 1889.", "\330\243\331\212 \331\205\330\271\331\204\331\205 \330\255\330\257\331\212\330\257\331\212 \331\201\331\212 \330\247\331\204\330\271\330\247\330\265\331\205\330\251 \330\247\331\204\331\201\330\261\331\206\330\263\331\212\330\251 \331\212\330\271\331\210\330\257 \330\245\331\204\331\211 \330\253\331\205\330\247\331\206\331\212\331\206\331\212\330\247\330\252 \330\247\331\204\331\202\330\261\331\206 \330\247\331\204\330\252\330\247\330\263\330\271 \330\271\330\264\330\261\330\237" },
	{ "vi", "Th\303\241p Eiffel \341\273\237 Paris \304\221\306\260\341\273\243c x\303\242y d\341\273\261ng khi n\303\240o\077", "Th\303\241p Eiffel \341\273\237 Paris \304\221\303\243 \304\221\306\260\341\273\243c x\303\242y d\341\273\261ng khi n\303\240o\077", "Ai \304\221\303\243 thi\341\272\277t k\341\272\277 th\303\241p Eiffel \341\273\237 Paris\077", "Th\303\241p Eiffel \341\273\237 Paris \304\221\306\260\341\273\243c x\303\242y d\341\273\261ng t\341\273\253 n\304\203m 1887 \304\221\341\272\277n n\304\203m 1889.", "C\303\264ng tr\303\254nh s\341\272\257t n\341\273\225i ti\341\272\277ng n\303\240o c\341\273\247a th\341\273\247 \304\221\303\264 n\306\260\341\273\233c Ph\303\241p c\303\263 t\341\273\253 th\341\272\255p ni\303\252n 1880\077" },
	{ "th", "\340\270\253\340\270\255\340\271\204\340\270\255\340\271\200\340\270\237\340\270\245\340\271\203\340\270\231\340\270\233\340\270\262\340\270\243\340\270\265\340\270\252\340\270\252\340\270\243\340\271\211\340\270\262\340\270\207\340\270\202\340\270\266\340\271\211\340\270\231\340\271\200\340\270\241\340\270\267\340\271\210\340\270\255\340\271\204\340\270\253\340\270\243\340\271\210", "\340\270\253\340\270\255\340\271\204\340\270\255\340\271\200\340\270\237\340\270\245\340\271\203\340\270\231\340\270\233\340\270\262\340\270\243\340\270\265\340\270\252\340\270\226\340\270\271\340\270\201\340\270\252\340\270\243\340\271\211\340\270\262\340\270\207\340\270\202\340\270\266\340\271\211\340\270\231\340\271\200\340\270\241\340\270\267\340\271\210\340\270\255\340\271\204\340\270\253\340\270\243\340\271\210", "\340\271\203\340\270\204\340\270\243\340\271\200\340\270\233\340\271\207\340\270\231\340\270\234\340\270\271\340\271\211\340\270\255\340\270\255\340\270\201\340\271\201\340\270\232\340\270\232\340\270\253\340\270\255\340\271\204\340\270\255\340\271\200\340\270\237\340\270\245\340\271\203\340\270\231\340\270\233\340\270\262\340\270\243\340\270\265\340\270\252", "\340\270\253\340\270\255\340\271\204\340\270\255\340\271\200\340\270\237\340\270\245\340\271\203\340\270\231\340\270\233\340\270\262\340\270\243\340\270\265\340\270\252\340\270\252\340\270\243\340\271\211\340\270\262\340\270\207\340\270\202\340\270\266\340\271\211\340\270\231\340\270\243\340\270\260\340\270\253\340\270\247\340\271\210\340\270\262\340\270\207\340\270\233\340\270\265 1887 \340\270\226\340\270\266\340\270\207 1889", "\340\270\252\340\270\261\340\270\215\340\270\245\340\270\261\340\270\201\340\270\251\340\270\223\340\271\214\340\271\200\340\270\253\340\270\245\340\271\207\340\270\201\340\271\201\340\270\253\340\271\210\340\270\207\340\271\200\340\270\241\340\270\267\340\270\255\340\270\207\340\270\253\340\270\245\340\270\247\340\270\207\340\270\202\340\270\255\340\270\207\340\270\235\340\270\243\340\270\261\340\271\210\340\270\207\340\271\200\340\270\250\340\270\252\340\271\203\340\270\224\340\270\241\340\270\265\340\270\255\340\270\262\340\270\242\340\270\270\340\270\242\340\271\211\340\270\255\340\270\231\340\271\204\340\270\233\340\270\226\340\270\266\340\270\207\340\270\227\340\270\250\340\270\247\340\270\243\340\270\243\340\270\251 1880" },
	{ "zh", "\345\267\264\351\273\216\347\232\204\345\237\203\350\217\262\345\260\224\351\223\201\345\241\224\346\230\257\345\234\250\345\223\252\344\270\200\345\271\264\345\273\272\351\200\240\345\256\214\346\210\220\347\232\204\357\274\237", "\345\267\264\351\273\216\347\232\204\345\237\203\350\217\262\345\260\224\351\223\201\345\241\224\346\230\257\345\223\252\344\270\200\345\271\264\345\273\272\351\200\240\345\256\214\346\210\220\347\232\204\357\274\237", "\345\267\264\351\273\216\347\232\204\345\237\203\350\217\262\345\260\224\351\223\201\345\241\224\346\230\257\347\224\261\350\260\201\350\256\276\350\256\241\347\232\204\357\274\237", "\345\267\264\351\273\216\347\232\204\345\237\203\350\217\262\345\260\224\351\223\201\345\241\224\346\230\257\345\234\2501887\345\271\264\350\207\2631889\345\271\264\344\271\213\351\227\264\345\273\272\351\200\240\345\256\214\346\210\220\347\232\204\343\200\202", "\345\223\252\345\272\247\351\222\242\351\223\201\345\234\260\346\240\207\345\217\257\344\273\245\350\277\275\346\272\257\345\210\260\345\215\201\344\271\235\344\270\226\347\272\252\345\205\253\345\215\201\345\271\264\344\273\243\357\274\237" },
	{ "hi", "\340\244\252\340\245\207\340\244\260\340\244\277\340\244\270 \340\244\256\340\245\207\340\244\202 \340\244\217\340\244\253\340\244\277\340\244\262 \340\244\237\340\245\211\340\244\265\340\244\260 \340\244\225\340\244\254 \340\244\254\340\244\250\340\244\276\340\244\257\340\244\276 \340\244\227\340\244\257\340\244\276 \340\244\245\340\244\276\077", "\340\244\252\340\245\207\340\244\260\340\244\277\340\244\270 \340\244\256\340\245\207\340\244\202 \340\244\217\340\244\253\340\244\277\340\244\262 \340\244\237\340\245\211\340\244\265\340\244\260 \340\244\225\340\244\254 \340\244\254\340\244\250\340\244\276\340\244\257\340\244\276 \340\244\227\340\244\257\340\244\276\077", "\340\244\252\340\245\207\340\244\260\340\244\277\340\244\270 \340\244\256\340\245\207\340\244\202 \340\244\217\340\244\253\340\244\277\340\244\262 \340\244\237\340\245\211\340\244\265\340\244\260 \340\244\225\340\245\213 \340\244\225\340\244\277\340\244\270\340\244\250\340\245\207 \340\244\241\340\244\277\340\244\234\340\244\276\340\244\207\340\244\250 \340\244\225\340\244\277\340\244\257\340\244\276\077", "\340\244\252\340\245\207\340\244\260\340\244\277\340\244\270 \340\244\256\340\245\207\340\244\202 \340\244\217\340\244\253\340\244\277\340\244\262 \340\244\237\340\245\211\340\244\265\340\244\260 1887 \340\244\224\340\244\260 1889 \340\244\225\340\245\207 \340\244\254\340\245\200\340\244\232 \340\244\254\340\244\250\340\244\276\340\244\257\340\244\276 \340\244\227\340\244\257\340\244\276 \340\244\245\340\244\276\340\245\244", "\340\244\253\340\245\215\340\244\260\340\244\276\340\244\202\340\244\270\340\245\200\340\244\270\340\245\200 \340\244\260\340\244\276\340\244\234\340\244\247\340\244\276\340\244\250\340\245\200 \340\244\225\340\244\276 \340\244\225\340\245\214\340\244\250 \340\244\270\340\244\276 \340\244\262\340\245\213\340\244\271\340\245\207 \340\244\225\340\244\276 \340\244\270\340\245\215\340\244\256\340\244\276\340\244\260\340\244\225 1880 \340\244\225\340\245\207 \340\244\246\340\244\266\340\244\225 \340\244\225\340\244\276 \340\244\271\340\245\210\077" },
	{ "ro", "C\303\242nd a fost construit Turnul Eiffel din Paris\077", "C\303\242nd a fost oare construit Turnul Eiffel din Paris\077", "Cine a proiectat Turnul Eiffel din Paris\077", "Turnul Eiffel din Paris a fost construit \303\256ntre 1887 \310\231i 1889.", "Ce monument de fier al capitalei franceze dateaz\304\203 din anii 1880\077" },
};

static void test_translated_pairs(void)
{
	const struct translated *en = &translated[0];
	bool en_dup = text_near_duplicate(en->q, en->variant, TEXT_NEAR_DUP_THRESHOLD);
	bool en_other = text_near_duplicate(en->q, en->other, TEXT_NEAR_DUP_THRESHOLD);
	bool en_lexical = text_overlap(en->q, en->chunk) > 0.5;
	bool en_gap = text_overlap(en->gap, en->chunk) > 0.5;

	ok(en_dup && !en_other && en_lexical && !en_gap, "English: variant duplicate, other not, overlap high, gap low");
	for (size_t i = 1; i < ARRAY_SIZE(translated); i++) {
		const struct translated *t = &translated[i];
		struct dup_index d = DUP_INDEX_INIT;

		ok(text_near_duplicate(t->q, t->variant, TEXT_NEAR_DUP_THRESHOLD) == en_dup &&
		   text_near_duplicate(t->q, t->other, TEXT_NEAR_DUP_THRESHOLD) == en_other,
		   "%s: near duplicates decided as in English (%.3f, %.3f)", t->lang,
		   text_similarity(t->q, t->variant), text_similarity(t->q, t->other));
		ok((text_overlap(t->q, t->chunk) > 0.5) == en_lexical &&
		   (text_overlap(t->gap, t->chunk) > 0.5) == en_gap,
		   "%s: overlap decided as in English (%.3f, %.3f)", t->lang,
		   text_overlap(t->q, t->chunk), text_overlap(t->gap, t->chunk));
		dup_index_add(&d, t->q, 1);
		ok((dup_index_find(&d, t->variant, TEXT_NEAR_DUP_THRESHOLD) != NULL) == en_dup &&
		   (dup_index_find(&d, t->other, TEXT_NEAR_DUP_THRESHOLD) != NULL) == en_other,
		   "%s: the duplicate index agrees", t->lang);
		dup_index_release(&d);
	}
}

/* The words of a text as they stand, unstemmed: the verdicts without stemming. */
struct raw_words {
	uint64_t h[32];
	size_t nr;
	bool all;
};

static void add_raw(const char *w, size_t len, const char *term, size_t term_len, bool content, void *data)
{
	struct raw_words *r = data;

	(void)term;
	(void)term_len;
	if ((content || r->all) && r->nr < 32)
		r->h[r->nr++] = strhash(w, len);
}

static double raw_jaccard(const char *a, const char *b)
{
	struct raw_words x = { .nr = 0 }, y = { .nr = 0 };
	size_t inter = 0;

	text_each_word(a, strlen(a), NULL, add_raw, &x);
	text_each_word(b, strlen(b), NULL, add_raw, &y);
	for (size_t i = 0; i < x.nr; i++)
		for (size_t j = 0; j < y.nr; j++)
			if (x.h[i] == y.h[j]) {
				inter++;
				break;
			}
	return x.nr + y.nr - inter ? (double)inter / (double)(x.nr + y.nr - inter) : 1.0;
}

/*
 * Similarity, overlap and the copy measure compare stems in the text's own
 * language, as BM25 does: German and Spanish pairs that differ only by
 * inflection are near duplicates, which they are not word for word.
 */
static void test_stemmed_measures(void)
{
	static const char *const pairs[][2] = {
		{ "Wann wurden die H\xc3\xa4user in Berlin gebaut?", "Wann wurde das Haus in Berlin gebaut?" },
		{ "\xc2\xbf" "Cu\xc3\xa1ndo se construyeron las casas de Madrid?",
		  "\xc2\xbf" "Cu\xc3\xa1ndo se construy\xc3\xb3 la casa de Madrid?" },
	};
	struct dup_index d = DUP_INDEX_INIT;

	for (size_t i = 0; i < ARRAY_SIZE(pairs); i++) {
		ok(raw_jaccard(pairs[i][0], pairs[i][1]) < TEXT_NEAR_DUP_THRESHOLD,
		   "pair %zu: word for word, not a near duplicate (%.3f)", i, raw_jaccard(pairs[i][0], pairs[i][1]));
		ok(text_near_duplicate(pairs[i][0], pairs[i][1], TEXT_NEAR_DUP_THRESHOLD),
		   "pair %zu: stemmed, a near duplicate (%.3f)", i, text_similarity(pairs[i][0], pairs[i][1]));
		dup_index_add(&d, pairs[i][0], 1);
		ok(dup_index_find(&d, pairs[i][1], TEXT_NEAR_DUP_THRESHOLD) != NULL,
		   "pair %zu: the duplicate index finds the inflected variant", i);
	}
	dup_index_release(&d);
	/* generate's filters: overlap and copied share over stems */
	is_double(text_overlap("Wann wurden die H\xc3\xa4user gebaut?", "Das Haus wurde 1890 gebaut."), 1.0, 1e-9,
		  "overlap: Haeuser is found as Haus");
	is_double(text_copied_share("H\xc3\xa4user wurden 1890 gebaut", "Das Haus wurde 1890 gebaut"), 1.0, 1e-9,
		  "copied share: an inflected copy is a copy");
	/* English keeps its verdicts: different questions stay apart */
	ok(!text_near_duplicate("Who designed the Eiffel Tower?", "When was the Eiffel Tower built?",
				TEXT_NEAR_DUP_THRESHOLD), "English: other questions are not near duplicates");
}

/* Tokens per script: CJK bigrams, Thai words from ICU, script changes cut. */
static void test_scripts(void)
{
	struct strbuf sb = STRBUF_INIT;

	text_each_token("\xe6\x9d\xb1\xe4\xba\xac\xe9\x83\xbd", 9, join_token, &sb);
	is_str(sb.buf, "\xe6\x9d\xb1\xe4\xba\xac|\xe4\xba\xac\xe9\x83\xbd|", "a Han run gives its bigrams (東京都: 東京 京都)");
	strbuf_reset(&sb);
	text_each_token("\xe6\x97\xa5 iPhone\xe6\x89\x8b\xe6\x9c\xba", 16, join_token, &sb);
	is_str(sb.buf, "\xe6\x97\xa5|iphone|\xe6\x89\x8b\xe6\x9c\xba|", "a lone Han character is a token; Latin and Han are cut apart");
	strbuf_reset(&sb);
	/* ฉันกินข้าว: I eat rice */
	text_each_token("\xe0\xb8\x89\xe0\xb8\xb1\xe0\xb8\x99\xe0\xb8\x81\xe0\xb8\xb4\xe0\xb8\x99\xe0\xb8\x82\xe0\xb9\x89\xe0\xb8\xb2\xe0\xb8\xa7", 30, join_token, &sb);
	is_str(sb.buf, "\xe0\xb8\x89\xe0\xb8\xb1\xe0\xb8\x99|\xe0\xb8\x81\xe0\xb8\xb4\xe0\xb8\x99|\xe0\xb8\x82\xe0\xb9\x89\xe0\xb8\xb2\xe0\xb8\xa7|",
	       "a Thai run is cut into dictionary words (ฉัน กิน ข้าว)");
	strbuf_release(&sb);
	is_str(lang_code(lang_detect("Wer hat den Eiffelturm entworfen?", 33)), "de", "German is detected by its stop words");
	is_str(lang_code(lang_detect("topic e question", 16)), "en", "a one-letter word is no evidence: Latin defaults to English");
	is_str(lang_code(lang_detect("\xe3\x81\x93\xe3\x82\x8c\xe6\x97\xa5\xe6\x9c\xac", 12)), "ja", "Han with kana is Japanese");
	ok(!lang_text_fits("Who designed the tower?", 23, lang_get("de")) &&
	   lang_text_fits("Wer hat den Turm entworfen?", 27, lang_get("de")) &&
	   !lang_text_fits("\xe6\x9d\xb1\xe4\xba\xac", 6, lang_get("de")),
	   "a question in another language or script does not fit");
}

int main(void)
{
	test_translated_pairs();
	test_stemmed_measures();
	test_scripts();
	test_threads();  /* first: the threads are the first users of the module */
	test_normalize();
	test_tokens();
	test_similarity();
	test_overlap();
	test_each_token();
	test_ascii_fast_path();
	test_corpus();
	return test_done();
}
