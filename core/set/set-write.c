/*
 * set-write: writing a set as YAML with libyaml's emitter, and the JSON form
 * of a question.
 *
 * Layout: header keys in a fixed order (evalset, name, description, version,
 * digest, parent, parent_digest, tagged_at, note, corpus, forbidden,
 * questions: a set-wide rule as it was read, a plain string or a flow
 * mapping {selector: value}); question
 * keys in the order id, text, conversation, history, origin, answerable (only
 * when false), relevant, evidence, irrelevant, forbidden,
 * tags, provenance, answer, note; block style, with flow lists for
 * irrelevant, tags and list-form relevant. No line folding (width unlimited),
 * UTF-8 written as is. Any string that would read back as another type when
 * plain (yscalar_resolve: "true", "7", "null", "") is single-quoted, so a
 * round trip keeps every type; libyaml picks double quotes when a string
 * needs escapes.
 */
#include "set/set.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/jsontree.h"
#include "base/util.h"
#include "base/yamlio.h"
#include "text/lang.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static int emit_kv_str(yaml_emitter_t *em, const char *k, const char *v)
{
	if (!v)
		return 0;
	return yamlio_plain(em, k) || yamlio_str(em, v) ? -1 : 0;
}

static int emit_str_list(yaml_emitter_t *em, const char *k, char **arr, size_t nr)
{
	if (!nr)
		return 0;
	if (yamlio_plain(em, k) || yamlio_seq_start(em, true))
		return -1;
	for (size_t i = 0; i < nr; i++)
		if (yamlio_str(em, arr[i]))
			return -1;
	return yamlio_seq_end(em);
}

static int emit_forbidden(yaml_emitter_t *em, const struct question *q)
{
	if (!q->nr_forbidden)
		return 0;
	if (yamlio_plain(em, "forbidden") || yamlio_seq_start(em, true))
		return -1;
	for (size_t i = 0; i < q->nr_forbidden; i++)
		if (yamlio_str(em, q->forbidden[i].id))
			return -1;
	return yamlio_seq_end(em);
}

/* Write the set-wide forbidden rules of 's' (none: nothing). */
static int emit_forbid_rules(yaml_emitter_t *em, const struct set *s)
{
	if (!s->nr_forbid)
		return 0;
	if (yamlio_plain(em, "forbidden") || yamlio_seq_start(em, false))
		return -1;
	for (size_t i = 0; i < s->nr_forbid; i++) {
		const struct forbid_rule *r = &s->forbid[i];

		if (r->as_string && (r->kind == FORBID_BY_CHUNK || r->kind == FORBID_BY_DOC)) {
			if (yamlio_str(em, r->entry))
				return -1;
			continue;
		}
		if (yamlio_map_start(em, true) || yamlio_plain(em, forbid_kind_name(r->kind)) ||
		    yamlio_str(em, r->value) || yamlio_map_end(em))
			return -1;
	}
	return yamlio_seq_end(em);
}

static int emit_json(yaml_emitter_t *em, const cJSON *j)
{
	const cJSON *c;

	if (cJSON_IsObject(j)) {
		if (yamlio_map_start(em, false))
			return -1;
		cJSON_ArrayForEach(c, j)
			if (yamlio_str(em, c->string) || emit_json(em, c))
				return -1;
		return yamlio_map_end(em);
	}
	if (cJSON_IsArray(j)) {
		if (yamlio_seq_start(em, false))
			return -1;
		cJSON_ArrayForEach(c, j)
			if (emit_json(em, c))
				return -1;
		return yamlio_seq_end(em);
	}
	if (cJSON_IsBool(j))
		return yamlio_plain(em, cJSON_IsTrue(j) ? "true" : "false");
	if (cJSON_IsNumber(j)) {
		char buf[64];
		double d = j->valuedouble;
		if (d == floor(d) && fabs(d) < 1e15) {
			snprintf(buf, sizeof(buf), "%lld", (long long)d);
		} else {
			for (int prec = 15; prec <= 17; prec++) {
				snprintf(buf, sizeof(buf), "%.*g", prec, d);
				if (strtod(buf, NULL) == d)
					break;
			}
		}
		return yamlio_plain(em, buf);
	}
	if (cJSON_IsString(j))
		return yamlio_str(em, j->valuestring);
	return yamlio_plain(em, "null");
}

