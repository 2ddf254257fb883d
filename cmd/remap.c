/*
 * remap: carry a set's labels to a new chunking of its documents (a corpus
 * made by evalset chunk, or any corpus whose chunks record doc, start and
 * end). Each label follows its evidence: the new chunks that contain it
 * become relevant with the same grade; a label whose evidence is no longer
 * in the documents is reported as stale. The result replaces the set's
 * working copy (or goes to -o FILE), recording the new corpus and its
 * fingerprint, ready to tag. A working copy whose questions differ from the
 * version being remapped is kept unless --force is given, and so is
 * everything when most labels would be lost (stale or not mappable: a
 * corpus of other documents, or an empty one). The summary
 * counts labels mapped 1:1, 1:n, stale and not mappable, and lists the
 * last two.
 */
#include "builtin.h"
#include "base/fsutil.h"
#include "base/util.h"
#include "chunk/remap.h"
#include "set/corpus.h"
#include "set/corpuscheck.h"
#include "set/corpusstore.h"
#include "set/set.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const remap_usage[] = {
	"evalset remap <set>[@<tag>] --corpus <new.jsonl> [--old-corpus <old.jsonl>]\n"
	"              [-o <file>] [--dry-run] [--force]",
	NULL,
};

static void print_summary(const struct remap_report *r, const char *from, const struct corpus *c)
{
	size_t split = 0;

	for (size_t i = 0; i < r->nr; i++)
		split += r->labels[i].split;
	printf("remapped %zu labels from %s to %s (%zu chunks)\n", r->nr, from, c->path, c->nr);
	printf("  mapped 1:1     %5zu\n", r->count[REMAP_ONE]);
	printf("  mapped 1:n     %5zu  (%zu split across chunks)\n", r->count[REMAP_MANY], split);
	printf("  stale          %5zu\n", r->count[REMAP_STALE]);
	printf("  not mappable   %5zu\n", r->count[REMAP_UNMAPPABLE]);
	if (r->moved)
		printf("  found again by their quote in edited documents: %zu\n", r->moved);
	if (r->dropped_irrelevant)
		printf("  judged-irrelevant chunks not carried: %zu\n", r->dropped_irrelevant);
	for (int o = REMAP_STALE; o <= REMAP_UNMAPPABLE; o++) {
		if (!r->count[o])
			continue;
		printf("%s:\n", o == REMAP_STALE ? "stale (the documents no longer hold the evidence)"
						 : "not mappable");
		for (size_t i = 0; i < r->nr; i++)
			if ((int)r->labels[i].outcome == o)
				printf("  %s %s: %s\n", r->labels[i].question, r->labels[i].chunk,
				       r->labels[i].why ? r->labels[i].why : "");
	}
	if (r->emptied)
		printf("questions left without a relevant chunk: %zu (now answerable: false, "
		       "tagged stale or unmapped; review them)\n", r->emptied);
}

/* Return true when most labels (more than half) would go stale or be not
 * mappable: a remap onto a corpus of other documents, or an empty one. */
static bool mostly_lost(const struct remap_report *r)
{
	return r->nr && 2 * (r->count[REMAP_STALE] + r->count[REMAP_UNMAPPABLE]) > r->nr;
}

/* Return 0 when writing 'ref->dir'/set.yaml loses nothing: no working copy,
 * or one whose questions equal those of 's'. */
static int working_copy_safe(const struct set_ref *ref, const struct set *s)
{
	char *file = path_join(ref->dir, "set.yaml");
	struct set wc = SET_INIT;
	char a[72], b[72];
	int rc = 0;

	if (ref->tag && path_exists(file)) {
		if (set_load(&wc, file) < 0) {
			rc = -1;
		} else {
			set_content_digest(&wc, a);
			set_content_digest(s, b);
			if (strcmp(a, b))
				rc = error("the working copy '%s' has changes that are not in '%s@%s'; "
					   "give --force to replace it, or -o to write elsewhere",
					   file, ref->name, ref->tag);
		}
	}
	set_release(&wc);
	free(file);
	return rc;
}

