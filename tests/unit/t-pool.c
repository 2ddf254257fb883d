/*
 * t-pool: what a person relies on in the judging worksheet: only unlabelled
 * documents are pooled, with every run and rank that found them; grades and
 * texts survive a round trip through the file; an edited worksheet in an
 * invalid state is refused at the right line and column; unknown questions
 * and chunks are found.
 */
#include "test-lib.h"
#include "set/corpus.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "pool/pool.h"
#include "score/run.h"
#include "set/set.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/t-pool-XXXXXX";

static char *write_tmp(const char *name, const char *content)
{
	return test_write_file(tmpdir, name, content);
}

static const char set_yaml[] =
	"evalset: 1\n"
	"name: demo\n"
	"questions:\n"
	"- id: q-1\n"
	"  text: How do I rotate a key?\n"
	"  relevant: [c-1]\n"
	"  irrelevant: [c-4]\n"
	"- id: q-2\n"
	"  text: Is there a moon base?\n"
	"  answerable: false\n"
	"- id: q-3\n"
	"  text: How big can an export be?\n"
	"  relevant: {c-6: 2}\n";

static const char corpus_jsonl[] =
	"{\"id\": \"c-1\", \"title\": \"Keys\", \"text\": \"Rotate keys in Settings.\"}\n"
	"{\"id\": \"c-2\", \"title\": \"Keys\", \"text\": \"Keys expire.\\nAfter 90 days.\"}\n"
	"{\"id\": \"c-3\", \"text\": \"true\"}\n"
	"{\"id\": \"c-4\", \"text\": \"Billing.\"}\n"
	"{\"id\": \"c-5\", \"text\": \"Export: CSV #1\"}\n"
	"{\"id\": \"c-6\", \"text\": \"Exports: 1M rows.\"}\n";

/* two runs: TREC (ranked by score) and JSONL (list order) */
static const char run_a[] =
	"q-1 Q0 c-1 1 9 a\n"
	"q-1 Q0 c-2 2 8 a\n"
	"q-1 Q0 c-4 3 7 a\n"
	"q-1 Q0 c-5 4 6 a\n"
	"q-2 Q0 c-3 1 9 a\n"
	"q-3 Q0 c-9 1 9 a\n"
	"q-3 Q0 c-5 2 8 a\n";
static const char run_b[] =
	"{\"qid\": \"q-1\", \"results\": [\"c-3\", \"c-2\", \"c-1\"]}\n"
	"{\"qid\": \"q-3\", \"results\": [\"c-6\", \"c-5\"]}\n";

static const struct pool_pair *find_pair(const struct pool *p, const char *qid, const char *chunk)
{
	const struct pool_question *pq = pool_find(p, qid);

	for (size_t i = 0; pq && i < pq->nr; i++)
		if (!strcmp(pq->pairs[i].chunk, chunk))
			return &pq->pairs[i];
	return NULL;
}