/* Write the conversation of 'q' as a flow mapping {id, turn} and its
 * history as a block list of flow mappings {role, text}, one turn a line. */
static int emit_conversation(yaml_emitter_t *em, const struct question *q)
{
	if (q->conversation &&
	    (yamlio_plain(em, "conversation") || yamlio_map_start(em, true) ||
	     emit_kv_str(em, "id", q->conversation) || yamlio_plain(em, "turn") ||
	     yamlio_long(em, q->turn) || yamlio_map_end(em)))
		return -1;
	if (!q->nr_history)
		return 0;
	if (yamlio_plain(em, "history") || yamlio_seq_start(em, false))
		return -1;
	for (size_t i = 0; i < q->nr_history; i++)
		if (yamlio_map_start(em, true) || emit_kv_str(em, "role", q->history[i].role) ||
		    emit_kv_str(em, "text", q->history[i].text) || yamlio_map_end(em))
			return -1;
	return yamlio_seq_end(em);
}

/* Write the evidence of 'q' as a block list of flow mappings, one a line. */
static int emit_evidence(yaml_emitter_t *em, const struct question *q)
{
	if (yamlio_plain(em, "evidence") || yamlio_seq_start(em, false))
		return -1;
	for (size_t i = 0; i < q->nr_evidence; i++) {
		const struct evidence *e = &q->evidence[i];
		if (yamlio_map_start(em, true) || emit_kv_str(em, "chunk", e->chunk) ||
		    emit_kv_str(em, "doc", e->doc))
			return -1;
		if (e->start >= 0 &&
		    (yamlio_plain(em, "start") || yamlio_long(em, e->start) ||
		     yamlio_plain(em, "end") || yamlio_long(em, e->end)))
			return -1;
		if (emit_kv_str(em, "quote", e->quote) || yamlio_map_end(em))
			return -1;
	}
	return yamlio_seq_end(em);
}

static int emit_question(yaml_emitter_t *em, const struct question *q)
{
	if (yamlio_map_start(em, false) ||
	    emit_kv_str(em, "id", q->id) ||
	    emit_kv_str(em, "text", q->text) || emit_conversation(em, q) ||
	    (q->origin != ORIGIN_NONE && emit_kv_str(em, "origin", origin_name(q->origin))))
		return -1;
	if (!q->answerable && (yamlio_plain(em, "answerable") || yamlio_plain(em, "false")))
		return -1;
	if (q->nr_relevant) {
		bool as_list = q->relevant_as_list;
		for (size_t i = 0; i < q->nr_relevant; i++)
			if (q->relevant[i].grade != 1)
				as_list = false;
		if (yamlio_plain(em, "relevant") || (as_list ? yamlio_seq_start(em, true) : yamlio_map_start(em, false)))
			return -1;
		for (size_t i = 0; i < q->nr_relevant; i++) {
			if (yamlio_str(em, q->relevant[i].chunk))
				return -1;
			if (!as_list && yamlio_long(em, q->relevant[i].grade))
				return -1;
		}
		if (as_list ? yamlio_seq_end(em) : yamlio_map_end(em))
			return -1;
	}
	if (q->nr_evidence && emit_evidence(em, q))
		return -1;
	if (emit_str_list(em, "irrelevant", q->irrelevant, q->nr_irrelevant) ||
	    emit_forbidden(em, q) || emit_str_list(em, "tags", q->tags, q->nr_tags))
		return -1;
	if (q->provenance && !cJSON_IsNull(q->provenance) &&
	    (yamlio_plain(em, "provenance") || emit_json(em, q->provenance)))
		return -1;
	if (emit_kv_str(em, "answer", q->answer) || emit_kv_str(em, "note", q->note) ||
	    emit_kv_str(em, "language", q->language))
		return -1;
	return yamlio_map_end(em);
}

static int emit_begin(yaml_emitter_t *em, struct strbuf *out)
{
	if (yamlio_emitter_init(em, out) < 0)
		return -1;
	return yamlio_doc_start(em);
}

int question_to_yaml(const struct question *q, struct strbuf *out)
{
	yaml_emitter_t em;
	int ret = -1;

	if (emit_begin(&em, out) < 0)
		goto out;
	if (emit_question(&em, q) || yamlio_doc_end(&em))
		goto out;
	ret = 0;
out:
	return yamlio_emitter_end(&em, ret, "the question");
}

