/*
 * interop-import: read questions from a BEIR folder, TREC topics + qrels, or
 * an evalset JSONL export (the contract and the import rules are in
 * interop.h).
 *
 * Questions are first read in full into a scratch set indexed by id, with
 * the "extras" (sidecar or BEIR metadata) kept per question; labels are then
 * attached from the qrels, and only at the end are the questions worth
 * keeping copied out, so a refusal half way leaves the caller's set empty.
 */
#include "interop/interop.h"

#include "base/error.h"
#include "base/fsutil.h"
#include "base/jsontree.h"
#include "base/lineio.h"
#include "score/qrels.h"
#include "base/strmap.h"
#include "base/util.h"
#include "base/utf8.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define INTEROP_MAX_FILE (512u << 20)
#define INTEROP_MAX_LINE (16u << 20)

static const char *split_of(const char *split)
{
	return split && *split ? split : "test";
}

/* ---- import ---- */

/* The questions being read, by id, with their extras. */
struct importing {
	struct set all;
	struct strmap index;   /* id -> index + 1 */
	cJSON **extras;        /* per question, owned, or NULL */
	size_t alloc_extras;
	const char *file;      /* where the questions came from, for messages */
};

static void importing_release(struct importing *im)
{
	for (size_t i = 0; im->extras && i < im->all.nr; i++)
		cJSON_Delete(im->extras[i]);
	free(im->extras);
	set_release(&im->all);
	strmap_clear(&im->index, 0);
}

/* Append question 'id' with 'text' read at 'file':'line'. Return it, or NULL after an error. */
static struct question *importing_add(struct importing *im, const char *id, const char *text,
				      long line)
{
	struct question *q;
	int added;
	struct strmap_entry *e;

	if (!*id) {
		error_at(im->file, line, 0, "empty query id");
		return NULL;
	}
	e = strmap_intern(&im->index, id, strlen(id), &added);
	if (!added) {
		error_at(im->file, line, 0, "duplicate query id '%s'", id);
		return NULL;
	}
	q = set_append(&im->all);
	e->value = (void *)(uintptr_t)im->all.nr;
	q->id = xstrdup(id);
	q->text = xstrdup(text);
	q->line = line;
	q->answerable = true;
	ALLOC_GROW(im->extras, im->all.nr, im->alloc_extras);
	im->extras[im->all.nr - 1] = NULL;
	return q;
}

static struct question *importing_find(const struct importing *im, const char *id)
{
	uintptr_t n = (uintptr_t)strmap_get(&im->index, id);

	return n ? &im->all.q[n - 1] : NULL;
}

/* Add the judgment 'doc' 'grade' of the qrels line 'file':'line' to 'q'. */
static int add_judgment(struct question *q, const char *doc, long grade, const char *file, long line)
{
	if (grade > 9)
		return error_at(file, line, 0, "grade %ld of '%s' for query '%s' is outside 0..9",
				grade, doc, q->id);
	if (question_grade(q, doc) >= 0)
		return error_at(file, line, 0, "document '%s' judged twice for query '%s'", doc, q->id);
	question_set_label(q, doc, (int)grade);
	return 0;
}

static int string_field(const cJSON *obj, const char *key, char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	long n;

	*out = NULL;
	if (cJSON_IsString(v)) {
		*out = xstrdup(v->valuestring);
		return 0;
	}
	if (cJSON_IsNumber(v) && !double_to_long(v->valuedouble, LONG_MIN, LONG_MAX, &n)) {
		*out = xstrfmt("%ld", n);
		return 0;
	}
	return v && !cJSON_IsNull(v) ? -1 : 0;
}

/* Read the extras' "conversation" {id, turn} and "history" [{role, text}]
 * into 'q'. Return 0 or -1 (reported at 'file':'line'). */
