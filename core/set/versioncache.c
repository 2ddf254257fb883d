/*
 * versioncache: summaries of frozen version files, cached by content digest
 * (see versioncache.h).
 *
 * Invariant: an entry is only ever read back for a file whose bytes hash to
 * the entry's name, and it holds exactly what parsing those bytes gave, so a
 * summary from the cache equals one from parsing.
 */
#include "set/versioncache.h"
#include "set/set.h"
#include "base/config.h"
#include "base/digest.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/jsontree.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Format 2: two lines, the header object (format, header fields, question
 * count, digest_ok) and then {"ids": [...], "texts": [...]}, so that a
 * reader of the header alone (a history walk) parses one short line.
 * Entries of another format are parsed again and replaced.
 */
#define VERSIONCACHE_FORMAT 2
#define VERSIONCACHE_DEFAULT_MAX (100L << 20)

/*
 * The most the cache may hold, in bytes: $EVALSET_CACHE_MAX_SIZE, else the
 * config's cache_max_size, else 100 MiB; read once. A value that is not a
 * size counts as the default (the config-reading commands report it).
 */
static long cache_max(void)
{
	static long max = -1;
	char *v;

	if (max >= 0)
		return max;
	v = config_get_quietly("cache_max_size", "EVALSET_CACHE_MAX_SIZE");
	if (!v || parse_size(v, LONG_CAP(1LL << 40), &max) < 0)
		max = VERSIONCACHE_DEFAULT_MAX;
	free(v);
	return max;
}

void version_text_digest(const char *text, char out[72])
{
	sha256_hex(text ? text : "", text ? strlen(text) : 0, out);
}

void version_summary_release(struct version_summary *s)
{
	free(s->version);
	free(s->tagged_at);
	free(s->digest);
	free(s->parent);
	free(s->parent_digest);
	free(s->note);
	for (size_t i = 0; i < s->nr_ids; i++) {
		free(s->ids[i]);
		free(s->text_digests[i]);
	}
	free(s->ids);
	free(s->text_digests);
	memset(s, 0, sizeof(*s));
}

/* Return the cache directory for versions (caller frees), or NULL when there is none. */
static char *cache_dir(void)
{
	const char *dir = getenv("EVALSET_CACHE_DIR"), *xdg, *home;
	char *base, *out;

	if ((dir && !strcmp(dir, "off")) || !cache_max())
		return NULL;
	if (dir && *dir)
		base = xstrdup(dir);
	else if ((xdg = getenv("XDG_CACHE_HOME")) && *xdg == '/')
		base = path_join(xdg, "evalset");
	else if ((home = getenv("HOME")) && *home == '/')
		base = xstrfmt("%s/.cache/evalset", home);
	else
		return NULL;
	out = path_join(base, "versions");
	free(base);
	return out;
}

/*
 * Fill 'out' from the cache entry text 'buf': its header line, and unless
 * 'head_only' its ids and text digests. Return 0, or -1 when it is not a
 * whole entry of this format.
 */
