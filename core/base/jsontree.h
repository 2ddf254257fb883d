/*
 * jsontree: the one way a cJSON tree is written out as JSON text: appended
 * to a buffer, printed on standard output, or written to a file
 * atomically. Each writes the text (indented as cJSON_Print when 'pretty',
 * else on one line) followed by a newline, and frees the tree: the caller
 * hands it over. Out of memory aborts, as the x* allocators do.
 */
#ifndef EVALSET_JSONTREE_H
#define EVALSET_JSONTREE_H

#include <stdbool.h>

#include "base/strbuf.h"

struct cJSON;

/* Append 'j' and a newline to 'out'; free 'j'. */
void json_add_tree(struct strbuf *out, struct cJSON *j, bool pretty);
/*
 * Print 'j' and a newline on standard output and flush it; free 'j'.
 * Return 0, or -1 (reported) when standard output does not take it.
 */
int json_print_tree(struct cJSON *j, bool pretty);
/* Write 'j' and a newline to 'path' atomically; free 'j'. Return 0 or -1 (reported). */
int json_write_tree(const char *path, struct cJSON *j, bool pretty);

#endif
