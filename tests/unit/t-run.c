/*
 * t-run: reading runs in every format (core/score/run.c), the exact score parser,
 * and results files (core/score/results.c) written and read back.
 */
#include "test-lib.h"
#include "score/qrels.h"
#include "score/results.h"
#include "score/treceval.h"
#include "score/run.h"
#include "base/fsutil.h"
#include "base/jsontree.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <cjson/cJSON.h>

static char tmpdir[] = "/tmp/t-run-XXXXXX";

static char *write_tmp(const char *name, const char *content, size_t len)
{
	char *path = xstrfmt("%s/%s", tmpdir, name);
	FILE *fp = fopen(path, "wb");

	fwrite(content, 1, len, fp);
	fclose(fp);
	return path;
}

static int load_str(struct run *r, const char *name, const char *content)
{
	char *path = write_tmp(name, content, strlen(content));
	int ret;

	run_init(r);
	ret = run_load(r, path);
	free(path);
	return ret;
}

static void test_scores(void)
{
	static const char *const texts[] = {
		"27.088610", "5", "5.0", "5e0", "-0.5", "0.1234567891", "16777217", "1e22",
		"1e23", "123456789012345678901234", "0.000000000000000000001", "3.14159265358979323846",
		"-1e-300", "0x10", ".5", "5.",
	};
	bool exact = true;
	double v;
	char buf[64];

	for (size_t i = 0; i < ARRAY_SIZE(texts); i++) {
		double want = strtod(texts[i], NULL);

		if (run_parse_score(texts[i], strlen(texts[i]), &v) < 0 || v != want) {
			test_diag("'%s' parsed as %.17g, strtod gives %.17g", texts[i], v, want);
			exact = false;
		}
	}
	/* random decimals of up to 17 significant digits and exponents -30..30 */
	for (int i = 0; i < 20000; i++) {
		long long m = ((long long)rand() << 31 | rand()) % 100000000000000000LL;
		int e = rand() % 61 - 30;

		snprintf(buf, sizeof(buf), "%lldE%d", m, e);
		if (run_parse_score(buf, strlen(buf), &v) < 0 || v != strtod(buf, NULL)) {
			test_diag("'%s' differs from strtod", buf);
			exact = false;
			break;
		}
		snprintf(buf, sizeof(buf), "%.*f", rand() % 12, (double)m / 1e6);
		if (run_parse_score(buf, strlen(buf), &v) < 0 || v != strtod(buf, NULL)) {
			test_diag("'%s' differs from strtod", buf);
			exact = false;
			break;
		}
	}
	ok(exact, "scores parse exactly as strtod does (fast path and fallback)");
	ok(run_parse_score("nan", 3, &v) < 0, "NaN is refused");
	ok(run_parse_score("inf", 3, &v) < 0, "infinity is refused");
	ok(run_parse_score("1e999", 5, &v) < 0, "an overflow to infinity is refused");
	ok(run_parse_score("abc", 3, &v) < 0, "a word is refused");
	ok(run_parse_score("1.5x", 4, &v) < 0, "trailing bytes are refused");
}

static void test_trec(void)
{
	struct run r;
	struct run_query *q;

	ok(!load_str(&r, "a.trec",
		     "q1 Q0 d1 1 5.0 tag\n"
		     "q1 Q0 d2 2 5 tag\n"
		     "# a comment\n"
		     "\n"
		     "q2\tQ0\tx 1 1.5 tag\n"
		     "q1 Q0 d3 9 7.25 last\n"), "a TREC run with ties, tabs, comments and an unsorted line loads");
	is_int(r.format, RUN_TREC, "detected as TREC");
	q = run_find(&r, "q1");
	ok(q && q->nr == 3, "q1 holds its three lines, wherever they are");
	if (q && q->nr == 3) {
		is_str(q->docs[0].id, "d3", "ranked by score first");
		is_str(q->docs[1].id, "d2", "ties by docid descending");
		is_str(q->docs[2].id, "d1", "... d2 before d1");
	}
	is_str(r.name, "last", "the run's name is the tag of its last line");
	run_release(&r);

	test_capture_errors();
	ok(load_str(&r, "b.trec", "q1 Q0 d1 1 5.0 tag\nq1 Q0 d2 2 5.0\n") < 0, "a line of 5 fields is refused");
	ok(strstr(test_captured(), "b.trec:2: expected 6 fields") != NULL, "... naming the file and line");
	ok(load_str(&r, "c.trec", "q1 Q0 d1 1 high tag\n") < 0, "a non-numeric score is refused");
	ok(strstr(test_captured(), "c.trec:1: score 'high' is not a finite number") != NULL, "... with the score");
	ok(load_str(&r, "d.trec", "q1 Q0 d1 1 nan tag\n") < 0, "a NaN score is refused");
	test_captured();
	ok(load_str(&r, "e.trec", "q1 Q0 d1 1 1 t\nq1 Q0 d2 2 1 t\nq1 Q0 d1 3 0.5 t\n") < 0,
	   "a docid twice for one question is refused");
	ok(strstr(test_captured(), "e.trec:3: document 'd1' listed twice for question 'q1' (first at line 1)") != NULL,
	   "... naming the second line and the first");
	{
		char *bin = write_tmp("f.trec", "q1 Q0 d1\0 1 1 t\n", 16);

		run_init(&r);
		ok(run_load(&r, bin) < 0, "a binary file is refused");
		ok(strstr(test_captured(), "f.trec:1: binary file") != NULL, "... naming the file");
		free(bin);
	}
	test_captured();
	ok(!load_str(&r, "empty.trec", ""), "an empty run is valid");
	is_int(r.nr, 0, "... and holds no question");
	run_release(&r);
}

static void test_json_formats(void)
{
	struct run r;
	struct run_query *q;

	ok(!load_str(&r, "a.jsonl",
		     "{\"meta\": {\"retriever\": \"bm25\", \"digest\": \"sha256:x\"}}\n"
		     "{\"qid\": \"q-1\", \"results\": [{\"id\": \"c-2\", \"score\": 1}, {\"id\": \"c-1\", \"score\": 3}]}\n"
		     "{\"qid\": \"q-2\", \"results\": [\"c-9\", \"c-8\"], \"abstained\": false}\n"
		     "{\"qid\": \"q-3\", \"results\": [], \"abstained\": true}\n"), "JSONL with meta loads");
	is_int(r.format, RUN_JSONL, "detected as JSONL");
	is_str(r.name, "bm25", "meta names the retriever");
	q = run_find(&r, "q-1");
	ok(q && q->nr == 2 && !strcmp(q->docs[0].id, "c-2"), "JSONL list order is the ranking, whatever the scores");
	q = run_find(&r, "q-2");
	ok(q && q->nr == 2 && isnan(q->docs[0].score), "a list of ids has no scores");
	q = run_find(&r, "q-3");
	ok(q && q->abstained && !q->nr, "abstained is kept");
	run_release(&r);

	ok(!load_str(&r, "a.json", "{\"q1\": {\"a\": 1.5, \"b\": 2.5, \"c\": 2.5}, \"q2\": {}}"),
	   "a JSON dict run loads");
	is_int(r.format, RUN_JSON, "detected as JSON");
	q = run_find(&r, "q1");
	ok(q && q->nr == 3 && !strcmp(q->docs[0].id, "c") && !strcmp(q->docs[2].id, "a"),
	   "a JSON dict is ranked like TREC (score, then docid descending)");
	run_release(&r);

	test_capture_errors();
	ok(load_str(&r, "b.jsonl", "{\"qid\": \"q\", \"results\": []}\n[1, 2]\n") < 0,
	   "a JSONL line that is not an object is refused");
	ok(strstr(test_captured(), "b.jsonl:2: line is a list, not a JSON object") != NULL, "... naming the line");
	ok(load_str(&r, "c.jsonl", "{\"qid\": \"q\", \"results\": {\"a\": 1}}\n") < 0,
	   "results that are not a list are refused");
	ok(strstr(test_captured(), "c.jsonl:1: 'results' is an object, not a list") != NULL, "... naming the line");
	ok(load_str(&r, "d.jsonl", "{\"qid\": \"q\", \"results\": [\"a\", \"b\", \"a\"]}\n") < 0,
	   "a docid twice in a JSONL list is refused");
	ok(load_str(&r, "e.jsonl", "{\"qid\": \"q\", \"results\": []}\n{\"qid\": \"q\", \"results\": []}\n") < 0,
	   "a question listed twice is refused");
	ok(strstr(test_captured(), "e.jsonl:2: question 'q' listed twice (first at line 1)") != NULL,
	   "... naming both lines");
	test_captured();
}

