/*
 * t-review: what a reviewer relies on in the review page's writes, without
 * HTTP: a stale page never overwrites the file, frozen versions are
 * refused, every change carries reviewed_by and reviewed_at, a rejected
 * question moves to rejected.yaml and its id is never reused, a label taken
 * away takes its evidence with it, a change that breaks the rules writes
 * nothing, and a person's pool grade keeps the judge's beside it.
 */
#include "test-lib.h"
#include "base/fsutil.h"
#include "base/jsontree.h"
#include "base/util.h"
#include "pool/pool.h"
#include "review/review.h"
#include "set/corpus.h"
#include "set/corpusstore.h"
#include "set/rejected.h"
#include "set/set.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/t-review-XXXXXX";

static char *write_tmp(const char *name, const char *content)
{
	return test_write_file(tmpdir, name, content);
}

static const char set_yaml[] =
	"evalset: 1\n"
	"name: demo\n"
	"corpus:\n"
	"  path: corpus.jsonl\n"
	"questions:\n"
	"- id: q-0001\n"
	"  text: How do I rotate a key?\n"
	"  relevant: {c-1: 1, c-2: 2}\n"
	"  evidence:\n"
	"  - {chunk: c-2, quote: Keys expire}\n"
	"  provenance: {kind: factoid}\n"
	"- id: q-0002\n"
	"  text: How big can an export be?\n"
	"  relevant: [c-3]\n";

static const char corpus_jsonl[] =
	"{\"id\": \"c-1\", \"text\": \"Rotate keys in Settings.\"}\n"
	"{\"id\": \"c-2\", \"text\": \"Keys expire after 90 days.\"}\n"
	"{\"id\": \"c-3\", \"text\": \"Exports hold up to 1M rows.\"}\n";

static const char pool_yaml[] =
	"evalset_pool: 1\n"
	"set:\n"
	"  name: demo\n"
	"  path: demo\n"
	"  version: null\n"
	"  digest: sha256:00\n"
	"questions:\n"
	"- id: q-0001\n"
	"  text: How do I rotate a key?\n"
	"  pairs:\n"
	"  - chunk: c-3\n"
	"    grade: 2\n"
	"    judge: llm:fake\n"
	"    reason: close enough\n"
	"  - chunk: c-2\n"
	"    grade: null\n";

/* Return the digest review_state reports; caller frees. */
static char *state_digest(struct review *r)
{
	struct strbuf sb = STRBUF_INIT;
	cJSON *j;
	char *d = NULL;

	if (review_state(r, &sb) == 0 && (j = cJSON_Parse(sb.buf))) {
		d = xstrdup(cJSON_GetObjectItem(j, "digest")->valuestring);
		cJSON_Delete(j);
	}
	strbuf_release(&sb);
	return d;
}

/* Apply the request 'fmt' (its "%s" the digest) and return the HTTP status. */
static int apply(struct review *r, const char *digest, const char *fmt, struct strbuf *reply)
{
	struct strbuf body = STRBUF_INIT;
	int status;

	strbuf_addf(&body, fmt, digest);
	strbuf_reset(reply);
	status = review_apply(r, body.buf, body.len, reply);
	strbuf_release(&body);
	return status;
}

static const char *prov_str(const struct question *q, const char *key)
{
	return q ? json_get_str(q->provenance, key) : NULL;
}

