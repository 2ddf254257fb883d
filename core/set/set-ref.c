/*
 * set-ref: where sets live on disk: resolving a command-line set argument
 * (with "did you mean" for a mistyped name or tag) and opening a working
 * copy or a frozen version (its digest, tag and history checked). The
 * frozen versions are listed in set-versions.c, ids in set-ids.c; this file
 * calls the versions, never the other way round.
 *
 * Layout: DIR/set.yaml (working copy), DIR/versions/TAG.yaml (frozen, never
 * rewritten), DIR/.evalset/ (lock, ids floor; git-ignored). A bare NAME is
 * DIR = sets/NAME under the current directory. Tags match [A-Za-z0-9._-]+.
 */
#include "set/set.h"
#include "set/rejected.h"
#include "base/digest.h"
#include "base/error.h"
#include "base/suggest.h"
#include "base/fsutil.h"
#include "base/util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool valid_tag(const char *t)
{
	if (!*t)
		return false;
	for (; *t; t++)
		if (!((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') ||
		      (*t >= '0' && *t <= '9') || *t == '.' || *t == '_' || *t == '-'))
			return false;
	return true;
}

static char *base_name(const char *path)
{
	size_t len = strlen(path);
	const char *slash;

	while (len > 1 && path[len - 1] == '/')
		len--;
	slash = NULL;
	for (size_t i = len; i > 0 && !slash; i--)
		if (path[i - 1] == '/')
			slash = path + i - 1;
	if (!slash)
		return xstrndup(path, len);
	return xstrndup(slash + 1, len - (size_t)(slash + 1 - path));
}

void set_ref_release(struct set_ref *ref)
{
	free(ref->dir);
	free(ref->file);
	free(ref->name);
	free(ref->tag);
	ref->dir = ref->file = ref->name = ref->tag = NULL;
}

/* Append the known tags of 'dir' to 'out' as "v1, v2", or "none". */
static void known_tags(const char *dir, struct strbuf *out)
{
	struct set_ref tmp = SET_REF_INIT;
	struct set_versions v = SET_VERSIONS_INIT;

	tmp.dir = xstrdup(dir);
	if (set_versions_list(&tmp, &v) == 0) {
		for (size_t i = 0; i < v.nr; i++)
			strbuf_addf(out, "%s%s", i ? ", " : "", v.items[i].tag);
	}
	if (!v.nr)
		strbuf_addstr(out, "none");
	set_versions_release(&v);
	set_ref_release(&tmp);
}

/*
 * Append to 'out' the sets under 'sets_dir' (folders with a set.yaml), the
 * closest to 'name' first when it is within a third of its length.
 */
static void known_sets(const char *sets_dir, const char *name, struct strbuf *out)
{
	DIR *d = opendir(sets_dir);
	struct dirent *e;
	struct strbuf all = STRBUF_INIT;
	struct suggest sg;
	size_t n = 0;

	suggest_init(&sg, name, strlen(name), suggest_max_for(strlen(name)), false);

	while (d && (e = readdir(d))) {
		char *file;

		if (e->d_name[0] == '.')
			continue;
		file = xstrfmt("%s/%s/set.yaml", sets_dir, e->d_name);
		if (path_exists(file)) {
			strbuf_addf(&all, "%s%s", n++ ? ", " : "", e->d_name);
			suggest_offer(&sg, e->d_name);
		}
		free(file);
	}
	if (d)
		closedir(d);
	suggest_did_you_mean(&sg, 1, NULL, out);
	suggest_release(&sg);
	if (n)
		strbuf_addf(out, " (sets here: %s)", all.buf);
	else
		strbuf_addf(out, " ('%s' holds no set; create one with 'evalset init %s')", sets_dir, name);
	strbuf_release(&all);
}

/*
 * Return the folder that holds the project's sets for a bare set name:
 * "sets" when the current directory has one (or has evalset.yaml), else the
 * sets/ of the nearest parent that has sets/ or evalset.yaml, as a relative
 * path ("../../sets"); the walk stops at a git repository's top and at the
 * file system's root, and then "sets" it is. Caller frees.
 */
static char *sets_folder(void)
{
	struct strbuf up = STRBUF_INIT;
	char *found = NULL;

	for (int depth = 0; depth < 64 && !found; depth++) {
		char *sets = xstrfmt("%ssets", up.buf), *conf = xstrfmt("%sevalset.yaml", up.buf);
		char *git = xstrfmt("%s.git", up.buf), *here = xstrfmt("%s.", up.buf), *parent;
		bool top = path_exists(git);

		if (is_dir(sets) || path_exists(conf))
			found = xstrdup(sets);
		parent = xstrfmt("%s..", up.buf);
		/* the root: its parent is itself */
		if (!found && !top) {
			struct stat a, b;
			if (stat(here, &a) || stat(parent, &b) || (a.st_dev == b.st_dev && a.st_ino == b.st_ino))
				top = true;
		}
		free(sets);
		free(conf);
		free(git);
		free(here);
		free(parent);
		if (top)
			break;
		strbuf_addstr(&up, "../");
	}
	strbuf_release(&up);
	return found ? found : xstrdup("sets");
}

int set_ref_resolve(struct set_ref *ref, const char *arg, bool must_exist)
{
	const char *at = strchr(arg, '@');
	char *path = NULL, *dir_of_sets = NULL;
	int ret = -1;

	set_ref_release(ref);
	if (at && strchr(at + 1, '@')) {
		error("malformed set reference '%s': more than one '@'", arg);
		goto out;
	}
	path = at ? xstrndup(arg, (size_t)(at - arg)) : xstrdup(arg);
	if (!*path) {
		error("malformed set reference '%s': empty set name", arg);
		goto out;
	}
	if (at && !at[1]) {
		error("malformed set reference '%s': empty tag", arg);
		goto out;
	}
	if (at && !valid_tag(at + 1)) {
		error("malformed set reference '%s': a tag is made of letters, digits, '.', '_' "
		      "and '-'", arg);
		goto out;
	}
	if (ends_with(path, ".yaml") && !is_dir(path)) {
		char *dir = dir_name(path);
		char *base = base_name(dir);
		if (!strcmp(base, "versions") && !at) {
			char *file = base_name(path);
			ref->tag = xstrndup(file, strlen(file) - 5);
			ref->dir = dir_name(dir);
			free(dir);
			free(file);
		} else {
			ref->dir = dir;
		}
		free(base);
		ref->file = xstrdup(path);
	} else if (!strchr(path, '/') && strcmp(path, ".") && strcmp(path, "..")) {
		char *sets = sets_folder();

		ref->dir = path_join(sets, path);
		free(sets);
	} else {
		size_t len = strlen(path);
		while (len > 1 && path[len - 1] == '/')
			len--;
		ref->dir = xstrndup(path, len);
	}
	ref->name = base_name(ref->dir);
	if (at) {
		char *rel = xstrfmt("versions/%s.yaml", at + 1);
		ref->tag = xstrdup(at + 1);
		free(ref->file);
		ref->file = path_join(ref->dir, rel);
		free(rel);
	} else if (!ref->file) {
		ref->file = path_join(ref->dir, "set.yaml");
	}
	if (must_exist && !path_exists(ref->file)) {
		if (ref->tag && path_exists(ref->dir)) {
			struct strbuf known = STRBUF_INIT;
			known_tags(ref->dir, &known);
			error("unknown version '%s' of set '%s' (known: %s)", ref->tag, ref->dir,
			      known.buf);
			strbuf_release(&known);
		} else if (!ends_with(path, ".yaml") && !strchr(path, '/') && is_dir(dir_of_sets = dir_name(ref->dir))) {
			struct strbuf known = STRBUF_INIT;

			known_sets(dir_of_sets, path, &known);
			error("no set '%s' in '%s'%s", path, dir_of_sets, known.buf);
			strbuf_release(&known);
		} else if (!ends_with(path, ".yaml")) {
			error("no set at '%s' (no set.yaml); create one with 'evalset init %s'",
			      ref->dir, ref->dir);
		} else {
			error("no set file '%s'", ref->file);
		}
		goto out;
	}
	ret = 0;
out:
	free(path);
	free(dir_of_sets);
	if (ret)
		set_ref_release(ref);
	return ret;
}

/*
 * Verify the chain of the frozen version 'ref' names, loaded and checked as
 * 's': its parent and theirs, each by its header (set_versions_chain);
 * -1 (reported) when it fails.
 */
static int verify_history(const struct set_ref *ref, const struct set *s)
{
	struct set_versions v = SET_VERSIONS_INIT;
	struct version_summary head = VERSION_SUMMARY_INIT;
	char *listed = xstrfmt("%s/versions/%s.yaml", ref->dir, ref->tag);
	struct stat st;
	int ret = -1;

	/* a file named directly, outside its set's versions/ folder: no history */
	if (*ref->tag == '.' || stat(listed, &st) < 0 || !S_ISREG(st.st_mode)) {
		ret = 0;
		goto out;
	}
	/* what the set's digest, version and tag checks have just shown */
	head.version = xstrdup(s->version);
	head.digest = xstrdup(s->digest);
	head.digest_ok = true;
	head.parent = xstrdup(s->parent);
	head.parent_digest = xstrdup(s->parent_digest);
	head.tagged_at = xstrdup(s->tagged_at);
	head.nr_questions = s->nr;
	if (set_versions_chain(ref, ref->tag, &head, &v) < 0)
		goto out;
	if (set_chain_verify(ref, &v, 0, NULL)) {
		error("refusing version '%s' of set '%s': its history does not verify "
		      "('evalset verify %s' checks every version)", ref->tag, ref->dir, ref->dir);
		goto out;
	}
	ret = 0;
out:
	version_summary_release(&head);
	set_versions_release(&v);
	free(listed);
	return ret;
}

int set_open_ref(struct set *s, const struct set_ref *ref, bool check_rules)
{
	char computed[72];

	if (set_load(s, ref->file) < 0)
		return -1;
	if (ref->tag) {
		set_digest(s, computed);
		if (!s->digest) {
			error("frozen version '%s' records no digest", ref->file);
			goto fail;
		}
		if (strcmp(s->digest, computed)) {
			error("tampered or hand-edited frozen version '%s': digest %s recorded, "
			      "%s computed", ref->file, s->digest, computed);
			goto fail;
		}
		if (!s->version) {
			error("frozen version '%s' records no version: a frozen file always names "
			      "its own tag", ref->file);
			goto fail;
		}
		if (strcmp(s->version, ref->tag)) {
			error("renamed frozen version '%s': it records version '%s'", ref->file,
			      s->version);
			goto fail;
		}
		if (verify_history(ref, s) < 0)
			goto fail;
	}
	if (check_rules) {
		struct findings f = FINDINGS_INIT;
		size_t n;
		set_check_errors(s, NULL, &f);
		n = findings_report_errors(&f, ref->file);
		findings_release(&f);
		if (n) {
			error("set '%s' breaks %zu rule%s; 'evalset check %s' lists every finding",
			      ref->file, n, n == 1 ? "" : "s", ref->file);
			goto fail;
		}
	}
	return 0;
fail:
	set_release(s);
	return -1;
}

int set_open(struct set *s, struct set_ref *ref, const char *arg)
{
	if (set_ref_resolve(ref, arg, true) < 0)
		return -1;
	return set_open_ref(s, ref, true);
}
