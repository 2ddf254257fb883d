/*
 * set-ref: where sets live on disk (SPEC section 2): resolving a command-line
 * set argument, opening a working copy or a frozen version, listing the
 * frozen versions (in parent-chain order), and the id floor and version
 * scan that keep removed ids from coming back for other text.
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

/* Verify the chain of the frozen version 'ref' names; -1 (reported) when it fails. */
static int verify_history(const struct set_ref *ref)
{
	struct set_versions v = SET_VERSIONS_INIT;
	long at;
	int ret = -1;

	if (set_versions_list(ref, &v) < 0)
		goto out;
	at = set_versions_find(&v, ref->tag);
	if (at < 0) {
		/* a file named directly, outside its set's versions/ folder */
		ret = 0;
		goto out;
	}
	if (set_chain_verify(ref, &v, (size_t)at, NULL)) {
		error("refusing version '%s' of set '%s': its history does not verify "
		      "('evalset verify %s' checks every version)", ref->tag, ref->dir, ref->dir);
		goto out;
	}
	ret = 0;
out:
	set_versions_release(&v);
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
		if (verify_history(ref) < 0)
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

/* ---- the id floor ---- */

/* Return the highest "q-<digits>" number found after an "id:" key in the
 * text of 'path' (0 when none or unreadable). */
static long scan_ids(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	long hi = 0;
	const char *p;

	if (!path_exists(path))
		return 0;  /* an optional file (rejected.yaml) or no set yet */
	if (read_file(path, &sb, SET_MAX_FILE_BYTES) < 0) {
		strbuf_release(&sb);
		return 0;
	}
	for (p = sb.buf; (p = strstr(p, "id:")); p += 3) {
		const char *v = p + 3;
		char num[16];
		size_t n = 0;
		long x;

		if (p > sb.buf && !strchr(" \t\n{,-", p[-1]))
			continue;
		while (*v == ' ' || *v == '\t' || *v == '\'' || *v == '"')
			v++;
		if (!starts_with(v, "q-"))
			continue;
		for (v += 2; *v >= '0' && *v <= '9' && n + 1 < sizeof(num); v++)
			num[n++] = *v;
		num[n] = '\0';
		if (n && n < 13 && parse_long(num, 0, 999999999999L, &x) == 0 && x > hi)
			hi = x;
	}
	strbuf_release(&sb);
	return hi;
}

static char *floor_path(const struct set_ref *ref)
{
	return path_join(ref->dir, ".evalset/ids");
}

static long read_floor(const struct set_ref *ref)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = floor_path(ref);
	long n = 0;

	if (path_exists(path) && read_file(path, &sb, 4096) == 0) {
		strbuf_trim(&sb);
		if (parse_long(sb.buf, 0, 999999999999L, &n) < 0)
			n = 0;
	}
	strbuf_release(&sb);
	free(path);
	return n;
}

long set_id_floor(const struct set_ref *ref)
{
	char *wc = path_join(ref->dir, "set.yaml");
	char *vdir = path_join(ref->dir, "versions");
	char *rejected = rejected_path(ref);
	long hi = read_floor(ref), n;
	DIR *d;

	n = scan_ids(wc);
	if (n > hi)
		hi = n;
	n = scan_ids(rejected);  /* a rejected question's id is never handed out again */
	if (n > hi)
		hi = n;
	d = opendir(vdir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d))) {
			char *f;
			if (!ends_with(e->d_name, ".yaml"))
				continue;
			f = path_join(vdir, e->d_name);
			n = scan_ids(f);
			if (n > hi)
				hi = n;
			free(f);
		}
		closedir(d);
	}
	free(wc);
	free(vdir);
	free(rejected);
	return hi;
}

char *set_lock_path(const struct set_ref *ref, bool create)
{
	char *dir = path_join(ref->dir, ".evalset");
	char *path = path_join(dir, "lock");

	if (create && mkdir_private(dir) < 0) {
		free(dir);
		free(path);
		return NULL;
	}
	free(dir);
	return path;
}

