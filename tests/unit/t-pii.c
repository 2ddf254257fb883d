/*
 * t-pii: the PII scrubber, case by case and against the corpus in
 * tests/data/pii/ (marked PII that must go, near-misses that must stay).
 * Precision and recall over the corpus are printed as a TAP diagnostic and
 * held above floors.
 */
#include "test-lib.h"
#include "base/fsutil.h"
#include "text/pii.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *redact(const char *s, struct pii_counts *c)
{
	struct strbuf out = STRBUF_INIT;
	pii_redact(s, strlen(s), &out, c);
	return strbuf_detach(&out, NULL);
}

static void check(const char *in, const char *want, const char *what)
{
	char *got = redact(in, NULL);
	is_str(got, want, what);
	free(got);
}

static void test_cases(void)
{
	struct pii_counts c = { { 0 }, { 0 } };
	char *s;

	ok(pii_luhn_ok("4111111111111111", 16), "a documented Visa test number passes Luhn");
	ok(!pii_luhn_ok("4111111111111112", 16), "one changed digit fails Luhn");

	check("mail jane@example.com now", "mail [EMAIL] now", "an e-mail address is replaced");
	check("jane@example.com.", "[EMAIL].", "a sentence period is not part of the address");
	check("user@localhost", "user@localhost", "a host without a top-level domain is kept");
	check("card 4111 1111 1111 1111 ok", "card [CARD] ok", "a grouped card number is replaced");
	check("card 4111 1111 1111 1112 ok", "card 4111 1111 1111 1112 ok",
	      "a grouped number failing Luhn is not a card");
	check("id 4111111111111112", "id [NUMBER]", "an ungrouped non-card is still a long digit run");
	check("from 192.0.2.10, again", "from [IP], again", "an IPv4 address is replaced");
	check("from 256.1.1.1", "from 256.1.1.1", "an octet over 255 is not an address");
	check("version 1.2.3.4 broke", "version 1.2.3.4 broke", "a four-part version number stays");
	check("1.2.3.4.5 build", "1.2.3.4.5 build", "a five-part number is not an address");
	check("host 2001:db8::7 down", "host [IP] down", "an IPv6 address is replaced");
	check("at 10:30:45", "at 10:30:45", "a time is not an IPv6 address");
	check("GB82 WEST 1234 5698 7654 32", "[IBAN]", "an IBAN in print form is replaced");
	check("GB82 WEST 1234 5698 7654 33", "GB82 WEST 1234 5698 7654 33",
	      "an IBAN failing mod-97 is kept");
	check("call (415) 555-0100", "call [PHONE]", "a phone number with an area code in brackets");
	check("ssn 078-05-1120", "ssn [NUMBER]", "an SSN shape is a number");
	check("code -2147024891", "code -2147024891", "a negative error code stays");
	check("isbn 978-3-16-148410-0", "isbn 978-3-16-148410-0", "a hyphenated ISBN stays");
	/* 13 digits that are both a valid ISBN-13 and pass Luhn: a book, not a card */
	ok(pii_luhn_ok("9780375574108", 13), "this ISBN-13 also passes Luhn");
	check("see 9780375574108 for details", "see 9780375574108 for details",
	      "a bare ISBN-13 passing Luhn is not a card");
	check("ISBN 9782331859649.", "ISBN 9782331859649.", "nor after the word ISBN");
	check("ref 4111 1111 1117 ok", "ref 4111 1111 1117 ok",
	      "12 digits in groups passing Luhn are too short for a card");
	check("GB81 WEST 1234 5698 7654 32", "GB81 WEST 1234 5698 7654 32",
	      "an IBAN-shaped string whose mod-97 remainder is 0, not 1, is kept");
	check("ISBN 0306406152", "ISBN 0306406152", "a valid ISBN-10 after the word ISBN stays");
	check("account 0306406152 closed", "account [NUMBER] closed",
	      "10 digits that happen to form a valid ISBN-10, without the word, are a number");
	check("on 20261203 at noon", "on 20261203 at noon", "8 digits (a date) are not a long number");
	check("id 123456789 set", "id [NUMBER] set", "9 digits are");
	check("caf\xc3\xa9 123456789 ok", "caf\xc3\xa9 [NUMBER] ok", "UTF-8 text around a span is kept");
	check("", "", "an empty text stays empty");

	s = redact("a@b.co and c@d.co, 4242424242424242 and 203.0.113.9 and ::1", &c);
	is_int(c.n[PII_EMAIL], 2, "two e-mails counted");
	is_int(c.n[PII_CARD], 1, "one card counted");
	is_int(c.n[PII_IPV4], 1, "one IPv4 counted");
	is_int(c.n[PII_IPV6], 1, "one IPv6 counted");
	is_str(s, "[EMAIL] and [EMAIL], [CARD] and [IP] and [IP]", "every span replaced in one pass");
	free(s);
	is_str(pii_kind_name(PII_IBAN), "iban", "kind names are lower case words");
}

