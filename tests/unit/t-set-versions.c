/*
 * t-set-versions: question ids (never reused), set references (NAME@TAG,
 * paths), frozen versions: opening, refusing a hand-edited one, their order
 * and chain, and reuse of a working copy.
 */
#include "test-lib.h"
#include "t-set-fixture.h"
#include "base/digest.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "set/set.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_ids(void)
{
	struct set s = SET_INIT;
	char *id;

	is_int(question_id_number("q-0042"), 42, "q-0042 is number 42");
	is_int(question_id_number("q-12345"), 12345, "more than four digits");
	is_int(question_id_number("q-12a"), -1, "not all digits");
	is_int(question_id_number("custom"), -1, "a custom id has no number");
	id = set_next_id(&s, 0);
	is_str(id, "q-0001", "the first id of an empty set");
	free(id);
	load_str(&s, "questions:\n- {id: q-0007, text: a, relevant: [c]}\n"
		     "- {id: custom, text: b, relevant: [c]}\n- {id: q-0003, text: c, relevant: [c]}\n");
	id = set_next_id(&s, 0);
	is_str(id, "q-0008", "next is one more than the highest, whatever the order");
	free(id);
	id = set_next_id(&s, 41);
	is_str(id, "q-0042", "the floor of removed ids is never reused");
	free(id);
	id = set_next_id(&s, 9999);
	is_str(id, "q-10000", "ids grow past four digits");
	free(id);
	set_release(&s);
}

static void write_text(const char *path, const char *text)
{
	write_file_atomic(path, text, strlen(text));
}

static void test_refs_and_versions(void)
{
	struct set_ref ref = SET_REF_INIT;
	struct set s = SET_INIT;
	struct set_versions v = SET_VERSIONS_INIT;
	struct strbuf sb = STRBUF_INIT;
	char tmpl[] = "/tmp/t-set-XXXXXX", digest[72], latest[72], *tag = NULL;
	const char *dir = mkdtemp(tmpl);

	if (!dir || chdir(dir) < 0) {
		ok(0, "cannot make a scratch directory");
		return;
	}
	test_capture_errors();
	ok(set_ref_resolve(&ref, "demo", false) == 0, "a bare name resolves");
	is_str(ref.file, "sets/demo/set.yaml", "a bare name is looked up under sets/");
	is_str(ref.name, "demo", "the name is the directory's");
	ok(set_ref_resolve(&ref, "demo@v1", false) == 0 && !strcmp(ref.tag, "v1"), "NAME@TAG");
	is_str(ref.file, "sets/demo/versions/v1.yaml", "a tag selects versions/TAG.yaml");
	ok(set_ref_resolve(&ref, "other/place/", false) == 0 &&
	   !strcmp(ref.file, "other/place/set.yaml"), "a path to a directory works");
	ok(set_ref_resolve(&ref, "x/set.yaml", false) == 0 && !strcmp(ref.dir, "x") && !ref.tag,
	   "a path to set.yaml works");
	ok(set_ref_resolve(&ref, "x/versions/v2.yaml", false) == 0 && ref.tag &&
	   !strcmp(ref.tag, "v2") && !strcmp(ref.dir, "x"), "a path to a frozen file is that version");
	ok(set_ref_resolve(&ref, "a@b@c", false) < 0 && strstr(test_captured(), "more than one '@'"),
	   "two '@' are refused");
	ok(set_ref_resolve(&ref, "demo@", false) < 0 && strstr(test_captured(), "empty tag"),
	   "an empty tag is refused");
	ok(set_ref_resolve(&ref, "@v1", false) < 0 && strstr(test_captured(), "empty set name"),
	   "an empty name is refused");
	ok(set_ref_resolve(&ref, "demo@v 1", false) < 0, "a tag with a space is refused");
	ok(set_ref_resolve(&ref, "demo", true) < 0 && strstr(test_captured(), "evalset init"),
	   "a missing set is refused, suggesting init");

	mkdir_p("sets/demo/versions");
	load_str(&s, rich);
	set_save(&s, "sets/demo/set.yaml");
	set_digest(&s, digest);
	s.version = xstrdup("v1");
	s.digest = xstrdup(digest);
	s.tagged_at = xstrdup("2026-11-01T00:00:00Z");
	set_save(&s, "sets/demo/versions/v1.yaml");
	free(s.version);
	s.version = xstrdup("v0");
	free(s.tagged_at);
	s.tagged_at = xstrdup("2026-10-01T00:00:00Z");
	set_remove(&s, 2);
	set_digest(&s, digest);
	free(s.digest);
	s.digest = xstrdup(digest);
	set_save(&s, "sets/demo/versions/v0.yaml");
	set_release(&s);
	test_captured();

	ok(set_open(&s, &ref, "demo@v1") == 0, "an untouched frozen version opens");
	set_release(&s);
	ok(set_open(&s, &ref, "demo@v9") < 0 &&
	   strstr(test_captured(), "unknown version 'v9' of set 'sets/demo' (known: v0, v1)"),
	   "an unknown tag lists the known ones in tag order");
	ok(set_ref_resolve(&ref, "demo", true) == 0 && set_versions_list(&ref, &v) == 0 &&
	   v.nr == 2 && !strcmp(v.items[0].tag, "v0") && !strcmp(v.items[1].tag, "v1"),
	   "versions are listed by tagged_at");
	ok(set_latest_digest(&ref, latest, &tag) == 1 && tag && !strcmp(tag, "v1"),
	   "the latest version is the last tagged");
	set_versions_release(&v);
	free(tag);

	read_file("sets/demo/versions/v1.yaml", &sb, 0);
	{
		char *at = strstr(sb.buf, "rotate");
		if (at)
			at[0] = 'R';
	}
	write_text("sets/demo/versions/v1.yaml", sb.buf);
	ok(set_open(&s, &ref, "demo@v1") < 0 &&
	   strstr(test_captured(), "tampered or hand-edited frozen version "
				   "'sets/demo/versions/v1.yaml': digest sha256:"),
	   "a hand-edited frozen version is refused");

	write_text("sets/demo/set.yaml", "questions:\n- {id: q-0002, text: a, relevant: [c]}\n"
					 "- {id: q-0002, text: b, relevant: [c]}\n");
	ok(set_open(&s, &ref, "demo") < 0 &&
	   strstr(test_captured(), "sets/demo/set.yaml:3:3: duplicate question id 'q-0002'"),
	   "set_open refuses a set that breaks a rule, at its place");
	write_text("sets/demo/set.yaml", "questions:\n- {id: q-0002, text: a, relevant: [c]}\n");
	is_int(set_id_floor(&ref), 3, "the floor counts ids of frozen versions");
	ok(set_id_floor_write(&ref, 57) == 0 && set_id_floor(&ref) == 57,
	   "the floor file is kept and read back");
	ok(set_id_floor_write(&ref, 10) == 0 && set_id_floor(&ref) == 57,
	   "the floor never goes down");
	set_ref_release(&ref);
	strbuf_release(&sb);
	set_error_routine(NULL);
	set_warning_routine(NULL);
	if (chdir("/") == 0)
		test_remove_tree(dir);
}

