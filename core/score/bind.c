/*
 * bind: a run's record of its set against the set it is scored on
 * (contract in bind.h).
 */
#include "score/bind.h"
#include "score/run.h"
#include "set/set.h"
#include "base/jsontree.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

void bind_record_release(struct bind_record *rec)
{
	free(rec->set_name);
	free(rec->version);
	memset(rec, 0, sizeof(*rec));
}

static const char *version_name(const char *version)
{
	return version ? version : "working copy";
}

/* Judge a run without a record: every id must be in the set. */
static enum bind_verdict unrecorded(const struct run *run, const struct set *s,
				    const char *set_label, struct strbuf *why)
{
	size_t foreign = 0;
	const char *first = NULL;

	for (size_t i = 0; i < run->nr; i++)
		if (!set_find(s, run->q[i].qid)) {
			if (!foreign++)
				first = run->q[i].qid;
		}
	if (!foreign)
		return BIND_UNRECORDED;
	strbuf_addf(why, "run '%s' records no set and %zu of its %zu question ids are not in %s "
		    "(e.g. '%s'): a run for another set", run->path, foreign, run->nr, set_label, first);
	return BIND_OTHER;
}

enum bind_verdict bind_run(const struct run *run, const struct set *s, const char *set_label,
			   struct strbuf *why, struct bind_record *rec)
{
	cJSON *meta = run->meta ? cJSON_Parse(run->meta) : NULL;
	const char *name = meta ? json_get_str(meta, "set") : NULL;
	const cJSON *ver = meta ? cJSON_GetObjectItemCaseSensitive(meta, "version") : NULL;
	const char *version = cJSON_IsString(ver) ? ver->valuestring : NULL;
	const char *qd, *cd, *d;
	char mine[72];
	enum bind_verdict v = BIND_SAME;

	if (rec) {
		memset(rec, 0, sizeof(*rec));
		rec->set_name = xstrdup(name);
		rec->version = xstrdup(version);
		rec->has_version = ver != NULL;
	}
	if (!name) {
		v = unrecorded(run, s, set_label, why);
		goto out;
	}
	if (!s->name || strcmp(name, s->name)) {
		strbuf_addf(why, "run '%s' was produced for set '%s' %s, not for '%s' (%s)", run->path,
			    name, version_name(version), s->name ? s->name : "?", set_label);
		v = BIND_OTHER;
		goto out;
	}
	qd = json_get_str(meta, "questions_digest");
	if (qd) {
		set_questions_digest(s, mine);
		if (strcmp(qd, mine)) {
			strbuf_addf(why, "run '%s' was produced for other questions: %s %s (questions %s), "
				    "not %s (questions %s)", run->path, name, version_name(version), qd,
				    set_label, mine);
			v = BIND_OTHER;
		}
		goto out;
	}
	/* recorded before the questions digest: the older digests must match */
	cd = json_get_str(meta, "content_digest");
	d = json_get_str(meta, "digest");
	set_content_digest(s, mine);
	if (cd && !strcmp(cd, mine))
		goto out;
	set_digest(s, mine);
	if (d && !strcmp(d, mine))
		goto out;
	strbuf_addf(why, "run '%s' was produced for %s %s (digest %s), not %s (%s); it predates "
		    "question digests, so produce it again", run->path, name, version_name(version),
		    d ? d : "none", set_label, mine);
	v = BIND_OTHER;
out:
	cJSON_Delete(meta);
	return v;
}
