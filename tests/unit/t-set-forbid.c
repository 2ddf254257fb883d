/*
 * t-set-forbid: set-wide forbidden rules (core/set/set-forbid.c,
 * docs/access.md "Set-wide rules"): how each selector resolves against a
 * corpus (documents, prefixes, tags from "tags" and "metadata"), that a
 * question's own entry wins over a rule, that Leak@k counts every question
 * once a rule exists, what check and set_forbid_ready say about rules that
 * match nothing, contradict a label or lack their corpus, that the loader
 * refuses malformed rules at their line, and that both digests change
 * with a rule while a set without rules keeps them.
 */
#include "test-lib.h"
#include "set/set.h"
#include "set/corpus.h"
#include "score/leak.h"
#include "score/run.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char corpus_text[] =
	"{\"id\": \"pub-1\", \"doc\": \"public/guide.md\", \"text\": \"a\"}\n"
	"{\"id\": \"hr-1\", \"doc\": \"internal/hr.md\", \"tags\": [\"internal\", 7], \"text\": \"b\"}\n"
	"{\"id\": \"pay-1\", \"doc\": \"internal/pay.md\", \"metadata\": {\"tags\": \"payroll\"}, \"text\": \"c\"}\n"
	"{\"id\": \"draft-9\", \"title\": \"Drafts\", \"text\": \"d\"}\n"
	"{\"id\": \"faq.md#0123456789ab\", \"text\": \"e\"}\n";

static const char set_head[] =
	"evalset: 1\n"
	"name: acl\n"
	"corpus: {path: corpus.jsonl}\n"
	"forbidden:\n"
	"  - tag: internal\n"
	"  - {doc-prefix: internal/p}\n"
	"  - id-prefix: draft-\n"
	"  - doc:faq.md\n"
	"questions:\n";

static char *dir;

static int load(struct set *s, const char *yaml)
{
	set_init(s);
	return set_load_buf(s, yaml, strlen(yaml), "t.yaml");
}

static void test_resolve(const struct corpus *c)
{
	struct set s;
	struct strbuf yaml = STRBUF_INIT, buf = STRBUF_INIT;
	const struct question *q;

	strbuf_addf(&yaml, "%s  - id: q-1\n    text: one\n    relevant: [pub-1]\n"
		    "    forbidden: [hr-1]\n", set_head);
	if (load(&s, yaml.buf) < 0) {
		ok(0, "resolve: the set loads");
		goto out;
	}
	q = &s.q[0];
	is_int(s.nr_forbid, 4, "resolve: four rules read");
	is_int(s.forbid[1].line, 6, "resolve: a rule keeps its line");
	is_str(s.forbid[3].entry, "doc:faq.md", "resolve: a plain doc:NAME is a doc rule");
	is_str(set_forbids(&s, q, c, "hr-1", &buf), "hr-1",
	       "resolve: the question's own entry is named before a rule");
	is_str(set_rule_forbids(&s, c, "hr-1", "internal/hr.md"), "tag:internal",
	       "resolve: a tag in the corpus line's list (a non-string item skipped)");
	is_str(set_forbids(&s, q, c, "pay-1", &buf), "doc-prefix:internal/p",
	       "resolve: a document name prefix");
	ok(!set_forbids(&s, q, c, "pub-1", &buf), "resolve: a chunk no rule selects is allowed");
	is_str(set_forbids(&s, q, c, "draft-9", &buf), "id-prefix:draft-",
	       "resolve: a chunk id prefix");
	is_str(set_forbids(&s, q, c, "faq.md#0123456789ab", &buf), "doc:faq.md",
	       "resolve: a document taken from the chunker's id form");
	ok(!set_forbids(&s, q, NULL, "hr-1x", &buf), "resolve: an unknown chunk has no tag");
	ok(!set_rule_forbids(&s, NULL, "hr-1", NULL),
	   "resolve: without the corpus a tag rule matches nothing (hence set_forbid_ready)");
	is_int(set_nr_forbidding(&s), 1, "resolve: every question forbids once a rule exists");
	ok(set_forbid_needs_corpus(&s) == &s.forbid[0], "resolve: the tag rule needs the corpus");
out:
	set_release(&s);
	strbuf_release(&yaml);
	strbuf_release(&buf);
}

static void test_pay_tag(const struct corpus *c)
{
	const struct chunk *ch = corpus_get(c, "pay-1"), *hr = corpus_get(c, "hr-1");

	ok(ch && chunk_has_tag(ch, "payroll"), "corpus: a tag from metadata.tags (a string)");
	ok(hr && hr->nr_tags == 1 && chunk_has_tag(hr, "internal"), "corpus: string tags kept, others skipped");
}

