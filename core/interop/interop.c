/*
 * interop: export a set as TREC qrels, BEIR or JSONL (the contract and the
 * file layout are in interop.h; reading them back is interop-import.c).
 *
 * Both directions keep one invariant: what the standard file cannot hold
 * (origin, answerable, tags, provenance, answer, note, and a text that the
 * TSV form would change) travels in an "extras" object per question, in the
 * sidecar or in BEIR's per-query metadata, so that export then import gives
 * the same digest. Nothing is written before every target was checked.
 */
#include "interop/interop.h"

#include "base/error.h"
#include "base/fsutil.h"
#include "base/jsontree.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


int interop_format_parse(const char *s, enum interop_format *out)
{
	if (!strcmp(s, "trec-qrels") || !strcmp(s, "trec"))
		*out = INTEROP_TREC_QRELS;
	else if (!strcmp(s, "beir"))
		*out = INTEROP_BEIR;
	else if (!strcmp(s, "jsonl"))
		*out = INTEROP_JSONL;
	else
		return -1;
	return 0;
}

static const char *split_of(const char *split)
{
	return split && *split ? split : "test";
}

char **interop_export_targets(const struct interop_export *o, size_t *nr)
{
	char **t = xcalloc(4, sizeof(*t));

	*nr = 0;
	switch (o->format) {
	case INTEROP_TREC_QRELS:
		t[(*nr)++] = xstrdup(o->path);
		t[(*nr)++] = xstrfmt("%s.topics.tsv", o->path);
		if (o->meta)
			t[(*nr)++] = xstrfmt("%s.meta.json", o->path);
		break;
	case INTEROP_BEIR:
		t[(*nr)++] = path_join(o->path, "queries.jsonl");
		t[(*nr)++] = xstrfmt("%s/qrels/%s.tsv", o->path, split_of(o->split));
		t[(*nr)++] = path_join(o->path, "evalset.meta.json");
		break;
	case INTEROP_JSONL:
		t[(*nr)++] = xstrdup(o->path);
		break;
	}
	return t;
}

/* Return a copy of 's' with tabs and line breaks turned into spaces; caller frees. */
static char *tsv_clean(const char *s)
{
	char *c = xstrdup(s ? s : "");

	for (char *p = c; *p; p++)
		if (*p == '\t' || *p == '\n' || *p == '\r')
			*p = ' ';
	return c;
}

static bool has_space(const char *s)
{
	return strpbrk(s, " \t\r\n\v\f") != NULL;
}

/*
 * Return the fields of 'q' that TREC qrels and BEIR queries cannot hold, as a
 * new JSON object (caller frees); with 'text', also the exact text.
 */
static cJSON *question_extras(const struct question *q, bool text)
{
	cJSON *x = cJSON_CreateObject();

	if (text)
		cJSON_AddStringToObject(x, "text", q->text ? q->text : "");
	if (q->origin == ORIGIN_NONE)
		cJSON_AddNullToObject(x, "origin");
	else
		cJSON_AddStringToObject(x, "origin", origin_name(q->origin));
	cJSON_AddBoolToObject(x, "answerable", q->answerable);
	if (q->nr_tags) {
		cJSON *arr = cJSON_AddArrayToObject(x, "tags");
		for (size_t i = 0; i < q->nr_tags; i++)
			cJSON_AddItemToArray(arr, cJSON_CreateString(q->tags[i]));
	}
	if (q->provenance)
		cJSON_AddItemToObject(x, "provenance", cJSON_Duplicate(q->provenance, 1));
	if (q->answer)
		cJSON_AddStringToObject(x, "answer", q->answer);
	if (q->note)
		cJSON_AddStringToObject(x, "note", q->note);
	question_add_conversation_json(x, q);
	if (q->nr_evidence) {
		cJSON *arr = cJSON_AddArrayToObject(x, "evidence");
		for (size_t i = 0; i < q->nr_evidence; i++)
			cJSON_AddItemToArray(arr, evidence_to_json(&q->evidence[i]));
	}
	if (q->nr_forbidden) {
		cJSON *arr = cJSON_AddArrayToObject(x, "forbidden");
		for (size_t i = 0; i < q->nr_forbidden; i++)
			cJSON_AddItemToArray(arr, cJSON_CreateString(q->forbidden[i].id));
	}
	if (q->language)
		cJSON_AddStringToObject(x, "language", q->language);
	return x;
}

static cJSON *meta_object(const struct set *s, const struct interop_export *o, const char *format)
{
	cJSON *m = cJSON_CreateObject();
	char digest[72], content[72];
	struct set questions = *s;

	set_digest(s, digest);
	/* the questions' content alone, as an import gets them back: set-wide
	 * forbidden rules stay with the set (a borrowed view, not released) */
	questions.nr_forbid = 0;
	set_content_digest(&questions, content);
	cJSON_AddNumberToObject(m, "evalset", 1);
	cJSON_AddStringToObject(m, "format", format);
	cJSON_AddStringToObject(m, "set", o->name ? o->name : (s->name ? s->name : ""));
	json_add_str_or_null(m, "version", o->version);
	cJSON_AddStringToObject(m, "digest", digest);
	cJSON_AddStringToObject(m, "content_digest", content);
	return m;
}

