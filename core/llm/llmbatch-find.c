/*
 * llmbatch-find: after a crash between a batch's intent and its "created"
 * record, find the batch the provider holds for the intent (by its tag, or
 * for Anthropic by time, size and custom ids), or record it abandoned.
 */
#include "llm/llmbatch-internal.h"
#include "base/digest.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/http.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "base/util.h"
#include "llm/journal.h"
#include "llm/llm.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- finding the batch of an interrupted run ---- */

/* Seconds since the epoch of the RFC 3339 time 'text' (UTC or with an offset), or -1. */
static double rfc3339_time(const char *text)
{
	struct tm tm;
	int y, mo, d, h, mi, off_h = 0, off_m = 0, used = 0;
	double sec;
	const char *z;

	if (!text || sscanf(text, "%d-%d-%dT%d:%d:%lf%n", &y, &mo, &d, &h, &mi, &sec, &used) != 6)
		return -1;
	z = text + used;
	if ((*z == '+' || *z == '-') && sscanf(z + 1, "%d:%d", &off_h, &off_m) == 2) {
		if (*z == '-')
			off_h = -off_h, off_m = -off_m;
	} else if (*z != 'Z' && *z != 'z') {
		return -1;
	}
	if (y < 1970 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || !(sec >= 0 && sec < 61))
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	return (double)timegm(&tm) + sec - (off_h * 3600 + off_m * 60);
}

/* The time a listed batch was created: OpenAI's seconds, Anthropic's RFC 3339. */
static double created_time(const cJSON *batch)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(batch, "created_at");

	if (cJSON_IsNumber(c))
		return c->valuedouble;
	return rfc3339_time(cJSON_GetStringValue(c));
}

/*
 * Whether the results of the ended message batch 'batch' answer the
 * requests of 'in': 1 they do, 0 they do not, or an ERR_* code when they
 * cannot be read (refused, named at another origin, interrupted; reported):
 * then nobody can tell whether the batch is this job's, and submitting its
 * requests again could pay for them twice.
 */
static int results_match(struct run *b, const cJSON *batch, const struct intent *in)
{
	const char *results = batch_jstr(batch, "results_url");
	struct reply f = { 0, STRBUF_INIT, "" };
	struct strmap keys = STRMAP_INIT;
	int match = 0, rc;

	if (!results)
		goto out;
	if ((rc = batch_get_results(b, results, &f))) {
		match = rc;
		goto out;
	}
	if (!batch_ok_status(&f)) {
		match = batch_refused(b, "reading the results of a batch an interrupted run may have created was refused", &f);
		goto out;
	}
	for (size_t i = 0; i < in->nr_keys; i++)
		strmap_put(&keys, in->keys[i], (void *)1);
	match = 1;
	for (const char *s = f.body.buf, *end = f.body.buf + f.body.len; s < end && match == 1;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
		cJSON *j = len ? cJSON_ParseWithLength(s, len) : NULL;
		if (j && !strmap_get(&keys, batch_jstr(j, "custom_id") ? batch_jstr(j, "custom_id") : ""))
			match = 0;
		cJSON_Delete(j);
		s += len + 1;
	}
out:
	strmap_clear(&keys, 0);
	strbuf_release(&f.body);
	return match;
}

#define LOOKUP_PAGES 10           /* at most this many pages of 100 batches */
#define LOOKUP_SKEW 900.0         /* seconds of clock difference allowed with the provider */

/*
 * Look up the batch the intent 'in' may have created: OpenAI and Azure list
 * batches newest first and the one whose metadata carries the tag is it;
 * Anthropic keeps no metadata, so a message batch is it when it was created
 * within LOOKUP_SKEW of the intent, holds as many requests, no journal
 * record names it, and, when it has ended, its results are for the
 * intent's requests. Set '*found' (a new string) or leave it NULL. Return
 * 0, ERR_REMOTE (several message batches match: reported) or
 * ERR_INTERRUPTED.
 */