/* Freeze 'yaml' as version 'tag' (parent 'parent', may be NULL) of sets/demo. */
static void freeze(const char *yaml, const char *tag, const char *parent, const char *when)
{
	struct set s = SET_INIT;
	char digest[72], *file = xstrfmt("sets/demo/versions/%s.yaml", tag);

	load_str(&s, yaml);
	s.version = xstrdup(tag);
	s.parent = xstrdup(parent);
	s.tagged_at = xstrdup(when);
	set_digest(&s, digest);
	s.digest = xstrdup(digest);
	if (set_save(&s, file) < 0)
		test_diag("cannot write %s", file);
	set_release(&s);
	free(file);
}

/*
 * Edit the frozen version 'tag' of sets/demo by hand, its first 'from'
 * becoming 'to', and check that opening it is then refused as tampering.
 */
static void hand_edit(const char *tag, const char *from, const char *to, const char *what)
{
	struct set_ref ref = SET_REF_INIT;
	struct set s = SET_INIT;
	struct strbuf sb = STRBUF_INIT;
	char *file = xstrfmt("sets/demo/versions/%s.yaml", tag), *spec = xstrfmt("demo@%s", tag), *edited;

	read_file(file, &sb, 0);
	edited = replaced(sb.buf, from, to);
	if (edited)
		write_text(file, edited);
	ok(edited && set_open(&s, &ref, spec) < 0 &&
	   strstr(test_captured(), "tampered or hand-edited frozen version"), "%s", what);
	set_release(&s);
	set_ref_release(&ref);
	strbuf_release(&sb);
	free(edited);
	free(spec);
	free(file);
}