int set_to_yaml(const struct set *s, struct strbuf *out)
{
	yaml_emitter_t em;
	int ret = -1;

	if (emit_begin(&em, out) < 0)
		goto out;
	if (yamlio_map_start(&em, false) || yamlio_plain(&em, "evalset") || yamlio_long(&em, s->schema) ||
	    emit_kv_str(&em, "name", s->name) ||
	    emit_kv_str(&em, "description", s->description) ||
	    emit_kv_str(&em, "version", s->version) ||
	    emit_kv_str(&em, "digest", s->digest) ||
	    emit_kv_str(&em, "parent", s->parent) ||
	    emit_kv_str(&em, "parent_digest", s->parent_digest) ||
	    emit_kv_str(&em, "tagged_at", s->tagged_at) ||
	    emit_kv_str(&em, "note", s->note) ||
	    emit_kv_str(&em, "language", s->language))
		goto out;
	if (s->has_corpus) {
		if (yamlio_plain(&em, "corpus") || yamlio_map_start(&em, false) ||
		    emit_kv_str(&em, "path", s->corpus.path) ||
		    emit_kv_str(&em, "fingerprint", s->corpus.fingerprint) ||
		    (s->corpus.chunks >= 0 &&
		     (yamlio_plain(&em, "chunks") || yamlio_long(&em, s->corpus.chunks))) ||
		    emit_kv_str(&em, "language", s->corpus.language) ||
		    yamlio_map_end(&em))
			goto out;
	}
	if (emit_forbid_rules(&em, s))
		goto out;
	if (yamlio_plain(&em, "questions") || yamlio_seq_start(&em, s->nr == 0))
		goto out;
	for (size_t i = 0; i < s->nr; i++)
		if (emit_question(&em, &s->q[i]))
			goto out;
	if (yamlio_seq_end(&em) || yamlio_map_end(&em) || yamlio_doc_end(&em))
		goto out;
	ret = 0;
out:
	return yamlio_emitter_end(&em, ret, "the set");
}

/* ---- what the reader accepts ---- */

/* Check one string of the set against the reader's limits. */
static int str_writable(const char *v, const char *what, struct strbuf *why)
{
	size_t len, bad;

	if (!v)
		return 0;
	len = strlen(v);
	if (len > SET_MAX_SCALAR_BYTES) {
		strbuf_addf(why, "%s is longer than the limit of %u bytes (%zu bytes)", what,
			    SET_MAX_SCALAR_BYTES, len);
		return -1;
	}
	if (!utf8_valid(v, len, &bad)) {
		strbuf_addf(why, "%s holds invalid UTF-8 (byte 0x%02x at offset %zu)", what,
			    (unsigned char)v[bad], bad);
		return -1;
	}
	return 0;
}

/* Check a language tag as the reader does. */
static int lang_writable(const char *v, const char *what, struct strbuf *why)
{
	if (v && !lang_tag_valid(v)) {
		strbuf_addf(why, "%s '%.64s' is not a BCP 47 tag", what, v);
		return -1;
	}
	return 0;
}

static int json_writable(const cJSON *j, int depth, struct strbuf *why)
{
	const cJSON *c;

	if (cJSON_IsString(j))
		return str_writable(j->valuestring, "a provenance value", why);
	if (!cJSON_IsObject(j) && !cJSON_IsArray(j))
		return 0;
	if (depth > SET_MAX_PROVENANCE_DEPTH) {
		strbuf_addf(why, "provenance is nested deeper than the limit of %d levels",
			    SET_MAX_PROVENANCE_DEPTH);
		return -1;
	}
	cJSON_ArrayForEach(c, j) {
		if (cJSON_IsObject(j)) {
			if (str_writable(c->string, "a provenance key", why))
				return -1;
			/* cJSON keeps duplicate keys; a YAML mapping may not hold them */
			for (const cJSON *d = j->child; d != c; d = d->next)
				if (!strcmp(d->string, c->string)) {
					strbuf_addf(why, "provenance key '%.64s' is given twice", c->string);
					return -1;
				}
		}
		if (json_writable(c, depth + 1, why))
			return -1;
	}
	return 0;
}

