/*
 * t-corpusbind: what changed between two corpora (core/set/corpusdiff.h),
 * the copies kept of a set's corpora (core/set/corpusstore.h), and a run's
 * corpus against its set's (core/score/bind.h): labels the run's corpus
 * lacks are left out and their question unjudged, never a miss.
 */
#include "test-lib.h"
#include "base/fsutil.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "score/bind.h"
#include "score/results.h"
#include "score/run.h"
#include "score/score.h"
#include "set/corpus.h"
#include "set/corpusdiff.h"
#include "set/corpusstore.h"
#include "set/set.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *dir;

/* Load the JSONL 'text' as a corpus written to 'name' in the scratch folder. */
static void load(struct corpus *c, const char *name, const char *text)
{
	char *path = test_write_file(dir, name, text);

	*c = (struct corpus)CORPUS_INIT;
	ok(corpus_load(c, path) == 0, "corpus %s loads", name);
	free(path);
}

/* a.md is "Alpha beta. Gamma delta." (24 code points), b.md "Only b." */
static const char *by_two =
	"{\"id\":\"a1\",\"doc\":\"a.md\",\"start\":0,\"end\":11,\"text\":\"Alpha beta.\"}\n"
	"{\"id\":\"a2\",\"doc\":\"a.md\",\"start\":12,\"end\":24,\"text\":\"Gamma delta.\"}\n"
	"{\"id\":\"b1\",\"doc\":\"b.md\",\"start\":0,\"end\":7,\"text\":\"Only b.\"}\n";

static void test_changes(void)
{
	struct corpus old, other, edited, grown;
	struct corpus_change ch = CORPUS_CHANGE_INIT;
	struct strbuf sb = STRBUF_INIT;

	load(&old, "old.jsonl", by_two);
	/* another chunking of the same text: one window over a.md, overlapping */
	load(&other, "other.jsonl",
	     "{\"id\":\"w1\",\"doc\":\"a.md\",\"start\":0,\"end\":24,\"text\":\"Alpha beta. Gamma delta.\"}\n"
	     "{\"id\":\"w2\",\"doc\":\"a.md\",\"start\":6,\"end\":17,\"text\":\"beta. Gamma\"}\n"
	     "{\"id\":\"w3\",\"doc\":\"b.md\",\"start\":0,\"end\":7,\"text\":\"Only b.\"}\n"
	     "{\"id\":\"w4\",\"doc\":\"b.md\",\"start\":9,\"end\":12,\"text\":\"-->\"}\n");
	corpus_change_compute(&old, &other, NULL, &ch);
	ok(corpus_change_none(&ch), "another chunking of the same documents changes no document "
	   "(a chunk without a token where the other side has none is passed over)");
	is_int(ch.nr_same, 2, "both documents the same");
	corpus_change_release(&ch);

	load(&edited, "edited.jsonl",
	     "{\"id\":\"e1\",\"doc\":\"a.md\",\"start\":0,\"end\":11,\"text\":\"Alpha beta.\"}\n"
	     "{\"id\":\"e2\",\"doc\":\"a.md\",\"start\":12,\"end\":24,\"text\":\"Gamma epsil.\"}\n"
	     "{\"id\":\"c1\",\"doc\":\"c.md\",\"start\":0,\"end\":4,\"text\":\"New!\"}\n");
	corpus_change_compute(&old, &edited, NULL, &ch);
	is_int(ch.nr_edited, 1, "one document edited");
	is_str(ch.nr_edited ? ch.edited[0] : "", "a.md", "a.md is the one");
	is_int(ch.nr_added, 1, "one added");
	is_int(ch.nr_removed, 1, "one removed");
	corpus_change_describe(&ch, &sb);
	is_str(sb.buf, "documents: 1 edited (a.md), 1 added (c.md), 1 removed (b.md)", "described");
	corpus_change_release(&ch);

	/* text appended where the old corpus had nothing: an edit */
	load(&grown, "grown.jsonl",
	     "{\"id\":\"a1\",\"doc\":\"a.md\",\"start\":0,\"end\":11,\"text\":\"Alpha beta.\"}\n"
	     "{\"id\":\"a2\",\"doc\":\"a.md\",\"start\":12,\"end\":24,\"text\":\"Gamma delta.\"}\n"
	     "{\"id\":\"a3\",\"doc\":\"a.md\",\"start\":26,\"end\":37,\"text\":\"More words.\"}\n"
	     "{\"id\":\"b1\",\"doc\":\"b.md\",\"start\":0,\"end\":7,\"text\":\"Only b.\"}\n");
	corpus_change_compute(&old, &grown, NULL, &ch);
	is_int(ch.nr_edited, 1, "a section added at the end is an edit");
	corpus_change_release(&ch);

	strbuf_release(&sb);
	corpus_release(&old);
	corpus_release(&other);
	corpus_release(&edited);
	corpus_release(&grown);
}

static const char *set_yaml =
	"evalset: 1\n"
	"name: demo\n"
	"corpus: {path: old.jsonl}\n"
	"questions:\n"
	"  - id: q-1\n"
	"    text: alpha?\n"
	"    relevant: [a1, a2]\n"
	"  - id: q-2\n"
	"    text: only b?\n"
	"    relevant: [b1]\n"
	"  - id: q-3\n"
	"    text: nothing here\n"
	"    answerable: false\n";