int set_id_floor_write(const struct set_ref *ref, long floor_id)
{
	char *path, *dir, *text;
	int ret;

	if (floor_id <= read_floor(ref))
		return 0;
	dir = path_join(ref->dir, ".evalset");
	if (mkdir_private(dir) < 0) {
		free(dir);
		return -1;
	}
	path = floor_path(ref);
	text = xstrfmt("%ld\n", floor_id);
	ret = write_file_atomic(path, text, strlen(text));
	free(text);
	free(path);
	free(dir);
	return ret;
}

/* ---- frozen versions ---- */

static int cmp_version(const void *a, const void *b)
{
	const struct set_version *x = a, *y = b;
	int c;

	if (!x->tagged_at != !y->tagged_at)
		return x->tagged_at ? 1 : -1;
	if (x->tagged_at && (c = strcmp(x->tagged_at, y->tagged_at)))
		return c;
	return strcmp(x->tag, y->tag);
}

long set_versions_find(const struct set_versions *v, const char *tag)
{
	if (!tag)
		return -1;
	for (size_t i = 0; i < v->nr; i++)
		if (!strcmp(v->items[i].tag, tag))
			return (long)i;
	return -1;
}

/*
 * Sort 'v' so that every version comes after its parent (roots first), using
 * cmp_version only to choose among versions whose parent is already placed:
 * tagged_at has a resolution of one second, so it cannot order two tags made
 * in the same second, but the parent chain always can. A parent that is not
 * among the versions makes a root; a cycle (only possible by hand-editing,
 * which the digest catches) is broken at its earliest member.
 */
static void order_versions(struct set_versions *v)
{
	struct set_version *sorted;
	bool *placed;
	long *parent;

	if (v->nr < 2)
		return;
	sorted = xcalloc(v->nr, sizeof(*sorted));
	placed = xcalloc(v->nr, sizeof(*placed));
	parent = xcalloc(v->nr, sizeof(*parent));
	for (size_t i = 0; i < v->nr; i++) {
		parent[i] = set_versions_find(v, v->items[i].parent);
		if (parent[i] == (long)i)
			parent[i] = -1;
	}
	for (size_t n = 0; n < v->nr; n++) {
		long best = -1, any = -1;

		for (size_t i = 0; i < v->nr; i++) {
			if (placed[i])
				continue;
			if (any < 0 || cmp_version(&v->items[i], &v->items[any]) < 0)
				any = (long)i;
			if (parent[i] >= 0 && !placed[parent[i]])
				continue;
			if (best < 0 || cmp_version(&v->items[i], &v->items[best]) < 0)
				best = (long)i;
		}
		if (best < 0)
			best = any;  /* a cycle */
		placed[best] = true;
		sorted[n] = v->items[best];
	}
	memcpy(v->items, sorted, v->nr * sizeof(*sorted));
	free(sorted);
	free(placed);
	free(parent);
}

/* Return what is wrong with the frozen version 's' stored as 'tag', or NULL. */
static const char *version_problem(const struct set *s, const char *tag)
{
	char computed[72];

	if (!s->digest)
		return "frozen version '%s' records no digest";
	set_digest(s, computed);
	if (strcmp(s->digest, computed))
		return "tampered or hand-edited frozen version '%s': its content no longer matches "
		       "its digest";
	if (!s->version)
		return "frozen version '%s' records no version: a frozen file always names its own tag";
	if (strcmp(s->version, tag))
		return "renamed or copied frozen version '%s': it records another version";
	return NULL;
}

/*
 * Report what is wrong with version 'i' of 'v' and its link to its parent
 * (see set_chain_verify); return how many problems. '*parent' is the index
 * of the parent, or -1 when there is none (or it is missing).
 */
