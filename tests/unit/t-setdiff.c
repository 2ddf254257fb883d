/*
 * t-setdiff: what diff reports between two versions of a set, and the
 * corpus fingerprint warning of corpuscheck.
 */
#include "test-lib.h"
#include "set/corpus.h"
#include "set/corpuscheck.h"
#include "base/fsutil.h"
#include "set/set.h"
#include "set/setdiff.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *old_yaml =
	"evalset: 1\n"
	"name: demo\n"
	"version: v1\n"
	"questions:\n"
	"  - id: q-0001\n"
	"    text: How do I rotate an API key?\n"
	"    relevant: [c-1]\n"
	"  - id: q-0002\n"
	"    text: Where are logs kept?\n"
	"    relevant: {c-1: 1, c-2: 1}\n"
	"  - id: q-0003\n"
	"    text: Can I export invoices?\n"
	"    relevant: [c-5]\n"
	"  - id: q-0004\n"
	"    text: What is the rate limit?\n"
	"    relevant: [c-7]\n"
	"    tags: [x, keep]\n"
	"  - id: q-0005\n"
	"    text: Who wrote this?\n"
	"    relevant: [c-9]\n"
	"  - id: q-0006\n"
	"    text: How big can uploads be?\n"
	"    relevant: [c-4]\n"
	"    provenance: {chunk: c-4, seed: 1}\n"
	"  - id: q-0007\n"
	"    text: Unchanged question?\n"
	"    relevant: [c-8]\n";

static const char *new_yaml =
	"evalset: 1\n"
	"name: demo\n"
	"questions:\n"
	"  - id: q-0001\n"
	"    text: How do I rotate an API token?\n"
	"    relevant: [c-1]\n"
	"  - id: q-0002\n"
	"    text: Where are logs kept?\n"
	"    relevant: {c-1: 2, c-3: 1}\n"
	"    irrelevant: [c-2]\n"
	"  - id: q-0003\n"
	"    text: Can I export invoices?\n"
	"    answerable: false\n"
	"  - id: q-0004\n"
	"    text: What is the rate limit?\n"
	"    relevant: [c-7]\n"
	"    tags: [keep, hard]\n"
	"  - id: q-0006\n"
	"    text: How big can uploads be?\n"
	"    relevant: [c-4]\n"
	"    provenance: {chunk: c-4, seed: 2}\n"
	"  - id: q-0007\n"
	"    text: Unchanged question?\n"
	"    relevant: [c-8]\n"
	"  - id: q-0008\n"
	"    text: Is there an SLA?\n"
	"    relevant: [c-6]\n";

/* The old set again, reformatted: other question order, key order, label
 * and tag order, flow versus block style, quoting and comments. */
static const char *old_reformatted =
	"# the same content as old_yaml\n"
	"name: demo\n"
	"evalset: 1\n"
	"questions:\n"
	"- id: q-0007\n"
	"  relevant:\n"
	"  - c-8\n"
	"  text: 'Unchanged question?'\n"
	"- text: \"Who wrote this?\"\n"
	"  id: q-0005\n"
	"  relevant: [c-9]   # one label\n"
	"- id: q-0004\n"
	"  tags:\n"
	"    - keep\n"
	"    - x\n"
	"  relevant: [c-7]\n"
	"  text: What is the rate limit?\n"
	"- id: q-0002\n"
	"  text: Where are logs kept?\n"
	"  relevant: {c-2: 1, c-1: 1}\n"
	"- id: q-0006\n"
	"  provenance:\n"
	"    seed: 1\n"
	"    chunk: c-4\n"
	"  relevant: [c-4]\n"
	"  text: How big can uploads be?\n"
	"- id: q-0003\n"
	"  text: Can I export invoices?\n"
	"  relevant: [c-5]\n"
	"- id: q-0001\n"
	"  text: How do I rotate an API key?\n"
	"  relevant: [c-1]\n";

static void load(struct set *s, const char *yaml, const char *name)
{
	set_init(s);
	if (set_load_buf(s, yaml, strlen(yaml), name) < 0)
		test_diag("cannot load %s: %s", name, test_captured());
}

static const struct question_change *find_change(const struct set_diff *d, const char *id)
{
	for (size_t i = 0; i < d->nr_changed; i++)
		if (!strcmp(d->changed[i].id, id))
			return &d->changed[i];
	return NULL;
}

