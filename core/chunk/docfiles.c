/*
 * docfiles: finding the documents under chunk's arguments (see docfiles.h).
 */
#include "chunk/docfiles.h"
#include "chunk/document.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/utf8.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
static void add_file(struct doc_files *f, const char *file, const char *name)
{
	ALLOC_GROW(f->files, f->nr + 1, f->alloc);
	f->names = xreallocarray(f->names, f->alloc, sizeof(*f->names));
	f->files[f->nr] = xstrdup(file);
	f->names[f->nr] = xstrdup(name);
	f->nr++;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The walk of one folder argument. Links are followed only to what lies
 * inside the folder ('root', resolved), and every folder and file is read
 * once, by its (device, inode): a link back to a folder above it, two links
 * to one folder, or a link to a document read under another name, are
 * skipped with a note, so no link makes the walk leave the folder or loop.
 */
struct walk_state {
	const char *arg;        /* the folder as given */
	char *root;             /* its real path */
	struct seen_node {
		dev_t dev;
		ino_t ino;
		char *name;         /* as read ("" for the folder itself) */
	} *seen;
	size_t nr_seen, alloc_seen;
};

/* Return the name 'st' was read under, or NULL; remember it as 'name' when new. */
static const char *seen_before(struct walk_state *w, const struct stat *st, const char *name)
{
	for (size_t i = 0; i < w->nr_seen; i++)
		if (w->seen[i].dev == st->st_dev && w->seen[i].ino == st->st_ino)
			return w->seen[i].name;
	ALLOC_GROW(w->seen, w->nr_seen + 1, w->alloc_seen);
	w->seen[w->nr_seen].dev = st->st_dev;
	w->seen[w->nr_seen].ino = st->st_ino;
	w->seen[w->nr_seen].name = xstrdup(name);
	w->nr_seen++;
	return NULL;
}

/*
 * Look at the entry 'path' of the walk: set '*st' to what it
 * is and '*real' (caller frees) to the path to read it by: itself, or for a
 * symbolic link its target. Return 1 to take it, 0 to skip it (said so), or
 * -1 (reported).
 */
static int walk_entry(struct walk_state *w, const char *path, struct stat *st, char **real)
{
	char *target;

	*real = NULL;
	if (lstat(path, st) < 0)
		return error("cannot read '%s': %s", path, strerror(errno));
	if (!S_ISLNK(st->st_mode)) {
		*real = xstrdup(path);
		return 1;
	}
	if (!(target = realpath(path, NULL))) {
		warning("skipping '%s': a symbolic link that leads nowhere (%s)", path, strerror(errno));
		return 0;
	}
	if (!path_inside(target, w->root)) {
		warning("skipping '%s': a symbolic link to '%s', outside the folder '%s'", path, target,
			w->arg);
		free(target);
		return 0;
	}
	if (stat(target, st) < 0) {
		warning("skipping '%s': %s", path, strerror(errno));
		free(target);
		return 0;
	}
	*real = target;
	return 1;
}

/* Add the documents under 'dir' (relative name 'rel', "" at the top). */
static int walk_dir(struct doc_files *f, struct walk_state *w, const char *dir, const char *rel, int depth)
{
	DIR *dp;
	struct dirent *de;
	char **names = NULL;
	size_t nr = 0, alloc = 0;
	int rc = 0;

	if (depth > 64)
		return error("'%s': folders nested too deep", dir);
	if (!(dp = opendir(dir)))
		return error("cannot open folder '%s': %s", dir, strerror(errno));
	while ((de = readdir(dp))) {
		if (de->d_name[0] == '.')
			continue;
		ALLOC_GROW(names, nr + 1, alloc);
		names[nr++] = xstrdup(de->d_name);
	}
	closedir(dp);
	if (nr)
		qsort(names, nr, sizeof(*names), cmp_str);
	for (size_t i = 0; i < nr; i++) {
		char *path = path_join(dir, names[i]);
		char *name = *rel ? xstrfmt("%s/%s", rel, names[i]) : xstrdup(names[i]);
		char *real = NULL;
		const char *before;
		struct stat st;
		int take = rc ? 0 : walk_entry(w, path, &st, &real);

		if (take < 0) {
			rc = -1;
		} else if (!take) {
			;
		} else if (S_ISDIR(st.st_mode)) {
			if ((before = seen_before(w, &st, name)))
				note("skipping '%s': the folder '%s' is read already (a link loop, or a second "
				     "link to it)", path, *before ? before : w->arg);
			else
				rc = walk_dir(f, w, real, name, depth + 1);
		} else if (document_kind_of(names[i]) < 0) {
			;
		} else if (!S_ISREG(st.st_mode)) {
			warning("skipping '%s': not a regular file", path);
		} else if ((before = seen_before(w, &st, name))) {
			note("skipping '%s': the same file as '%s', read already", path, before);
		} else if (!utf8_valid(name, strlen(name), NULL)) {
			rc = error("'%s': the name is not UTF-8, and a corpus holds only UTF-8; rename it", path);
		} else {
			add_file(f, real, name);
		}
		free(real);
		free(path);
		free(name);
		free(names[i]);
	}
	free(names);
	return rc;
}

/* Walk the folder argument 'arg' into 'out'. Return 0 or -1 (reported). */
static int walk_folder(struct doc_files *out, const char *arg)
{
	struct walk_state w = { arg, NULL, NULL, 0, 0 };
	struct stat st;
	int rc = -1;

	if (!(w.root = realpath(arg, NULL)) || stat(w.root, &st) < 0) {
		error("cannot read folder '%s': %s", arg, strerror(errno));
		goto out;
	}
	seen_before(&w, &st, "");
	rc = walk_dir(out, &w, arg, "", 0);
out:
	for (size_t i = 0; i < w.nr_seen; i++)
		free(w.seen[i].name);
	free(w.seen);
	free(w.root);
	return rc;
}

int doc_files_find(const char *const *args, size_t nr, struct doc_files *out)
{
	size_t before;

	for (size_t i = 0; i < nr; i++) {
		if (!path_exists(args[i]))
			return error("no such file or folder '%s'", args[i]);
		if (is_dir(args[i])) {
			before = out->nr;
			if (walk_folder(out, args[i]) < 0)
				return -1;
			if (out->nr == before)
				return error("no documents (.md, .txt, .html) in folder '%s'", args[i]);
		} else if (document_kind_of(args[i]) < 0) {
			return error("'%s' is not a document evalset reads (.md, .markdown, .txt, "
				     ".text, .html, .htm, .xhtml)", args[i]);
		} else if (!utf8_valid(args[i], strlen(args[i]), NULL)) {
			return error("'%s': the name is not UTF-8, and a corpus holds only UTF-8; rename it",
				     args[i]);
		} else {
			add_file(out, args[i], args[i]);
		}
	}
	for (size_t i = 0; i < out->nr; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(out->names[i], out->names[j]))
				return error("two documents would both be named '%s' ('%s' and '%s')",
					     out->names[i], out->files[j], out->files[i]);
	return 0;
}

/* Return the resolved path 'path' would have once written (its folder
 * resolved, its own name kept), or NULL when its folder does not exist. */
static char *resolve_new_path(const char *path)
{
	char *dir, *rdir, *out;
	const char *base = strrchr(path, '/');

	if ((out = realpath(path, NULL)))
		return out;
	dir = dir_name(path);
	rdir = realpath(dir, NULL);
	free(dir);
	if (!rdir)
		return NULL;
	out = path_join(rdir, base ? base + 1 : path);
	free(rdir);
	return out;
}

/* True when the path 'rel' (under a walked folder) has a hidden part, which
 * the walk never reads. */
static bool hidden_part(const char *rel)
{
	for (const char *p = rel; *p; p++)
		if (*p == '.' && (p == rel || p[-1] == '/'))
			return true;
	return false;
}

int doc_files_check_output(const char *const *args, size_t nr, const struct doc_files *files,
			   const char *output)
{
	struct stat out_st, st;
	char *real = NULL;
	int rc = 0;

	if (!strcmp(output, "-"))
		return 0;
	if (stat(output, &out_st) == 0) {
		for (size_t i = 0; i < files->nr; i++)
			if (stat(files->files[i], &st) == 0 && st.st_dev == out_st.st_dev &&
			    st.st_ino == out_st.st_ino)
				return error("refusing to write the corpus to '%s': it is the document '%s' "
					     "that chunk reads", output, files->files[i]);
	}
	if (document_kind_of(output) < 0 || !(real = resolve_new_path(output)))
		goto out;
	for (size_t i = 0; i < nr && !rc; i++) {
		char *root;

		if (!is_dir(args[i]) || !(root = realpath(args[i], NULL)))
			continue;
		if (path_inside(real, root) && !hidden_part(real + strlen(root)))
			rc = error("refusing to write the corpus to '%s': it is inside the folder '%s' that "
				   "chunk reads, and with a document's extension the next run would read it "
				   "as a document (name it .jsonl, or write it elsewhere)", output, args[i]);
		free(root);
	}
out:
	free(real);
	return rc;
}

void doc_files_release(struct doc_files *f)
{
	for (size_t i = 0; i < f->nr; i++) {
		free(f->files[i]);
		free(f->names[i]);
	}
	free(f->files);
	free(f->names);
	memset(f, 0, sizeof(*f));
}
