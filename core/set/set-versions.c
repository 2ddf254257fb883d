/*
 * set-versions: the frozen versions of a set (DIR/versions/TAG.yaml, never
 * rewritten): listed in parent-chain order, their digests and chain
 * verified, the latest one found. Called by set-ref.c and set-ids.c; calls
 * neither.
 */
#include "set/set.h"
#include "set/versioncache.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int cmp_version(const void *a, const void *b)
{
	const struct set_version *x = a, *y = b;
	int c;

	if (!x->summary.tagged_at != !y->summary.tagged_at)
		return x->summary.tagged_at ? 1 : -1;
	if (x->summary.tagged_at && (c = strcmp(x->summary.tagged_at, y->summary.tagged_at)))
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
		parent[i] = set_versions_find(v, v->items[i].summary.parent);
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
static const char *version_problem(const struct version_summary *s, const char *tag)
{
	if (!s->digest)
		return "frozen version '%s' records no digest";
	if (!s->digest_ok)
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
	if (!e->summary.parent)
		return problems;
	p = set_versions_find(v, e->summary.parent);
	if (p < 0) {
		error("frozen version '%s' names parent '%s', which is missing from '%s/versions'",
		      e->file, e->summary.parent, ref->dir);
		return problems + 1;
	}
	if (!e->summary.parent_digest) {
		if (unanchored)
			(*unanchored)++;
	} else if (!v->items[p].summary.digest ||
		   strcmp(e->summary.parent_digest, v->items[p].summary.digest)) {
		problems++;
		error("frozen version '%s' was tagged after a parent '%s' with digest %.19s, "
		      "but '%s' holds %.19s: the parent was replaced or re-digested", e->file,
		      e->summary.parent, e->summary.parent_digest, v->items[p].file,
		      v->items[p].summary.digest ? v->items[p].summary.digest : "no digest");
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

		while (at >= 0 && steps++ <= v->nr) {
			const char *parent = v->items[at].summary.parent;
			at = parent ? set_versions_find(v, parent) : -1;
		}
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
		version_summary_release(&e->summary);
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
		struct version_summary s = VERSION_SUMMARY_INIT;
		struct set_version *v;
		char *file;

		if (e->d_name[0] == '.' || !ends_with(e->d_name, ".yaml"))
			continue;
		file = path_join(vdir, e->d_name);
		/* parsed once per content: later reads come from the cache */
		if (version_summary_load(file, &s) < 0) {
			free(file);
			goto out;
		}
		ALLOC_GROW(out->items, out->nr + 1, out->alloc);
		v = &out->items[out->nr++];
		v->tag = xstrndup(e->d_name, strlen(e->d_name) - 5);
		v->file = file;
		v->summary = s;  /* the entry owns the summary's strings now */
		v->problem = version_problem(&v->summary, v->tag);
	}
	order_versions(out);
	ret = 0;
out:
	closedir(d);
	free(vdir);
	return ret;
}

int set_versions_chain(const struct set_ref *ref, const char *tag,
		       struct version_summary *head, struct set_versions *out)
{
	struct set_version *v;
	const char *next;

	ALLOC_GROW(out->items, out->nr + 1, out->alloc);
	v = &out->items[out->nr++];
	v->tag = xstrdup(tag);
	v->file = xstrfmt("%s/versions/%s.yaml", ref->dir, tag);
	v->summary = *head;  /* moved in */
	memset(head, 0, sizeof(*head));
	v->problem = version_problem(&v->summary, v->tag);
	next = v->summary.parent;
	/* a parent named twice closes a loop: set_chain_verify reports it */
	while (next && set_versions_find(out, next) < 0) {
		struct version_summary s = VERSION_SUMMARY_INIT;
		struct stat st;
		char *file;

		/* only a name the versions/ listing could hold: no path, no hidden file */
		if (*next == '.' || strchr(next, '/'))
			break;
		file = xstrfmt("%s/versions/%s.yaml", ref->dir, next);
		if (stat(file, &st) < 0 || !S_ISREG(st.st_mode)) {
			free(file);  /* a missing parent: set_chain_verify reports it */
			break;
		}
		if (version_summary_load_head(file, &s) < 0) {
			free(file);
			return -1;
		}
		ALLOC_GROW(out->items, out->nr + 1, out->alloc);
		v = &out->items[out->nr++];
		v->tag = xstrdup(next);
		v->file = file;
		v->summary = s;
		v->problem = version_problem(&v->summary, v->tag);
		next = v->summary.parent;
	}
	return 0;
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
		snprintf(out, 72, "%s", last->summary.digest ? last->summary.digest : "");
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