static int extras_conversation(struct question *q, const cJSON *x, const char *file, long line)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(x, "conversation");
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(x, "history"), *t;
	const cJSON *id, *turn;

	if (c && !cJSON_IsNull(c)) {
		id = cJSON_GetObjectItemCaseSensitive(c, "id");
		turn = cJSON_GetObjectItemCaseSensitive(c, "turn");
		if (!cJSON_IsObject(c) || !cJSON_IsString(id) || !cJSON_IsNumber(turn) ||
		    double_to_long(turn->valuedouble, 1, LONG_MAX, &q->turn) < 0)
			return error_at(file, line, 0, "'conversation' of query '%s' is not {id: TEXT, "
					"turn: N} with a turn from 1", q->id);
		free(q->conversation);
		q->conversation = xstrdup(id->valuestring);
	}
	if (!h || cJSON_IsNull(h))
		return 0;
	if (!cJSON_IsArray(h))
		return error_at(file, line, 0, "'history' of query '%s' is not a list", q->id);
	cJSON_ArrayForEach(t, h) {
		const char *role = json_get_str(t, "role"), *text = json_get_str(t, "text");

		if (!role || !text)
			return error_at(file, line, 0, "a turn in the history of query '%s' is not "
					"{role: TEXT, text: TEXT}", q->id);
		question_add_turn(q, role, text);
	}
	return 0;
}

/* Read the extras' "evidence" (the objects a set's evidence list holds) into
 * 'q'. Return 0 or -1 (reported at 'file':'line'). */
static int extras_evidence(struct question *q, const cJSON *x, const char *file, long line)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(x, "evidence"), *v;

	if (!arr || cJSON_IsNull(arr))
		return 0;
	if (!cJSON_IsArray(arr))
		return error_at(file, line, 0, "'evidence' of query '%s' is not a list", q->id);
	cJSON_ArrayForEach(v, arr) {
		const cJSON *start = cJSON_GetObjectItemCaseSensitive(v, "start");
		const cJSON *end = cJSON_GetObjectItemCaseSensitive(v, "end");
		struct evidence e = { NULL, NULL, -1, -1, NULL, 0, 0 };

		e.chunk = (char *)json_get_str(v, "chunk");
		e.doc = (char *)json_get_str(v, "doc");
		e.quote = (char *)json_get_str(v, "quote");
		if (!e.chunk || (start && (!cJSON_IsNumber(start) ||
					   double_to_long(start->valuedouble, 0, LONG_MAX, &e.start) < 0)) ||
		    (end && (!cJSON_IsNumber(end) || double_to_long(end->valuedouble, 0, LONG_MAX, &e.end) < 0)))
			return error_at(file, line, 0, "an evidence of query '%s' is not {chunk, doc, "
					"start, end, quote} with offsets from 0", q->id);
		question_add_evidence(q, &e);
	}
	return 0;
}

/* Read the extras' "forbidden" ids and "language" into 'q'. Return 0 or -1
 * (reported at 'file':'line'). */
static int extras_forbidden(struct question *q, const cJSON *x, const char *file, long line)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(x, "forbidden"), *v;

	if (arr && !cJSON_IsNull(arr)) {
		if (!cJSON_IsArray(arr))
			return error_at(file, line, 0, "'forbidden' of query '%s' is not a list", q->id);
		cJSON_ArrayForEach(v, arr) {
			if (!cJSON_IsString(v))
				return error_at(file, line, 0, "'forbidden' of query '%s' holds a non-string",
						q->id);
			question_add_forbidden(q, v->valuestring);
		}
	}
	free(q->language);
	if (string_field(x, "language", &q->language) < 0)
		return error_at(file, line, 0, "'language' of query '%s' is not a string", q->id);
	return 0;
}