static void test_rank_by_score(void)
{
	struct run r;
	struct run_query *q;
	enum run_rank rank;

	ok(!run_rank_parse("score", &rank) && rank == RUN_RANK_SCORE, "'score' parses");
	ok(!run_rank_parse("order", &rank) && rank == RUN_RANK_ORDER, "'order' parses");
	ok(run_rank_parse("Score", &rank) < 0 && run_rank_parse("", &rank) < 0, "anything else is refused");

	ok(!load_str(&r, "s.jsonl",
		     "{\"qid\": \"q-1\", \"results\": [{\"id\": \"d10\", \"score\": 5}, {\"id\": \"d9\", \"score\": 5.0},"
		     " {\"id\": \"x\", \"score\": 7.25}, {\"id\": \"d2\", \"score\": 5e0}, {\"id\": \"B\", \"score\": 5},"
		     " {\"id\": \"a\", \"score\": -1}]}\n"), "a scored JSONL run loads");
	ok(!run_rank_by_score(&r) && r.reranked, "and is ranked by score");
	q = run_find(&r, "q-1");
	ok(q && q->nr == 6 && !strcmp(q->docs[0].id, "x") && !strcmp(q->docs[1].id, "d9") &&
	   !strcmp(q->docs[2].id, "d2") && !strcmp(q->docs[3].id, "d10") && !strcmp(q->docs[4].id, "B") &&
	   !strcmp(q->docs[5].id, "a"),
	   "score descending, ties by docid descending in strcmp order (d9 > d2 > d10 > B)");
	run_release(&r);

	ok(!load_str(&r, "t.trec", "q 0 b 1 1 t\nq 0 a 2 2 t\n") && !run_rank_by_score(&r) && !r.reranked,
	   "a TREC run is left as it is (already in score order)");
	run_release(&r);

	test_capture_errors();
	ok(!load_str(&r, "u.jsonl", "{\"qid\": \"q-1\", \"results\": [{\"id\": \"b\", \"score\": 1}, {\"id\": \"c\", \"score\": 2}]}\n"
				    "{\"qid\": \"q-2\", \"results\": [{\"id\": \"a\", \"score\": 1}, \"z\"]}\n"),
	   "a JSONL run with an unscored result loads in list order");
	ok(run_rank_by_score(&r) < 0, "but cannot be ranked by score");
	ok(strstr(test_captured(), "u.jsonl:2: result 'z' of question 'q-2' has no score") != NULL,
	   "... naming the line and the result");
	q = run_find(&r, "q-1");
	ok(!r.reranked && q && !strcmp(q->docs[0].id, "b"), "the refused run is left in list order");
	run_release(&r);
	run_init(&r);
	{
		static const char ids_only[] = "{\"qid\": \"q\", \"results\": [\"a\"]}\n";
		char *path = write_tmp("v.jsonl", ids_only, strlen(ids_only));

		ok(run_load_ranked(&r, path, RUN_RANK_SCORE) < 0 && !r.nr, "run_load_ranked refuses it and frees the run");
		ok(!run_load_ranked(&r, path, RUN_RANK_ORDER) && r.nr == 1, "in list order it loads");
		run_release(&r);
		free(path);
	}
	test_captured();
}

static void test_gzip(void)
{
	char *path = xstrfmt("%s/run.trec.gz", tmpdir);
	gzFile gz = gzopen(path, "wb");
	struct run r;

	gzputs(gz, "q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\n");
	gzclose(gz);
	run_init(&r);
	ok(!run_load(&r, path) && r.format == RUN_TREC && r.nr == 1 && r.q[0].nr == 2,
	   "a gzip-compressed run is read directly");
	run_release(&r);
	free(path);
}

struct groups {
	int n;
	char qids[8][8];
};

static int count_group(struct trec_group *g, void *data)
{
	struct groups *gs = data;

	if (gs->n < 8)
		snprintf(gs->qids[gs->n], sizeof(gs->qids[0]), "%s", g->qid);
	gs->n++;
	return 0;
}

static void test_scan(void)
{
	const char *unsorted = "a Q0 x 1 1 t\nb Q0 x 1 1 t\na Q0 y 2 0 t\n";
	char *path = write_tmp("u.trec", unsorted, strlen(unsorted));
	struct groups gs;

	memset(&gs, 0, sizeof(gs));
	is_int(run_trec_scan(path, false, count_group, &gs, NULL), RUN_SCAN_UNSORTED,
	       "streaming notices a question that comes back");
	memset(&gs, 0, sizeof(gs));
	is_int(run_trec_scan(path, true, count_group, &gs, NULL), 0, "collect mode reads an unsorted run");
	is_int(gs.n, 2, "... as two questions");
	is_str(gs.qids[0], "a", "... in order of first appearance");
	free(path);
}

/* What the lines of a run look like to the scanner, one question per line. */
struct seen_lines {
	size_t n;
	char qid[400][80], doc[400][128];
	double score[400];
	long line[400];
};

static int note_line(struct trec_group *g, void *data)
{
	struct seen_lines *sl = data;

	if (sl->n < 400 && g->nr == 1) {
		/* by their lengths: a mapped scan does not NUL-terminate them */
		snprintf(sl->qid[sl->n], sizeof(sl->qid[0]), "%.*s", (int)g->qid_len, g->qid);
		snprintf(sl->doc[sl->n], sizeof(sl->doc[0]), "%.*s", (int)g->lines[0].len,
			 g->lines[0].doc);
		sl->score[sl->n] = g->lines[0].score;
		sl->line[sl->n] = g->lines[0].line;
	}
	sl->n++;
	return 0;
}

/* The two ways a streamed run is read: into a buffer, or mapped. */
typedef int (*scan_fn)(const char *path, enum run_scan_mode mode, trec_group_fn fn, void *data,
		       struct strbuf *runid);

/*
 * Lines of every shape, each in the middle of a file (where the scanner's
 * fast path reads 64 bytes at once): blanks of every kind and length, a
 * control byte inside a docid, CRLF, comments, blank lines, lines longer
 * than 64 bytes, scores in every notation. Each must read as its fields
 * say, read by 'scan' ('how' names it).
 */
