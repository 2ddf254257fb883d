/*
 * run-json: the JSONL and JSON run readers (contract in run.h). Both parse
 * a buffer already read whole by run_load and add questions through the
 * helpers of run-build.h, so duplicate checks and ranking are the same
 * as for TREC runs. JSONL keeps list order as the ranking; a JSON dict is
 * ranked like TREC (run_rank_cmp).
 */
#include "score/run.h"
#include "score/run-build.h"
#include "score/run-internal.h"

#include "base/error.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *json_type(const cJSON *j)
{
	if (cJSON_IsObject(j)) return "an object";
	if (cJSON_IsArray(j)) return "a list";
	if (cJSON_IsString(j)) return "a string";
	if (cJSON_IsNumber(j)) return "a number";
	if (cJSON_IsBool(j)) return "a boolean";
	if (cJSON_IsNull(j)) return "null";
	return "invalid";
}

static int parse_jsonl_meta(struct run *r, const cJSON *meta, long line)
{
	const cJSON *name;

	if (!cJSON_IsObject(meta))
		return error_at(r->path, line, 0, "'meta' is %s, not an object", json_type(meta));
	r->meta = cJSON_PrintUnformatted(meta);
	name = cJSON_GetObjectItemCaseSensitive(meta, "name");
	if (!cJSON_IsString(name))
		name = cJSON_GetObjectItemCaseSensitive(meta, "retriever");
	if (cJSON_IsString(name)) {
		free(r->name);
		r->name = xstrdup(name->valuestring);
	}
	return 0;
}

/* Append the results list 'res' (ids or {"id", "score"} objects) of
 * question 'id' to 'q'. Return 0 or -1 (reported as FILE:LINE). */
static int add_results(struct run *r, struct run_query *q, const cJSON *res, const char *id,
		       long line)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, res) {
		if (cJSON_IsString(it)) {
			run_add_doc(r, q, it->valuestring, NAN, line);
		} else if (cJSON_IsObject(it)) {
			const cJSON *did = cJSON_GetObjectItemCaseSensitive(it, "id");
			const cJSON *sc = cJSON_GetObjectItemCaseSensitive(it, "score");
			double score = NAN;

			if (!did)
				did = cJSON_GetObjectItemCaseSensitive(it, "docid");
			if (!cJSON_IsString(did))
				return error_at(r->path, line, 0, "a result of question '%s' has no string 'id'", id);
			if (sc && !cJSON_IsNull(sc)) {
				if (!cJSON_IsNumber(sc) || !isfinite(sc->valuedouble))
					return error_at(r->path, line, 0,
							"score of '%s' for question '%s' is not a finite number",
							did->valuestring, id);
				score = sc->valuedouble;
			}
			run_add_doc(r, q, did->valuestring, score, line);
		} else {
			return error_at(r->path, line, 0, "a result of question '%s' is %s, not an id or an object",
					id, json_type(it));
		}
	}
	return 0;
}

/* Check the shape of the "calls" list 'calls' of question 'id': a
 * non-empty list of objects, each with a "results" list and perhaps a
 * string "query". Return 0 or -1 (reported as FILE:LINE). */
static int check_calls(const struct run *r, const cJSON *calls, const char *id, long line)
{
	const cJSON *call;
	int n = 0;

	if (!cJSON_IsArray(calls))
		return error_at(r->path, line, 0, "'calls' of question '%s' is %s, not a list", id,
				json_type(calls));
	if (!cJSON_GetArraySize(calls))
		return error_at(r->path, line, 0, "'calls' of question '%s' is empty: an agent makes at "
				"least one call (for a plain list, give 'results')", id);
	cJSON_ArrayForEach(call, calls) {
		const cJSON *res = cJSON_GetObjectItemCaseSensitive(call, "results");
		const cJSON *query = cJSON_GetObjectItemCaseSensitive(call, "query");

		n++;
		if (!cJSON_IsObject(call))
			return error_at(r->path, line, 0, "call %d of question '%s' is %s, not an object "
					"{\"query\", \"results\"}", n, id, json_type(call));
		if (!res)
			return error_at(r->path, line, 0, "call %d of question '%s' has no 'results' (a call "
					"that found nothing gives \"results\": [])", n, id);
		if (!cJSON_IsArray(res))
			return error_at(r->path, line, 0, "'results' of call %d of question '%s' is %s, not "
					"a list", n, id, json_type(res));
		if (query && !cJSON_IsString(query) && !cJSON_IsNull(query))
			return error_at(r->path, line, 0, "'query' of call %d of question '%s' is %s, not a "
					"string", n, id, json_type(query));
	}
	return 0;
}

/*
 * Read the calls 'calls' (checked by check_calls) into 'q': its ranking is
 * the union of their results in call order, an id already brought by an
 * earlier call left where it first came; an id listed twice in one call is
 * refused like one listed twice in a plain list. Return 0 or -1 (reported).
 */