static int from_entry(const struct strbuf *buf, struct version_summary *out, bool head_only)
{
	const char *nl = memchr(buf->buf, '\n', buf->len);
	cJSON *j = NULL, *body = NULL;
	const cJSON *ids, *texts, *n, *fmt, *id, *t;
	long nr;
	int ret = -1;

	if (!nl)
		return -1;
	j = cJSON_ParseWithLength(buf->buf, (size_t)(nl - buf->buf));
	n = cJSON_GetObjectItemCaseSensitive(j, "questions");
	fmt = cJSON_GetObjectItemCaseSensitive(j, "format");
	if (!cJSON_IsNumber(fmt) || fmt->valuedouble != VERSIONCACHE_FORMAT ||
	    !cJSON_IsNumber(n) || double_to_long(n->valuedouble, 0, SET_MAX_QUESTIONS, &nr) < 0)
		goto out;
	if (!head_only) {
		nl++;
		body = cJSON_ParseWithLength(nl, buf->len - (size_t)(nl - buf->buf));
		ids = cJSON_GetObjectItemCaseSensitive(body, "ids");
		texts = cJSON_GetObjectItemCaseSensitive(body, "texts");
		if (!cJSON_IsArray(ids) || !cJSON_IsArray(texts) ||
		    cJSON_GetArraySize(ids) != cJSON_GetArraySize(texts))
			goto out;
		out->nr_ids = (size_t)cJSON_GetArraySize(ids);
		out->ids = xcalloc(out->nr_ids + 1, sizeof(*out->ids));
		out->text_digests = xcalloc(out->nr_ids + 1, sizeof(*out->text_digests));
		/* walk both lists side by side: cJSON_GetArrayItem is linear */
		id = ids->child;
		t = texts->child;
		for (size_t i = 0; i < out->nr_ids; i++, id = id->next, t = t->next) {
			if (!cJSON_IsString(id) || !cJSON_IsString(t)) {
				version_summary_release(out);
				goto out;
			}
			out->ids[i] = xstrdup(id->valuestring);
			out->text_digests[i] = xstrdup(t->valuestring);
		}
	}
	out->version = xstrdup(json_get_str(j, "version"));
	out->tagged_at = xstrdup(json_get_str(j, "tagged_at"));
	out->digest = xstrdup(json_get_str(j, "digest"));
	out->parent = xstrdup(json_get_str(j, "parent"));
	out->parent_digest = xstrdup(json_get_str(j, "parent_digest"));
	out->note = xstrdup(json_get_str(j, "note"));
	out->nr_questions = (size_t)nr;
	out->digest_ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "digest_ok"));
	out->from_cache = true;
	ret = 0;
out:
	cJSON_Delete(j);
	cJSON_Delete(body);
	return ret;
}

static void add_opt(cJSON *o, const char *key, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, key, v);
}

static void ignore_report(const char *prefix, const char *msg)
{
	(void)prefix;
	(void)msg;
}

/* Read the cache entry 'path' into 'out' without reporting anything. Return 0 or -1. */
static int read_quietly(const char *path, struct strbuf *out)
{
	report_fn old = get_error_routine();
	int ret;

	set_error_routine(ignore_report);
	ret = read_file(path, out, SET_MAX_FILE_BYTES);
	set_error_routine(old);
	return ret;
}

/* Store 's' as the entry 'path' in 'dir', quietly: a cache that cannot be written is no error. */
static void store(const char *dir, const char *path, const struct version_summary *s)
{
	cJSON *j = cJSON_CreateObject(), *body = cJSON_CreateObject(), *ids, *texts;
	report_fn old = get_error_routine();
	char *head, *rest;

	cJSON_AddNumberToObject(j, "format", VERSIONCACHE_FORMAT);
	add_opt(j, "version", s->version);
	add_opt(j, "tagged_at", s->tagged_at);
	add_opt(j, "digest", s->digest);
	add_opt(j, "parent", s->parent);
	add_opt(j, "parent_digest", s->parent_digest);
	add_opt(j, "note", s->note);
	cJSON_AddNumberToObject(j, "questions", (double)s->nr_questions);
	cJSON_AddBoolToObject(j, "digest_ok", s->digest_ok);
	ids = cJSON_AddArrayToObject(body, "ids");
	texts = cJSON_AddArrayToObject(body, "texts");
	for (size_t i = 0; i < s->nr_ids; i++) {
		cJSON_AddItemToArray(ids, cJSON_CreateString(s->ids[i]));
		cJSON_AddItemToArray(texts, cJSON_CreateString(s->text_digests[i]));
	}
	/* unformatted JSON holds no newline: one line each */
	head = cJSON_PrintUnformatted(j);
	rest = cJSON_PrintUnformatted(body);
	set_error_routine(ignore_report);
	if (head && rest && mkdir_private(dir) == 0) {
		char *text = xstrfmt("%s\n%s\n", head, rest);
		write_file_atomic(path, text, strlen(text));
		free(text);
	}
	set_error_routine(old);
	free(head);
	free(rest);
	cJSON_Delete(j);
	cJSON_Delete(body);
}

