/*
 * t-set: the set model: YAML round trips, evidence, the digest's stability
 * and sensitivity, every load refusal with its line:column, languages, and
 * the rules of set_check (t-set-versions: ids, references and frozen
 * versions).
 */
#include "test-lib.h"
#include "t-set-fixture.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "set/set.h"
#include "set/corpus.h"
#include "base/strbuf.h"
#include "text/text.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Load 'yaml' and write the digest 'fn' computes into 'out' (or why loading failed). */
static void digest_with(void (*fn)(const struct set *, char[72]), const char *yaml, char out[72])
{
	struct set s = SET_INIT;

	if (load_str(&s, yaml) < 0) {
		snprintf(out, 72, "load failed: %s", test_captured());
		return;
	}
	fn(&s, out);
	set_release(&s);
}

static void digest_of(const char *yaml, char out[72])
{
	digest_with(set_digest, yaml, out);
}

static void content_digest_of(const char *yaml, char out[72])
{
	digest_with(set_content_digest, yaml, out);
}

static void test_round_trip(void)
{
	struct set s = SET_INIT, t = SET_INIT;
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, ca = STRBUF_INIT, cb = STRBUF_INIT;
	const cJSON *p;

	ok(load_str(&s, rich) == 0, "a rich set loads");
	is_int(s.nr, 3, "three questions");
	is_str(s.q[0].id, "q-0001", "question order is kept (first)");
	is_str(s.q[2].id, "q-0003", "question order is kept (last)");
	is_int(s.q[0].line, 9, "a question knows its line");
	is_int(s.q[0].relevant[0].grade, 2, "a map gives grades");
	is_int(s.q[0].relevant[0].line, 13, "a label knows its line");
	ok(!s.q[0].relevant_as_list && s.q[1].relevant_as_list, "the relevant form is remembered");
	ok(!s.q[2].answerable, "answerable: false is read");
	is_int(s.corpus.chunks, 646, "corpus chunks read");
	p = cJSON_GetObjectItemCaseSensitive(s.q[0].provenance, "seed");
	ok(cJSON_IsNumber(p) && p->valuedouble == 7, "a plain 7 in provenance is a number");
	p = cJSON_GetObjectItemCaseSensitive(s.q[0].provenance, "quoted");
	ok(cJSON_IsString(p) && !strcmp(p->valuestring, "7"), "a quoted \"7\" is a string");
	p = cJSON_GetObjectItemCaseSensitive(s.q[0].provenance, "yes_word");
	ok(cJSON_IsString(p), "a quoted 'true' is a string");
	p = cJSON_GetObjectItemCaseSensitive(s.q[0].provenance, "nothing");
	ok(cJSON_IsNull(p), "null is null");
	is_str(s.q[1].text, "Two lines\nsecond: with colon # and hash", "escapes are decoded");

	ok(set_to_yaml(&s, &a) == 0, "the set serialises");
	ok(set_load_buf(&t, a.buf, a.len, "saved.yaml") == 0, "the saved form loads again");
	set_canonical(&s, &ca);
	set_canonical(&t, &cb);
	is_str(cb.buf, ca.buf, "the round trip keeps every field of every question");
	ok(t.q[1].relevant_as_list && !t.q[0].relevant_as_list, "the relevant form survives");
	is_str(t.description, "questions about the docs", "the header survives");
	is_str(t.corpus.fingerprint, "sha256:00ff", "the corpus survives");
	p = cJSON_GetObjectItemCaseSensitive(t.q[0].provenance, "quoted");
	ok(cJSON_IsString(p), "a string that looks like a number stays a string");
	p = cJSON_GetObjectItemCaseSensitive(t.q[0].provenance, "yes_word");
	ok(cJSON_IsString(p), "a string that looks like a bool stays a string");
	p = cJSON_GetObjectItemCaseSensitive(t.q[0].provenance, "overlap");
	ok(cJSON_IsNumber(p) && p->valuedouble == 0.31, "a float stays the same float");
	ok(set_to_yaml(&t, &b) == 0 && !strcmp(a.buf, b.buf), "saving again gives the same bytes");
	set_release(&t);
	set_release(&s);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&ca);
	strbuf_release(&cb);
}

