/*
 * t-logimport: the log readers (JSON Lines, CSV/TSV, gzip, limits), the
 * folding of records into labelled query groups, and the choice helpers
 * (near-duplicate filter, stratified sample).
 */
#include "test-lib.h"
#include "base/digest.h"
#include "base/fsutil.h"
#include "logs/importset.h"
#include "set/set.h"
#include "logs/logimport.h"
#include "logs/logread.h"
#include "logs/sample.h"
#include "text/text.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

static char tmpdir[] = "/tmp/t-logimport-XXXXXX";

static char *write_tmp(const char *name, const char *content)
{
	char *path = path_join(tmpdir, name);
	write_file_atomic(path, content, strlen(content));
	return path;
}

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
	char *path = write_tmp("a.jsonl",
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
	path = write_tmp("long.jsonl", sb.buf);
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
	char *path = write_tmp("a.csv",
		"id,question,doc-id-list\r\n"
		"1,\"a question, with a comma\",c-1\r\n"
		"2,\"a \"\"quoted\"\" word\nand a newline\",\"c-2,c-3\"\n"
		"3,ragged row\n"
		"\n"
		"4,last,c-4\n");
	char *tsv = write_tmp("b.tsv", "question\tdoc\n\"tab\there\"\tc-9\nplain \"inner\" quote\tc-8\n");
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

static struct import_query *find_query(struct import *im, const char *key)
{
	for (size_t i = 0; i < im->nr; i++)
		if (!strcmp(im->q[i].key, key))
			return &im->q[i];
	return NULL;
}

static struct import_query *find_text(struct import *im, const char *text)
{
	for (size_t i = 0; i < im->nr; i++)
		if (!strcmp(im->q[i].text, text))
			return &im->q[i];
	return NULL;
}

static int grade_of(const struct import_query *q, const char *doc)
{
	for (size_t k = 0; q && k < q->t.nr_docs; k++)
		if (!strcmp(import_doc_id(&q->t.docs[k]), doc))
			return q->t.docs[k].grade;
	return -1;
}

static void test_fold(void)
{
	char *path = write_tmp("fold.jsonl",
		"{\"query\": \"How do I reset my password?\", \"doc\": \"c-1\", \"session\": \"s1\", \"time\": \"2026-11-01T10:00:00Z\"}\n"
		"{\"query\": \"how do i reset my password\", \"doc\": \"c-1\", \"session\": \"s2\", \"time\": 1793613600}\n"
		"{\"query\": \"How do I reset my password?\", \"doc\": \"c-1\", \"session\": \"s2\"}\n"
		"{\"query\": \"How do I reset my password?\", \"doc\": \"c-2\", \"session\": \"s3\", \"dwell\": 4}\n"
		"{\"query\": \"How do I reset my password?\", \"doc\": \"c-2\", \"session\": \"s4\", \"dwell\": 3}\n"
		"{\"query\": \"How do I reset my password?\", \"doc\": \"c-3\", \"session\": \"s5\", \"signal\": \"cite\"}\n"
		"{\"query\": \"How do I reset my password?\", \"doc\": \"c-3\", \"session\": \"s6\", \"signal\": \"rating:+1\"}\n"
		"{\"query\": \"How do I reset my password?\", \"doc\": \"c-4\", \"session\": \"s7\", \"signal\": \"thumbs_down\"}\n"
		"{\"query\": \"How do I reset my password?\", \"doc\": \"c-4\", \"session\": \"s8\", \"signal\": -1}\n"
		"{\"query\": \"same session twice\", \"doc\": \"c-5\", \"session\": \"s9\"}\n"
		"{\"query\": \"same session twice\", \"doc\": \"c-5\", \"session\": \"s9\"}\n"
		"{\"query\": \"no session\", \"doc\": \"c-6\"}\n"
		"{\"query\": \"no session\", \"doc\": \"c-6\"}\n"
		"{\"query\": \"mail me at jane@example.com\", \"doc\": \"c-7\"}\n"
		"{\"query\": \"bad \\udc00 utf8 is replaced\"}\n"
		"{\"no_query\": 1}\n"
		"{\"query\": \"?!\"}\n"
		"{\"query\": \"shown\", \"doc\": \"c-8\", \"signal\": \"impression\"}\n");
	struct import_options o;
	struct import im;
	struct import_query *q;

	import_options_init(&o);
	o.assume_click = true;  /* click logs: a document without a signal is a click */
	import_init(&im, &o);
	test_capture_errors();
	ok(!import_read(&im, path), "read a log of signals");
	import_label(&im);
	is_int(im.st.records, 18, "every record counted");
	is_int(im.st.missing_query, 1, "a record without the query field is counted");
	is_int(im.st.empty_query, 1, "a query of punctuation only is counted as empty");
	q = find_query(&im, "how do i reset my password");
	ok(q != NULL, "case and trailing punctuation are folded into one group");
	if (!q)
		return;
	is_int(q->t.count, 9, "the group counts every record of its forms");
	is_str(q->text, "How do I reset my password?", "the most frequent original form is the text");
	is_int(grade_of(q, "c-1"), 2, "clicks from two sessions make a label; 3 of 5 positives: grade 2");
	is_int(grade_of(q, "c-2"), 0, "short clicks make no label");
	is_int(q->t.short_clicks, 2, "short clicks are counted");
	is_int(grade_of(q, "c-3"), 1, "a citation and a positive rating make a label; 2 of 5: grade 1");
	is_int(grade_of(q, "c-4"), 0, "negative ratings make no label");
	is_int(q->t.negative, 2, "negative ratings are counted ('thumbs_down' and -1)");
	is_int((long)sketch_count(&q->t.sessions, IMPORT_SESSION_SKETCH), 8, "distinct sessions");
	ok(q->t.dated && q->t.first == 1793527200 && q->t.last == 1793613600,
	   "first and last seen come from ISO and epoch times alike");
	q = find_query(&im, "same session twice");
	is_int(grade_of(q, "c-5"), 0, "two clicks from one session are one session: no label");
	q = find_query(&im, "no session");
	is_int(grade_of(q, "c-6"), 2, "records without a session count as sessions of their own");
	q = find_text(&im, "mail me at [EMAIL]");
	ok(q != NULL, "PII is redacted before grouping");
	is_int(im.st.pii.n[PII_EMAIL], 1, "and counted by kind");
	is_int(im.st.other_signals, 1, "an impression is another signal, not a label");
	is_int(im.st.labelled, 2, "two queries labelled");
	import_release(&im);

	o.pii = PII_DROP;
	o.min_clicks = 1;
	import_init(&im, &o);
	ok(!import_read(&im, path), "read again, dropping PII");
	import_label(&im);
	ok(!find_text(&im, "mail me at [EMAIL]"), "the query holding PII is dropped");
	is_int(im.st.pii_dropped, 1, "and counted");
	q = find_query(&im, "same session twice");
	is_int(grade_of(q, "c-5"), 2, "--min-clicks 1: one session makes a label");
	import_release(&im);

	o.pii = PII_REDACT;
	o.have_since = true;
	import_parse_time("2026-11-01", 10, &o.since, NULL);
	o.have_until = true;
	import_parse_time("2026-11-01T12:00:00Z", 20, &o.until, NULL);
	import_init(&im, &o);
	ok(!import_read(&im, path), "read again within a time window");
	is_int(im.st.used, 1, "only the record inside the window counts");
	is_int(im.st.undated, 15, "records without a time are left out");
	is_int(im.st.outside, 1, "the record after --until is left out");
	import_release(&im);
	test_captured();
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
	char *path = write_tmp("paths.jsonl", log);
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

/* Read 'path' (JSON Lines fast path on or off) and return a fingerprint of the result. */
/*
 * Return what importing 'path' gives, as text ('split_min' 0: one reader;
 * 'round': records between the two readers' exchanges, 0 the default).
 */
static char *fingerprint(const char *path, bool fast, long long split_min, long round)
{
	struct import_options o;
	struct import im;
	struct strbuf sb = STRBUF_INIT;

	import_options_init(&o);
	o.assume_click = true;  /* click logs: a document without a signal is a click */
	o.split_min = split_min;
	o.split_round = round;
	log_json_fast = fast;
	import_init(&im, &o);
	test_capture_errors();
	if (import_read(&im, path) < 0)
		strbuf_addstr(&sb, "read failed");
	strbuf_addf(&sb, "warnings: %s\n", test_captured());
	import_label(&im);
	strbuf_addf(&sb, "records %lu malformed %lu missing %lu used %lu pii %lu/%lu/%lu email %lu "
		    "phone %lu pos %lu neg %lu short %lu other %lu labelled %lu empty %lu\n",
		    im.st.records, im.st.malformed, im.st.missing_query, im.st.used,
		    im.st.pii_records, im.st.pii_dropped, im.st.pii_dropped_queries,
		    im.st.pii.n[PII_EMAIL], im.st.pii.n[PII_PHONE], im.st.positive, im.st.negative,
		    im.st.short_clicks, im.st.other_signals, im.st.labelled, im.st.empty_query);
	for (int f = 0; f < IMPORT_NR_FIELDS; f++)
		strbuf_addf(&sb, "%s seen %lu\n", import_field_name(f), im.st.field_seen[f]);
	for (size_t k = 0; k < im.st.nr_malformed_at; k++)
		strbuf_addf(&sb, "malformed at %s\n", im.st.malformed_at[k]);
	for (size_t k = 0; k < im.st.nr_missing_at; k++)
		strbuf_addf(&sb, "missing at %s\n", im.st.missing_at[k]);
	for (size_t i = 0; i < im.nr; i++) {
		const struct import_query *q = &im.q[i];
		strbuf_addf(&sb, "%s|%s|%lu|%.0f|%lu|%.0f|%.0f:", q->key, q->text, q->t.count,
			    sketch_count(&q->t.sessions, IMPORT_SESSION_SKETCH), q->t.positive,
			    q->t.dated ? q->t.first : -1, q->t.dated ? q->t.last : -1);
		for (size_t k = 0; k < q->t.nr_docs; k++)
			if (q->t.docs[k].grade || q->t.docs[k].negative)
				strbuf_addf(&sb, " %s=%d/%u/%u/%.0f", import_doc_id(&q->t.docs[k]), q->t.docs[k].grade,
					    q->t.docs[k].positive, q->t.docs[k].negative,
					    sketch_count(&q->t.docs[k].sessions, IMPORT_DOC_SKETCH));
		strbuf_addch(&sb, '\n');
	}
	is_int(im.nr_logs, 1, "one log recorded");
	strbuf_addf(&sb, "digest %s\n", im.nr_logs ? im.logs[0].digest : "");
	if (split_min)
		is_int(im.nr_logs ? im.logs[0].readers : 0, 2, "the log was read by two readers");
	import_release(&im);
	return strbuf_detach(&sb, NULL);
}

static void test_fast_path_import(void)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t state = 5;
	char *path, *one, *two, want[72];

	for (int i = 0; i < 6000; i++) {
		unsigned r;
		state = state * 6364136223846793005ULL + 1442695040888963407ULL;
		r = (unsigned)(state >> 33);
		if (r % 97 == 0) {
			strbuf_addstr(&sb, "{broken\n");
			continue;
		}
		if (r % 89 == 0) {
			strbuf_addstr(&sb, "{\"other\": 1}\n");
			continue;
		}
		strbuf_addf(&sb, "{\"query\": \"%s question %u%s\", \"doc\": [\"c-%u\", \"c-%u\"], "
			    "\"session\": \"s%u\", \"signal\": \"%s\", \"time\": %u}\n",
			    r % 3 ? "How to" : "how to", (r >> 4) % 150,
			    r % 53 == 0 ? " for a@b.com" : r % 7 == 0 ? "?" : "",
			    (r >> 8) % 5, (r >> 12) % 40, (r >> 16) % 700,
			    r % 11 == 0 ? "thumbs_down" : "click", 1790000000u + (unsigned)i * 60);
	}
	path = write_tmp("split.jsonl", sb.buf);
	one = fingerprint(path, false, 0, 0);
	two = fingerprint(path, true, 0, 0);
	log_json_fast = true;
	is_str(two, one, "the JSON fast path gives exactly what the full parser gives");
	file_sha256(path, want);
	ok(strstr(two, want) != NULL, "and the digest of the whole file");
	ok(strstr(one, "malformed at ") != NULL && strstr(one, "labelled 0") == NULL,
	   "the test log has malformed records and labels");
	free(one);
	free(two);
	strbuf_release(&sb);
	free(path);
}

/*
 * A log read by two threads (each from one half) gives exactly what one
 * reader gives: counts, sessions (exact and estimated), times, labels, the
 * places of malformed records (line numbers of the second half included)
 * and the digest of the whole file.
 */
/*
 * Append 'lines' lines of a test log to 'sb' (seeded by '*state'): many
 * queries in several forms, one with thousands of sessions, PII, empty
 * queries, malformed lines, invalid UTF-8, records without a query or (but
 * with 'all_sessions') without a session.
 */
static void make_log(struct strbuf *sb, int lines, uint64_t *state, bool all_sessions)
{
	struct strbuf q = STRBUF_INIT;

	for (int i = 0; i < lines; i++) {
		unsigned r, head;
		*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
		r = (unsigned)(*state >> 33);
		head = r % 4 == 0;  /* one query with thousands of sessions */
		if (r % 211 == 0) {
			strbuf_addstr(sb, r % 2 ? "{\"query\": \"broken\"\n" : "\n");
			continue;
		}
		if (r % 223 == 0) {
			strbuf_addstr(sb, "{\"query\": \"bad \xff byte\", \"doc\": \"c-1\"}\n");
			continue;
		}
		if (r % 227 == 0) {
			strbuf_addstr(sb, "{\"doc\": \"c-1\"}\r\n");
			continue;
		}
		/* forms of many queries, a few with PII, a few empty once normalised */
		strbuf_reset(&q);
		if (head)
			strbuf_addstr(&q, r % 3 ? "reset password" : "Reset  password?");
		else if (r % 101 == 0)
			strbuf_addstr(&q, "mail me at x@example.com");
		else if (r % 103 == 0)
			strbuf_addstr(&q, "??");
		else
			strbuf_addf(&q, "%s %u%s", r % 7 ? "question" : "Question", (r >> 4) % 700,
				    r % 5 ? "" : "?");
		strbuf_addf(sb, "{\"query\": \"%s\", \"doc\": [\"c-%u\", \"c-%u\"], ", q.buf,
			    head ? (r >> 8) % 12 : (r >> 8) % 5, (r >> 12) % 40);
		if (r % 5 || all_sessions)
			strbuf_addf(sb, "\"session\": \"s%u\", ", (r >> 16) % 5000);
		strbuf_addf(sb, "\"signal\": \"%s\", \"dwell\": %u, \"time\": %u}\n",
			    r % 11 == 0 ? "thumbs_down" : r % 13 == 0 ? "impression" : "click",
			    (r >> 20) % 90, 1790000000u + (unsigned)i * 60);
	}
	strbuf_release(&q);
}

static void test_two_readers(void)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t state = 11;
	char *path, *one, *two, want[72];
	int lines[] = { 900, 30000 };

	for (size_t n = 0; n < ARRAY_SIZE(lines); n++) {
		strbuf_reset(&sb);
		make_log(&sb, lines[n], &state, false);
		path = write_tmp("two.jsonl", sb.buf);
		one = fingerprint(path, true, 0, 0);
		two = fingerprint(path, true, 1, 0);
		is_str(two, one, n ? "30000 lines: two readers give exactly what one gives"
				   : "900 lines: two readers give exactly what one gives");
		free(two);
		two = fingerprint(path, true, 1, 97);
		is_str(two, one, "and so do two readers exchanging records every 97 lines");
		file_sha256(path, want);
		ok(strstr(two, want) != NULL, "and the digest covers the whole file");
		ok(strstr(one, "malformed at ") && strstr(one, "missing at ") && !strstr(one, "labelled 0"),
		   "the log has malformed records, records without a query and labels");
		free(one);
		free(two);
		free(path);
	}
	strbuf_release(&sb);
}

