/*
 * t-logjson: the JSON Lines record parser of the log readers
 * (core/logs/logjson.h). The flat fast path must give exactly what the full
 * strict parser gives (verdict, message and every value) on every line,
 * whatever the lines before it were: it remembers the keys of the last
 * record and where each path was found, so lines are fed in sequences.
 */
#include "test-lib.h"
#include "logs/logjson.h"
#include "logs/logread.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const path_texts[] = {
	"query", "doc", "a.b", "list.id", "", "a", "n", "id", "dup.x", "a..b",
	"a_rather_long_key_name_beyond_thirty_two_bytes", "k0", "k15", "k16",
};
#define NR_PATHS ARRAY_SIZE(path_texts)

struct side {
	struct log_reader r;
	struct log_path paths[NR_PATHS];
	struct log_values vals;
};

static void side_init(struct side *s)
{
	memset(&s->r, 0, sizeof(s->r));
	s->r.format = LOG_FORMAT_JSONL;
	for (size_t k = 0; k < NR_PATHS; k++)
		log_path_init(&s->paths[k], &s->r, path_texts[k]);
	s->vals = (struct log_values)LOG_VALUES_INIT;
}

static void side_release(struct side *s)
{
	for (size_t k = 0; k < NR_PATHS; k++)
		log_path_release(&s->paths[k]);
	log_values_release(&s->vals);
	free(s->r.nodes);
}

/* Append 'len' bytes at 's' to 'sb', control bytes and brackets as \xNN. */
static void add_escaped(struct strbuf *sb, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == '[' || c == ']' || c == '\\')
			strbuf_addf(sb, "\\x%02x", c);
		else
			strbuf_addch(sb, (char)c);
	}
}

/*
 * Parse 'len' bytes of 'line' with 's' (fast path 'fast') and describe the
 * result: the return code, the message of a malformed line, and the values
 * of every path.
 */
static char *describe(struct side *s, bool fast, const char *line, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	char *copy = xmalloc(len + 1);
	int rc;

	memcpy(copy, line, len);  /* the full parser decodes in place */
	copy[len] = '\0';
	log_json_fast = fast;
	rc = log_json_parse(&s->r, copy, len);
	log_json_fast = true;
	strbuf_addf(&sb, "rc %d", rc);
	if (rc < 0)
		strbuf_addf(&sb, " (%s)", s->r.why);
	for (size_t k = 0; rc == 0 && k < NR_PATHS; k++) {
		s->vals.nr = 0;
		log_json_get(&s->r, &s->paths[k], &s->vals);
		strbuf_addf(&sb, " %s:", path_texts[k]);
		for (size_t v = 0; v < s->vals.nr; v++) {
			strbuf_addch(&sb, '[');
			add_escaped(&sb, s->vals.v[v].s, s->vals.v[v].len);
			strbuf_addch(&sb, ']');
		}
	}
	free(copy);
	return strbuf_detach(&sb, NULL);
}

/* Feed 'len' bytes of 'line' to both sides; return true when they agree (else say how). */
static bool same_on(struct side *fast, struct side *full, const char *line, size_t len, char **full_out)
{
	char *a = describe(fast, true, line, len), *b = describe(full, false, line, len);
	bool same = !strcmp(a, b);

	if (!same) {
		struct strbuf sb = STRBUF_INIT;
		add_escaped(&sb, line, len);
		test_diag("line: %s", sb.buf);
		test_diag("fast: %s", a);
		test_diag("full: %s", b);
		strbuf_release(&sb);
	}
	free(a);
	if (full_out)
		*full_out = b;
	else
		free(b);
	return same;
}

