/*
 * pii-internal: what the detectors of personal data (text/pii-detect.c)
 * share with the redaction pass (text/pii.c), and nothing else uses. Each
 * detector looks at one start position that is a word boundary and returns
 * the length of the span it recognises there, or 0 (see pii.c for the
 * order they are tried in and the rules they share).
 */
#ifndef EVALSET_PII_INTERNAL_H
#define EVALSET_PII_INTERNAL_H

#include <stddef.h>

static inline int is_digit(int c) { return c >= '0' && c <= '9'; }
static inline int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static inline int is_alnum(int c) { return is_digit(c) || is_alpha(c); }
static inline int is_word(int c) { return is_alnum(c) || c == '_'; }
static inline int is_hex(int c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
static inline int lower(int c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }


/*
 * Find the e-mail address around the '@' at 'at' of 's': set [*b, *e) and
 * return 1, or return 0. A local part may begin with a letter of any script.
 */
int pii_email_at(const char *s, size_t len, size_t at, size_t *b, size_t *e);
/* The detectors, each at position 'i' of 's' ('len' bytes): a span's length, or 0. */
size_t pii_match_iban(const char *s, size_t len, size_t i);
size_t pii_match_ipv6(const char *s, size_t len, size_t i);
size_t pii_match_ipv4(const char *s, size_t len, size_t i);
size_t pii_match_card(const char *s, size_t len, size_t i);
size_t pii_match_phone(const char *s, size_t len, size_t i);
size_t pii_match_number(const char *s, size_t len, size_t i);

#endif