static void test_tricky_strings(void)
{
	static const char *const texts[] = {
		"  leading and trailing spaces  ", "ends with a colon:", "key: value", "# not a comment",
		"- not a list", "[not, a, list]", "{not: a map}", "'single' and \"double\" quotes",
		"line one\nline two\n", "trailing newlines\n\n", "tab\there", "null", "~", "true", "FALSE",
		"123", "-4.5e3", "0x1F", ".inf", "emoji \xf0\x9f\x94\x91 and \xc3\xa9t\xc3\xa9",
		"back\\slash", "percent %s %d", "*star", "&amp", "!bang", "|pipe", ">folded", "@at", "`tick`",
		("a very long line that goes on and on well past eighty columns of text so the emitter "
		 "might be tempted to fold it but must not change a single character of it"),
		"\x7f delete", "\r carriage", "",
	};
	int bad = 0;

	for (size_t i = 0; i < ARRAY_SIZE(texts); i++) {
		struct set s = SET_INIT, t = SET_INIT;
		struct strbuf sb = STRBUF_INIT;
		struct question *q = set_append(&s);
		cJSON *p;

		q->id = xstrdup(texts[i]);
		q->text = xstrdup(texts[i]);
		q->note = xstrdup(texts[i]);
		q->provenance = cJSON_CreateObject();
		cJSON_AddStringToObject(q->provenance, texts[i], texts[i]);
		question_set_label(q, *texts[i] ? texts[i] : "c", 1);
		question_set_label(q, "tag-ish", 0);
		ALLOC_GROW(q->tags, 1, q->alloc_tags);
		q->tags[q->nr_tags++] = xstrdup(texts[i]);
		if (set_to_yaml(&s, &sb) < 0 || set_load_buf(&t, sb.buf, sb.len, "rt.yaml") < 0 ||
		    t.nr != 1 || strcmp(t.q[0].text, texts[i]) || strcmp(t.q[0].id, texts[i]) ||
		    strcmp(t.q[0].note, texts[i]) || strcmp(t.q[0].tags[0], texts[i]) ||
		    !(p = cJSON_GetObjectItemCaseSensitive(t.q[0].provenance, texts[i])) ||
		    !cJSON_IsString(p) || strcmp(p->valuestring, texts[i]) ||
		    strcmp(t.q[0].relevant[0].chunk, *texts[i] ? texts[i] : "c")) {
			bad++;
			test_diag("string %zu does not survive: [%s] -> %s", i, texts[i], sb.buf);
		}
		strbuf_release(&sb);
		set_release(&s);
		set_release(&t);
	}
	ok(bad == 0, "%zu tricky strings survive a round trip in every field", ARRAY_SIZE(texts));
}

