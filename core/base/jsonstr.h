/*
 * jsonstr: the one JSON string escaper of evalset, for the places that write
 * JSON text by hand rather than through a cJSON tree: the canonical form the
 * set digest is taken over, the lines of a large import written directly,
 * a retriever's request body filled from a template, and JSON inside the
 * HTML report's <script>.
 *
 * Every style writes '"' and '\' with a backslash and every control
 * character below U+0020 escaped, so the output is always a valid JSON
 * string whose value is the input. The styles differ only in which
 * characters get the short forms and which others are escaped too:
 *
 *   JSON_CJSON   as cJSON prints (\b \f \n \r \t short, other controls as
 *                \u00XX, everything else as is): lines written here are
 *                byte-identical to cJSON_PrintUnformatted's.
 *   JSON_CANON   the set digest's canonical form (\n \r \t short, other
 *                controls and DEL as \u00XX). Frozen: every recorded digest
 *                depends on these bytes.
 *   JSON_SCRIPT  safe between <script> and </script>: \n short, every other
 *                control, '<', '>', '&', U+2028 and U+2029 as \uXXXX, and
 *                each byte that is not valid UTF-8 as \ufffd.
 *
 * Functions append to a caller-owned strbuf and allocate nothing else.
 */
#ifndef EVALSET_JSONSTR_H
#define EVALSET_JSONSTR_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"

enum json_style { JSON_CJSON, JSON_CANON, JSON_SCRIPT };

/* Append the 'len' bytes of 's' escaped in 'style', without quotes. */
void json_add_escaped(struct strbuf *out, const char *s, size_t len, enum json_style style);
/* Append 's' as a quoted JSON string in 'style'; NULL appends null. */
void json_add_string(struct strbuf *out, const char *s, enum json_style style);

/*
 * A JSON text streamed into a strbuf in the layout of cJSON_Print (members
 * one a line, indented with tabs, "key":<TAB>value; arrays on one line,
 * items after ", "; strings in JSON_CJSON), so that a large document (a
 * results file) is written byte for byte as through a cJSON tree without
 * building one. Integers are written as cJSON writes whole numbers up to
 * 2^31; other numbers are given as text (json_pretty_raw). Keys are given
 * in objects and NULL in arrays and for the outermost value.
 */
#define JSON_PRETTY_DEPTH 16

struct json_pretty {
	struct strbuf *out;
	int depth;                        /* open objects and arrays */
	bool array[JSON_PRETTY_DEPTH];    /* the one at each depth is an array */
	bool empty[JSON_PRETTY_DEPTH];    /* and holds nothing yet */
};

void json_pretty_init(struct json_pretty *w, struct strbuf *out);
/* Open an object ('{') or an array ('['). */
void json_pretty_open(struct json_pretty *w, const char *key, char bracket);
/* Close the innermost open object or array. */
void json_pretty_close(struct json_pretty *w);
/* A string (NULL: null). */
void json_pretty_string(struct json_pretty *w, const char *key, const char *s);
void json_pretty_long(struct json_pretty *w, const char *key, long v);
void json_pretty_bool(struct json_pretty *w, const char *key, bool v);
/* A value given as JSON text (a number, null). */
void json_pretty_raw(struct json_pretty *w, const char *key, const char *text);

#endif
