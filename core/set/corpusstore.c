/*
 * corpusstore: copies of the corpora a set was labelled against (see
 * corpusstore.h). The copy is compressed in memory with zlib's gzip wrapper
 * and written atomically; corpus_load reads gzip directly.
 */
#include "set/corpusstore.h"
#include "set/corpus.h"
#include "set/corpuscheck.h"
#include "set/set.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/jsontree.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* A corpus with more text than this is not copied (the copy is a convenience). */
#define STORE_MAX_BYTES ((size_t)256 << 20)

static void ignore_report(const char *prefix, const char *msg)
{
	(void)prefix;
	(void)msg;
}

/* Return the path of the copy of 'fp' for 'set_dir' (caller frees), or NULL
 * for a fingerprint that is not "sha256:" and 64 hex digits. */
static char *store_path(const char *set_dir, const char *fp)
{
	const char *hex = fp && starts_with(fp, "sha256:") ? fp + 7 : NULL;

	if (!hex || strlen(hex) != 64 || strspn(hex, "0123456789abcdef") != 64)
		return NULL;
	return xstrfmt("%s/.evalset/corpora/%s.jsonl.gz", set_dir && *set_dir ? set_dir : ".", hex);
}

/* Compress 'in' into 'out' in gzip form. Return 0 or -1. */
static int gzip_buf(const struct strbuf *in, struct strbuf *out)
{
	z_stream z;
	unsigned char chunk[65536];
	int rc;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	z.next_in = (unsigned char *)in->buf;
	z.avail_in = (uInt)in->len;  /* in->len <= STORE_MAX_BYTES fits a uInt */
	do {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		rc = deflate(&z, Z_FINISH);
		if (rc == Z_STREAM_ERROR)
			break;
		strbuf_add(out, chunk, sizeof(chunk) - z.avail_out);
	} while (rc != Z_STREAM_END);
	deflateEnd(&z);
	return rc == Z_STREAM_END ? 0 : -1;
}

void corpus_store_put(const char *set_dir, const struct corpus *c, const char *fp)
{
	char *path = store_path(set_dir, fp), *dir = NULL;
	struct strbuf text = STRBUF_INIT, gz = STRBUF_INIT;
	report_fn old_err = get_error_routine(), old_warn = get_warning_routine();

	if (!path || path_exists(path))
		goto out;
	for (size_t i = 0; i < c->nr && text.len <= STORE_MAX_BYTES; i++) {
		const struct chunk *ch = &c->chunks[i];
		cJSON *j = cJSON_CreateObject();

		cJSON_AddStringToObject(j, "id", ch->id);
		if (ch->doc)
			cJSON_AddStringToObject(j, "doc", ch->doc);
		if (ch->doc && ch->start >= 0) {
			cJSON_AddNumberToObject(j, "start", (double)ch->start);
			cJSON_AddNumberToObject(j, "end", (double)ch->end);
		}
		if (ch->title)
			cJSON_AddStringToObject(j, "title", ch->title);
		cJSON_AddStringToObject(j, "text", ch->text);
		json_add_tree(&text, j, false);
	}
	if (text.len > STORE_MAX_BYTES || gzip_buf(&text, &gz) < 0)
		goto out;
	dir = dir_name(path);
	set_error_routine(ignore_report);
	set_warning_routine(ignore_report);
	if (mkdir_p(dir) == 0)
		write_file_atomic(path, gz.buf, gz.len);
	set_error_routine(old_err);
	set_warning_routine(old_warn);
out:
	free(path);
	free(dir);
	strbuf_release(&text);
	strbuf_release(&gz);
}

int corpus_load_if(const char *path, const char *fp, struct corpus *out)
{
	report_fn old_err = get_error_routine(), old_warn = get_warning_routine();
	char have[72];
	int rc;

	if (!path || !path_exists(path))
		return 0;
	set_error_routine(ignore_report);
	set_warning_routine(ignore_report);
	rc = corpus_load(out, path);
	set_error_routine(old_err);
	set_warning_routine(old_warn);
	if (rc < 0)
		return 0;
	corpus_fingerprint(out, have);
	if (fp && strcmp(have, fp)) {
		corpus_release(out);
		return 0;
	}
	return 1;
}

int corpus_store_get(const char *set_dir, const char *fp, struct corpus *out)
{
	char *path = store_path(set_dir, fp);
	int rc = path ? corpus_load_if(path, fp, out) : 0;

	free(path);
	return rc;
}

int set_corpus_load_labelled(const struct set *s, const char *set_dir, struct corpus *c)
{
	const char *want = s->has_corpus ? s->corpus.fingerprint : NULL;
	char *path = set_corpus_path(s, set_dir), have[72];
	int ret = LABELLED_NONE;

	if (!path)
		return LABELLED_NONE;
	if (!path_exists(path) && path_exists(s->corpus.path)) {
		/* written relative to the working directory (compatibility) */
		free(path);
		path = xstrdup(s->corpus.path);
	}
	if (path_exists(path)) {
		if (corpus_load(c, path) < 0) {
			ret = -1;
			goto out;
		}
		corpus_fingerprint(c, have);
		if (!want || !*want || !strcmp(have, want)) {
			ret = LABELLED_FILE;
			goto out;
		}
	}
	if (want && *want) {
		struct corpus copy = CORPUS_INIT;

		if (corpus_store_get(set_dir, want, &copy)) {
			note("corpus '%s' %s since %s was labelled; using the copy of the corpus it "
			     "was labelled on (%.19s) kept in %s/.evalset/corpora", path,
			     c->nr ? "changed" : "is missing", s->version ? s->version : "the set",
			     want, set_dir && *set_dir ? set_dir : ".");
			corpus_release(c);
			*c = copy;
			ret = LABELLED_COPY;
			goto out;
		}
	}
	if (!path_exists(path)) {
		warning("corpus '%s' the set records not found (looked for '%s'); chunk ids and "
			"the corpus fingerprint not checked", s->corpus.path, path);
		goto out;
	}
	warning("corpus '%s' has fingerprint %.19s but %s was labelled on %.19s, and no copy of "
		"that one is kept: labels without evidence whose chunk changed cannot be found "
		"(give the old corpus with --old-corpus)", path, have,
		s->version ? s->version : s->name ? s->name : "the set", want);
	ret = LABELLED_CHANGED;
out:
	free(path);
	return ret;
}
