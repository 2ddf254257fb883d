/*
 * jsontree: what every user of a cJSON tree shares: reading a string
 * member, adding a value that may be missing (as null), and the one way a
 * tree is written out as JSON text: appended to a buffer, printed on
 * standard output, or written to a file atomically. Each writer writes the
 * text (indented as cJSON_Print when 'pretty', else on one line) followed
 * by a newline, and frees the tree: the caller hands it over. Out of memory
 * aborts, as the x* allocators do.
 */
#ifndef EVALSET_JSONTREE_H
#define EVALSET_JSONTREE_H

#include <stdbool.h>

#include "base/strbuf.h"

struct cJSON;

/* Return the string member 'key' of 'o', or NULL (no object, no such member, not a string). */
const char *json_get_str(const struct cJSON *o, const char *key);
/* Add 's' to object 'o' as member 'key', or null when 's' is NULL. */
void json_add_str_or_null(struct cJSON *o, const char *key, const char *s);
/* Add 'x' to object 'o' as member 'key', or null when it is not finite (NaN, infinity). */
void json_add_num_or_null(struct cJSON *o, const char *key, double x);

/* Append 'j' and a newline to 'out'; free 'j'. */
void json_add_tree(struct strbuf *out, struct cJSON *j, bool pretty);
/* Print 'j' and a newline on standard output (write_stdout); free 'j'. Return 0 or -1 (reported). */
int json_print_tree(struct cJSON *j, bool pretty);
/* Write 'j' and a newline to 'path' atomically; free 'j'. Return 0 or -1 (reported). */
int json_write_tree(const char *path, struct cJSON *j, bool pretty);

#endif