static size_t link_problems(const struct set_ref *ref, const struct set_versions *v, size_t i,
			    size_t *unanchored, long *parent)
{
	const struct set_version *e = &v->items[i];
	size_t problems = 0;
	long p;

	*parent = -1;
	if (e->problem) {
		problems++;
		error(e->problem, e->file);
	}
	if (!e->parent)
		return problems;
	p = set_versions_find(v, e->parent);
	if (p < 0) {
		error("frozen version '%s' names parent '%s', which is missing from '%s/versions'",
		      e->file, e->parent, ref->dir);
		return problems + 1;
	}
	if (!e->parent_digest) {
		if (unanchored)
			(*unanchored)++;
	} else if (!v->items[p].digest || strcmp(e->parent_digest, v->items[p].digest)) {
		problems++;
		error("frozen version '%s' was tagged after a parent '%s' with digest %.19s, "
		      "but '%s' holds %.19s: the parent was replaced or re-digested", e->file,
		      e->parent, e->parent_digest, v->items[p].file,
		      v->items[p].digest ? v->items[p].digest : "no digest");
	}
	*parent = p;
	return problems;
}

size_t set_chain_verify(const struct set_ref *ref, const struct set_versions *v, size_t at,
			size_t *unanchored)
{
	bool *seen = xcalloc(v->nr + 1, sizeof(*seen));
	size_t problems = 0;
	long i = (long)at;

	if (unanchored)
		*unanchored = 0;
	while (i >= 0) {
		if (seen[i]) {
			problems++;
			error("the version history of set '%s' loops at '%s'", ref->dir, v->items[i].tag);
			break;
		}
		seen[i] = true;
		problems += link_problems(ref, v, (size_t)i, unanchored, &i);
	}
	free(seen);
	return problems;
}

size_t set_versions_verify(const struct set_ref *ref, const struct set_versions *v,
			   size_t *unanchored)
{
	size_t problems = 0;
	long p;

	if (unanchored)
		*unanchored = 0;
	for (size_t i = 0; i < v->nr; i++)
		problems += link_problems(ref, v, i, unanchored, &p);
	/* a loop: a walk up the parents longer than there are versions */
	for (size_t i = 0; i < v->nr; i++) {
		long at = (long)i;
		size_t steps = 0;

		while (at >= 0 && steps++ <= v->nr)
			at = v->items[at].parent ? set_versions_find(v, v->items[at].parent) : -1;
		if (at >= 0) {
			error("the version history of set '%s' loops at '%s'", ref->dir, v->items[i].tag);
			problems++;
			break;
		}
	}
	return problems;
}

void set_versions_release(struct set_versions *v)
{
	for (size_t i = 0; i < v->nr; i++) {
		struct set_version *e = &v->items[i];
		free(e->tag);
		free(e->file);
		free(e->tagged_at);
		free(e->digest);
		free(e->parent);
		free(e->parent_digest);
		free(e->note);
	}
	free(v->items);
	v->items = NULL;
	v->nr = v->alloc = 0;
}

int set_versions_list(const struct set_ref *ref, struct set_versions *out)
{
	char *vdir = path_join(ref->dir, "versions");
	struct dirent *e;
	DIR *d;
	int ret = -1;

	d = opendir(vdir);
	if (!d) {
		free(vdir);
		return 0;
	}
	while ((e = readdir(d))) {
		struct set s = SET_INIT;
		struct set_version *v;
		char *file;

		if (e->d_name[0] == '.' || !ends_with(e->d_name, ".yaml"))
			continue;
		file = path_join(vdir, e->d_name);
		if (set_load(&s, file) < 0) {
			free(file);
			goto out;
		}
		ALLOC_GROW(out->items, out->nr + 1, out->alloc);
		v = &out->items[out->nr++];
		v->tag = xstrndup(e->d_name, strlen(e->d_name) - 5);
		v->file = file;
		v->tagged_at = s.tagged_at;
		v->digest = s.digest;
		v->parent = s.parent;
		v->parent_digest = s.parent_digest;
		v->note = s.note;
		v->nr_questions = s.nr;
		v->problem = version_problem(&s, v->tag);
		s.tagged_at = s.digest = s.parent = s.parent_digest = s.note = NULL;
		set_release(&s);
	}
	order_versions(out);
	ret = 0;
out:
	closedir(d);
	free(vdir);
	return ret;
}

