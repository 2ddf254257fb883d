/*
 * t-logimport: the folding of records into labelled query groups (one
 * reader or two, one file or several, the fast JSON path or the full
 * parser: the same groups), lines left unlabelled, logs without a signal,
 * and the choice helpers (session sketches, near-duplicate filter,
 * stratified sample).
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
	char *path = test_write_file(tmpdir, "fold.jsonl",
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
	path = test_write_file(tmpdir, "split.jsonl", sb.buf);
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
		path = test_write_file(tmpdir, "two.jsonl", sb.buf);
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
	path = test_write_file(tmpdir, "unlabelled.jsonl", log.buf);
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
	whole = test_write_file(tmpdir, "whole.jsonl", sb.buf);
	split_at = strchr(sb.buf + sb.len * 2 / 5, '\n') + 1;
	parts[1] = test_write_file(tmpdir, "b.jsonl", split_at);
	strbuf_setlen(&sb, (size_t)(split_at - sb.buf));
	parts[0] = test_write_file(tmpdir, "a.jsonl", sb.buf);
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

/* A record naming documents without any signal refuses the log, unless it is said to be a click. */
static void test_no_signal(void)
{
	static const char log[] =
		"{\"query\": \"only a search\"}\n"
		"{\"query\": \"a\", \"doc\": \"c-1\", \"signal\": \"click\"}\n"
		"{\"query\": \"a\", \"doc\": \"c-2\", \"dwell\": 40}\n"
		"{\"query\": \"b\", \"doc\": [\"c-1\", \"c-2\"]}\n"
		"{\"query\": \"b\", \"doc\": \"c-3\"}\n";
	char *path = test_write_file(tmpdir, "nosignal.jsonl", log);
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
	path = test_write_file(tmpdir, "nosignal.csv", "query,doc,signal,dwell\nseen,,,\nseen,c-1,click,\nseen,c-2,,\n");
	import_options_init(&o);
	import_init(&im, &o);
	test_capture_errors();
	ok(import_read(&im, path) < 0 && strstr(test_captured(), "nosignal.csv:4:"),
	   "an empty signal or dwell cell is no signal; an empty document cell needs none");
	import_release(&im);
	free(path);
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
	path = test_write_file(tmpdir, "many.jsonl", sb.buf);
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

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_fold();
	test_fast_path_import();
	test_two_readers();
	test_unlabelled_lines();
	test_two_files();
	test_no_signal();
	test_sketch();
	test_dedup();
	test_sample();
	test_remove_tree(tmpdir);
	return test_done();
}