static void test_version_order_and_reuse(void)
{
	struct set_ref ref = SET_REF_INIT;
	struct set s = SET_INIT, in = SET_INIT, wc = SET_INIT;
	struct set_versions v = SET_VERSIONS_INIT;
	char tmpl[] = "/tmp/t-set-XXXXXX", *tag = NULL;
	const char *dir = mkdtemp(tmpl);
	const char *same_second = "2026-11-01T10:00:00Z";

	if (!dir || chdir(dir) < 0) {
		ok(0, "cannot make a scratch directory");
		return;
	}
	test_capture_errors();
	mkdir_p("sets/demo/versions");
	write_text("sets/demo/set.yaml", "name: demo\nquestions:\n- {id: q-0005, text: new, relevant: [c]}\n");
	freeze(rich, "v9", NULL, same_second);
	freeze(rich, "v10", "v9", same_second);
	ok(set_ref_resolve(&ref, "demo", true) == 0 && set_versions_list(&ref, &v) == 0 &&
	   v.nr == 2 && !strcmp(v.items[0].tag, "v9") && !strcmp(v.items[1].tag, "v10"),
	   "two tags of one second are ordered by their parent, not by name (v9 before v10)");
	set_versions_release(&v);
	ok(set_latest_load(&ref, &s, &tag) == 1 && tag && !strcmp(tag, "v10") && s.version &&
	   !strcmp(s.version, "v10"), "so the latest version is v10");
	set_release(&s);
	free(tag);
	tag = NULL;

	/* a child tagged "before" its parent (clock skew): the chain still wins */
	freeze(rich, "a-late", "v10", "2026-10-01T00:00:00Z");
	ok(set_versions_list(&ref, &v) == 0 && v.nr == 3 && !strcmp(v.items[2].tag, "a-late"),
	   "a version always comes after its parent, whatever its tagged_at");
	set_versions_release(&v);
	/* an unrelated root tagged later comes after the chain's earlier members */
	freeze(rich, "b-root", NULL, "2026-11-02T00:00:00Z");
	ok(set_versions_list(&ref, &v) == 0 && v.nr == 4 && !strcmp(v.items[0].tag, "v9") &&
	   !strcmp(v.items[3].tag, "b-root"),
	   "unrelated versions are ordered by tagged_at");
	set_versions_release(&v);

	/* the header is covered: a hand-edited note of a frozen file is tampering */
	ok(set_open(&s, &ref, "demo@v10") == 0, "an untouched frozen version opens");
	set_release(&s);
	hand_edit("v10", "parent: v9\n", "parent: v9\nnote: edited later\n",
		  "adding a note to a frozen file is refused as tampering");
	hand_edit("v9", "description: questions about the docs", "description: better words",
		  "editing a frozen file's description is refused as tampering");

	/* ids used before: by a frozen version, or below the recorded floor */
	load_str(&wc, "questions:\n- {id: q-0005, text: new, relevant: [c]}\n");
	load_str(&in, "questions:\n"
		      "- {id: q-0002, text: another question, relevant: [c]}\n"
		      "- {id: q-0001, text: How do I rotate an API key?, relevant: [c]}\n"
		      "- {id: faq-1, text: free-form id, relevant: [c]}\n"
		      "- {id: q-0005, text: in the working copy, relevant: [c]}\n");
	is_int(set_refuse_reused_ids(&ref, &wc, &in), 1,
	       "one id is refused: q-0002 held other text in a frozen version");
	ok(strstr(test_captured(), "t.yaml:2:3: id 'q-0002' was used before (in versions/") != NULL,
	   "the refusal names the place and the version file");
	set_release(&in);
	set_id_floor_write(&ref, 40);
	load_str(&in, "questions:\n- {id: q-0040, text: t, relevant: [c]}\n"
		      "- {id: q-0041, text: t, relevant: [c]}\n");
	is_int(set_refuse_reused_ids(&ref, &wc, &in), 1,
	       "an id at the floor recorded in .evalset/ids is refused, one above it is not");
	ok(strstr(test_captured(), "id 'q-0040' may have been used before") != NULL,
	   "and the message says why");
	set_release(&in);
	set_release(&wc);

	set_ref_release(&ref);
	set_error_routine(NULL);
	set_warning_routine(NULL);
	if (chdir("/") == 0)
		test_remove_tree(dir);
}

/*
 * Opening a frozen version reads its ancestors alone, each by its header
 * from the version cache (format 2: a header line, then the ids); an entry
 * of another format is parsed again, never trusted.
 */