int cmd_remap(int argc, const char **argv)
{
	const char *corpus_arg = NULL, *old_arg = NULL, *output = NULL;
	int dry_run = 0, force = 0;
	const char *lock_wait = NULL;
	struct option opts[] = {
		OPT_STRING(0, "corpus", &corpus_arg, "file", "the new corpus (JSONL)"),
		OPT_STRING(0, "old-corpus", &old_arg, "file",
			   "the corpus the labels refer to (default: the one the set names)"),
		OPT_STRING('o', "output", &output, "file",
			   "write the remapped set here instead of the working copy"),
		OPT_BOOL('n', "dry-run", &dry_run, "print the summary, write nothing"),
		OPT_BOOL(0, "force", &force,
			 "replace a working copy that has other changes; write even when most labels are lost"),
		OPT_LOCK_WAIT(&lock_wait),
		OPT_END(),
	};
	struct set_ref ref = SET_REF_INIT;
	struct set s = SET_INIT, out = SET_INIT;
	struct corpus old = CORPUS_INIT, new = CORPUS_INIT;
	struct remap_report rep = REMAP_REPORT_INIT;
	struct lock_file lock = LOCK_FILE_INIT;
	char *from = NULL, *target = NULL, *target_dir = NULL;
	int has_old = 0, ret = EXIT_BAD_INPUT;

	argc = parse_options(argc, argv, opts, remap_usage);
	apply_lock_wait(lock_wait, remap_usage, opts);
	if (argc != 1 || !corpus_arg)
		usage_with_options(remap_usage, opts);
	if (set_open(&s, &ref, argv[0]) < 0)
		goto out;
	if (old_arg)
		has_old = corpus_load(&old, old_arg) < 0 ? -1 : 1;
	else
		has_old = set_corpus_load_labelled(&s, ref.dir, &old);
	if (has_old < 0 || corpus_load(&new, corpus_arg) < 0)
		goto out;
	from = ref.tag ? xstrfmt("%s@%s", ref.name, ref.tag) : xstrfmt("%s (working copy)", ref.name);
	remap_set(&s, has_old > 0 ? &old : NULL, &new, from, &out, &rep);
	if (!dry_run && !force && mostly_lost(&rep)) {
		/* another corpus than a chunking of these documents, or an empty one */
		print_summary(&rep, from, &new);
		error("refusing to remap '%s' onto '%s': %zu of its %zu labels would be lost (%zu stale, "
		      "%zu not mappable); is it a chunking of the same documents? Nothing written; give "
		      "--force to write it anyway", from, corpus_arg,
		      rep.count[REMAP_STALE] + rep.count[REMAP_UNMAPPABLE], rep.nr, rep.count[REMAP_STALE],
		      rep.count[REMAP_UNMAPPABLE]);
		goto out;
	}
	target = output ? xstrdup(output) : path_join(ref.dir, "set.yaml");
	target_dir = dir_name(target);
	out.corpus.path = path_relative_to(corpus_arg, target_dir);
	if (!dry_run) {
		if (!output) {
			if (set_lock_take(&lock, &ref) < 0 || (!force && working_copy_safe(&ref, &s) < 0))
				goto out;
		} else if (path_exists(output) && !force) {
			error("'%s' exists; give --force to replace it", output);
			goto out;
		}
		if (set_save(&out, target) < 0)
			goto out;
		/* the corpus the set now records, kept for when its file is re-chunked in place */
		corpus_store_put(ref.dir, &new, out.corpus.fingerprint);
	}
	print_summary(&rep, from, &new);
	if (!dry_run)
		printf("wrote %s\n", target);
	ret = EXIT_OK;
out:
	lock_release(&lock);
	free(from);
	free(target);
	free(target_dir);
	remap_report_release(&rep);
	set_release(&out);
	set_release(&s);
	set_ref_release(&ref);
	corpus_release(&old);
	corpus_release(&new);
	return ret;
}
