/*
 * bind: a run's record of its set against the set it is scored on
 * (contract in bind.h).
 */
#include "score/bind.h"
#include "score/run.h"
#include "set/corpuscheck.h"
#include "set/corpusstore.h"
#include "set/set.h"
#include "base/fsutil.h"
#include "base/jsontree.h"
#include "base/strmap.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
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
	struct set_lookup lk;

	set_lookup_init(&lk, s);
	for (size_t i = 0; i < run->nr; i++)
		if (!set_lookup_find(&lk, run->q[i].qid)) {
			if (!foreign++)
				first = run->q[i].qid;
		}
	set_lookup_release(&lk);
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

/* ---- the corpus a run was made over ---- */

void corpus_bind_release(struct corpus_bind *b)
{
	free(b->run_fp);
	free(b->run_path);
	free(b->set_fp);
	corpus_release(&b->run_corpus);
	corpus_change_release(&b->change);
	absent_labels_release(&b->absent);
	memset(b, 0, sizeof(*b));
}

/* Return the path of the corpus file 's' names, as set_corpus_load finds
 * it (caller frees), or NULL. */
static char *set_corpus_file(const struct set *s, const char *set_dir)
{
	char *path = set_corpus_path(s, set_dir);

	if (path && !path_exists(path) && path_exists(s->corpus.path)) {
		free(path);
		path = xstrdup(s->corpus.path);
	}
	return path;
}

/* Load the corpus with fingerprint 'fp': from the files 'a' and 'b' (may
 * be NULL), else the copy kept for the set. Return 1 or 0. */
static int find_corpus(const char *a, const char *b, const char *set_dir, const char *fp,
		       struct corpus *c)
{
	return corpus_load_if(a, fp, c) || corpus_load_if(b, fp, c) || corpus_store_get(set_dir, fp, c);
}

int bind_set_corpus(const struct set *s, const char *set_dir, char out[72])
{
	struct corpus c = CORPUS_INIT;
	char *path;
	int found;

	if (!s->has_corpus)
		return 0;
	if (s->corpus.fingerprint && *s->corpus.fingerprint) {
		snprintf(out, 72, "%s", s->corpus.fingerprint);
		return 1;
	}
	path = set_corpus_file(s, set_dir);
	found = corpus_load_if(path, NULL, &c);
	if (found)
		corpus_fingerprint(&c, out);
	corpus_release(&c);
	free(path);
	return found;
}

void bind_corpus(const struct run *run, const struct set *s, const char *set_dir,
		 corpus_negligible_fn negligible, struct corpus_bind *out)
{
	cJSON *meta = run->meta ? cJSON_Parse(run->meta) : NULL;
	const cJSON *c = meta ? cJSON_GetObjectItemCaseSensitive(meta, "corpus") : NULL;
	const cJSON *params = meta ? cJSON_GetObjectItemCaseSensitive(meta, "params") : NULL;
	const char *fp = cJSON_IsObject(c) ? json_get_str(c, "fingerprint") : NULL;
	const char *path = cJSON_IsObject(c) ? json_get_str(c, "path") : NULL;
	char set_fp[72], *set_file = NULL;
	struct corpus labelled = CORPUS_INIT;

	if (!fp && cJSON_IsObject(params)) {
		/* BM25 runs written before the "corpus" record */
		fp = json_get_str(params, "corpus_fingerprint");
		path = json_get_str(params, "corpus");
	}
	out->run_fp = xstrdup(fp);
	out->run_path = xstrdup(path);
	if (!fp || !bind_set_corpus(s, set_dir, set_fp)) {
		out->verdict = CORPUS_UNKNOWN;
		goto out;
	}
	out->set_fp = xstrdup(set_fp);
	if (!strcmp(fp, set_fp)) {
		out->verdict = CORPUS_SAME;
		goto out;
	}
	out->verdict = CORPUS_OTHER;
	set_file = set_corpus_file(s, set_dir);
	out->have_run_corpus = find_corpus(path, set_file, set_dir, fp, &out->run_corpus);
	if (out->have_run_corpus)
		corpus_absent_labels(s, &out->run_corpus, &out->absent);
	if (out->have_run_corpus && find_corpus(set_file, NULL, set_dir, set_fp, &labelled)) {
		corpus_change_compute(&labelled, &out->run_corpus, negligible, &out->change);
		out->have_change = true;
	}
out:
	corpus_release(&labelled);
	free(set_file);
	cJSON_Delete(meta);
}