static void test_history_chain_and_cache(void)
{
	struct set_ref ref = SET_REF_INIT;
	struct set s = SET_INIT;
	struct set_versions v = SET_VERSIONS_INIT;
	struct version_summary vs = VERSION_SUMMARY_INIT;
	struct strbuf sb = STRBUF_INIT;
	char tmpl[] = "/tmp/t-set-chain-XXXXXX", key[72], *entry;
	const char *dir = mkdtemp(tmpl);
	const char *yaml = "questions:\n- {id: q-0001, text: a, relevant: [c]}\n"
			   "- {id: q-0002, text: b, relevant: [d]}\n";
	char *old_cache = getenv("EVALSET_CACHE_DIR") ? xstrdup(getenv("EVALSET_CACHE_DIR")) : NULL;

	if (!dir || chdir(dir) < 0) {
		ok(0, "cannot make a scratch directory");
		free(old_cache);
		return;
	}
	setenv("EVALSET_CACHE_DIR", "cache", 1);
	test_capture_errors();
	mkdir_p("sets/demo/versions");
	freeze(yaml, "v1", NULL, "2026-11-01T00:00:00Z");
	freeze(yaml, "v2", "v1", "2026-11-02T00:00:00Z");
	freeze(yaml, "v3", "v2", "2026-11-03T00:00:00Z");
	write_text("sets/demo/versions/v4.yaml", "questions: [unclosed\n");

	ok(set_open(&s, &ref, "demo@v3") == 0, "a version opens while a later file is broken");
	set_release(&s);
	set_ref_release(&ref);
	ok(set_ref_resolve(&ref, "demo", false) == 0 && set_versions_list(&ref, &v) < 0,
	   "listing every version still reads (and refuses) the broken one");
	set_versions_release(&v);
	test_captured();

	vs.version = xstrdup("v3");
	vs.digest = xstrdup("sha256:x");
	vs.digest_ok = true;
	vs.parent = xstrdup("v2");
	ok(set_versions_chain(&ref, "v3", &vs, &v) == 0 && v.nr == 3 &&
	   !strcmp(v.items[0].tag, "v3") && !strcmp(v.items[1].tag, "v2") &&
	   !strcmp(v.items[2].tag, "v1") && !v.items[1].problem && !v.items[2].problem,
	   "the chain holds the version and its ancestors, parent by parent");
	ok(v.nr == 3 && v.items[1].summary.nr_ids == 0 && v.items[1].summary.from_cache &&
	   v.items[1].summary.nr_questions == 2, "an ancestor comes from the cache as its header alone");
	ok(!vs.version, "the caller's header is moved into the chain");
	set_versions_release(&v);
	ok(version_summary_load("sets/demo/versions/v1.yaml", &vs) == 0 && vs.from_cache &&
	   vs.nr_ids == 2 && !strcmp(vs.ids[1], "q-0002"), "the same entry gives the ids in full");
	version_summary_release(&vs);

	/* a parent named outside versions/, and a loop */
	vs.version = xstrdup("x");
	vs.parent = xstrdup("../set");
	ok(set_versions_chain(&ref, "x", &vs, &v) == 0 && v.nr == 1,
	   "a parent name that is a path is not followed");
	set_versions_release(&v);
	vs.version = xstrdup("v1");
	vs.parent = xstrdup("v1");
	ok(set_versions_chain(&ref, "v1", &vs, &v) == 0 && v.nr == 1 &&
	   set_chain_verify(&ref, &v, 0, NULL) > 0 && strstr(test_captured(), "loops at 'v1'"),
	   "a version that is its own parent is a loop");
	set_versions_release(&v);

	/* an entry of the old one-line format, vouching for a wrong digest */
	read_file("sets/demo/versions/v1.yaml", &sb, 0);
	sha256_hex(sb.buf, sb.len, key);
	entry = xstrfmt("cache/versions/%s.json", key + 7);
	write_text(entry, "{\"format\":1,\"version\":\"v1\",\"digest\":\"sha256:forged\","
			  "\"questions\":2,\"digest_ok\":true,\"ids\":[],\"texts\":[]}");
	ok(version_summary_load_head("sets/demo/versions/v1.yaml", &vs) == 0 && !vs.from_cache &&
	   vs.digest && strcmp(vs.digest, "sha256:forged"), "an entry of another format is not trusted");
	version_summary_release(&vs);
	strbuf_reset(&sb);
	read_file(entry, &sb, 0);
	ok(starts_with(sb.buf, "{\"format\":2,") && strchr(sb.buf, '\n') &&
	   strstr(strchr(sb.buf, '\n'), "\"ids\":[\"q-0001\",\"q-0002\"]"),
	   "and it is replaced by a header line and an ids line");

	free(entry);
	strbuf_release(&sb);
	set_ref_release(&ref);
	if (old_cache)
		setenv("EVALSET_CACHE_DIR", old_cache, 1);
	else
		unsetenv("EVALSET_CACHE_DIR");
	free(old_cache);
	set_error_routine(NULL);
	set_warning_routine(NULL);
	if (chdir("/") == 0)
		test_remove_tree(dir);
}

int main(void)
{
	test_ids();
	test_refs_and_versions();
	test_version_order_and_reuse();
	test_history_chain_and_cache();
	return test_done();
}