static void test_build(void)
{
	struct set s = SET_INIT;
	struct corpus c = CORPUS_INIT;
	struct run runs[2];
	struct pool p = POOL_INIT, back = POOL_INIT;
	struct strbuf y1 = STRBUF_INIT, y2 = STRBUF_INIT;
	char *cpath = write_tmp("chunks.jsonl", corpus_jsonl);
	char *pa = write_tmp("bm25.trec", run_a), *pb = write_tmp("dense.jsonl", run_b);
	const char *paths[2] = { pa, pb };
	const struct pool_pair *pp;
	long missing = 0;

	run_init(&runs[0]);
	run_init(&runs[1]);
	ok(!set_load_buf(&s, set_yaml, strlen(set_yaml), "set.yaml"), "set loads");
	ok(!corpus_load(&c, cpath), "corpus loads");
	ok(!run_load(&runs[0], pa) && !run_load(&runs[1], pb), "runs load");
	ok(!pool_build(&p, &s, "sets/demo", "v1", runs, paths, 2, 3, &c, &missing), "pool builds");
	is_int(missing, 1, "a document missing from the corpus is counted (c-9)");
	is_int(p.nr_runs, 2, "two runs recorded");
	is_str(p.runs[0].name, "bm25", "run named after its file");
	is_str(p.runs[1].name, "dense", "second run named after its file");
	ok(p.runs[0].sha256 && starts_with(p.runs[0].sha256, "sha256:"), "run file digest recorded");
	is_int(p.nr, 2, "unanswerable questions are not pooled");
	ok(!pool_find(&p, "q-2"), "q-2 (unanswerable) left out");
	/* q-1: depth 3 of bm25 = c-1 c-2 c-4; of dense = c-3 c-2 c-1; labelled c-1, c-4 out */
	is_int(pool_find(&p, "q-1")->nr, 2, "q-1 pools the two unlabelled documents");
	ok(!find_pair(&p, "q-1", "c-1"), "a relevant chunk is not pooled");
	ok(!find_pair(&p, "q-1", "c-4"), "an irrelevant chunk is not pooled");
	ok(!find_pair(&p, "q-1", "c-5"), "documents below the depth are not pooled");
	pp = find_pair(&p, "q-1", "c-2");
	ok(pp && pp->nr_found == 2, "c-2 found by both runs");
	if (pp && pp->nr_found == 2) {
		is_str(pp->found[0].run, "bm25", "first finder");
		is_int(pp->found[0].rank, 2, "rank in bm25");
		is_str(pp->found[1].run, "dense", "second finder");
		is_int(pp->found[1].rank, 2, "rank in dense");
		is_str(pp->text, "Keys expire.\nAfter 90 days.", "chunk text copied from the corpus");
		is_str(pp->title, "Keys", "chunk title copied");
		is_int(pp->grade, -1, "not graded yet");
	}
	/* order: best rank first: c-3 (rank 1 in dense) before c-2 (rank 2) */
	is_str(pool_find(&p, "q-1")->pairs[0].chunk, "c-3", "pairs ordered by best rank");
	/* q-3: c-5 found by both at rank 2; c-6 relevant; c-9 not in the corpus */
	is_int(pool_find(&p, "q-3")->nr, 1, "q-3 pools one pair");

	/* grade two pairs, with texts that must keep their types, and round-trip */
	p.q[0].pairs[0].grade = 3;
	p.q[0].pairs[0].judge = xstrdup("llm:gpt-x");
	p.q[0].pairs[0].prompt = xstrdup("judge@sha256:00");
	p.q[0].pairs[0].reason = xstrdup("null");
	p.q[0].pairs[1].grade = 0;
	p.q[0].pairs[1].note = xstrdup("  spaces: and # hash ");
	ok(!pool_to_yaml(&p, &y1), "pool writes as YAML");
	ok(!pool_load_buf(&back, y1.buf, y1.len, "pool.yaml"), "written pool loads back");
	ok(!pool_to_yaml(&back, &y2) && !strcmp(y1.buf, y2.buf), "a second round trip gives the same bytes");
	pp = find_pair(&back, "q-1", "c-3");
	ok(pp && pp->grade == 3 && !strcmp(pool_pair_judge(pp), "llm:gpt-x"), "LLM grade and judge kept");
	ok(pp && pp->text && !strcmp(pp->text, "true"), "a text that looks like a boolean stays a string");
	ok(pp && pp->reason && !strcmp(pp->reason, "null"), "a reason 'null' stays a string");
	pp = find_pair(&back, "q-1", "c-2");
	ok(pp && pp->grade == 0 && !strcmp(pool_pair_judge(pp), "human"), "grade 0 without judge is human");
	ok(pp && pp->note && !strcmp(pp->note, "  spaces: and # hash "), "note with YAML characters kept");
	ok(pp && pp->text && !strcmp(pp->text, "Keys expire.\nAfter 90 days."), "multi-line text kept");
	ok(strstr(y1.buf, "text: |") != NULL, "multi-line text written as a literal block");
	is_str(back.set_version, "v1", "set version kept");
	is_str(back.set_path, "sets/demo", "set path kept");
	ok(pool_check(&back, &s, &c) == 0, "a built pool checks clean against its set and corpus");

	strbuf_release(&y1);
	strbuf_release(&y2);
	pool_release(&p);
	pool_release(&back);
	run_release(&runs[0]);
	run_release(&runs[1]);
	corpus_release(&c);
	set_release(&s);
	unlink(cpath);
	unlink(pa);
	unlink(pb);
	free(cpath);
	free(pa);
	free(pb);
}

static const char head[] =
	"evalset_pool: 1\n"
	"set: {name: demo, version: v1}\n"
	"runs:\n"
	"- {name: bm25}\n"
	"questions:\n"
	"- id: q-1\n"
	"  pairs:\n"
	"  - chunk: c-2\n"
	"    found_by: [{run: bm25, rank: 2}]\n";

/* Load 'head' + 'tail' and check it is refused with 'want' in the message. */
static void refused(const char *tail, const char *want, const char *what)
{
	struct pool p = POOL_INIT;
	char *text = xstrfmt("%s%s", head, tail);
	int rc;

	test_captured();
	rc = pool_load_buf(&p, text, strlen(text), "pool.yaml");
	ok(rc < 0 && strstr(test_captured(), want), "%s: refused with '%s'", what, want);
	if (rc == 0)
		pool_release(&p);
	free(text);
}

