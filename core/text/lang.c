/*
 * lang: language profiles, stop words and detection (see lang.h).
 *
 * The table below lists every language with data; its order is the
 * tie-break of detection (English first). All stop words of all languages
 * live in one hash map from the normalised word to a bit mask of the
 * languages that list it, so a stop-word test is one lookup and detection
 * counts the hits of every language at once. The map is filled once
 * (pthread_once) and only read afterwards.
 */
#include "text/lang.h"
#include "text/stopwords.h"
#include "text/text.h"
#include "base/strmap.h"
#include "base/utf8.h"
#include "base/util.h"

#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct lang {
	const char *code;
	const char *name;
	const char *snowball;  /* libstemmer's algorithm, or NULL */
	unsigned scripts;      /* bit per enum text_script it is written in */
};

#define S(x) (1u << TEXT_SCRIPT_##x)
static const struct lang langs[] = {
	{ "und", "undetermined", NULL, 0 },
	{ "en", "English", "english", S(LATIN) },
	{ "es", "Spanish", "spanish", S(LATIN) },
	{ "de", "German", "german", S(LATIN) },
	{ "fr", "French", "french", S(LATIN) },
	{ "it", "Italian", "italian", S(LATIN) },
	{ "pt", "Portuguese", "portuguese", S(LATIN) },
	{ "nl", "Dutch", "dutch", S(LATIN) },
	{ "sv", "Swedish", "swedish", S(LATIN) },
	{ "da", "Danish", "danish", S(LATIN) },
	{ "no", "Norwegian", "norwegian", S(LATIN) },
	{ "fi", "Finnish", "finnish", S(LATIN) },
	{ "hu", "Hungarian", "hungarian", S(LATIN) },
	{ "ro", "Romanian", "romanian", S(LATIN) },
	{ "tr", "Turkish", "turkish", S(LATIN) },
	{ "ca", "Catalan", "catalan", S(LATIN) },
	{ "eu", "Basque", "basque", S(LATIN) },
	{ "ga", "Irish", "irish", S(LATIN) },
	{ "id", "Indonesian", "indonesian", S(LATIN) },
	{ "lt", "Lithuanian", "lithuanian", S(LATIN) },
	{ "vi", "Vietnamese", NULL, S(LATIN) },
	{ "ru", "Russian", "russian", S(CYRILLIC) },
	{ "sr", "Serbian", "serbian", S(LATIN) | S(CYRILLIC) },
	{ "el", "Greek", "greek", S(GREEK) },
	{ "ar", "Arabic", "arabic", S(ARABIC) },
	{ "he", "Hebrew", NULL, S(HEBREW) },
	{ "yi", "Yiddish", "yiddish", S(HEBREW) },
	{ "hi", "Hindi", "hindi", S(DEVANAGARI) },
	{ "ne", "Nepali", "nepali", S(DEVANAGARI) },
	{ "hy", "Armenian", "armenian", S(ARMENIAN) },
	{ "ta", "Tamil", "tamil", S(TAMIL) },
	{ "ka", "Georgian", NULL, S(GEORGIAN) },
	{ "zh", "Chinese", NULL, S(HAN) },
	{ "ja", "Japanese", NULL, S(KANA) | S(HAN) },
	{ "ko", "Korean", NULL, S(HANGUL) | S(HAN) },
	{ "th", "Thai", NULL, S(THAI) },
	{ "lo", "Lao", NULL, S(LAO) },
	{ "km", "Khmer", NULL, S(KHMER) },
	{ "my", "Burmese", NULL, S(MYANMAR) },
};
#undef S

/* Other tags for the same language. */
static const char *const aliases[][2] = {
	{ "nb", "no" }, { "nn", "no" }, { "iw", "he" }, { "in", "id" }, { "ji", "yi" },
};

/* Languages that are the default of their script when no stop word decides
 * (index into langs; 0: undetermined). */
static size_t script_default[TEXT_SCRIPT_NR];

static struct strmap stop_map;   /* normalised word -> mask of language indexes */
static pthread_once_t stop_once = PTHREAD_ONCE_INIT;

static size_t index_of_code(const char *code, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(langs); i++)
		if (strlen(langs[i].code) == len && !memcmp(langs[i].code, code, len))
			return i;
	return 0;
}

/* Fill the stop-word map from the built-in lists, and the script defaults (once). */
static void stop_init(void)
{
	_Static_assert(ARRAY_SIZE(langs) <= LANG_MAX && LANG_MAX <= 64, "language masks fit 64 bits");
	for (const struct stopword_source *src = stopword_sources; src->code; src++) {
		size_t li = index_of_code(src->code, strlen(src->code));
		const char *p = src->words;

		if (!li)
			continue;  /* a list for a language missing from the table */
		while (*p) {
			const char *end = strchr(p, '\n');
			size_t n = end ? (size_t)(end - p) : strlen(p);
			char *w = text_normalize(p, n);
			int added;

			if (*w && !strchr(w, ' ')) {
				struct strmap_entry *e = strmap_intern(&stop_map, w, strlen(w), &added);
				e->value = (void *)((uintptr_t)e->value | ((uintptr_t)1 << li));
			}
			free(w);
			p += n + (end != NULL);
		}
	}
	/* the first language of each script; English for Latin */
	for (int sc = 1; sc < TEXT_SCRIPT_NR; sc++)
		for (size_t i = 1; i < ARRAY_SIZE(langs) && !script_default[sc]; i++)
			if (langs[i].scripts & (1u << sc))
				script_default[sc] = i;
}

