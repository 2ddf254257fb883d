/*
 * t-logread: reading query logs one record at a time: JSON Lines (the fast
 * flat scanner and the full parser alike), CSV/TSV, gzip, long lines, paths
 * into records (dotted keys, lists, items), and the fields read from them
 * (times, signals).
 */
#include "test-lib.h"
#include "base/digest.h"
#include "base/fsutil.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "logs/logfield.h"
#include "logs/logread.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

static char tmpdir[] = "/tmp/t-logread-XXXXXX";

/* Return value 'k' of 'field' in the current record as a new string ("" when absent). */
static char *value(struct log_reader *r, const char *field, size_t k)
{
	struct log_path p;
	struct log_values v = LOG_VALUES_INIT;
	char *s;

	log_path_init(&p, r, field);
	log_reader_get(r, &p, &v);
	s = k < v.nr ? xstrndup(v.v[k].s, v.v[k].len) : xstrdup("");
	log_values_release(&v);
	log_path_release(&p);
	return s;
}

static size_t count(struct log_reader *r, const char *field)
{
	struct log_path p;
	struct log_values v = LOG_VALUES_INIT;
	size_t n;

	log_path_init(&p, r, field);
	n = log_reader_get(r, &p, &v);
	log_values_release(&v);
	log_path_release(&p);
	return n;
}

#define IS_VALUE(r, field, k, want, what) do { \
		char *got_ = value((r), (field), (k)); \
		is_str(got_, (want), (what)); \
		free(got_); \
	} while (0)

static void test_jsonl(void)
{
	char *path = test_write_file(tmpdir, "a.jsonl",
		"{\"q\": \"caf\\u00e9 \\\"x\\\"\", \"meta\": {\"s\": \"s1\", \"n\": 12.5}, \"doc\": [\"c-1\", \"c-2\"]}\n"
		"\n"
		"{\"q\": \"second\", \"cites\": [{\"id\": \"c-3\"}, {\"id\": \"c-4\"}], \"ok\": true, \"x\": null}\r\n"
		"{\"q\": \"trailing comma\",}\n"
		"[1, 2]\n"
		"{\"q\": \"emoji \\ud83d\\ude00\"}\n"
		"{\"q\": \"unterminated}\n"
		"{\"q\": \"last, no newline\"}");
	struct log_reader r;

	ok(!log_reader_open(&r, path, LOG_FORMAT_AUTO), "open a .jsonl log");
	is_int(r.format, LOG_FORMAT_JSONL, "the format comes from the name");
	is_int(log_reader_next(&r), 1, "first record");
	is_int(r.lineno, 1, "first record is on line 1");
	IS_VALUE(&r, "q", 0, "caf\xc3\xa9 \"x\"", "escapes are decoded (\\u00e9, \\\")");
	IS_VALUE(&r, "meta.s", 0, "s1", "a dotted path reaches into an object");
	IS_VALUE(&r, "meta.n", 0, "12.5", "a number is returned as its text");
	is_int(count(&r, "doc"), 2, "a list gives one value per element");
	IS_VALUE(&r, "doc", 1, "c-2", "list order is kept");
	is_int(count(&r, "missing"), 0, "an absent key gives no value");
	is_int(count(&r, "q.deeper"), 0, "a path through a string gives no value");
	is_int(log_reader_next(&r), 1, "a blank line is not a record");
	is_int(r.lineno, 3, "the second record is on line 3");
	is_int(count(&r, "cites.id"), 2, "a path continues into every element of a list");
	IS_VALUE(&r, "cites.id", 1, "c-4", "ids of a list of objects");
	IS_VALUE(&r, "ok", 0, "true", "a boolean is returned as its text");
	is_int(count(&r, "x"), 0, "null gives no value");
	IS_VALUE(&r, "q", 0, "second", "CRLF line endings are accepted");
	is_int(log_reader_next(&r), -2, "a trailing comma is malformed");
	is_int(r.lineno, 4, "the malformed record's line is known");
	is_int(log_reader_next(&r), -2, "an array is not a record");
	is_str(r.why, "not a JSON object", "and says why");
	is_int(log_reader_next(&r), 1, "reading goes on after malformed lines");
	IS_VALUE(&r, "q", 0, "emoji \xf0\x9f\x98\x80", "a surrogate pair becomes one UTF-8 character");
	is_int(log_reader_next(&r), -2, "an unterminated string is malformed");
	is_int(log_reader_next(&r), 1, "a last line without a newline is read");
	IS_VALUE(&r, "q", 0, "last, no newline", "its value");
	is_int(log_reader_next(&r), 0, "then end of file");
	log_reader_close(&r);
	free(path);
}

