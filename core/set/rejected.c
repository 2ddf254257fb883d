/*
 * rejected: the reviewer's rejected questions beside the set (see
 * rejected.h). Loaded and saved through the set's own YAML code, so the
 * same refusals and atomic writes apply.
 */
#include "set/rejected.h"
#include "base/fsutil.h"
#include "base/util.h"
#include "set/set.h"

#include <stdlib.h>
#include <string.h>

char *rejected_path(const struct set_ref *ref)
{
	return path_join(ref->dir, REJECTED_FILE);
}

int rejected_load(const struct set_ref *ref, struct set *out)
{
	char *path = rejected_path(ref);
	int rc = 0;

	if (path_exists(path)) {
		rc = set_load(out, path);
	} else {
		out->name = xstrdup(ref->name);
		out->description = xstrdup("questions rejected in review: kept out of the set, "
					   "never proposed again by generate");
	}
	free(path);
	return rc;
}

int rejected_add(const struct set_ref *ref, const struct question *q)
{
	struct set list = SET_INIT;
	char *path = rejected_path(ref);
	long at;
	int rc = -1;

	if (rejected_load(ref, &list) < 0)
		goto out;
	if ((at = set_index(&list, q->id)) >= 0) {
		/* rejected again (a rejection a crash left in both places): one entry, the latest */
		question_release(&list.q[at]);
		memset(&list.q[at], 0, sizeof(list.q[at]));
		question_copy(&list.q[at], q);
	} else {
		question_copy(set_append(&list), q);
	}
	rc = set_save(&list, path);
out:
	set_release(&list);
	free(path);
	return rc;
}

int rejected_remove(const struct set_ref *ref, const char *id)
{
	struct set list = SET_INIT;
	char *path = rejected_path(ref);
	long at;
	int rc = -1;

	if (rejected_load(ref, &list) < 0)
		goto out;
	rc = 0;
	if ((at = set_index(&list, id)) >= 0) {
		set_remove(&list, (size_t)at);
		rc = set_save(&list, path);
	}
out:
	set_release(&list);
	free(path);
	return rc;
}
