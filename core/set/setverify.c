/*
 * setverify: the checks of `evalset verify` on one set (see setverify.h).
 */
#include "set/setverify.h"
#include "set/corpus.h"
#include "set/corpuscheck.h"
#include "set/set.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Compare the corpus of the latest version 'file' with the fingerprint it recorded. */
static void verify_corpus(const struct set_ref *ref, const char *file, struct set_verify *out)
{
	struct set s = SET_INIT;
	struct corpus c = CORPUS_INIT;
	char *path = NULL, fp[72];

	if (set_load(&s, file) < 0) {
		out->problems++;
		return;
	}
	if (!s.corpus.fingerprint || !(path = set_corpus_path(&s, ref->dir)) || !path_exists(path))
		goto out;
	if (corpus_load(&c, path) < 0) {
		out->problems++;
		goto out;
	}
	corpus_fingerprint(&c, fp);
	snprintf(out->corpus_fp, sizeof(out->corpus_fp), "%s", s.corpus.fingerprint);
	if (!strcmp(fp, s.corpus.fingerprint)) {
		out->corpus = 1;
	} else {
		out->corpus = -1;
		out->problems++;
		error("corpus '%s' has fingerprint %.19s, but the latest version '%s' was tagged "
		      "against %.19s: labels may point at re-chunked text", path, fp, out->latest,
		      s.corpus.fingerprint);
	}
out:
	free(path);
	corpus_release(&c);
	set_release(&s);
}

int set_verify(const struct set_ref *ref, struct set_verify *out)
{
	struct set_versions v = SET_VERSIONS_INIT;
	char *wc = path_join(ref->dir, "set.yaml");

	if (path_exists(wc)) {
		struct set s = SET_INIT;
		if (set_load(&s, wc) < 0)
			out->problems++;
		set_release(&s);
	}
	if (set_versions_list(ref, &v) < 0) {
		out->problems++;
		goto out;
	}
	out->versions = v.nr;
	out->problems += set_versions_verify(ref, &v, &out->unanchored);
	if (v.nr) {
		out->latest = xstrdup(v.items[v.nr - 1].tag);
		if (!v.items[v.nr - 1].problem)
			verify_corpus(ref, v.items[v.nr - 1].file, out);
	}
out:
	set_versions_release(&v);
	free(wc);
	return out->problems ? -1 : 0;
}

void set_verify_release(struct set_verify *out)
{
	free(out->latest);
	out->latest = NULL;
}