static void test_scan_shapes(scan_fn scan, const char *how)
{
	static const char *const seps[] = { " ", "\t", "  ", " \t ", "\v", "\f", "\r" };
	static const char *const scores[] = {
		"27.088610", "5", "-3.25", "+1.5", "007.50", "1e3", "2.5E-2", "0.000001",
		"12345678.87654321", "123456789.5", "1.123456789", "-0", "0.0", "99999999",
		"3.", ".75", "18014398509481985.5", "4503599627370497.25",
		/* 8 digits in all (read as one word) and 9 (two words) */
		"1234567.8", "9.9999999", "-12.345678", "1234.56789", "0.00000001", "12.3456789",
	};
	struct seen_lines *sl = xcalloc(1, sizeof(*sl));
	struct strbuf sb = STRBUF_INIT, want_doc[300];
	double want_score[300];
	long want_line[300], lineno = 0;
	size_t nr = 0;
	bool same = true;
	char *path;

	srand(7);
	for (int i = 0; i < 300; i++) {
		const char *sep = seps[rand() % ARRAY_SIZE(seps)], *sc = scores[rand() % ARRAY_SIZE(scores)];
		int shape = rand() % 10;

		if (shape == 0) {
			strbuf_addf(&sb, "# comment %d\n", i);
			lineno++;
			continue;
		}
		if (shape == 1) {
			strbuf_addstr(&sb, i % 2 ? "\n" : " \t \n");
			lineno++;
			continue;
		}
		strbuf_init(&want_doc[nr], 0);
		if (shape == 2)
			strbuf_addf(&want_doc[nr], "d\001%d", i);      /* a control byte is part of the docid */
		else if (shape == 3)
			strbuf_addf(&want_doc[nr], "doc-%d-with-a-rather-long-name-%0*d", i, 20 + i % 30, 0);
		else if (shape == 7)   /* the score and tag past the line's 32nd byte, the line under 64 */
			strbuf_addf(&want_doc[nr], "doc-%0*d", 12 + i % 14, i);
		else
			strbuf_addf(&want_doc[nr], "%d", 7000000 + i * 7919 % 1000000);
		want_score[nr] = strtod(sc, NULL);
		want_line[nr] = ++lineno;
		strbuf_addf(&sb, "%sq%03d%sQ0%s%s%s%d%s%s%stag%d%s%s\n", shape == 4 ? " " : "", i, sep,
			    sep, want_doc[nr].buf, sep, i, sep, sc, sep, i, shape == 5 ? " extra" : "",
			    shape == 6 ? "\r" : "");
		nr++;
	}
	path = write_tmp("shapes.trec", sb.buf, sb.len);
	ok(!scan(path, RUN_SCAN_STREAM, note_line, sl, NULL), "%s: lines of every shape are read", how);
	is_int((long)sl->n, (long)nr, "... one question a line");
	for (size_t i = 0; i < nr && i < sl->n && same; i++) {
		char qid[16];

		snprintf(qid, sizeof(qid), "q%03ld", strtol(sl->qid[i] + 1, NULL, 10));
		if (strcmp(sl->doc[i], want_doc[i].buf) || sl->score[i] != want_score[i] ||
		    sl->line[i] != want_line[i] || strcmp(sl->qid[i], qid)) {
			test_diag("line %ld: read qid '%s' doc '%s' score %.17g line %ld; want doc '%s' score %.17g line %ld",
				  want_line[i], sl->qid[i], sl->doc[i], sl->score[i], sl->line[i],
				  want_doc[i].buf, want_score[i], want_line[i]);
			same = false;
		}
	}
	ok(same, "... each with its qid, docid, exact score and line number");
	for (size_t i = 0; i < nr; i++)
		strbuf_release(&want_doc[i]);
	free(path);

	/* errors in the middle of a file name their line */
	test_capture_errors();
	strbuf_reset(&sb);
	for (int i = 0; i < 50; i++)
		strbuf_addf(&sb, "q%d Q0 doc%d %d %d.5 run\n", i, i, i + 1, 100 - i);
	strbuf_addstr(&sb, "q50 Q0 doc50 51 49.5\n");
	for (int i = 0; i < 5; i++)
		strbuf_addf(&sb, "q%d Q0 doc%d %d %d.5 run\n", 60 + i, i, i + 1, 40 - i);
	path = write_tmp("five.trec", sb.buf, sb.len);
	memset(sl, 0, sizeof(*sl));
	ok(scan(path, RUN_SCAN_STREAM, note_line, sl, NULL) < 0, "%s: a line of five fields mid-file is refused", how);
	ok(strstr(test_captured(), "five.trec:51: expected 6 fields") != NULL, "... at its line");
	free(path);
	strbuf_reset(&sb);
	for (int i = 0; i < 50; i++)
		strbuf_addf(&sb, "q%d Q0 doc%d %d %d.5 run\n", i, i, i + 1, 100 - i);
	strbuf_addstr(&sb, "q50 Q0 doc50 51 4.5.1 run\nq51 Q0 doc51 52 1e999 run\n");
	for (int i = 0; i < 5; i++)
		strbuf_addf(&sb, "q%d Q0 doc%d %d %d.5 run\n", 60 + i, i, i + 1, 40 - i);
	path = write_tmp("score.trec", sb.buf, sb.len);
	memset(sl, 0, sizeof(*sl));
	ok(scan(path, RUN_SCAN_STREAM, note_line, sl, NULL) < 0, "%s: a score with two points mid-file is refused",
	   how);
	ok(strstr(test_captured(), "score.trec:51: score '4.5.1' is not a finite number") != NULL,
	   "... at its line");
	test_captured();
	free(path);
	strbuf_release(&sb);
	free(sl);
}

/* Every line the scanner hands over, question by question, flattened. */
struct seen_groups {
	struct strbuf qids;   /* each question's qid and line count, "qid:n\n" */
	struct strbuf lines;  /* each line's "docid score line\n" */
};

static int note_group(struct trec_group *g, void *data)
{
	struct seen_groups *sg = data;

	strbuf_addf(&sg->qids, "%.*s:%zu\n", (int)g->qid_len, g->qid, g->nr);
	for (size_t i = 0; i < g->nr; i++)
		strbuf_addf(&sg->lines, "%.*s %.17g %ld\n", (int)g->lines[i].len, g->lines[i].doc,
			    g->lines[i].score, g->lines[i].line);
	return 0;
}

/*
 * Questions of many lines, as a streamed scan reads them in bulk: qids
 * that share their first 8 bytes (or are 8 bytes and then one more) must
 * still part questions; inside a question, lines the one-pass reader
 * declines (a long docid, a control byte, CRLF, a '+' score), comments and
 * blank lines must not lose or shift a line; the runid is the last tag.
 */