/* Return the next line of the buffer at '*p' (NUL-terminated in place), or NULL. */
static char *next_line(char **p)
{
	char *line = *p, *nl;
	if (!*line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl) {
		*nl = '\0';
		*p = nl + 1;
	} else {
		*p = line + strlen(line);
	}
	return line;
}

static int kind_of(const char *name, enum pii_kind *k)
{
	for (int i = 0; i < PII_NR_KINDS; i++)
		if (!strcmp(pii_kind_name((enum pii_kind)i), name)) {
			*k = (enum pii_kind)i;
			return 0;
		}
	return -1;
}

/* Build the query and the expected redaction from "text {{span}} text". */
static int unmark(const char *line, enum pii_kind k, struct strbuf *in, struct strbuf *want)
{
	int spans = 0;
	const char *p = line;
	while (*p) {
		const char *b = strstr(p, "{{"), *e;
		if (!b) {
			strbuf_addstr(in, p);
			strbuf_addstr(want, p);
			break;
		}
		e = strstr(b, "}}");
		if (!e)
			return -1;
		strbuf_add(in, p, (size_t)(b - p));
		strbuf_add(want, p, (size_t)(b - p));
		strbuf_add(in, b + 2, (size_t)(e - b - 2));
		strbuf_addstr(want, pii_placeholder(k));
		spans++;
		p = e + 2;
	}
	return spans;
}

static void test_corpus(void)
{
	struct strbuf file = STRBUF_INIT;
	long tp = 0, fp = 0, fn = 0, lines = 0, nears = 0;
	char *save = NULL;

	ok(!read_file("tests/data/pii/pii.tsv", &file, 0), "read the PII corpus");
	save = file.buf;
	for (char *line; (line = next_line(&save));) {
		struct strbuf in = STRBUF_INIT, want = STRBUF_INIT, got = STRBUF_INIT;
		struct pii_counts c = { { 0 }, { 0 } };
		char *tab = strchr(line, '\t');
		enum pii_kind k;
		int spans;
		long found;

		if (!tab)
			continue;
		*tab = '\0';
		if (kind_of(line, &k) || (spans = unmark(tab + 1, k, &in, &want)) <= 0) {
			ok(0, "corpus line '%s' is well formed", tab + 1);
			continue;
		}
		lines++;
		found = (long)pii_redact(in.buf, in.len, &got, &c);
		if (!strcmp(got.buf, want.buf)) {
			tp += spans;
		} else {
			long hit = (long)c.n[k] < spans ? (long)c.n[k] : spans;
			/* a right-kind span that left extra text behind is still a miss */
			if (hit == spans)
				hit = spans - 1;
			tp += hit;
			fn += spans - hit;
			fp += found - hit;
			test_diag("missed: %s: '%s' -> '%s'", line, in.buf, got.buf);
		}
		strbuf_release(&in);
		strbuf_release(&want);
		strbuf_release(&got);
	}
	strbuf_reset(&file);
	ok(!read_file("tests/data/pii/near-miss.tsv", &file, 0), "read the near-miss corpus");
	save = file.buf;
	for (char *line; (line = next_line(&save));) {
		struct strbuf got = STRBUF_INIT;
		char *tab = strchr(line, '\t');
		size_t found;

		if (!tab)
			continue;
		nears++;
		found = pii_redact(tab + 1, strlen(tab + 1), &got, NULL);
		if (found) {
			fp += (long)found;
			test_diag("false positive: '%s' -> '%s'", tab + 1, got.buf);
		}
		strbuf_release(&got);
	}
	strbuf_release(&file);

	double precision = tp + fp ? (double)tp / (double)(tp + fp) : 0;
	double recall = tp + fn ? (double)tp / (double)(tp + fn) : 0;
	test_diag("pii corpus: %ld PII lines, %ld near-misses; tp %ld fp %ld fn %ld; "
		  "precision %.3f recall %.3f", lines, nears, tp, fp, fn, precision, recall);
	ok(lines >= 50 && nears >= 50, "the corpus holds at least 50 lines of each kind");
	ok(precision >= 0.95, "precision %.3f is at least 0.95", precision);
	ok(recall >= 0.95, "recall %.3f is at least 0.95", recall);
}

