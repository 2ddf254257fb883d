/*
 * generate-batch: `evalset generate --batch-out/--batch-in`, the OpenAI
 * Batch API route (docs/generate.md). --batch-out writes one request line
 * per planned item not yet journaled, its custom_id being the item's
 * journal key; --batch-in reads output and error files, joins lines on
 * custom_id and hands each reply to the same journal-and-apply path as a
 * live reply (gen_record_result), so a batch reply and a live one leave the
 * same journal record.
 */
#include "llm/generate-internal.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gen_batch_out(struct gen *g)
{
	struct strbuf out = STRBUF_INIT, sys = STRBUF_INIT, user = STRBUF_INIT, body = STRBUF_INIT;
	int rc = -1;

	for (size_t i = 0; i < g->nr_items; i++) {
		struct item *it = &g->items[i];
		if (it->done)
			continue;
		strbuf_reset(&sys);
		strbuf_reset(&user);
		strbuf_reset(&body);
		if (gen_render(g, it, &sys, &user))
			goto out;
		llm_request_body(g->llm, sys.buf, user.buf, LLM_JSON_SCHEMA, 0, &body);
		strbuf_addf(&out, "{\"custom_id\":\"%s\",\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\"body\":",
			    it->key);
		strbuf_add(&out, body.buf, body.len);
		strbuf_addstr(&out, "}\n");
		g->st->batch_written++;
	}
	rc = write_file_atomic(g->o->batch_out, out.buf, out.len);
out:
	strbuf_release(&out);
	strbuf_release(&sys);
	strbuf_release(&user);
	strbuf_release(&body);
	return rc;
}

int gen_batch_in(struct gen *g)
{
	int rc = 0;

	for (size_t f = 0; f < g->o->nr_batch_in && !rc; f++) {
		const char *path = g->o->batch_in[f];
		FILE *fp = fopen_regular(path);
		struct strbuf line = STRBUF_INIT;
		long nr = 0;
		int got;

		if (!fp) {
			rc = -1;
			break;
		}
		line.limit = JOURNAL_MAX_LINE;
		while ((got = strbuf_getline(&line, fp)) != EOF) {
			cJSON *j, *resp, *body;
			const char *cid;
			uintptr_t at;
			struct item *it;
			struct llm_result res;
			long status = 0;

			nr++;
			if (got == -2) {
				rc = error_at(path, nr, 0, "line too long");
				break;
			}
			strbuf_trim(&line);
			if (!line.len)
				continue;
			j = cJSON_ParseWithLength(line.buf, line.len);
			cid = gen_json_str(j, "custom_id");
			if (!j || !cid) {
				cJSON_Delete(j);
				rc = error_at(path, nr, 0, "not a Batch API output line (no custom_id)");
				break;
			}
			at = (uintptr_t)strmap_get(&g->plan, cid);
			if (!at) {
				g->st->batch_unmatched++;
				cJSON_Delete(j);
				continue;
			}
			it = &g->items[at - 1];
			g->st->batch_matched++;
			if (it->done) {
				cJSON_Delete(j);
				continue;
			}
			resp = cJSON_GetObjectItemCaseSensitive(j, "response");
			body = cJSON_GetObjectItemCaseSensitive(resp, "body");
			if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(resp, "status_code")))
				status = (long)cJSON_GetObjectItemCaseSensitive(resp, "status_code")->valuedouble;
			if (status != 200 || !cJSON_IsObject(body)) {
				g->st->batch_errors++;
				cJSON_Delete(j);
				continue;
			}
			{
				char *text = cJSON_PrintUnformatted(body);
				int r = llm_accept(g->llm, text, strlen(text), it, &res);
				(void)r;
				gen_record_result(g, it, &res);
				free(text);
			}
			cJSON_Delete(j);
			if (g->abort)
				break;
		}
		fclose(fp);
		strbuf_release(&line);
	}
	return rc;
}