static int add_calls(struct run *r, struct run_query *q, const cJSON *calls, const char *id,
		     long line)
{
	struct strmap seen = STRMAP_INIT;  /* id -> the call (1-based) that brought it */
	const cJSON *call;
	size_t c = 0;
	int ret = 0;

	q->call_end = xcalloc((size_t)cJSON_GetArraySize(calls) + 1, sizeof(*q->call_end));
	cJSON_ArrayForEach(call, calls) {
		size_t start = q->nr, w = start;

		c++;
		ret = add_results(r, q, cJSON_GetObjectItemCaseSensitive(call, "results"), id, line);
		if (ret)
			break;  /* what was added is the query's, freed by run_release */
		for (size_t i = start; i < q->nr && !ret; i++) {
			const char *doc = q->docs[i].id;
			int added;
			struct strmap_entry *e = strmap_intern(&seen, doc, strlen(doc), &added);

			if (added) {
				e->value = (void *)(uintptr_t)c;
				q->docs[w++] = q->docs[i];
			} else if ((uintptr_t)e->value == c) {
				ret = error_at(r->path, line, 0, "document '%s' listed twice in call %zu of "
					       "question '%s'", doc, c, id);
			}
			/* else brought by an earlier call: counted there (its id
			 * stays in the run's pool until run_release) */
		}
		if (ret) {
			q->nr = w;
			break;
		}
		q->nr = w;
		q->call_end[c - 1] = (long)w;
		q->nr_calls = c;
	}
	strmap_clear(&seen, 0);
	return ret;
}

static int parse_jsonl_line(struct run *r, const cJSON *o, long line)
{
	const cJSON *qid = cJSON_GetObjectItemCaseSensitive(o, "qid");
	const cJSON *res = cJSON_GetObjectItemCaseSensitive(o, "results");
	const cJSON *calls = cJSON_GetObjectItemCaseSensitive(o, "calls");
	const cJSON *abst = cJSON_GetObjectItemCaseSensitive(o, "abstained");
	struct run_query *q;
	char num[32];
	const char *id;

	if (cJSON_IsString(qid)) {
		id = qid->valuestring;
	} else if (cJSON_IsNumber(qid) && qid->valuedouble == floor(qid->valuedouble)) {
		snprintf(num, sizeof(num), "%.0f", qid->valuedouble);
		id = num;
	} else {
		return error_at(r->path, line, 0, qid ? "'qid' is %s, not a string" : "no 'qid' in the object",
				json_type(qid));
	}
	if (res && !cJSON_IsArray(res))
		return error_at(r->path, line, 0, "'results' is %s, not a list", json_type(res));
	if (res && calls)
		return error_at(r->path, line, 0, "question '%s' gives both 'results' and 'calls': give "
				"the calls alone (its ranking is their union in call order)", id);
	if (calls && check_calls(r, calls, id, line) < 0)
		return -1;
	if (abst && !cJSON_IsBool(abst))
		return error_at(r->path, line, 0, "'abstained' is %s, not true or false", json_type(abst));
	if (!(q = run_add_query(r, id, line)))
		return -1;
	q->abstained = cJSON_IsTrue(abst);
	if (calls) {
		r->has_calls = true;
		if (add_calls(r, q, calls, id, line) < 0)
			return -1;
		r->nr_docs += (long)q->nr;
		return 0;
	}
	if (add_results(r, q, res, id, line) < 0)
		return -1;
	r->nr_docs += (long)q->nr;
	return run_check_dups(r, q);
}

static int parse_jsonl_object(struct run *r, const cJSON *o, long line);

/* Return the first member name that object 'o' holds twice, or NULL. The
 * objects checked (a line, its meta, one result) have a few keys each. */
static const char *duplicate_key(const cJSON *o)
{
	for (const cJSON *a = cJSON_IsObject(o) ? o->child : NULL; a; a = a->next)
		for (const cJSON *b = a->next; b; b = b->next)
			if (a->string && b->string && !strcmp(a->string, b->string))
				return a->string;
	return NULL;
}

/* Return true when the JSON text 'p' of 'n' bytes holds the escape \u0000
 * (a NUL, which would cut an id short) in a string. */
static bool has_nul_escape(const char *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++) {
		if (p[i] != '\\')
			continue;
		if (p[i + 1] == 'u' && i + 6 <= n && !memcmp(p + i + 2, "0000", 4))
			return true;
		i++;  /* the escaped character: "\\\\u0000" is a backslash and text */
	}
	return false;
}

/* Check the parsed line 'o' for keys given twice (the second would be
 * silently lost). Return 0, or -1 (reported as FILE:LINE). */
static int check_keys(const struct run *r, const cJSON *o, long line)
{
	const cJSON *it;
	const char *dup = duplicate_key(o);

	if (!dup)
		dup = duplicate_key(cJSON_GetObjectItemCaseSensitive(o, "meta"));
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "results"))
		if (!dup)
			dup = duplicate_key(it);
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "calls")) {
		const cJSON *res;

		if (!dup)
			dup = duplicate_key(it);
		cJSON_ArrayForEach(res, cJSON_GetObjectItemCaseSensitive(it, "results"))
			if (!dup)
				dup = duplicate_key(res);
	}
	if (dup)
		return error_at(r->path, line, 0, "key '%s' given twice in one object", dup);
	return 0;
}

