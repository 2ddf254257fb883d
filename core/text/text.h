/*
 * text: Unicode-aware normalisation, tokenisation and lexical similarity,
 * through utf8proc.
 *
 * Normalised form (for duplicate detection and grouping): NFKC, case folded,
 * every run of punctuation, symbols and whitespace collapsed to one space,
 * trimmed. Input must be valid UTF-8; invalid bytes (and NUL) are treated as
 * separators.
 *
 * Tokens, the same for every language (BM25, overlap, near duplicates,
 * import, judge prompts): the normalised text is cut into runs of letters,
 * marks and digits, and a run is also cut where it changes between
 *   - Han, Hiragana, Katakana and Hangul: such a run gives its overlapping
 *     character bigrams ("東京都" -> "東京" "京都"; one character alone is
 *     its own token), as Lucene's CJK analyzer does;
 *   - Thai, Lao, Khmer and Myanmar: such a run is cut into words by ICU's
 *     dictionary-based word break iterator;
 *   - everything else: the run is one token (Unicode word boundaries of
 *     scripts written with spaces; "don't" gives "don" and "t").
 * A combining mark stays with the run it follows.
 *
 * Content words: the tokens that are not stop words of the text's language
 * (core/text/lang.h), detected from the text itself unless given.
 *
 * Every function is pure and safe to call from several threads at once.
 */
#ifndef EVALSET_TEXT_H
#define EVALSET_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lang;

/* Scripts the tokenizer and language detection tell apart. */
enum text_script {
	TEXT_SCRIPT_NONE,      /* digits, symbols, scripts not listed */
	TEXT_SCRIPT_LATIN,
	TEXT_SCRIPT_CYRILLIC,
	TEXT_SCRIPT_GREEK,
	TEXT_SCRIPT_ARMENIAN,
	TEXT_SCRIPT_HEBREW,
	TEXT_SCRIPT_ARABIC,
	TEXT_SCRIPT_DEVANAGARI,
	TEXT_SCRIPT_TAMIL,
	TEXT_SCRIPT_GEORGIAN,
	TEXT_SCRIPT_HAN,
	TEXT_SCRIPT_KANA,      /* Hiragana and Katakana */
	TEXT_SCRIPT_HANGUL,
	TEXT_SCRIPT_THAI,
	TEXT_SCRIPT_LAO,
	TEXT_SCRIPT_KHMER,
	TEXT_SCRIPT_MYANMAR,
	TEXT_SCRIPT_NR
};
/* Return the script of code point 'cp'. */
enum text_script text_script_of(int32_t cp);
/* Return the script of the first letter of the 'len' bytes at 'w' (NONE when it has none). */
enum text_script text_script_of_word(const char *w, size_t len);

struct tokens {
	char **items;   /* owned, NUL-terminated, normalised */
	size_t nr, alloc;
};
#define TOKENS_INIT { NULL, 0, 0 }
void tokens_release(struct tokens *t);

/* Return the normalised form of 'len' bytes of 's' (see above); caller frees. */
char *text_normalize(const char *s, size_t len);
/* Like text_normalize, also dropping trailing punctuation only (keeps inner
 * punctuation such as "c++" or "v1.2"): the form used to group log queries. */
char *text_normalize_query(const char *s, size_t len);

/* Append the tokens of 'len' bytes of 's' to 'out'. */
void text_tokenize(const char *s, size_t len, struct tokens *out);
/* Call 'fn' for each token of 'len' bytes of 's', in order: the tokens
 * text_tokenize would append, each as 'len' bytes at 'w' (not NUL-terminated,
 * valid only during the call). Allocates no string per token. */
void text_each_token(const char *s, size_t len,
		     void (*fn)(const char *w, size_t len, void *data), void *data);
/*
 * Call 'fn' for each token of 'len' bytes of 's', in order, as
 * text_each_token does, with its term (the token stemmed by the Snowball
 * stemmer of language 'l', or the token itself where 'l' has none: valid
 * only during the call) and 'content' false for a stop word of 'l' ('l'
 * NULL: the language lang_detect finds in 's'). Similarity, overlap and
 * near-duplicates compare terms, so inflected forms match as in BM25.
 */
void text_each_word(const char *s, size_t len, const struct lang *l,
		    void (*fn)(const char *w, size_t len, const char *term, size_t term_len,
			       bool content, void *data), void *data);

/* Return the sorted, distinct hashes (strhash) of the terms of the content
 * words of 'len' bytes of 's' (of all its words when 'all'), their number in '*nr';
 * caller frees (never NULL). */
uint64_t *text_word_hashes(const char *s, size_t len, bool all, size_t *nr);

/* Jaccard similarity of the content-word term sets of 'a' and 'b' (each in
 * its own detected language, stemmed), in [0,1]. */
double text_similarity(const char *a, const char *b);
/* True when 'a' and 'b' are the same after normalisation, or their
 * text_similarity reaches 'threshold' (0.8 is the default used by add). */
bool text_near_duplicate(const char *a, const char *b, double threshold);
#define TEXT_NEAR_DUP_THRESHOLD 0.8

/* Share of the content-word terms of 'question' found among the terms of
 * 'chunk', in [0,1] (0 when the question has no content words): the
 * provenance.overlap of a generated question. */
double text_overlap(const char *question, const char *chunk);
/* Share of the tokens of 'question' covered by its longest run of
 * consecutive tokens whose terms also occur, in order, in 'chunk', in [0,1]. */
double text_copied_share(const char *question, const char *chunk);

/*
 * For tests: true (the default) lets pure-ASCII text and ASCII code points
 * skip utf8proc (see text.c); false sends everything through utf8proc, so a
 * test can compare the two paths. Results are the same either way. Not to be
 * changed while another thread uses this module.
 */
extern bool text_ascii_fast;

#endif
