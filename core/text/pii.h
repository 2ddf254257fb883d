/*
 * pii: find personal data in short texts (log queries) and redact it.
 *
 * Kinds and their placeholders: e-mail addresses "[EMAIL]", phone numbers
 * "[PHONE]", payment card numbers that pass the Luhn check "[CARD]", IPv4 and
 * IPv6 addresses "[IP]", IBANs that pass the ISO 13616 mod-97 check "[IBAN]",
 * and long digit runs (9 or more digits in a row, or a US SSN shape
 * ddd-dd-dddd) "[NUMBER]". docs/import.md lists the exact shapes.
 *
 * Near-misses are left alone on purpose: dates, times, version numbers
 * (including "version 1.2.3.4"), prices, decimals, amounts with grouped
 * thousands, negative numbers (error codes such as -2147024891),
 * hexadecimal codes, and ISBNs whose check digit is right. A span is only
 * taken where it starts and ends at a word boundary, so "KB5034441" or
 * "abc@" inside a longer token is not cut in half.
 *
 * Every script: text holding non-ASCII characters is first brought to NFKC
 * (full-width "ｊｏｈｎ＠ｅｘａｍｐｌｅ．ｃｏｍ" and "０９０−１２３４−５６７８" become
 * ASCII), and the output is that normalised text with the spans replaced.
 * E-mail addresses may have non-ASCII local parts and domains
 * ("josé@exemple.fr", "用户@例子.广告"); phone numbers are recognised in
 * international and national formats (area codes in parentheses, a
 * leading trunk zero, the common European and Asian mobile shapes).
 *
 * User patterns (struct pii_patterns): PCRE2 regular expressions (UTF
 * mode) given as NAME=REGEX; each match is replaced by "[NAME]" and counted
 * under its name. They run before the built-in detectors, on the
 * normalised text.
 */
#ifndef EVALSET_PII_H
#define EVALSET_PII_H

#include <stddef.h>

#include "base/strbuf.h"

enum pii_kind {
	PII_EMAIL,
	PII_PHONE,
	PII_CARD,
	PII_IPV4,
	PII_IPV6,
	PII_IBAN,
	PII_NUMBER,
	PII_NR_KINDS
};

#define PII_MAX_PATTERNS 16

struct pii_counts {
	unsigned long n[PII_NR_KINDS];
	unsigned long custom[PII_MAX_PATTERNS];  /* per user pattern, in order */
};

/* User patterns; PII_PATTERNS_INIT, filled by pii_patterns_add. Read-only
 * once filled: safe to share between threads. */
struct pii_patterns {
	char *name[PII_MAX_PATTERNS];         /* "customer-id" */
	char *placeholder[PII_MAX_PATTERNS];  /* "[CUSTOMER-ID]" */
	void *code[PII_MAX_PATTERNS];         /* pcre2_code */
	size_t nr;
};
#define PII_PATTERNS_INIT { { NULL }, { NULL }, { NULL }, 0 }

/*
 * Add the pattern 'spec' ("NAME=REGEX": NAME of letters, digits, '-' and
 * '_'). Return 0, or -1 after an error naming the problem (no '=', a bad
 * name, a regular expression that does not compile, with its offset, one
 * that matches the empty string, more than PII_MAX_PATTERNS).
 */
int pii_patterns_add(struct pii_patterns *pp, const char *spec);
void pii_patterns_release(struct pii_patterns *pp);

/* Return the kind's name for reports ("email", "phone", "card", "ipv4", ...). */
const char *pii_kind_name(enum pii_kind k);
/* Return the placeholder that replaces a span of kind 'k' ("[EMAIL]", ...). */
const char *pii_placeholder(enum pii_kind k);

/*
 * Append 'len' bytes of 's' to 'out' with every PII span replaced by its
 * placeholder, and add the number of spans of each kind to 'counts' (may be
 * NULL). Return the number of spans replaced (0: 's' was copied as is).
 */
size_t pii_redact(const char *s, size_t len, struct strbuf *out, struct pii_counts *counts);
/* pii_redact with the user patterns 'pp' too (may be NULL). */
size_t pii_redact_with(const char *s, size_t len, const struct pii_patterns *pp,
		       struct strbuf *out, struct pii_counts *counts);

/* Return non-zero when the digits of 'digits' ('n' of them, '0'..'9') pass the Luhn check. */
int pii_luhn_ok(const char *digits, size_t n);

#endif
