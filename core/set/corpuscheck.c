/*
 * corpuscheck: the corpus a set names, and the fingerprint warning (see
 * corpuscheck.h). The fingerprints in messages are shortened to their first
 * 12 hex digits: enough to tell two apart, short enough to read.
 */
#include "set/corpuscheck.h"
#include "set/corpus.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "set/set.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

char *set_corpus_path(const struct set *s, const char *set_dir)
{
	char *joined, *shown;

	if (!s->has_corpus || !s->corpus.path || !*s->corpus.path)
		return NULL;
	if (s->corpus.path[0] == '/' || !set_dir || !*set_dir || !strcmp(set_dir, "."))
		return xstrdup(s->corpus.path);
	joined = path_join(set_dir, s->corpus.path);
	if (set_dir[0] == '/' || !strstr(joined, "../") || !path_exists(joined))
		return joined;
	/* "sets/x/../../corpus.jsonl" is shown as the user would write it */
	shown = path_relative_to(joined, ".");
	free(joined);
	return shown;
}

/* Return the first 12 hex digits of 'fp' with its "sha256:" prefix, as a new string. */
static char *short_fp(const char *fp)
{
	size_t n = strlen(fp);
	size_t keep = starts_with(fp, "sha256:") ? 7 + 12 : 12;

	return xstrndup(fp, n < keep ? n : keep);
}

int set_corpus_verify(const struct set *s, const struct corpus *c)
{
	char fp[72];
	char *have, *want;

	if (!s->has_corpus || !s->corpus.fingerprint || !*s->corpus.fingerprint)
		return 0;
	corpus_fingerprint(c, fp);
	if (!strcmp(fp, s->corpus.fingerprint))
		return 0;
	have = short_fp(fp);
	want = short_fp(s->corpus.fingerprint);
	if (s->version)
		warning("corpus '%s' has fingerprint %s but set version %s was tagged against %s: "
			"labels may point at re-chunked text",
			c->path ? c->path : s->corpus.path, have, s->version, want);
	else
		warning("corpus '%s' has fingerprint %s but set '%s' records %s: "
			"labels may point at re-chunked text",
			c->path ? c->path : s->corpus.path, have, s->name ? s->name : "?", want);
	free(have);
	free(want);
	return 1;
}

int set_corpus_load(const struct set *s, const char *set_dir, struct corpus *c)
{
	char *path = set_corpus_path(s, set_dir);
	int ret = 0;

	if (!path)
		return 0;
	if (!path_exists(path) && path_exists(s->corpus.path)) {
		/* written relative to the working directory (compatibility) */
		free(path);
		path = xstrdup(s->corpus.path);
	}
	if (!path_exists(path)) {
		warning("corpus '%s' the set records not found (looked for '%s'); chunk ids and "
			"the corpus fingerprint not checked", s->corpus.path, path);
		goto out;
	}
	if (corpus_load(c, path) < 0) {
		ret = -1;
		goto out;
	}
	set_corpus_verify(s, c);
	ret = 1;
out:
	free(path);
	return ret;
}

int set_corpus_open(const struct set *s, const char *set_dir, const char *path, struct corpus *c)
{
	if (!path)
		return set_corpus_load(s, set_dir, c);
	if (corpus_load(c, path) < 0)
		return -1;
	set_corpus_verify(s, c);
	return 1;
}
