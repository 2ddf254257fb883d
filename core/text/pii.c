/*
 * pii: detectors for personal data in log queries, and the redaction pass.
 *
 * Every detector looks at one start position that is a word boundary and
 * returns the length of the span it recognises there, or 0. The pass tries
 * them in a fixed order (e-mail, IBAN, IPv6, IPv4, card, phone, number), so a
 * card number is never also counted as a long digit run. Detectors that
 * start on a digit refuse to start in the middle of a number (after a digit,
 * '.', ',' or '-'), which is what keeps decimals, version numbers and
 * negative error codes intact. A span must also end at a boundary.
 *
 * Before the pass: text with non-ASCII bytes is mapped to NFKC (utf8proc),
 * and the spans that are not found position by position are collected
 * first: the matches of the user patterns (PCRE2), then e-mail addresses,
 * found from each '@' outwards since a local part may begin with any
 * letter of any script. The pass copies those spans out as placeholders and
 * lets no other detector start inside one or run into one.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "text/pii.h"
#include "text/text.h"
#include "base/error.h"
#include "base/util.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

static const char *const kind_names[PII_NR_KINDS] = {
	"email", "phone", "card", "ipv4", "ipv6", "iban", "number",
};
static const char *const placeholders[PII_NR_KINDS] = {
	"[EMAIL]", "[PHONE]", "[CARD]", "[IP]", "[IP]", "[IBAN]", "[NUMBER]",
};

const char *pii_kind_name(enum pii_kind k)
{
	return k < PII_NR_KINDS ? kind_names[k] : "?";
}

const char *pii_placeholder(enum pii_kind k)
{
	return k < PII_NR_KINDS ? placeholders[k] : "[PII]";
}

static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_alnum(int c) { return is_digit(c) || is_alpha(c); }
static int is_word(int c) { return is_alnum(c) || c == '_'; }
static int is_hex(int c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
static int lower(int c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }

/* True when the span [i, i+n) of 's' ends at a word boundary. */
static int ends_clean(const char *s, size_t len, size_t end)
{
	return end >= len || !is_word((unsigned char)s[end]);
}

/* True when position 'i' is inside a number: after a digit, or after '.', ','
 * or '-' that follow a digit, or after a minus sign of a negative number. */
static int inside_number(const char *s, size_t i)
{
	if (!i)
		return 0;
	unsigned char p = (unsigned char)s[i - 1];
	if (is_digit(p))
		return 1;
	if (p == '-' && (i < 2 || !is_alnum((unsigned char)s[i - 2])))
		return 1;  /* a minus sign: -2147024891 */
	if ((p == '.' || p == ',' || p == '-') && i >= 2 && is_digit((unsigned char)s[i - 2]))
		return 1;
	return 0;
}

/* True when the number at 'i' continues past 'end' ("1.2.3.4.5", "10-20-30"). */
static int number_continues(const char *s, size_t len, size_t end)
{
	if (end >= len)
		return 0;
	unsigned char c = (unsigned char)s[end];
	if (is_word(c))
		return 1;
	if ((c == '.' || c == '-' || c == ',') && end + 1 < len && is_digit((unsigned char)s[end + 1]))
		return 1;
	return 0;
}

int pii_luhn_ok(const char *digits, size_t n)
{
	int sum = 0;
	for (size_t k = 0; k < n; k++) {
		int d = digits[n - 1 - k] - '0';
		if (k % 2) {
			d *= 2;
			if (d > 9)
				d -= 9;
		}
		sum += d;
	}
	return n > 0 && sum % 10 == 0;
}

/* True for 13 digits that form a valid ISBN-13 (prefix 978 or 979). */
static int isbn13_ok(const char *d, size_t n)
{
	int sum = 0;
	if (n != 13 || d[0] != '9' || d[1] != '7' || (d[2] != '8' && d[2] != '9'))
		return 0;
	for (size_t k = 0; k < 13; k++)
		sum += (d[k] - '0') * (k % 2 ? 3 : 1);
	return sum % 10 == 0;
}

/* True for 10 characters (digits, last may be X) that form a valid ISBN-10. */
static int isbn10_ok(const char *d, size_t n)
{
	int sum = 0;
	if (n != 10)
		return 0;
	for (size_t k = 0; k < 10; k++) {
		int v = (k == 9 && lower((unsigned char)d[k]) == 'x') ? 10 : d[k] - '0';
		if (v < 0 || v > 10)
			return 0;
		sum += v * (int)(10 - k);
	}
	return sum % 11 == 0;
}

