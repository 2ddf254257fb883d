/*
 * init: create a new, empty set directory (docs/sets.md).
 *
 * Writes DIR/set.yaml (refusing to replace an existing one), DIR/.evalset/
 * and DIR/.gitignore (ignoring .evalset/). With --corpus, records the
 * corpus path relative to DIR (the convention of docs/versions.md), its
 * fingerprint and its chunk count.
 */
#include "builtin.h"
#include "set/corpus.h"
#include "set/corpusstore.h"
#include "base/fsutil.h"
#include "set/set.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const init_usage[] = {
	"evalset init <set> [--corpus <file>] [--description <text>]",
	NULL,
};

static bool valid_name(const char *s)
{
	if (!*s || *s == '.')
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' || *s == '-'))
			return false;
	return true;
}

int cmd_init(int argc, const char **argv)
{
	const char *corpus_path = NULL, *description = NULL;
	const char *lock_wait = NULL;
	struct option opts[] = {
		OPT_STRING(0, "corpus", &corpus_path, "file",
			   "record the corpus (JSONL) the chunk ids refer to"),
		OPT_STRING(0, "description", &description, "text", "a one-line description"),
		OPT_LOCK_WAIT(&lock_wait),
		OPT_END(),
	};
	struct set_ref ref = SET_REF_INIT;
	struct set s = SET_INIT;
	struct corpus corpus = CORPUS_INIT;
	struct lock_file lock = LOCK_FILE_INIT;
	struct strbuf yaml = STRBUF_INIT;
	char *ignore = NULL;
	int ret = EXIT_BAD_INPUT;

	argc = parse_options(argc, argv, opts, init_usage);
	apply_lock_wait(lock_wait, init_usage, opts);
	if (argc != 1)
		usage_with_options(init_usage, opts);
	if (strchr(argv[0], '@') || ends_with(argv[0], ".yaml"))
		die(EXIT_BAD_INPUT, "'%s' is not a set directory: init takes sets/NAME", argv[0]);
	if (set_ref_resolve(&ref, argv[0], false) < 0)
		goto out;
	if (!valid_name(ref.name)) {
		error("bad set name '%s': use letters, digits, '.', '_' and '-'", ref.name);
		goto out;
	}
	if (path_exists(ref.file)) {
		error("a set already exists at '%s'; not overwriting it", ref.file);
		goto out;
	}
	s.name = xstrdup(ref.name);
	s.description = xstrdup(description);
	if (corpus_path) {
		char fp[72];
		if (corpus_load(&corpus, corpus_path) < 0)
			goto out;
		corpus_fingerprint(&corpus, fp);
		s.has_corpus = true;
		s.corpus.fingerprint = xstrdup(fp);
		s.corpus.chunks = (long)corpus.nr;
	}
	/* the lock first: it makes the set directory, which the corpus path is relative to */
	if (set_lock_take(&lock, &ref) < 0)
		goto out;
	if (corpus_path)  /* recorded relative to the set directory (docs/versions.md) */
		s.corpus.path = path_relative_to(corpus_path, ref.dir);
	if (set_to_yaml(&s, &yaml) < 0)
		goto out;
	if (write_file_new(ref.file, yaml.buf, yaml.len) < 0)
		goto out;
	ignore = path_join(ref.dir, ".gitignore");
	if (!path_exists(ignore) && write_file_new(ignore, ".evalset/\n", 10) < 0)
		goto out;
	if (corpus_path)  /* kept, so that a corpus re-chunked in place can be compared */
		corpus_store_put(ref.dir, &corpus, s.corpus.fingerprint);
	printf("initialised empty set '%s' in %s\n", ref.name, ref.file);
	if (corpus_path)
		printf("corpus %s: %zu chunks, fingerprint %s\n", corpus_path, corpus.nr,
		       s.corpus.fingerprint);
	ret = EXIT_OK;
out:
	lock_release(&lock);
	free(ignore);
	strbuf_release(&yaml);
	corpus_release(&corpus);
	set_release(&s);
	set_ref_release(&ref);
	return ret;
}
