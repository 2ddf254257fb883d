/*
 * t-set-fixture: what the set tests share (t-set, t-set-versions): a rich
 * set in YAML (every kind of field, quoting, non-ASCII text) and two small
 * helpers.
 */
#ifndef EVALSET_T_SET_FIXTURE_H
#define EVALSET_T_SET_FIXTURE_H

#include "set/set.h"
#include "base/strbuf.h"

#include <string.h>

static const char rich[] =
	"evalset: 1\n"
	"name: demo\n"
	"description: questions about the docs\n"
	"corpus:\n"
	"  path: corpus/chunks.jsonl\n"
	"  fingerprint: sha256:00ff\n"
	"  chunks: 646\n"
	"questions:\n"
	"  - id: q-0001\n"
	"    text: How do I rotate an API key?\n"
	"    origin: synthetic\n"
	"    relevant:\n"
	"      c-0012: 2\n"
	"      c-0040: 1\n"
	"    irrelevant: [c-0007]\n"
	"    tags: [hard, vocabulary-gap]\n"
	"    provenance:\n"
	"      chunk: c-0012\n"
	"      seed: 7\n"
	"      overlap: 0.31\n"
	"      quoted: \"7\"\n"
	"      flag: true\n"
	"      nothing: null\n"
	"      yes_word: 'true'\n"
	"      nested: {a: [1, 2.5, x], b: {c: d}}\n"
	"    note: crowd wording, kept on purpose\n"
	"  - id: q-0002\n"
	"    text: \"Two lines\\nsecond: with colon # and hash\"\n"
	"    origin: mined\n"
	"    relevant: [c-1, c-2]\n"
	"    answer: \"- starts with a dash\"\n"
	"  - id: q-0003\n"
	"    text: Où est la clé ? ünïcödé\n"
	"    answerable: false\n"
	"    origin: hand\n";

static inline int load_str(struct set *s, const char *yaml)
{
	return set_load_buf(s, yaml, strlen(yaml), "t.yaml");
}

/* Return a copy of 'text' with the first 'from' replaced by 'to' (NULL when absent). */
static inline char *replaced(const char *text, const char *from, const char *to)
{
	struct strbuf sb = STRBUF_INIT;
	const char *at = strstr(text, from);

	if (!at)
		return NULL;
	strbuf_add(&sb, text, (size_t)(at - text));
	strbuf_addstr(&sb, to);
	strbuf_addstr(&sb, at + strlen(from));
	return strbuf_detach(&sb, NULL);
}

#endif