/* True when the word before position 'i' (skipping spaces, ':' and '#') is
 * one of 'words'; compared case-insensitively. */
static int preceded_by(const char *s, size_t i, const char *const *words)
{
	size_t e = i;
	while (e > 0 && (s[e - 1] == ' ' || s[e - 1] == ':' || s[e - 1] == '#'))
		e--;
	size_t b = e;
	while (b > 0 && is_alpha((unsigned char)s[b - 1]))
		b--;
	if (b == e)
		return 0;
	for (size_t w = 0; words[w]; w++) {
		size_t n = strlen(words[w]);
		if (n != e - b)
			continue;
		size_t k;
		for (k = 0; k < n && lower((unsigned char)s[b + k]) == words[w][k]; k++)
			;
		if (k == n)
			return 1;
	}
	return 0;
}

static const char *const version_words[] = {
	"version", "ver", "v", "release", "build", "firmware", "rev", "revision", NULL
};
static const char *const isbn_words[] = { "isbn", "isbn10", "isbn13", NULL };

/* Return the code point at 's'[i] ('len' bytes) and its length in '*n'
 * (1 for an invalid byte, returned as -1). */
static int32_t cp_at(const char *s, size_t len, size_t i, size_t *n)
{
	utf8proc_int32_t cp;
	utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + i, (utf8proc_ssize_t)(len - i), &cp);

	*n = k > 0 ? (size_t)k : 1;
	return k > 0 ? cp : -1;
}

/* True for a letter, mark or digit outside ASCII. */
static int is_intl_alnum(int32_t cp)
{
	if (cp < 0x80)
		return 0;
	switch (utf8proc_category(cp)) {
	case UTF8PROC_CATEGORY_LU: case UTF8PROC_CATEGORY_LL: case UTF8PROC_CATEGORY_LT:
	case UTF8PROC_CATEGORY_LM: case UTF8PROC_CATEGORY_LO: case UTF8PROC_CATEGORY_MN:
	case UTF8PROC_CATEGORY_MC: case UTF8PROC_CATEGORY_ND:
		return 1;
	default:
		return 0;
	}
}

/* True for a letter of a script written without spaces between words: such
 * a letter next to an ASCII address is the sentence around it. */
static int unspaced(int32_t cp)
{
	switch (text_script_of(cp)) {
	case TEXT_SCRIPT_HAN: case TEXT_SCRIPT_KANA: case TEXT_SCRIPT_HANGUL: case TEXT_SCRIPT_THAI:
	case TEXT_SCRIPT_LAO: case TEXT_SCRIPT_KHMER: case TEXT_SCRIPT_MYANMAR:
		return 1;
	default:
		return 0;
	}
}

/* Start of the UTF-8 character that ends just before 'i'. */
static size_t prev_start(const char *s, size_t i)
{
	size_t b = i - 1;

	while (b > 0 && ((unsigned char)s[b] & 0xC0) == 0x80 && i - b < 4)
		b--;
	return b;
}

/*
 * Find the e-mail address around the '@' at 'at': the local part is the run
 * before it of ASCII letters, digits and "._%+-" or letters of any script;
 * the domain the labels after it (ASCII letters, digits, '-' or letters of
 * any script) joined by '.', the last one of two letters or more. Where
 * letters of a script written without spaces touch an address that is
 * ASCII next to its '@' ("メールはjohn@example.comです"), they are the
 * sentence around it, not part of the address.
 * Return 1 and the span in '*b', '*e', or 0.
 */