/* Every line of the non-English corpus exactly: every secret scrubbed
 * (full-width, national formats, non-Latin scripts), every look-alike kept. */
static void test_intl_corpus(void)
{
	struct strbuf file = STRBUF_INIT;
	char *save = NULL;
	long bad = 0, lines = 0;

	ok(!read_file("tests/data/pii/intl.tsv", &file, 0), "read the non-English PII corpus");
	save = file.buf;
	for (char *line; (line = next_line(&save));) {
		struct strbuf in = STRBUF_INIT, want = STRBUF_INIT, got = STRBUF_INIT;
		char *tab = strchr(line, '\t');
		enum pii_kind k;

		if (!tab)
			continue;
		*tab = '\0';
		lines++;
		if (kind_of(line, &k) || unmark(tab + 1, k, &in, &want) <= 0) {
			bad++;
			test_diag("malformed line '%s'", tab + 1);
		} else {
			pii_redact(in.buf, in.len, &got, NULL);
			if (strcmp(got.buf, want.buf)) {
				bad++;
				test_diag("missed: %s: '%s' -> '%s'", line, in.buf, got.buf);
			}
		}
		strbuf_release(&in);
		strbuf_release(&want);
		strbuf_release(&got);
	}
	ok(lines >= 30 && !bad, "every one of %ld non-English secrets is scrubbed (%ld not)", lines, bad);

	strbuf_reset(&file);
	ok(!read_file("tests/data/pii/intl-near-miss.tsv", &file, 0), "read the non-English look-alikes");
	save = file.buf;
	lines = bad = 0;
	for (char *line; (line = next_line(&save));) {
		struct strbuf got = STRBUF_INIT;
		char *tab = strchr(line, '\t');

		if (!tab)
			continue;
		lines++;
		if (pii_redact(tab + 1, strlen(tab + 1), &got, NULL)) {
			bad++;
			test_diag("false positive: '%s' -> '%s'", tab + 1, got.buf);
		}
		strbuf_release(&got);
	}
	ok(lines >= 15 && !bad, "every one of %ld non-English look-alikes is kept (%ld not)", lines, bad);
	strbuf_release(&file);
}

/* User patterns: replaced by [NAME], counted by name, before the built-ins. */
static void test_patterns(void)
{
	struct pii_patterns pp = PII_PATTERNS_INIT;
	struct pii_counts c = { { 0 }, { 0 } };
	struct strbuf out = STRBUF_INIT;

	ok(pii_patterns_add(&pp, "customer-id=CUST-[0-9]{6}") == 0, "a pattern is accepted");
	ok(pii_patterns_add(&pp, "ticket=\\b[A-Z]{2}\\d{4}\\b") == 0, "a second one");
	pii_redact_with("CUST-123456 and ＣＵＳＴ－６５４３２１ wrote from a@example.com about AB1234",
			strlen("CUST-123456 and ＣＵＳＴ－６５４３２１ wrote from a@example.com about AB1234"),
			&pp, &out, &c);
	is_str(out.buf, "[CUSTOMER-ID] and [CUSTOMER-ID] wrote from [EMAIL] about [TICKET]",
	       "user patterns match the full-width form too, with the built-ins");
	ok(c.custom[0] == 2 && c.custom[1] == 1 && c.n[PII_EMAIL] == 1, "and are counted by pattern");
	strbuf_reset(&out);
	pii_redact_with("id 0171 1234567", 15, &pp, &out, NULL);
	is_str(out.buf, "id [PHONE]", "the built-ins still run with patterns");

	test_capture_errors();
	ok(pii_patterns_add(&pp, "bad=CUST-[0-9") < 0 &&
	   strstr(test_captured(), "PII pattern 'bad': missing terminating ]") != NULL,
	   "a regular expression that does not compile is refused with PCRE2's reason");
	ok(pii_patterns_add(&pp, "noequals") < 0 && strstr(test_captured(), "NAME=REGEX"),
	   "a pattern without a name is refused");
	ok(pii_patterns_add(&pp, "empty=x*") < 0 && strstr(test_captured(), "matches the empty string"),
	   "a pattern that matches nothing at all is refused");
	ok(pii_patterns_add(&pp, "sp ace=x") < 0, "a name with a space is refused");
	pii_patterns_release(&pp);
	strbuf_release(&out);
}

int main(void)
{
	test_intl_corpus();
	test_patterns();
	test_cases();
	test_corpus();
	return test_done();
}