static void test_set(void)
{
	char *dir = xstrfmt("%s/demo", tmpdir), *d, *file;
	struct review r = REVIEW_INIT, frozen = REVIEW_INIT;
	struct strbuf reply = STRBUF_INIT, before = STRBUF_INIT, after = STRBUF_INIT;
	struct set s = SET_INIT, rej = SET_INIT;
	struct question *q;

	mkdir_p(dir);
	free(write_tmp("demo/set.yaml", set_yaml));
	free(write_tmp("demo/corpus.jsonl", corpus_jsonl));
	file = xstrfmt("%s/set.yaml", dir);
	ok(review_open(&r, dir, "ana") == 0, "a set's working copy opens for review");
	ok(r.have_bm25, "with its corpus indexed for the BM25 top 5");

	d = state_digest(&r);
	is_int(apply(&r, d, "{\"digest\":\"%s\",\"op\":\"accept\",\"id\":\"q-0001\"}", &reply), 200, "accept: 200");
	set_load(&s, file);
	q = set_find(&s, "q-0001");
	is_str(prov_str(q, "review"), "accepted", "accept records review: accepted");
	is_str(prov_str(q, "reviewed_by"), "ana", "and reviewed_by");
	ok(prov_str(q, "reviewed_at") && strlen(prov_str(q, "reviewed_at")) == 20, "and reviewed_at");
	set_release(&s);

	/* the page still holds the old digest: stale */
	read_file(file, &before, 0);
	is_int(apply(&r, d, "{\"digest\":\"%s\",\"op\":\"edit\",\"id\":\"q-0001\",\"text\":\"x\"}", &reply), 409,
	       "a write quoting the digest of an older file: 409");
	ok(strstr(reply.buf, "\"stale\":true") != NULL, "the reply says stale");
	read_file(file, &after, 0);
	is_str(after.buf, before.buf, "the stale write left the file as it was");
	free(d);

	/* taking the label of c-2 away takes its evidence with it */
	d = state_digest(&r);
	is_int(apply(&r, d, "{\"digest\":\"%s\",\"op\":\"label\",\"id\":\"q-0001\",\"chunk\":\"c-2\",\"grade\":0}", &reply),
	       200, "a label to irrelevant on a chunk with evidence: 200");
	set_load(&s, file);
	q = set_find(&s, "q-0001");
	is_int(question_grade(q, "c-2"), 0, "the chunk is judged irrelevant");
	is_int(q->nr_evidence, 0, "its evidence is gone with the label");
	is_str(prov_str(q, "review"), "accepted", "a change after acceptance keeps it accepted");
	set_release(&s);
	free(d);

	/* breaking the rules writes nothing */
	d = state_digest(&r);
	strbuf_reset(&before);
	read_file(file, &before, 0);
	is_int(apply(&r, d, "{\"digest\":\"%s\",\"op\":\"label\",\"id\":\"q-0002\",\"chunk\":\"c-3\",\"grade\":-1}", &reply),
	       422, "removing the only relevant label of an answerable question: 422");
	ok(strstr(reply.buf, "nothing written") != NULL, "the reply says nothing was written: %s", reply.buf);
	strbuf_reset(&after);
	read_file(file, &after, 0);
	is_str(after.buf, before.buf, "the refused change left the file as it was");

	/* reject: out of the set, into rejected.yaml, the id never reused */
	is_int(apply(&r, d, "{\"digest\":\"%s\",\"op\":\"reject\",\"id\":\"q-0002\",\"reason\":\"vague\"}", &reply), 200,
	       "reject: 200");
	set_load(&s, file);
	ok(!set_find(&s, "q-0002"), "the rejected question left the set");
	ok(rejected_load(&r.ref, &rej) == 0 && set_find(&rej, "q-0002"), "rejected.yaml holds it");
	is_str(prov_str(set_find(&rej, "q-0002"), "reason"), "vague", "with its reason");
	{
		char *next = set_next_id(&s, set_id_floor(&r.ref));
		is_str(next, "q-0003", "the next id skips the rejected one");
		free(next);
	}
	set_release(&s);
	set_release(&rej);
	free(d);

	/* frozen versions are refused */
	{
		char *v = xstrfmt("%s@v1", dir);
		char *vdir = xstrfmt("%s/versions", dir);
		mkdir_p(vdir);
		free(write_tmp("demo/versions/v1.yaml", "evalset: 1\nname: demo\nversion: v1\nquestions: []\n"));
		test_capture_errors();
		ok(review_open(&frozen, v, "ana") < 0, "a frozen version is refused");
		ok(strstr(test_captured(), "cannot review frozen version") != NULL, "saying why");
		free(v);
		free(vdir);
	}
	review_release(&frozen);
	review_release(&r);
	strbuf_release(&reply);
	strbuf_release(&before);
	strbuf_release(&after);
	free(file);
	free(dir);
}

/* Return the grade of pair ('q-0001', 'chunk') in the pool file 'file', or -9. */
static int grade_on_disk(const char *file, const char *chunk)
{
	struct pool p = POOL_INIT;
	int g = -9;

	if (pool_load(&p, file) == 0 && p.nr)
		for (size_t i = 0; i < p.q[0].nr; i++)
			if (!strcmp(p.q[0].pairs[i].chunk, chunk))
				g = p.q[0].pairs[i].grade;
	pool_release(&p);
	return g;
}