static int email_at(const char *s, size_t len, size_t at, size_t *b, size_t *e)
{
	size_t i = at, p = at + 1, n, last_dot = 0, d = at + 1;
	int ascii_local = at > 0 && !((unsigned char)s[at - 1] & 0x80);
	int ascii_dom = p < len && !((unsigned char)s[p] & 0x80);

	/* local part, leftwards */
	while (i > 0) {
		size_t q = prev_start(s, i);
		int32_t cp = cp_at(s, len, q, &n);
		if (cp < 0x80 && cp >= 0 ? !(isalnum(cp) || strchr("._%+-", cp) || cp == '_')
					 : (!is_intl_alnum(cp) || (ascii_local && unspaced(cp))))
			break;
		i = q;
	}
	while (i < at && s[i] == '.')
		i++;
	if (i == at || s[at - 1] == '.')
		return 0;
	/* domain, rightwards */
	while (p < len) {
		int32_t cp = cp_at(s, len, p, &n);
		if (cp >= 0 && cp < 0x80) {
			if (!(isalnum(cp) || cp == '-' || cp == '.'))
				break;
		} else if (!is_intl_alnum(cp) || (ascii_dom && unspaced(cp))) {
			break;
		}
		p += n;
	}
	while (p > d && (s[p - 1] == '.' || s[p - 1] == '-'))
		p--;
	if (p == d || s[d] == '.' || s[d] == '-')
		return 0;
	for (size_t k = d; k < p; k++) {
		if (s[k] == '.') {
			if (s[k - 1] == '.')
				return 0;
			last_dot = k;
		}
	}
	if (!last_dot)
		return 0;
	/* the top-level label: letters only, two or more */
	{
		size_t chars = 0;
		for (size_t k = last_dot + 1; k < p; k += n) {
			int32_t cp = cp_at(s, len, k, &n);
			if (cp < 0x80 ? !isalpha(cp) : !is_intl_alnum(cp))
				return 0;
			chars++;
		}
		if (chars < 2)
			return 0;
	}
	/* an ASCII address must not run into a word ("x@example.com2") */
	if (p < len && !((unsigned char)s[p] & 0x80) && (isalnum((unsigned char)s[p]) || s[p] == '_'))
		return 0;
	if (i > 0 && !((unsigned char)s[i - 1] & 0x80) && s[i - 1] == '_')
		return 0;
	*b = i;
	*e = p;
	return 1;
}

static int iban_mod97(const char *c, size_t n)
{
	unsigned rem = 0;
	for (size_t k = 0; k < n; k++) {
		int ch = (unsigned char)c[(k + 4) % n];
		if (is_digit(ch)) {
			rem = (rem * 10 + (unsigned)(ch - '0')) % 97;
		} else {
			unsigned v = (unsigned)(lower(ch) - 'a' + 10);
			rem = (rem * 100 + v) % 97;
		}
	}
	return rem == 1;
}

static size_t match_iban(const char *s, size_t len, size_t i)
{
	char chars[35];
	size_t ends[35];  /* ends[k]: span length after k+1 chars */
	size_t n = 0, p = i;

	if (i + 4 > len || !is_alpha((unsigned char)s[i]) || !is_alpha((unsigned char)s[i + 1]) ||
	    !is_digit((unsigned char)s[i + 2]) || !is_digit((unsigned char)s[i + 3]))
		return 0;
	while (p < len && n < 34) {
		unsigned char c = (unsigned char)s[p];
		if (is_alnum(c)) {
			chars[n] = (char)c;
			ends[n++] = p + 1 - i;
			p++;
		} else if (c == ' ' && n % 4 == 0 && p + 1 < len && is_alnum((unsigned char)s[p + 1])) {
			p++;
		} else {
			break;
		}
	}
	for (size_t k = n; k >= 15; k--) {
		size_t end = i + ends[k - 1];
		if (!ends_clean(s, len, end))
			continue;
		int letters = 0;
		for (size_t m = 4; m < k; m++)
			letters += is_alpha((unsigned char)chars[m]);
		if (iban_mod97(chars, k) && letters <= (int)k / 2)
			return ends[k - 1];
	}
	return 0;
}

static size_t match_ipv6(const char *s, size_t len, size_t i)
{
	char tmp[64];
	size_t p = i;
	unsigned char in6[16];

	if (i > 0 && s[i - 1] == ':')
		return 0;
	while (p < len && p - i < 45 && (is_hex((unsigned char)s[p]) || s[p] == ':' || s[p] == '.'))
		p++;
	for (size_t end = p; end > i + 2; end--) {
		if (end < len && (is_word((unsigned char)s[end]) ||
				  (is_hex((unsigned char)s[end]) && is_hex((unsigned char)s[end - 1]))))
			continue;
		if (end < len && end < p && is_hex((unsigned char)s[end]))
			continue;
		size_t n = end - i, colons = 0, digits = 0;
		for (size_t k = i; k < end; k++) {
			colons += s[k] == ':';
			digits += is_digit((unsigned char)s[k]);
		}
		if (colons < 2 || !digits)
			continue;
		memcpy(tmp, s + i, n);
		tmp[n] = '\0';
		if (inet_pton(AF_INET6, tmp, in6) == 1)
			return n;
	}
	return 0;
}

