/*
 * t-html: escaping of report text and of JSON embedded in <script>.
 */
#include "test-lib.h"
#include "base/html.h"
#include "base/strbuf.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static void test_text(void)
{
	struct strbuf sb = STRBUF_INIT;

	html_text(&sb, "<script>alert(1)</script>");
	is_str(sb.buf, "&lt;script&gt;alert(1)&lt;/script&gt;", "a script tag becomes text");
	strbuf_reset(&sb);

	html_attr(&sb, "title", "\"><img src=x onerror=alert(1)>");
	is_str(sb.buf, " title=\"&quot;&gt;&lt;img src=x onerror=alert(1)&gt;\"",
	       "an attribute value cannot close its quote or open a tag");
	strbuf_reset(&sb);

	html_text(&sb, "it's a & b");
	is_str(sb.buf, "it&#39;s a &amp; b", "ampersand and single quote are escaped");
	strbuf_reset(&sb);

	html_text(&sb, "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
	is_str(sb.buf, "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", "valid UTF-8 passes unchanged");
	strbuf_reset(&sb);

	html_text(&sb, "a\xFF" "b\xC0\xAF" "c\xED\xA0\x80" "d\xE2\x82");
	is_str(sb.buf, "a\xEF\xBF\xBD" "b\xEF\xBF\xBD\xEF\xBF\xBD" "c\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"
	       "d\xEF\xBF\xBD\xEF\xBF\xBD",
	       "invalid, overlong, surrogate and truncated sequences become U+FFFD");
	strbuf_reset(&sb);

	html_text(&sb, "line1\nline2\t\x01\x1b[31m");
	is_str(sb.buf, "line1\nline2\t\xEF\xBF\xBD\xEF\xBF\xBD[31m",
	       "newline and tab kept, other control characters replaced");
	strbuf_reset(&sb);

	html_textf(&sb, "%s=%d", "<k>", 5);
	is_str(sb.buf, "&lt;k&gt;=5", "textf escapes the formatted result");
	strbuf_reset(&sb);

	html_text(&sb, NULL);
	is_int(sb.len, 0, "NULL appends nothing");
	strbuf_reset(&sb);

	html_text(&sb, "\xEF\xBF\xBE\xEF\xBF\xBF");
	is_str(sb.buf, "\xEF\xBF\xBE\xEF\xBF\xBF", "HTML keeps the noncharacters U+FFFE and U+FFFF");
	strbuf_release(&sb);
}

static void test_xml(void)
{
	struct strbuf sb = STRBUF_INIT;

	xml_text(&sb, "<a href=\"x\">it's & \x01\x1f\x7f\xC2\x85 \xEF\xBF\xBE\xEF\xBF\xBF\xFF caf\xC3\xA9</a>");
	is_str(sb.buf, "&lt;a href=&quot;x&quot;&gt;it&apos;s &amp; "
	       "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD caf\xC3\xA9&lt;/a&gt;",
	       "XML: markup escaped, apostrophe as &apos;; control characters, U+FFFE, U+FFFF "
	       "and invalid bytes become U+FFFD");
	strbuf_reset(&sb);

	xml_text(&sb, "tab\tnew\nreturn\r\xE2\x80\xAE" "evil");
	is_str(sb.buf, "tab\tnew\nreturn\r&lt;U+202E&gt;evil",
	       "XML: tab, newline and carriage return kept (XML allows them), bidi shown as text");
	strbuf_reset(&sb);

	/* every format character (Cf) is shown, not only the bidi and zero-width ones */
	html_text(&sb, "soft\xC2\xAD" "hy tag\xF3\xA0\x81\x81 ar\xD8\x80 caf\xC3\xA9");
	is_str(sb.buf, "soft&lt;U+00AD&gt;hy tag&lt;U+E0041&gt; ar&lt;U+0600&gt; caf\xC3\xA9",
	       "HTML: the soft hyphen, a tag character and an Arabic number sign (format characters) shown as text");
	strbuf_reset(&sb);

	xml_attr(&sb, "value", "a\"b'c");
	is_str(sb.buf, " value=\"a&quot;b&apos;c\"", "an XML attribute cannot close its quote");
	strbuf_reset(&sb);

	xml_attr(&sb, "value", NULL);
	is_str(sb.buf, " value=\"\"", "a NULL attribute value is empty");
	strbuf_reset(&sb);

	xml_text(&sb, NULL);
	is_int(sb.len, 0, "NULL appends nothing");
	strbuf_release(&sb);
}

static void test_script_json(void)
{
	struct strbuf sb = STRBUF_INIT;
	const char *evil = "</script><script>alert(1)</script><!-- \xE2\x80\xA8 & \xE2\x80\xA9 >";
	cJSON *obj = cJSON_CreateObject(), *back;
	char *printed;

	cJSON_AddStringToObject(obj, "text", evil);
	printed = cJSON_PrintUnformatted(obj);
	html_script_json(&sb, printed);
	ok(!strchr(sb.buf, '<') && !strchr(sb.buf, '>') && !strchr(sb.buf, '&'),
	   "no <, > or & survives in script JSON: %s", sb.buf);
	ok(!strstr(sb.buf, "\xE2\x80\xA8") && !strstr(sb.buf, "\xE2\x80\xA9") &&
	   strstr(sb.buf, "\\u2028") && strstr(sb.buf, "\\u2029"),
	   "U+2028 and U+2029 are written as escapes");
	back = cJSON_Parse(sb.buf);
	ok(back && cJSON_IsString(cJSON_GetObjectItem(back, "text")) &&
	   !strcmp(cJSON_GetObjectItem(back, "text")->valuestring, evil),
	   "parsing the escaped JSON gives back the original string");
	cJSON_Delete(back);
	free(printed);
	cJSON_Delete(obj);
	strbuf_reset(&sb);

	html_script_string(&sb, "say \"hi\"\\\n</script>\xE2\x80\xA8\x01");
	is_str(sb.buf, "\"say \\\"hi\\\"\\\\\\n\\u003c/script\\u003e\\u2028\\u0001\"",
	       "a string literal escapes quotes, backslash, newline, tags and U+2028");
	back = cJSON_Parse(sb.buf);
	ok(back && cJSON_IsString(back) &&
	   !strcmp(back->valuestring, "say \"hi\"\\\n</script>\xE2\x80\xA8\x01"),
	   "the literal parses back as JSON to the original");
	cJSON_Delete(back);
	strbuf_reset(&sb);

	html_script_string(&sb, "bad\xFF");
	is_str(sb.buf, "\"bad\\ufffd\"", "invalid UTF-8 in a string literal becomes \\ufffd");
	strbuf_release(&sb);
}

int main(void)
{
	test_text();
	test_xml();
	test_script_json();
	return test_done();
}
