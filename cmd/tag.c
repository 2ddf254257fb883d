/*
 * tag: freeze the working copy of a set as sets/NAME/versions/TAG.yaml
 * (docs/versions.md).
 *
 * Invariants: a frozen file is created once and never rewritten
 * (write_file_new refuses an existing file); it records version, digest,
 * parent (the latest tag before it), tagged_at, note and, when the set
 * names a corpus, the corpus fingerprint and chunk count (a corpus that
 * cannot be found is a warning and no fingerprint is recorded, as check
 * treats it). Only a working
 * copy that passes check (errors; warnings are shown) is tagged, questions
 * remap tagged stale or unmapped included unless --allow-stale, and never
 * one identical to the latest tag (same questions, name, description, corpus
 * path and fingerprint: see same_as_version). The set lock (sets/NAME/.evalset/lock) is
 * held while the versions folder is read for the last time and the file is
 * written, so two tag commands at once cannot both succeed or pick the same
 * parent. Every refusal happens before anything is written, except the
 * creation of the .evalset folder for the lock.
 */
#include "builtin.h"
#include "set/corpus.h"
#include "set/corpuscheck.h"
#include "set/corpusstore.h"
#include "base/fsutil.h"
#include "set/set.h"
#include "set/setdiff.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "base/utf8.h"
#include "compare/gatepower.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_MAX_LEN 64

static const char *const tag_usage[] = {
	"evalset tag <set> <tag> [-m <note>] [--allow-stale]",
	NULL
};