static void test_digest(void)
{
	char base[72], d[72], cbase[72], cd[72];
	const char *same_flow =
		"# a comment\n"
		"corpus: {chunks: 646, fingerprint: 'sha256:00ff', path: corpus/chunks.jsonl}\n"
		"version: v9\n"
		"digest: sha256:1234\n"
		"tagged_at: 2030-01-01T00:00:00Z\n"
		"evalset: 1\n"
		"description: questions about the docs\n"
		"name: demo\n"
		"questions: [\n"
		"  {id: q-0003, origin: hand, answerable: false, text: \"Où est la clé ? ünïcödé\"},\n"
		"  {id: q-0002, relevant: {c-2: 1, c-1: 1}, text: \"Two lines\\nsecond: with colon # and hash\",\n"
		"   origin: mined, answer: '- starts with a dash'},\n"
		"  {note: 'crowd wording, kept on purpose', tags: [vocabulary-gap, hard],\n"
		"   provenance: {nested: {b: {c: d}, a: [1, 2.5, x]}, yes_word: 'true', nothing: ~,\n"
		"      flag: true, quoted: '7', overlap: 0.310, seed: 7, chunk: c-0012},\n"
		"   irrelevant: [c-0007], relevant: {c-0040: 1, c-0012: 2}, origin: synthetic,\n"
		"   text: How do I rotate an API key?, id: q-0001}\n"
		"]\n";
	struct {
		const char *from, *to, *what;
	} changes[] = {
		{ "rotate an API key?", "rotate an API token?", "the text" },
		{ "c-0012: 2", "c-0012: 3", "a grade" },
		{ "c-0040: 1\n", "c-0040: 1\n      c-0041: 1\n", "a new relevant label" },
		{ "irrelevant: [c-0007]", "irrelevant: [c-0008]", "an irrelevant label" },
		{ "answerable: false", "answerable: false\n    relevant: [c-9]", "a label on another question" },
		{ "tags: [hard, vocabulary-gap]", "tags: [hard]", "a tag" },
		{ "seed: 7", "seed: 8", "a provenance value" },
		{ "quoted: \"7\"", "quoted: 7", "a provenance type (string to number)" },
		{ "origin: mined", "origin: hand", "the origin" },
		{ "    answerable: false\n", "", "answerable" },
		{ "kept on purpose", "kept", "the note" },
		{ "id: q-0002", "id: q-0020", "an id" },
	};

	/* header fields: part of the digest, never of the content digest */
	static const struct {
		const char *from, *to, *what;
	} header[] = {
		{ "name: demo", "name: renamed", "the name" },
		{ "description: questions about the docs", "description: other", "the description" },
		{ "name: demo\n", "name: demo\nnote: a note\n", "a note" },
		{ "name: demo\n", "name: demo\nparent: v1\n", "a parent" },
		{ "path: corpus/chunks.jsonl", "path: corpus/other.jsonl", "the corpus path" },
		{ "fingerprint: sha256:00ff", "fingerprint: sha256:00fe", "the corpus fingerprint" },
		{ "chunks: 646", "chunks: 647", "the corpus chunk count" },
		{ "corpus:\n  path: corpus/chunks.jsonl\n  fingerprint: sha256:00ff\n  chunks: 646\n", "",
		  "the whole corpus block" },
	};
	/* the fields a frozen file holds about itself: in neither digest */
	static const struct {
		const char *from, *to, *what;
	} excluded[] = {
		{ "name: demo\n", "name: demo\nversion: v3\n", "a version" },
		{ "name: demo\n", "name: demo\ndigest: sha256:abcd\n", "a recorded digest" },
		{ "name: demo\n", "name: demo\ntagged_at: 2026-01-01T00:00:00Z\n", "tagged_at" },
	};

	digest_of(rich, base);
	content_digest_of(rich, cbase);
	ok(starts_with(base, "sha256:") && strlen(base) == 71, "the digest is sha256:<64 hex>");
	ok(starts_with(cbase, "sha256:") && strlen(cbase) == 71 && strcmp(base, cbase),
	   "the content digest is sha256:<64 hex> too, and another value");
	digest_of(same_flow, d);
	is_str(d, base, "flow style, key and question order, comments, numbers written 0.310, "
		   "header key order and version/digest/tagged_at do not change the digest");
	content_digest_of(same_flow, cd);
	is_str(cd, cbase, "nor the content digest");
	for (size_t i = 0; i < ARRAY_SIZE(changes); i++) {
		char *text = replaced(rich, changes[i].from, changes[i].to);
		if (!text) {
			ok(0, "test data: '%s' not found", changes[i].from);
			continue;
		}
		digest_of(text, d);
		content_digest_of(text, cd);
		ok(strcmp(d, base) != 0, "changing %s changes the digest", changes[i].what);
		ok(strcmp(cd, cbase) != 0, "changing %s changes the content digest", changes[i].what);
		free(text);
	}
	for (size_t i = 0; i < ARRAY_SIZE(header); i++) {
		char *text = replaced(rich, header[i].from, header[i].to);
		if (!text) {
			ok(0, "test data: '%s' not found", header[i].from);
			continue;
		}
		digest_of(text, d);
		content_digest_of(text, cd);
		ok(strcmp(d, base) != 0, "changing %s changes the digest", header[i].what);
		ok(!strcmp(cd, cbase), "changing %s leaves the content digest", header[i].what);
		free(text);
	}
	for (size_t i = 0; i < ARRAY_SIZE(excluded); i++) {
		char *text = replaced(rich, excluded[i].from, excluded[i].to);
		if (!text) {
			ok(0, "test data: '%s' not found", excluded[i].from);
			continue;
		}
		digest_of(text, d);
		ok(!strcmp(d, base), "adding %s does not change the digest", excluded[i].what);
		free(text);
	}
	{
		/* tags and irrelevant chunks are sets: order and repeats are not content */
		static const struct {
			const char *from, *to, *what;
		} same[] = {
			{ "tags: [hard, vocabulary-gap]", "tags: [hard, vocabulary-gap, hard]", "a repeated tag" },
			{ "tags: [hard, vocabulary-gap]", "tags: [vocabulary-gap, hard]", "the order of tags" },
			{ "irrelevant: [c-0007]", "irrelevant: [c-0007, c-0007]", "a repeated irrelevant chunk" },
		};

		for (size_t i = 0; i < ARRAY_SIZE(same); i++) {
			char *text = replaced(rich, same[i].from, same[i].to);

			digest_of(text ? text : "", d);
			content_digest_of(text ? text : "", cd);
			ok(text && !strcmp(d, base) && !strcmp(cd, cbase), "%s changes neither digest",
			   same[i].what);
			free(text);
		}
	}
	{
		const char *list = "questions:\n- {id: a, text: t, relevant: [c-1, c-2]}\n";
		const char *map = "questions:\n- id: a\n  text: t\n  relevant:\n    c-2: 1\n    c-1: 1\n";
		char d1[72], d2[72];
		digest_of(list, d1);
		digest_of(map, d2);
		is_str(d1, d2, "a relevant list is the same content as a map of grade 1");
	}
	{
		const char *ab = "questions:\n- {id: a, text: one, relevant: [c]}\n- {id: a, text: two, relevant: [c]}\n";
		const char *ba = "questions:\n- {id: a, text: two, relevant: [c]}\n- {id: a, text: one, relevant: [c]}\n";
		char d1[72], d2[72];
		digest_of(ab, d1);
		digest_of(ba, d2);
		is_str(d1, d2, "questions sharing an id still hash the same in any order");
	}
	{
		const char *indent2 = "questions:\n- id: a\n  text: t\n  relevant: [c-1]\n";
		const char *indent4 = "questions:\n    -   id: a\n        text:    t\n        relevant:\n"
				      "            - c-1\n";
		char d1[72], d2[72];
		digest_of(indent2, d1);
		digest_of(indent4, d2);
		is_str(d1, d2, "re-indenting does not change the digest");
	}
}

struct bad_case {
	const char *yaml;
	const char *want;   /* expected in the error, with the position */
	const char *what;
};

/* Languages on the set, the corpus and a question: kept through a save, in
 * the digest when present, and a set without any keeps its digest. */