static void test_long_line(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct log_reader r;
	char *path;

	strbuf_addstr(&sb, "{\"q\": \"before\"}\n{\"q\": \"");
	for (size_t i = 0; i < 3 * (size_t)LOG_MAX_RECORD; i++)
		strbuf_addch(&sb, 'a');
	strbuf_addstr(&sb, "\"}\n{\"q\": \"after\"}\n");
	path = test_write_file(tmpdir, "long.jsonl", sb.buf);
	ok(!log_reader_open(&r, path, LOG_FORMAT_JSONL), "open a log with a 3 MiB line");
	is_int(log_reader_next(&r), 1, "the line before");
	is_int(log_reader_next(&r), -2, "a line over the limit is skipped");
	is_int(r.lineno, 2, "on line 2");
	is_int(log_reader_next(&r), 1, "the line after is read");
	is_int(r.lineno, 3, "on line 3");
	IS_VALUE(&r, "q", 0, "after", "intact");
	log_reader_close(&r);
	strbuf_release(&sb);
	free(path);
}

static void test_csv(void)
{
	char *path = test_write_file(tmpdir, "a.csv",
		"id,question,doc-id-list\r\n"
		"1,\"a question, with a comma\",c-1\r\n"
		"2,\"a \"\"quoted\"\" word\nand a newline\",\"c-2,c-3\"\n"
		"3,ragged row\n"
		"\n"
		"4,last,c-4\n");
	char *tsv = test_write_file(tmpdir, "b.tsv", "question\tdoc\n\"tab\there\"\tc-9\nplain \"inner\" quote\tc-8\n");
	struct log_reader r;

	ok(!log_reader_open(&r, path, LOG_FORMAT_AUTO), "open a CSV log");
	is_int(r.format, LOG_FORMAT_CSV, "CSV by name");
	is_int(log_reader_next(&r), 1, "row 1");
	IS_VALUE(&r, "question", 0, "a question, with a comma", "a quoted field holds the delimiter");
	IS_VALUE(&r, "doc-id-list", 0, "c-1", "a column by its header name");
	is_int(count(&r, "nope"), 0, "an unknown column gives no value");
	is_int(log_reader_next(&r), 1, "row 2");
	is_int(r.lineno, 3, "row 2 starts on line 3");
	IS_VALUE(&r, "question", 0, "a \"quoted\" word\nand a newline", "quotes doubled, newline inside quotes");
	is_int(log_reader_next(&r), -2, "a row with too few fields is malformed");
	is_int(r.lineno, 5, "the ragged row is on line 5 (after a quoted newline)");
	is_int(log_reader_next(&r), 1, "a blank line is skipped, the next row read");
	is_int(r.lineno, 7, "on line 7");
	IS_VALUE(&r, "id", 0, "4", "its first field");
	is_int(log_reader_next(&r), 0, "end of file");
	log_reader_close(&r);

	ok(!log_reader_open(&r, tsv, LOG_FORMAT_AUTO), "open a TSV log");
	is_int(log_reader_next(&r), 1, "TSV row 1");
	IS_VALUE(&r, "question", 0, "tab\there", "a quoted TSV field holds a tab");
	is_int(log_reader_next(&r), 1, "TSV row 2");
	IS_VALUE(&r, "question", 0, "plain \"inner\" quote", "a quote inside an unquoted field is text");
	log_reader_close(&r);
	free(path);
	free(tsv);
}

