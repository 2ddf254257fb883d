/*
 * rm: remove questions from a set's working copy.
 *
 * Every id must exist, or nothing is removed. The highest id number the set
 * held is recorded in .evalset/ids before the working copy is rewritten, so
 * add never hands a removed id out again. Runs under the set's lock.
 */
#include "builtin.h"
#include "base/termtext.h"
#include "base/fsutil.h"
#include "set/set.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>

static const char *const rm_usage[] = {
	"evalset rm <set> <id>...",
	NULL,
};

/* Open the set and check that every id of 'ids' is in it. Return 0 or -1. */
static int open_and_find(struct set *s, const struct set_ref *ref, int nr, const char **ids)
{
	if (set_open_ref(s, ref, true) < 0)
		return -1;
	for (int i = 0; i < nr; i++) {
		if (!set_find(s, ids[i])) {
			error("no question '%s' in '%s'; nothing removed", ids[i], ref->file);
			set_release(s);
			return -1;
		}
	}
	return 0;
}

int cmd_rm(int argc, const char **argv)
{
	const char *lock_wait = NULL;
	struct option opts[] = { OPT_LOCK_WAIT(&lock_wait), OPT_END() };
	struct set_ref ref = SET_REF_INIT;
	struct set s = SET_INIT;
	struct lock_file lock = LOCK_FILE_INIT;
	struct string_list removed = STRING_LIST_INIT;
	int ret = EXIT_BAD_INPUT;
	long floor_id;

	argc = parse_options(argc, argv, opts, rm_usage);
	apply_lock_wait(lock_wait, rm_usage, opts);
	if (argc < 2)
		usage_with_options(rm_usage, opts);
	if (set_ref_resolve(&ref, argv[0], false) < 0)
		goto out;
	if (ref.tag) {
		error("cannot remove from frozen version '%s'; versions are never rewritten",
		      argv[0]);
		goto out;
	}
	if (set_ref_resolve(&ref, argv[0], true) < 0)
		goto out;
	if (open_and_find(&s, &ref, argc - 1, argv + 1) < 0)
		goto out;
	set_release(&s);
	if (set_lock_take(&lock, &ref) < 0)
		goto out;
	if (open_and_find(&s, &ref, argc - 1, argv + 1) < 0)
		goto out;
	floor_id = set_id_floor(&ref);
	if (set_id_floor_write(&ref, floor_id) < 0)
		goto out;
	for (int i = 1; i < argc; i++) {
		long idx = set_index(&s, argv[i]);
		if (idx < 0)
			continue;  /* the same id given twice */
		set_remove(&s, (size_t)idx);
		string_list_append(&removed, argv[i]);
	}
	if (set_save(&s, ref.file) < 0)
		goto out;
	for (size_t i = 0; i < removed.nr; i++)
		printf("removed %s\n", term_visible(removed.items[i]));
	ret = EXIT_OK;
out:
	string_list_clear(&removed);
	lock_release(&lock);
	set_release(&s);
	set_ref_release(&ref);
	return ret;
}
