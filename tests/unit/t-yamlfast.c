/*
 * t-yamlfast: the fast reader of evalset's block YAML against libyaml.
 *
 * Whatever yamlfast_parse accepts, libyaml (yamlio_parse_events) must read
 * to the same tree: the same kinds, texts, styles, item counts, lines and
 * columns. Checked on every YAML file of the repository, on cases written
 * for each rule of the reader (accepted and declined), and on thousands of
 * seeded edits of a frozen version (a byte inserted, replaced or removed:
 * indentation, quotes, colons, escapes, multi-byte characters). The
 * shipped sets and their frozen versions must be taken by the fast reader,
 * so a reader that declined everything would fail here.
 */
#include "test-lib.h"
#include "base/yamlfast.h"
#include "base/yamlio.h"
#include "base/fsutil.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "compare/stats.h"

#include <ftw.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SCALAR 4096
static const struct yamlio_rules rules = { "test file", 6, MAX_SCALAR, true };

/* Return whether trees 'a' and 'b' are equal; describe the first
 * difference in 'why'. */
static bool same_tree(const struct ynode *a, const struct ynode *b, char *why, size_t n)
{
	if (!a || !b) {
		if (a != b)
			snprintf(why, n, "one tree is empty");
		return a == b;
	}
	if (a->kind != b->kind || a->line != b->line || a->col != b->col || a->nr != b->nr ||
	    a->plain != b->plain) {
		snprintf(why, n, "node at %ld:%ld (kind %d, %u items, plain %d) against %ld:%ld (kind %d, %u items, plain %d)",
			 a->line, a->col, a->kind, a->nr, a->plain, b->line, b->col, b->kind, b->nr,
			 b->plain);
		return false;
	}
	if (a->kind == YNODE_SCALAR && strcmp(a->value, b->value)) {
		snprintf(why, n, "scalar at %ld:%ld: '%s' against '%s'", a->line, a->col, a->value,
			 b->value);
		return false;
	}
	for (uint32_t i = 0; i < a->nr; i++)
		if (!same_tree(a->kids[i], b->kids[i], why, n))
			return false;
	return true;
}

struct verdict {
	bool fast;      /* the fast reader took it */
	bool agree;     /* then: libyaml read it to the same tree */
	char why[400];
};

static struct verdict judge(const char *buf, size_t len)
{
	struct mempool pf = MEMPOOL_INIT, ps = MEMPOOL_INIT;
	struct ynode *fast, *slow;
	struct verdict v = { false, true, "" };

	v.fast = yamlfast_parse(buf, len, &rules, &pf, &fast) == 1;
	if (v.fast) {
		test_capture_errors();
		if (yamlio_parse_events(buf, len, "t", &rules, &ps, &slow) < 0) {
			v.agree = false;
			snprintf(v.why, sizeof(v.why), "libyaml refuses it: %.300s", test_captured());
		} else {
			v.agree = same_tree(fast, slow, v.why, sizeof(v.why));
		}
		(void)test_captured();
	}
	mempool_clear(&pf);
	mempool_clear(&ps);
	return v;
}

/* Read 'path' whole into '*buf' ('*len' bytes); -1 when it cannot be read. */
static int slurp(const char *path, char **buf, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;

	if (read_file(path, &sb, 0) < 0) {
		strbuf_release(&sb);
		return -1;
	}
	*len = sb.len;
	*buf = strbuf_detach(&sb, NULL);
	return 0;
}

/* ---- every YAML file of the repository ---- */

static size_t files, files_fast, files_wrong;

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	size_t n = strlen(path);
	char *buf;
	size_t len;

	(void)st;
	(void)ftw;
	if (type != FTW_F || !((n > 5 && !strcmp(path + n - 5, ".yaml")) ||
			       (n > 4 && !strcmp(path + n - 4, ".yml"))))
		return 0;
	if (slurp(path, &buf, &len) < 0)
		return 0;
	files++;
	{
		struct verdict v = judge(buf, len);

		files_fast += v.fast;
		if (!v.agree) {
			files_wrong++;
			ok(false, "%s: the fast reader and libyaml agree (%s)", path, v.why);
		}
	}
	free(buf);
	return 0;
}