static void test_scan_groups(scan_fn scan, const char *how)
{
	/* consecutive questions share their first 8 bytes: querynum-1000 and querynum-1001
	 * (one length), 00001000, 00001000x and 00001000xy (8 bytes and longer) */
	static const char *const qfmt[] = {
		"querynum-%04d", "querynum-%04d", "%08d", "%08dx", "%08dxy", "q%d",
	};
	struct strbuf sb = STRBUF_INIT, want_q = STRBUF_INIT, want_l = STRBUF_INIT, runid = STRBUF_INIT;
	struct seen_groups sg = { STRBUF_INIT, STRBUF_INIT };
	long lineno = 0;
	char *path, last_tag[32] = "";

	srand(11);
	for (int q = 0; q < 60; q++) {
		char qid[32];
		int n = 1 + rand() % 400, kept = 0;

		snprintf(qid, sizeof(qid), qfmt[q % 6], q % 6 < 2 ? 1000 + q : 1000 + q / 6);
		for (int d = 0; d < n; d++) {
			int shape = rand() % 40;
			char doc[96];
			const char *sep = shape == 1 ? "\t" : " ";
			char score[32];

			snprintf(score, sizeof(score), "%s%d.%03d", shape == 6 ? "+" : "", rand() % 100,
				 rand() % 1000);
			if (shape == 2) {
				strbuf_addstr(&sb, "# a comment inside a question\n");
				lineno++;
				continue;
			}
			if (shape == 3) {
				strbuf_addstr(&sb, "\n");
				lineno++;
				continue;
			}
			if (shape == 4)
				snprintf(doc, sizeof(doc), "a-docid-long-enough-to-pass-64-bytes-%d-%d-xxxxxxxxxx", q, d);
			else if (shape == 5)
				snprintf(doc, sizeof(doc), "d\001%d-%d", q, d);
			else
				snprintf(doc, sizeof(doc), "%d", 7000000 + q * 1000 + d);
			snprintf(last_tag, sizeof(last_tag), "tag%d-%d", q, d);
			strbuf_addf(&sb, "%s%sQ0%s%s%s%d%s%s%s%s%s\n", qid, sep, sep, doc, sep, d + 1,
				    sep, score, sep, last_tag, shape == 7 ? "\r" : "");
			strbuf_addf(&want_l, "%s %.17g %ld\n", doc, strtod(score, NULL), ++lineno);
			kept++;
		}
		if (kept)
			strbuf_addf(&want_q, "%s:%d\n", qid, kept);
	}
	path = write_tmp("groups.trec", sb.buf, sb.len);
	ok(!scan(path, RUN_SCAN_STREAM, note_group, &sg, &runid), "%s: a run of long questions is streamed", how);
	is_str(sg.qids.buf, want_q.buf, "... each question apart, with all its lines");
	is_str(sg.lines.buf, want_l.buf, "... each line with its docid, exact score and line number");
	is_str(runid.buf, last_tag, "... and the last line's tag as the runid");
	free(path);
	strbuf_release(&sb);
	strbuf_release(&want_q);
	strbuf_release(&want_l);
	strbuf_release(&runid);
	strbuf_release(&sg.qids);
	strbuf_release(&sg.lines);
}

/* Each line's score, by line number (lines of one question). */
struct line_scores {
	double score[401];
	size_t n;
};

static int note_scores(struct trec_group *g, void *data)
{
	struct line_scores *ls = data;

	for (size_t i = 0; i < g->nr; i++) {
		if (g->lines[i].line >= 1 && g->lines[i].line <= 400)
			ls->score[g->lines[i].line] = g->lines[i].score;
		ls->n++;
	}
	return 0;
}

/*
 * Scores of every short shape (the fast reader's: up to 8 digits, a point
 * anywhere, a sign) and longer ones, at every offset in the line (the
 * docid's length varies, so the score's 16 bytes may cross the line's 64th
 * byte), in one question so that the loop reads them: each must read as
 * run_parse_score reads its text, bit for bit.
 */
static void test_scan_scores(scan_fn scan, const char *how)
{
	struct line_scores *ls = xcalloc(1, sizeof(*ls));
	struct strbuf sb = STRBUF_INIT;
	char text[401][32];
	size_t nr = 0;
	bool same = true;
	char *path;

	srand(23);
	while (nr < 400) {
		int ni = rand() % 11, nf = rand() % 11, sign = rand() % 4, k = 0;
		double want;

		if (sign == 1)
			text[nr + 1][k++] = '-';
		for (int i = 0; i < ni; i++)
			text[nr + 1][k++] = (char)('0' + (i == 0 && rand() % 3 ? 1 + rand() % 9 : rand() % 10));
		if (rand() % 4)
			text[nr + 1][k++] = '.';
		for (int i = 0; i < nf; i++)
			text[nr + 1][k++] = (char)('0' + rand() % 10);
		text[nr + 1][k] = '\0';
		if (run_parse_score(text[nr + 1], (size_t)k, &want) < 0)
			continue;  /* "", "-", "." ... : refused, and tested elsewhere */
		nr++;
		strbuf_addf(&sb, "q1 Q0 d%0*zu %zu %s run\n", (int)(1 + rand() % 40), nr, nr, text[nr]);
	}
	path = write_tmp("scores.trec", sb.buf, sb.len);
	ok(!scan(path, RUN_SCAN_STREAM, note_scores, ls, NULL), "%s: scores of every short shape are read", how);
	for (size_t i = 1; i <= nr && same; i++) {
		double want;

		run_parse_score(text[i], strlen(text[i]), &want);
		if (memcmp(&ls->score[i], &want, sizeof(want))) {
			test_diag("line %zu, score '%s': read %.17g, want %.17g", i, text[i], ls->score[i], want);
			same = false;
		}
	}
	ok(same && ls->n == nr, "... each bit for bit as run_parse_score reads it");
	free(path);
	strbuf_release(&sb);
	free(ls);
}

/* What a scan that returned 'ret' handed over to note_group in 'sg', and
 * its runid, flattened into one string (the buffers are released). */
static char *flatten_scan(int ret, struct seen_groups *sg, struct strbuf *runid)
{
	char *text = xstrfmt("ret %d\n%s%sid %s\n", ret, sg->qids.buf, sg->lines.buf, runid->buf);

	strbuf_release(&sg->qids);
	strbuf_release(&sg->lines);
	strbuf_release(runid);
	return text;
}

/* The groups and lines 'scan' reads from 'path' (its runid after them), flattened. */
static char *scan_text(scan_fn scan, const char *path)
{
	struct seen_groups sg = { STRBUF_INIT, STRBUF_INIT };
	struct strbuf runid = STRBUF_INIT;
	int ret = scan(path, RUN_SCAN_STREAM, note_group, &sg, &runid);

	return flatten_scan(ret, &sg, &runid);
}

/* The range [start, end) of a file read mapped, flattened like scan_text. */
static char *range_text(const char *path, off_t start, off_t end)
{
	struct seen_groups sg = { STRBUF_INIT, STRBUF_INIT };
	struct strbuf runid = STRBUF_INIT;
	int ret = run_trec_scan_range(path, start, end, RUN_SCAN_STREAM, note_group, &sg, &runid);

	return flatten_scan(ret, &sg, &runid);
}

/* Every line of a RUN_SCAN_LINES batch: "qid doc score line\n". */
static int note_batch(struct trec_group *g, void *data)
{
	struct strbuf *sb = data;

	strbuf_addf(sb, "batch of %zu\n", g->nr);
	for (size_t i = 0; i < g->nr; i++)
		strbuf_addf(sb, "%.*s %.*s %.17g %ld\n", (int)g->qid_lens[i], g->qids[i],
			    (int)g->lines[i].len, g->lines[i].doc, g->lines[i].score, g->lines[i].line);
	return 0;
}

/*
 * A mapped scan reads the file in place: what it hands over must be what
 * reading gives, where the mapping ends (a file of whole pages, its last
 * line without '\n'), from a range that starts mid-page, for a compressed
 * file (read instead), and a NUL byte past the binary check is refused.
 */
