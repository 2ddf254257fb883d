/*
 * t-interop: a set exported as TREC qrels, BEIR and JSONL reads back with
 * the same digest; the files are the standard ones other tools read; and
 * collections made elsewhere import with the documented rules and errors.
 */
#include "test-lib.h"
#include "base/fsutil.h"
#include "interop/interop.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/t-interop-XXXXXX";

static const char set_yaml[] =
	"evalset: 1\n"
	"name: demo\n"
	"description: a small set\n"
	"questions:\n"
	"  - id: q-1\n"
	"    text: \"How do I rotate\\tan API key?\"\n"
	"    origin: synthetic\n"
	"    relevant: {c-12: 2, c-40: 1}\n"
	"    irrelevant: [c-7]\n"
	"    tags: [hard, vocabulary-gap]\n"
	"    provenance: {chunk: c-12, overlap: 0.31, seed: 7, nested: {a: [1, x]}}\n"
	"    answer: in settings\n"
	"    note: crowd wording\n"
	"  - id: q-2\n"
	"    text: Who wrote the manual?\n"
	"    relevant: [c-3]\n"
	"  - id: q-3\n"
	"    text: What is the airspeed of a swallow?\n"
	"    origin: hand\n"
	"    answerable: false\n"
	"  - id: q-4\n"
	"    text: Is there a refund for plan X?\n"
	"    origin: mined\n"
	"    answerable: false\n"
	"    irrelevant: [c-9]\n"
	"  - id: q-5\n"
	"    text: And for a service account?\n"
	"    conversation: {id: c-1, turn: 2}\n"
	"    history:\n"
	"      - {role: user, text: How do I rotate an API key?}\n"
	"      - {role: assistant, text: \"In the console, under Keys.\"}\n"
	"    relevant: [c-12]\n"
	"    evidence:\n"
	"      - {chunk: c-12, doc: guides/keys.md, start: 18, end: 44, quote: rotate it from the console}\n"
	"    forbidden: [c-91, \"doc:internal/pricing.md\"]\n"
	"    language: de\n";

static char *tmp(const char *name)
{
	return path_join(tmpdir, name);
}

static char *write_tmp(const char *name, const char *content)
{
	char *path = tmp(name);
	char *dir = dir_name(path);

	mkdir_p(dir);
	free(dir);
	write_file_atomic(path, content, strlen(content));
	return path;
}

/* Check that importing the JSONL 'content' is refused with an error holding 'want'. */
static void jsonl_refused(const char *content, const char *want, const char *what)
{
	struct interop_import im = { NULL, NULL, NULL, NULL, NULL, ORIGIN_HAND, false, NULL };
	struct set back = SET_INIT;
	char *file = write_tmp("ext.jsonl", content);

	im.jsonl = file;
	ok(interop_import(&back, &im) < 0 && strstr(test_captured(), want), "%s", what);
	set_release(&back);
	free(file);
}

static char *slurp(const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	if (read_file(path, &sb, 0) < 0)
		return xstrdup("");
	return strbuf_detach(&sb, NULL);
}

/* Give 'dst' the header of 'src', so set_digest compares the questions and header alike. */
static void copy_header(struct set *dst, const struct set *src)
{
	dst->name = xstrdup(src->name);
	dst->description = xstrdup(src->description);
}

static void check_round_trip(const struct set *orig, struct set *back, const char *what)
{
	char a[72], b[72];

	set_content_digest(orig, a);
	set_content_digest(back, b);
	is_str(b, a, what);
	copy_header(back, orig);
	set_digest(orig, a);
	set_digest(back, b);
	is_str(b, a, "and the set digest with the same header");
}

static struct interop_import import_opts(void)
{
	struct interop_import o = { NULL, NULL, NULL, NULL, NULL, ORIGIN_HAND, false, NULL };
	return o;
}