/*
 * The --unlabelled lines are written without cJSON: each must be valid JSON
 * in cJSON's own unformatted form, and give back the query exactly, whatever
 * characters it holds.
 */
static void test_unlabelled_lines(void)
{
	static const char *const queries[] = {
		"plain query", "a \\\"quoted\\\" one", "back\\\\slash", "tab\\there",
		"ctrl \\u0001 and \\u001f", "caf\u00e9 \u2014 \u65e5\u672c", "slash / and \\u007f del",
	};
	struct strbuf log = STRBUF_INIT, out = STRBUF_INIT;
	struct import_options o;
	struct import_apply_options ao = { 0 };
	struct import_outcome res;
	struct import im;
	struct set s = SET_INIT;
	char *path;
	size_t lines = 0, round_trips = 0, canonical = 0;

	for (size_t k = 0; k < ARRAY_SIZE(queries); k++)
		strbuf_addf(&log, "{\"query\": \"%s\", \"session\": \"s%zu\", \"doc\": \"d-%zu\", "
			    "\"time\": \"2026-11-0%zuT10:00:00Z\"}\n", queries[k], k, k, k + 1);
	path = write_tmp("unlabelled.jsonl", log.buf);
	import_options_init(&o);
	o.assume_click = true;  /* click logs: a document without a signal is a click */
	import_init(&im, &o);
	ok(!import_read(&im, path), "a log of awkward queries reads");
	import_label(&im);
	import_apply(&im, &s, &ao, &res);
	import_unlabelled_jsonl(&im, &res, &out);
	for (char *line = out.buf, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
		cJSON *j, *q;
		char *again;

		*nl = '\0';
		lines++;
		j = cJSON_Parse(line);
		q = cJSON_GetObjectItemCaseSensitive(j, "query");
		for (size_t i = 0; cJSON_IsString(q) && i < im.nr; i++)
			if (!strcmp(im.q[i].text, q->valuestring))
				round_trips++;
		again = j ? cJSON_PrintUnformatted(j) : NULL;
		canonical += again && !strcmp(again, line);
		free(again);
		cJSON_Delete(j);
	}
	is_int((long)lines, (long)ARRAY_SIZE(queries), "one line per unlabelled query");
	is_int((long)round_trips, (long)ARRAY_SIZE(queries), "each line gives back its query exactly");
	is_int((long)canonical, (long)ARRAY_SIZE(queries), "each line is what cJSON prints for it");
	import_outcome_release(&res);
	import_release(&im);
	set_release(&s);
	strbuf_release(&log);
	strbuf_release(&out);
	free(path);
}

