/*
 * selfref: phrases by which a question refers to its source (see selfref.h).
 *
 * The lists (selfref_sources, generated from core/text/selfref/<code>.txt)
 * are normalised once into one table; a lookup normalises the question the
 * same way and tries every phrase with strstr and the boundary rules. A few
 * hundred short phrases against a question of at most a few hundred bytes:
 * no index is needed.
 */
#include "text/selfref.h"
#include "text/stopwords.h"
#include "text/text.h"
#include "base/utf8.h"
#include "base/util.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

extern const struct stopword_source selfref_sources[];

struct phrase {
	char *norm;           /* normalised, without the final '*' */
	size_t len;
	bool prefix;          /* ended in '*': no boundary after it */
	const char *lang;     /* the list's code */
	char *shown;          /* as written */
};

static struct phrase *phrases;
static size_t nr_phrases, alloc_phrases;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/*
 * Return the normalised form of 'len' bytes of 's': NFKC, case folded,
 * whitespace runs collapsed, punctuation kept even at the end
 * (text_normalize_query drops trailing punctuation, so a sentinel letter
 * is appended and cut off again). Caller frees.
 */
static char *normalise(const char *s, size_t len)
{
	char *tmp = xmalloc(len + 3), *out;
	size_t n;

	memcpy(tmp, s, len);
	memcpy(tmp + len, " z", 3);
	out = text_normalize_query(tmp, len + 2);
	free(tmp);
	n = strlen(out);
	if (n && out[n - 1] == 'z')
		out[--n] = '\0';
	while (n && out[n - 1] == ' ')
		out[--n] = '\0';
	return out;
}

static void load(void)
{
	for (const struct stopword_source *src = selfref_sources; src->code; src++) {
		const char *p = src->words;

		while (*p) {
			const char *end = strchr(p, '\n');
			size_t n = end ? (size_t)(end - p) : strlen(p);
			struct phrase ph;

			memset(&ph, 0, sizeof(ph));
			ph.shown = xstrndup(p, n);
			ph.lang = src->code;
			if (n && p[n - 1] == '*') {
				ph.prefix = true;
				n--;
			}
			ph.norm = normalise(p, n);
			ph.len = strlen(ph.norm);
			if (ph.len) {
				ALLOC_GROW(phrases, nr_phrases + 1, alloc_phrases);
				phrases[nr_phrases++] = ph;
			} else {
				free(ph.norm);
				free(ph.shown);
			}
			p += n + (p[n] == '*') + (end != NULL);
		}
	}
}

/* Is code point 'cp' a letter or digit of a script written with spaces between words? */
static bool spaced_word_char(utf8proc_int32_t cp)
{
	utf8proc_category_t cat = utf8proc_category(cp);

	if (cat < UTF8PROC_CATEGORY_LU || cat > UTF8PROC_CATEGORY_NO)
		return false;
	switch (text_script_of(cp)) {
	case TEXT_SCRIPT_HAN: case TEXT_SCRIPT_KANA: case TEXT_SCRIPT_HANGUL:
	case TEXT_SCRIPT_THAI: case TEXT_SCRIPT_LAO: case TEXT_SCRIPT_KHMER:
	case TEXT_SCRIPT_MYANMAR:
		return false;
	default:
		return true;
	}
}

/* The code point that starts at 's' (max 'n' bytes), or -1. */
static utf8proc_int32_t cp_at(const char *s, size_t n)
{
	uint32_t cp;

	if (!n || !utf8_decode(s, n, &cp))
		return -1;
	return (utf8proc_int32_t)cp;
}

/* The code point that ends just before 's + off', or -1. */
static utf8proc_int32_t cp_before(const char *s, size_t off)
{
	size_t b;

	if (!off)
		return -1;
	b = utf8_floor(s, off - 1);
	return cp_at(s + b, off - b);
}

/* Does phrase 'ph' occur in 'q' ('n' bytes) with its boundaries? */
static bool occurs(const struct phrase *ph, const char *q, size_t n)
{
	utf8proc_int32_t first = cp_at(ph->norm, ph->len);
	utf8proc_int32_t last = cp_before(ph->norm, ph->len);
	bool left = spaced_word_char(first), right = !ph->prefix && spaced_word_char(last);

	for (const char *at = strstr(q, ph->norm); at; at = strstr(at + 1, ph->norm)) {
		size_t off = (size_t)(at - q), end = off + ph->len;

		if (left && off && spaced_word_char(cp_before(q, off)))
			continue;
		if (right && end < n && spaced_word_char(cp_at(q + end, n - end)))
			continue;
		return true;
	}
	return false;
}

const char *text_source_reference(const char *text, size_t len, const char **lang)
{
	char *q;
	size_t n;
	const char *found = NULL;

	pthread_once(&once, load);
	q = normalise(text, len);
	n = strlen(q);
	for (size_t i = 0; i < nr_phrases && !found; i++)
		if (occurs(&phrases[i], q, n)) {
			found = phrases[i].shown;
			if (lang)
				*lang = phrases[i].lang;
		}
	free(q);
	return found;
}