/* Replace the first 'from' in 'file' with 'to' (as long), in place, and put
 * its modification time back: an editor's change that keeps size and time. */
static void edit_in_place(const char *file, const char *from, const char *to)
{
	struct strbuf sb = STRBUF_INIT;
	struct stat st;
	char *at;
	FILE *fp;

	if (stat(file, &st) < 0 || read_file(file, &sb, 0) < 0 || !(at = strstr(sb.buf, from)) ||
	    strlen(from) != strlen(to) || !(fp = fopen(file, "r+"))) {
		test_diag("cannot edit '%s'", file);
		strbuf_release(&sb);
		return;
	}
	fseek(fp, at - sb.buf, SEEK_SET);
	fputs(to, fp);
	fclose(fp);
	{
		struct timespec ts[2] = { st.st_atim, st.st_mtim };
		utimensat(AT_FDCWD, file, ts, 0);
	}
	strbuf_release(&sb);
}

/*
 * The pool the server keeps in memory after its own write is never used
 * once the file changed on disk: a page that did not see the change is
 * refused (nothing written), and the page that reloads writes over the
 * file as changed, whose change is kept. Tried with a CLI's save (a new
 * file) and with an edit in place that keeps the size and the time.
 */
static void test_pool_outside(struct review *r, const char *file)
{
	struct strbuf reply = STRBUF_INIT, before = STRBUF_INIT, after = STRBUF_INIT;
	struct pool p = POOL_INIT;
	char *d = state_digest(r), *old;

	is_int(apply(r, d, "{\"digest\":\"%s\",\"op\":\"grade\",\"id\":\"q-0001\",\"chunk\":\"c-3\",\"grade\":1}",
		     &reply), 200, "a grade: the server now holds the pool it wrote");
	{
		cJSON *j = cJSON_Parse(reply.buf);
		old = xstrdup(json_get_str(j, "digest") ? json_get_str(j, "digest") : "");
		cJSON_Delete(j);
	}
	free(d);
	/* another program (judge, label, an editor through the pool module) grades c-2 */
	if (pool_load(&p, file) == 0 && p.nr && p.q[0].nr > 1) {
		p.q[0].pairs[1].grade = 3;
		pool_save(&p, file);
	}
	pool_release(&p);
	read_file(file, &before, 0);
	is_int(apply(r, old, "{\"digest\":\"%s\",\"op\":\"grade\",\"id\":\"q-0001\",\"chunk\":\"c-3\",\"grade\":0}",
		     &reply), 409, "after an outside save, the page's old digest is refused");
	ok(strstr(reply.buf, "\"stale\":true") != NULL, "as stale");
	read_file(file, &after, 0);
	ok(before.len == after.len && !memcmp(before.buf, after.buf, before.len), "and nothing is written");
	d = state_digest(r);
	is_int(apply(r, d, "{\"digest\":\"%s\",\"op\":\"grade\",\"id\":\"q-0001\",\"chunk\":\"c-3\",\"grade\":0}",
		     &reply), 200, "the reloaded page writes");
	free(d);
	is_int(grade_on_disk(file, "c-3"), 0, "its grade is on disk");
	is_int(grade_on_disk(file, "c-2"), 3, "and the outside grade is kept (the pool was read again)");

	/* an edit in place, same size and time: only the bytes tell */
	d = state_digest(r);
	edit_in_place(file, "grade: 3", "grade: 1");
	is_int(grade_on_disk(file, "c-2"), 1, "an edit in place, keeping size and time");
	is_int(apply(r, d, "{\"digest\":\"%s\",\"op\":\"grade\",\"id\":\"q-0001\",\"chunk\":\"c-3\",\"grade\":2}",
		     &reply), 409, "is seen: the page's digest is refused");
	free(d);
	d = state_digest(r);
	is_int(apply(r, d, "{\"digest\":\"%s\",\"op\":\"grade\",\"id\":\"q-0001\",\"chunk\":\"c-3\",\"grade\":2}",
		     &reply), 200, "the reloaded page writes");
	is_int(grade_on_disk(file, "c-2"), 1, "and the edit is kept");
	is_int(grade_on_disk(file, "c-3"), 2, "beside the new grade");
	/* undo through the held pool: takes back only the page's grade */
	free(d);
	d = state_digest(r);
	is_int(apply(r, d, "{\"digest\":\"%s\",\"op\":\"undo\"}", &reply), 200, "undo");
	is_int(grade_on_disk(file, "c-3"), 0, "puts the page's previous grade back");
	is_int(grade_on_disk(file, "c-2"), 1, "and keeps the edit");
	free(d);
	free(old);
	strbuf_release(&reply);
	strbuf_release(&before);
	strbuf_release(&after);
}

