/*
 * t-remap: carrying labels to another chunking of one small document
 * (chunk/remap.h), the rules a user relies on: a label whose text was edited
 * in place is stale even at the same offsets, chunks merged into one keep
 * the highest grade, evidence at a chunk's very start or end is held whole
 * (not split), a chunk holding exactly half of the evidence is a target,
 * judged-irrelevant chunks are not carried, and a question left without a
 * label becomes unanswerable, tagged.
 */
#include "test-lib.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "chunk/remap.h"
#include "set/corpus.h"
#include "set/set.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The document, 63 characters; its chunks are spans of it (ASCII: bytes
 * are code points). */
static const char doc[] = "Rotate each API key monthly; then restart the proxy server now.";
/* The same document with its first words rewritten in place (more edits
 * than a fuzzy search forgives), offsets unchanged. */
static const char edited[] = "Renew every DB pass monthly; then restart the proxy server now.";

static char *dir;

struct span {
	const char *id;
	long start, end;
};

/* Write the chunks 'spans' of 'text' as a corpus file named 'name' and load
 * it into 'c'. */
static void corpus_of(struct corpus *c, const char *name, const char *text,
		      const struct span *spans, size_t nr)
{
	struct strbuf sb = STRBUF_INIT;
	char *path;

	for (size_t i = 0; i < nr; i++)
		strbuf_addf(&sb, "{\"id\": \"%s\", \"doc\": \"guide.md\", \"start\": %ld, \"end\": %ld, "
			    "\"text\": \"%.*s\"}\n", spans[i].id, spans[i].start, spans[i].end,
			    (int)(spans[i].end - spans[i].start), text + spans[i].start);
	path = test_write_file(dir, name, sb.buf);
	*c = (struct corpus)CORPUS_INIT;
	if (!path || corpus_load(c, path) < 0)
		ok(0, "corpus '%s' loads", name);
	free(path);
	strbuf_release(&sb);
}

/* Remap the set 'yaml' from 'old' to 'new' into 'out' and 'rep'. */
static int remap(const char *yaml, const struct corpus *old, const struct corpus *new,
		 struct set *out, struct remap_report *rep)
{
	struct set s = SET_INIT;
	int rc = -1;

	*out = (struct set)SET_INIT;
	*rep = (struct remap_report)REMAP_REPORT_INIT;
	if (set_load_buf(&s, yaml, strlen(yaml), "set.yaml") == 0)
		rc = remap_set(&s, old, new, "old.jsonl", out, rep);
	else
		ok(0, "test data: the set loads");
	set_release(&s);
	return rc;
}

/* Return the new chunks of label 'i' joined by spaces (caller frees). */
static char *targets(const struct remap_report *rep, size_t i)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t k = 0; i < rep->nr && k < rep->labels[i].nr_chunks; k++)
		strbuf_addf(&sb, "%s%s", k ? " " : "", rep->labels[i].chunks[k]);
	return strbuf_detach(&sb, NULL);
}

static void test_edited_in_place(void)
{
	static const struct span old_spans[] = { { "o1", 0, 20 }, { "o2", 20, 63 } };
	const char *yaml =
		"questions:\n"
		"- id: q-1\n"
		"  text: how often are keys rotated?\n"
		"  relevant: [o1]\n"
		"  evidence: [{chunk: o1, doc: guide.md, start: 0, end: 19, quote: Rotate each API key}]\n"
		"- id: q-2\n"
		"  text: what is rotated?\n"
		"  relevant: [o1]\n";
	struct corpus old, same, changed;
	struct set out;
	struct remap_report rep;

	corpus_of(&old, "old.jsonl", doc, old_spans, 2);
	corpus_of(&same, "same.jsonl", doc, old_spans, 2);
	corpus_of(&changed, "edited.jsonl", edited, old_spans, 2);

	remap(yaml, &old, &same, &out, &rep);
	ok(rep.nr == 2 && rep.labels[0].outcome == REMAP_ONE && rep.labels[1].outcome == REMAP_ONE,
	   "an unchanged document: both labels map 1:1");
	set_release(&out);
	remap_report_release(&rep);

	remap(yaml, &old, &changed, &out, &rep);
	ok(rep.nr == 2 && rep.labels[0].outcome == REMAP_STALE,
	   "a quote edited in place, at the same offsets, is stale (got %s)",
	   rep.nr ? remap_outcome_name(rep.labels[0].outcome) : "nothing");
	ok(rep.nr == 2 && rep.labels[1].outcome == REMAP_STALE,
	   "so is a label without evidence whose chunk text was edited (got %s)",
	   rep.nr > 1 ? remap_outcome_name(rep.labels[1].outcome) : "nothing");
	ok(out.nr == 2 && !out.q[0].answerable && question_has_tag(&out.q[0], "stale") &&
	   !out.q[0].nr_relevant, "its question is left unanswerable, tagged stale");
	is_int(rep.emptied, 2, "two questions emptied");
	set_release(&out);
	remap_report_release(&rep);
	corpus_release(&old);
	corpus_release(&same);
	corpus_release(&changed);
}