/* Apply the extras 'x' to 'q'. Return 0 or -1 (reported at 'file':'line'). */
static int apply_extras(struct question *q, const cJSON *x, const struct interop_import *o,
			const char *file, long line)
{
	const cJSON *v;

	if (!cJSON_IsObject(x))
		return error_at(file, line, 0, "metadata of query '%s' is not an object", q->id);
	if ((v = cJSON_GetObjectItemCaseSensitive(x, "text"))) {
		if (!cJSON_IsString(v))
			return error_at(file, line, 0, "'text' of query '%s' is not a string", q->id);
		free(q->text);
		q->text = xstrdup(v->valuestring);
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(x, "origin")) && !o->origin_given) {
		if (cJSON_IsNull(v))
			q->origin = ORIGIN_NONE;
		else if (!cJSON_IsString(v) || origin_parse(v->valuestring, &q->origin) < 0)
			return error_at(file, line, 0, "bad 'origin' for query '%s'", q->id);
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(x, "answerable"))) {
		if (!cJSON_IsBool(v))
			return error_at(file, line, 0, "'answerable' of query '%s' is not a boolean", q->id);
		q->answerable = cJSON_IsTrue(v);
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(x, "tags"))) {
		const cJSON *t;

		if (!cJSON_IsArray(v))
			return error_at(file, line, 0, "'tags' of query '%s' is not a list", q->id);
		cJSON_ArrayForEach(t, v) {
			if (!cJSON_IsString(t))
				return error_at(file, line, 0, "a tag of query '%s' is not a string", q->id);
			if (question_has_tag(q, t->valuestring))
				continue;
			ALLOC_GROW(q->tags, q->nr_tags + 1, q->alloc_tags);
			q->tags[q->nr_tags++] = xstrdup(t->valuestring);
		}
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(x, "provenance")) && !cJSON_IsNull(v)) {
		if (!cJSON_IsObject(v))
			return error_at(file, line, 0, "'provenance' of query '%s' is not an object", q->id);
		cJSON_Delete(q->provenance);
		q->provenance = cJSON_Duplicate(v, 1);
	}
	if (string_field(x, "answer", &q->answer) < 0 || string_field(x, "note", &q->note) < 0)
		return error_at(file, line, 0, "'answer' or 'note' of query '%s' is not a string", q->id);
	if (extras_conversation(q, x, file, line) < 0 || extras_evidence(q, x, file, line) < 0 ||
	    extras_forbidden(q, x, file, line) < 0)
		return -1;
	return 0;
}

/*
 * Move the questions of 'im' worth keeping into 'out': judged ones, and
 * unjudged ones whose extras say unanswerable. Return 0 or -1.
 */
static int importing_finish(struct importing *im, struct set *out, const struct interop_import *o,
			    const char *labels_file, const char *recorded_digest)
{
	size_t restored = 0, skipped = 0;

	for (size_t i = 0; i < im->all.nr; i++) {
		struct question *q = &im->all.q[i];
		bool judged = q->nr_relevant || q->nr_irrelevant;
		bool all_one = true;

		q->origin = o->origin;
		q->answerable = q->nr_relevant > 0;
		if (im->extras[i]) {
			if (apply_extras(q, im->extras[i], o, im->file, q->line) < 0)
				return -1;
			restored++;
		}
		if (!judged && (!im->extras[i] || q->answerable)) {
			skipped++;
			continue;
		}
		for (size_t k = 0; k < q->nr_relevant; k++)
			if (q->relevant[k].grade != 1)
				all_one = false;
		q->relevant_as_list = all_one;
		question_copy(set_append(out), q);
	}
	free(out->file);
	out->file = xstrdup(labels_file);
	if (skipped)
		note("skipped %zu quer%s of '%s' with no judgment in '%s'", skipped,
		     skipped == 1 ? "y" : "ies", im->file, labels_file);
	if (!out->nr)
		return error("no judged queries in '%s'", labels_file);
	if (recorded_digest && restored == im->all.nr && !o->origin_given) {
		char digest[72];

		set_content_digest(out, digest);
		if (strcmp(digest, recorded_digest))
			warning("imported questions have content digest %s, not the %s recorded at export",
				digest, recorded_digest);
	}
	return 0;
}