static void check_repository(void)
{
	static const char *const dirs[] = { "sets", "tests", "presets", "docs", "prompts", "tools" };

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		nftw(dirs[i], visit, 16, FTW_PHYS);
	ok(files >= 100 && !files_wrong,
	   "%zu YAML files of the repository: the fast reader took %zu, each read the same by libyaml",
	   files, files_fast);
}

static void check_frozen(void)
{
	static const char *const versions[] = {
		"sets/squad-demo/versions/v1.yaml", "sets/squad-demo/versions/v2.yaml",
		"sets/squad-demo/versions/v3.yaml", "sets/squad-demo/set.yaml",
		"sets/squad-demo-chat/versions/v1.yaml",
	};

	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		char *buf;
		size_t len;
		struct verdict v;

		if (slurp(versions[i], &buf, &len) < 0) {
			ok(false, "%s is readable", versions[i]);
			continue;
		}
		v = judge(buf, len);
		ok(v.fast && v.agree, "%s: read by the fast reader, to libyaml's tree%s%s", versions[i],
		   v.why[0] ? ": " : "", v.why);
		free(buf);
	}
}

/* ---- each rule ---- */

struct kase {
	const char *text;
	bool fast;     /* the fast reader takes it */
	const char *what;
};

static const struct kase kases[] = {
	{ "a: 1\nb: two words\n", true, "a mapping of plain scalars" },
	{ "a: 1\nb: two words", true, "no newline at the end" },
	{ "a: 1\n\n   \nb: 2\n", true, "blank lines, also of spaces" },
	{ "top:\n  inner: x\n  more: [a, b]\n", true, "a nested mapping" },
	{ "list:\n- a\n- b\nnext: 1\n", true, "a sequence at its key's indentation, then a key" },
	{ "list:\n  - a\n  - b\n", true, "an indented sequence" },
	{ "- a\n- b: 1\n  c: 2\n- [x]\n", true, "a sequence at the root, a mapping in an item" },
	{ "questions:\n- id: q1\n  tags:\n  - x\n  - y\n  text: t\n- id: q2\n", true,
	  "a sequence at its key's indentation inside an item" },
	{ "-   a: 1\n    b: 2\n", true, "an item's mapping after several spaces" },
	{ "a: [ x ,y,  'z' , \"w\" ]\n", true, "a flow sequence with spaces" },
	{ "a: []\nb: {}\n", true, "an empty flow sequence and mapping" },
	{ "url: http://x.org/a?b=c#d\n", true, "a ':' and '#' inside a plain scalar" },
	{ "a: x:y\n", true, "a:b is a plain scalar" },
	{ "a: trailing   \n", true, "trailing spaces dropped" },
	{ "a: -5\nb: -x\n", true, "a plain scalar starting with '-'" },
	{ "a: 'it''s'\nb: ''\n", true, "single quotes, doubled" },
	{ "a: \"t\\tx\\n\\\\ \\\" \\/ \\u00e9 \\x41 \\U0001F600 \\N \\_ \\L \\P \\e \\ \"\n", true,
	  "double-quoted escapes" },
	{ "a: \"\"\n", true, "an empty double-quoted scalar" },
	{ "text: ¿Qué es la evaluación? 日本語 😀\n", true, "UTF-8 text, columns in characters" },
	{ "k: é\nl: [é, ü]\n", true, "UTF-8 in a flow sequence" },
	{ "a.b-c_d/e: 1\n", true, "a key of word characters" },
	{ "a: ~\nb: null\nc: true\n", true, "null and booleans stay plain scalars" },
	{ "a: x\n   \n", true, "a trailing blank line of spaces" },
	{ "# comment\na: 1\n  # indented\nb:\n# between\n- x\n#\n", true, "comments alone on their lines" },
	{ "a: 1 # comment\n", false, "a comment after a value" },
	{ "# x\ry\na: 1\n", false, "a CR in a comment line (a line break to libyaml)" },
	{ "# x\xc2\x85y: 2\na: 1\n", false, "U+0085 in a comment line" },
	{ "# x\x01\na: 1\n", false, "a control character in a comment line" },
	{ "a:\tb\n", false, "a tab after a key" },
	{ "a:\n\t- b\n", false, "a tab in the indentation" },
	{ "a:\nb: 1\n", false, "an empty value" },
	{ "a: 1\r\nb: 2\r\n", false, "CRLF line ends" },
	{ "a: one\n  two\n", false, "a plain scalar over two lines" },
	{ "a: 'one\n  two'\n", false, "a quoted scalar over two lines" },
	{ "a: &x 1\nb: *x\n", false, "an anchor and an alias" },
	{ "a: !!str 1\n", false, "a tag" },
	{ "---\na: 1\n", false, "a document start" },
	{ "a: 1\n...\n", false, "a document end" },
	{ "%YAML 1.1\n---\na: 1\n", false, "a directive" },
	{ "a: [x, ]\n", false, "a trailing comma in a flow sequence" },
	{ "a: [x, [y]]\n", false, "a nested flow sequence" },
	{ "a: [x:y]\n", false, "a ':' in a flow sequence's scalar (libyaml's versions differ)" },
	{ "a: {b: c:d}\n", false, "a ':' in a flow mapping's value" },
	{ "e:\n- {chunk: c-1, doc: d.txt, start: 7, end: 9, quote: '18:15'}\n", true,
	  "flow mappings in a sequence" },
	{ "a: { b: 1 ,c: x y }\n", true, "a flow mapping with spaces" },
	{ "a: {q: Workers' Party, r: say \"hi\"}\nb: [it's, \"x\"]\n", true,
	  "quotes inside plain scalars of flow collections" },
	{ "a: {b: {c: 1}}\n", false, "a nested flow mapping" },
	{ "a: {b: [c]}\n", false, "a flow sequence in a flow mapping" },
	{ "a: {b: 1, }\n", false, "a trailing comma in a flow mapping" },
	{ "a: {b}\n", false, "a flow mapping key without a value" },
	{ "a: {b: }\n", false, "a flow mapping key with an empty value" },
	{ "a: {b: 1\n", false, "a flow mapping over two lines" },
	{ "a: [x\n", false, "a flow sequence over two lines" },
	{ "a: | \n  x\n", false, "a block scalar" },
	{ "a: b: c\n", false, "': ' inside a value" },
	{ "a: x:\n", false, "a value ending in ':'" },
	{ "'a': 1\n", false, "a quoted key" },
	{ "a b: 1\n", false, "a key with a space" },
	{ "? a\n: 1\n", false, "a complex key" },
	{ "a: 1\n  b: 2\n", false, "a deeper line after a value" },
	{ "  a: 1\n", false, "an indented root" },
	{ "a: \"\\0\"\n", false, "an escaped NUL" },
	{ "a: \"\\q\"\n", false, "an unknown escape" },
	{ "a: \"\\ud800\"\n", false, "an escaped surrogate" },
	{ "a: x\xc2\x85y\n", false, "U+0085, a line break to libyaml" },
	{ "a: x\xe2\x80\xa8y\n", false, "U+2028, a line break to libyaml" },
	{ "a: x\xef\xbb\xbfy\n", false, "U+FEFF inside" },
	{ "\xef\xbb\xbf" "a: 1\n", false, "a byte order mark" },
	{ "a: x\x7fy\n", false, "DEL" },
	{ "a: x\xc3y\n", false, "broken UTF-8" },
	{ "a:\n  b:\n    c:\n      d:\n        e:\n          f:\n            g: 1\n", false,
	  "deeper than the rules' limit" },
	{ "", false, "an empty text" },
	{ "just a scalar\n", false, "a scalar at the root" },
	{ "- - a\n", false, "a sequence in an item's line" },
	{ "-\n  a: 1\n", false, "an item's value on the next line" },
	{ "a: @x\n", false, "a reserved indicator first" },
	{ "a: - x\n", false, "a sequence entry after a key" },
	{ "a: [- x]\n", false, "a sequence entry in a flow sequence" },
};

