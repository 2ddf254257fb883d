/*
 * verify: check the history of every set for CI: each frozen version
 * intact and named for its tag, each parent present with the digest its
 * child recorded, no loop, the latest version's corpus fingerprint, and
 * that the working copy loads (core/set/setverify.h).
 *
 * Without arguments every set under ./sets/ is verified. Output: one line
 * per set; problems as errors. Exit 0 when everything verifies, 1 when a
 * problem was found (every one listed), 2 on bad usage or when there is no
 * set to verify.
 */
#include "builtin.h"
#include "base/fsutil.h"
#include "base/util.h"
#include "set/set.h"
#include "set/setverify.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const verify_usage[] = {
	"evalset verify [<set>...]",
	NULL
};

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Collect the sets under sets/ (directories with a set.yaml or versions/). */
static size_t list_sets(char ***out)
{
	DIR *d = opendir("sets");
	struct dirent *e;
	char **names = NULL;
	size_t nr = 0, alloc = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char *dir, *wc, *vd;
		if (e->d_name[0] == '.')
			continue;
		dir = path_join("sets", e->d_name);
		wc = path_join(dir, "set.yaml");
		vd = path_join(dir, "versions");
		if (is_dir(dir) && (path_exists(wc) || is_dir(vd))) {
			ALLOC_GROW(names, nr + 1, alloc);
			names[nr++] = xstrdup(e->d_name);
		}
		free(dir);
		free(wc);
		free(vd);
	}
	closedir(d);
	if (nr)
		qsort(names, nr, sizeof(*names), by_name);
	*out = names;
	return nr;
}

static int verify_one(const char *arg)
{
	struct set_ref ref = SET_REF_INIT;
	struct set_verify r = SET_VERIFY_INIT;
	int rc;

	if (strchr(arg, '@'))
		die(EXIT_BAD_INPUT, "'%s' names a version; verify takes a set and checks all its versions",
		    arg);
	if (set_ref_resolve(&ref, arg, false) < 0 || !is_dir(ref.dir))
		die(EXIT_BAD_INPUT, "no set at '%s'", ref.dir ? ref.dir : arg);
	rc = set_verify(&ref, &r);
	printf("%s: %s, %zu version%s", ref.dir, rc ? "FAILED" : "verified", r.versions,
	       r.versions == 1 ? "" : "s");
	if (r.latest)
		printf(" (latest %s)", r.latest);
	if (r.problems)
		printf(", %zu problem%s", r.problems, r.problems == 1 ? "" : "s");
	if (r.corpus > 0)
		printf(", corpus matches %.19s", r.corpus_fp);
	if (r.unanchored)
		printf(", %zu link%s without a parent digest (tagged by an older evalset; "
		       "anchored from the next tag on)", r.unanchored, r.unanchored == 1 ? "" : "s");
	printf("\n");
	set_verify_release(&r);
	set_ref_release(&ref);
	return rc;
}

int cmd_verify(int argc, const char **argv)
{
	struct option opts[] = {
		OPT_END(),
	};
	char **names = NULL;
	size_t nr, failed = 0;

	argc = parse_options(argc, argv, opts, verify_usage);
	if (argc > 0) {
		for (int i = 0; i < argc; i++)
			failed += verify_one(argv[i]) < 0;
		return failed ? EXIT_FAILED : EXIT_OK;
	}
	nr = list_sets(&names);
	if (!nr)
		die(EXIT_BAD_INPUT, "no sets under ./sets to verify; name a set");
	for (size_t i = 0; i < nr; i++) {
		char *dir = path_join("sets", names[i]);
		failed += verify_one(dir) < 0;
		free(dir);
		free(names[i]);
	}
	free(names);
	return failed ? EXIT_FAILED : EXIT_OK;
}
