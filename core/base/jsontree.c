/*
 * jsontree: cJSON members read and added, and a tree written out as JSON
 * text (see jsontree.h).
 */
#include "base/jsontree.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *json_get_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

void json_add_str_or_null(cJSON *o, const char *key, const char *s)
{
	cJSON_AddItemToObject(o, key, s ? cJSON_CreateString(s) : cJSON_CreateNull());
}

void json_add_num_or_null(cJSON *o, const char *key, double x)
{
	cJSON_AddItemToObject(o, key, isfinite(x) ? cJSON_CreateNumber(x) : cJSON_CreateNull());
}

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
	struct strbuf sb = STRBUF_INIT;
	int rc;

	json_add_tree(&sb, j, pretty);
	rc = write_stdout(sb.buf, sb.len);
	strbuf_release(&sb);
	return rc;
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
