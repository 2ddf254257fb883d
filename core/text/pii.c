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
 *
 * The detectors are in pii-detect.c; this file holds the pass, the spans
 * found before it and the user patterns, and calls the detectors.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "text/pii.h"
#include "text/pii-internal.h"
#include "base/error.h"
#include "base/util.h"

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
		if (pii_email_at(s, len, (size_t)(at - s), &b, &e) && !overlaps(sp, b, e))
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
			if (is_alpha(c) && (n = pii_match_iban(s, len, i)))
				kind = PII_IBAN;
			else if ((is_hex(c) || c == ':') && (n = pii_match_ipv6(s, len, i)))
				kind = PII_IPV6;
			else if (is_digit(c) && (n = pii_match_ipv4(s, len, i)))
				kind = PII_IPV4;
			else if (is_digit(c) && (n = pii_match_card(s, len, i)))
				kind = PII_CARD;
			else if ((n = pii_match_phone(s, len, i)))
				kind = PII_PHONE;
			else if (is_digit(c) && (n = pii_match_number(s, len, i)))
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
