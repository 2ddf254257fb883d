/*
 * t-set-writable: the writer->reader property. Every writer of a set ends in
 * set_save, and set_save must write exactly what set_load reads back:
 *
 *   - whatever set_save writes, set_load reads, with the same digests
 *     (nothing is lost or changes type on the way);
 *   - whatever set_save refuses, set_load would have refused too (the YAML
 *     the emitter gives for it does not load), and nothing is written.
 *
 * Inputs are random sets (seeded; EVALSET_TEST_SEED replaces the seed, and
 * EVALSET_TEST_ROUNDS the number of rounds) whose strings mix every Unicode
 * plane, controls, line and paragraph separators, BOMs, bidirectional and
 * zero-width marks, noncharacters, invalid UTF-8, YAML syntax and
 * YAML-typed words (evidence entries too, well-formed or not), with lengths around the scalar limit and up to 1 MiB;
 * provenance maps nest around the depth limit and may repeat a key.
 */
#include "test-lib.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "set/set.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t rng_state;
/* half the sets stay within the limits, so that both sides of the property
 * are exercised about equally */
static bool benign;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

static size_t below(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

static void add_cp(struct strbuf *sb, uint32_t c)
{
	/* encodes surrogates too: the writer must refuse them as invalid UTF-8 */
	if (c < 0x80) {
		strbuf_addch(sb, (char)c);
	} else if (c < 0x800) {
		strbuf_addch(sb, (char)(0xC0 | (c >> 6)));
		strbuf_addch(sb, (char)(0x80 | (c & 0x3F)));
	} else if (c < 0x10000) {
		strbuf_addch(sb, (char)(0xE0 | (c >> 12)));
		strbuf_addch(sb, (char)(0x80 | ((c >> 6) & 0x3F)));
		strbuf_addch(sb, (char)(0x80 | (c & 0x3F)));
	} else {
		strbuf_addch(sb, (char)(0xF0 | (c >> 18)));
		strbuf_addch(sb, (char)(0x80 | ((c >> 12) & 0x3F)));
		strbuf_addch(sb, (char)(0x80 | ((c >> 6) & 0x3F)));
		strbuf_addch(sb, (char)(0x80 | (c & 0x3F)));
	}
}

static const char *const words[] = {
	"true", "false", "null", "~", "", "7", "-0", "0x1F", "0o17", "1e300", ".inf", ".nan",
	"yes", "No", ": ", " #", "- ", "? ", "'", "\"", "\\", "&a", "*a", "!!int", "!tag",
	"---", "...", "%YAML 1.1", "{", "}", "[", "]", ",", "|", ">", "@", "`", " ", "  ",
	"\n", "\r\n", "\r", "\t", "q-0001", "c-12", "@v1",
};

/* Append one random piece: a word, a code point of some class, or bad bytes. */
static void add_piece(struct strbuf *sb, bool allow_invalid)
{
	static const uint32_t marks[] = {
		0x85, 0xA0, 0xAD, 0x200B, 0x200D, 0x200E, 0x202E, 0x2066, 0x2028, 0x2029,
		0xFEFF, 0xFFFD, 0xFFFE, 0xFFFF, 0xE000, 0x1F600, 0x10FFFF, 0xE0001, 0x1B,
	};
	switch (below(allow_invalid ? 9 : 8)) {
	case 0:
		strbuf_addstr(sb, words[below(ARRAY_SIZE(words))]);
		break;
	case 1:
		add_cp(sb, 1 + (uint32_t)below(0x7F));  /* ASCII, controls included */
		break;
	case 2:
		add_cp(sb, 0x80 + (uint32_t)below(0x780));  /* C1 controls, Latin, ... */
		break;
	case 3: {
		uint32_t c = 0x800 + (uint32_t)below(0x10000 - 0x800);
		if (c >= 0xD800 && c < 0xE000)
			c -= 0x800;
		add_cp(sb, c);  /* the rest of the BMP */
		break;
	}
	case 4:
		add_cp(sb, 0x10000 * (1 + (uint32_t)below(16)) + (uint32_t)below(0x10000));  /* planes 1-16 */
		break;
	case 5:
		add_cp(sb, marks[below(ARRAY_SIZE(marks))]);
		break;
	case 6: case 7:
		strbuf_addch(sb, (char)('a' + below(26)));
		break;
	default: {
		static const char *const bad[] = { "\xFF", "\xC3", "\xE2\x82", "\xED\xA0\x80",
						   "\xF4\x90\x80\x80", "\xC0\xAF" };
		strbuf_addstr(sb, bad[below(ARRAY_SIZE(bad))]);
		break;
	}
	}
}

/* A random string: usually short, sometimes around the scalar limit or 1 MiB. */
static char *random_string(bool allow_invalid)
{
	struct strbuf sb = STRBUF_INIT;
	size_t want;
	bool bad = allow_invalid && !benign && below(12) == 0;

	switch (below(16)) {
	case 0:
		want = SET_MAX_SCALAR_BYTES - 8 + below(benign ? 8 : 16);
		break;
	case 1:
		want = benign ? SET_MAX_SCALAR_BYTES - below(64) : (1u << 20) + below(64);
		break;
	case 2:
		want = 200 + below(4000);
		break;
	default:
		want = below(24);
		break;
	}
	while (sb.len < want) {
		if (want > 4096 && sb.len > 64) {
			/* long strings: repeat what is there, then a random tail */
			size_t n = sb.len < want - sb.len ? sb.len : want - sb.len;
			char *head;
			/* a benign set cuts at a character boundary */
			while (benign && n && ((unsigned char)sb.buf[n] & 0xC0) == 0x80)
				n--;
			if (!n)
				break;
			head = xstrndup(sb.buf, n);  /* the buffer may move */
			strbuf_add(&sb, head, n);
			free(head);
			continue;
		}
		add_piece(&sb, bad);
	}
	return strbuf_detach(&sb, NULL);
}

static cJSON *random_json(int depth)
{
	switch (below(depth > 40 || (benign && depth > 20) ? 5 : 8)) {
	case 0:
		return cJSON_CreateNumber((double)(long)(rnd() % 2000000) - 1000000);
	case 1: {
		static const double nums[] = { 0.31, -1e300, 1e300, 1e15, 9007199254740993.0,
					       4.9e-324, 123456789012345678.0 };
		return cJSON_CreateNumber(nums[below(ARRAY_SIZE(nums))]);
	}
	case 2:
		return cJSON_CreateBool(below(2));
	case 3:
		return cJSON_CreateNull();
	case 4: {
		char *s = random_string(true);
		cJSON *j = cJSON_CreateString(s);
		free(s);
		return j;
	}
	case 5: {
		cJSON *a = cJSON_CreateArray();
		for (size_t i = below(3); i-- > 0;)
			cJSON_AddItemToArray(a, random_json(depth + 1));
		return a;
	}
	default: {
		cJSON *o = cJSON_CreateObject();
		size_t n = 1 + below(3);
		char *last = NULL;
		for (size_t i = 0; i < n; i++) {
			char *k = below(10) == 0 && last && !benign ? xstrdup(last) : random_string(true);
			/* deep chains are what the depth limit is about */
			cJSON *v = depth < 36 && below(3) == 0 ? random_json(depth + 1) :
				   below(2) ? cJSON_CreateNumber(1) : random_json(depth + 1);
			cJSON_AddItemToObject(o, k, v);
			free(last);
			last = k;
		}
		free(last);
		return o;
	}
	}
}

/* A provenance map nested exactly 'levels' deep. */
static cJSON *deep_json(int levels)
{
	cJSON *top = cJSON_CreateObject(), *at = top;
	for (int i = 1; i < levels; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddItemToObject(at, "k", o);
		at = o;
	}
	cJSON_AddNumberToObject(at, "leaf", 1);
	return top;
}

static void random_set(struct set *s)
{
	size_t nq = 1 + below(4);

	benign = below(2);
	set_init(s);
	s->name = random_string(true);
	if (below(2))
		s->description = random_string(true);
	for (size_t i = 0; i < nq; i++) {
		struct question *q = set_append(s);
		q->id = below(3) ? xstrfmt("q-%04zu", i + 1) : random_string(true);
		q->text = random_string(true);
		q->origin = (enum origin)below(4);
		q->answerable = below(4) != 0;
		for (size_t k = below(3); k-- > 0;) {
			char *c = random_string(true);
			question_set_label(q, c, 1 + (int)below(9));
			free(c);
		}
		for (size_t k = below(2); k-- > 0;) {
			ALLOC_GROW(q->tags, q->nr_tags + 1, q->alloc_tags);
			q->tags[q->nr_tags++] = random_string(true);
		}
		for (size_t k = below(4) == 0 ? 1 + below(2) : 0; k-- > 0;) {
			struct evidence e = { NULL, NULL, -1, -1, NULL, 0, 0 };
			e.chunk = below(8) ? random_string(true) : NULL;
			if (below(2))
				e.doc = random_string(true);
			if (below(2)) {
				e.start = (long)below(100);
				e.end = benign || below(4) ? e.start + (long)below(100) : e.start - 1;
			}
			if (below(2) || (benign && e.start < 0))
				e.quote = random_string(true);
			question_add_evidence(q, &e);
			free(e.chunk);
			free(e.doc);
			free(e.quote);
		}
		if (below(3) == 0)
			q->note = random_string(true);
		if (below(6) == 0) {
			static const char *const langs[] = { "en", "pt-BR", "zh-Hant-TW", "x", "e n",
							      "12345678901", "de-" };
			q->language = xstrdup(langs[below(benign ? 3 : ARRAY_SIZE(langs))]);
		}
		if (below(4) == 0)
			q->answer = random_string(true);
		if (below(5) == 0)
			q->provenance = deep_json(SET_MAX_PROVENANCE_DEPTH - 1 + (int)below(benign ? 2 : 3));
		else if (below(2) && !cJSON_IsObject(q->provenance = random_json(1)) && benign) {
			cJSON *p = cJSON_CreateObject();
			cJSON_AddItemToObject(p, "p", q->provenance);
			q->provenance = p;
		}
	}
}

static char *tmpdir;

/* Check the property on 's'; return true when it held. */
static bool check_one(const struct set *s, unsigned round, unsigned long *saved,
		      unsigned long *refused)
{
	char *path = xstrfmt("%s/set.yaml", tmpdir);
	struct strbuf yaml = STRBUF_INIT;
	struct set back = SET_INIT;
	char *why;
	bool held = true;
	int rc;

	unlink(path);
	rc = set_save(s, path);
	if (rc == 0) {
		char d1[72], d2[72], c1[72], c2[72];
		(*saved)++;
		if (set_load(&back, path) < 0) {
			test_diag("round %u: set_save wrote a file set_load refuses: %s", round,
				  test_captured());
			held = false;
			goto out;
		}
		set_digest(s, d1);
		set_digest(&back, d2);
		set_content_digest(s, c1);
		set_content_digest(&back, c2);
		if (strcmp(d1, d2) || strcmp(c1, c2) || back.nr != s->nr) {
			test_diag("round %u: the set read back differs from the one written", round);
			held = false;
		}
	} else {
		(*refused)++;
		if (path_exists(path)) {
			test_diag("round %u: set_save refused but wrote '%s'", round, path);
			held = false;
		}
		/* the reader must refuse the same set: no limit of the writer is stricter */
		why = xstrdup(test_captured());
		if (set_to_yaml(s, &yaml) == 0 &&
		    (yaml.len <= SET_MAX_FILE_BYTES &&
		     set_load_buf(&back, yaml.buf, yaml.len, "emitted") == 0)) {
			test_diag("round %u: set_save refused a set set_load reads: %s", round, why);
			held = false;
		}
		free(why);
	}
out:
	(void)test_captured();
	set_release(&back);
	strbuf_release(&yaml);
	free(path);
	return held;
}

int main(void)
{
	const char *seed_env = getenv("EVALSET_TEST_SEED");
	const char *rounds_env = getenv("EVALSET_TEST_ROUNDS");
	unsigned rounds = rounds_env ? (unsigned)strtoul(rounds_env, NULL, 10)
				      : (unsigned)test_repeats(400, 100, "random sets");
	unsigned long saved = 0, refused = 0, failed = 0;
	char tmpl[] = "/tmp/t-set-writable-XXXXXX";

	rng_state = seed_env ? strtoull(seed_env, NULL, 10) | 1 : 0x9E3779B97F4A7C15ull;
	test_capture_errors();
	tmpdir = mkdtemp(tmpl);
	ok(tmpdir != NULL, "a scratch directory");
	if (!tmpdir)
		return test_done();

	for (unsigned r = 0; r < rounds; r++) {
		struct set s;
		random_set(&s);
		if (!check_one(&s, r, &saved, &refused))
			failed++;
		set_release(&s);
	}
	ok(!failed, "writer->reader: %lu of %u random sets broke the property", failed, rounds);
	/* both sides must be exercised, or the property says nothing */
	ok(saved > rounds / 10, "random sets written and read back: %lu", saved);
	ok(refused > rounds / 10, "random sets refused by both writer and reader: %lu", refused);

	/* the limits themselves, at the edge */
	{
		struct set s;
		struct question *q;
		unsigned long sv = 0, rf = 0;

		set_init(&s);
		s.name = xstrdup("edge");
		q = set_append(&s);
		q->id = xstrdup("q-0001");
		q->text = xmalloc(SET_MAX_SCALAR_BYTES + 2);
		memset(q->text, 'a', SET_MAX_SCALAR_BYTES);
		q->text[SET_MAX_SCALAR_BYTES] = '\0';
		ok(check_one(&s, 100000, &sv, &rf) && sv == 1, "a text of exactly the limit is written and read");
		q->text[SET_MAX_SCALAR_BYTES] = 'a';
		q->text[SET_MAX_SCALAR_BYTES + 1] = '\0';
		ok(check_one(&s, 100001, &sv, &rf) && rf == 1, "one byte more is refused by both");
		free(q->text);
		q->text = xstrdup("ok");
		q->provenance = deep_json(SET_MAX_PROVENANCE_DEPTH);
		ok(check_one(&s, 100002, &sv, &rf) && sv == 2, "provenance at the depth limit is written and read");
		cJSON_Delete(q->provenance);
		q->provenance = deep_json(SET_MAX_PROVENANCE_DEPTH + 1);
		ok(check_one(&s, 100003, &sv, &rf) && rf == 2, "one level deeper is refused by both");
		cJSON_Delete(q->provenance);
		q->provenance = cJSON_CreateObject();
		cJSON_AddNumberToObject(q->provenance, "seed", 1);
		cJSON_AddNumberToObject(q->provenance, "seed", 2);
		ok(check_one(&s, 100004, &sv, &rf) && rf == 3, "a provenance key given twice is refused by both");
		set_release(&s);
	}
	test_remove_tree(tmpdir);
	return test_done();
}