static void test_refusals(void)
{
	struct pool p = POOL_INIT;
	char *text = xstrfmt("%s    grade: 2\n", head);

	ok(!pool_load_buf(&p, text, strlen(text), "pool.yaml"), "a graded pool loads");
	is_int(p.nr ? p.q[0].pairs[0].grade : -9, 2, "grade read");
	pool_release(&p);
	free(text);

	refused("    grade: 4\n", "pool.yaml:10:12: the grade must be an integer in 0..3, not '4'", "grade 4");
	refused("    grade: -1\n", "pool.yaml:10:12:", "grade -1");
	refused("    grade: 2.5\n", "not '2.5'", "non-integer grade");
	refused("    grade: '2'\n", "pool.yaml:10:12: the grade must be an integer", "quoted grade");
	refused("    grade: good\n", "not 'good'", "word grade");
	refused("    grade: [2]\n", "not a list", "list grade");
	refused("    grade: 1\n    judge: gpt\n", "pool.yaml:11:12: unknown judge 'gpt'", "bad judge");
	refused("    grade: 1\n    judge: 'llm:'\n", "unknown judge", "judge without model");
	refused("    grde: 1\n", "pool.yaml:10:5: unknown key 'grde' in a pair", "misspelt key");
	refused("    grade: 1\n    grade: 2\n", "pool.yaml:11:5: duplicate key 'grade'", "duplicate key");
	refused("  - chunk: c-2\n", "pool.yaml:10:5: duplicate pair: chunk 'c-2' listed twice for question 'q-1' (first at line 8)",
		"duplicate pair");
	refused("- id: q-1\n", "pool.yaml:10:3: duplicate question 'q-1'", "duplicate question");
	refused("  - chunk: c-3\n    found_by: [{run: nope, rank: 1}]\n", "unknown run 'nope'", "unknown run");
	refused("  - chunk: c-3\n    found_by: [{run: bm25, rank: 0}]\n", "'rank' must be an integer", "rank 0");
	refused("  - chunk: ''\n", "'chunk' must be a non-empty string", "empty chunk id");
	refused("  - chunk: &a c-3\n", "anchor not supported", "anchor");
	refused("    grade: [\n", "pool.yaml:11:1: YAML syntax error", "syntax error");
	{
		const char *bad[] = {
			"", "evalset_pool: 2\nset: {name: x}\n", "set: {name: x}\n", "evalset_pool: 1\n",
			"evalset_pool: 1\nset: {name: x}\nquestions: {}\n", "- 1\n", "evalset_pool: 1\nset: {name: x}\n---\nx: 1\n",
		};
		const char *why[] = {
			"empty", "unsupported pool schema 2", "has no 'evalset_pool'", "has no 'set'",
			"'questions' must be a list", "must be a mapping", "more than one YAML document",
		};
		for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
			int rc;
			test_captured();
			rc = pool_load_buf(&p, bad[i], strlen(bad[i]), "pool.yaml");
			ok(rc < 0 && strstr(test_captured(), why[i]), "refused: %s", why[i]);
			if (!rc)
				pool_release(&p);
		}
	}
	{
		const char nul[] = "evalset_pool: 1\nset: {name: \"a\\0b\"}\n";
		int rc;
		test_captured();
		rc = pool_load_buf(&p, nul, strlen(nul), "pool.yaml");
		ok(rc < 0 && strstr(test_captured(), "NUL"), "an escaped NUL byte is refused");
		if (!rc)
			pool_release(&p);
	}
}

/* A pool the emitter refuses (a text that is not UTF-8) is an error naming the file; nothing is written. */
static void test_write_refused(void)
{
	struct pool p = POOL_INIT;
	struct strbuf sb = STRBUF_INIT;
	char *path = xstrfmt("%s/pool.yaml", tmpdir), *want;
	int rc;

	ok(!pool_load_buf(&p, head, strlen(head), "pool.yaml"), "a small pool loads");
	p.q[0].text = xstrdup("caf\xe9?");
	test_captured();
	rc = pool_save(&p, path);
	want = xstrfmt("cannot write '%s' as YAML: a string is not valid UTF-8", path);
	ok(rc < 0 && strstr(test_captured(), want), "saving it is refused, naming the file and the problem");
	free(want);
	ok(!path_exists(path), "nothing is written");
	test_captured();
	ok(pool_to_yaml(&p, &sb) < 0 && strstr(test_captured(), "cannot write the pool as YAML"),
	   "pool_to_yaml names the pool");
	strbuf_release(&sb);
	pool_release(&p);
	free(path);
}