static void test_leaks(const struct corpus *c)
{
	struct set s;
	struct strbuf yaml = STRBUF_INIT;
	struct run run;
	struct leak_report lr;
	char *path;

	strbuf_addf(&yaml, "%s  - id: q-1\n    text: one\n    relevant: [pub-1]\n"
		    "  - id: q-2\n    text: two\n    relevant: [pub-1]\n"
		    "  - id: q-3\n    text: three\n    answerable: false\n", set_head);
	path = test_write_file(dir, "run.jsonl",
			       "{\"qid\": \"q-1\", \"results\": [\"pub-1\", \"x\", \"y\", \"z\", \"w\", \"hr-1\"]}\n"
			       "{\"qid\": \"q-2\", \"results\": [\"pub-1\", \"pay-1\"]}\n"
			       "{\"qid\": \"q-3\", \"results\": [\"draft-9\"]}\n");
	run_init(&run);
	memset(&lr, 0, sizeof(lr));
	if (load(&s, yaml.buf) < 0 || run_load(&run, path) < 0) {
		ok(0, "leaks: the set and the run load");
		goto out;
	}
	leak_find(&s, c, &run, 5, &lr);
	is_int(lr.nr_forbidding, 3, "leaks: every question counts, the unanswerable one too");
	is_int(lr.nr, 2, "leaks: two questions leak at 5 (hr-1 at rank 6 does not)");
	ok(lr.nr == 2 && !strcmp(lr.q[0].id, "q-2") && lr.q[0].hits[0].rank == 2 &&
	   !strcmp(lr.q[0].hits[0].entry, "doc-prefix:internal/p"), "leaks: q-2 by the prefix at rank 2");
	ok(lr.nr == 2 && !strcmp(lr.q[1].id, "q-3") && !strcmp(lr.q[1].hits[0].entry, "id-prefix:draft-"),
	   "leaks: q-3 by the id prefix");
	is_double(leak_value(&lr), 2.0 / 3.0, 1e-12, "leaks: Leak@5 is 2 of 3");
	leak_report_release(&lr);
	leak_find(&s, c, &run, 6, &lr);
	is_int(lr.nr, 3, "leaks: at 6 the tagged chunk leaks too");
out:
	leak_report_release(&lr);
	run_release(&run);
	set_release(&s);
	strbuf_release(&yaml);
	free(path);
}

static bool has_finding(const struct findings *f, enum finding_level level, long line,
			const char *part)
{
	for (size_t i = 0; i < f->nr; i++)
		if (f->items[i].level == level && f->items[i].line == line &&
		    strstr(f->items[i].message, part))
			return true;
	return false;
}

static void test_check(const struct corpus *c)
{
	struct set s;
	struct strbuf yaml = STRBUF_INIT;
	struct findings f = FINDINGS_INIT;

	strbuf_addstr(&yaml, "evalset: 1\nname: acl\nforbidden:\n  - tag: internal\n"
		      "  - tag: never-used\n  - id-prefix: draft-\n  - id-prefix: draft-\n"
		      "questions:\n  - id: q-1\n    text: one\n    relevant: [pub-1, hr-1]\n"
		      "  - id: q-2\n    text: two\n    relevant: [draft-9]\n");
	if (load(&s, yaml.buf) < 0) {
		ok(0, "check: the set loads");
		goto out;
	}
	set_check(&s, c, &f);
	ok(has_finding(&f, FINDING_ERROR, 11, "'hr-1' of question 'q-1' is forbidden by the "
		       "set-wide rule 'tag:internal' (line 4)"), "check: a tagged relevant chunk is an error at its label");
	ok(has_finding(&f, FINDING_ERROR, 14, "'draft-9' of question 'q-2'"),
	   "check: an id-prefixed relevant chunk too");
	ok(has_finding(&f, FINDING_WARNING, 5, "'tag:never-used' matches no chunk of the corpus"),
	   "check: a rule matching nothing is a warning at its line");
	ok(has_finding(&f, FINDING_ERROR, 7, "'id-prefix:draft-' listed twice"),
	   "check: a repeated rule is an error");
	ok(!has_finding(&f, FINDING_WARNING, 4, "matches no chunk"), "check: a matching rule is not warned about");
	findings_release(&f);
	set_check(&s, NULL, &f);
	ok(has_finding(&f, FINDING_WARNING, 4, "not checked"), "check: without a corpus, tag rules are not checked");
	ok(!has_finding(&f, FINDING_ERROR, 11, "forbidden by"), "check: ... nor their contradictions");
	ok(has_finding(&f, FINDING_ERROR, 14, "'draft-9'"), "check: an id rule needs no corpus");
	findings_release(&f);

	test_capture_errors();
	ok(set_forbid_ready(&s, NULL) < 0 && strstr(test_captured(), "t.yaml:4:5: set-wide forbidden rule "
						     "'tag:internal' needs the corpus"),
	   "ready: a tag rule without a corpus is refused, at the rule");
	ok(set_forbid_ready(&s, c) < 0 && strstr(test_captured(), "relevant chunk 'hr-1'"),
	   "ready: a contradiction is refused");
out:
	findings_release(&f);
	set_release(&s);
	strbuf_release(&yaml);
}

