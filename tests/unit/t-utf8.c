/* Unit tests for base/utf8 (the one decoder) and base/jsonstr (the one JSON string escaper). */
#include "test-lib.h"
#include "base/jsonstr.h"
#include "base/utf8.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static void test_decode(void)
{
	uint32_t cp = 0;

	is_int(utf8_decode("A", 1, &cp), 1, "ASCII is one byte");
	is_int(cp, 'A', "ASCII code point");
	is_int(utf8_decode("\xc3\xa9", 2, &cp), 2, "e-acute is two bytes");
	is_int(cp, 0xE9, "e-acute code point");
	is_int(utf8_decode("\xe2\x80\xa8", 3, &cp), 3, "U+2028 is three bytes");
	is_int(cp, 0x2028, "U+2028 code point");
	is_int(utf8_decode("\xf0\x9f\x98\x80", 4, &cp), 4, "an emoji is four bytes");
	is_int(cp, 0x1F600, "emoji code point");
	is_int(utf8_decode("\xf0\x9f\x98", 3, &cp), 0, "a truncated sequence is invalid");
	is_int(utf8_decode("\xc0\xaf", 2, &cp), 0, "an overlong form is invalid");
	is_int(utf8_decode("\xed\xa0\x80", 3, &cp), 0, "a surrogate is invalid");
	is_int(utf8_decode("\xf4\x90\x80\x80", 4, &cp), 0, "past U+10FFFF is invalid");
	is_int(utf8_decode("\x80", 1, &cp), 0, "a stray continuation byte is invalid");
	ok(utf8_valid("caf\xc3\xa9", 5, NULL), "valid text is valid");
	{
		size_t bad = 0;

		ok(!utf8_valid("ab\0c", 4, &bad) && bad == 2, "a NUL byte is refused at its offset");
		ok(!utf8_valid("caf\xe9!", 5, &bad) && bad == 3, "a Latin-1 byte is refused at its offset");
	}
}

static void test_boundaries(void)
{
	const char *s = "\xc3\xa9t\xc3\xa9";  /* "été": 3 characters, 5 bytes */

	is_int(utf8_chars(s, 5), 3, "characters, not bytes, are counted");
	is_int(utf8_prefix(s, 5, 1), 2, "the first character is two bytes");
	is_int(utf8_prefix(s, 5, 2), 3, "two characters are three bytes");
	is_int(utf8_prefix(s, 5, 9), 5, "a prefix longer than the text is all of it");
	is_int(utf8_floor(s, 1), 0, "a cut inside a character backs off to its start");
	is_int(utf8_floor(s, 3), 3, "a cut at a boundary stays");
	is_int(utf8_floor(s, 4), 3, "a cut inside the last character backs off");
	is_int(utf8_ceil(s, 5, 1), 2, "an end inside a character moves on to its end");
	is_int(utf8_ceil(s, 5, 3), 3, "an end at a boundary stays");
	is_int(utf8_ceil(s, 5, 4), 5, "an end inside the last character moves to the end of the text");
	is_int(utf8_ceil(s, 4, 4), 4, "never past 'len'");
}

static void test_json_styles(void)
{
	struct strbuf sb = STRBUF_INIT;
	char all[128];
	cJSON *j;
	char *printed;

	/* JSON_CJSON: byte-identical to cJSON over every ASCII byte */
	for (int c = 1; c < 128; c++)
		all[c - 1] = (char)c;
	all[127] = '\0';
	j = cJSON_CreateString(all);
	printed = cJSON_PrintUnformatted(j);
	json_add_string(&sb, all, JSON_CJSON);
	is_str(sb.buf, printed, "JSON_CJSON writes what cJSON prints");
	free(printed);
	cJSON_Delete(j);

	strbuf_reset(&sb);
	json_add_string(&sb, "a\"b\\c\n\t\x01\x7f\b", JSON_CANON);
	is_str(sb.buf, "\"a\\\"b\\\\c\\n\\t\\u0001\\u007f\\u0008\"",
	       "JSON_CANON: the digest's form (DEL and backspace as \\u)");
	strbuf_reset(&sb);
	json_add_string(&sb, NULL, JSON_CANON);
	is_str(sb.buf, "null", "NULL is null");

	strbuf_reset(&sb);
	json_add_string(&sb, "</script>&\xe2\x80\xa8\xff\t\xc3\xa9", JSON_SCRIPT);
	is_str(sb.buf, "\"\\u003c/script\\u003e\\u0026\\u2028\\ufffd\\u0009\xc3\xa9\"",
	       "JSON_SCRIPT: markup, line separators and bad bytes escaped, text kept");
	j = cJSON_Parse(sb.buf);
	ok(j && cJSON_IsString(j) && !strcmp(j->valuestring, "</script>&\xe2\x80\xa8\xef\xbf\xbd\t\xc3\xa9"),
	   "JSON_SCRIPT output parses back to the text (bad byte as U+FFFD)");
	cJSON_Delete(j);

	strbuf_reset(&sb);
	json_add_escaped(&sb, "say \"hi\"", 8, JSON_CJSON);
	is_str(sb.buf, "say \\\"hi\\\"", "json_add_escaped writes no quotes");
	strbuf_release(&sb);
}

/* utf8_encode writes each length's smallest and largest code points as
 * their known bytes, and every code point decodes back to itself. */
static void test_encode(void)
{
	static const struct { uint32_t cp; const char *bytes; } known[] = {
		{ 0x41, "A" }, { 0x7F, "\x7f" }, { 0x80, "\xc2\x80" }, { 0x7FF, "\xdf\xbf" },
		{ 0x800, "\xe0\xa0\x80" }, { 0xE9, "\xc3\xa9" }, { 0xFFFF, "\xef\xbf\xbf" },
		{ 0x10000, "\xf0\x90\x80\x80" }, { 0x1F600, "\xf0\x9f\x98\x80" },
		{ 0x10FFFF, "\xf4\x8f\xbf\xbf" },
	};
	size_t wrong = 0;
	char b[4];

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		size_t n = utf8_encode(known[i].cp, b);

		ok(n == strlen(known[i].bytes) && !memcmp(b, known[i].bytes, n),
		   "utf8_encode U+%04X: %zu bytes, the right ones", (unsigned)known[i].cp, n);
	}
	for (uint32_t cp = 1; cp <= 0x10FFFF; cp++) {
		uint32_t back = 0;
		size_t n;

		if (cp >= 0xD800 && cp <= 0xDFFF)
			continue;
		n = utf8_encode(cp, b);
		if (utf8_decode(b, n, &back) != n || back != cp)
			wrong++;
	}
	ok(!wrong, "every code point but the surrogates encodes and decodes back (%zu not)", wrong);
}

int main(void)
{
	test_decode();
	test_encode();
	test_boundaries();
	test_json_styles();
	return test_done();
}