static void test_kinds_of_change(void)
{
	struct set a, b;
	struct set_diff d = SET_DIFF_INIT;
	struct strbuf sb = STRBUF_INIT;
	const struct question_change *c;

	load(&a, old_yaml, "old.yaml");
	load(&b, new_yaml, "new.yaml");
	set_diff_compute(&a, &b, &d);

	ok(strcmp(d.from.content_digest, d.to.content_digest) != 0,
	   "a diff with changes has different content digests");
	is_int(d.header, 0, "and no header change (a version field is tag metadata)");
	is_int(d.nr_added, 1, "one question added");
	ok(d.nr_added == 1 && !strcmp(d.added[0].id, "q-0008") &&
	   !strcmp(d.added[0].text, "Is there an SLA?"), "the added question is q-0008 with its text");
	is_int(d.nr_removed, 1, "one question removed");
	ok(d.nr_removed == 1 && !strcmp(d.removed[0].id, "q-0005"), "the removed question is q-0005");
	is_int(d.nr_changed, 5, "five questions changed");
	is_int(d.nr_unchanged, 1, "one question unchanged");
	ok(strcmp(d.from.digest, d.to.digest) != 0, "changed content has another digest");

	c = find_change(&d, "q-0001");
	ok(c && c->what == QCHANGE_TEXT, "an edited text is a text change only");
	ok(c && !strcmp(c->from_text, "How do I rotate an API key?") &&
	   !strcmp(c->to_text, "How do I rotate an API token?"), "both texts are kept");

	c = find_change(&d, "q-0002");
	ok(c && c->what == QCHANGE_LABELS, "regraded labels are a label change only");
	if (c && c->nr_labels == 3) {
		ok(!strcmp(c->labels[0].chunk, "c-1") && c->labels[0].from == 1 && c->labels[0].to == 2,
		   "c-1 went from grade 1 to 2");
		ok(!strcmp(c->labels[1].chunk, "c-2") && c->labels[1].from == 1 && c->labels[1].to == 0,
		   "c-2 went from relevant to judged irrelevant");
		ok(!strcmp(c->labels[2].chunk, "c-3") && c->labels[2].from == -1 && c->labels[2].to == 1,
		   "c-3 went from unjudged to grade 1");
	} else {
		ok(0, "three label changes on q-0002, got %zu", c ? c->nr_labels : 0);
	}

	c = find_change(&d, "q-0003");
	ok(c && c->what == (QCHANGE_ANSWERABLE | QCHANGE_LABELS),
	   "turning unanswerable flips answerable and drops the label");
	ok(c && c->from_answerable && !c->to_answerable, "answerable went from true to false");
	ok(c && c->nr_labels == 1 && c->labels[0].from == 1 && c->labels[0].to == -1,
	   "the dropped label goes from 1 to unjudged");

	c = find_change(&d, "q-0004");
	ok(c && c->what == QCHANGE_TAGS, "a swapped tag is a tag change only (order ignored)");
	ok(c && c->nr_tags_added == 1 && !strcmp(c->tags_added[0], "hard") &&
	   c->nr_tags_removed == 1 && !strcmp(c->tags_removed[0], "x"), "tag 'hard' added, 'x' removed");

	c = find_change(&d, "q-0006");
	ok(c && c->what == QCHANGE_OTHER && c->nr_other == 1 && !strcmp(c->other[0], "provenance"),
	   "a provenance edit is reported as another field");
	ok(c && c->provenance_only, "and as provenance only: the same question on the same evidence");

	set_diff_summary(&d, &sb);
	is_str(sb.buf, "1 added, 1 removed, 5 changed: 4 in content (1 text, 2 labels, 1 answerable, "
	       "1 tags), 1 provenance only (the same question on the same evidence), 1 unchanged",
	       "the one-line summary counts every kind of content change, provenance apart");
	strbuf_reset(&sb);

	set_diff_format_text(&d, &sb);
	ok(strstr(sb.buf, "added    q-0008  \"Is there an SLA?\"\n") != NULL, "text lists the added question");
	ok(strstr(sb.buf, "removed  q-0005  \"Who wrote this?\"\n") != NULL, "text lists the removed question");
	ok(strstr(sb.buf, "    labels      c-1 1 -> 2, c-2 1 -> 0, c-3 none -> 1\n") != NULL,
	   "text shows which chunks changed grade, and how");
	ok(strstr(sb.buf, "    answerable  true -> false\n") != NULL, "text shows the answerable flip");
	ok(strstr(sb.buf, "    tags        +hard -x\n") != NULL, "text shows tags added and removed");
	ok(strstr(sb.buf, "from demo@v1 (7 questions, sha256:") != NULL &&
	   strstr(sb.buf, "to   demo (working copy, 7 questions, sha256:") != NULL,
	   "text names both sides, the working copy as such");
	ok(sb.len && strstr(sb.buf, "), 1 unchanged\n") == sb.buf + sb.len - strlen("), 1 unchanged\n"),
	   "text ends with the summary line");

	strbuf_release(&sb);
	set_diff_release(&d);
	set_release(&a);
	set_release(&b);
}