/* Refuse ids the whitespace- or tab-separated formats cannot carry. */
static int check_ids(const struct set *s, bool tsv_only)
{
	for (size_t i = 0; i < s->nr; i++) {
		const struct question *q = &s->q[i];
		const char *bad = NULL;

		if (tsv_only ? strpbrk(q->id, "\t\r\n") != NULL : has_space(q->id))
			bad = q->id;
		for (size_t k = 0; !bad && k < q->nr_relevant; k++)
			if (tsv_only ? strpbrk(q->relevant[k].chunk, "\t\r\n") != NULL
				     : has_space(q->relevant[k].chunk))
				bad = q->relevant[k].chunk;
		for (size_t k = 0; !bad && k < q->nr_irrelevant; k++)
			if (tsv_only ? strpbrk(q->irrelevant[k], "\t\r\n") != NULL
				     : has_space(q->irrelevant[k]))
				bad = q->irrelevant[k];
		if (bad)
			return error("id '%s' of question '%s' holds whitespace, which the %s "
				     "format cannot carry", bad, q->id, tsv_only ? "BEIR" : "TREC qrels");
	}
	return 0;
}

static void add_judgments(struct strbuf *out, const struct question *q, const char *fmt_rel,
			  const char *fmt_irr)
{
	for (size_t k = 0; k < q->nr_relevant; k++)
		strbuf_addf(out, fmt_rel, q->id, q->relevant[k].chunk, q->relevant[k].grade);
	for (size_t k = 0; k < q->nr_irrelevant; k++)
		strbuf_addf(out, fmt_irr, q->id, q->irrelevant[k]);
}

/* Count 'what' into 'out' ("3 with tags") when 'n' is not 0. */
static void add_loss(struct strbuf *out, size_t n, const char *what)
{
	if (n)
		strbuf_addf(out, "%s%zu %s", out->len ? ", " : "", n, what);
}

/*
 * Note what a TREC export without its sidecar leaves out: per kind, how many
 * questions hold something the qrels and topics cannot, so that the user
 * knows what `add --from-trec` would not bring back.
 */
static void note_trec_losses(const struct set *s, const struct interop_export *o)
{
	size_t origin = 0, tags = 0, other = 0, conv = 0, evidence = 0, forbidden = 0;
	size_t texts = 0, unjudged = 0;
	struct strbuf what = STRBUF_INIT;

	for (size_t i = 0; i < s->nr; i++) {
		const struct question *q = &s->q[i];
		char *clean = tsv_clean(q->text);

		origin += q->origin != ORIGIN_HAND;
		tags += q->nr_tags > 0;
		other += q->provenance || q->answer || q->note || q->language;
		conv += q->conversation || q->nr_history;
		evidence += q->nr_evidence > 0;
		forbidden += q->nr_forbidden > 0;
		texts += strcmp(clean, q->text ? q->text : "") != 0;
		unjudged += !q->nr_relevant && !q->nr_irrelevant;
		free(clean);
	}
	add_loss(&what, unjudged, "unjudged unanswerable (no qrels line; import skips them)");
	add_loss(&what, origin, "not of origin hand");
	add_loss(&what, tags, "with tags");
	add_loss(&what, conv, "in conversations (turn and history)");
	add_loss(&what, evidence, "with evidence spans");
	add_loss(&what, forbidden, "with forbidden ids");
	add_loss(&what, other, "with provenance, answer, note or language");
	add_loss(&what, texts, "whose text had tabs or line breaks");
	if (s->nr_forbid)
		strbuf_addf(&what, "%s%zu set-wide forbidden rule%s (they stay with the set, "
			    "not its questions)", what.len ? ", " : "", s->nr_forbid,
			    s->nr_forbid == 1 ? "" : "s");
	note("'%s' and its topics hold ids, texts and grades only: the set's name, tag and digest%s%s "
	     "are left out (--meta writes them to '%s.meta.json', so that `add --from-trec` brings "
	     "the set back exactly)", o->path, what.len ? ", and questions: " : "", what.buf, o->path);
	strbuf_release(&what);
}

static int export_trec(const struct set *s, const struct interop_export *o, char **t)
{
	struct strbuf qrels = STRBUF_INIT, topics = STRBUF_INIT, meta = STRBUF_INIT;
	cJSON *m, *qs;
	int ret = -1;

	if (check_ids(s, false) < 0)
		goto out;
	m = meta_object(s, o, "trec-qrels");
	cJSON_AddStringToObject(m, "topics", strrchr(t[1], '/') ? strrchr(t[1], '/') + 1 : t[1]);
	qs = cJSON_AddObjectToObject(m, "questions");
	for (size_t i = 0; i < s->nr; i++) {
		const struct question *q = &s->q[i];
		char *clean = tsv_clean(q->text);

		add_judgments(&qrels, q, "%s 0 %s %d\n", "%s 0 %s 0\n");
		strbuf_addf(&topics, "%s\t%s\n", q->id, clean);
		cJSON_AddItemToObject(qs, q->id, question_extras(q, strcmp(clean, q->text ? q->text : "") != 0));
		free(clean);
	}
	json_add_tree(&meta, m, true);
	if (write_file_atomic(t[1], topics.buf, topics.len) < 0 ||
	    (o->meta && write_file_atomic(t[2], meta.buf, meta.len) < 0) ||
	    write_file_atomic(t[0], qrels.buf, qrels.len) < 0)
		goto out;
	if (!o->meta)
		note_trec_losses(s, o);
	ret = 0;
out:
	strbuf_release(&qrels);
	strbuf_release(&topics);
	strbuf_release(&meta);
	return ret;
}