/* Return NULL when 'tag' can name a version, else why not. */
static const char *tag_problem(const char *tag)
{
	if (!*tag)
		return "is empty";
	if (strlen(tag) > TAG_MAX_LEN)
		return "is longer than 64 characters";
	if (tag[0] == '.' || tag[0] == '-')
		return "starts with '.' or '-'";
	for (const char *p = tag; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-'))
			return "may only hold letters, digits, '.', '_' and '-'";
	return NULL;
}

/*
 * Return true when tagging the working copy 's' would freeze nothing new
 * after the version in 'file': the same questions (content digest), name,
 * description and corpus path, and the same corpus fingerprint 'fp' (NULL:
 * none will be recorded; not compared). Tag metadata (note, parent, time)
 * does not count: it alone never makes a new version (docs/versions.md).
 */
static bool same_as_version(const struct set *s, const char *file, const char *fp)
{
	struct set last = SET_INIT;
	char a[72], b[72];
	bool same = false;

	if (set_load(&last, file) < 0)
		die(EXIT_BAD_INPUT, "cannot read frozen version '%s'", file);
	set_content_digest(s, a);
	set_content_digest(&last, b);
	if (!strcmp(a, b) && !set_header_changes(&last, s))
		same = !fp || (last.corpus.fingerprint && !strcmp(fp, last.corpus.fingerprint));
	set_release(&last);
	return same;
}

/*
 * Refuse (die 2) when 'tag' exists among the versions of 'ref' or the
 * working copy 's' is the same as the latest version (same_as_version, with
 * the corpus fingerprint 'fp' tag would record, or NULL). Return the latest
 * tag (caller frees), or NULL when the set has no versions yet.
 */
static char *check_versions(const struct set_ref *ref, const char *tag, const struct set *s,
			    const char *fp)
{
	struct set_versions v = SET_VERSIONS_INIT;
	char *file = xstrfmt("%s/versions/%s.yaml", ref->dir, tag);
	char *parent = NULL;

	if (set_versions_list(ref, &v) < 0)
		die(EXIT_BAD_INPUT, "cannot read the versions of set '%s'", ref->name);
	for (size_t i = 0; i < v.nr; i++)
		if (!strcmp(v.items[i].tag, tag))
			die(EXIT_BAD_INPUT, "tag '%s' already exists in set '%s' (tagged %s); "
			    "frozen versions are never rewritten: choose another tag",
			    tag, ref->name, v.items[i].summary.tagged_at ? v.items[i].summary.tagged_at : "at an unknown time");
	if (path_exists(file))
		die(EXIT_BAD_INPUT, "'%s' already exists; frozen versions are never rewritten", file);
	if (v.nr) {
		const struct set_version *last = &v.items[v.nr - 1];

		if (same_as_version(s, last->file, fp))
			die(EXIT_BAD_INPUT, "the working copy of set '%s' is identical to tag '%s' "
			    "(%.19s): nothing to tag", ref->name, last->tag,
			    last->summary.digest ? last->summary.digest : "no digest");
		parent = xstrdup(last->tag);
	}
	set_versions_release(&v);
	free(file);
	return parent;
}

/*
 * Verify the history of 'parent' back to the first tag (die 2 when it does
 * not verify: a new version is never built on a tampered, swapped or
 * truncated history) and return its digest, which the new version records
 * (caller frees).
 */
static char *verified_parent_digest(const struct set_ref *ref, const char *parent)
{
	struct set_versions v = SET_VERSIONS_INIT;
	char *digest;
	long at;

	if (set_versions_list(ref, &v) < 0 || (at = set_versions_find(&v, parent)) < 0)
		die(EXIT_BAD_INPUT, "cannot read the versions of set '%s'", ref->name);
	if (set_chain_verify(ref, &v, (size_t)at, NULL))
		die(EXIT_BAD_INPUT, "refusing to tag set '%s': the history of '%s' does not verify",
		    ref->name, parent);
	digest = xstrdup(v.items[at].summary.digest);
	set_versions_release(&v);
	return digest;
}

/*
 * Warn when 'corpus' (fingerprint 'fp') is not the corpus version 'parent'
 * of 'ref' was tagged against, unless the working copy 's' records 'fp'
 * itself (remap wrote it: the labels were carried to it), which a note says.
 */
static void warn_rechunked(const struct set_ref *ref, const char *parent, const struct set *s,
			   const struct corpus *corpus, const char *fp)
{
	char *file = xstrfmt("%s/versions/%s.yaml", ref->dir, parent);
	struct set last = SET_INIT;

	if (set_load(&last, file) == 0) {
		if (s->corpus.fingerprint && !strcmp(s->corpus.fingerprint, fp) &&
		    last.corpus.fingerprint && strcmp(last.corpus.fingerprint, fp))
			note("the corpus changed since %s (%.19s, now %.19s): the working copy records the "
			     "new one, its labels carried there", parent, last.corpus.fingerprint, fp);
		else
			set_corpus_verify(&last, corpus);
		set_release(&last);
	}
	free(file);
}

/* Report the findings of check on 's' (with 'corpus', may be NULL); die 2 on
 * errors. Questions tagged stale are errors too, warnings with 'allow_stale'. */
static void check_or_die(const struct set *s, const struct corpus *corpus, const struct set_ref *ref,
			 bool allow_stale)
{
	struct findings f = FINDINGS_INIT;
	size_t errors, answerable = 0, stale;
	char *small;

	set_check(s, corpus, &f);
	stale = set_check_stale(s, allow_stale ? FINDING_WARNING : FINDING_ERROR, &f);
	if (stale && allow_stale)
		findings_add(&f, FINDING_WARNING, 0, 0, "--allow-stale: freezing %zu stale or unmapped "
			     "question%s as %s stands", stale, stale == 1 ? "" : "s",
			     stale == 1 ? "it" : "they");
	for (size_t i = 0; i < s->nr; i++)
		answerable += s->q[i].answerable;
	if ((small = gate_size_warning(answerable, 5))) {
		findings_add(&f, FINDING_WARNING, 0, 0, "%s", small);
		free(small);
	}
	for (size_t i = 0; i < f.nr; i++)
		if (f.items[i].level == FINDING_WARNING)
			warning_at(ref->file, f.items[i].line, f.items[i].col, "%s", f.items[i].message);
	errors = findings_report_errors(&f, ref->file);
	findings_release(&f);
	if (errors)
		die(EXIT_BAD_INPUT, "refusing to tag set '%s': check found %zu error%s%s",
		    ref->name, errors, errors == 1 ? "" : "s",
		    stale && !allow_stale ? " (questions tagged stale or unmapped need a person; "
					   "--allow-stale freezes them as they stand)" : "");
}

int cmd_tag(int argc, const char **argv)
{
	const char *note = NULL, *tag, *problem;
	const char *lock_wait = NULL;
	int allow_stale = 0;
	struct option opts[] = {
		OPT_STRING('m', "message", &note, "note", "a note saying what this version changes"),
		OPT_BOOL(0, "allow-stale", &allow_stale,
			 "freeze questions remap tagged stale or unmapped as they stand"),
		OPT_LOCK_WAIT(&lock_wait),
		OPT_END(),
	};
	struct set_ref ref = SET_REF_INIT;
	struct set s = SET_INIT;
	struct corpus corpus = CORPUS_INIT;
	struct lock_file lk = LOCK_FILE_INIT;
	struct strbuf yaml = STRBUF_INIT;
	struct set verify = SET_INIT;
	char digest[72], fp[72], now[21], check_digest[72];
	char *parent = NULL, *vdir = NULL, *file = NULL;
	int has_corpus;

	argc = parse_options(argc, argv, opts, tag_usage);
	apply_lock_wait(lock_wait, tag_usage, opts);
	if (argc != 2)
		usage_with_options(tag_usage, opts);
	tag = argv[1];
	if (strchr(argv[0], '@'))
		die(EXIT_BAD_INPUT, "'%s' names a frozen version; tag takes the working copy of a set",
		    argv[0]);
	if ((problem = tag_problem(tag)))
		die(EXIT_BAD_INPUT, "bad tag '%s': a tag %s", tag, problem);
	if (note && !utf8_valid(note, strlen(note), NULL))
		die(EXIT_BAD_INPUT, "the note is not valid UTF-8");

	if (set_ref_resolve(&ref, argv[0], true) < 0)
		die(EXIT_BAD_INPUT, "cannot tag set '%s'", argv[0]);
	if (ref.tag)
		die(EXIT_BAD_INPUT, "'%s' is frozen version '%s'; tag takes the working copy of a set",
		    argv[0], ref.tag);
	if (set_open_ref(&s, &ref, false) < 0)
		die(EXIT_BAD_INPUT, "cannot tag set '%s'", argv[0]);
	has_corpus = set_corpus_load(&s, ref.dir, &corpus);
	if (has_corpus < 0)
		die(EXIT_BAD_INPUT, "cannot tag set '%s': its corpus cannot be read", ref.name);
	check_or_die(&s, has_corpus ? &corpus : NULL, &ref, allow_stale);
	if (has_corpus)
		corpus_fingerprint(&corpus, fp);
	/* refuse a broken history before anything, the lock file included, is written */
	if ((parent = check_versions(&ref, tag, &s, has_corpus ? fp : NULL)))
		free(verified_parent_digest(&ref, parent));
	free(parent);

	/* Under the lock, read the versions again: another tag may have landed. */
	if (set_lock_take(&lk, &ref) < 0)
		die(EXIT_BAD_INPUT, "cannot tag set '%s' now", ref.name);
	parent = check_versions(&ref, tag, &s, has_corpus ? fp : NULL);

	free(s.version);
	s.version = xstrdup(tag);
	free(s.parent);
	s.parent = xstrdup(parent);
	free(s.parent_digest);
	s.parent_digest = parent ? verified_parent_digest(&ref, parent) : NULL;
	free(s.tagged_at);
	utc_now_iso8601(now);
	s.tagged_at = xstrdup(now);
	free(s.note);
	s.note = xstrdup(note);
	if (has_corpus) {
		if (parent)
			warn_rechunked(&ref, parent, &s, &corpus, fp);
		free(s.corpus.fingerprint);
		s.corpus.fingerprint = xstrdup(fp);
		s.corpus.chunks = (long)corpus.nr;
	}
	/* the digest covers the header just filled in (not version, digest, tagged_at) */
	set_digest(&s, digest);
	free(s.digest);
	s.digest = xstrdup(digest);

	/* Prove the file will load back to the same digest before writing it. */
	if (set_to_yaml(&s, &yaml) < 0)
		die(EXIT_BAD_INPUT, "cannot serialise set '%s'", ref.name);
	file = xstrfmt("%s/versions/%s.yaml", ref.dir, tag);
	if (set_load_buf(&verify, yaml.buf, yaml.len, file) < 0)
		die(EXIT_BAD_INPUT, "the frozen form of set '%s' does not load back", ref.name);
	set_digest(&verify, check_digest);
	set_release(&verify);
	if (strcmp(check_digest, digest))
		die(EXIT_BAD_INPUT, "the frozen form of set '%s' does not keep its digest "
		    "(%.19s, not %.19s)", ref.name, check_digest, digest);

	vdir = path_join(ref.dir, "versions");
	if (mkdir_p(vdir) < 0 || write_file_new(file, yaml.buf, yaml.len) < 0)
		die(EXIT_BAD_INPUT, "cannot write version '%s' of set '%s'", tag, ref.name);
	if (has_corpus)  /* the corpus this version's labels refer to, kept (corpusstore.h) */
		corpus_store_put(ref.dir, &corpus, fp);
	lock_release(&lk);

	printf("tagged %s@%s: %zu questions, %.19s, parent %s\n", ref.name, tag, s.nr, digest,
	       parent ? parent : "none");

	free(parent);
	free(vdir);
	free(file);
	strbuf_release(&yaml);
	corpus_release(&corpus);
	set_release(&s);
	set_ref_release(&ref);
	return EXIT_OK;
}
