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
#include "text/text.h"
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
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
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

int main(void)
{
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