static int lookup(struct run *b, const struct intent *in, char **found)
{
	struct strbuf url = STRBUF_INIT, after = STRBUF_INIT, candidates = STRBUF_INIT, first = STRBUF_INIT;
	struct reply r = { 0, STRBUF_INIT, "" };
	bool anthropic = b->provider == LLM_ANTHROPIC;
	size_t nr_candidates = 0;
	int rc = 0;

	*found = NULL;
	for (int page = 0; page < LOOKUP_PAGES && !*found; page++) {
		const cJSON *item, *data;
		cJSON *j;
		bool older = false, more;
		strbuf_reset(&url);
		if (anthropic)
			llm_url(llm_get_base_url(b->l), "/messages/batches", &url);
		else
			batch_url_of(b, "/batches", &url);
		strbuf_addf(&url, "%climit=100", strchr(url.buf, '?') ? '&' : '?');
		if (after.len)
			strbuf_addf(&url, "&%s=%s", anthropic ? "after_id" : "after", after.buf);
		if ((rc = batch_call(b, "GET", url.buf, llm_get_headers(b->l), NULL, 0, &r)))
			break;
		if (!batch_ok_status(&r)) {
			rc = batch_refused(b, "listing the batches to find the one an interrupted run created was refused", &r);
			break;
		}
		j = cJSON_ParseWithLength(r.body.buf, r.body.len);
		data = cJSON_GetObjectItemCaseSensitive(j, "data");
		cJSON_ArrayForEach(item, data) {
			const char *id = batch_jstr(item, "id");
			double t = created_time(item);
			if (!id)
				continue;
			if (t >= 0 && t < in->at - LOOKUP_SKEW)
				older = true;   /* newest first: the rest is older still */
			if (!anthropic) {
				const char *tag = batch_jstr(cJSON_GetObjectItemCaseSensitive(item, "metadata"), "evalset_tag");
				if (tag && !strcmp(tag, in->tag)) {
					*found = xstrdup(id);
					break;
				}
				continue;
			}
			if (strmap_get(&b->known, id) || t < in->at - LOOKUP_SKEW || t > in->at + LOOKUP_SKEW)
				continue;
			{
				const cJSON *c = cJSON_GetObjectItemCaseSensitive(item, "request_counts"), *k;
				double total = 0;
				cJSON_ArrayForEach(k, c)
					total += cJSON_IsNumber(k) ? k->valuedouble : 0;
				if (total != (double)in->nr_keys)
					continue;
			}
			if (batch_jstr(item, "processing_status") && !strcmp(batch_jstr(item, "processing_status"), "ended")) {
				int m = results_match(b, item, in);
				if (m < 0 || m > 1) {
					if (m == ERR_REMOTE)
						error("cannot tell whether batch '%s' is the one an interrupted run created: its "
						      "results could not be read; nothing submitted again (that could pay for its "
						      "%zu requests twice)", id, in->nr_keys);
					rc = m;
					break;
				}
				if (!m)
					continue;
			}
			if (!nr_candidates++)
				strbuf_addstr(&first, id);
			strbuf_addf(&candidates, "%s'%s'", candidates.len ? ", " : "", id);
		}
		more = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "has_more"));
		strbuf_reset(&after);
		if (batch_jstr(j, "last_id"))
			strbuf_addstr(&after, batch_jstr(j, "last_id"));
		else if (cJSON_GetArraySize(data) > 0 && batch_jstr(cJSON_GetArrayItem(data, cJSON_GetArraySize(data) - 1), "id"))
			strbuf_addstr(&after, batch_jstr(cJSON_GetArrayItem(data, cJSON_GetArraySize(data) - 1), "id"));
		cJSON_Delete(j);
		if (rc || older || !more || !after.len)
			break;
	}
	if (!rc && anthropic && nr_candidates == 1)
		*found = xstrdup(first.buf);
	if (!rc && anthropic && nr_candidates > 1) {
		error("an interrupted run was creating a message batch of %zu requests, and %zu batches created at "
		      "that time match it: %s; cancel the ones that are not this job's (or let them end: their "
		      "results then tell), then run the command again", in->nr_keys, nr_candidates, candidates.buf);
		rc = ERR_REMOTE;
	}
	strbuf_release(&url);
	strbuf_release(&after);
	strbuf_release(&candidates);
	strbuf_release(&first);
	strbuf_release(&r.body);
	return rc;
}

/*
 * Settle every intent of an earlier run without a "created" or
 * "abandoned" record: a batch found at the provider is journaled as
 * created and waited for; otherwise the intent is abandoned and its
 * requests are submitted as usual. Return 0 or an ERR_* code.
 */
int batch_settle_intents(struct run *b)
{
	for (size_t i = 0; i < b->nr_in; i++) {
		struct intent *in = &b->in[i];
		struct pending *p;
		char *id;
		int rc;

		if (strmap_get(&b->settled, in->tag))
			continue;
		if ((rc = lookup(b, in, &id)))
			return rc;
		if (!id) {
			if (batch_journal_abandoned(b, in->tag))
				return ERR_INPUT;
			strmap_put(&b->settled, in->tag, (void *)1);
			continue;
		}
		note("found batch '%s', which an interrupted run created (%zu requests): waiting for it instead of "
		     "submitting its requests again", id, in->nr_keys);
		p = batch_add_pending(b, id, in->round);
		p->keys = in->keys;
		p->nr_keys = in->nr_keys;
		in->keys = NULL;
		in->nr_keys = 0;
		strmap_put(&b->known, id, (void *)1);
		strmap_put(&b->settled, in->tag, (void *)1);
		free(id);
		b->st->found++;
		if (batch_journal_created(b, p, NULL, in->tag, true))
			return ERR_INPUT;
	}
	return 0;
}

/* Cut the requests 'idx[0..n)' into batches at the limits and create each. */