static void test_scan_mapped(void)
{
	struct strbuf sb = STRBUF_INIT;
	char *path, *a, *b;
	long line = 0;
	size_t mid = 0;
	gzFile gz;

	/* exactly two pages, the last line unterminated and ending at the last byte */
	while (sb.len < 8192 - 64) {
		if (++line == 60)
			mid = sb.len;
		strbuf_addf(&sb, "q%ld Q0 doc%ld %ld %ld.25 run%ld\n", line / 50, line, line, line % 7, line);
	}
	strbuf_addf(&sb, "q999 Q0 last 1 2.5 ");
	while (sb.len < 8192)
		strbuf_addch(&sb, 'x');
	path = write_tmp("pages.trec", sb.buf, sb.len);
	a = scan_text(run_trec_scan_mode, path);
	b = scan_text(run_trec_scan_mapped, path);
	ok(strstr(a, "ret 0\n") == a && strstr(a, "last 2.5 ") && strstr(a, "xxxx\n"),
	   "a file of whole pages whose last line has no newline is read");
	is_str(b, a, "... and mapped gives the same questions, lines and runid");
	free(a);
	free(b);
	/* from a line in the middle of the first page to the end, and to a line's end in it */
	a = range_text(path, (off_t)mid, (off_t)sb.len);
	ok(strstr(a, "ret 0\nq1:") == a && strstr(a, "doc60 ") && !strstr(a, "doc59 "),
	   "a mapped range starts at its first line, mid-page");
	ok(strstr(a, " 1\n") != NULL && strstr(a, "xxxx\n") != NULL,
	   "... counts its lines from there and reads to the end of the file");
	free(a);
	a = range_text(path, 0, (off_t)mid);
	ok(strstr(a, "doc59 ") && !strstr(a, "doc60 ") && strstr(a, "id run59\n"),
	   "a mapped range ends at its end, though the file goes on");
	free(a);
	free(path);

	/* a compressed run through the mapped scan is read, not mapped */
	path = xstrfmt("%s/pages.trec.gz", tmpdir);
	gz = gzopen(path, "wb");
	gzwrite(gz, sb.buf, (unsigned)sb.len);
	gzclose(gz);
	a = scan_text(run_trec_scan_mode, path);
	b = scan_text(run_trec_scan_mapped, path);
	ok(strstr(a, "ret 0\n") == a && strstr(a, "last 2.5 "), "a compressed run is read");
	is_str(b, a, "... the same through the mapped scan");
	free(a);
	free(b);
	free(path);

	/* lines of questions in any order, in batches: mapped as read, with each line's qid */
	strbuf_reset(&sb);
	for (line = 1; line <= 3000; line++)
		strbuf_addf(&sb, "%sq%ld Q0 doc%ld-%ld %ld %ld.%03ld run\n", line % 97 ? "" : " ",
			    line * 7919 % 13, line % 13, line, line, line % 17, line % 1000);
	path = write_tmp("lines.trec", sb.buf, sb.len);
	{
		struct strbuf ra = STRBUF_INIT, rb = STRBUF_INIT;

		ok(!run_trec_scan_mode(path, RUN_SCAN_LINES, note_batch, &ra, NULL) &&
		   !run_trec_scan_mapped(path, RUN_SCAN_LINES, note_batch, &rb, NULL),
		   "lines in batches are read and mapped");
		ok(strstr(ra.buf, "batch of 1024\n") && strstr(ra.buf, "\nq2 doc1-1 ") &&
		   strstr(ra.buf, " 3000\n"), "... in batches of 1024, each line with its qid");
		is_str(rb.buf, ra.buf, "... the same mapped");
		strbuf_release(&ra);
		strbuf_release(&rb);
	}
	free(path);

	/* a NUL byte after the first 8 KB (past the binary check), at line 700 */
	strbuf_reset(&sb);
	for (line = 1; line <= 800; line++)
		strbuf_addf(&sb, "q%ld Q0 d%s%ld %ld 1.5 run\n", line / 100, line == 700 ? "\001" : "",
			    line, line);
	*strchr(strstr(sb.buf, "\001"), '\001') = '\0';
	path = write_tmp("nul.trec", sb.buf, sb.len);
	test_capture_errors();
	a = scan_text(run_trec_scan_mode, path);
	ok(strstr(a, "ret -1\n") == a && strstr(test_captured(), "nul.trec:700: binary file: NUL byte"),
	   "read: a NUL byte mid-file is refused at its line");
	b = scan_text(run_trec_scan_mapped, path);
	ok(strstr(b, "ret -1\n") == b && strstr(test_captured(), "nul.trec:700: binary file: NUL byte"),
	   "mapped: a NUL byte mid-file is refused at its line");
	test_captured();
	free(a);
	free(b);
	free(path);
	strbuf_release(&sb);
}

