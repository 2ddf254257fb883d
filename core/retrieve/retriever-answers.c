/*
 * retriever-answers: answers computed elsewhere (a retriever function called
 * from the Python package, another program), read from a JSONL file and put
 * through the same checks as a command's replies (see retriever.h).
 *
 * The file holds one object per question, in any order:
 *   {"qid": "q-0001", "results": [...], "abstained": false, "latency_ms": 3.1}
 *   {"qid": "q-0002", "error": "ValueError: index not loaded"}
 * A line that is not such an object, names a question the job lacks or
 * one already answered on an earlier line is bad input (FILE:LINE, nothing
 * kept). A line whose "error" says the retriever failed on the question, or
 * whose results fail the reply checks, leaves that question unanswered and
 * is reported naming FILE:LINE and the question: the job then ends with
 * ERR_REMOTE, as a command that failed would, keeping every other answer.
 */
#include "retrieve/retriever.h"
#include "base/error.h"
#include "base/lineio.h"
#include "base/strmap.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ANSWER_LINE_MAX (64u << 20)

int retrieve_answers(const char *path, struct job *job)
{
	struct line_reader lr;
	struct strbuf line = STRBUF_INIT, why = STRBUF_INIT;
	struct strmap index = STRMAP_INIT;
	bool *seen = xcalloc(job->nr ? job->nr : 1, sizeof(*seen));
	size_t failed = 0, missing = 0, first_missing = 0;
	int r, rc = ERR_INPUT;

	if (line_reader_open(&lr, path, ANSWER_LINE_MAX) < 0)
		goto out_free;
	for (size_t i = 0; i < job->nr; i++)
		strmap_put(&index, job->qid[i], (void *)(uintptr_t)(i + 1));
	while ((r = line_reader_next(&lr, &line)) == 1) {
		cJSON *o = cJSON_ParseWithLength(line.buf, line.len);
		const cJSON *qid = cJSON_GetObjectItemCaseSensitive(o, "qid");
		const cJSON *err = cJSON_GetObjectItemCaseSensitive(o, "error");
		const cJSON *lat = cJSON_GetObjectItemCaseSensitive(o, "latency_ms");
		size_t i;

		if (!cJSON_IsObject(o) || !cJSON_IsString(qid)) {
			error_at(path, lr.lineno, 0, "not an answer: a JSON object with a \"qid\" string");
			cJSON_Delete(o);
			goto out;
		}
		i = (uintptr_t)strmap_get(&index, qid->valuestring);
		if (!i) {
			error_at(path, lr.lineno, 0, "an answer to '%s', which the set does not ask",
				 qid->valuestring);
			cJSON_Delete(o);
			goto out;
		}
		if (seen[--i]) {
			error_at(path, lr.lineno, 0, "a second answer to '%s'", qid->valuestring);
			cJSON_Delete(o);
			goto out;
		}
		seen[i] = true;
		if (lat && (!cJSON_IsNumber(lat) || !isfinite(lat->valuedouble) || lat->valuedouble < 0)) {
			error_at(path, lr.lineno, 0, "\"latency_ms\" is not a number of milliseconds");
			cJSON_Delete(o);
			goto out;
		}
		if (err) {
			error_at(path, lr.lineno, 0, "the retriever failed on '%s': %s", qid->valuestring,
				 cJSON_IsString(err) ? err->valuestring : "(no message)");
			failed++;
			cJSON_Delete(o);
			continue;
		}
		job->ans[i].latency_ms = lat ? lat->valuedouble : 0;
		strbuf_reset(&why);
		if (job_accept_reply(job, i, o, &why) < 0) {
			error_at(path, lr.lineno, 0, "bad answer to '%s': %s", qid->valuestring, why.buf);
			failed++;
		}
		cJSON_Delete(o);
	}
	if (r < 0)
		goto out;
	for (size_t i = job->nr; i-- > 0;)
		if (!seen[i]) {
			missing++;
			first_missing = i;
		}
	if (missing)
		error("'%s' has no answer to %zu of the %zu questions (the first: '%s')", path,
		      missing, job->nr, job->qid[first_missing]);
	rc = failed || missing ? ERR_REMOTE : 0;
out:
	line_reader_close(&lr);
out_free:
	free(seen);
	strmap_clear(&index, 0);
	strbuf_release(&line);
	strbuf_release(&why);
	return rc;
}