/* Return the groups and counts importing the 'nr' logs 'paths' gives (places and digests left out). */
static char *groups_of(const char *const *paths, size_t nr, long long split_min)
{
	struct import_options o;
	struct import im;
	struct strbuf sb = STRBUF_INIT;

	import_options_init(&o);
	o.assume_click = true;  /* click logs: a document without a signal is a click */
	o.split_min = split_min;
	import_init(&im, &o);
	test_capture_errors();
	for (size_t k = 0; k < nr; k++)
		if (import_read(&im, paths[k]) < 0)
			strbuf_addstr(&sb, "read failed\n");
	test_captured();
	import_label(&im);
	strbuf_addf(&sb, "records %lu malformed %lu used %lu pii %lu pos %lu labelled %lu/%lu\n",
		    im.st.records, im.st.malformed, im.st.used, im.st.pii_records, im.st.positive,
		    im.st.labelled, im.st.unlabelled);
	for (size_t i = 0; i < im.nr; i++) {
		const struct import_query *q = &im.q[i];
		strbuf_addf(&sb, "%s|%s|%lu|%.0f:", q->key, q->text, q->t.count,
			    sketch_count(&q->t.sessions, IMPORT_SESSION_SKETCH));
		for (size_t k = 0; k < q->t.nr_docs; k++)
			if (q->t.docs[k].grade)
				strbuf_addf(&sb, " %s=%d", import_doc_id(&q->t.docs[k]), q->t.docs[k].grade);
		strbuf_addch(&sb, '\n');
	}
	import_release(&im);
	return strbuf_detach(&sb, NULL);
}