static const char *const lines[] = {
	/* flat records in the shape of the generated log, and variations of it */
	"{\"ts\":\"2026-11-01T07:05:46Z\",\"session\":\"s-0352410\",\"query\":\"sibopemi sigu bosilo\","
	"\"doc\":\"c-4951\",\"signal\":\"rating:+1\",\"dwell\":170,\"ua\":\"Mozilla/5.0\"}",
	"{\"ts\":\"2026-11-01T07:05:47Z\",\"session\":\"s-0000001\",\"query\":\"how to export\","
	"\"doc\":[\"c-1\",\"c-2\"],\"signal\":\"click\",\"dwell\":3,\"ua\":\"Mozilla/5.0\"}",
	"{\"ts\":\"2026-11-01T07:05:47Z\",\"session\":\"s-0000001\",\"query\":\"how to export\","
	"\"doc\":\"c-1\",\"signal\":\"click\",\"dwell\":3}",
	"{\"ts\":\"2026-11-01T07:05:47Z\",\"session\":\"s-0000001\",\"query\":\"how to export\","
	"\"doc\":\"c-1\",\"signal\":\"click\",\"dwell\":3,\"ua\":\"x\",\"extra\":1}",
	"{\"query\":\"plain\",\"doc\":\"c-1\"}",
	"{\"doc\":\"c-1\",\"query\":\"swapped\"}",
	"{\"query\":\"dup\",\"query\":\"second\",\"doc\":\"c-1\"}",
	"{\"doc\":\"c-1\",\"query\":\"dup later\",\"query\":\"second\"}",
	"{\"query\":\"a\",\"doc\":\"c-1\",\"doc\":[\"c-2\",\"c-3\"]}",
	"{\"query\":\"a\",\"doc\":[],\"doc\":\"c-2\"}",
	"{\"queryx\":\"longer key\",\"doc\":\"c-1\"}",
	"{\"quer\":\"shorter key\",\"doc\":\"c-1\"}",
	"{\"Query\":\"other case\"}",
	"{\"qu\\u0065ry\":\"escaped key\",\"doc\":\"c-9\"}",
	"{\"\":\"empty key\",\"query\":\"q\"}",
	"{\"a\":\"x\",\"\":\"empty\",\"\":\"twice\"}",
	/* whitespace */
	"   {\"query\" : \"spaces\" , \"n\" : -12.5E-1 }   ",
	"\t{\t\"query\"\t:\t\"tabs\"\t}\t",
	"{\"query\":\"crlf\"}\r",
	"{\r\n\"query\":\"newlines inside\"\n}",
	"{ }",
	"{}",
	"",
	"   ",
	"\t\r",
	/* escapes and unicode */
	"{\"query\":\"tab\\tand \\\"quote\\\"\",\"doc\":\"a\\/b\\\\c\"}",
	"{\"query\":\"caf\\u00e9 \\u00E9 \\ud83d\\ude00\"}",
	"{\"query\":\"lone \\ud800 high\",\"doc\":\"lone \\udc00 low\"}",
	"{\"query\":\"high then not low \\ud800\\u0041\"}",
	"{\"query\":\"nul \\u0000 inside\"}",
	"{\"query\":\"bad \\x escape\"}",
	"{\"query\":\"short \\u12\"}",
	"{\"query\":\"bad hex \\u12G4\"}",
	"{\"query\":\"ends in backslash\\",
	"{\"query\":\"raw \x01 control\"}",
	"{\"query\":\"raw \t tab\"}",
	"{\"query\":\"del \x7f and high \xc3\xa9 \xff bytes\"}",
	/* strings near block sizes and at the end of the line */
	"{\"q\":\"123456789012345\"}",
	"{\"q\":\"1234567890123456\"}",
	"{\"q\":\"12345678901234567\"}",
	"{\"query\":\"a\"}",
	"{\"query\":\"\"}",
	"{\"query\":\"unterminated",
	"{\"query\":\"unterminated at 16 bytes..",
	"{\"query",
	"{\"",
	/* numbers */
	"{\"n\":0,\"a\":-0,\"id\":1e5,\"doc\":[1E+5,1.5e-3,-2.25E-07,10]}",
	"{\"n\":01}",
	"{\"n\":1.}",
	"{\"n\":.5}",
	"{\"n\":-}",
	"{\"n\":1e}",
	"{\"n\":1e+}",
	"{\"n\":+1}",
	"{\"n\":2,}",
	"{\"n\":1x}",
	"{\"n\":-0.0e0}",
	"{\"n\":123456789012345678901234567890}",
	/* literals */
	"{\"n\":true,\"a\":false,\"query\":null,\"doc\":[true,false,null]}",
	"{\"n\":tru}",
	"{\"n\":nul}",
	"{\"n\":truex}",
	"{\"n\":falsey}",
	"{\"n\":True}",
	/* nesting and lists */
	"{\"query\":\"x\",\"a\":{\"b\":\"nested\"},\"list\":[{\"id\":\"c-3\"},{\"id\":\"c-4\"}]}",
	"{\"a\":{\"b\":{\"c\":1}},\"list\":[]}",
	"{\"a\":{}}",
	"{\"a\":[]}",
	"{\"a\":[{\"b\":\"in list\"},{\"b\":[\"x\",\"y\"]},[{\"b\":\"deeper\"}]]}",
	"{\"doc\":[\"a\",1,true,null,{\"id\":\"x\"},[\"b\"],2.5]}",
	"{\"doc\":[[\"c-5\"],\"c-6\"]}",
	"{\"doc\":[1,]}",
	"{\"doc\":[,1]}",
	"{\"doc\":[\"a\" \"b\"]}",
	"{\"doc\":[\"a\"}",
	"{\"doc\":[",
	"{\"dup\":{\"x\":1},\"dup\":{\"x\":2}}",
	"{\"a\":{\"b\":1,\"b\":2}}",
	"{\"a\":{\"\":{\"b\":\"empty middle\"}}}",
	"{\"id\":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]}",
	/* malformed objects and trailing text */
	"{\"query\":\"x\",}",
	"{\"query\":\"x\"",
	"{\"query\" \"x\"}",
	"{\"query\":}",
	"{query:\"x\"}",
	"{'query':'x'}",
	"{\"query\":\"x\"} junk",
	"{\"query\":\"x\"}{}",
	"{\"query\":\"x\"},",
	"{\"query\":\"x\"}}",
	"[\"a\"]",
	"\"query\"",
	"1",
	"}",
	"{",
	"{,}",
	"{\"a\":1,,\"b\":2}",
	/* many keys and long keys: beyond what the fast path remembers */
	"{\"k0\":0,\"k1\":1,\"k2\":2,\"k3\":3,\"k4\":4,\"k5\":5,\"k6\":6,\"k7\":7,\"k8\":8,\"k9\":9,"
	"\"k10\":10,\"k11\":11,\"k12\":12,\"k13\":13,\"k14\":14,\"k15\":15}",
	"{\"k0\":0,\"k1\":1,\"k2\":2,\"k3\":3,\"k4\":4,\"k5\":5,\"k6\":6,\"k7\":7,\"k8\":8,\"k9\":9,"
	"\"k10\":10,\"k11\":11,\"k12\":12,\"k13\":13,\"k14\":14,\"k15\":15,\"k16\":16,\"query\":\"17th\"}",
	"{\"a_rather_long_key_name_beyond_thirty_two_bytes\":\"long\",\"query\":\"q\"}",
	"{\"an_even_longer_key_name_that_goes_on_and_on_well_past_sixty_four_bytes_1\":1,"
	"\"an_even_longer_key_name_that_goes_on_and_on_well_past_sixty_four_bytes_2\":2,"
	"\"an_even_longer_key_name_that_goes_on_and_on_well_past_sixty_four_bytes_3\":3,"
	"\"an_even_longer_key_name_that_goes_on_and_on_well_past_sixty_four_bytes_4\":4,"
	"\"query\":\"after 300 bytes of keys\"}",
};