static void test_languages(void)
{
	static const char *const yaml =
		"evalset: 1\nname: l\nlanguage: de\n"
		"corpus:\n  path: c.jsonl\n  language: de\n"
		"questions:\n- id: q-1\n  text: Wer war Goethe?\n  relevant: [c-1]\n"
		"- id: q-2\n  text: Who was Goethe?\n  language: en\n  relevant: [c-1]\n";
	struct set s = SET_INIT, t = SET_INIT;
	struct strbuf sb = STRBUF_INIT;
	char d1[72], d2[72];

	ok(load_str(&s, yaml) == 0, "a set with languages loads");
	ok(s.language && !strcmp(s.language, "de") && s.corpus.language &&
	   !strcmp(s.corpus.language, "de") && !s.q[0].language && s.q[1].language &&
	   !strcmp(s.q[1].language, "en"), "the set's, the corpus's and a question's language are read");
	set_to_yaml(&s, &sb);
	ok(set_load_buf(&t, sb.buf, sb.len, "rt.yaml") == 0 && t.language && !strcmp(t.language, "de") &&
	   t.corpus.language && t.q[1].language && !strcmp(t.q[1].language, "en"),
	   "and written back");
	set_digest(&s, d1);
	free(s.q[1].language);
	s.q[1].language = NULL;
	set_digest(&s, d2);
	ok(strcmp(d1, d2) != 0, "a question's language is part of the digest");
	free(s.language);
	s.language = NULL;
	set_digest(&s, d1);
	ok(strcmp(d1, d2) != 0, "so is the set's");
	set_release(&s);
	set_release(&t);
	strbuf_release(&sb);
}

static void test_load_errors(void)
{
	static const struct bad_case cases[] = {
		{ "questions:\n  - id: [q-1\n", "t.yaml:3:1: YAML syntax error", "a syntax error" },
		{ "questions:\n  - id: q-1\n    text: {a: b}\n",
		  "t.yaml:3:11: 'text' must be a string, not a mapping", "text as a map" },
		{ "evalset: 1\nquestoins: []\n",
		  "t.yaml:2:1: unknown key 'questoins' in a set file; did you mean 'questions'?",
		  "an unknown top-level key, with a suggestion" },
		{ "questions:\n- id: q-1\n  txt: hi\n",
		  "t.yaml:3:3: unknown key 'txt' in a question; did you mean 'text'?",
		  "an unknown question key" },
		{ "questions:\n- id: q-1\n  text: a\n  text: b\n",
		  "t.yaml:4:3: duplicate key 'text' (first at line 3)", "a duplicate key" },
		{ "questions:\n- id: q-1\n  text: a\n  relevant: {c-1: high}\n",
		  "t.yaml:4:19: the grade of 'c-1' must be an integer, not 'high'", "grade \"high\"" },
		{ "questions:\n- id: q-1\n  text: a\n  relevant: {c-1: '2'}\n",
		  "t.yaml:4:19: the grade of 'c-1' must be an integer, not '2'", "a quoted grade" },
		{ "questions:\n- id: q-1\n  text: a\n  answerable: maybe\n",
		  "t.yaml:4:15: 'answerable' must be true or false, not 'maybe'", "answerable: maybe" },
		{ "questions:\n- id: q-1\n  origin: robot\n",
		  "t.yaml:3:11: unknown origin 'robot'", "an unknown origin" },
		{ "questions:\n- id: q-1\n  text: caf\xe9 ok\n",
		  "t.yaml:3:12: invalid UTF-8 (byte 0xe9)", "a byte that is not UTF-8" },
		{ "questions:\n- id: q-1\n  text: \xc3\xa9t\xc3\xa9\xff\n",
		  "t.yaml:3:12: invalid UTF-8 (byte 0xff)", "the column counts characters" },
		{ "questions:\n- id: q-1\n  text: a \001 b\n",
		  "t.yaml:3:11: control characters are not allowed (byte 0x01)", "a raw control character" },
		{ "", "t.yaml: empty set file", "an empty file" },
		{ "# only a comment\n\n", "t.yaml: empty set file", "a file with only comments" },
		{ "a: &x [1]\nb: *x\n", "t.yaml:1:4: YAML anchor '&x' not supported", "an anchor" },
		{ "evalset: 1\nquestions: [*x]\n", "t.yaml:2:13: YAML alias '*x' not supported",
		  "an alias (even an undefined one)" },
		{ "questions:\n- id: !!int 5\n", "t.yaml:2:7: YAML tag 'tag:yaml.org,2002:int' not supported",
		  "an explicit tag" },
		{ "evalset: 2\n", "t.yaml:1:10: unsupported set schema 2", "a future schema" },
		{ "evalset: 1\n---\nevalset: 1\n", "t.yaml:2:1: more than one YAML document",
		  "two documents" },
		{ "- a\n- b\n", "t.yaml:1:1: a set file must be a mapping, not a list", "a list at top level" },
		{ "questions:\n- id: q-1\n  relevant: [c-1, c-1]\n",
		  "t.yaml:3:19: chunk 'c-1' listed twice in 'relevant'", "a chunk listed twice" },
		{ "questions:\n- id: q-1\n  tags: hard\n", "t.yaml:3:9: 'tags' must be a list, not 'hard'",
		  "tags as a scalar" },
		{ "questions: {}\n", "t.yaml:1:12: 'questions' must be a list, not a mapping",
		  "questions as a map" },
		{ "language: english\n", "t.yaml:1:11: invalid language tag 'english'",
		  "a language name instead of a tag" },
		{ "questions:\n- id: q-1\n  language: de_DE\n", "t.yaml:3:13: invalid language tag 'de_DE'",
		  "a locale with an underscore" },
	};
	struct set s = SET_INIT;

	test_capture_errors();
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *got;
		int rc = set_load_buf(&s, cases[i].yaml, strlen(cases[i].yaml), "t.yaml");
		got = test_captured();
		ok(rc < 0 && strstr(got, cases[i].want) != NULL, "refused: %s", cases[i].what);
		if (rc == 0 || !strstr(got, cases[i].want))
			test_diag("want '%s', got '%s'", cases[i].want, got);
		ok(s.nr == 0 && s.file == NULL, "nothing kept after refusing %s", cases[i].what);
		set_release(&s);
	}
	{
		struct strbuf sb = STRBUF_INIT;
		int rc;
		strbuf_addstr(&sb, "evalset: 1\nname: ");
		for (size_t i = 0; i < SET_MAX_LINE_BYTES + 10; i++)
			strbuf_addch(&sb, 'x');
		strbuf_addch(&sb, '\n');
		rc = set_load_buf(&s, sb.buf, sb.len, "t.yaml");
		ok(rc < 0 && strstr(test_captured(), "t.yaml:2:1: line longer than the limit"),
		   "a line over 1 MiB is refused at its line");
		strbuf_reset(&sb);
		strbuf_addstr(&sb, "evalset: 1\nname: |\n");
		for (size_t i = 0; i < 2000; i++)
			strbuf_addstr(&sb, "  0123456789012345678901234567890123456789\n");
		rc = set_load_buf(&s, sb.buf, sb.len, "t.yaml");
		ok(rc < 0 && strstr(test_captured(), "t.yaml:2:7: scalar longer than the limit"),
		   "a scalar over 64 KiB is refused");
		strbuf_reset(&sb);
		strbuf_addstr(&sb, "questions:\n- id: q-1\n  provenance: ");
		for (int i = 0; i < SET_MAX_DEPTH + 5; i++)
			strbuf_addch(&sb, '[');
		for (int i = 0; i < SET_MAX_DEPTH + 5; i++)
			strbuf_addch(&sb, ']');
		strbuf_addch(&sb, '\n');
		rc = set_load_buf(&s, sb.buf, sb.len, "t.yaml");
		ok(rc < 0 && strstr(test_captured(), "nesting deeper than the limit"),
		   "nesting deeper than SET_MAX_DEPTH is refused");
		strbuf_reset(&sb);
		strbuf_addstr(&sb, "name: a\0b\n");
		rc = set_load_buf(&s, "name: a\0b\n", 10, "t.yaml");
		ok(rc < 0 && strstr(test_captured(), "t.yaml:1:8: NUL byte"), "a NUL byte is refused");
		strbuf_release(&sb);
	}
	set_error_routine(NULL);
	set_warning_routine(NULL);
}

