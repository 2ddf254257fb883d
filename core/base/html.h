/*
 * html: escaping for the HTML report and for XML files (JUnit), so that
 * nothing read from a set, a run or a corpus can become markup or script.
 *
 * Invariants:
 *  - html_text() and xml_text() output is safe as element content and as a
 *    quoted attribute value: it holds no '<', '>', '&', '"' or '\'' except
 *    as entities. Both walk the text the same way (below); they differ only
 *    where the languages do: the apostrophe is &#39; in HTML (HTML 4 has no
 *    &apos;) and &apos; in XML, and XML 1.0 forbids the noncharacters
 *    U+FFFE and U+FFFF, which xml_text() replaces by U+FFFD.
 *  - Invalid UTF-8 bytes and control characters other than tab, newline and
 *    carriage return are replaced by U+FFFD (DEL and the C1 controls too),
 *    so the output is always valid UTF-8, holds no character XML 1.0
 *    forbids, and smuggles nothing invisible in. Bidirectional and
 *    zero-width characters are shown as the text <U+XXXX> (escaped), so an
 *    id cannot reorder its line or pass for another.
 *  - html_script_json() output is a JSON text that can sit between <script>
 *    and </script>: it holds no '<', '>' or '&' (written as \u003c, \u003e,
 *    \u0026 inside strings, where JSON allows them only), and U+2028/U+2029
 *    are written as \u2028/\u2029 (line terminators to older JavaScript).
 *    JSON.parse of it gives back the original value, except that
 *    bidirectional and zero-width characters read as the text <U+XXXX>, as
 *    html_text shows them.
 *
 * Every function appends to a caller-owned strbuf and allocates nothing the
 * caller must free.
 */
#ifndef EVALSET_HTML_H
#define EVALSET_HTML_H

#include <stddef.h>

#include "base/strbuf.h"

/* Append 's' to 'out' escaped as HTML text (also safe in a quoted attribute).
 * NULL appends nothing. */
void html_text(struct strbuf *out, const char *s);
/* Append the first 'len' bytes of 's' escaped as html_text does. */
void html_text_len(struct strbuf *out, const char *s, size_t len);
/* Append 'fmt' formatted, then escaped as html_text does. */
void html_textf(struct strbuf *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Append ' name="value"' with 'value' escaped. */
void html_attr(struct strbuf *out, const char *name, const char *value);

/* Append 's' to 'out' escaped as XML 1.0 text (also safe in a quoted
 * attribute), per the invariants above. NULL appends nothing. */
void xml_text(struct strbuf *out, const char *s);
/* Append ' name="value"' with 'value' escaped as xml_text does. */
void xml_attr(struct strbuf *out, const char *name, const char *value);

/*
 * Append the JSON text 'json' (as cJSON prints it) made safe for a <script>
 * element, per the invariants above. The JSON syntax is not checked: a
 * '<', '>' or '&' can only occur inside a JSON string, where the \u escape
 * means the same character.
 */
void html_script_json(struct strbuf *out, const char *json);
/* Append 's' as a JSON string literal (with quotes) safe inside <script>. */
void html_script_string(struct strbuf *out, const char *s);

#endif