int question_writable(const struct question *q, struct strbuf *why)
{
	if (str_writable(q->id, "id", why) || str_writable(q->text, "text", why) ||
	    str_writable(q->answer, "answer", why) || str_writable(q->note, "note", why) ||
	    lang_writable(q->language, "language", why))
		return -1;
	for (size_t i = 0; i < q->nr_relevant; i++)
		if (str_writable(q->relevant[i].chunk, "a relevant chunk id", why))
			return -1;
	for (size_t i = 0; i < q->nr_irrelevant; i++)
		if (str_writable(q->irrelevant[i], "an irrelevant chunk id", why))
			return -1;
	for (size_t i = 0; i < q->nr_tags; i++)
		if (str_writable(q->tags[i], "a tag", why))
			return -1;
	for (size_t i = 0; i < q->nr_forbidden; i++)
		if (str_writable(q->forbidden[i].id, "a forbidden chunk id", why))
			return -1;
	if (str_writable(q->conversation, "the conversation id", why))
		return -1;
	for (size_t i = 0; i < q->nr_history; i++)
		if (str_writable(q->history[i].role, "the role of a turn", why) ||
		    str_writable(q->history[i].text, "the text of a turn", why))
			return -1;
	if (q->conversation && (q->turn < -1000000000L || q->turn > 1000000000L)) {
		strbuf_addf(why, "turn %ld is outside the range a set file holds", q->turn);
		return -1;
	}
	for (size_t i = 0; i < q->nr_history; i++)
		if (!q->history[i].role) {
			strbuf_addstr(why, "a turn of the history has no role");
			return -1;
		}
	for (size_t i = 0; i < q->nr_evidence; i++) {
		const struct evidence *e = &q->evidence[i];
		bool span = e->start >= 0;  /* as emit_evidence writes it */

		if (str_writable(e->chunk, "an evidence chunk id", why) ||
		    str_writable(e->doc, "an evidence document", why) ||
		    str_writable(e->quote, "an evidence quote", why))
			return -1;
		if (!e->chunk || !*e->chunk || (span && (e->end < e->start || e->end > LONG_CAP(1LL << 40))) ||
		    (!span && (!e->quote || !*e->quote))) {
			strbuf_addstr(why, "an evidence entry needs a chunk and a span (start <= end) "
				      "or a quote");
			return -1;
		}
	}
	if (q->provenance && !cJSON_IsObject(q->provenance) && !cJSON_IsNull(q->provenance)) {
		strbuf_addstr(why, "provenance is not a mapping");
		return -1;
	}
	if (q->provenance && json_writable(q->provenance, 1, why))
		return -1;
	return 0;
}

/* Refuse (reported) a set that set_load could not read back from 'path'. */
static int set_writable(const struct set *s, const char *path)
{
	struct strbuf why = STRBUF_INIT;
	int ret = 0;

	if (s->nr > SET_MAX_QUESTIONS) {
		ret = error("refusing to write '%s': %zu questions, more than the limit of %d",
			    path, s->nr, SET_MAX_QUESTIONS);
		goto out;
	}
	if (str_writable(s->name, "name", &why) ||
	    str_writable(s->description, "description", &why) ||
	    str_writable(s->note, "note", &why) || str_writable(s->parent, "parent", &why) ||
	    lang_writable(s->language, "language", &why) ||
	    (s->has_corpus && lang_writable(s->corpus.language, "corpus.language", &why)) ||
	    str_writable(s->parent_digest, "parent_digest", &why) ||
	    (s->has_corpus && (str_writable(s->corpus.path, "corpus.path", &why) ||
			       str_writable(s->corpus.fingerprint, "corpus.fingerprint", &why)))) {
		ret = error("refusing to write '%s': its %s", path, why.buf);
		goto out;
	}
	for (size_t i = 0; i < s->nr_forbid; i++)
		if (str_writable(s->forbid[i].value, "set-wide forbidden rule", &why)) {
			ret = error("refusing to write '%s': its %s", path, why.buf);
			goto out;
		}
	for (size_t i = 0; i < s->nr; i++)
		if (question_writable(&s->q[i], &why)) {
			ret = error("refusing to write '%s': question '%.64s': %s", path,
				    s->q[i].id ? s->q[i].id : "(no id)", why.buf);
			goto out;
		}
out:
	strbuf_release(&why);
	return ret;
}