static void test_check(void)
{
	static const char text[] =
		"evalset_pool: 1\n"
		"set: {name: demo}\n"
		"questions:\n"
		"- id: q-1\n"
		"  pairs:\n"
		"  - {chunk: c-2, grade: 1}\n"
		"  - {chunk: c-77, grade: 0}\n"
		"- id: q-404\n"
		"  pairs: []\n";
	struct pool p = POOL_INIT;
	struct set s = SET_INIT;
	struct corpus c = CORPUS_INIT;
	char *cpath = write_tmp("chunks.jsonl", corpus_jsonl);
	const char *msg;

	ok(!set_load_buf(&s, set_yaml, strlen(set_yaml), "set.yaml"), "set loads");
	ok(!corpus_load(&c, cpath), "corpus loads");
	ok(!pool_load_buf(&p, text, strlen(text), "pool.yaml"), "pool loads (ids are checked later)");
	test_captured();
	is_int(pool_check(&p, &s, &c), 2, "two problems found");
	msg = test_captured();
	ok(strstr(msg, "pool.yaml:7:5: unknown chunk 'c-77' for question 'q-1'") != NULL, "unknown chunk at its place");
	ok(strstr(msg, "pool.yaml:8:3: unknown question 'q-404'") != NULL, "unknown question at its place");
	is_int(pool_check(&p, NULL, NULL), 0, "nothing to check against: no problems");
	{
		struct pool_counts pc;
		pool_count(&p, &pc);
		is_int(pc.pairs, 2, "counts: pairs");
		is_int(pc.graded, 2, "counts: graded");
		is_int(pc.human, 2, "counts: human grades");
		is_int(pc.by_grade[1], 1, "counts: grade 1");
	}
	pool_release(&p);
	set_release(&s);
	corpus_release(&c);
	unlink(cpath);
	free(cpath);
}

/* The YAML in parts (what the review page saves a grade with) is the whole
 * file byte for byte, and stays so when one question is emitted again. */
static void test_parts(void)
{
	static const char text[] =
		"# evalset pool: grade each pair 0-3 (null: not graded yet); see docs/pool.md\n"
		"#   0 unrelated  1 related but does not answer  2 partly answers\n"
		"#   3 dedicated to the question and holds the exact answer\n"
		"evalset_pool: 1\n"
		"set:\n"
		"  name: demo\n"
		"  version: v1\n"
		"  digest: null\n"
		"runs:\n"
		"- name: bm25\n"
		"  path: bm25.trec\n"
		"questions:\n"
		"- id: q-1\n"
		"  text: 'true'\n"
		"  pairs:\n"
		"  - chunk: c-2\n"
		"    found_by: [{run: bm25, rank: 2}]\n"
		"    text: |-\n"
		"      Keys expire.\n"
		"      After 90 days.\n"
		"    grade: null\n"
		"- id: q-2\n"
		"  text: Empty?\n"
		"  pairs: []\n";
	struct pool p = POOL_INIT;
	struct pool_yaml y = POOL_YAML_INIT;
	struct strbuf joined = STRBUF_INIT, whole = STRBUF_INIT;

	ok(!pool_load_buf(&p, text, strlen(text), "pool.yaml"), "a pool with a literal block and an empty question loads");
	ok(!pool_yaml_build(&y, &p), "its YAML builds in parts");
	is_int(y.nr, 2, "one part a question");
	pool_yaml_join(&y, &joined);
	is_str(joined.buf, text, "the parts joined are the file as written by hand");
	ok(!pool_to_yaml(&p, &whole) && !strcmp(whole.buf, text), "and pool_to_yaml writes the same");
	p.q[0].pairs[0].grade = 2;
	p.q[0].pairs[0].judge = xstrdup("human");
	ok(!pool_yaml_update(&y, &p, 0), "one question emitted again");
	strbuf_reset(&joined);
	strbuf_reset(&whole);
	pool_yaml_join(&y, &joined);
	ok(!pool_to_yaml(&p, &whole) && !strcmp(joined.buf, whole.buf), "the parts are the whole file again");
	ok(strstr(joined.buf, "    grade: 2\n    judge: human\n- id: q-2\n") != NULL, "with the grade in its place");
	ok(pool_yaml_update(&y, &p, 2) < 0, "a question the pool does not have is refused");
	strbuf_release(&joined);
	strbuf_release(&whole);
	pool_yaml_release(&y);
	pool_release(&p);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		test_diag("mkdtemp failed");
		return 1;
	}
	test_capture_errors();
	test_build();
	test_refusals();
	test_check();
	test_write_refused();
	test_parts();
	rmdir(tmpdir);
	return test_done();
}