static int export_beir(const struct set *s, const struct interop_export *o, char **t)
{
	struct strbuf queries = STRBUF_INIT, qrels = STRBUF_INIT, meta = STRBUF_INIT;
	char *qdir = NULL;
	cJSON *m;
	int ret = -1;

	if (check_ids(s, true) < 0)
		goto out;
	strbuf_addstr(&qrels, "query-id\tcorpus-id\tscore\n");
	for (size_t i = 0; i < s->nr; i++) {
		const struct question *q = &s->q[i];
		cJSON *j = cJSON_CreateObject();

		cJSON_AddStringToObject(j, "_id", q->id);
		cJSON_AddStringToObject(j, "text", q->text ? q->text : "");
		cJSON_AddItemToObject(j, "metadata", question_extras(q, false));
		json_add_tree(&queries, j, false);
		add_judgments(&qrels, q, "%s\t%s\t%d\n", "%s\t%s\t0\n");
	}
	m = meta_object(s, o, "beir");
	cJSON_AddStringToObject(m, "split", split_of(o->split));
	json_add_tree(&meta, m, true);
	qdir = dir_name(t[1]);
	if (mkdir_p(qdir) < 0 ||
	    write_file_atomic(t[0], queries.buf, queries.len) < 0 ||
	    write_file_atomic(t[2], meta.buf, meta.len) < 0 ||
	    write_file_atomic(t[1], qrels.buf, qrels.len) < 0)
		goto out;
	ret = 0;
out:
	free(qdir);
	strbuf_release(&queries);
	strbuf_release(&qrels);
	strbuf_release(&meta);
	return ret;
}

static int export_jsonl(const struct set *s, const struct interop_export *o, char **t)
{
	struct strbuf out = STRBUF_INIT;
	cJSON *line = cJSON_CreateObject();
	int ret;

	cJSON_AddItemToObject(line, "meta", meta_object(s, o, "jsonl"));
	json_add_tree(&out, line, false);
	for (size_t i = 0; i < s->nr; i++) {
		cJSON *j = question_to_json(&s->q[i]);
		/* an origin that was never given must stay absent on import, not become hand */
		if (s->q[i].origin == ORIGIN_NONE)
			cJSON_AddNullToObject(j, "origin");
		json_add_tree(&out, j, false);
	}
	ret = write_file_atomic(t[0], out.buf, out.len);
	strbuf_release(&out);
	return ret;
}

int interop_export(const struct set *s, const struct interop_export *o)
{
	size_t nr;
	char **t = interop_export_targets(o, &nr);
	char *stale = NULL;
	int ret = -1;

	if (o->format == INTEROP_BEIR && path_exists(o->path) && !is_dir(o->path)) {
		error("export target '%s' exists and is not a directory", o->path);
		goto out;
	}
	for (size_t i = 0; i < nr; i++)
		if (path_exists(t[i]) && (!o->force || is_dir(t[i]))) {
			error("export target '%s' exists (use --force to replace it)", t[i]);
			goto out;
		}
	if (o->format == INTEROP_TREC_QRELS && !o->meta && (stale = xstrfmt("%s.meta.json", o->path)) &&
	    path_exists(stale)) {
		/* import reads PATH.meta.json with the qrels: one from an
		 * earlier export would pair old extras with new files */
		if (!o->force) {
			error("'%s' exists, from an earlier export, and import would read it with the "
			      "new files: give --meta to write it again, or --force to remove it", stale);
			goto out;
		}
		if (unlink(stale) < 0) {
			error("cannot remove '%s': %s", stale, strerror(errno));
			goto out;
		}
		note("removed '%s', an earlier export's sidecar", stale);
	}
	if (o->format != INTEROP_BEIR) {
		char *dir = dir_name(o->path);
		int rc = mkdir_p(dir);
		free(dir);
		if (rc < 0)
			goto out;
	}
	switch (o->format) {
	case INTEROP_TREC_QRELS:
		ret = export_trec(s, o, t);
		break;
	case INTEROP_BEIR:
		ret = export_beir(s, o, t);
		break;
	case INTEROP_JSONL:
		ret = export_jsonl(s, o, t);
		break;
	}
out:
	for (size_t i = 0; i < nr; i++)
		free(t[i]);
	free(t);
	free(stale);
	return ret;
}