/*
 * Importing a log in two files gives what importing it in one gives: the
 * second file's forms meet the groups the first made, with one reader per
 * file or two.
 */
static void test_two_files(void)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t state = 23;
	const char *split_at;
	char *whole, *parts[2], *one, *two;

	make_log(&sb, 20000, &state, true);
	whole = write_tmp("whole.jsonl", sb.buf);
	split_at = strchr(sb.buf + sb.len * 2 / 5, '\n') + 1;
	parts[1] = write_tmp("b.jsonl", split_at);
	strbuf_setlen(&sb, (size_t)(split_at - sb.buf));
	parts[0] = write_tmp("a.jsonl", sb.buf);
	one = groups_of((const char *const *)&whole, 1, 0);
	two = groups_of((const char *const *)parts, 2, 0);
	is_str(two, one, "a log in two files gives the groups of the log in one");
	free(two);
	two = groups_of((const char *const *)parts, 2, 1);
	is_str(two, one, "and so it does with two readers per file");
	ok(strstr(one, "reset password|") != NULL, "the test log has its groups");
	free(one);
	free(two);
	free(whole);
	free(parts[0]);
	free(parts[1]);
	strbuf_release(&sb);
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

static void test_sketch(void)
{
	struct import_options o;
	struct import im;
	struct strbuf sb = STRBUF_INIT;
	char *path;
	double n;

	for (int i = 0; i < 20000; i++)
		strbuf_addf(&sb, "{\"query\": \"popular\", \"session\": \"s%d\"}\n", i);
	for (int i = 0; i < 100; i++)
		strbuf_addf(&sb, "{\"query\": \"small\", \"session\": \"s%d\"}\n", i % 50);
	path = write_tmp("many.jsonl", sb.buf);
	import_options_init(&o);
	o.assume_click = true;  /* click logs: a document without a signal is a click */
	import_init(&im, &o);
	import_read(&im, path);
	import_label(&im);
	n = sketch_count(&im.q[0].t.sessions, IMPORT_SESSION_SKETCH);
	ok(n > 18000 && n < 22000, "20,000 sessions estimated within 10%% (%.0f)", n);
	is_int((long)sketch_count(&im.q[1].t.sessions, IMPORT_SESSION_SKETCH), 50,
	       "a small number of sessions is exact");
	import_release(&im);
	strbuf_release(&sb);
	free(path);
}

