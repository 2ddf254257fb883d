/*
 * stem: the Porter (1980) suffix-stripping algorithm (see stem.h).
 *
 * Vocabulary of the paper, used in the comments below: a consonant is a
 * letter other than a, e, i, o, u, and other than a y preceded by a
 * consonant. Any word is [C](VC)^m[V], where C and V are runs of consonants
 * and vowels; m is its "measure". *v*: the stem holds a vowel. *d: it ends
 * with a double consonant. *o: it ends consonant-vowel-consonant where the
 * last consonant is not w, x or y.
 *
 * Within one step only the rule with the longest matching suffix is
 * considered; when its condition fails the step does nothing (so "cement"
 * keeps its "ement" even though "ent" would qualify).
 *
 * The word is edited in place and only ever gets shorter or, when a rule
 * appends an 'e' or a replacement, no longer than it was on entering the
 * step (every replacement is shorter than the suffix it replaces).
 */
#include "text/stem.h"

#include <stdbool.h>
#include <string.h>

struct rule {
	const char *suffix;
	const char *repl;
};

static bool is_cons(const char *b, size_t i)
{
	switch (b[i]) {
	case 'a': case 'e': case 'i': case 'o': case 'u':
		return false;
	case 'y':
		return i == 0 ? true : !is_cons(b, i - 1);
	default:
		return true;
	}
}

/* Return m of the first 'n' letters of 'b'. */
static int measure(const char *b, size_t n)
{
	size_t i = 0;
	int m = 0;

	while (i < n && is_cons(b, i))
		i++;
	while (i < n) {
		while (i < n && !is_cons(b, i))
			i++;
		if (i >= n)
			break;
		m++;
		while (i < n && is_cons(b, i))
			i++;
	}
	return m;
}

/* *v*: the first 'n' letters hold a vowel. */
static bool has_vowel(const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!is_cons(b, i))
			return true;
	return false;
}

/* *d: the first 'n' letters end with a double consonant. */
static bool double_cons(const char *b, size_t n)
{
	return n >= 2 && b[n - 1] == b[n - 2] && is_cons(b, n - 1);
}

/* *o: the first 'n' letters end cvc, the last c not w, x or y. */
static bool cvc(const char *b, size_t n)
{
	if (n < 3 || !is_cons(b, n - 3) || is_cons(b, n - 2) || !is_cons(b, n - 1))
		return false;
	return b[n - 1] != 'w' && b[n - 1] != 'x' && b[n - 1] != 'y';
}

static bool ends(const char *b, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);
	return n <= len && !memcmp(b + len - n, suffix, n);
}

/* Return the rule of 'rules' with the longest suffix ending 'b', or NULL. */
static const struct rule *longest(const char *b, size_t len, const struct rule *rules, size_t nr)
{
	const struct rule *best = NULL;

	for (size_t i = 0; i < nr; i++)
		if (ends(b, len, rules[i].suffix) &&
		    (!best || strlen(rules[i].suffix) > strlen(best->suffix)))
			best = &rules[i];
	return best;
}

/* Replace the suffix of 'r' by its replacement; return the new length. */
static size_t replace(char *b, size_t len, const struct rule *r)
{
	size_t stem = len - strlen(r->suffix), n = strlen(r->repl);

	memcpy(b + stem, r->repl, n);
	return stem + n;
}

/* Step 1a: plurals. SSES -> SS, IES -> I, SS -> SS, S -> "". */
static size_t step1a(char *b, size_t len)
{
	if (ends(b, len, "sses") || ends(b, len, "ies"))
		return len - 2;
	if (ends(b, len, "ss"))
		return len;
	if (ends(b, len, "s"))
		return len - 1;
	return len;
}

/*
 * Step 1b: past tenses and participles. (m>0) EED -> EE; (*v*) ED -> "";
 * (*v*) ING -> "". When ED or ING went: AT -> ATE, BL -> BLE, IZ -> IZE,
 * (*d and not *L, *S, *Z) -> single letter, (m=1 and *o) -> E.
 */