static void test_merged(void)
{
	static const struct span old_spans[] = { { "o1", 0, 20 }, { "o2", 20, 40 }, { "o3", 40, 63 } };
	static const struct span new_spans[] = { { "m1", 0, 40 }, { "m2", 40, 63 } };
	const char *yaml =
		"questions:\n"
		"- id: q-1\n"
		"  text: keys?\n"
		"  relevant: {o1: 3, o2: 1}\n"
		"  irrelevant: [o3]\n"
		"- id: q-2\n"
		"  text: keys again?\n"
		"  relevant: {o2: 1, o1: 3}\n";
	struct corpus old, new;
	struct set out;
	struct remap_report rep;

	corpus_of(&old, "old.jsonl", doc, old_spans, 3);
	corpus_of(&new, "merged.jsonl", doc, new_spans, 2);
	remap(yaml, &old, &new, &out, &rep);
	ok(out.nr == 2 && question_grade(&out.q[0], "m1") == 3 && question_grade(&out.q[1], "m1") == 3,
	   "two chunks merged into one: it takes the highest grade, whatever the order (%d, %d)",
	   out.nr ? question_grade(&out.q[0], "m1") : -9, out.nr > 1 ? question_grade(&out.q[1], "m1") : -9);
	ok(out.nr == 2 && out.q[0].nr_relevant == 1 && out.q[1].nr_relevant == 1,
	   "and is one label, not two");
	ok(out.nr && !out.q[0].nr_irrelevant && rep.dropped_irrelevant == 1,
	   "a judged-irrelevant chunk is not carried (the new chunk holds other text)");
	set_release(&out);
	remap_report_release(&rep);
	corpus_release(&old);
	corpus_release(&new);
}

static void test_boundaries(void)
{
	static const struct span old_spans[] = { { "o1", 0, 40 }, { "o2", 40, 63 } };
	static const struct span even[] = { { "n1", 0, 20 }, { "n2", 20, 40 }, { "n3", 40, 63 } };
	/* A holds 20..25, exactly half of the evidence 20..30; B (2 characters)
	 * is all evidence; C holds the rest, 3 of its 36 */
	static const struct span uneven[] = { { "A", 0, 25 }, { "B", 25, 27 }, { "C", 27, 63 } };
	const char *yaml =
		"questions:\n"
		"- id: q-1\n"
		"  text: when?\n"
		"  relevant: [o1]\n"
		"  evidence: [{chunk: o1, doc: guide.md, start: 20, end: 30, quote: 'monthly; t'}]\n"
		"- id: q-2\n"
		"  text: what?\n"
		"  relevant: [o1]\n"
		"  evidence: [{chunk: o1, doc: guide.md, start: 10, end: 20, quote: API key}]\n";
	struct corpus old, n_even, n_uneven;
	struct set out;
	struct remap_report rep;
	char *t;

	corpus_of(&old, "old.jsonl", doc, old_spans, 2);
	corpus_of(&n_even, "even.jsonl", doc, even, 3);
	corpus_of(&n_uneven, "uneven.jsonl", doc, uneven, 3);

	remap(yaml, &old, &n_even, &out, &rep);
	t = targets(&rep, 0);
	ok(rep.nr == 2 && rep.labels[0].outcome == REMAP_ONE && !rep.labels[0].split && !strcmp(t, "n2"),
	   "evidence starting exactly at a chunk's start is held whole by it: 1:1, not split (%s)", t);
	free(t);
	t = targets(&rep, 1);
	ok(rep.nr == 2 && rep.labels[1].outcome == REMAP_ONE && !rep.labels[1].split && !strcmp(t, "n1"),
	   "evidence ending exactly at a chunk's end too (%s)", t);
	free(t);
	set_release(&out);
	remap_report_release(&rep);

	remap(yaml, &old, &n_uneven, &out, &rep);
	t = targets(&rep, 0);
	ok(rep.nr == 2 && rep.labels[0].outcome == REMAP_MANY && rep.labels[0].split && !strcmp(t, "A B"),
	   "evidence cut by chunks: the chunk holding exactly half of it and the chunk made of it "
	   "are targets, the sliver of a large chunk is not (%s)", t);
	free(t);
	set_release(&out);
	remap_report_release(&rep);
	corpus_release(&old);
	corpus_release(&n_even);
	corpus_release(&n_uneven);
}

