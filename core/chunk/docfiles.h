/*
 * docfiles: the documents that `evalset chunk` reads, found under the files
 * and folders it is given, and the check that its output would not replace
 * or join them. Uses document.h (which names a document kind); nothing below
 * calls it.
 */
#ifndef EVALSET_DOCFILES_H
#define EVALSET_DOCFILES_H

#include <stddef.h>

/* Documents found under the arguments of chunk, in name order. */
struct doc_files {
	char **files;   /* path to read */
	char **names;   /* name to record */
	size_t nr, alloc;
};
#define DOC_FILES_INIT { NULL, NULL, 0, 0 }
/*
 * Add the documents 'args' name to 'out': a file is taken as named (its name
 * as given); a folder is walked (hidden entries skipped), taking the regular
 * files whose kind document_kind_of knows, each named by its path relative
 * to the folder. The walk never leaves the folder: a symbolic link is
 * followed only when its target lies inside the folder (resolved), and is
 * skipped with a warning otherwise (or when it leads nowhere); a folder or
 * file already read (same device and inode: a link loop, a second link to
 * it) is skipped with a note. Files named by more than one argument are
 * refused. Return 0 or -1 (reported: a missing path, a file of unknown kind
 * named on its own, a name that is not UTF-8, a folder without documents).
 */
int doc_files_find(const char *const *args, size_t nr, struct doc_files *out);
/*
 * Refuse (-1, reported) an 'output' for the corpus that would replace one of
 * the documents 'files' found under 'args' (the same file, by device and
 * inode), or that lies inside one of the folders 'args' names (outside its
 * hidden parts) with a name document_kind_of knows, so that the next run
 * would read the corpus as a document. "-" and other places: return 0.
 */
int doc_files_check_output(const char *const *args, size_t nr, const struct doc_files *files,
			   const char *output);
void doc_files_release(struct doc_files *f);

#endif