static bool has_finding(const struct findings *f, enum finding_level level, long line,
			const char *text)
{
	for (size_t i = 0; i < f->nr; i++)
		if (f->items[i].level == level && f->items[i].line == line &&
		    strstr(f->items[i].message, text))
			return true;
	return false;
}

static void test_check(void)
{
	const char *yaml =
		"questions:\n"
		"- id: q-1\n"                                   /* 2 */
		"  text: How do I rotate an API key?\n"
		"  relevant: {c-1: 0, c-2: 12, c-3: 2}\n"       /* 4 */
		"  irrelevant: [c-3]\n"
		"- id: q-1\n"                                   /* 6 */
		"  text: '  '\n"
		"  relevant: [c-1]\n"
		"- id: q-3\n"                                   /* 9 */
		"  text: no labels\n"
		"- id: q-4\n"                                   /* 11 */
		"  text: cannot be answered\n"
		"  answerable: false\n"
		"  relevant: [c-9]\n"                           /* 14 */
		"- text: without an id\n"                       /* 15 */
		"  relevant: [c-1]\n"
		"- id: q-6\n"                                   /* 17 */
		"  text: how do I rotate an API-key\n"
		"  relevant: [c-1]\n";
	struct set s = SET_INIT;
	struct findings f = FINDINGS_INIT, e = FINDINGS_INIT;

	ok(load_str(&s, yaml) == 0, "rule violations that can be represented still load");
	set_check(&s, NULL, &f);
	ok(has_finding(&f, FINDING_ERROR, 6, "duplicate question id 'q-1' (first at line 2)"),
	   "a duplicate id is an error at the second one");
	ok(has_finding(&f, FINDING_ERROR, 4, "grade 0 of chunk 'c-1'"), "grade 0 is an error");
	ok(has_finding(&f, FINDING_ERROR, 4, "grade 12 of chunk 'c-2'"), "grade 12 is an error");
	ok(has_finding(&f, FINDING_ERROR, 4, "chunk 'c-3' is both relevant and irrelevant"),
	   "a chunk both relevant and irrelevant is an error");
	ok(has_finding(&f, FINDING_ERROR, 6, "has no text"), "blank text is an error");
	ok(has_finding(&f, FINDING_ERROR, 9, "answerable question 'q-3' has no relevant chunk"),
	   "an answerable question without labels is an error");
	ok(has_finding(&f, FINDING_ERROR, 14, "unanswerable question 'q-4' has 1 relevant chunk"),
	   "an unanswerable question with labels is an error at the label");
	ok(has_finding(&f, FINDING_ERROR, 15, "question without an id"), "a missing id is an error");
	ok(has_finding(&f, FINDING_WARNING, 17, "near-duplicate of 'q-1'"),
	   "a near-duplicate text is a warning");
	ok(!has_finding(&f, FINDING_WARNING, 0, "the set has 6"),
	   "set_check leaves the set's size to check and tag (the gate's computation)");
	is_int(f.nr_errors, 8, "eight errors in all");
	set_check_errors(&s, NULL, &e);
	ok(e.nr_errors == f.nr_errors && e.nr_warnings == 0, "set_check_errors gives only the errors");
	findings_release(&f);
	findings_release(&e);
	set_release(&s);

	/* tags are shown bare and filtered on: what a reader sees must be the tag */
	ok(load_str(&s, "questions:\n"
			"- {id: a, text: x, relevant: [c], tags: [\"\\u202Eevil\", \"vip\\u200B\", \"a\\tb\", \u96e3\u3057\u3044, caf\u00e9]}\n") == 0,
	   "tags with hidden characters load");
	set_check(&s, NULL, &f);
	ok(has_finding(&f, FINDING_ERROR, 2, "tag '<U+202E>evil' of question 'a' holds a character that reorders text"),
	   "a right-to-left override in a tag is an error, shown visibly");
	ok(has_finding(&f, FINDING_ERROR, 2, "tag 'vip<U+200B>' of question 'a' holds a character that reorders text"),
	   "a zero-width space in a tag is an error");
	ok(has_finding(&f, FINDING_ERROR, 2, "of question 'a' holds a control character"), "a tab in a tag is an error");
	is_int(f.nr_errors, 3, "tags in other scripts and with accents are fine");
	findings_release(&f);
	set_release(&s);

	ok(load_str(&s, "questions:\n- {id: a, text: x, relevant: [c]}\n") == 0, "a clean set loads");
	set_check(&s, NULL, &f);
	is_int(f.nr_errors, 0, "a clean set has no errors");
	ok(has_finding(&f, FINDING_WARNING, 0, "no unanswerable question"),
	   "a set without unanswerable questions gets a warning");
	findings_release(&f);
	set_release(&s);
}