static void test_absent_and_unjudged(void)
{
	struct set s = SET_INIT, judged = SET_INIT;
	struct corpus edited;
	struct absent_labels a = ABSENT_LABELS_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct run run;
	struct results r;
	struct score_options so;
	struct score_summary sum;
	struct measure m;
	char *set_file = test_write_file(dir, "set.yaml", set_yaml);
	char *run_file = test_write_file(dir, "run.jsonl",
					 "{\"qid\":\"q-1\",\"results\":[\"e1\",\"a1\"]}\n"
					 "{\"qid\":\"q-2\",\"results\":[\"c1\"]}\n"
					 "{\"qid\":\"q-3\",\"results\":[]}\n");

	ok(set_load(&s, set_file) == 0, "set loads");
	load(&edited, "edited2.jsonl",
	     "{\"id\":\"a1\",\"doc\":\"a.md\",\"start\":0,\"end\":11,\"text\":\"Alpha beta.\"}\n"
	     "{\"id\":\"c1\",\"doc\":\"c.md\",\"start\":0,\"end\":4,\"text\":\"New!\"}\n");
	corpus_absent_labels(&s, &edited, &a);
	is_int(a.nr, 2, "two labels absent (a2, b1)");
	is_int(a.labels, 3, "of three");
	is_int(a.questions, 2, "in two questions");
	is_int(a.questions_all, 1, "one question with every label absent");
	absent_labels_describe(&a, 5, &sb);
	is_str(sb.buf, "2 of 3 labels (2 questions) point at chunks not in it: q-1 a2, q-2 b1",
	       "described");

	bind_drop_absent(&s, &a, &judged);
	is_int(judged.q[0].nr_relevant, 1, "q-1 keeps a1");
	is_int(judged.q[1].nr_relevant, 0, "q-2 keeps nothing");
	ok(judged.q[1].answerable, "q-2 stays answerable");

	run_init(&run);
	ok(run_load(&run, run_file) == 0, "run loads");
	memset(&so, 0, sizeof(so));
	memset(&sum, 0, sizeof(sum));
	ok(measure_parse("R@1", &m) == 0, "R@1 parses");
	so.measures = &m;
	so.nr_measures = 1;
	so.k = 1;
	so.depth = 10;
	results_init(&r);
	ok(score_set(&judged, NULL, &run, run_file, &so, &r, &sum) == 0, "scored");
	ok(r.q[1].unjudged && isnan(r.q[1].values[0]), "q-2 is unjudged, without a value");
	is_int(r.nr_answerable, 1, "one answerable question counts");
	is_int(sum.unjudged, 1, "one unjudged");
	is_double(r.aggregate[0], 0.0, 1e-12, "R@1 over q-1 alone: a1 at rank 2, not at 1");
	is_int(sum.not_found + sum.found_low + sum.found_top_k, 1, "find-vs-rank holds q-1 alone");

	score_summary_release(&sum);
	results_release(&r);
	run_release(&run);
	strbuf_release(&sb);
	absent_labels_release(&a);
	set_release(&judged);
	set_release(&s);
	corpus_release(&edited);
	free(set_file);
	free(run_file);
}

static void test_store(void)
{
	struct corpus c, back = CORPUS_INIT, labelled = CORPUS_INIT;
	struct set s = SET_INIT;
	char fp[72], fp2[72], *sdir = xstrfmt("%s/sets/demo", dir), *set_file;
	char *yaml;

	load(&c, "sets/demo/corpus.jsonl", by_two);
	corpus_fingerprint(&c, fp);
	ok(corpus_store_get(sdir, fp, &back) == 0, "no copy before one is kept");
	corpus_store_put(sdir, &c, fp);
	ok(corpus_store_get(sdir, fp, &back) == 1, "the copy is found");
	corpus_fingerprint(&back, fp2);
	is_str(fp2, fp, "with the same fingerprint");
	ok(back.nr == 3 && back.chunks[1].start == 12 && !strcmp(back.chunks[1].doc, "a.md"),
	   "spans and documents kept");
	corpus_release(&back);
	ok(corpus_store_get(sdir, "sha256:0000000000000000000000000000000000000000000000000000000000000000",
			    &back) == 0, "another fingerprint is not found");

	/* the set's file re-chunked in place: the labels' corpus is the copy */
	yaml = xstrfmt("evalset: 1\nname: demo\ncorpus: {path: corpus.jsonl, fingerprint: \"%s\"}\n"
		       "questions: []\n", fp);
	set_file = test_write_file(sdir, "set.yaml", yaml);
	free(test_write_file(sdir, "corpus.jsonl",
			     "{\"id\":\"x1\",\"doc\":\"a.md\",\"start\":0,\"end\":5,\"text\":\"Alpha\"}\n"));
	ok(set_load(&s, set_file) == 0, "set loads");
	test_capture_errors();
	is_int(set_corpus_load_labelled(&s, sdir, &labelled), LABELLED_COPY,
	       "the copy of the labelled corpus is taken");
	ok(strstr(test_captured(), "using the copy of the corpus it was labelled on") != NULL,
	   "and a note says so");
	is_int(labelled.nr, 3, "with its three chunks");
	corpus_release(&labelled);

	corpus_release(&c);
	set_release(&s);
	free(yaml);
	free(set_file);
	free(sdir);
}

int main(void)
{
	char tmpl[] = "/tmp/t-corpusbind-XXXXXX";

	dir = mkdtemp(tmpl);
	if (!dir)
		return 1;
	test_changes();
	test_absent_and_unjudged();
	test_store();
	test_remove_tree(dir);
	return test_done();
}