static void test_dedup(void)
{
	static const char *const words[] = { "reset", "password", "account", "login", "billing",
		"export", "invoice", "the", "my", "how", "to", "api", "key" };
	struct dedup *d = dedup_new(TEXT_NEAR_DUP_THRESHOLD);
	char *texts[400];
	long held[400];
	size_t nr_held = 0, agree = 0;
	uint64_t state = 42;

	for (int i = 0; i < 400; i++) {
		struct strbuf sb = STRBUF_INIT;
		int n = 2 + (int)((state = state * 6364136223846793005ULL + 1) >> 60) % 5;
		for (int k = 0; k < n; k++) {
			state = state * 6364136223846793005ULL + 1;
			strbuf_addf(&sb, "%s%s", k ? " " : "", words[(state >> 33) % ARRAY_SIZE(words)]);
		}
		texts[i] = strbuf_detach(&sb, NULL);
	}
	for (int i = 0; i < 400; i++) {
		long found = dedup_find(d, texts[i]);
		bool brute = false;
		for (size_t k = 0; k < nr_held && !brute; k++)
			brute = text_near_duplicate(texts[i], texts[held[k]], TEXT_NEAR_DUP_THRESHOLD);
		agree += (found >= 0) == brute;
		if (found >= 0 && !text_near_duplicate(texts[i], texts[found], TEXT_NEAR_DUP_THRESHOLD))
			ok(0, "'%s' reported as a duplicate of '%s'", texts[i], texts[found]);
		if (found < 0) {
			dedup_add(d, texts[i], i);
			held[nr_held++] = i;
		}
	}
	is_int(agree, 400, "the prefix filter finds exactly what comparing every pair finds");
	ok(nr_held > 20 && nr_held < 400, "the test texts hold duplicates and distinct ones (%zu kept)",
	   nr_held);
	for (int i = 0; i < 400; i++)
		free(texts[i]);
	dedup_free(d);
}