static void test_pool(void)
{
	char *file = write_tmp("pool.yaml", pool_yaml), *d;
	struct review r = REVIEW_INIT;
	struct strbuf reply = STRBUF_INIT, state = STRBUF_INIT;
	struct pool p = POOL_INIT;
	cJSON *j;

	ok(review_open(&r, file, "bo") == 0 && r.kind == REVIEW_POOL, "a pool worksheet opens as a pool");
	d = state_digest(&r);
	is_int(apply(&r, d, "{\"digest\":\"%s\",\"op\":\"grade\",\"id\":\"q-0001\",\"chunk\":\"c-3\",\"grade\":3}", &reply),
	       200, "a person grades a pair the judge graded: 200");
	free(d);
	d = state_digest(&r);
	is_int(apply(&r, d, "{\"digest\":\"%s\",\"op\":\"grade\",\"id\":\"q-0001\",\"chunk\":\"c-2\",\"grade\":4}", &reply),
	       400, "a grade outside 0..3: 400");
	is_int(apply(&r, d, "{\"digest\":\"%s\",\"op\":\"grade\",\"id\":\"q-0001\",\"chunk\":\"c-9\",\"grade\":1}", &reply),
	       404, "an unknown pair: 404");
	free(d);
	ok(pool_load(&p, file) == 0, "the pool still loads");
	if (p.nr) {
		const struct pool_pair *pp = &p.q[0].pairs[0];
		is_int(pp->grade, 3, "the person's grade is the grade");
		is_str(pp->judge, "human", "judge: human");
		is_str(pp->reviewed_by, "bo", "reviewed_by");
		is_int(pp->llm_grade, 2, "the judge's grade is kept as llm_grade");
		is_str(pp->llm_judge, "llm:fake", "with its judge");
		is_str(pp->reason, "close enough", "and its reason");
	}
	review_state(&r, &state);
	j = cJSON_Parse(state.buf);
	{
		const cJSON *a = cJSON_GetObjectItem(j, "agreement");
		is_int(cJSON_GetObjectItem(a, "pairs")->valueint, 1, "agreement over the one pair both graded");
		is_double(cJSON_GetObjectItem(a, "exact")->valuedouble, 0.0, 1e-12, "which disagree (3 against 2)");
	}
	cJSON_Delete(j);
	pool_release(&p);
	test_pool_outside(&r, file);
	review_release(&r);
	strbuf_release(&reply);
	strbuf_release(&state);
	free(file);
}