/* Evidence over a stretch no chunk covers, each side holding a sliver (less
 * than half of it and of its chunk): the larger piece carries it. */
static void test_slivers(void)
{
	static const char gap[] = "Keys rotate monthly.     Servers restart nightly.";
	static const struct span old_spans[] = { { "o1", 0, 49 } };
	static const struct span new_spans[] = { { "A", 0, 20 }, { "B", 25, 49 } };
	const char *yaml =
		"questions:\n"
		"- id: q-1\n"
		"  text: when?\n"
		"  relevant: [o1]\n"
		"  evidence: [{chunk: o1, doc: guide.md, start: 17, end: 29, quote: 'ly.     Serv'}]\n";
	struct corpus old, new;
	struct set out;
	struct remap_report rep;
	char *t;

	corpus_of(&old, "old.jsonl", gap, old_spans, 1);
	corpus_of(&new, "gap.jsonl", gap, new_spans, 2);
	remap(yaml, &old, &new, &out, &rep);
	t = targets(&rep, 0);
	ok(rep.nr == 1 && rep.labels[0].outcome == REMAP_ONE && rep.labels[0].split && !strcmp(t, "B"),
	   "evidence cut into slivers of 3 and 4 characters: the chunk holding the larger (%s)", t);
	free(t);
	set_release(&out);
	remap_report_release(&rep);
	corpus_release(&old);
	corpus_release(&new);
}

/* A quote the edited document holds twice: the place nearest the old one. */
static void test_nearest(void)
{
	static const char moved[] = "restart nothing. Rotate each API key monthly; then restart the proxy server now.";
	static const struct span old_spans[] = { { "o1", 0, 63 } };
	static const struct span new_spans[] = { { "N1", 0, 17 }, { "N2", 17, 80 } };
	const char *yaml =
		"questions:\n"
		"- id: q-1\n"
		"  text: what then?\n"
		"  relevant: [o1]\n"
		"  evidence: [{chunk: o1, doc: guide.md, start: 34, end: 41, quote: restart}]\n";
	struct corpus old, new;
	struct set out;
	struct remap_report rep;
	char *t;

	corpus_of(&old, "old.jsonl", doc, old_spans, 1);
	corpus_of(&new, "moved.jsonl", moved, new_spans, 2);
	remap(yaml, &old, &new, &out, &rep);
	t = targets(&rep, 0);
	ok(rep.nr == 1 && rep.labels[0].outcome == REMAP_ONE && rep.labels[0].moved && !strcmp(t, "N2"),
	   "a quote found twice after an edit: the place nearest its old one (%s)", t);
	free(t);
	set_release(&out);
	remap_report_release(&rep);
	corpus_release(&old);
	corpus_release(&new);
}

int main(void)
{
	char tmpl[] = "/tmp/t-remap-XXXXXX";

	dir = mkdtemp(tmpl);
	if (!dir) {
		ok(0, "a scratch folder");
		return test_done();
	}
	test_edited_in_place();
	test_merged();
	test_boundaries();
	test_slivers();
	test_nearest();
	test_remove_tree(dir);
	return test_done();
}