static void test_near_duplicates_agree(void)
{
	static const char *const texts[] = {
		"How do I rotate an API key?", "how do I rotate an api-key", "Rotate API key how",
		"What is it?", "what is it", "Is it what?", "it is what it is", "The the the",
		"Which plans include single sign-on?", "single sign on plans which include",
		"Which plans include SSO?", "Can I pay by invoice?", "pay by invoice can I",
		"Can I pay by invoice or card?", "Ｆｕｌｌｗｉｄｔｈ ｔｅｘｔ", "fullwidth text",
		"?!", "...", "a b c d e", "a b c d e f", "invoice", "invoices", "the invoice",
		"an invoice", "Straße", "STRASSE", "rotate key api", "key rotate api now",
	};
	struct set s = SET_INIT;
	struct findings f = FINDINGS_INIT;
	int mismatches = 0;

	for (size_t i = 0; i < ARRAY_SIZE(texts); i++) {
		struct question *q = set_append(&s);
		q->id = xstrfmt("q-%04zu", i + 1);
		q->text = xstrdup(texts[i]);
		q->line = (long)i + 1;
		question_set_label(q, "c", 1);
	}
	set_check(&s, NULL, &f);
	for (size_t i = 1; i < s.nr; i++) {
		bool want = false, got = false;
		for (size_t j = 0; j < i && !want; j++)
			want = text_near_duplicate(texts[i], texts[j], TEXT_NEAR_DUP_THRESHOLD);
		for (size_t k = 0; k < f.nr; k++)
			if (f.items[k].line == (long)i + 1 && strstr(f.items[k].message, "near-duplicate"))
				got = true;
		if (want != got) {
			mismatches++;
			test_diag("'%s': check says %d, text_near_duplicate says %d", texts[i], got, want);
		}
	}
	ok(mismatches == 0, "check's near-duplicate warnings agree with text_near_duplicate");
	findings_release(&f);
	set_release(&s);
}

