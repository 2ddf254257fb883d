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
 * (including "version 1.2.3.4"), prices, decimals, negative numbers (error
 * codes such as -2147024891), hexadecimal codes, and ISBNs whose check digit
 * is right. Detection is a single left-to-right pass over bytes; a span is
 * only taken where it starts and ends at a word boundary, so "KB5034441" or
 * "abc@" inside a longer token is not cut in half. Non-ASCII bytes are copied
 * through untouched.
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

struct pii_counts {
	unsigned long n[PII_NR_KINDS];
};

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

/* Return non-zero when the digits of 'digits' ('n' of them, '0'..'9') pass the Luhn check. */
int pii_luhn_ok(const char *digits, size_t n);

#endif