struct entry {
	char *name;
	long size;
	struct timespec used;
};

static int by_use(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	if (x->used.tv_nsec != y->used.tv_nsec)
		return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * Bound the cache 'dir' to cache_max() bytes: drop the entries used least
 * recently (an entry's modification time is set each time it is read)
 * until what is left fits, never 'keep' (the entry just written). Quiet.
 */
static void prune(const char *dir, const char *keep)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct entry *list = NULL;
	size_t nr = 0, alloc = 0;
	long total = 0, max = cache_max();

	if (!d)
		return;
	while ((e = readdir(d))) {
		struct stat st;
		char *path;
		if (!ends_with(e->d_name, ".json"))
			continue;
		path = path_join(dir, e->d_name);
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			ALLOC_GROW(list, nr + 1, alloc);
			list[nr].name = path;
			list[nr].size = (long)st.st_size;
			list[nr++].used = st.st_mtim;
			total += (long)st.st_size;
		} else {
			free(path);
		}
	}
	closedir(d);
	if (total > max) {
		qsort(list, nr, sizeof(*list), by_use);
		for (size_t i = 0; i < nr && total > max; i++) {
			if (!strcmp(list[i].name, keep) || unlink(list[i].name) < 0)
				continue;
			total -= list[i].size;
		}
	}
	for (size_t i = 0; i < nr; i++)
		free(list[i].name);
	free(list);
}

/* Fill 'out' by parsing the 'len' bytes of version file 'file' at 'buf'. */
static int parse(const char *file, const struct strbuf *buf, struct version_summary *out)
{
	struct set s = SET_INIT;
	char computed[72];

	if (set_load_buf(&s, buf->buf, buf->len, file) < 0)
		return -1;
	if (s.digest) {
		set_digest(&s, computed);  /* before the header moves out: it is part of the digest */
		out->digest_ok = !strcmp(s.digest, computed);
	}
	out->version = s.version;
	out->tagged_at = s.tagged_at;
	out->digest = s.digest;
	out->parent = s.parent;
	out->parent_digest = s.parent_digest;
	out->note = s.note;
	s.version = s.tagged_at = s.digest = s.parent = s.parent_digest = s.note = NULL;
	out->nr_questions = s.nr;
	out->ids = xcalloc(s.nr + 1, sizeof(*out->ids));
	out->text_digests = xcalloc(s.nr + 1, sizeof(*out->text_digests));
	for (size_t i = 0; i < s.nr; i++) {
		version_text_digest(s.q[i].text, computed);
		out->ids[out->nr_ids] = xstrdup(s.q[i].id ? s.q[i].id : "");
		out->text_digests[out->nr_ids++] = xstrdup(computed);
	}
	set_release(&s);
	return 0;
}

static int load(const char *file, struct version_summary *out, bool head_only)
{
	struct strbuf buf = STRBUF_INIT, entry = STRBUF_INIT;
	char key[72], *dir = cache_dir(), *name = NULL, *path = NULL;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (read_file(file, &buf, SET_MAX_FILE_BYTES) < 0)
		goto out;
	if (dir) {
		sha256_hex(buf.buf, buf.len, key);
		name = xstrfmt("%s.json", key + 7);
		path = path_join(dir, name);
		if (path_exists(path) && !read_quietly(path, &entry) &&
		    !from_entry(&entry, out, head_only)) {
			/* used now: the least recently used entries are the ones pruned */
			utimensat(AT_FDCWD, path, NULL, 0);
			ret = 0;
			goto out;
		}
	}
	if (parse(file, &buf, out) < 0)
		goto out;
	if (dir) {
		store(dir, path, out);
		prune(dir, path);
	}
	ret = 0;
out:
	strbuf_release(&buf);
	strbuf_release(&entry);
	free(dir);
	free(name);
	free(path);
	return ret;
}

int version_summary_load(const char *file, struct version_summary *out)
{
	return load(file, out, false);
}

int version_summary_load_head(const char *file, struct version_summary *out)
{
	return load(file, out, true);
}
