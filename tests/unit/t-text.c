/*
 * t-text: normalisation, tokens, similarity and overlap (core/text), and
 * corpus loading and fingerprints (core/corpus).
 */
#include "test-lib.h"
#include "../../core/corpus.h"
#include "../../core/fsutil.h"
#include "../../core/text.h"
#include "../../core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	ok(text_is_stopword("the") && text_is_stopword("what"), "stop words are known");
	ok(!text_is_stopword("rotate"), "content words are not stop words");
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
	test_normalize();
	test_tokens();
	test_similarity();
	test_overlap();
	test_corpus();
	return test_done();
}