/* Refuse (reported) YAML text that set_load would refuse for its size or a line. */
static int text_writable(const struct strbuf *sb, const char *path)
{
	const char *p = sb->buf, *end = sb->buf + sb->len;
	long line = 1;

	if (sb->len > SET_MAX_FILE_BYTES)
		return error("refusing to write '%s': %zu bytes, more than the limit of %u",
			     path, sb->len, SET_MAX_FILE_BYTES);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		if (n > SET_MAX_LINE_BYTES)
			return error("refusing to write '%s': line %ld would be longer than the "
				     "limit of %u bytes", path, line, SET_MAX_LINE_BYTES);
		if (!nl)
			break;
		p = nl + 1;
		line++;
	}
	return 0;
}

int set_save(const struct set *s, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = -1;

	if (set_writable(s, path) < 0 || set_to_yaml(s, &sb) < 0 || text_writable(&sb, path) < 0)
		goto out;
	ret = write_file_atomic(path, sb.buf, sb.len);
out:
	strbuf_release(&sb);
	return ret;
}

/* ---- JSON ---- */

struct cJSON *evidence_to_json(const struct evidence *e)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "chunk", e->chunk);
	if (e->doc)
		cJSON_AddStringToObject(o, "doc", e->doc);
	if (e->start >= 0) {
		cJSON_AddNumberToObject(o, "start", (double)e->start);
		cJSON_AddNumberToObject(o, "end", (double)e->end);
	}
	if (e->quote)
		cJSON_AddStringToObject(o, "quote", e->quote);
	return o;
}

struct cJSON *history_to_json(const struct question *q)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; i < q->nr_history; i++) {
		cJSON *t = cJSON_CreateObject();
		json_add_str_or_null(t, "role", q->history[i].role);
		json_add_str_or_null(t, "text", q->history[i].text);
		cJSON_AddItemToArray(arr, t);
	}
	return arr;
}

void question_add_conversation_json(struct cJSON *j, const struct question *q)
{
	if (q->conversation) {
		cJSON *c = cJSON_AddObjectToObject(j, "conversation");
		cJSON_AddStringToObject(c, "id", q->conversation);
		cJSON_AddNumberToObject(c, "turn", (double)q->turn);
	}
	if (q->nr_history)
		cJSON_AddItemToObject(j, "history", history_to_json(q));
}

struct cJSON *question_to_json(const struct question *q)
{
	cJSON *j = cJSON_CreateObject(), *rel, *arr;

	json_add_str_or_null(j, "id", q->id);
	json_add_str_or_null(j, "text", q->text);
	question_add_conversation_json(j, q);
	if (q->origin != ORIGIN_NONE)
		cJSON_AddStringToObject(j, "origin", origin_name(q->origin));
	cJSON_AddBoolToObject(j, "answerable", q->answerable);
	rel = cJSON_AddObjectToObject(j, "relevant");
	for (size_t i = 0; i < q->nr_relevant; i++)
		cJSON_AddNumberToObject(rel, q->relevant[i].chunk, q->relevant[i].grade);
	if (q->nr_evidence) {
		arr = cJSON_AddArrayToObject(j, "evidence");
		for (size_t i = 0; i < q->nr_evidence; i++)
			cJSON_AddItemToArray(arr, evidence_to_json(&q->evidence[i]));
	}
	arr = cJSON_AddArrayToObject(j, "irrelevant");
	for (size_t i = 0; i < q->nr_irrelevant; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(q->irrelevant[i]));
	if (q->nr_forbidden) {
		arr = cJSON_AddArrayToObject(j, "forbidden");
		for (size_t i = 0; i < q->nr_forbidden; i++)
			cJSON_AddItemToArray(arr, cJSON_CreateString(q->forbidden[i].id));
	}
	arr = cJSON_AddArrayToObject(j, "tags");
	for (size_t i = 0; i < q->nr_tags; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(q->tags[i]));
	if (q->provenance)
		cJSON_AddItemToObject(j, "provenance", cJSON_Duplicate(q->provenance, 1));
	if (q->answer)
		cJSON_AddStringToObject(j, "answer", q->answer);
	if (q->note)
		cJSON_AddStringToObject(j, "note", q->note);
	if (q->language)
		cJSON_AddStringToObject(j, "language", q->language);
	return j;
}