/* Append the decimal digits of 'v' (>= 0) at 'p'; return the end. */
static char *put_int(char *p, int v)
{
	char t[12];
	int n = 0;

	do
		t[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		*p++ = t[--n];
	return p;
}

/* Write a run of 'nq' questions x 'nd' documents; 'order' 1 interleaves
 * questions; line 'bad_line' (from 1; 0 none) has the score "oops". The
 * lines are made by hand, not by fprintf: a double's %f and the integers'
 * conversions were most of the time of 600,000 lines, seconds under an
 * emulator. */
static char *write_big_run(const char *name, int nq, int nd, int order, long bad_line)
{
	char *path = xstrfmt("%s/%s", tmpdir, name);
	FILE *fp = fopen(path, "w");
	long line = 0;
	char score[101][16], buf[65536], *p = buf;

	for (int i = 0; i < 101; i++)
		snprintf(score[i], sizeof(score[i]), "%.6f", (double)i / 7.0);
	for (int a = 0; a < (order ? nd : nq); a++) {
		for (int b = 0; b < (order ? nq : nd); b++) {
			int q = order ? b : a, d = order ? a : b;
			const char *sc = ++line == bad_line ? "oops" : score[(q * 7 + d * 13) % 101];

			*p++ = 'q';
			p = put_int(p, q);
			memcpy(p, " Q0 doc", 7);
			p = put_int(p + 7, q);
			*p++ = '-';
			p = put_int(p, d);
			*p++ = ' ';
			p = put_int(p, d + 1);
			*p++ = ' ';
			p = stpcpy(p, sc);
			memcpy(p, " tag\n", 5);
			p += 5;
			if (p - buf > (long)sizeof(buf) - 128) {
				fwrite(buf, 1, (size_t)(p - buf), fp);
				p = buf;
			}
		}
	}
	fwrite(buf, 1, (size_t)(p - buf), fp);
	fclose(fp);
	return path;
}

static void test_cut(void)
{
	char *path = xstrfmt("%s/cut.trec", tmpdir), *text, *gzpath;
	struct strbuf sb = STRBUF_INIT;
	FILE *fp = fopen(path, "w");
	off_t cuts[9];
	long size;
	int n;
	bool good = true;

	/* lines of 20 to 1,000 bytes, 200 KiB or so */
	for (int i = 0; i < 600; i++)
		fprintf(fp, "q%d Q0 d%d 1 1 %0*d\n", i, i, 5 + (i * 37) % 980, 0);
	size = ftell(fp);
	fclose(fp);
	ok(!read_file(path, &sb, 0), "the file reads back");
	text = sb.buf;
	n = run_trec_cut(path, cuts, 8);
	is_int(n, 8, "a plain file is cut in the pieces asked for");
	ok(cuts[0] == 0 && cuts[n] == size, "... from its start to its end");
	for (int i = 1; i <= n - 1 && good; i++)
		good = cuts[i] > cuts[i - 1] && text[cuts[i] - 1] == '\n';
	ok(good, "... each cut at the start of a line, in order");
	good = true;
	for (int i = 1; i <= n && good; i++)
		good = cuts[i] - cuts[i - 1] < size / 8 + 1100;
	ok(good, "... each piece about an eighth of it");
	is_int(run_trec_cut(path, cuts, 1), 1, "one piece: the whole file");
	ok(cuts[0] == 0 && cuts[1] == size, "... from start to end");
	strbuf_release(&sb);
	/* a line longer than the search: the cuts inside it are left out */
	fp = fopen(path, "w");
	fprintf(fp, "q1 Q0 d1 1 1 %0*d\nq2 Q0 d2 1 1 t\n", 300000, 0);
	fclose(fp);
	n = run_trec_cut(path, cuts, 4);
	ok(n >= 1 && n < 4, "cuts that fall inside one long line are left out");
	gzpath = xstrfmt("%s/cut.trec.gz", tmpdir);
	{
		gzFile gz = gzopen(gzpath, "wb");

		gzputs(gz, "q1 Q0 d1 1 1 t\n");
		gzclose(gz);
	}
	is_int(run_trec_cut(gzpath, cuts, 4), 0, "a gzip file is not cut");
	is_int(run_trec_cut("/nonexistent/run", cuts, 4), 0, "nor a missing one");
	unlink(path);
	unlink(gzpath);
	free(path);
	free(gzpath);
}

/* Whether 'a' and 'b' hold the same rows with the same values. */
static bool same_rows(const struct te_output *a, const struct te_output *b)
{
	if (a->nr != b->nr || a->nr_cols != b->nr_cols)
		return false;
	for (size_t i = 0; i < a->nr; i++) {
		if (strcmp(a->q[i].qid, b->q[i].qid))
			return false;
		for (size_t c = 0; c < a->nr_cols; c++)
			if (a->q[i].v[c] != b->q[i].v[c])
				return false;
	}
	return true;
}

static void test_parallel_halves(void)
{
	char *qpath = xstrfmt("%s/big.qrels", tmpdir);
	FILE *fp = fopen(qpath, "w");
	char *sorted, *interleaved, *bad;
	struct qrels qr;
	struct te_options o = { 0 };  /* every option, the progress too, unset */
	struct te_output a = { 0 }, b = { 0 };
	off_t size;

	for (int q = 0; q < 1000; q++)
		fprintf(fp, "q%d 0 doc%d-%d %d\nq%d 0 doc%d-%d 1\n", q, q, q % 37, 1 + q % 3, q, q, 900 + q % 5);
	fclose(fp);
	/* 1000 x 600 lines of about 35 bytes: over the 16 MB where the work is split */
	sorted = write_big_run("big.trec", 1000, 600, 0, 0);
	interleaved = write_big_run("mixed.trec", 1000, 600, 1, 0);
	qrels_init(&qr);
	ok(!qrels_load(&qr, qpath), "qrels load");
	ok(run_trec_split(sorted, &size) > 0, "a large grouped run is split in two at a question boundary");
	te_selection_init(&o.sel);
	te_select(&o.sel, "official");
	te_select(&o.sel, "ndcg_cut.10");
	o.per_query = true;
	o.complete = false;
	o.judged_only = false;
	o.rel_level = 1;
	o.max_docs = LONG_MAX;
	o.no_summary = false;
	o.num_docs = 0;
	o.threads = 0;
	ok(!te_evaluate(&qr, sorted, &o, &a), "the halves are evaluated");
	is_int(a.threads, 2, "... on two threads");
	ok(!te_evaluate(&qr, interleaved, &o, &b), "an interleaved run is evaluated in the scattered pass");
	is_int(b.threads, 2, "... on two threads too");
	is_int(a.nr, 1000, "every query evaluated once");
	ok(same_rows(&a, &b), "two threads give the values of one pass");
	te_output_release(&b);
	o.threads = 1;
	ok(!te_evaluate(&qr, sorted, &o, &b), "threads = 1: the sorted run is evaluated");
	is_int(b.threads, 1, "... on one thread");
	ok(same_rows(&a, &b), "... with the values of two threads");
	te_output_release(&b);
	ok(!te_evaluate(&qr, interleaved, &o, &b), "threads = 1: the interleaved run is evaluated");
	is_int(b.threads, 1, "... on one thread");
	ok(same_rows(&a, &b), "... with the values of the sorted run on two threads");
	o.threads = 0;
	te_output_release(&a);
	te_output_release(&b);
	bad = write_big_run("bad.trec", 1000, 600, 0, 400123);
	test_capture_errors();
	ok(te_evaluate(&qr, bad, &o, &a) < 0, "a bad line in the second half is refused");
	ok(strstr(test_captured(), "bad.trec:400123: score 'oops'") != NULL,
	   "... with its line number counted from the start of the file");
	test_captured();
	te_output_release(&a);
	unlink(bad);
	free(bad);
	bad = write_big_run("badmix.trec", 1000, 600, 1, 400123);
	ok(te_evaluate(&qr, bad, &o, &a) < 0, "a bad line in the second half of an interleaved run is refused");
	ok(strstr(test_captured(), "badmix.trec:400123: score 'oops'") != NULL,
	   "... with its line number counted from the start of the file");
	test_captured();
	te_output_release(&a);
	/* the first line again at the end: each half holds one of the two */
	fp = fopen(bad, "w");
	{
		FILE *in = fopen(interleaved, "r");
		char line[256], first[256] = "";
		long n = 0;

		while (fgets(line, sizeof(line), in)) {
			if (!n++)
				strcpy(first, line);
			fputs(line, fp);
		}
		fputs(first, fp);
		fclose(in);
		fclose(fp);
		ok(te_evaluate(&qr, bad, &o, &a) < 0, "a docid listed in both halves of an interleaved run is refused");
		line[0] = '\0';
		snprintf(line, sizeof(line), "badmix.trec:%ld: document 'doc0-0' listed twice for query 'q0' "
			 "(first at line 1)", n + 1);
		ok(strstr(test_captured(), line) != NULL, "... naming both lines");
		test_captured();
		te_output_release(&a);
	}
	/* gzip: read on one thread, its records soon past what its size reserved
	 * (1.5 times the compressed size: 4.0 MB at level 1 for 21.4 of text, so
	 * 6 MB for 9.6 MB of records; level 9 gives 3.6 MB for 20 times the CPU) */
	{
		char *gzpath = xstrfmt("%s/mixed.trec.gz", tmpdir);
		gzFile gz = gzopen(gzpath, "wb1");
		FILE *in = fopen(interleaved, "r");
		char buf[65536];
		size_t got;

		while ((got = fread(buf, 1, sizeof(buf), in)) > 0)
			gzwrite(gz, buf, (unsigned)got);
		fclose(in);
		gzclose(gz);
		ok(!te_evaluate(&qr, interleaved, &o, &a), "the interleaved run, plain");
		ok(!te_evaluate(&qr, gzpath, &o, &b), "... and gzip-compressed");
		is_int(b.threads, 1, "... that on one thread");
		ok(a.nr == 1000 && same_rows(&a, &b), "... give the same values");
		te_output_release(&a);
		te_output_release(&b);
		unlink(gzpath);
		free(gzpath);
	}
	qrels_release(&qr);
	unlink(sorted);
	unlink(interleaved);
	unlink(bad);
	free(sorted);
	free(interleaved);
	free(bad);
	free(qpath);
}

static void test_results_roundtrip(void)
{
	struct results r, back;
	char *path = xstrfmt("%s/res.json", tmpdir);
	static char *measures[] = { "R@5", "nDCG@10" };
	double agg[] = { 0.1 + 0.2, 1.0 / 3 };
	double v1[] = { 1.0 / 7, NAN };
	long ranks[] = { 3, 17 };
	char *top[] = { "c-1", "c-2" };
	struct question_result q[2];

	results_init(&r);
	memset(q, 0, sizeof(q));
	r.set_name = "demo";
	r.set_digest = "sha256:abc";
	r.run_path = "runs/x.jsonl";
	r.k = 5;
	r.depth = 50;
	r.measures = measures;
	r.nr_measures = 2;
	r.aggregate = agg;
	r.decline = 0.25;
	r.nr_answerable = 1;
	r.nr_unanswerable = 1;
	q[0].id = "q-1";
	q[0].answerable = true;
	q[0].rel_ranks = ranks;
	q[0].nr_rel_ranks = 2;
	q[0].top = top;
	q[0].nr_top = 2;
	q[0].values = v1;
	q[0].num_ret = 100;
	q[1].id = "q-2";
	q[1].declined = true;
	r.q = q;
	r.nr = 2;
	ok(!results_save(&r, path), "results are saved");
	ok(results_is_file(path), "a saved file is recognised as results");
	results_init(&back);
	ok(!results_load(&back, path), "and loads back");
	is_str(back.set_digest, "sha256:abc", "the set digest survives");
	ok(back.aggregate[0] == 0.1 + 0.2 && back.aggregate[1] == 1.0 / 3, "doubles round-trip exactly");
	ok(back.nr == 2 && back.q[0].values[0] == 1.0 / 7 && isnan(back.q[0].values[1]),
	   "per-question values round-trip; NAN stays NAN");
	ok(back.q[0].nr_rel_ranks == 2 && back.q[0].rel_ranks[1] == 17, "rel_ranks round-trip");
	ok(!back.q[1].answerable && back.q[1].declined, "unanswerable and declined kept");
	is_int(results_measure(&back, "nDCG@10"), 1, "results_measure finds a measure");
	ok(results_find(&back, "q-2") == &back.q[1], "results_find finds a question");
	results_release(&back);
	free(path);
}

/*
 * results_save streams its JSON; --format json prints results_to_tree's
 * tree. Both must give the same bytes for every member a results file can
 * hold: turns, unjudged questions (empty "values"), document ranks, calls,
 * leaks, strings with quotes, controls and non-ASCII, empty lists.
 */
static void test_results_streamed(void)
{
	struct results r;
	struct strbuf streamed = STRBUF_INIT, tree = STRBUF_INIT;
	static char *measures[] = { "R@5", "nDCG@10", "a \"quoted\"\tname" };
	double agg[] = { 0.1 + 0.2, NAN, 1e-300 };
	double v1[] = { 1.0 / 7, NAN, 2.5e10 };
	long ranks[] = { 3, 17 }, levels[] = { 4, 1, 2 }, doc_levels[] = { 0, 2 }, calls[] = { 2, 5 };
	char *top[] = { "c-1", "ch\xc3\xa9 \x01\x1f\\/" }, *tags[] = { "hard", "" };
	struct results_judged judged[] = { { 3, 2, "c-1" }, { 9, 0, "c-9" } };
	struct results_doc docs[] = { { 3, 1, 4, "doc/a.md" } };
	struct results_leak leaks[] = { { 2, "c-7", "doc:secret" } };
	struct question_result q[3];

	results_init(&r);
	memset(q, 0, sizeof(q));
	r.set_name = "demo";
	r.set_version = "v2";
	r.set_digest = "sha256:abc";
	r.judged_on = "sha256:def";
	r.run_path = "runs/x \"1\".jsonl";
	r.run_ranked_by = "score";
	r.run_query_form = "turn+history";
	r.run_corpus = "sha256:0123";
	r.labels_absent = 3;
	r.k = 5;
	r.depth = 50;
	r.measures = measures;
	r.nr_measures = 3;
	r.aggregate = agg;
	r.decline = 0.25;
	r.false_decline = NAN;
	r.nr_answerable = 2;
	r.nr_unanswerable = 1;
	r.has_docs = true;
	r.has_calls = true;
	q[0].id = "q-1";
	q[0].text = "What is \"x\"?\nSecond line";
	q[0].origin = "hand";
	q[0].answerable = true;
	q[0].tags = tags;
	q[0].nr_tags = 2;
	q[0].turn = "follow-up";
	q[0].rel_ranks = ranks;
	q[0].nr_rel_ranks = 2;
	q[0].top = top;
	q[0].nr_top = 2;
	q[0].judged = judged;
	q[0].nr_judged = 2;
	q[0].levels = levels;
	q[0].nr_levels = 3;
	q[0].docs = docs;
	q[0].nr_docs = 1;
	q[0].doc_levels = doc_levels;
	q[0].nr_doc_levels = 2;
	q[0].call_end = calls;
	q[0].nr_calls = 2;
	q[0].values = v1;
	q[0].num_ret = 100;
	q[0].num_rel = 2;
	q[0].forbids = true;
	q[0].leaks = leaks;
	q[0].nr_leaks = 1;
	q[1].id = "q-2";
	q[1].declined = true;
	q[1].forbids = true;
	q[2].id = "q-3";
	q[2].answerable = true;
	q[2].unjudged = true;
	q[2].missing = true;
	r.q = q;
	r.nr = 3;
	results_write(&r, &streamed);
	json_add_tree(&tree, results_to_tree(&r), true);
	is_str(streamed.buf, tree.buf, "the streamed results file is byte for byte the tree's text");
	ok(strstr(streamed.buf, "\"values\":\t{\n\t\t\t}") != NULL, "an empty object as cJSON writes it");
	ok(strstr(streamed.buf, "\"leaks\":\t[]") != NULL, "an empty list on one line");
	ok(strstr(streamed.buf, "\\u0001\\u001f\\\\/") != NULL, "controls escaped, '/' as is");
	r.nr = 0;
	strbuf_reset(&streamed);
	strbuf_reset(&tree);
	results_write(&r, &streamed);
	json_add_tree(&tree, results_to_tree(&r), true);
	is_str(streamed.buf, tree.buf, "no questions: the same bytes too");
	strbuf_release(&streamed);
	strbuf_release(&tree);
}

/*
 * The numbers of a results file as written: whole values without printf,
 * the rest in the fewest of 15-17 digits that read back exactly, "-0" kept,
 * 1e15 and up in exponent form as "%.15g" writes them; longs of any sign.
 */
static void test_results_numbers(void)
{
	struct results r;
	struct strbuf out = STRBUF_INIT;
	static char *measures[] = { "a", "b", "c", "d", "e", "f", "g", "h", "i", "j" };
	double v[] = { 0.0, 1.0, -0.0, 7.0, 1e14 + 1, 999999999999999.0, 1e15, -3.0, 0.5, 1.0 / 3 };
	static const char *want[] = { "\"a\":\t0,", "\"b\":\t1,", "\"c\":\t-0,", "\"d\":\t7,",
		"\"e\":\t100000000000001,", "\"f\":\t999999999999999,", "\"g\":\t1e+15,",
		"\"h\":\t-3,", "\"i\":\t0.5,", "\"j\":\t0.3333333333333333\n" };
	long ranks[] = { LONG_MIN, 0, -12, LONG_MAX };
	char longs[128];
	struct question_result q;
	cJSON *back, *vals;

	results_init(&r);
	memset(&q, 0, sizeof(q));
	r.measures = measures;
	r.nr_measures = 10;
	r.aggregate = v;
	q.id = "q-1";
	q.answerable = true;
	q.values = v;
	q.rel_ranks = ranks;
	q.nr_rel_ranks = 4;
	r.q = &q;
	r.nr = 1;
	results_write(&r, &out);
	for (size_t i = 0; i < 10; i++)
		ok(strstr(out.buf, want[i]) != NULL, "results number %zu written as %s", i, want[i]);
	snprintf(longs, sizeof(longs), "\"rel_ranks\":\t[%ld, 0, -12, %ld]", LONG_MIN, LONG_MAX);
	ok(strstr(out.buf, longs) != NULL, "longs at both ends of their range");
	back = cJSON_Parse(out.buf);
	vals = back ? cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(back, "questions"), 0),
					  "values") : NULL;
	for (size_t i = 0; i < 10; i++) {
		cJSON *n = vals ? cJSON_GetObjectItem(vals, measures[i]) : NULL;

		ok(n && memcmp(&n->valuedouble, &v[i], sizeof(double)) == 0,
		   "results number %zu reads back bit for bit", i);
	}
	cJSON_Delete(back);
	strbuf_release(&out);
}