static void test_json(void)
{
	struct set a, b;
	struct set_diff d = SET_DIFF_INIT;
	cJSON *j, *x, *labels, *l;
	char *text;

	load(&a, old_yaml, "old.yaml");
	load(&b, new_yaml, "new.yaml");
	set_diff_compute(&a, &b, &d);
	j = set_diff_to_json(&d);
	/* through text and back, as a consumer of --format json sees it */
	text = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	j = cJSON_Parse(text);
	free(text);

	x = cJSON_GetObjectItem(j, "from");
	ok(x && cJSON_IsString(cJSON_GetObjectItem(x, "version")) &&
	   !strcmp(cJSON_GetObjectItem(x, "version")->valuestring, "v1"), "from.version is v1");
	x = cJSON_GetObjectItem(j, "to");
	ok(x && cJSON_IsNull(cJSON_GetObjectItem(x, "version")), "to.version is null for a working copy");
	x = cJSON_GetObjectItem(j, "summary");
	ok(x && cJSON_GetObjectItem(x, "added")->valueint == 1 &&
	   cJSON_GetObjectItem(x, "removed")->valueint == 1 &&
	   cJSON_GetObjectItem(x, "changed")->valueint == 5 &&
	   cJSON_GetObjectItem(x, "labels")->valueint == 2, "summary counts as numbers");
	x = cJSON_GetObjectItem(j, "changed");
	l = NULL;
	labels = NULL;
	for (cJSON *c = x ? x->child : NULL; c; c = c->next)
		if (!strcmp(cJSON_GetObjectItem(c, "id")->valuestring, "q-0002"))
			labels = cJSON_GetObjectItem(c, "labels");
	if (labels)
		l = cJSON_GetArrayItem(labels, 2);
	ok(l && !strcmp(cJSON_GetObjectItem(l, "chunk")->valuestring, "c-3") &&
	   cJSON_IsNull(cJSON_GetObjectItem(l, "from")) &&
	   cJSON_GetObjectItem(l, "to")->valueint == 1, "an unjudged grade is null in JSON");
	cJSON_Delete(j);
	set_diff_release(&d);
	set_release(&a);
	set_release(&b);
}

static void test_formatting_is_no_change(void)
{
	struct set a, b;
	struct set_diff d = SET_DIFF_INIT;
	struct strbuf sb = STRBUF_INIT;

	load(&a, old_yaml, "old.yaml");
	load(&b, old_reformatted, "reformatted.yaml");
	set_diff_compute(&a, &b, &d);
	ok(set_diff_empty(&d), "reordering, re-styling and comments are no change");
	is_int(d.nr_unchanged, 7, "every question is unchanged");
	is_str(d.from.content_digest, d.to.content_digest,
	       "and the content digests agree with the diff");
	set_diff_summary(&d, &sb);
	is_str(sb.buf, "no changes (7 questions)", "the summary says so");
	strbuf_release(&sb);
	set_diff_release(&d);
	set_release(&a);
	set_release(&b);
}

