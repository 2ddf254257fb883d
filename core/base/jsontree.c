/*
 * jsontree: a cJSON tree written out as JSON text (see jsontree.h).
 */
#include "base/jsontree.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The text of 'j'; 'j' freed. Never NULL. */
static char *text_of(cJSON *j, bool pretty)
{
	char *text = pretty ? cJSON_Print(j) : cJSON_PrintUnformatted(j);

	cJSON_Delete(j);
	if (!text) {
		fputs("fatal: out of memory\n", stderr);
		abort();
	}
	return text;
}

void json_add_tree(struct strbuf *out, cJSON *j, bool pretty)
{
	char *text = text_of(j, pretty);

	strbuf_addstr(out, text);
	strbuf_addch(out, '\n');
	cJSON_free(text);
}

int json_print_tree(cJSON *j, bool pretty)
{
	char *text = text_of(j, pretty);
	int bad = fputs(text, stdout) == EOF || putchar('\n') == EOF || fflush(stdout) != 0;

	cJSON_free(text);
	if (bad)
		return error("cannot write to standard output: %s", strerror(errno));
	return 0;
}

int json_write_tree(const char *path, cJSON *j, bool pretty)
{
	struct strbuf sb = STRBUF_INIT;
	int rc;

	json_add_tree(&sb, j, pretty);
	rc = write_file_atomic(path, sb.buf, sb.len);
	strbuf_release(&sb);
	return rc;
}
