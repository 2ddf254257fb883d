/*
 * set-ids: the id floor and version scan that keep a removed question's id
 * from coming back for other text: the highest id ever handed out
 * (DIR/.evalset/ids, the working copy, rejected.yaml and every version),
 * the set's lock path beside it, and the refusal of reused ids on import.
 * Calls set-versions.c for the versions.
 */
#include "set/set.h"
#include "set/versioncache.h"
#include "set/rejected.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/strmap.h"
#include "base/util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		if (n && n < 13 && parse_long(num, 0, LONG_CAP(999999999999LL), &x) == 0 && x > hi)
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
		if (parse_long(sb.buf, 0, LONG_CAP(999999999999LL), &n) < 0)
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

/*
 * Remove what a killed writer of the set 'ref' left: the temporary files of
 * set.yaml, rejected.yaml, .evalset/ids and the versions, which every
 * writer makes under the set's lock (just taken), so none is being written.
 */
static void remove_set_temps(const struct set_ref *ref)
{
	static const char *const top[] = { "set.yaml", REJECTED_FILE, NULL };
	static const char *const ids[] = { "ids", NULL };
	char *versions = path_join(ref->dir, "versions"), *evalset = path_join(ref->dir, ".evalset");
	size_t n = remove_stale_temps(ref->dir, top, NULL) + remove_stale_temps(versions, NULL, ".yaml") +
		   remove_stale_temps(evalset, ids, NULL);

	if (n)
		note("removed %zu temporary file%s that an interrupted write left in '%s'", n, n == 1 ? "" : "s",
		     ref->dir);
	free(versions);
	free(evalset);
}

int set_lock_take(struct lock_file *lk, const struct set_ref *ref)
{
	char *path = set_lock_path(ref, true), *what;
	int rc;

	if (!path)
		return -1;
	what = xstrfmt("set '%s'", ref->dir);
	rc = lock_take(lk, path, what);
	free(what);
	free(path);
	if (!rc)
		remove_set_temps(ref);
	return rc;
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

/* An id of a frozen version: its text digest there, and that version's tag. */
struct id_use {
	const char *digest, *tag;
};

/*
 * Fill 'out' with each id of the versions 'v' to its use in the latest
 * version (in tag order) that holds it, an entry of 'uses' (caller frees;
 * the keys, digests and tags are the versions', borrowed).
 */
static void version_texts(const struct set_versions *v, struct strmap *out, struct id_use **uses)
{
	size_t total = 0, nr = 0;

	for (size_t at = 0; at < v->nr; at++)
		total += v->items[at].summary.nr_ids;
	*uses = xcalloc(total + 1, sizeof(**uses));
	out->borrowed = 1;
	strmap_reserve(out, total);
	for (size_t at = v->nr; at-- > 0;) {
		const struct version_summary *vs = &v->items[at].summary;

		for (size_t i = 0; i < vs->nr_ids; i++) {
			const char *id = vs->ids[i];
			size_t len = strlen(id);
			int added;
			struct strmap_entry *e = strmap_intern_hashed(out, id, len, strhash(id, len), &added);

			if (!added)
				continue;
			(*uses)[nr] = (struct id_use){ vs->text_digests[i], v->items[at].tag };
			e->value = &(*uses)[nr++];
		}
	}
}

size_t set_refuse_reused_ids(const struct set_ref *ref, const struct set *wc,
			     const struct set *in)
{
	struct set_versions v = SET_VERSIONS_INIT;
	struct set_lookup in_wc;
	struct strmap texts = STRMAP_INIT;  /* id -> its use in the latest version holding it */
	struct id_use *uses = NULL;
	size_t refused = 0;
	long floor_id = read_floor(ref);

	/* a version that cannot be read may hold any id: refuse rather than guess;
	 * the versions' ids and text digests come from the cache (versioncache.h) */
	if (set_versions_list(ref, &v) < 0) {
		error("cannot check ids against the versions of '%s' (see above)", ref->dir);
		return 1;
	}
	set_lookup_init(&in_wc, wc);
	version_texts(&v, &texts, &uses);
	for (size_t i = 0; i < in->nr; i++) {
		const struct question *q = &in->q[i];
		const struct id_use *old;
		long n;

		if (!q->id || set_lookup_find(&in_wc, q->id))
			continue;
		old = strmap_get(&texts, q->id);
		if (old) {
			char mine[72];
			version_text_digest(q->text, mine);
			if (q->text && !strcmp(old->digest, mine))
				continue;  /* the same question coming back */
			error_at(in->file, q->line, q->col, "id '%s' was used before (in versions/%s.yaml); "
				 "ids are never reused for other text", q->id, old->tag);
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
	set_lookup_release(&in_wc);
	strmap_clear(&texts, 0);
	free(uses);
	set_versions_release(&v);
	return refused;
}
