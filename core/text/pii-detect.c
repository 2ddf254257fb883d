/*
 * pii-detect: the detectors of personal data the redaction pass of
 * text/pii.c tries at each word boundary: e-mail addresses (from their
 * '@'), IBANs (mod 97), IPv6 and IPv4 addresses, card numbers (Luhn),
 * phone numbers (international and national formats) and long digit runs,
 * with the look-alikes each must leave alone (versions, decimals, ISBNs,
 * error codes, amounts). Called by pii.c; calls nothing of it.
 */
#include "text/pii.h"
#include "text/pii-internal.h"
#include "text/text.h"
#include "base/utf8.h"
#include "base/util.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

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
	uint32_t cp;
	size_t k = utf8_decode(s + i, len - i, &cp);

	*n = k ? k : 1;
	return k ? (int32_t)cp : -1;
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
int pii_email_at(const char *s, size_t len, size_t at, size_t *b, size_t *e)
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

size_t pii_match_iban(const char *s, size_t len, size_t i)
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

size_t pii_match_ipv6(const char *s, size_t len, size_t i)
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

size_t pii_match_ipv4(const char *s, size_t len, size_t i)
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

size_t pii_match_card(const char *s, size_t len, size_t i)
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

size_t pii_match_phone(const char *s, size_t len, size_t i)
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

size_t pii_match_number(const char *s, size_t len, size_t i)
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
