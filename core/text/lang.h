/*
 * lang: the languages evalset knows: their tags, names, stop words and
 * stemmers, and the detection of a text's language.
 *
 * A language is named by a BCP 47 tag ("de", "pt-BR", "zh-Hant"); only its
 * primary subtag matters here, case-insensitively ("nb" and "nn" are
 * Norwegian). Every tag gives a profile: a language evalset has no data for
 * gets one without stop words or stemmer, and "und" (undetermined) is what
 * detection answers when the evidence is too thin. Profiles are static:
 * never freed, safe to share between threads.
 *
 * Stop words are data files (core/text/stopwords/<code>.txt, built into the
 * binary), normalised the way tokens are (text_normalize) when first used.
 * Stemmers are Snowball's (libstemmer) for every language Snowball covers.
 *
 * Detection (lang_detect) looks at the tokens of a text: the script most of
 * its words are written in decides for scripts that belong to one
 * language here (Greek, Thai, Hangul, ...; Han with any kana is Japanese,
 * without is Chinese); for Latin, Cyrillic, Arabic, Devanagari and Hebrew
 * the language whose stop words of two letters or more the text uses most
 * decides among those written in that script (one-letter words such as
 * "a", "e" or "y" belong to too many languages to count). Without such a
 * stop word, or on a tie, the first language of the script in the table
 * wins: English for Latin, Russian for Cyrillic, Arabic, Hindi, Hebrew.
 * A text without letters is "und".
 */
#ifndef EVALSET_LANG_H
#define EVALSET_LANG_H

#include <stdbool.h>
#include <stddef.h>

struct lang;

/* Return true when 'tag' is shaped like a BCP 47 tag: a primary subtag of
 * 2-3 letters (or "und"), then subtags of 1-8 letters or digits after '-'. */
bool lang_tag_valid(const char *tag);

/* Return the profile of language 'tag' (NULL or "": undetermined). Never NULL. */
const struct lang *lang_get(const char *tag);
/* Return the profile of undetermined text: no stop words, no stemmer. */
const struct lang *lang_und(void);
/* Return true when the evalset knows 'tag''s language (stop words, a
 * stemmer or a script of its own). */
bool lang_known(const char *tag);

/* Return the code of 'l' ("de"; "und" for undetermined text). */
const char *lang_code(const struct lang *l);
/* Return the English name of 'l' ("German"), for prompts and messages. */
const char *lang_name(const struct lang *l);
/* Return Snowball's name for the stemmer of 'l' ("german"), or NULL. */
const char *lang_stemmer_name(const struct lang *l);

/* Return true when the 'len' bytes at 'w' (a normalised token) are a stop
 * word of 'l'. */
bool lang_is_stopword(const struct lang *l, const char *w, size_t len);

/*
 * Detection, token by token, for callers that already walk the tokens:
 * zero a struct lang_evidence, add every token, then ask for the result.
 */
#define LANG_MAX 48
#define LANG_SCRIPTS 20
struct lang_evidence {
	unsigned script[LANG_SCRIPTS];  /* tokens per script */
	unsigned hits[LANG_MAX];        /* stop words per language */
};
/* Count the normalised token of 'len' bytes at 'w' in 'ev'. */
void lang_evidence_add(struct lang_evidence *ev, const char *w, size_t len);
/* Return the language 'ev' points to (lang_und() without evidence). */
const struct lang *lang_evidence_result(const struct lang_evidence *ev);

/* Return the language of the 'len' bytes of 's' (see above). */
const struct lang *lang_detect(const char *s, size_t len);

/*
 * Return false when the 'len' bytes of 's' are clearly not in language 'l':
 * most of their words are in a script 'l' is not written in, or they use
 * more stop words of another language of that script than of 'l'. A short
 * text without evidence either way fits; so does any text for "und".
 */
bool lang_text_fits(const char *s, size_t len, const struct lang *l);

#endif