int set_latest_digest(const struct set_ref *ref, char out[72], char **tag)
{
	struct set_versions v = SET_VERSIONS_INIT;
	int ret;

	if (tag)
		*tag = NULL;
	if (set_versions_list(ref, &v) < 0)
		return -1;
	ret = 0;
	if (v.nr) {
		const struct set_version *last = &v.items[v.nr - 1];
		snprintf(out, 72, "%s", last->digest ? last->digest : "");
		if (tag)
			*tag = xstrdup(last->tag);
		ret = 1;
	}
	set_versions_release(&v);
	return ret;
}

int set_latest_load(const struct set_ref *ref, struct set *out, char **tag)
{
	struct set_versions v = SET_VERSIONS_INIT;
	int ret = -1;

	if (tag)
		*tag = NULL;
	if (set_versions_list(ref, &v) < 0)
		goto out;
	ret = 0;
	if (!v.nr)
		goto out;
	ret = -1;
	if (set_load(out, v.items[v.nr - 1].file) < 0)
		goto out;
	if (tag)
		*tag = xstrdup(v.items[v.nr - 1].tag);
	ret = 1;
out:
	set_versions_release(&v);
	return ret;
}

/* Return the index of the last of the loaded versions 'vs' that holds 'id', or -1. */
static long last_holding(const struct set *vs, size_t nr, const char *id)
{
	for (size_t i = nr; i-- > 0;)
		if (set_find(&vs[i], id))
			return (long)i;
	return -1;
}

size_t set_refuse_reused_ids(const struct set_ref *ref, const struct set *wc,
			     const struct set *in)
{
	struct set_versions v = SET_VERSIONS_INIT;
	struct set *vs = NULL;
	size_t nr_vs = 0, refused = 0;
	long floor_id = read_floor(ref);

	/* a version that cannot be read may hold any id: refuse rather than guess */
	if (set_versions_list(ref, &v) < 0) {
		error("cannot check ids against the versions of '%s' (see above)", ref->dir);
		return 1;
	}
	if (v.nr) {
		vs = xcalloc(v.nr, sizeof(*vs));
		for (nr_vs = 0; nr_vs < v.nr; nr_vs++) {
			set_init(&vs[nr_vs]);
			if (set_load(&vs[nr_vs], v.items[nr_vs].file) < 0) {
				error("cannot check ids against version '%s' (see above)",
				      v.items[nr_vs].file);
				refused++;
			}
		}
	}
	for (size_t i = 0; i < in->nr; i++) {
		const struct question *q = &in->q[i], *old;
		long at, n;

		if (!q->id || set_find(wc, q->id))
			continue;
		if ((at = last_holding(vs, nr_vs, q->id)) >= 0) {
			old = set_find(&vs[at], q->id);
			if (old->text && q->text && !strcmp(old->text, q->text))
				continue;  /* the same question coming back */
			error_at(in->file, q->line, q->col, "id '%s' was used before (in versions/%s.yaml); "
				 "ids are never reused for other text", q->id, v.items[at].tag);
			refused++;
			continue;
		}
		n = question_id_number(q->id);
		if (n > 0 && n <= floor_id) {
			error_at(in->file, q->line, q->col, "id '%s' may have been used before: ids up "
				 "to q-%04ld have been handed out in '%s' (.evalset/ids); ids are never "
				 "reused for other text", q->id, floor_id, ref->dir);
			refused++;
		}
	}
	for (size_t i = 0; i < nr_vs; i++)
		set_release(&vs[i]);
	free(vs);
	set_versions_release(&v);
	return refused;
}