/* A scalar of 'n' bytes: taken at the rules' limit, declined above it. */
static void check_limit(size_t n)
{
	char *text = xmalloc(n + 8);
	struct verdict v;

	memcpy(text, "a: ", 3);
	memset(text + 3, 'x', n);
	memcpy(text + 3 + n, "\n", 2);
	v = judge(text, n + 4);
	ok(v.fast == (n <= MAX_SCALAR) && v.agree, "a scalar of %zu bytes (limit %d): %s%s%s", n,
	   MAX_SCALAR, n <= MAX_SCALAR ? "read as libyaml reads it" : "declined",
	   v.why[0] ? ": " : "", v.why);
	free(text);
}

static void check_cases(void)
{
	check_limit(MAX_SCALAR);
	check_limit(MAX_SCALAR + 1);
	for (size_t i = 0; i < sizeof(kases) / sizeof(kases[0]); i++) {
		const struct kase *k = &kases[i];
		struct verdict v = judge(k->text, strlen(k->text));

		ok(v.fast == k->fast && v.agree, "%s: %s%s%s", k->what,
		   k->fast ? "read by the fast reader as libyaml reads it" : "declined",
		   v.why[0] ? ": " : "", v.why);
	}
}

/* ---- seeded edits of a frozen version ---- */

static void check_edits(const char *path, uint64_t seed)
{
	static const char *const pieces[] = {
		" ", "  ", "\n", "\n  ", "- ", ":", ": ", "#", " #", "'", "''", "\"", "\\", "\\n",
		"\\u00e9", "[", "]", ",", "{", "}", "&", "*", "!", "|", ">", "?", "%", "@", "\t",
		"\r", "-", "---", "é", "\xe2\x80\xa8", "\xc2\x85", "x", "7", "\n- ", "\n  - ",
	};
	char *orig, *buf;
	size_t len, fast = 0, wrong = 0, tries = test_repeats(2000, 400, "seeded edits");
	struct rng g;

	if (slurp(path, &orig, &len) < 0) {
		ok(false, "%s is readable", path);
		return;
	}
	if (len > 3000) {
		/* a few questions are enough (each edit parses it twice): up to
		 * the start of a question, so that the part is whole */
		char *cut = NULL;

		for (char *p = strstr(orig, "- id: "); p && p - orig < 3000; p = strstr(p + 1, "- id: "))
			cut = p;
		while (cut && cut > orig && cut[-1] != '\n')
			cut--;
		len = cut ? (size_t)(cut - orig) : len;
	}
	buf = xmalloc(len + 64);  /* two edits add at most 12 bytes */
	rng_seed(&g, seed);
	for (size_t t = 0; t < tries; t++) {
		size_t n = len, edits = 1 + (size_t)rng_below(&g, 2);
		struct verdict v;

		memcpy(buf, orig, len);
		for (size_t e = 0; e < edits; e++) {
			size_t at = (size_t)rng_below(&g, n ? n : 1);
			const char *p = pieces[rng_below(&g, sizeof(pieces) / sizeof(pieces[0]))];
			size_t pl = strlen(p);

			switch (rng_below(&g, 3)) {
			case 0:  /* insert */
				memmove(buf + at + pl, buf + at, n - at);
				memcpy(buf + at, p, pl);
				n += pl;
				break;
			case 1:  /* replace one byte */
				if (n) {
					memmove(buf + at + pl, buf + at + 1, n - at - 1);
					memcpy(buf + at, p, pl);
					n += pl - 1;
				}
				break;
			default:  /* remove one byte */
				if (n) {
					memmove(buf + at, buf + at + 1, n - at - 1);
					n--;
				}
				break;
			}
		}
		v = judge(buf, n);
		fast += v.fast;
		if (!v.agree && wrong++ < 5) {
			fwrite(buf, 1, n, stderr);
			ok(false, "edit %zu: the fast reader and libyaml agree (%s)", t, v.why);
		}
	}
	ok(!wrong, "%zu seeded edits of %s: the fast reader took %zu, each read the same by libyaml (%zu differ)",
	   tries, path, fast, wrong);
	ok(fast >= tries / 10 && fast < tries,
	   "%s: the edits reach both readers (%zu of %zu by the fast one)", path, fast, tries);
	free(buf);
	free(orig);
}

int main(void)
{
	/* each parse fills and frees two pools: keep the memory between them
	 * rather than give it back to the kernel and ask again (the emulated
	 * build spent most of its time there) */
	(void)mallopt(M_TRIM_THRESHOLD, 64 << 20);
	(void)mallopt(M_MMAP_THRESHOLD, 16 << 20);
	check_cases();
	check_frozen();
	check_repository();
	/* evalset's own writing (flow mappings of evidence) and a file
	 * written by a script (comments, indented sequences) */
	check_edits("sets/squad-demo/versions/v3.yaml", 20261205);
	check_edits("sets/squad-demo/set.yaml", 7);
	return test_done();
}