static void test_sample(void)
{
	unsigned long counts[100];
	enum stratum st[100];
	bool a[100], b[100];
	size_t per[NR_STRATA] = { 0 }, n;

	for (int i = 0; i < 100; i++)
		counts[i] = i < 5 ? 100 : i < 30 ? 20 : 7;
	strata_assign(counts, 100, st);
	is_int(st[0], STRATUM_HEAD, "the most frequent query is head");
	is_int(st[99], STRATUM_TAIL, "the rarest is tail");
	n = sample_stratified(st, 100, 9, 7, a);
	is_int(n, 9, "nine chosen");
	for (int i = 0; i < 100; i++)
		if (a[i])
			per[st[i]]++;
	ok(per[STRATUM_HEAD] == 3 && per[STRATUM_TAIL] == 3 && per[STRATUM_TORSO] == 3,
	   "each stratum gets a third (%zu head, %zu torso, %zu tail)",
	   per[STRATUM_HEAD], per[STRATUM_TORSO], per[STRATUM_TAIL]);
	sample_stratified(st, 100, 9, 7, b);
	ok(!memcmp(a, b, sizeof(a)), "the same seed chooses the same queries");
	sample_stratified(st, 100, 9, 8, b);
	ok(memcmp(a, b, sizeof(a)) != 0, "another seed chooses others");
	is_int(sample_stratified(st, 100, 500, 1, b), 100, "asking for more than there is takes all");
	n = sample_stratified(st, 100, 12, 3, a);
	per[0] = per[1] = per[2] = 0;
	for (int i = 0; i < 100; i++)
		if (a[i])
			per[st[i]]++;
	ok(n == 12 && per[STRATUM_HEAD] == 4, "a stratum that runs short (5 head queries, 4 asked) is filled");
	counts[0] = 10000;
	strata_assign(counts, 100, st);
	n = sample_stratified(st, 100, 9, 3, a);
	per[0] = per[1] = per[2] = 0;
	for (int i = 0; i < 100; i++)
		if (a[i])
			per[st[i]]++;
	ok(n == 9 && per[STRATUM_HEAD] == 1 && per[STRATUM_TAIL] >= 4,
	   "a one-query head gives its share to the rarer strata (%zu, %zu, %zu)",
	   per[STRATUM_HEAD], per[STRATUM_TORSO], per[STRATUM_TAIL]);
}