bool lang_tag_valid(const char *tag)
{
	size_t n = 0;
	const char *p = tag;

	while (isalpha((unsigned char)p[n]))
		n++;
	if (n < 2 || n > 3)
		return false;
	p += n;
	while (*p == '-') {
		p++;
		n = 0;
		while (isalnum((unsigned char)p[n]))
			n++;
		if (n < 1 || n > 8)
			return false;
		p += n;
	}
	return *p == '\0';
}

/* Return the index in langs of 'tag''s primary subtag (0: none known). */
static size_t index_of_tag(const char *tag)
{
	char primary[4];
	size_t n = 0;

	if (!tag)
		return 0;
	while (n < 3 && isalpha((unsigned char)tag[n])) {
		primary[n] = (char)tolower((unsigned char)tag[n]);
		n++;
	}
	if (isalpha((unsigned char)tag[n]))
		return 0;
	primary[n] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(aliases); i++)
		if (!strcmp(primary, aliases[i][0]))
			return index_of_code(aliases[i][1], strlen(aliases[i][1]));
	return index_of_code(primary, n);
}

const struct lang *lang_get(const char *tag)
{
	return &langs[index_of_tag(tag)];
}

const struct lang *lang_und(void)
{
	return &langs[0];
}

bool lang_known(const char *tag)
{
	return index_of_tag(tag) != 0;
}

const char *lang_code(const struct lang *l)
{
	return l->code;
}

const char *lang_name(const struct lang *l)
{
	return l->name;
}

const char *lang_stemmer_name(const struct lang *l)
{
	return l->snowball;
}

/* Return the mask of the languages listing the 'len' bytes at 'w'. */
static uint64_t stop_mask(const char *w, size_t len)
{
	struct strmap_entry *e;

	pthread_once(&stop_once, stop_init);
	e = strmap_find(&stop_map, w, len);
	return e ? (uint64_t)(uintptr_t)e->value : 0;
}

bool lang_is_stopword(const struct lang *l, const char *w, size_t len)
{
	size_t li = (size_t)(l - langs);

	return li && (stop_mask(w, len) >> li & 1);
}

void lang_evidence_add(struct lang_evidence *ev, const char *w, size_t len)
{
	enum text_script sc = text_script_of_word(w, len);
	uint64_t mask;

	ev->script[sc]++;
	/* a one-letter word ("a", "e", "o", "y") is a stop word of too many
	 * languages to tell them apart */
	if (utf8_chars(w, len) < 2)
		return;
	for (mask = stop_mask(w, len); mask; mask &= mask - 1)
		ev->hits[__builtin_ctzll(mask)]++;
}

static void add_evidence(const char *w, size_t len, void *data)
{
	lang_evidence_add(data, w, len);
}
/* Return the script most tokens of 'ev' are in (TEXT_SCRIPT_NONE: no letters). */
static int main_script(const struct lang_evidence *ev)
{
	int best = TEXT_SCRIPT_NONE;

	for (int sc = 1; sc < TEXT_SCRIPT_NR; sc++)
		if (ev->script[sc] > ev->script[best])
			best = sc;
	return best;
}

const struct lang *lang_evidence_result(const struct lang_evidence *ev)
{
	int best = main_script(ev);
	size_t pick = 0;

	pthread_once(&stop_once, stop_init);
	if (best == TEXT_SCRIPT_NONE)
		return &langs[0];
	/* Han with any kana is Japanese; kana alone is too */
	if (best == TEXT_SCRIPT_HAN && ev->script[TEXT_SCRIPT_KANA])
		best = TEXT_SCRIPT_KANA;
	for (size_t i = 1; i < ARRAY_SIZE(langs); i++)
		if (langs[i].scripts & (1u << best) && ev->hits[i] > ev->hits[pick])
			pick = i;
	if (!pick)
		pick = script_default[best];
	return &langs[pick];
}

bool lang_text_fits(const char *s, size_t len, const struct lang *l)
{
	struct lang_evidence ev;
	size_t li = (size_t)(l - langs);
	int sc;

	if (!li)
		return true;
	memset(&ev, 0, sizeof(ev));
	text_each_token(s, len, add_evidence, &ev);
	sc = main_script(&ev);
	if (sc == TEXT_SCRIPT_NONE)
		return true;
	if (!(l->scripts & (1u << sc)))
		return false;
	for (size_t i = 1; i < ARRAY_SIZE(langs); i++)
		if (i != li && langs[i].scripts & (1u << sc) && ev.hits[i] > ev.hits[li])
			return false;
	return true;
}


const struct lang *lang_detect(const char *s, size_t len)
{
	struct lang_evidence ev;

	memset(&ev, 0, sizeof(ev));
	text_each_token(s, len, add_evidence, &ev);
	return lang_evidence_result(&ev);
}
