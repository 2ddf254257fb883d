/*
 * llmbatch-results: the result lines of a batch, as the providers write
 * them, parsed and checked (a custom id given two different results); a
 * results file read whole (see llmbatch.h and llmbatch-internal.h).
 */
#include "llm/llmbatch-internal.h"
#include "base/digest.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "base/util.h"
#include "llm/journal.h"
#include "llm/llm.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int llmbatch_parse_line(const cJSON *line, const char **custom_id, char **body, char **why)
{
	const cJSON *resp, *res, *e;
	const char *t;

	*body = *why = NULL;
	*custom_id = batch_jstr(line, "custom_id");
	if (!*custom_id)
		return -1;
	if ((res = cJSON_GetObjectItemCaseSensitive(line, "result"))) {
		/* Anthropic: succeeded | errored | canceled | expired */
		t = batch_jstr(res, "type");
		if (t && !strcmp(t, "succeeded") && cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(res, "message"))) {
			*body = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(res, "message"));
			return 0;
		}
		e = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(res, "error"), "error");
		if (batch_jstr(e, "message"))
			*why = xstrfmt("%s: %s", t ? t : "failed", batch_jstr(e, "message"));
		else
			*why = xstrfmt("%s in the batch", t ? t : "failed");
		return 0;
	}
	resp = cJSON_GetObjectItemCaseSensitive(line, "response");
	e = cJSON_GetObjectItemCaseSensitive(line, "error");
	if (cJSON_IsObject(resp) && cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(resp, "status_code")) == 200 &&
	    cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(resp, "body")) && !cJSON_IsObject(e)) {
		*body = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(resp, "body"));
		return 0;
	}
	if (cJSON_IsObject(e) && batch_jstr(e, "message"))
		*why = xstrfmt("%s: %s", batch_jstr(e, "code") ? batch_jstr(e, "code") : "error", batch_jstr(e, "message"));
	else if (cJSON_IsObject(resp)) {
		struct strbuf m = STRBUF_INIT;
		char *text = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(resp, "body"));
		if (text)
			llm_error_message(text, strlen(text), &m, NULL);
		*why = xstrfmt("HTTP %g: %s", cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(resp, "status_code")),
			       m.len ? m.buf : "no message");
		free(text);
		strbuf_release(&m);
	} else {
		*why = xstrdup("failed in the batch");
	}
	return 0;
}

/* Set 'hex' to the digest of a parsed result: its reply 'body', or 'why' it failed. */
static void result_digest(const char *body, const char *why, char hex[72])
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addch(&sb, body ? 'b' : 'w');
	strbuf_addstr(&sb, body ? body : why ? why : "");
	sha256_hex(sb.buf, sb.len, hex);
	strbuf_release(&sb);
}

int batch_note_result(const cJSON *line, const struct strmap *mine, struct strmap *digests, const char **cid)
{
	char *body = NULL, *why = NULL, hex[72];
	const char *before;
	int conflict = 0;

	if (llmbatch_parse_line(line, cid, &body, &why) || (mine && !strmap_get(mine, *cid)))
		goto out;
	result_digest(body, why, hex);
	if ((before = strmap_get(digests, *cid)))
		conflict = strcmp(before, hex) != 0;
	else
		strmap_put(digests, *cid, xstrdup(hex));
out:
	free(body);
	free(why);
	return conflict;
}

/*
 * Read the next non-blank line of 'fp' into 'line' and parse it as a batch
 * result ('*nr' counts lines). Return the parsed line, NULL at the end, or
 * NULL with '*rc' -1 after an error naming 'path' and the line.
 */
static cJSON *next_result_line(FILE *fp, const char *path, struct strbuf *line, long *nr, int *rc)
{
	int got;

	while ((got = strbuf_getline(line, fp)) != EOF) {
		cJSON *j;
		const char *cid;
		char *body = NULL, *why = NULL;

		(*nr)++;
		if (got == -2) {
			*rc = error_at(path, *nr, 0, "line too long");
			return NULL;
		}
		strbuf_trim(line);
		if (!line->len)
			continue;
		j = cJSON_ParseWithLength(line->buf, line->len);
		if (!j || llmbatch_parse_line(j, &cid, &body, &why)) {
			cJSON_Delete(j);
			*rc = error_at(path, *nr, 0, "not a batch output line (no custom_id)");
			return NULL;
		}
		free(body);
		free(why);
		return j;
	}
	return NULL;
}

int llmbatch_read_file(const char *path, llmbatch_result_fn fn, void *ctx)
{
	FILE *fp = fopen_regular(path);
	struct strbuf line = STRBUF_INIT;
	struct strmap digests = STRMAP_INIT, lines = STRMAP_INIT, handed = STRMAP_INIT;
	long nr = 0;
	int rc = 0;
	cJSON *j;

	if (!fp)
		return -1;
	line.limit = JOURNAL_MAX_LINE;
	/* first, every line read and checked: a custom id given two different
	 * results refuses the file before any result is used */
	while (!rc && (j = next_result_line(fp, path, &line, &nr, &rc))) {
		const char *cid;
		if (batch_note_result(j, NULL, &digests, &cid))
			rc = error_at(path, nr, 0, "custom_id '%s' given another result than on line %ld; nothing "
				      "read from the file", cid, (long)(intptr_t)strmap_get(&lines, cid));
		else if (!strmap_get(&lines, cid))
			strmap_put(&lines, cid, (void *)(intptr_t)nr);
		cJSON_Delete(j);
	}
	if (!rc && fseek(fp, 0, SEEK_SET) < 0)
		rc = error("cannot read '%s' again: %s", path, strerror(errno));
	nr = 0;
	while (!rc && (j = next_result_line(fp, path, &line, &nr, &rc))) {
		const char *cid;
		char *body = NULL, *why = NULL;
		int stop = 0;

		llmbatch_parse_line(j, &cid, &body, &why);
		/* the same result given again is handed over once */
		if (!strmap_get(&handed, cid)) {
			strmap_put(&handed, cid, (void *)1);
			stop = fn(cid, body, body ? strlen(body) : 0, why, true, ctx);
		}
		free(body);
		free(why);
		cJSON_Delete(j);
		if (stop < 0)
			break;
	}
	fclose(fp);
	strbuf_release(&line);
	strmap_clear(&digests, 1);
	strmap_clear(&lines, 0);
	strmap_clear(&handed, 0);
	return rc;
}