static void cleanup(void)
{
	static const char *const names[] = { "a.jsonl", "long.jsonl", "a.csv", "b.tsv", "z.log",
		"fold.jsonl", "many.jsonl", "split.jsonl", "paths.jsonl", "two.jsonl", "unlabelled.jsonl", "whole.jsonl", "a.jsonl", "b.jsonl" };
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char *p = path_join(tmpdir, names[i]);
		unlink(p);
		free(p);
	}
	rmdir(tmpdir);
}

/* Keys holding dots are found by the path spelling them; the objects of a list are items. */
static void test_dotted_keys_and_items(void)
{
	char *path = write_tmp("dotted.jsonl",
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

/* A record naming documents without any signal refuses the log, unless it is said to be a click. */
static void test_no_signal(void)
{
	static const char log[] =
		"{\"query\": \"only a search\"}\n"
		"{\"query\": \"a\", \"doc\": \"c-1\", \"signal\": \"click\"}\n"
		"{\"query\": \"a\", \"doc\": \"c-2\", \"dwell\": 40}\n"
		"{\"query\": \"b\", \"doc\": [\"c-1\", \"c-2\"]}\n"
		"{\"query\": \"b\", \"doc\": \"c-3\"}\n";
	char *path = write_tmp("nosignal.jsonl", log);
	struct import_options o;
	struct import im;
	const char *err;

	for (int readers = 1; readers <= 2; readers++) {
		import_options_init(&o);
		o.split_min = readers == 2 ? 1 : 0;
		o.split_round = 64;
		import_init(&im, &o);
		test_capture_errors();
		ok(import_read(&im, path) < 0, "%d reader(s): documents without a signal refuse the log",
		   readers);
		err = test_captured();
		ok(strstr(err, "nosignal.jsonl:4:") && strstr(err, "2 such records") &&
		   strstr(err, "--assume-click"), "the first such record is named, with the way out: %s",
		   err);
		is_int(im.nr_logs, 0, "nothing of the log is kept");
		import_release(&im);
	}
	import_options_init(&o);
	o.assume_click = true;
	o.min_clicks = 1;
	import_init(&im, &o);
	ok(!import_read(&im, path), "--assume-click: the same log reads");
	import_label(&im);
	is_int(im.st.positive, 5, "a signal, a dwell and three assumed clicks are positive events");
	import_release(&im);
	free(path);

	/* CSV: an empty cell is no value, for the documents as for the signal */
	path = write_tmp("nosignal.csv", "query,doc,signal,dwell\nseen,,,\nseen,c-1,click,\nseen,c-2,,\n");
	import_options_init(&o);
	import_init(&im, &o);
	test_capture_errors();
	ok(import_read(&im, path) < 0 && strstr(test_captured(), "nosignal.csv:4:"),
	   "an empty signal or dwell cell is no signal; an empty document cell needs none");
	import_release(&im);
	free(path);
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
	test_fold();
	test_json_paths();
	test_fast_path_import();
	test_two_readers();
	test_unlabelled_lines();
	test_two_files();
	test_time_and_signals();
	test_no_signal();
	test_dotted_keys_and_items();
	test_format_time();
	test_sketch();
	test_dedup();
	test_sample();
	cleanup();
	return test_done();
}