/* Return true when 'path' exists. */
static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* What an attacker of the page, or of the files under it, tries. */
static void test_hostile(void)
{
	char *dir = xstrfmt("%s/hostile", tmpdir), *file, *corpus, *rejected, *d;
	struct review r = REVIEW_INIT;
	struct strbuf reply = STRBUF_INIT, before = STRBUF_INIT, after = STRBUF_INIT;
	struct set s = SET_INIT, rej = SET_INIT;

	mkdir_p(dir);
	file = write_tmp("hostile/set.yaml", set_yaml);
	corpus = write_tmp("hostile/corpus.jsonl", corpus_jsonl);
	rejected = xstrfmt("%s/rejected.yaml", dir);
	ok(review_open(&r, dir, "ana") == 0, "hostile: the set opens");

	/* a NUL in an edit: cJSON ends the string there; refused, not cut */
	d = state_digest(&r);
	read_file(file, &before, 0);
	is_int(apply(&r, d, "{\"digest\":\"%s\",\"op\":\"edit\",\"id\":\"q-0001\","
		     "\"text\":\"How do I rotate\\u0000 the admin key?\"}", &reply), 400,
	       "an edit holding \\u0000: 400");
	ok(strstr(reply.buf, "NUL") != NULL, "the reply names the NUL: %s", reply.buf);
	read_file(file, &after, 0);
	is_str(after.buf, before.buf, "the set is as it was (the text was not cut at the NUL)");
	is_int(apply(&r, d, "{\"digest\":\"%s\",\"op\":\"edit\",\"id\":\"q-0001\","
		     "\"text\":\"A backslash \\\\u0000 is text\"}", &reply), 200,
	       "an escaped backslash before u0000 is text, not a NUL: 200");
	free(d);

	/* a reject the rules refuse (a rule broken elsewhere in the set) writes neither file */
	strbuf_reset(&before);
	strbuf_addstr(&before, set_yaml);
	strbuf_addstr(&before, "- id: q-0003\n  text: Which plan includes SSO?\n");
	free(write_tmp("hostile/set.yaml", before.buf));
	d = state_digest(&r);
	is_int(apply(&r, d, "{\"digest\":\"%s\",\"op\":\"reject\",\"id\":\"q-0002\",\"reason\":\"vague\"}", &reply),
	       422, "a reject while another question breaks the rules: 422");
	is_int(apply(&r, d, "{\"digest\":\"%s\",\"op\":\"reject\",\"id\":\"q-0002\",\"reason\":\"vague\"}", &reply),
	       422, "and again on a retry");
	ok(!exists(rejected), "rejected.yaml was not written, on the first try or the retry");
	strbuf_reset(&after);
	read_file(file, &after, 0);
	is_str(after.buf, before.buf, "the set is as it was");
	free(d);

	/* a rejection a crash left in both places is listed once when done again */
	free(write_tmp("hostile/set.yaml", set_yaml));
	free(write_tmp("hostile/rejected.yaml", "evalset: 1\nname: demo\nquestions:\n"
		       "- id: q-0002\n  text: How big can an export be?\n  relevant: [c-3]\n"));
	d = state_digest(&r);
	is_int(apply(&r, d, "{\"digest\":\"%s\",\"op\":\"reject\",\"id\":\"q-0002\",\"reason\":\"vague\"}", &reply),
	       200, "the reject done again after a crash: 200");
	ok(set_load(&s, file) == 0 && !set_find(&s, "q-0002"), "the question left the set");
	ok(rejected_load(&r.ref, &rej) == 0 && rej.nr == 1, "rejected.yaml lists it once (%zu entries)", rej.nr);
	is_str(prov_str(set_find(&rej, "q-0002"), "reason"), "vague", "as the latest rejection");
	set_release(&s);
	set_release(&rej);
	free(d);

	/* the corpus re-chunked under the running page: a label on a chunk that is gone is refused */
	free(write_tmp("hostile/corpus.jsonl",
		       "{\"id\": \"c-1\", \"text\": \"Rotate keys in Settings.\"}\n"
		       "{\"id\": \"c-2\", \"text\": \"Keys expire after 90 days.\"}\n"
		       "{\"id\": \"c-4\", \"text\": \"Exports hold up to 1M rows.\"}\n"));
	d = state_digest(&r);
	test_capture_errors();
	is_int(apply(&r, d, "{\"digest\":\"%s\",\"op\":\"label\",\"id\":\"q-0001\",\"chunk\":\"c-3\",\"grade\":1}", &reply),
	       422, "a label on a chunk the new corpus no longer has: 422");
	ok(strstr(reply.buf, "unknown chunk 'c-3'") != NULL, "naming it: %s", reply.buf);
	is_int(apply(&r, d, "{\"digest\":\"%s\",\"op\":\"label\",\"id\":\"q-0001\",\"chunk\":\"c-4\",\"grade\":1}", &reply),
	       200, "a label on a chunk only the new corpus has: 200");
	free(d);
	unlink(corpus);
	d = state_digest(&r);
	ok(d == NULL, "with the corpus gone, the page's data is refused");
	free(d);
	{
		char dg[72];
		file_sha256(file, dg);
		is_int(apply(&r, dg, "{\"digest\":\"%s\",\"op\":\"label\",\"id\":\"q-0001\",\"chunk\":\"c-9\",\"grade\":1}",
			     &reply), 422, "and so is a label: 422");
		ok(strstr(reply.buf, "is gone") != NULL, "saying the corpus is gone: %s", reply.buf);
	}
	review_release(&r);

	/* a pool worksheet's set.path outside the project: refused before any folder is made */
	{
		char other[] = "/tmp/t-review-other-XXXXXX";
		char *pool, *text, *made;
		const char *why;
		struct review rp = REVIEW_INIT;

		if (mkdtemp(other)) {
			free(test_write_file(other, "set.yaml", "evalset: 1\nname: victim\nquestions: []\n"));
			text = xstrfmt("evalset_pool: 1\nset:\n  name: victim\n  path: %s\n  version: null\n"
				       "  digest: sha256:00\nquestions: []\n", other);
			pool = write_tmp("hostile-pool.yaml", text);
			made = xstrfmt("%s/.evalset", other);
			test_capture_errors();
			ok(review_open(&rp, pool, "bo") < 0, "a pool whose set.path is outside the project: refused");
			why = test_captured();
			ok(strstr(why, "is outside the project") != NULL, "saying so: %s", why);
			ok(!exists(made), "no .evalset/ made there, no lock taken");
			review_release(&rp);
			test_remove_tree(other);
			free(made);
			free(pool);
			free(text);
		}
	}
	strbuf_release(&reply);
	strbuf_release(&before);
	strbuf_release(&after);
	free(rejected);
	free(corpus);
	free(file);
	free(dir);
}