static void test_evidence(void)
{
	static const char *with =
		"questions:\n"
		"  - id: q-0001\n"
		"    text: How do I rotate an API key?\n"
		"    relevant:\n"
		"      c-0012: 2\n"
		"      c-0040: 1\n"
		"    evidence:\n"
		"      - {chunk: c-0012, doc: guides/keys.md, start: 1830, end: 1912, quote: \"rotate it: from the console\"}\n"
		"      - {chunk: c-0040, quote: rotate}\n";
	static const char *reordered =
		"questions:\n"
		"  - id: q-0001\n"
		"    text: How do I rotate an API key?\n"
		"    evidence:\n"
		"      - chunk: c-0040\n"
		"        quote: rotate\n"
		"      - {quote: \"rotate it: from the console\", end: 1912, start: 1830, doc: guides/keys.md, chunk: c-0012}\n"
		"    relevant: {c-0040: 1, c-0012: 2}\n";
	static const char *moved =
		"questions:\n"
		"  - id: q-0001\n"
		"    text: How do I rotate an API key?\n"
		"    relevant: {c-0040: 1, c-0012: 2}\n"
		"    evidence:\n"
		"      - {chunk: c-0012, doc: guides/keys.md, start: 1831, end: 1912, quote: \"rotate it: from the console\"}\n"
		"      - {chunk: c-0040, quote: rotate}\n";
	static const char *without =
		"questions:\n"
		"  - id: q-0001\n"
		"    text: How do I rotate an API key?\n"
		"    relevant:\n"
		"      c-0012: 2\n"
		"      c-0040: 1\n";
	static const struct bad_case bad[] = {
		{ "questions:\n- id: q-1\n  text: a\n  relevant: [c-1]\n  evidence: {chunk: c-1}\n",
		  "t.yaml:5:13: 'evidence' must be a list", "evidence as a mapping" },
		{ "questions:\n- id: q-1\n  text: a\n  relevant: [c-1]\n  evidence: [{doc: d, quote: x}]\n",
		  "t.yaml:5:14: evidence entry without a 'chunk'", "evidence without a chunk" },
		{ "questions:\n- id: q-1\n  text: a\n  relevant: [c-1]\n  evidence: [{chunk: c-1, start: 3, quote: x}]\n",
		  "t.yaml:5:14: evidence for 'c-1' has 'start' without 'end'", "a start without an end" },
		{ "questions:\n- id: q-1\n  text: a\n  relevant: [c-1]\n  evidence: [{chunk: c-1, start: 9, end: 3}]\n",
		  "t.yaml:5:14: evidence for 'c-1' ends (3) before it starts (9)", "a span that ends before it starts" },
		{ "questions:\n- id: q-1\n  text: a\n  relevant: [c-1]\n  evidence: [{chunk: c-1, doc: d}]\n",
		  "t.yaml:5:14: evidence for 'c-1' has neither a span (start, end) nor a quote", "evidence with nothing to find" },
		{ "questions:\n- id: q-1\n  text: a\n  relevant: [c-1]\n  evidence: [{chunk: c-1, start: -4, end: 3}]\n",
		  "t.yaml:5:34: 'start' must be a whole number, not '-4'", "a negative start" },
		{ "questions:\n- id: q-1\n  text: a\n  relevant: [c-1]\n  evidence: [{chunk: c-1, qoute: x}]\n",
		  "did you mean 'quote'?", "an unknown evidence key" },
	};
	struct set s = SET_INIT, t = SET_INIT;
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	struct findings f = FINDINGS_INIT;
	char d1[72], d2[72], d3[72], d4[72];

	ok(load_str(&s, with) == 0, "a set with evidence loads");
	is_int(s.q[0].nr_evidence, 2, "both evidence entries are read");
	is_int(s.q[0].evidence[0].start, 1830, "the span start is read");
	is_int(s.q[0].evidence[1].start, -1, "an entry without a span has start -1");
	is_str(s.q[0].evidence[0].quote, "rotate it: from the console", "the quote is read");
	ok(set_to_yaml(&s, &a) == 0 && set_load_buf(&t, a.buf, a.len, "saved.yaml") == 0,
	   "the saved form loads again");
	ok(strstr(a.buf, "- {chunk: c-0012, doc: guides/keys.md, start: 1830, end: 1912, quote: 'rotate it: from the console'}\n") != NULL,
	   "evidence is written one entry a line");
	ok(set_to_yaml(&t, &b) == 0 && !strcmp(a.buf, b.buf), "saving again gives the same bytes");
	set_digest(&s, d1);
	set_digest(&t, d2);
	is_str(d2, d1, "the round trip keeps the digest");
	set_release(&t);
	digest_of(reordered, d2);
	is_str(d2, d1, "evidence order and key order do not change the digest");
	digest_of(moved, d3);
	ok(strcmp(d3, d1) != 0, "moving the span changes the digest");
	digest_of(without, d4);
	ok(strcmp(d4, d1) != 0, "dropping the evidence changes the digest");
	strbuf_reset(&a);
	ok(load_str(&t, without) == 0 && set_to_yaml(&t, &a) == 0 && !strstr(a.buf, "evidence"),
	   "a set without evidence is written without an evidence key");
	set_release(&t);

	question_set_label(&s.q[0], "c-0040", 0);
	ok(s.q[0].nr_evidence == 1 && !strcmp(s.q[0].evidence[0].chunk, "c-0012"),
	   "judging a chunk irrelevant drops its evidence");
	question_set_label(&s.q[0], "c-0040", 1);
	{
		struct evidence e = { (char *)"c-0099", NULL, -1, -1, (char *)"x", 0, 0 };
		question_add_evidence(&s.q[0], &e);
	}
	set_check_errors(&s, NULL, &f);
	ok(f.nr_errors == 1 && strstr(f.items[0].message, "evidence for chunk 'c-0099' of question 'q-0001', which is not one of its relevant chunks"),
	   "check refuses evidence for a chunk that is not relevant");
	findings_release(&f);
	set_release(&s);
	ok(load_str(&s, "questions:\n- id: q-1\n  text: a\n  relevant: [c-1]\n  irrelevant: [c-2]\n"
			"  evidence: [{chunk: c-2, quote: x}]\n") == 0, "evidence on an irrelevant chunk loads");
	set_check_errors(&s, NULL, &f);
	ok(f.nr_errors == 1 && strstr(f.items[0].message, "evidence for chunk 'c-2' of question 'q-1', which is not one of its relevant chunks"),
	   "check refuses evidence for a chunk judged irrelevant");
	findings_release(&f);
	set_release(&s);

	test_capture_errors();
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		const char *got;
		int rc = load_str(&t, bad[i].yaml);
		got = test_captured();
		ok(rc < 0 && strstr(got, bad[i].want) != NULL, "refused: %s", bad[i].what);
		if (rc == 0 || !strstr(got, bad[i].want))
			test_diag("want '%s', got '%s'", bad[i].want, got);
		set_release(&t);
	}
	strbuf_release(&a);
	strbuf_release(&b);
}