static size_t step1b(char *b, size_t len)
{
	if (ends(b, len, "eed")) {
		if (measure(b, len - 3) > 0)
			len--;
		return len;
	}
	if (ends(b, len, "ed") && has_vowel(b, len - 2))
		len -= 2;
	else if (ends(b, len, "ing") && has_vowel(b, len - 3))
		len -= 3;
	else
		return len;

	if (ends(b, len, "at") || ends(b, len, "bl") || ends(b, len, "iz")) {
		b[len++] = 'e';
	} else if (double_cons(b, len) && b[len - 1] != 'l' && b[len - 1] != 's' &&
		   b[len - 1] != 'z') {
		len--;
	} else if (measure(b, len) == 1 && cvc(b, len)) {
		b[len++] = 'e';
	}
	return len;
}

/* Step 1c: (*v*) Y -> I. */
static size_t step1c(char *b, size_t len)
{
	if (ends(b, len, "y") && has_vowel(b, len - 1))
		b[len - 1] = 'i';
	return len;
}

static const struct rule step2_rules[] = {
	{ "ational", "ate" }, { "tional", "tion" }, { "enci", "ence" },
	{ "anci", "ance" }, { "izer", "ize" }, { "abli", "able" },
	{ "alli", "al" }, { "entli", "ent" }, { "eli", "e" },
	{ "ousli", "ous" }, { "ization", "ize" }, { "ation", "ate" },
	{ "ator", "ate" }, { "alism", "al" }, { "iveness", "ive" },
	{ "fulness", "ful" }, { "ousness", "ous" }, { "aliti", "al" },
	{ "iviti", "ive" }, { "biliti", "ble" },
};

static const struct rule step3_rules[] = {
	{ "icate", "ic" }, { "ative", "" }, { "alize", "al" }, { "iciti", "ic" },
	{ "ical", "ic" }, { "ful", "" }, { "ness", "" },
};

static const struct rule step4_rules[] = {
	{ "al", "" }, { "ance", "" }, { "ence", "" }, { "er", "" }, { "ic", "" },
	{ "able", "" }, { "ible", "" }, { "ant", "" }, { "ement", "" },
	{ "ment", "" }, { "ent", "" }, { "ion", "" }, { "ou", "" }, { "ism", "" },
	{ "ate", "" }, { "iti", "" }, { "ous", "" }, { "ive", "" }, { "ize", "" },
};

/* Steps 2 and 3: (m>0) SUFFIX -> REPLACEMENT from 'rules'. */
static size_t step_m0(char *b, size_t len, const struct rule *rules, size_t nr)
{
	const struct rule *r = longest(b, len, rules, nr);

	if (r && measure(b, len - strlen(r->suffix)) > 0)
		len = replace(b, len, r);
	return len;
}

/* Step 4: (m>1) SUFFIX -> "", and (m>1 and (*S or *T)) ION -> "". */
static size_t step4(char *b, size_t len)
{
	const struct rule *r = longest(b, len, step4_rules,
				       sizeof(step4_rules) / sizeof(step4_rules[0]));
	size_t stem;

	if (!r)
		return len;
	stem = len - strlen(r->suffix);
	if (measure(b, stem) <= 1)
		return len;
	if (!strcmp(r->suffix, "ion") && (stem == 0 || (b[stem - 1] != 's' && b[stem - 1] != 't')))
		return len;
	return stem;
}

/* Step 5a: (m>1) E -> "", (m=1 and not *o) E -> ". Step 5b: (m>1 and *d and *L) -> single letter. */
static size_t step5(char *b, size_t len)
{
	if (ends(b, len, "e")) {
		int m = measure(b, len - 1);
		if (m > 1 || (m == 1 && !cvc(b, len - 1)))
			len--;
	}
	if (b[len - 1] == 'l' && double_cons(b, len) && measure(b, len) > 1)
		len--;
	return len;
}

size_t porter_stem(char *word, size_t len)
{
	if (len <= 2)
		return len;
	for (size_t i = 0; i < len; i++)
		if (word[i] < 'a' || word[i] > 'z')
			return len;
	len = step1a(word, len);
	len = step1b(word, len);
	len = step1c(word, len);
	len = step_m0(word, len, step2_rules, sizeof(step2_rules) / sizeof(step2_rules[0]));
	len = step_m0(word, len, step3_rules, sizeof(step3_rules) / sizeof(step3_rules[0]));
	len = step4(word, len);
	len = step5(word, len);
	return len;
}