/* Return the first 12 hex digits of 'fp' with its "sha256:" prefix ("sha256:1a2b3c4d5e6f"). */
static const char *short_fp(const char *fp, char buf[32])
{
	snprintf(buf, 32, "%.*s", starts_with(fp, "sha256:") ? 7 + 12 : 12, fp);
	return buf;
}

void corpus_bind_describe(const struct corpus_bind *b, const char *what, const char *set_label,
			  struct strbuf *out)
{
	char x[32], y[32];

	strbuf_addf(out, "%s was made over corpus %s%s%s%s, not the corpus %s was labelled on (%s)",
		    what, short_fp(b->run_fp, x), b->run_path ? " ('" : "",
		    b->run_path ? b->run_path : "", b->run_path ? "')" : "", set_label,
		    short_fp(b->set_fp, y));
	if (b->have_change && corpus_change_none(&b->change)) {
		strbuf_addstr(out, "; the same documents, chunked otherwise");
	} else if (b->have_change) {
		strbuf_addstr(out, "; ");
		corpus_change_describe(&b->change, out);
	} else {
		strbuf_addf(out, "; which documents changed cannot be told (%s not found)",
			    b->have_run_corpus ? "the corpus the set was labelled on is"
					       : "the run's corpus is");
	}
	if (b->have_run_corpus && b->absent.nr) {
		strbuf_addstr(out, "; ");
		absent_labels_describe(&b->absent, 5, out);
	} else if (b->have_run_corpus) {
		strbuf_addf(out, "; all %zu labels point at chunks it holds", b->absent.labels);
	}
}

void bind_drop_absent(const struct set *s, const struct absent_labels *absent, struct set *out)
{
	struct strmap gone = STRMAP_INIT;
	struct strbuf key = STRBUF_INIT;

	for (size_t i = 0; i < absent->nr; i++) {
		strbuf_reset(&key);
		strbuf_addf(&key, "%s%c%s", absent->items[i].question, '\t', absent->items[i].chunk);
		strmap_put(&gone, key.buf, (void *)1);
	}
	out->schema = s->schema;
	out->name = xstrdup(s->name);
	out->description = xstrdup(s->description);
	out->version = xstrdup(s->version);
	out->file = xstrdup(s->file);
	out->language = xstrdup(s->language);
	set_copy_forbid(out, s);
	for (size_t i = 0; i < s->nr; i++) {
		struct question *q = set_append(out);
		size_t kept = 0, kept_ev = 0;

		question_copy(q, &s->q[i]);
		for (size_t k = 0; k < q->nr_relevant; k++) {
			strbuf_reset(&key);
			strbuf_addf(&key, "%s%c%s", q->id ? q->id : "", '\t', q->relevant[k].chunk);
			if (strmap_get(&gone, key.buf)) {
				free(q->relevant[k].chunk);
				continue;
			}
			q->relevant[kept++] = q->relevant[k];
		}
		q->nr_relevant = kept;
		for (size_t k = 0; k < q->nr_evidence; k++) {
			struct evidence *e = &q->evidence[k];
			if (question_grade(q, e->chunk) >= 1) {
				q->evidence[kept_ev++] = *e;
				continue;
			}
			free(e->chunk);
			free(e->doc);
			free(e->quote);
		}
		q->nr_evidence = kept_ev;
	}
	strbuf_release(&key);
	strmap_clear(&gone, 0);
}