/* Every line after every other line: the fast path's memory must never show. */
static void test_lines_in_pairs(void)
{
	struct side fast, full;
	size_t n = ARRAY_SIZE(lines), bad = 0;

	side_init(&fast);
	side_init(&full);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			if (!same_on(&fast, &full, lines[i], strlen(lines[i]), NULL))
				bad++;
			if (!same_on(&fast, &full, lines[j], strlen(lines[j]), NULL))
				bad++;
			if (!same_on(&fast, &full, lines[j], strlen(lines[j]), NULL))
				bad++;
			if (bad > 5)
				goto out;
		}
out:
	is_int(bad, 0, "the fast path reads every line as the full parser does, after any other");
	side_release(&fast);
	side_release(&full);
}

/* Return true when the full parser's description of 'line' holds 'want' (else say what it is). */
static bool full_has(const char *line, const char *want)
{
	struct side full;
	char *s;
	bool found;

	side_init(&full);
	s = describe(&full, false, line, strlen(line));
	found = strstr(s, want) != NULL;
	if (!found)
		test_diag("%s: %s", line, s);
	free(s);
	side_release(&full);
	return found;
}

/* The behaviour the differential tests rely on, as the full parser gives it. */
static void test_full_parser(void)
{
	ok(full_has(lines[0], "query:[sibopemi sigu bosilo] doc:[c-4951]") &&
	   full_has(lines[1], "doc:[c-1][c-2]"), "a record of the generated log: strings and a list of strings");
	ok(full_has("{\"query\":\"dup\",\"query\":\"second\"}", "query:[dup]") &&
	   full_has("{\"query\":\"a\",\"doc\":\"c-1\",\"doc\":[\"c-2\",\"c-3\"]}", "doc:[c-1] "),
	   "of duplicate keys the first one counts");
	ok(full_has("{\"qu\\u0065ry\":\"escaped key\"}", "query:[escaped key]"),
	   "keys are unescaped before they are compared");
	ok(full_has("{\"\":\"empty key\",\"query\":\"q\"}", " :[empty key]"), "the path \"\" finds the empty key");
	ok(full_has("{\r\n\"query\":\"newlines inside\"\n}", "query:[newlines inside]") &&
	   full_has("{\"query\":\"crlf\"}\r", "query:[crlf]"), "CR and LF are whitespace between tokens");
	ok(full_has("", "rc 1") && full_has(" \t\r", "rc 1"), "a blank line is no record");
	ok(full_has("{\"query\":\"caf\\u00e9 \\u00E9 \\ud83d\\ude00\"}",
		    "query:[caf\xc3\xa9 \xc3\xa9 \xf0\x9f\x98\x80]") &&
	   full_has("{\"query\":\"lone \\ud800 high\"}", "[lone \xef\xbf\xbd high]") &&
	   full_has("{\"query\":\"\\ud800\\u0041\"}", "[\xef\xbf\xbd" "A]") &&
	   full_has("{\"query\":\"nul \\u0000 inside\"}", "[nul \\x00 inside]"),
	   "unicode escapes, surrogate pairs and lone surrogates");
	ok(full_has("{\"query\":\"bad \\x escape\"}", "(bad escape in a JSON string)") &&
	   full_has("{\"query\":\"short \\u12\"}", "(bad \\u escape") &&
	   full_has("{\"query\":\"raw \x01 control\"}", "(control character in a JSON string)") &&
	   full_has("{\"query\":\"unterminated", "(unterminated JSON string)"),
	   "bad escapes and raw control characters are malformed");
	ok(full_has("{\"id\":1e5,\"doc\":[1E+5,1.5e-3,-2.25E-07,-0]}", "doc:[1E+5][1.5e-3][-2.25E-07][-0]") &&
	   full_has("{\"n\":01}", "(expected ',' or '}' in a JSON object)") &&
	   full_has("{\"n\":1.}", "(invalid JSON value)") && full_has("{\"n\":+1}", "rc -1"),
	   "numbers keep their text; bad numbers are malformed");
	ok(full_has("{\"query\":null,\"doc\":[true,false,null]}", "query: doc:[true][false] ") &&
	   full_has("{\"n\":tru}", "rc -1") && full_has("{\"n\":truex}", "rc -1"),
	   "literals: null gives nothing, near misses are malformed");
	ok(full_has("{\"a\":{\"b\":\"nested\"},\"list\":[{\"id\":\"c-3\"},{\"id\":\"c-4\"}]}",
		    "a.b:[nested] list.id:[c-3][c-4]") &&
	   full_has("{\"a\":[{\"b\":\"in list\"},{\"b\":[\"x\",\"y\"]},[{\"b\":\"deeper\"}]]}",
		    "a.b:[in list][x][y][deeper]") &&
	   full_has("{\"doc\":[\"a\",1,true,null,{\"id\":\"x\"},[\"b\"],2.5]}", "doc:[a][1][true][b][2.5]"),
	   "paths go into objects and through lists at any depth");
	ok(full_has("{\"dup\":{\"x\":1},\"dup\":{\"x\":2}}", "dup.x:[1] ") &&
	   full_has("{\"a\":{\"\":{\"b\":\"empty middle\"}}}", "a..b:[empty middle]"),
	   "duplicate keys inside objects; an empty path component");
	ok(full_has("{\"query\":\"x\",}", "(expected a key in a JSON object)") &&
	   full_has("{\"query\":\"x\"} junk", "(text after the JSON object)") &&
	   full_has("[\"a\"]", "(not a JSON object)") &&
	   full_has("{\"query\" \"x\"}", "(expected ':' in a JSON object)"),
	   "malformed objects say what is wrong");
	ok(full_has(lines[97], "k0:[0] k15:[15] k16:") && full_has(lines[98], "k16:[16]") &&
	   full_has(lines[98], "query:[17th]") && full_has(lines[100], "query:[after 300 bytes of keys]") &&
	   full_has(lines[99], "a_rather_long_key_name_beyond_thirty_two_bytes:[long]"),
	   "records with many or long keys");
}