static void test_gzip(void)
{
	char *path = path_join(tmpdir, "z.log");
	const char *a = "{\"query\": \"one\"}\n", *b = "{\"query\": \"two\"}\n";
	char want[72], got[72];
	struct log_reader r;
	gzFile gz;

	/* two gzip members back to back, as `cat a.gz b.gz` makes */
	gz = gzopen(path, "wb");
	gzwrite(gz, a, (unsigned)strlen(a));
	gzclose(gz);
	gz = gzopen(path, "ab");
	gzwrite(gz, b, (unsigned)strlen(b));
	gzclose(gz);
	ok(!log_reader_open(&r, path, LOG_FORMAT_AUTO), "open a gzip log without a telling name");
	ok(log_reader_gzip(&r), "gzip is detected by content");
	is_int(r.format, LOG_FORMAT_JSONL, "JSON Lines detected by content");
	is_int(log_reader_next(&r), 1, "first member");
	IS_VALUE(&r, "query", 0, "one", "its record");
	is_int(log_reader_next(&r), 1, "second member");
	IS_VALUE(&r, "query", 0, "two", "its record");
	is_int(log_reader_next(&r), 0, "end");
	log_reader_digest(&r, got);
	file_sha256(path, want);
	is_str(got, want, "the digest is of the compressed bytes as stored");
	log_reader_close(&r);
	free(path);
}

/* Read every record of 'path' and return what it yields for a few paths. */
static char *read_all(const char *path, bool fast)
{
	static const char *const fields[] = { "query", "doc", "a.b", "list.id", "n", "missing" };
	struct strbuf sb = STRBUF_INIT;
	struct log_reader r;
	int rc;

	log_json_fast = fast;
	if (log_reader_open(&r, path, LOG_FORMAT_JSONL) < 0)
		return xstrdup("open failed");
	while ((rc = log_reader_next(&r)) != 0) {
		strbuf_addf(&sb, "line %ld rc %d", r.lineno, rc);
		if (rc == -2)
			strbuf_addf(&sb, " (%s)", r.why);
		for (size_t f = 0; rc == 1 && f < ARRAY_SIZE(fields); f++) {
			size_t n = count(&r, fields[f]);
			strbuf_addf(&sb, " %s:", fields[f]);
			for (size_t k = 0; k < n; k++) {
				char *v = value(&r, fields[f], k);
				strbuf_addf(&sb, "[%s]", v);
				free(v);
			}
		}
		strbuf_addch(&sb, '\n');
		if (rc == -1)
			break;
	}
	log_reader_close(&r);
	log_json_fast = true;
	return strbuf_detach(&sb, NULL);
}

static void test_json_paths(void)
{
	const char *log =
		"{\"query\":\"plain\",\"doc\":\"c-1\"}\n"
		"{\"query\": \"tab\\tand \\\"quote\\\"\", \"doc\": [\"c-1\", \"c-2\"]}\n"
		"{\"query\":\"caf\u00e9 \xc3\xa9 \xf0\x9f\x98\x80\",\"doc\":\"\\ud83d\\ude00\"}\n"
		"{\"query\":\"x\",\"a\":{\"b\":\"nested\"},\"list\":[{\"id\":\"c-3\"},{\"id\":\"c-4\"}]}\n"
		"{\"query\":null,\"doc\":[1,2.5e3,-0,true,false,null],\"n\":[]}\n"
		"   {\"query\" : \"spaces\" , \"n\" : -12.5E-1 }   \n"
		"{}\n"
		"\n"
		"{\"query\":\"dup\",\"query\":\"second\",\"doc\":[[\"c-5\"],\"c-6\"]}\n"
		"{\"query\":\"x\",}\n"
		"{\"query\":\"x\"\n"
		"[\"a\"]\n"
		"{\"query\":\"x\"} junk\n"
		"{\"query\":01}\n"
		"{\"query\":\"ctl\x01\"}\n"
		"{\"query\":tru}\n"
		"{\"doc\":[1,]}\n"
		"{\"doc\":[\"a\" \"b\"]}\n"
		"{\"query\":\"bad \\x escape\"}\n"
		"{\"query\":\"last\",\"doc\":\"c-7\"}";
	char *path = test_write_file(tmpdir, "paths.jsonl", log);
	char *full = read_all(path, false), *fast = read_all(path, true);

	is_str(fast, full, "the flat fast path reads every line as the full parser does");
	ok(strstr(full, "query:[tab\tand \"quote\"]") && strstr(full, "list.id:[c-3][c-4]") &&
	   strstr(full, "doc:[1][2.5e3][-0][true][false]") && strstr(full, "query:[dup]") &&
	   strstr(full, "(expected a key in a JSON object)") && strstr(full, "doc:[c-5][c-6]"),
	   "the test lines cover escapes, nesting, lists, literals and malformed lines");
	free(full);
	free(fast);
	free(path);
}