/*
 * results_save writes a large results file in pieces as it goes: the file
 * holds exactly the text results_write makes in one buffer, pieces joined
 * where they were cut (within and between questions), and nothing is left
 * beside it.
 */
static void test_results_saved_in_pieces(void)
{
	enum { N = 9000 };
	struct results r;
	struct strbuf whole = STRBUF_INIT, file = STRBUF_INIT, text = STRBUF_INIT;
	static char *measures[] = { "R@5", "RR" };
	double v[] = { 1.0, 1.0 / 3 };
	struct question_result *q = xcalloc(N, sizeof(*q));
	char **ids = xcalloc(N, sizeof(*ids));
	char *path = xstrfmt("%s/pieces.json", tmpdir);

	results_init(&r);
	r.measures = measures;
	r.nr_measures = 2;
	r.aggregate = v;
	for (int i = 0; i < 60; i++)
		strbuf_addstr(&text, "words \"quoted\" ");
	for (size_t i = 0; i < N; i++) {
		ids[i] = xstrfmt("q-%05zu", i);
		q[i].id = ids[i];
		q[i].text = text.buf;
		q[i].answerable = true;
		q[i].values = v;
	}
	r.q = q;
	r.nr = N;
	results_write(&r, &whole);
	ok(whole.len > 4 * ((size_t)1 << 20), "the results text spans several pieces (%zu bytes)", whole.len);
	ok(!results_save(&r, path), "results_save writes it");
	ok(!read_file(path, &file, 0) && file.len == whole.len && !memcmp(file.buf, whole.buf, whole.len),
	   "the file is the text of results_write byte for byte");
	{
		DIR *d = opendir(tmpdir);
		struct dirent *e;
		int left = 0;

		while (d && (e = readdir(d)))
			left += starts_with(e->d_name, "pieces.json.");
		if (d)
			closedir(d);
		is_int(left, 0, "no temporary file is left beside it");
	}
	for (size_t i = 0; i < N; i++)
		free(ids[i]);
	free(ids);
	free(q);
	free(path);
	strbuf_release(&whole);
	strbuf_release(&file);
	strbuf_release(&text);
}