static size_t match_ipv4(const char *s, size_t len, size_t i)
{
	size_t p = i;
	int parts = 0;

	if (inside_number(s, i) || preceded_by(s, i, version_words))
		return 0;
	for (;;) {
		size_t b = p;
		unsigned v = 0;
		while (p < len && is_digit((unsigned char)s[p]) && p - b < 4)
			v = v * 10 + (unsigned)(s[p++] - '0');
		if (p == b || p - b > 3 || v > 255 || (p - b > 1 && s[b] == '0'))
			return 0;
		if (++parts == 4)
			break;
		if (p >= len || s[p] != '.')
			return 0;
		p++;
	}
	if (number_continues(s, len, p))
		return 0;
	return p - i;
}

static size_t match_card(const char *s, size_t len, size_t i)
{
	char digits[20];
	size_t ends[20];    /* span length after each digit */
	int group_end[20];  /* digit k ends a group */
	size_t n = 0, p = i, group = 0;

	if (inside_number(s, i))
		return 0;
	while (p < len && n < 19) {
		unsigned char c = (unsigned char)s[p];
		if (is_digit(c)) {
			digits[n] = (char)c;
			group_end[n] = 0;
			ends[n++] = ++p - i;
			group++;
		} else if ((c == ' ' || c == '-') && group >= 3 && p + 1 < len &&
			   is_digit((unsigned char)s[p + 1])) {
			group_end[n - 1] = 1;
			group = 0;
			p++;
		} else {
			break;
		}
	}
	if (n)
		group_end[n - 1] = 1;
	for (size_t k = n; k >= 13; k--) {
		size_t end = i + ends[k - 1];
		if (!group_end[k - 1] || number_continues(s, len, end))
			continue;
		/* the last group must be at least 3 digits too */
		size_t last = 0;
		for (size_t m = k; m > 0 && (m == k || !group_end[m - 1]); m--)
			last++;
		if (last < 3)
			continue;
		if (pii_luhn_ok(digits, k) && !isbn13_ok(digits, k))
			return ends[k - 1];
	}
	return 0;
}

/* Return the length of digit groups of the given sizes at 'i', split by one of 'seps', or 0. */
static size_t match_groups(const char *s, size_t len, size_t i, const int *sizes, int nr,
			   const char *seps)
{
	size_t p = i;
	for (int g = 0; g < nr; g++) {
		if (g) {
			if (p >= len || !strchr(seps, s[p]) || !s[p])
				return 0;
			p++;
		}
		for (int k = 0; k < sizes[g]; k++, p++)
			if (p >= len || !is_digit((unsigned char)s[p]))
				return 0;
	}
	if (number_continues(s, len, p))
		return 0;
	return p - i;
}

/*
 * Read digit groups at 'i' split by one kind of separator (' ', '-', '.' or
 * '/', the same throughout), at most 'max' groups; their lengths go to
 * 'glen', their number to '*ng', the digits to '*nd'. Return the span's
 * length.
 */
static size_t digit_groups(const char *s, size_t len, size_t i, int *glen, int max, int *ng, int *nd)
{
	size_t p = i, end = i;
	char sep = 0;
	int g = 0;

	glen[0] = 0;
	*nd = 0;
	while (p < len) {
		char c = s[p];
		if (is_digit((unsigned char)c)) {
			glen[g]++;
			(*nd)++;
			end = ++p;
		} else if ((c == ' ' || c == '-' || c == '.' || c == '/') && glen[g] && g + 1 < max &&
			   (!sep || sep == c) && p + 1 < len && is_digit((unsigned char)s[p + 1])) {
			sep = c;
			glen[++g] = 0;
			p++;
		} else {
			break;
		}
	}
	*ng = g + 1;
	return end - i;
}