/* Keys holding dots are found by the path spelling them; the objects of a list are items. */
static void test_dotted_keys_and_items(void)
{
	char *path = test_write_file(tmpdir, "dotted.jsonl",
		"{\"gen_ai.prompt\": \"flat dotted\", \"q\": \"x\"}\n"
		"{\"a.b\": \"top dotted\", \"attributes\": {\"gen_ai.op\": \"retrieval\", \"gen_ai\": {\"x\": \"exact\"}, "
		"\"gen_ai.x\": \"dotted\"}, \"events\": [{\"k\": \"e1\", \"attributes\": {\"doc.id\": \"c-1\"}}, "
		"{\"k\": \"e2\"}, \"scalar\"]}\n");

	for (int fast = 0; fast < 2; fast++) {
		struct log_reader r;
		struct log_path p1, p2, p3, p4, ev, id;
		struct log_values v = LOG_VALUES_INIT;
		struct log_items it = { NULL, 0, 0 };

		log_json_fast = fast;
		if (log_reader_open(&r, path, LOG_FORMAT_JSONL) < 0) {
			ok(0, "open %s", path);
			break;
		}
		log_path_init(&p1, &r, "gen_ai.prompt");
		log_path_init(&p2, &r, "a.b");
		log_path_init(&p3, &r, "attributes.gen_ai.op");
		log_path_init(&p4, &r, "attributes.gen_ai.x");
		log_path_init(&ev, &r, "events");
		log_path_init(&id, &r, "attributes.doc.id");
		ok(log_reader_next(&r) == 1 && log_reader_get(&r, &p1, &v) == 1 &&
		   v.v[0].len == 11 && !memcmp(v.v[0].s, "flat dotted", 11),
		   "fast %d: a top-level key with dots, in a flat record", fast);
		v.nr = 0;
		ok(log_reader_next(&r) == 1 && log_reader_get(&r, &p2, &v) == 1 &&
		   log_reader_get(&r, &p3, &v) == 1 && log_reader_get(&r, &p4, &v) == 2 &&
		   v.v[1].len == 9 && !memcmp(v.v[1].s, "retrieval", 9) && v.v[2].len == 5 &&
		   !memcmp(v.v[2].s, "exact", 5) && v.v[3].len == 6 && !memcmp(v.v[3].s, "dotted", 6),
		   "fast %d: dotted keys, nested; the key of one component first",
		   fast);
		v.nr = 0;
		ok(log_reader_items(&r, &ev, &it) == 2 && log_reader_get_in(&r, it.node[0], &id, &v) == 1 &&
		   v.v[0].len == 3 && !memcmp(v.v[0].s, "c-1", 3) && !log_reader_get_in(&r, it.node[1], &id, &v),
		   "fast %d: the objects of a list are items, read each on its own", fast);
		log_path_release(&p1);
		log_path_release(&p2);
		log_path_release(&p3);
		log_path_release(&p4);
		log_path_release(&ev);
		log_path_release(&id);
		log_values_release(&v);
		log_items_release(&it);
		log_reader_close(&r);
	}
	log_json_fast = true;
	free(path);
}