int run_parse_jsonl_line(struct run *r, const char *p, size_t n, long line)
{
	cJSON *o;
	int ret;

	while (n && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	while (n && (*p == ' ' || *p == '\t')) {
		p++;
		n--;
	}
	if (!n)
		return 0;
	if (has_nul_escape(p, n))
		return error_at(r->path, line, 0, "a string holds \\u0000 (NUL): ids and fields cannot");
	o = cJSON_ParseWithLength(p, n);
	if (!o)
		return error_at(r->path, line, 0, "not valid JSON");
	ret = check_keys(r, o, line);
	if (!ret)
		ret = parse_jsonl_object(r, o, line);
	cJSON_Delete(o);
	return ret;
}

/* Take the parsed line 'o' (line 'line') into 'r'. Return 0 or -1 (reported). */
static int parse_jsonl_object(struct run *r, const cJSON *o, long line)
{
	if (!cJSON_IsObject(o))
		return error_at(r->path, line, 0, "line is %s, not a JSON object", json_type(o));
	if (cJSON_GetObjectItemCaseSensitive(o, "meta") && !cJSON_GetObjectItemCaseSensitive(o, "qid")) {
		if (r->nr || r->meta)
			return error_at(r->path, line, 0, "a 'meta' line is only allowed first");
		return parse_jsonl_meta(r, cJSON_GetObjectItemCaseSensitive(o, "meta"), line);
	}
	return parse_jsonl_line(r, o, line) < 0 ? -1 : 0;
}

int run_parse_jsonl(struct run *r, char *buf, size_t len)
{
	long line = 0;
	size_t pos = 0;

	while (pos < len) {
		char *nl = memchr(buf + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - buf) : len;

		line++;
		if (run_parse_jsonl_line(r, buf + pos, end - pos, line) < 0)
			return -1;
		pos = end + 1;
	}
	return 0;
}

int run_parse_json_dict(struct run *r, const char *buf, size_t len)
{
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(buf, len, &end, 0);
	const cJSON *qo, *d;
	int ret = 0;

	if (root && end) {
		/* the object must be all there is: another one after it would be lost */
		while (end < buf + len && (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n'))
			end++;
		if (end < buf + len) {
			long line = 1;

			for (const char *p = buf; p < end; p++)
				line += *p == '\n';
			cJSON_Delete(root);
			return error_at(r->path, line, 0,
					"content after the JSON object {qid: {docid: score}} (for one object per line, use JSONL with a 'qid' key)");
		}
	}
	if (!root) {
		/* name the line where parsing stopped (cJSON_GetErrorPtr points into 'buf') */
		const char *at = cJSON_GetErrorPtr();
		long line = 1;

		if (at && at >= buf && at <= buf + len)
			for (const char *p = buf; p < at; p++)
				line += *p == '\n';
		return error_at(r->path, line, 0, "not valid JSON (nor JSONL, nor a TREC run)");
	}
	if (!cJSON_IsObject(root)) {
		ret = error("%s: the run is %s, not an object {qid: {docid: score}}", r->path, json_type(root));
		goto out;
	}
	cJSON_ArrayForEach(qo, root) {
		struct run_query *q;

		if (!cJSON_IsObject(qo)) {
			ret = error("%s: question '%s' maps to %s, not an object {docid: score}",
				    r->path, qo->string, json_type(qo));
			goto out;
		}
		if (!(q = run_add_query(r, qo->string, 0))) {
			ret = -1;
			goto out;
		}
		cJSON_ArrayForEach(d, qo) {
			if (!cJSON_IsNumber(d) || !isfinite(d->valuedouble)) {
				ret = error("%s: score of '%s' for question '%s' is not a finite number",
					    r->path, d->string, q->qid);
				goto out;
			}
			run_add_doc(r, q, d->string, d->valuedouble, 0);
		}
		r->nr_docs += (long)q->nr;
		if (run_check_dups(r, q) < 0) {
			ret = -1;
			goto out;
		}
		run_sort_docs(q);
	}
out:
	cJSON_Delete(root);
	return ret;
}

bool run_looks_jsonl(const char *p, size_t len)
{
	const char *nl = memchr(p, '\n', len);
	cJSON *o = cJSON_ParseWithLength(p, nl ? (size_t)(nl - p) : len);
	bool yes = o && cJSON_IsObject(o) &&
		   (cJSON_GetObjectItemCaseSensitive(o, "qid") ||
		    cJSON_GetObjectItemCaseSensitive(o, "meta") ||
		    cJSON_GetObjectItemCaseSensitive(o, "results") ||
		    cJSON_GetObjectItemCaseSensitive(o, "calls"));

	cJSON_Delete(o);
	return yes;
}