/*
 * Phone numbers in national formats, at a digit: with a trunk zero, 9 to
 * 12 digits ("030 1234567", "06 12 34 56 78", "090-1234-5678",
 * "0612345678"); Chinese mobiles, 11 digits from 13-19 ("138 0013 8000",
 * "13800138000"); Indian mobiles in two groups of five ("98765 43210");
 * Spanish mobiles 6xx xx xx xx. Groups of two digits or more; groups of
 * exactly three after the first are thousands ("1 234 567"), not a phone,
 * unless the number starts with the trunk zero.
 */
static size_t match_national(const char *s, size_t len, size_t i)
{
	int glen[5], ng, nd;
	size_t n = digit_groups(s, len, i, glen, 5, &ng, &nd);
	int thousands = ng >= 2 && glen[0] <= 3;

	if (!n || number_continues(s, len, i + n) || preceded_by(s, i, version_words))
		return 0;
	if (ng == 3 && glen[0] == 3 && glen[1] == 2 && glen[2] == 4)
		return 0;  /* the US SSN shape: a number */
	for (int g = 0; g < ng; g++) {
		if (glen[g] < 2)
			return 0;
		if (g && glen[g] != 3)
			thousands = 0;
	}
	if (s[i] == '0') {
		if (nd < 9 || nd > 12)
			return 0;
		if (ng == 1 && (nd < 10 || nd > 11 || (nd == 10 && isbn10_ok(s + i, 10))))
			return 0;
		return n;
	}
	if (thousands)
		return 0;
	if (s[i] == '1' && s[i + 1] >= '3' && nd == 11 &&
	    (ng == 1 || (ng == 3 && glen[0] == 3 && glen[1] == 4)))
		return n;
	if (s[i] >= '6' && nd == 10 && ng == 2 && glen[0] == 5)
		return n;
	if ((s[i] == '6' || s[i] == '7') && nd == 9 && ng == 4 && glen[0] == 3)
		return n;
	return 0;
}

static size_t match_phone(const char *s, size_t len, size_t i)
{
	static const int nanp[] = { 3, 3, 4 };
	static const int nanp1[] = { 1, 3, 3, 4 };
	size_t p, n;

	if (s[i] == '+') {
		size_t digits = 0, last = 0, seps = 0;
		p = i + 1;
		if (p >= len || !is_digit((unsigned char)s[p]))
			return 0;
		/* digits with single separators; "(0) " style runs of two are fine */
		while (p < len) {
			unsigned char c = (unsigned char)s[p];
			if (is_digit(c)) {
				digits++;
				last = p + 1;
				seps = 0;
			} else if ((c == ' ' || c == '-' || c == '.' || c == '(' || c == ')') && ++seps <= 2) {
				;
			} else {
				break;
			}
			p++;
		}
		if (digits < 8 || digits > 15 || number_continues(s, len, last))
			return 0;
		return last - i;
	}
	if (s[i] == '(') {
		/* an area code in parentheses: "(555) 123-4567", "(030) 1234567", "(0)30 123456" */
		int glen[6], ng, nd;
		size_t area;
		p = i + 1;
		while (p < len && is_digit((unsigned char)s[p]) && p - i <= 5)
			p++;
		area = p - i - 1;
		if (!area || area > 5 || p >= len || s[p] != ')')
			return 0;
		p++;
		if (p < len && (s[p] == ' ' || s[p] == '-'))
			p++;
		if (p >= len || !is_digit((unsigned char)s[p]))
			return 0;
		n = digit_groups(s, len, p, glen, 3, &ng, &nd);
		if (!n || number_continues(s, len, p + n) || glen[ng - 1] < 3 ||
		    area + (size_t)nd < 8 || area + (size_t)nd > 12)
			return 0;
		for (int g = 0; g < ng; g++)
			if (glen[g] < 2)
				return 0;
		return p + n - i;
	}
	if (!is_digit((unsigned char)s[i]) || inside_number(s, i))
		return 0;
	if ((n = match_groups(s, len, i, nanp, 3, "-. ")))
		return n;
	if (s[i] == '1' && (n = match_groups(s, len, i, nanp1, 4, "-. ")))
		return n;
	return match_national(s, len, i);
}