/* set_lookup finds what set_find finds: the first of ids listed twice,
 * nothing for an id the set lacks or a question without an id. */
static void test_lookup(void)
{
	struct set s = SET_INIT;
	struct set_lookup lk;
	static const char *const ids[] = { "q-1", "q-2", NULL, "q-2", "q-10" };

	for (size_t i = 0; i < ARRAY_SIZE(ids); i++) {
		struct question *q = set_append(&s);

		q->id = ids[i] ? xstrdup(ids[i]) : NULL;
		q->text = xstrfmt("question %zu", i);
	}
	set_lookup_init(&lk, &s);
	ok(set_lookup_find(&lk, "q-1") == &s.q[0], "lookup: q-1 is the first question");
	ok(set_lookup_find(&lk, "q-2") == &s.q[1], "lookup: q-2 listed twice: the first, as set_find");
	ok(set_find(&s, "q-2") == &s.q[1], "set_find: q-2 listed twice: the first");
	ok(set_lookup_find(&lk, "q-10") == &s.q[4], "lookup: q-10 is the last question");
	ok(set_lookup_find(&lk, "q-3") == NULL, "lookup: an id the set lacks: none");
	ok(set_lookup_find(&lk, "q-") == NULL, "lookup: a prefix of an id: none");
	set_lookup_release(&lk);
	set_release(&s);
}

/* forbidden lists: read with their lines, matched by chunk and by document,
 * digested only when present */
static void test_forbidden(void)
{
	const char *with =
		"evalset: 1\nname: f\nquestions:\n"
		"  - id: q-1\n    text: a question\n    relevant: [a.md#0123456789ab]\n"
		"    forbidden: [b.md#00000000000f, 'doc:c.md']\n";
	const char *without =
		"evalset: 1\nname: f\nquestions:\n"
		"  - id: q-1\n    text: a question\n    relevant: [a.md#0123456789ab]\n";
	const char *reordered =
		"evalset: 1\nname: f\nquestions:\n"
		"  - id: q-1\n    text: a question\n    relevant: [a.md#0123456789ab]\n"
		"    forbidden: ['doc:c.md', b.md#00000000000f, 'doc:c.md']\n";
	struct set s = SET_INIT, t = SET_INIT, u = SET_INIT;
	char dw[72], dn[72], dr[72];

	if (set_load_buf(&s, with, strlen(with), "with.yaml") < 0 ||
	    set_load_buf(&t, without, strlen(without), "without.yaml") < 0 ||
	    set_load_buf(&u, reordered, strlen(reordered), "reordered.yaml") < 0) {
		ok(0, "forbidden: the sets load");
		return;
	}
	is_int(s.q[0].nr_forbidden, 2, "forbidden: two entries read");
	is_int(s.q[0].forbidden[1].line, 7, "forbidden: an entry keeps its line");
	is_str(question_forbids(&s.q[0], "b.md#00000000000f", "b.md"), "b.md#00000000000f",
	       "forbidden: a chunk entry matches its chunk");
	is_str(question_forbids(&s.q[0], "x", "c.md"), "doc:c.md",
	       "forbidden: a doc: entry matches any chunk of the document");
	ok(!question_forbids(&s.q[0], "b.md#00000000000e", NULL), "forbidden: another chunk does not match");
	ok(!question_forbids(&t.q[0], "b.md#00000000000f", "c.md"), "forbidden: nothing without a list");
	is_int(chunk_id_doc_len("guide.md#0123456789ab"), 8, "chunk id form: NAME#12 hex");
	is_int(chunk_id_doc_len("a#b#0123456789ab-2"), 3, "chunk id form: a repeat suffix, the last '#'");
	is_int(chunk_id_doc_len("doc12#3"), 0, "chunk id form: too few digits");
	is_int(chunk_id_doc_len("x#0123456789AB"), 0, "chunk id form: upper case is not the chunker's");
	is_int(chunk_id_doc_len("#0123456789ab"), 0, "chunk id form: no name");
	is_int(chunk_id_doc_len("x#0123456789ab-"), 0, "chunk id form: '-' without a number");
	set_digest(&s, dw);
	set_digest(&t, dn);
	set_digest(&u, dr);
	ok(strcmp(dw, dn) != 0, "forbidden: the list changes the digest");
	is_str(dr, dw, "forbidden: order and repeats do not");
	/* (that a set without lists digests as before the field existed is
	 * the CLI case set-forbidden-digest's: the demo's frozen versions) */
	set_release(&s);
	set_release(&t);
	set_release(&u);
}

int main(void)
{
	test_forbidden();
	test_round_trip();
	test_evidence();
	test_tricky_strings();
	test_digest();
	test_load_errors();
	test_languages();
	test_check();
	test_near_duplicates_agree();
	test_lookup();
	return test_done();
}