/*
 * Times are written as gmtime and strftime "%Y-%m-%dT%H:%M:%SZ" write them
 * for years 1000..9999 (earlier years get four digits, which strftime does
 * not give), and every written time reads back to the second.
 */
static void test_format_time(void)
{
	uint64_t state = 99;
	size_t same = 0, back = 0, compared = 0, n = 20000;
	double edges[] = { 0, -1, 86399, 86400, -86400, 951782400, 951868800, 4107542400.0,
			   -30610224000.0, 253402300799.0, 1790000000.75, -62135596800.0 };

	for (size_t i = 0; i < n + ARRAY_SIZE(edges); i++) {
		double t, again;
		char mine[32], libc[32];
		time_t tt;
		struct tm tm;

		state = state * 6364136223846793005ULL + 1442695040888963407ULL;
		/* years 1..9999, whole and half seconds, and the edges */
		t = i < n ? (double)((int64_t)(state >> 20) % 315537897600LL) - 62135596800.0 +
			    (i % 3 ? 0 : 0.5)
			  : edges[i - n];
		import_format_time(t, mine);
		back += !import_parse_time(mine, strlen(mine), &again, NULL) && again == floor(t);
		if (t < -30610224000.0)  /* before 1000-01-01 */
			continue;
		/* a 32-bit time_t (i386) holds 1901..2038 only: libc cannot write the rest */
		if (sizeof(time_t) < 8 && (t < -2147483648.0 || t > 2147483647.0))
			continue;
		tt = (time_t)floor(t);
		gmtime_r(&tt, &tm);
		strftime(libc, sizeof(libc), "%Y-%m-%dT%H:%M:%SZ", &tm);
		compared++;
		same += !strcmp(mine, libc);
	}
	ok(compared > (sizeof(time_t) < 8 ? n / 100 : n / 2), "most times compared with strftime");
	is_int((long)same, (long)compared, "times are written as gmtime and strftime write them");
	is_int((long)back, (long)(n + ARRAY_SIZE(edges)), "and every one reads back to the second");
}

static void test_time_and_signals(void)
{
	double t;
	bool d;

	ok(!import_parse_time("1970-01-02", 10, &t, &d) && t == 86400 && d, "a date alone");
	ok(!import_parse_time("2026-11-29T12:00:00Z", 20, &t, &d) && t == 1795953600 && !d, "UTC time");
	ok(!import_parse_time("2026-11-29T13:30:00+01:30", 25, &t, NULL) && t == 1795953600,
	   "an offset is applied");
	ok(!import_parse_time("2026-11-29 12:00:00.250", 23, &t, NULL) && t == 1795953600.25,
	   "a space separator and fractions");
	ok(!import_parse_time("1795953600", 10, &t, NULL) && t == 1795953600, "epoch seconds");
	ok(!import_parse_time("1795953600000", 13, &t, NULL) && t == 1795953600, "epoch milliseconds");
	ok(import_parse_time("2026-13-01", 10, &t, NULL) < 0, "month 13 is refused");
	ok(import_parse_time("yesterday", 9, &t, NULL) < 0, "words are refused");

	is_int(import_signal_kind("click", 5), SIGNAL_CLICK, "click");
	is_int(import_signal_kind("Citation", 8), SIGNAL_CITE, "citation, any case");
	is_int(import_signal_kind("thumbs-up", 9), SIGNAL_POSITIVE, "thumbs-up");
	is_int(import_signal_kind("rating:-1", 9), SIGNAL_NEGATIVE, "rating:-1");
	is_int(import_signal_kind("+1", 2), SIGNAL_POSITIVE, "+1");
	is_int(import_signal_kind("4", 1), SIGNAL_POSITIVE, "a positive number");
	is_int(import_signal_kind("0", 1), SIGNAL_OTHER, "zero is neutral");
	is_int(import_signal_kind("impression", 10), SIGNAL_OTHER, "an impression");
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_jsonl();
	test_long_line();
	test_csv();
	test_gzip();
	test_json_paths();
	test_time_and_signals();
	test_dotted_keys_and_items();
	test_format_time();
	test_remove_tree(tmpdir);
	return test_done();
}