static size_t match_number(const char *s, size_t len, size_t i)
{
	static const int ssn[] = { 3, 2, 4 };
	size_t p = i, n;

	if (!is_digit((unsigned char)s[i]) || inside_number(s, i))
		return 0;
	if ((n = match_groups(s, len, i, ssn, 3, "-")))
		return n;
	while (p < len && is_digit((unsigned char)s[p]))
		p++;
	n = p - i;
	if (n < 9)
		return 0;
	if (isbn13_ok(s + i, n))
		return 0;
	if (n == 9 && p < len && lower((unsigned char)s[p]) == 'x' && isbn10_ok(s + i, 10) &&
	    !number_continues(s, len, p + 1))
		return 0;
	if (n == 10 && isbn10_ok(s + i, 10) && preceded_by(s, i, isbn_words))
		return 0;
	if (number_continues(s, len, p))
		return 0;
	return n;
}

/* A span found before the pass: user pattern 'pat' (>= 0) or an e-mail (-1). */
struct span {
	size_t b, e;
	int pat;
};

struct spans {
	struct span *items;
	size_t nr, alloc;
};

/* True when [b, e) overlaps a span of 'sp'. */
static int overlaps(const struct spans *sp, size_t b, size_t e)
{
	for (size_t k = 0; k < sp->nr; k++)
		if (b < sp->items[k].e && sp->items[k].b < e)
			return 1;
	return 0;
}

static void span_add(struct spans *sp, size_t b, size_t e, int pat)
{
	ALLOC_GROW(sp->items, sp->nr + 1, sp->alloc);
	sp->items[sp->nr].b = b;
	sp->items[sp->nr].e = e;
	sp->items[sp->nr++].pat = pat;
}

static int cmp_span(const void *x, const void *y)
{
	const struct span *a = x, *b = y;
	return a->b < b->b ? -1 : a->b > b->b;
}

/* Collect the matches of the user patterns in 's', then the e-mail addresses. */
static void find_spans(const char *s, size_t len, const struct pii_patterns *pp, struct spans *sp)
{
	for (size_t k = 0; pp && k < pp->nr; k++) {
		pcre2_match_data *md = pcre2_match_data_create_from_pattern(pp->code[k], NULL);
		PCRE2_SIZE off = 0;

		while (off <= len && pcre2_match(pp->code[k], (PCRE2_SPTR)s, len, off, 0, md, NULL) > 0) {
			PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
			if (ov[1] <= ov[0])  /* refused when added; kept safe */
				break;
			if (!overlaps(sp, ov[0], ov[1]))
				span_add(sp, ov[0], ov[1], (int)k);
			off = ov[1];
		}
		pcre2_match_data_free(md);
	}
	for (const char *at = memchr(s, '@', len); at; at = memchr(at + 1, '@', len - (size_t)(at + 1 - s))) {
		size_t b, e;
		if (at + 1 >= s + len)
			break;
		if (email_at(s, len, (size_t)(at - s), &b, &e) && !overlaps(sp, b, e))
			span_add(sp, b, e, -1);
	}
	if (sp->nr > 1)
		qsort(sp->items, sp->nr, sizeof(*sp->items), cmp_span);
}

/* The pass over 's' (ASCII or normalised), as pii_redact_with describes. */
static size_t redact_pass(const char *s, size_t len, const struct pii_patterns *pp,
			  struct strbuf *out, struct pii_counts *counts)
{
	struct spans sp = { NULL, 0, 0 };
	size_t found = 0, i = 0, copied = 0, next = 0;

	find_spans(s, len, pp, &sp);
	strbuf_grow(out, len);
	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		size_t n = 0, limit = next < sp.nr ? sp.items[next].b : len;
		enum pii_kind kind = PII_NUMBER;
		const char *ph;