/* Load the JSON file 'path' into '*out' (caller frees). Return 0 or -1. */
static int load_json_file(const char *path, cJSON **out)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = -1;

	if (read_file(path, &sb, INTEROP_MAX_FILE) < 0)
		goto out;
	*out = cJSON_ParseWithLength(sb.buf, sb.len);
	if (!*out || !cJSON_IsObject(*out)) {
		cJSON_Delete(*out);
		*out = NULL;
		error("'%s' is not a JSON object", path);
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&sb);
	return ret;
}

/* ---- TREC topics and qrels ---- */

static void trim(char **s)
{
	char *e;

	while (**s == ' ' || **s == '\t')
		(*s)++;
	e = *s + strlen(*s);
	while (e > *s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
}

/* Return the text of 'line' after its tag of 'taglen' bytes, trimmed, without the 'label' that may open it. */
static char *tag_text(char *line, size_t taglen, const char *label)
{
	char *v = line + taglen;

	trim(&v);
	if (starts_with(v, label))
		v += strlen(label);
	trim(&v);
	return v;
}

/* Read TREC SGML topics (<top> <num> Number: N <title> text ...). */
static int read_sgml_topics(struct importing *im, char *buf)
{
	char *line = buf, *next, *num = NULL;
	struct strbuf title = STRBUF_INIT;
	long lineno = 0, top_line = 0;
	bool in_title = false;
	int ret = -1;

	for (; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		trim(&line);
		if (starts_with(line, "<top>")) {
			free(num);
			num = NULL;
			strbuf_reset(&title);
			top_line = lineno;
			in_title = false;
		} else if (starts_with(line, "<num>")) {
			free(num);
			num = xstrdup(tag_text(line, 5, "Number:"));
			in_title = false;
		} else if (starts_with(line, "<title>")) {
			strbuf_addstr(&title, tag_text(line, 7, "Topic:"));
			in_title = true;
		} else if (starts_with(line, "</top>")) {
			if (!num || !title.len) {
				error_at(im->file, top_line, 0, "topic without <num> or <title>");
				goto out;
			}
			if (!importing_add(im, num, title.buf, top_line))
				goto out;
			in_title = false;
		} else if (line[0] == '<') {
			in_title = false;
		} else if (in_title && *line) {
			if (title.len)
				strbuf_addch(&title, ' ');
			strbuf_addstr(&title, line);
		}
	}
	ret = 0;
out:
	free(num);
	strbuf_release(&title);
	return ret;
}

/* Read "qid<TAB>text" topics. */
static int read_tsv_topics(struct importing *im, char *buf)
{
	char *line = buf, *next;
	long lineno = 0;

	for (; line && *line; line = next) {
		char *tab;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if (*line && line[strlen(line) - 1] == '\r')
			line[strlen(line) - 1] = '\0';
		if (!*line)
			continue;
		if (!(tab = strchr(line, '\t')))
			return error_at(im->file, lineno, 0, "expected 'qid<TAB>text' in a topics file");
		*tab = '\0';
		if (!importing_add(im, line, tab + 1, lineno))
			return -1;
	}
	return 0;
}

static int import_trec(struct set *out, const struct interop_import *o)
{
	struct importing im = { SET_INIT, STRMAP_INIT, NULL, 0, o->topics };
	struct strbuf buf = STRBUF_INIT;
	struct qrels qr;
	char *meta_path = xstrfmt("%s.meta.json", o->qrels);
	cJSON *meta = NULL;
	const cJSON *qs = NULL;
	const char *p;
	int ret = -1;

	qrels_init(&qr);
	if (read_file(o->topics, &buf, INTEROP_MAX_FILE) < 0)
		goto out;
	if (!utf8_valid(buf.buf, buf.len, NULL)) {
		error("topics file '%s' is not valid UTF-8 text", o->topics);
		goto out;
	}
	for (p = buf.buf; *p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'; p++)
		;
	if ((starts_with(p, "<top>") ? read_sgml_topics(&im, buf.buf) : read_tsv_topics(&im, buf.buf)) < 0)
		goto out;
	if (!im.all.nr) {
		error("no topics in '%s'", o->topics);
		goto out;
	}
	if (qrels_load(&qr, o->qrels) < 0)
		goto out;
	for (size_t i = 0; i < qr.nr; i++) {
		const struct qrels_query *qq = &qr.q[i];
		struct question *q = importing_find(&im, qq->qid);

		if (!q) {
			error_at(o->qrels, qq->line, 0, "query '%s' is not in the topics '%s'", qq->qid,
				 o->topics);
			goto out;
		}
		for (size_t k = 0; k < qq->nr; k++) {
			if (qq->j[k].rel < 0)
				continue;
			if (add_judgment(q, qq->j[k].doc, qq->j[k].rel, o->qrels, qq->line) < 0)
				goto out;
		}
	}
	if (!path_exists(meta_path)) {
		note("no sidecar '%s' beside the qrels: the questions are read as a collection made "
		     "elsewhere (origin %s; no tags, provenance, answers, notes, conversations, evidence "
		     "or forbidden ids; an unjudged question skipped); `export --meta` writes it",
		     meta_path, origin_name(o->origin));
	} else {
		if (load_json_file(meta_path, &meta) < 0)
			goto out;
		qs = cJSON_GetObjectItemCaseSensitive(meta, "questions");
		for (size_t i = 0; cJSON_IsObject(qs) && i < im.all.nr; i++)
			im.extras[i] = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(qs, im.all.q[i].id), 1);
	}
	ret = importing_finish(&im, out, o, o->qrels, meta ? json_get_str(meta, "content_digest") : NULL);
out:
	cJSON_Delete(meta);
	free(meta_path);
	qrels_release(&qr);
	strbuf_release(&buf);
	importing_release(&im);
	return ret;
}

/* ---- BEIR ---- */

/* Say which qrels splits 'dir' holds, for the error about a missing one. */
static void list_splits(const char *dir, struct strbuf *out)
{
	static const char *const known[] = { "train", "dev", "test", "validation" };

	for (size_t i = 0; i < ARRAY_SIZE(known); i++) {
		char *p = xstrfmt("%s/qrels/%s.tsv", dir, known[i]);
		if (path_exists(p))
			strbuf_addf(out, "%s%s", out->len ? ", " : "", known[i]);
		free(p);
	}
}

/*
 * Read the next line of 'lr' that is not blank into 'line' and parse it into
 * '*j', a JSON object the caller deletes. Return 1, 0 at the end of the
 * file, or below 0 after reporting (a line that is not an object is named
 * as 'path':LINE).
 */
static int next_object(struct line_reader *lr, struct strbuf *line, const char *path, cJSON **j)
{
	int r;

	while ((r = line_reader_next(lr, line)) == 1) {
		if (!line->len || strspn(line->buf, " \t") == line->len)
			continue;
		*j = cJSON_ParseWithLength(line->buf, line->len);
		if (cJSON_IsObject(*j))
			return 1;
		cJSON_Delete(*j);
		*j = NULL;
		return error_at(path, lr->lineno, 0, "not a JSON object");
	}
	return r;
}

static int read_beir_queries(struct importing *im, const char *path)
{
	struct line_reader lr;
	struct strbuf line = STRBUF_INIT;
	cJSON *j;
	int r, ret = -1;

	if (line_reader_open(&lr, path, INTEROP_MAX_LINE) < 0)
		return -1;
	while ((r = next_object(&lr, &line, path, &j)) == 1) {
		char *id = NULL;
		const char *text;
		struct question *q;

		if (string_field(j, "_id", &id) < 0 || !id || !(text = json_get_str(j, "text"))) {
			free(id);
			cJSON_Delete(j);
			error_at(path, lr.lineno, 0, "a query needs a string '_id' and 'text'");
			goto out;
		}
		q = importing_add(im, id, text, lr.lineno);
		free(id);
		if (!q) {
			cJSON_Delete(j);
			goto out;
		}
		{
			const cJSON *md = cJSON_GetObjectItemCaseSensitive(j, "metadata");
			/* only metadata evalset wrote is applied: it says "answerable" */
			if (cJSON_IsObject(md) && cJSON_GetObjectItemCaseSensitive(md, "answerable"))
				im->extras[im->all.nr - 1] = cJSON_Duplicate(md, 1);
		}
		cJSON_Delete(j);
	}
	ret = r < 0 ? -1 : 0;
out:
	line_reader_close(&lr);
	strbuf_release(&line);
	return ret;
}

static int read_beir_qrels(struct importing *im, const char *path)
{
	struct line_reader lr;
	struct strbuf line = STRBUF_INIT;
	int r, ret = -1;

	if (line_reader_open(&lr, path, INTEROP_MAX_LINE) < 0)
		return -1;
	while ((r = line_reader_next(&lr, &line)) == 1) {
		char *f[4] = { NULL }, *p = line.buf, *tab;
		size_t n = 0;
		long grade;
		struct question *q;

		if (!line.len)
			continue;
		while (n < 4) {
			f[n++] = p;
			if (!(tab = strchr(p, '\t')))
				break;
			*tab = '\0';
			p = tab + 1;
		}
		if (lr.lineno == 1 && !strcmp(f[0], "query-id"))
			continue;
		if (n != 3) {
			error_at(path, lr.lineno, 0, "expected 'query-id<TAB>corpus-id<TAB>score'");
			goto out;
		}
		if (parse_long(f[2], -1000000, 1000000, &grade) < 0) {
			error_at(path, lr.lineno, 0, "score '%s' is not an integer", f[2]);
			goto out;
		}
		if (!(q = importing_find(im, f[0]))) {
			error_at(path, lr.lineno, 0, "query '%s' is not in the queries '%s'", f[0], im->file);
			goto out;
		}
		if (grade < 0)
			continue;
		if (add_judgment(q, f[1], grade, path, lr.lineno) < 0)
			goto out;
	}
	ret = r < 0 ? -1 : 0;
out:
	line_reader_close(&lr);
	strbuf_release(&line);
	return ret;
}

static int import_beir(struct set *out, const struct interop_import *o)
{
	char *queries = path_join(o->beir_dir, "queries.jsonl");
	char *qrels = xstrfmt("%s/qrels/%s.tsv", o->beir_dir, split_of(o->split));
	char *meta_path = path_join(o->beir_dir, "evalset.meta.json");
	struct importing im = { SET_INIT, STRMAP_INIT, NULL, 0, queries };
	struct strbuf have = STRBUF_INIT;
	cJSON *meta = NULL;
	int ret = -1;

	if (!is_dir(o->beir_dir)) {
		error("BEIR folder '%s' does not exist", o->beir_dir);
		goto out;
	}
	if (!path_exists(queries)) {
		error("BEIR folder '%s' has no queries.jsonl", o->beir_dir);
		goto out;
	}
	if (!path_exists(qrels)) {
		list_splits(o->beir_dir, &have);
		error("BEIR folder '%s' has no qrels for split '%s' (no '%s'; %s%s)", o->beir_dir,
		      split_of(o->split), qrels, have.len ? "splits found: " : "no qrels/ splits found",
		      have.buf);
		goto out;
	}
	if (read_beir_queries(&im, queries) < 0 || read_beir_qrels(&im, qrels) < 0)
		goto out;
	if (path_exists(meta_path) && load_json_file(meta_path, &meta) < 0)
		goto out;
	ret = importing_finish(&im, out, o, qrels, meta ? json_get_str(meta, "content_digest") : NULL);
out:
	cJSON_Delete(meta);
	strbuf_release(&have);
	importing_release(&im);
	free(queries);
	free(qrels);
	free(meta_path);
	return ret;
}

/* ---- MTRAG ---- */

/* Give 'q' the conversation and turn its MTRAG id 'id' (CONVERSATION<::>TURN)
 * names, checking the turn against the 'users' turns of its text; an id
 * without "<::>" gives no conversation. Return 0 or -1 (reported). */
static int mtrag_conversation(struct question *q, const char *id, size_t users,
			      const char *path, long line)
{
	const char *sep = strstr(id, MTRAG_ID_SEP), *next;
	long turn;

	if (!sep)
		return 0;
	while ((next = strstr(sep + 1, MTRAG_ID_SEP)))
		sep = next;
	if (sep == id || parse_long(sep + strlen(MTRAG_ID_SEP), 1, 1000000000L, &turn) < 0)
		return error_at(path, line, 0, "query id '%s' is not CONVERSATION%sTURN with a "
				"turn from 1", id, MTRAG_ID_SEP);
	if (users != (size_t)turn)
		return error_at(path, line, 0, "query '%s' is turn %ld but its text holds %zu user "
				"turn%s: give the file whose text holds every turn (MTRAG's "
				"*_questions.jsonl, not the last-turn or rewrite file)", id, turn,
				users, users == 1 ? "" : "s");
	q->conversation = xstrndup(id, (size_t)(sep - id));
	q->turn = turn;
	return 0;
}

static int read_mtrag_queries(struct importing *im, const char *path)
{
	struct line_reader lr;
	struct strbuf line = STRBUF_INIT, why = STRBUF_INIT;
	cJSON *j;
	int r, ret = -1;

	if (line_reader_open(&lr, path, INTEROP_MAX_LINE) < 0)
		return -1;
	while ((r = next_object(&lr, &line, path, &j)) == 1) {
		char *id = NULL;
		const char *text;
		struct question *q = NULL;
		size_t users;
		int bad = 0;

		strbuf_reset(&why);
		if (string_field(j, "_id", &id) < 0 || !id || !(text = json_get_str(j, "text"))) {
			error_at(path, lr.lineno, 0, "a query needs a string '_id' and 'text'");
			bad = 1;
		} else if (!(q = importing_add(im, id, "", lr.lineno))) {
			bad = 1;
		} else if (mtrag_read_turns(text, q, &users, &why) < 0) {
			error_at(path, lr.lineno, 0, "query '%s': %s", id, why.buf);
			bad = 1;
		} else if (mtrag_conversation(q, id, users, path, lr.lineno) < 0) {
			bad = 1;
		}
		free(id);
		cJSON_Delete(j);
		if (bad)
			goto out;
	}
	ret = r < 0 ? -1 : 0;
out:
	line_reader_close(&lr);
	strbuf_release(&line);
	strbuf_release(&why);
	return ret;
}

static int import_mtrag(struct set *out, const struct interop_import *o)
{
	struct importing im = { SET_INIT, STRMAP_INIT, NULL, 0, o->mtrag };
	int ret = -1;

	if (read_mtrag_queries(&im, o->mtrag) < 0 || read_beir_qrels(&im, o->qrels) < 0)
		goto out;
	ret = importing_finish(&im, out, o, o->qrels, NULL);
out:
	importing_release(&im);
	return ret;
}

/* ---- evalset JSONL ---- */

/* Add the ids of the list 'ids' (the field 'key' of question 'q') to 'q' with grade 'grade'. */
static int add_id_list(struct question *q, const cJSON *ids, long grade, const char *key, const char *file,
		       long line)
{
	const cJSON *v;

	cJSON_ArrayForEach(v, ids) {
		if (!cJSON_IsString(v))
			return error_at(file, line, 0, "'%s' of question '%s' holds a non-string", key, q->id);
		if (add_judgment(q, v->valuestring, grade, file, line) < 0)
			return -1;
	}
	return 0;
}

static int read_labels_json(struct question *q, const cJSON *j, const char *file, long line)
{
	const cJSON *rel = cJSON_GetObjectItemCaseSensitive(j, "relevant");
	const cJSON *irr = cJSON_GetObjectItemCaseSensitive(j, "irrelevant");
	const cJSON *v;

	if (cJSON_IsObject(rel)) {
		cJSON_ArrayForEach(v, rel) {
			long g;
			if (!cJSON_IsNumber(v) || double_to_long(v->valuedouble, 1, 9, &g) < 0)
				return error_at(file, line, 0, "grade of '%s' for question '%s' is not 1..9",
						v->string, q->id);
			if (add_judgment(q, v->string, g, file, line) < 0)
				return -1;
		}
	} else if (cJSON_IsArray(rel)) {
		if (add_id_list(q, rel, 1, "relevant", file, line) < 0)
			return -1;
	} else if (rel && !cJSON_IsNull(rel)) {
		return error_at(file, line, 0, "'relevant' of question '%s' is not a map", q->id);
	}
	if (cJSON_IsArray(irr)) {
		if (add_id_list(q, irr, 0, "irrelevant", file, line) < 0)
			return -1;
	} else if (irr && !cJSON_IsNull(irr)) {
		return error_at(file, line, 0, "'irrelevant' of question '%s' is not a list", q->id);
	}
	return 0;
}

static int import_jsonl(struct set *out, const struct interop_import *o)
{
	struct line_reader lr;
	struct strbuf line = STRBUF_INIT;
	struct strmap ids = STRMAP_INIT;  /* the ids read so far (and those 'out' had) */
	char *digest = NULL;
	size_t nr_lines = 0;
	cJSON *j;
	int r, added, ret = -1;

	if (line_reader_open(&lr, o->jsonl, INTEROP_MAX_LINE) < 0)
		return -1;
	for (size_t i = 0; i < out->nr; i++)
		if (out->q[i].id)
			strmap_intern(&ids, out->q[i].id, strlen(out->q[i].id), &added);
	while ((r = next_object(&lr, &line, o->jsonl, &j)) == 1) {
		const cJSON *meta;
		char *id = NULL;
		struct question *q;

		if (!nr_lines++ && cJSON_IsObject(meta = cJSON_GetObjectItemCaseSensitive(j, "meta"))) {
			digest = xstrdup(json_get_str(meta, "content_digest"));
			cJSON_Delete(j);
			continue;
		}
		if (string_field(j, "id", &id) < 0 || !id || !json_get_str(j, "text")) {
			free(id);
			cJSON_Delete(j);
			error_at(o->jsonl, lr.lineno, 0, "a question needs a string 'id' and 'text'");
			goto out;
		}
		strmap_intern(&ids, id, strlen(id), &added);
		if (!added) {
			error_at(o->jsonl, lr.lineno, 0, "duplicate question id '%s'", id);
			free(id);
			cJSON_Delete(j);
			goto out;
		}
		q = set_append(out);
		q->id = id;
		q->text = xstrdup(json_get_str(j, "text"));
		q->line = lr.lineno;
		q->origin = o->origin;
		r = read_labels_json(q, j, o->jsonl, lr.lineno);
		if (r == 0 && !cJSON_GetObjectItemCaseSensitive(j, "answerable"))
			q->answerable = q->nr_relevant > 0;
		if (r < 0 || apply_extras(q, j, o, o->jsonl, lr.lineno) < 0) {
			cJSON_Delete(j);
			goto out;
		}
		q->relevant_as_list = cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(j, "relevant"));
		cJSON_Delete(j);
	}
	if (r < 0)
		goto out;
	free(out->file);
	out->file = xstrdup(o->jsonl);
	if (!out->nr) {
		error("no questions in '%s'", o->jsonl);
		goto out;
	}
	if (digest && !o->origin_given) {
		char now[72];

		set_content_digest(out, now);
		if (strcmp(now, digest))
			warning("imported questions have content digest %s, not the %s recorded at export",
				now, digest);
	}
	ret = 0;
out:
	free(digest);
	line_reader_close(&lr);
	strbuf_release(&line);
	strmap_clear(&ids, 0);
	return ret;
}

int interop_import(struct set *out, const struct interop_import *o)
{
	if (o->beir_dir)
		return import_beir(out, o);
	if (o->mtrag && o->qrels)
		return import_mtrag(out, o);
	if (o->mtrag)
		return mtrag_conversations_import(out, o);
	if (o->topics && o->qrels)
		return import_trec(out, o);
	if (o->jsonl)
		return import_jsonl(out, o);
	return error("nothing to import");
}
