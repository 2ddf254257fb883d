/*
 * text: Unicode-aware normalisation, tokenisation and lexical similarity,
 * through utf8proc.
 *
 * Normalised form (for duplicate detection and grouping): NFKC, case folded,
 * every run of punctuation, symbols and whitespace collapsed to one space,
 * trimmed. Tokens: maximal runs of letters, marks and digits of the
 * normalised text. Content words: tokens that are not English stop words.
 * Input must be valid UTF-8; invalid bytes (and NUL) are treated as
 * separators.
 *
 * Every function is pure and safe to call from several threads at once.
 */
#ifndef EVALSET_TEXT_H
#define EVALSET_TEXT_H

#include <stdbool.h>
#include <stddef.h>

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
/* True for an English stop word (already normalised, e.g. "the", "what"). */
bool text_is_stopword(const char *word);
/* Like text_is_stopword for the 'len' bytes at 'w'. */
bool text_is_stopword_mem(const char *w, size_t len);

/* Jaccard similarity of the content-word sets of 'a' and 'b', in [0,1]. */
double text_similarity(const char *a, const char *b);
/* True when 'a' and 'b' are the same after normalisation, or their
 * text_similarity reaches 'threshold' (0.8 is the default used by add). */
bool text_near_duplicate(const char *a, const char *b, double threshold);
#define TEXT_NEAR_DUP_THRESHOLD 0.8

/* Share of the content words of 'question' found in 'chunk', in [0,1]
 * (0 when the question has no content words). SPEC provenance.overlap. */
double text_overlap(const char *question, const char *chunk);
/* Share of the tokens of 'question' covered by its longest run of
 * consecutive tokens that also occurs, in order, in 'chunk', in [0,1]. */
double text_copied_share(const char *question, const char *chunk);

/*
 * For tests: true (the default) lets pure-ASCII text and ASCII code points
 * skip utf8proc (see text.c); false sends everything through utf8proc, so a
 * test can compare the two paths. Results are the same either way. Not to be
 * changed while another thread uses this module.
 */
extern bool text_ascii_fast;

#endif