/*
 * A path released and another made in its place (often at the same
 * address, with its text at the same address) is looked up afresh.
 */
static void test_path_reuse(void)
{
	static const char *const texts[] = { "query", "dwell", "doc", "nope", "ua", "ts", "query" };
	static const char *const want[] = { "[how to export]", "[3]", "[c-1]", "", "[Mozilla/5.0]",
		"[2026-11-01T07:05:47Z]", "[how to export]" };
	struct side s;
	int good = 0;

	side_init(&s);
	for (int round = 0; round < 3; round++)
		for (size_t k = 0; k < ARRAY_SIZE(texts); k++) {
			struct log_path p;
			struct strbuf sb = STRBUF_INIT;
			char *line = xstrdup(lines[1]);

			if (log_json_parse(&s.r, line, strlen(line)) == 0) {
				log_path_init(&p, &s.r, texts[k]);
				s.vals.nr = 0;
				log_json_get(&s.r, &p, &s.vals);
				if (!strcmp(texts[k], "doc"))
					strbuf_addstr(&sb, s.vals.nr == 2 ? "[c-1]" : "?");
				else
					for (size_t v = 0; v < s.vals.nr; v++)
						strbuf_addf(&sb, "[%.*s]", (int)s.vals.v[v].len, s.vals.v[v].s);
				log_path_release(&p);
			}
			good += !strcmp(sb.buf, want[k]);
			strbuf_release(&sb);
			free(line);
		}
	is_int(good, 3 * (int)ARRAY_SIZE(texts), "paths made one after another in the same place");
	side_release(&s);
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static void add_random_string(struct strbuf *sb)
{
	static const char *const bits[] = { "a", "query", "doc", "q", " ", "\\\"", "\\\\", "\\n",
		"\\u00e9", "\\ud83d\\ude00", "\\ud800", "\xc3\xa9", "0123456789abcdef", "\x01", "\\x" };
	unsigned n = rnd(6);

	strbuf_addch(sb, '"');
	for (unsigned i = 0; i < n; i++)
		strbuf_addstr(sb, bits[rnd(100) < 85 ? rnd(5) : rnd(ARRAY_SIZE(bits))]);
	strbuf_addch(sb, '"');
}

static void add_random_ws(struct strbuf *sb)
{
	static const char *const ws[] = { "", "", "", "", " ", "\t", "  ", "\r\n", "\r" };
	strbuf_addstr(sb, ws[rnd(ARRAY_SIZE(ws))]);
}

static void add_random_value(struct strbuf *sb, int depth)
{
	static const char *const scalars[] = { "0", "-1", "12.5", "1e5", "-0.0E-2", "true", "false",
		"null", "01", "1.", "tru", "+1", "170" };
	unsigned kind = rnd(depth > 2 ? 3 : 5);

	if (kind == 0) {
		add_random_string(sb);
	} else if (kind == 1) {
		strbuf_addstr(sb, scalars[rnd(100) < 90 ? rnd(8) : rnd(ARRAY_SIZE(scalars))]);
	} else if (kind == 2 || kind == 3) {
		unsigned n = rnd(4);
		strbuf_addch(sb, '[');
		for (unsigned i = 0; i < n; i++) {
			if (i)
				strbuf_addch(sb, ',');
			add_random_ws(sb);
			if (kind == 3)
				add_random_value(sb, depth + 1);
			else if (rnd(2))
				add_random_string(sb);
			else
				strbuf_addstr(sb, scalars[rnd(8)]);
			add_random_ws(sb);
		}
		strbuf_addch(sb, ']');
	} else {
		static const char *const keys[] = { "\"b\"", "\"id\"", "\"x\"", "\"\"" };
		unsigned n = rnd(3);
		strbuf_addch(sb, '{');
		for (unsigned i = 0; i < n; i++) {
			if (i)
				strbuf_addch(sb, ',');
			strbuf_addstr(sb, keys[rnd(ARRAY_SIZE(keys))]);
			strbuf_addch(sb, ':');
			add_random_value(sb, depth + 1);
		}
		strbuf_addch(sb, '}');
	}
}

/*
 * Random records over a few keys (so shapes repeat, change and hold
 * duplicates), mostly valid, some with a byte changed, dropped or added.
 */
static void test_random_records(void)
{
	static const char *const keys[] = { "\"query\"", "\"doc\"", "\"a\"", "\"n\"", "\"id\"",
		"\"list\"", "\"ts\"", "\"\"", "\"qu\\u0065ry\"", "\"k15\"" };
	static const char junk[] = "{}[]\",: \\tx0\x01";
	struct side fast, full;
	struct strbuf sb = STRBUF_INIT;
	unsigned bad = 0, records = 0, malformed = 0;

	side_init(&fast);
	side_init(&full);
	for (int i = 0; i < 40000 && bad < 5; i++) {
		unsigned n = rnd(8);
		char *desc;

		if (i % 50 == 0)
			n = 0;
		strbuf_reset(&sb);
		add_random_ws(&sb);
		strbuf_addch(&sb, '{');
		for (unsigned k = 0; k < n; k++) {
			if (k)
				strbuf_addch(&sb, ',');
			add_random_ws(&sb);
			/* mostly the same keys in the same order, as in a real log */
			strbuf_addstr(&sb, keys[rnd(100) < 70 ? k % 6 : rnd(ARRAY_SIZE(keys))]);
			add_random_ws(&sb);
			strbuf_addch(&sb, ':');
			add_random_ws(&sb);
			add_random_value(&sb, 0);
			add_random_ws(&sb);
		}
		strbuf_addch(&sb, '}');
		add_random_ws(&sb);
		if (rnd(100) < 15 && sb.len) {
			size_t at = rnd((unsigned)sb.len);
			unsigned how = rnd(3);
			if (how == 0) {
				sb.buf[at] = junk[rnd(sizeof(junk) - 1)];
			} else if (how == 1) {
				memmove(sb.buf + at, sb.buf + at + 1, sb.len - at - 1);
				strbuf_setlen(&sb, sb.len - 1);
			} else {
				strbuf_addch(&sb, ' ');
				memmove(sb.buf + at + 1, sb.buf + at, sb.len - at - 1);
				sb.buf[at] = junk[rnd(sizeof(junk) - 1)];
			}
		}
		if (!same_on(&fast, &full, sb.buf, sb.len, &desc))
			bad++;
		records += !strncmp(desc, "rc 0", 4);
		malformed += !strncmp(desc, "rc -1", 5);
		free(desc);
	}
	is_int(bad, 0, "random records: the fast path agrees with the full parser");
	ok(records > 10000 && malformed > 3000, "the random records are mostly valid, some malformed (%u, %u)",
	   records, malformed);
	strbuf_release(&sb);
	side_release(&fast);
	side_release(&full);
}

int main(void)
{
	test_full_parser();
	test_lines_in_pairs();
	test_path_reuse();
	test_random_records();
	return test_done();
}