/* MTRAG's turns: "|user|: ..." lines, the last the question. */
static void test_mtrag_turns(void)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
		{ "hello\n|user|: what?", "does not open with a speaker" },
		{ "|user|: what?\n|assistant|: this.", "the last turn is not the user's" },
		{ "|user|: what?\n|assistant|:  \n|user|: and?", "turn 2 has no text" },
		{ "", "holds no turn" },
		{ "|robot|: hi", "does not open with a speaker" },
	};
	struct question q;
	struct strbuf why = STRBUF_INIT;
	size_t users = 0;

	memset(&q, 0, sizeof(q));
	is_int(mtrag_read_turns("|user|: first question\n|agent|: an answer\non two lines\n"
				"|assistant|:no space\n|user|:   the follow-up  \n", &q, &users, &why), 0,
	       "mtrag: turns read");
	is_str(q.text, "the follow-up", "mtrag: the last user turn is the text, trimmed");
	is_int(q.nr_history, 3, "mtrag: three turns before it");
	if (q.nr_history == 3) {
		is_str(q.history[0].role, "user", "mtrag: first turn the user's");
		is_str(q.history[1].role, "assistant", "mtrag: |agent| is the assistant");
		is_str(q.history[1].text, "an answer\non two lines", "mtrag: a line without a speaker continues its turn");
		is_str(q.history[2].text, "no space", "mtrag: the space after the colon is optional");
	}
	is_int(users, 2, "mtrag: two user turns counted");
	question_release(&q);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&q, 0, sizeof(q));
		strbuf_reset(&why);
		ok(mtrag_read_turns(bad[i].text, &q, &users, &why) < 0 && strstr(why.buf, bad[i].why),
		   "mtrag refused: %s", bad[i].why);
		question_release(&q);
	}
	strbuf_release(&why);
}