/* A question remap tagged stale comes first, with the evidence it lost (the
 * old chunk's text from the copy of the corpus it was labelled on) and the
 * passages of the corpus nearest to it. */
static void test_stale(void)
{
	char *dir = xstrfmt("%s/moved", tmpdir), *old_file, *yaml, *d;
	struct corpus old = CORPUS_INIT;
	struct review r = REVIEW_INIT;
	struct strbuf sb = STRBUF_INIT;
	const cJSON *qs, *first, *stale, *ev, *near, *it;
	cJSON *j = NULL;
	char fp[72];
	bool near_found = false;

	mkdir_p(dir);
	old_file = write_tmp("old.jsonl",
			     "{\"id\": \"k-1\", \"doc\": \"keys.md\", \"start\": 0, \"end\": 42, "
			     "\"text\": \"Keys expire after ninety days of rotation.\"}\n");
	if (corpus_load(&old, old_file) < 0)
		test_diag("old corpus does not load");
	corpus_fingerprint(&old, fp);
	corpus_store_put(dir, &old, fp);
	free(write_tmp("moved/corpus.jsonl",
		       "{\"id\": \"n-1\", \"text\": \"Exports hold up to 1M rows.\"}\n"
		       "{\"id\": \"n-2\", \"text\": \"Keys now expire after ninety days.\"}\n"));
	yaml = xstrfmt("evalset: 1\nname: moved\ncorpus:\n  path: corpus.jsonl\nquestions:\n"
		       "- id: q-0001\n  text: How big can an export be?\n  relevant: [n-1]\n"
		       "- id: q-0002\n  text: When do keys expire?\n  answerable: false\n  tags: [stale]\n"
		       "  provenance:\n    remapped_from:\n      from: moved@v1\n      corpus: \"%s\"\n"
		       "      labels: {k-1: []}\n      stale: [k-1]\n"
		       "      stale_evidence: [{chunk: k-1, doc: keys.md, start: 0, end: 42}]\n", fp);
	free(write_tmp("moved/set.yaml", yaml));
	ok(review_open(&r, dir, "ana") == 0, "a set with a stale question opens for review");
	if (review_state(&r, &sb) == 0)
		j = cJSON_Parse(sb.buf);
	qs = cJSON_GetObjectItemCaseSensitive(j, "questions");
	first = cJSON_GetArrayItem(qs, 0);
	is_str(json_get_str(first, "id"), "q-0002", "the stale question comes first");
	stale = cJSON_GetObjectItemCaseSensitive(first, "stale");
	ev = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(stale, "evidence"), 0);
	is_str(json_get_str(ev, "text"), "Keys expire after ninety days of rotation.",
	       "with the old chunk's text from the corpus it was labelled on");
	near = cJSON_GetObjectItemCaseSensitive(stale, "nearest");
	cJSON_ArrayForEach(it, near)
		near_found |= !strcmp(json_get_str(it, "chunk") ? json_get_str(it, "chunk") : "", "n-2");
	ok(near_found, "and the passage nearest to it now");
	ok(!cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(qs, 1), "stale"), "the others have no stale part");
	d = state_digest(&r);
	ok(d != NULL, "the state has a digest");
	free(d);
	cJSON_Delete(j);
	strbuf_release(&sb);
	review_release(&r);
	corpus_release(&old);
	free(old_file);
	free(yaml);
	free(dir);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_set();
	test_pool();
	test_hostile();
	test_stale();
	test_remove_tree(tmpdir);
	return test_done();
}
