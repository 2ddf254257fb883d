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
 */
#include "text/pii.h"

#include <arpa/inet.h>
#include <string.h>

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

static size_t match_email(const char *s, size_t len, size_t i)
{
	size_t p = i, at, d, last_dot = 0;
	while (p < len && (is_alnum((unsigned char)s[p]) || strchr("._%+-", s[p])))
		p++;
	if (p == i || p >= len || s[p] != '@' || s[i] == '.' || s[p - 1] == '.')
		return 0;
	at = p++;
	d = p;
	while (p < len && (is_alnum((unsigned char)s[p]) || s[p] == '.' || s[p] == '-'))
		p++;
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
	if (!last_dot || p - last_dot - 1 < 2)
		return 0;
	for (size_t k = last_dot + 1; k < p; k++)
		if (!is_alpha((unsigned char)s[k]))
			return 0;
	if (!ends_clean(s, len, p))
		return 0;
	(void)at;
	return p - i;
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
		p = i + 1;
		for (int k = 0; k < 3; k++, p++)
			if (p >= len || !is_digit((unsigned char)s[p]))
				return 0;
		if (p >= len || s[p] != ')')
			return 0;
		p++;
		if (p < len && (s[p] == ' ' || s[p] == '-'))
			p++;
		static const int rest[] = { 3, 4 };
		n = match_groups(s, len, p, rest, 2, "-. ");
		return n ? p + n - i : 0;
	}
	if (!is_digit((unsigned char)s[i]) || inside_number(s, i))
		return 0;
	if ((n = match_groups(s, len, i, nanp, 3, "-. ")))
		return n;
	if (s[i] == '1' && (n = match_groups(s, len, i, nanp1, 4, "-. ")))
		return n;
	if (s[i] == '0') {
		/* national format with a trunk 0: 2 to 4 space-separated groups, 10-11 digits */
		size_t digits = 0, groups = 0, glen = 0, end = i;
		p = i;
		while (p < len) {
			if (is_digit((unsigned char)s[p])) {
				digits++;
				glen++;
				end = ++p;
			} else if (s[p] == ' ' && glen >= 2 && p + 1 < len && is_digit((unsigned char)s[p + 1]) &&
				   groups < 3) {
				groups++;
				glen = 0;
				p++;
			} else {
				break;
			}
		}
		if (groups >= 1 && glen >= 3 && (digits == 10 || digits == 11) &&
		    !number_continues(s, len, end))
			return end - i;
	}
	return 0;
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

size_t pii_redact(const char *s, size_t len, struct strbuf *out, struct pii_counts *counts)
{
	size_t found = 0, i = 0, copied = 0;
	int has_at = memchr(s, '@', len) != NULL;

	strbuf_grow(out, len);
	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		size_t n = 0;
		enum pii_kind kind = PII_NUMBER;

		if ((i == 0 || !is_word((unsigned char)s[i - 1])) &&
		    (is_alnum(c) || c == '+' || c == '(' || c == ':')) {
			if (has_at && c != '+' && c != '(' && c != ':' && (n = match_email(s, len, i)))
				kind = PII_EMAIL;
			else if (is_alpha(c) && (n = match_iban(s, len, i)))
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
		if (!n) {
			i++;
			continue;
		}
		strbuf_add(out, s + copied, i - copied);
		strbuf_addstr(out, placeholders[kind]);
		if (counts)
			counts->n[kind]++;
		found++;
		i += n;
		copied = i;
	}
	strbuf_add(out, s + copied, len - copied);
	return found;
}