static void test_load_errors(void)
{
	static const struct {
		const char *rules, *want;
	} cases[] = {
		{ "  - tags: internal\n", "t.yaml:4:5: unknown selector 'tags'" },
		{ "  - {tag: a, doc: b}\n", "t.yaml:4:5: a set-wide forbidden rule has exactly one selector" },
		{ "  - tag: ''\n", "t.yaml:4:10: set-wide forbidden rule 'tag' is empty" },
		{ "  - tag: [a]\n", "t.yaml:4:10:" },
		{ "  - 'doc:'\n", "t.yaml:4:5: set-wide forbidden rule 'doc' is empty" },
		{ "  - ~\n", "t.yaml:4:5:" },
	};
	struct set s;

	test_capture_errors();
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strbuf y = STRBUF_INIT;

		strbuf_addf(&y, "evalset: 1\nname: x\nforbidden:\n%squestions: []\n", cases[i].rules);
		ok(load(&s, y.buf) < 0 && strstr(test_captured(), cases[i].want),
		   "load: refused with '%s'", cases[i].want);
		set_release(&s);
		strbuf_release(&y);
	}
}

static void test_digest_and_round_trip(void)
{
	static const char base[] = "evalset: 1\nname: x\n%squestions:\n"
				   "  - id: q-1\n    text: one\n    relevant: [a]\n";
	struct set s, t;
	struct strbuf y = STRBUF_INIT, out = STRBUF_INIT;
	char none[72], none_c[72], d1[72], c1[72], d2[72], c2[72], again[72];

	strbuf_addf(&y, base, "");
	load(&s, y.buf);
	set_digest(&s, none);
	set_content_digest(&s, none_c);
	set_release(&s);
	strbuf_reset(&y);
	strbuf_addf(&y, base, "forbidden: [{tag: internal}, 'doc:d.md']\n");
	load(&s, y.buf);
	set_digest(&s, d1);
	set_content_digest(&s, c1);
	ok(strcmp(none, d1) && strcmp(none_c, c1), "digest: a rule changes both digests");
	set_init(&t);
	if (set_to_yaml(&s, &out) < 0 || set_load_buf(&t, out.buf, out.len, "rt.yaml") < 0) {
		ok(0, "round trip: the saved form loads");
	} else {
		set_digest(&t, again);
		is_str(again, d1, "round trip: the digest survives saving");
		ok(strstr(out.buf, "forbidden:\n- {tag: internal}\n- doc:d.md\n") ||
		   strstr(out.buf, "- {tag: internal}\n  - doc:d.md"), "round trip: rules written as read");
		set_release(&t);
	}
	set_release(&s);
	strbuf_reset(&y);
	strbuf_addf(&y, base, "forbidden: [{tag: internal2}, 'doc:d.md']\n");
	load(&s, y.buf);
	set_digest(&s, d2);
	set_content_digest(&s, c2);
	ok(strcmp(d1, d2) && strcmp(c1, c2), "digest: another rule value changes both digests");
	set_release(&s);
	strbuf_reset(&y);
	strbuf_addf(&y, base, "forbidden: ['doc:d.md', {tag: internal}]\n");
	load(&s, y.buf);
	set_digest(&s, d2);
	is_str(d2, d1, "digest: the order of rules is no change");
	set_release(&s);
	strbuf_reset(&y);
	strbuf_addf(&y, base, "forbidden: [{doc: d.md}, {tag: internal}]\n");
	load(&s, y.buf);
	set_digest(&s, d2);
	is_str(d2, d1, "digest: doc:NAME and {doc: NAME} are one rule");
	set_release(&s);
	strbuf_release(&y);
	strbuf_release(&out);
}

int main(void)
{
	struct corpus c = CORPUS_INIT;
	char tmpl[] = "/tmp/t-set-forbid-XXXXXX";
	char *path;

	dir = mkdtemp(tmpl);
	path = test_write_file(dir, "corpus.jsonl", corpus_text);
	if (!dir || corpus_load(&c, path) < 0) {
		ok(0, "the corpus loads");
		return test_done();
	}
	test_pay_tag(&c);
	test_resolve(&c);
	test_leaks(&c);
	test_check(&c);
	test_load_errors();
	test_digest_and_round_trip();
	corpus_release(&c);
	free(path);
	test_remove_tree(dir);
	return test_done();
}