/*
 * results_find: every question found by its id (ids that are prefixes of
 * one another, the first of a repeated id), an absent or near id missed,
 * through the scan of a few questions and the index of many, and the index
 * made again when the questions moved or their number changed.
 */
static void test_results_find(void)
{
	enum { N = 1000 };
	struct results r;
	struct question_result *q = xcalloc(N + 1, sizeof(*q));
	char **ids = xcalloc(N + 1, sizeof(*ids));
	size_t wrong = 0;

	results_init(&r);
	for (size_t i = 0; i < N; i++)
		q[i].id = ids[i] = xstrfmt("q-%zu", i);  /* q-1, q-10, q-100 ... */
	q[N].id = ids[N] = xstrdup("q-7");           /* a repeat of q[7] */
	r.q = q;
	r.nr = 10;
	ok(results_find(&r, "q-9") == &q[9] && !results_find(&r, "q-10"),
	   "a few questions: found, and one beyond them missed");
	ok(r.lookup == NULL, "a few questions are scanned, with no index");
	r.nr = N + 1;
	for (size_t i = 0; i < N; i++)
		wrong += results_find(&r, ids[i]) != &q[i];
	is_int(wrong, 0, "each of 1,000 questions found by its id");
	ok(results_find(&r, "q-7") == &q[7], "a repeated id finds the first");
	ok(!results_find(&r, "q-1000") && !results_find(&r, "q-") && !results_find(&r, "q-01") &&
	   !results_find(&r, ""), "absent and near ids are missed");
	r.nr = 500;
	ok(!results_find(&r, "q-600") && results_find(&r, "q-499") == &q[499],
	   "fewer questions: the index is made again");
	{
		struct question_result *moved = xcalloc(N + 1, sizeof(*moved));

		memcpy(moved, q, (N + 1) * sizeof(*q));
		r.q = moved;
		r.nr = N + 1;
		ok(results_find(&r, "q-3") == &moved[3], "moved questions: found where they are now");
		r.q = q;
		ok(results_find(&r, "q-999") == &q[N - 1], "moved back: found in the first array again");
		free(moved);
	}
	/* results_release frees the ids, the questions and the index */
	free(ids);
	results_release(&r);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_scores();
	test_trec();
	test_json_formats();
	test_rank_by_score();
	test_gzip();
	test_results_numbers();
	test_results_find();
	test_results_saved_in_pieces();
	test_scan();
	/* both copies of the fast reader: for SSE2 only, and for AVX2 where the processor has it */
	for (int simd = 0; simd < 2; simd++) {
		run_trec_set_simd(simd);
		test_scan_shapes(run_trec_scan_mode, simd ? "read, AVX2 allowed" : "read, SSE2");
		test_scan_shapes(run_trec_scan_mapped, simd ? "mapped, AVX2 allowed" : "mapped, SSE2");
		test_scan_groups(run_trec_scan_mode, simd ? "read, AVX2 allowed" : "read, SSE2");
		test_scan_groups(run_trec_scan_mapped, simd ? "mapped, AVX2 allowed" : "mapped, SSE2");
		test_scan_scores(run_trec_scan_mode, simd ? "read, AVX2 allowed" : "read, SSE2");
		test_scan_scores(run_trec_scan_mapped, simd ? "mapped, AVX2 allowed" : "mapped, SSE2");
	}
	test_scan_mapped();
	test_cut();
	test_parallel_halves();
	test_results_roundtrip();
	test_results_streamed();
	test_remove_tree(tmpdir);
	return test_done();
}