int main(void)
{
	struct set s = SET_INIT, back = SET_INIT;
	struct interop_export ex = { INTEROP_TREC_QRELS, NULL, NULL, "demo", "v1", false, true };
	struct interop_import im;
	char *path, *text, digest[72];

	if (!mkdtemp(tmpdir))
		return 1;
	test_mtrag_turns();
	test_capture_errors();
	is_int(set_load_buf(&s, set_yaml, strlen(set_yaml), "demo.yaml"), 0, "test set loads");
	set_digest(&s, digest);

	/* TREC qrels */
	ex.path = path = tmp("out/demo.qrels");
	is_int(interop_export(&s, &ex), 0, "export trec-qrels into a new directory");
	text = slurp(path);
	is_str(text, "q-1 0 c-12 2\nq-1 0 c-40 1\nq-1 0 c-7 0\nq-2 0 c-3 1\nq-4 0 c-9 0\nq-5 0 c-12 1\n",
	       "qrels: qid 0 docid grade, judged-irrelevant as 0, unjudged questions absent");
	free(text);
	{
		char *t = tmp("out/demo.qrels.topics.tsv");
		text = slurp(t);
		ok(starts_with(text, "q-1\tHow do I rotate an API key?\nq-2\tWho wrote the manual?\n"),
		   "topics TSV: qid TAB text, a tab inside the text becomes a space");
		free(text);
		free(t);
		t = tmp("out/demo.qrels.meta.json");
		text = slurp(t);
		ok(strstr(text, "\"set\":\t\"demo\"") && strstr(text, "\"version\":\t\"v1\"") &&
		   strstr(text, digest), "sidecar records name, tag and digest");
		free(text);
		free(t);
	}
	is_int(interop_export(&s, &ex), -1, "an existing target is refused");
	ok(strstr(test_captured(), "--force") != NULL, "and the error says how to replace it");
	ex.force = true;
	is_int(interop_export(&s, &ex), 0, "--force replaces it");
	ex.force = false;

	im = import_opts();
	im.topics = tmp("out/demo.qrels.topics.tsv");
	im.qrels = path;
	is_int(interop_import(&back, &im), 0, "import trec topics + qrels");
	is_int(back.nr, 5, "every question comes back, unanswerable ones through the sidecar");
	{
		const struct question *q5 = set_find(&back, "q-5");
		ok(q5 && q5->conversation && !strcmp(q5->conversation, "c-1") && q5->turn == 2 &&
		   q5->nr_history == 2 && !strcmp(q5->history[1].text, "In the console, under Keys.") &&
		   q5->nr_evidence == 1 && q5->evidence[0].start == 18 && q5->evidence[0].end == 44 &&
		   q5->nr_forbidden == 2 && !strcmp(q5->forbidden[1].id, "doc:internal/pricing.md") &&
		   q5->language && !strcmp(q5->language, "de"),
		   "the sidecar brings back conversation, history, evidence, forbidden ids and language");
	}
	check_round_trip(&s, &back, "trec round trip keeps the content digest");
	ok(!strstr(test_captured(), "digest"), "no digest warning on a faithful round trip");
	set_release(&back);

	/* without --meta: no sidecar, what is left out said, an old sidecar not left behind */
	ex.meta = false;
	{
		char *t = tmp("out/demo.qrels.topics.tsv");
		unlink(path);
		unlink(t);
		free(t);
	}
	is_int(interop_export(&s, &ex), -1, "without --meta, an earlier export's sidecar is refused");
	{
		const char *err = test_captured();
		ok(strstr(err, "demo.qrels.meta.json' exists, from an earlier export") != NULL,
		   "naming it and why: %s", err);
	}
	ex.force = true;
	is_int(interop_export(&s, &ex), 0, "with --force it is removed");
	ex.force = false;
	{
		char *t = tmp("out/demo.qrels.meta.json");
		const char *err = test_captured();
		ok(!path_exists(t), "and is gone");
		ok(strstr(err, "removed '") && strstr(err, "1 unjudged unanswerable") &&
		   strstr(err, "1 in conversations") && strstr(err, "1 with forbidden ids") &&
		   strstr(err, "1 whose text had tabs") && strstr(err, "--meta writes them"),
		   "export says what it left out: %s", err);
		free(t);
	}
	is_int(interop_import(&back, &im), 0, "import without the sidecar");
	is_int(back.nr, 4, "the unjudged unanswerable question is skipped");
	{
		const char *err = test_captured();
		ok(strstr(err, "no sidecar") && strstr(err, "conversations"),
		   "import says what it could not restore: %s", err);
	}
	set_release(&back);
	ex.meta = true;
	free((char *)im.topics);
	free(path);

	/* BEIR */
	ex.format = INTEROP_BEIR;
	ex.path = path = tmp("beir");
	is_int(interop_export(&s, &ex), 0, "export beir");
	{
		char *q = tmp("beir/qrels/test.tsv");
		text = slurp(q);
		is_str(text, "query-id\tcorpus-id\tscore\nq-1\tc-12\t2\nq-1\tc-40\t1\nq-1\tc-7\t0\n"
			     "q-2\tc-3\t1\nq-4\tc-9\t0\nq-5\tc-12\t1\n", "BEIR qrels/test.tsv with its header");
		free(text);
		free(q);
		q = tmp("beir/queries.jsonl");
		text = slurp(q);
		ok(starts_with(text, "{\"_id\":\"q-1\",\"text\":\"How do I rotate\\tan API key?\",\"metadata\":{"),
		   "queries.jsonl: _id, exact text, metadata");
		free(text);
		free(q);
	}
	im = import_opts();
	im.beir_dir = path;
	is_int(interop_import(&back, &im), 0, "import beir");
	check_round_trip(&s, &back, "beir round trip keeps the content digest");
	set_release(&back);
	im.split = "dev";
	is_int(interop_import(&back, &im), -1, "a BEIR folder without qrels for the split is refused");
	{
		const char *err = test_captured();
		ok(strstr(err, "'dev'") && strstr(err, "splits found: test"),
		   "the error names the split and the splits there are: %s", err);
	}
	set_release(&back);
	free(path);

	/* JSONL */
	ex.format = INTEROP_JSONL;
	ex.path = path = tmp("demo.jsonl");
	is_int(interop_export(&s, &ex), 0, "export jsonl");
	text = slurp(path);
	ok(starts_with(text, "{\"meta\":{\"evalset\":1,\"format\":\"jsonl\",\"set\":\"demo\",\"version\":\"v1\""),
	   "jsonl opens with the meta line");
	free(text);
	im = import_opts();
	im.jsonl = path;
	is_int(interop_import(&back, &im), 0, "import jsonl");
	check_round_trip(&s, &back, "jsonl round trip keeps the content digest");
	set_release(&back);
	free(path);

	/* collections made elsewhere */
	{
		char *topics = write_tmp("ext/topics.txt",
			"<top>\n<num> Number: 301\n<title> International Organized\n  Crime\n"
			"<desc> Description:\nIdentify organizations.\n</top>\n\n"
			"<top>\n<num> Number: 302\n<title> Poliomyelitis and Post-Polio\n</top>\n"
			"<top>\n<num> Number: 303\n<title> Hubble Telescope Achievements\n</top>\n");
		char *qrels = write_tmp("ext/qrels.txt",
			"301 0 FBIS3-10082 1\n301 0 FBIS3-10169 0\n301 0 FT921-7107 2\n"
			"302 0 LA010189-0001 0\n");
		struct question *q;

		im = import_opts();
		im.topics = topics;
		im.qrels = qrels;
		is_int(interop_import(&back, &im), 0, "import TREC SGML topics without a sidecar");
		is_int(back.nr, 2, "a topic with no judgment is skipped");
		q = set_find(&back, "301");
		ok(q && !strcmp(q->text, "International Organized Crime"), "title lines are joined");
		ok(q && q->origin == ORIGIN_HAND && q->answerable && question_grade(q, "FT921-7107") == 2 &&
		   question_grade(q, "FBIS3-10169") == 0, "ids, grades and origin hand kept");
		q = set_find(&back, "302");
		ok(q && !q->answerable && q->nr_irrelevant == 1, "judged only irrelevant: unanswerable");
		ok(strstr(test_captured(), "skipped 1 query") != NULL, "the skip is noted");
		set_release(&back);

		im.origin = ORIGIN_MINED;
		im.origin_given = true;
		interop_import(&back, &im);
		ok(back.nr && back.q[0].origin == ORIGIN_MINED, "--origin is applied");
		set_release(&back);
		im = import_opts();
		im.topics = topics;
		im.qrels = write_tmp("ext/qrels-missing.txt", "301 0 D1 1\n\n999 0 D2 1\n");
		is_int(interop_import(&back, &im), -1, "a qrels line for a query missing from the topics is refused");
		ok(strstr(test_captured(), "qrels-missing.txt:3: query '999' is not in the topics") != NULL,
		   "the error names FILE:LINE and the query");
		set_release(&back);
		free((char *)im.qrels);
		im.qrels = write_tmp("ext/qrels-grade.txt", "301 0 D1 12\n");
		is_int(interop_import(&back, &im), -1, "a grade above 9 is refused");
		set_release(&back);
		free((char *)im.qrels);
		free(topics);
		free(qrels);
	}
	{
		char *dir = tmp("ext-beir");
		char *qrels;

		free(write_tmp("ext-beir/queries.jsonl",
			"{\"_id\": \"1\", \"text\": \"what is a cat\", \"metadata\": {}}\n"
			"{\"_id\": \"2\", \"text\": \"train split query\", \"metadata\": {}}\n"));
		qrels = write_tmp("ext-beir/qrels/test.tsv", "query-id\tcorpus-id\tscore\n1\tdoc9\t1\n");
		im = import_opts();
		im.beir_dir = dir;
		is_int(interop_import(&back, &im), 0, "import a BEIR folder made elsewhere");
		ok(back.nr == 1 && !strcmp(back.q[0].id, "1") && question_grade(&back.q[0], "doc9") == 1,
		   "only the split's queries, ids kept");
		set_release(&back);
		free(qrels);
		qrels = write_tmp("ext-beir/qrels/test.tsv", "query-id\tcorpus-id\tscore\n7\tdoc9\t1\n");
		is_int(interop_import(&back, &im), -1, "a BEIR qrels line for an unknown query is refused");
		ok(strstr(test_captured(), "test.tsv:2: query '7'") != NULL, "naming FILE:LINE");
		set_release(&back);
		free(qrels);
		qrels = write_tmp("ext-beir/qrels/test.tsv", "query-id\tcorpus-id\tscore\n1\tdoc9\t1\n");
		free(write_tmp("ext-beir/queries.jsonl",
			"{\"_id\": \"1\", \"text\": \"what is a cat\"}\n \t\n[\"_id\", \"2\"]\n"));
		is_int(interop_import(&back, &im), -1, "a BEIR query line that is not an object is refused");
		ok(strstr(test_captured(), "queries.jsonl:3: not a JSON object") != NULL,
		   "naming its line (blank lines counted, not read)");
		set_release(&back);
		free(qrels);
		free(dir);
	}
	{
		char *file = write_tmp("ext.jsonl", "\n{\"id\": \"q1\", \"text\": \"a\", \"relevant\": [\"c1\"], "
					   "\"irrelevant\": [\"c2\"]}\n  \n"
					   "{\"id\": \"q2\", \"text\": \"b\", \"relevant\": {\"c3\": 2}}\n");

		im = import_opts();
		im.jsonl = file;
		is_int(interop_import(&back, &im), 0, "JSONL: blank lines are skipped");
		ok(back.nr == 2 && question_grade(&back.q[0], "c1") == 1 && question_grade(&back.q[0], "c2") == 0 &&
		   question_grade(&back.q[1], "c3") == 2, "lists and maps of labels are read");
		set_release(&back);
		free(file);
		jsonl_refused("{\"id\": \"q1\", \"text\": \"a\"}\n\n\"q2\"\n", "ext.jsonl:3: not a JSON object",
			      "JSONL: a line that is not an object is refused, naming its line");
		jsonl_refused("{\"id\": \"q1\", \"text\": \"a\", \"irrelevant\": [\"c2\", 3]}\n",
			      "ext.jsonl:1: 'irrelevant' of question 'q1' holds a non-string",
			      "JSONL: a label id that is not a string is refused, naming the list and the question");
		jsonl_refused("{\"id\": \"q1\", \"text\": \"a\", \"relevant\": [true]}\n",
			      "ext.jsonl:1: 'relevant' of question 'q1' holds a non-string",
			      "JSONL: a relevant id that is not a string is refused");
	}
	set_release(&s);
	test_remove_tree(tmpdir);
	return test_done();
}