		if (i == limit && next < sp.nr) {
			const struct span *x = &sp.items[next++];
			strbuf_add(out, s + copied, i - copied);
			if (x->pat >= 0) {
				strbuf_addstr(out, pp->placeholder[x->pat]);
				if (counts)
					counts->custom[x->pat]++;
			} else {
				strbuf_addstr(out, placeholders[PII_EMAIL]);
				if (counts)
					counts->n[PII_EMAIL]++;
			}
			found++;
			i = copied = x->e;
			continue;
		}
		if ((i == 0 || !is_word((unsigned char)s[i - 1])) &&
		    (is_alnum(c) || c == '+' || c == '(' || c == ':')) {
			if (is_alpha(c) && (n = match_iban(s, len, i)))
				kind = PII_IBAN;
			else if ((is_hex(c) || c == ':') && (n = match_ipv6(s, len, i)))
				kind = PII_IPV6;
			else if (is_digit(c) && (n = match_ipv4(s, len, i)))
				kind = PII_IPV4;
			else if (is_digit(c) && (n = match_card(s, len, i)))
				kind = PII_CARD;
			else if ((n = match_phone(s, len, i)))
				kind = PII_PHONE;
			else if (is_digit(c) && (n = match_number(s, len, i)))
				kind = PII_NUMBER;
		}
		if (!n || i + n > limit) {
			i++;
			continue;
		}
		ph = placeholders[kind];
		strbuf_add(out, s + copied, i - copied);
		strbuf_addstr(out, ph);
		if (counts)
			counts->n[kind]++;
		found++;
		i += n;
		copied = i;
	}
	strbuf_add(out, s + copied, len - copied);
	free(sp.items);
	return found;
}

size_t pii_redact_with(const char *s, size_t len, const struct pii_patterns *pp,
		       struct strbuf *out, struct pii_counts *counts)
{
	utf8proc_uint8_t *mapped = NULL;
	utf8proc_ssize_t n;
	size_t found;
	int ascii = 1;

	for (size_t i = 0; i < len && ascii; i++)
		ascii = !((unsigned char)s[i] & 0x80);
	if (ascii || memchr(s, '\0', len))
		return redact_pass(s, len, pp, out, counts);
	/* full-width forms and other compatibility characters to their plain form */
	n = utf8proc_map((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)len, &mapped,
			 UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT);
	if (n < 0)  /* invalid UTF-8: look at the bytes as they are */
		return redact_pass(s, len, pp, out, counts);
	found = redact_pass((const char *)mapped, (size_t)n, pp, out, counts);
	free(mapped);
	return found;
}

size_t pii_redact(const char *s, size_t len, struct strbuf *out, struct pii_counts *counts)
{
	return pii_redact_with(s, len, NULL, out, counts);
}

int pii_patterns_add(struct pii_patterns *pp, const char *spec)
{
	const char *eq = strchr(spec, '=');
	size_t nlen = eq ? (size_t)(eq - spec) : 0;
	int errcode;
	PCRE2_SIZE erroff;
	pcre2_code *code;
	pcre2_match_data *md;
	char *ph;

	if (!eq || !nlen)
		return error("a PII pattern must look like NAME=REGEX, not '%s'", spec);
	for (size_t k = 0; k < nlen; k++)
		if (!isalnum((unsigned char)spec[k]) && spec[k] != '-' && spec[k] != '_')
			return error("PII pattern name '%.*s' may only hold letters, digits, '-' and '_'",
				     (int)nlen, spec);
	if (pp->nr >= PII_MAX_PATTERNS)
		return error("more than %d PII patterns", PII_MAX_PATTERNS);
	code = pcre2_compile((PCRE2_SPTR)(eq + 1), PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP,
			     &errcode, &erroff, NULL);
	if (!code) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(errcode, msg, sizeof(msg));
		return error("PII pattern '%.*s': %s at offset %zu of '%s'", (int)nlen, spec,
			     (const char *)msg, (size_t)erroff, eq + 1);
	}
	md = pcre2_match_data_create_from_pattern(code, NULL);
	if (pcre2_match(code, (PCRE2_SPTR)"", 0, 0, 0, md, NULL) >= 0) {
		pcre2_match_data_free(md);
		pcre2_code_free(code);
		return error("PII pattern '%.*s' matches the empty string", (int)nlen, spec);
	}
	pcre2_match_data_free(md);
	pp->name[pp->nr] = xstrndup(spec, nlen);
	ph = xstrfmt("[%s]", pp->name[pp->nr]);
	for (char *c = ph; *c; c++)
		*c = (char)toupper((unsigned char)*c);
	pp->placeholder[pp->nr] = ph;
	pp->code[pp->nr++] = code;
	return 0;
}

void pii_patterns_release(struct pii_patterns *pp)
{
	for (size_t k = 0; k < pp->nr; k++) {
		free(pp->name[k]);
		free(pp->placeholder[k]);
		pcre2_code_free(pp->code[k]);
	}
	memset(pp, 0, sizeof(*pp));
}