static void test_header_changes(void)
{
	struct set a, b;
	struct set_diff d = SET_DIFF_INIT;
	struct strbuf sb = STRBUF_INIT, text = STRBUF_INIT;

	load(&a, old_yaml, "old.yaml");
	strbuf_addstr(&text, "description: now described\ncorpus: {path: corpus.jsonl}\n");
	strbuf_addstr(&text, old_reformatted);
	load(&b, text.buf, "described.yaml");
	set_diff_compute(&a, &b, &d);
	ok(set_diff_empty(&d), "a description and a corpus are no question change");
	is_str(d.from.content_digest, d.to.content_digest, "the content digests agree");
	ok(strcmp(d.from.digest, d.to.digest) != 0, "the digests do not");
	is_int(d.header, HCHANGE_DESCRIPTION | HCHANGE_CORPUS, "the header change is named");
	set_diff_summary(&d, &sb);
	is_str(sb.buf, "no changes (7 questions); header changed: description, corpus",
	       "the summary says the questions are the same and what changed in the header");
	set_diff_release(&d);
	set_release(&b);

	/* a note or a parent is tag metadata: never a header change */
	strbuf_reset(&text);
	strbuf_addstr(&text, "note: tagged for the demo\nparent: v0\n");
	strbuf_addstr(&text, old_reformatted);
	load(&b, text.buf, "noted.yaml");
	ok(set_header_changes(&a, &b) == 0, "a note and a parent are not header changes");
	set_release(&b);

	/* corpus fingerprints count only between two frozen versions */
	load(&b, "name: demo\ncorpus: {path: c.jsonl, fingerprint: 'sha256:01'}\n", "b.yaml");
	set_release(&a);
	load(&a, "name: demo\nversion: v1\ncorpus: {path: c.jsonl, fingerprint: 'sha256:02'}\n",
	     "a.yaml");
	ok(set_header_changes(&a, &b) == 0,
	   "a working copy's stale fingerprint is not a change from a version");
	free(b.version);
	b.version = xstrdup("v2");
	is_int(set_header_changes(&a, &b), HCHANGE_CORPUS,
	       "between two versions a new fingerprint is a corpus change");
	strbuf_release(&sb);
	strbuf_release(&text);
	set_release(&a);
	set_release(&b);
}

static char *write_temp(const char *dir, const char *name, const char *content)
{
	char *path = path_join(dir, name);

	if (write_file_atomic(path, content, strlen(content)) < 0)
		test_diag("cannot write %s", path);
	return path;
}

static void test_corpus_fingerprint(void)
{
	char tmpl[] = "/tmp/t-setdiff-XXXXXX";
	char *dir = mkdtemp(tmpl);
	struct corpus c = CORPUS_INIT, c2 = CORPUS_INIT;
	struct set s;
	char fp[72], *path, *p1, *p2, *yaml;
	const char *msg;

	if (!dir) {
		ok(0, "mkdtemp");
		return;
	}
	p1 = write_temp(dir, "corpus.jsonl",
			"{\"id\": \"c-1\", \"text\": \"Rotate keys in settings.\"}\n"
			"{\"id\": \"c-2\", \"text\": \"Logs are kept 30 days.\"}\n");
	/* the same ids, the text cut differently: a re-chunked corpus */
	p2 = write_temp(dir, "rechunked.jsonl",
			"{\"id\": \"c-1\", \"text\": \"Rotate keys in settings. Logs are\"}\n"
			"{\"id\": \"c-2\", \"text\": \"kept 30 days.\"}\n");
	ok(corpus_load(&c, p1) == 0 && corpus_load(&c2, p2) == 0, "both corpora load");
	corpus_fingerprint(&c, fp);

	yaml = xstrfmt("evalset: 1\nname: demo\nversion: v1\n"
		       "corpus: {path: corpus.jsonl, fingerprint: '%s', chunks: 2}\n"
		       "questions:\n  - id: q-0001\n    text: How long are logs kept?\n"
		       "    relevant: [c-2]\n", fp);
	load(&s, yaml, "v1.yaml");

	path = set_corpus_path(&s, dir);
	ok(path && !strcmp(path, p1), "the corpus path is resolved against the set directory");
	free(path);
	path = set_corpus_path(&s, NULL);
	is_str(path, "corpus.jsonl", "without a directory the path is kept as written");
	free(path);

	test_captured();
	is_int(set_corpus_verify(&s, &c), 0, "the corpus it was tagged against passes");
	is_str(test_captured(), "", "and nothing is said");
	is_int(set_corpus_verify(&s, &c2), 1, "a re-chunked corpus is noticed");
	msg = test_captured();
	ok(strstr(msg, "warning: corpus '") && strstr(msg, "but set version v1 was tagged against sha256:") &&
	   strstr(msg, "labels may point at re-chunked text"), "with the warning naming the version: %s", msg);

	{
		struct corpus loaded = CORPUS_INIT;
		is_int(set_corpus_load(&s, dir, &loaded), 1, "set_corpus_load finds corpus.jsonl beside the set");
		is_str(test_captured(), "", "and it matches");
		corpus_release(&loaded);
	}

	free(s.corpus.fingerprint);
	s.corpus.fingerprint = NULL;
	is_int(set_corpus_verify(&s, &c2), 0, "a set recording no fingerprint is not checked");
	set_release(&s);

	load(&s, "evalset: 1\nname: demo\nquestions: []\n", "empty.yaml");
	path = set_corpus_path(&s, dir);
	ok(path == NULL, "a set naming no corpus has no corpus path");
	{
		struct corpus none = CORPUS_INIT;
		is_int(set_corpus_load(&s, dir, &none), 0, "and set_corpus_load loads nothing");
	}
	set_release(&s);

	unlink(p1);
	unlink(p2);
	rmdir(dir);
	free(p1);
	free(p2);
	free(yaml);
	corpus_release(&c);
	corpus_release(&c2);
}

/* After a remap, labels carried to new chunks with their evidence are
 * provenance only, listed after the content changes; a stale label, a
 * dropped judgement or a lost place is content. */
static void test_remap_moves(void)
{
	static const char *before =
		"evalset: 1\nname: demo\nversion: v1\nquestions:\n"
		"  - id: q-1\n    text: Where are keys?\n    relevant: {a.md#1: 2}\n"
		"    evidence: [{chunk: a.md#1, doc: a.md, start: 0, end: 40}]\n"
		"  - id: q-2\n    text: Why rotate?\n    relevant: [a.md#2]\n"
		"  - id: q-3\n    text: What expires?\n    relevant: [a.md#3]\n"
		"    evidence: [{chunk: a.md#3, doc: a.md, start: 90, end: 99, quote: Keys expire}]\n"
		"  - id: q-4\n    text: How long?\n    relevant: [a.md#4]\n    irrelevant: [a.md#5]\n";
	static const char *after =
		"evalset: 1\nname: demo\nversion: v2\nquestions:\n"
		"  - id: q-1\n    text: Where are keys?\n    relevant: {t#1: 2, t#2: 2}\n"
		"    evidence: [{chunk: t#1, doc: a.md, start: 0, end: 40}, {chunk: t#2, doc: a.md, start: 0, end: 40}]\n"
		"    provenance: {remapped_from: {from: demo@v1, labels: {a.md#1: [t#1, t#2]}, split: [a.md#1]}}\n"
		"  - id: q-2\n    text: Why rotate?\n    relevant: [t#3]\n"
		"    evidence: [{chunk: t#3, doc: a.md, start: 41, end: 80}]\n"
		"    provenance: {remapped_from: {from: demo@v1, labels: {a.md#2: [t#3]}}}\n"
		"  - id: q-3\n    text: What expires?\n    answerable: false\n    tags: [stale]\n"
		"    provenance: {remapped_from: {from: demo@v1, labels: {a.md#3: []}, stale: [a.md#3]}}\n"
		"  - id: q-4\n    text: How long?\n    relevant: [t#4]\n"
		"    provenance: {remapped_from: {from: demo@v1, labels: {a.md#4: [t#4]}}}\n";
	struct set a, b;
	struct set_diff d = SET_DIFF_INIT;
	struct strbuf sb = STRBUF_INIT;
	const struct question_change *c;
	const char *content, *moved;

	load(&a, before, "before.yaml");
	load(&b, after, "after.yaml");
	set_diff_compute(&a, &b, &d);
	c = find_change(&d, "q-1");
	ok(c && c->provenance_only, "a label carried 1:n with its place is provenance only");
	c = find_change(&d, "q-2");
	ok(c && c->provenance_only, "a whole-chunk label carried with a span of its own is provenance only");
	c = find_change(&d, "q-3");
	ok(c && !c->provenance_only, "a stale label is a content change");
	c = find_change(&d, "q-4");
	ok(c && !c->provenance_only, "a judged-irrelevant chunk dropped is a content change");
	is_int(d.nr_provenance_only, 2, "two provenance only");
	set_diff_summary(&d, &sb);
	is_str(sb.buf, "0 added, 0 removed, 4 changed: 2 in content (2 labels, 1 answerable, 1 tags, "
	       "2 other), 2 provenance only (the same question on the same evidence), 0 unchanged",
	       "the summary leads with the content changes");
	strbuf_reset(&sb);
	set_diff_format_text(&d, &sb);
	content = strstr(sb.buf, "changed  q-3");
	moved = strstr(sb.buf, "moved    q-1  t#1, t#2 (labels carried with the same evidence)");
	ok(content && moved && content < moved, "content changes are listed first, moves after");
	strbuf_release(&sb);
	set_diff_release(&d);
	set_release(&a);
	set_release(&b);
}

int main(void)
{
	test_capture_errors();
	test_kinds_of_change();
	test_json();
	test_formatting_is_no_change();
	test_header_changes();
	test_corpus_fingerprint();
	test_remap_moves();
	return test_done();
}
