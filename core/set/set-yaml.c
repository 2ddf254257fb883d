/*
 * set-yaml: reading a set from YAML with libyaml's event parser (writing is
 * in set-write.c).
 *
 * Reading happens in three steps, each refusing with FILE:LINE:COL:
 *   1. raw bytes: the size limit, an empty file, lines over
 *      SET_MAX_LINE_BYTES and invalid UTF-8 are refused before libyaml sees
 *      the bytes (so a bad byte is reported where it is, not where libyaml
 *      gives up);
 *   2. events into a small node tree that keeps every node's position
 *      (yamlio_parse_tree);
 *      anchors, aliases, tags other than !!str, nesting deeper than
 *      SET_MAX_DEPTH, scalars over SET_MAX_SCALAR_BYTES and more than one
 *      document are refused here (no alias is ever expanded, so an alias
 *      bomb costs nothing);
 *   3. the tree into struct set: unknown keys, duplicate keys and wrong types
 *      are refused; rule violations (duplicate ids, grades 0 or 12...) are
 *      kept for set_check.
 * Plain scalars resolve as in the YAML 1.2 core schema (null, bool, int,
 * float, else string; yscalar_resolve in base/yamlio); quoted scalars are always strings.
 */
#include "set/set.h"
#include "base/error.h"
#include "base/suggest.h"
#include "base/fsutil.h"
#include "base/strmap.h"
#include "base/util.h"
#include "base/utf8.h"
#include "base/yamlio.h"
#include "text/lang.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static const struct yamlio_rules set_rules = {
	.file = "set file", .max_depth = SET_MAX_DEPTH, .max_scalar = SET_MAX_SCALAR_BYTES,
	.detail = true,
};

/* ---- step 1: raw bytes ---- */

static int check_raw(const char *buf, size_t len, const char *name)
{
	size_t line = 1, start = 0, off;

	for (size_t i = 0; i <= len; i++) {
		if (i == len || buf[i] == '\n') {
			if (i - start > SET_MAX_LINE_BYTES)
				return error_at(name, (long)line, 1,
						"line longer than the limit of %u bytes (%zu bytes)",
						SET_MAX_LINE_BYTES, i - start);
			line++;
			start = i + 1;
		}
	}
	if (!utf8_valid(buf, len, &off)) {
		long l, col;
		yamlio_position(buf, off, &l, &col);
		if (!buf[off])
			return error_at(name, l, col, "NUL byte in a set file");
		return error_at(name, l, col, "invalid UTF-8 (byte 0x%02x)",
				(unsigned char)buf[off]);
	}
	return 0;
}

/* ---- step 3: nodes into the set ---- */

/* Parse an integer scalar (core schema forms) within [min, max]. */
static int node_int(const struct ynode *n, long min, long max, long *out)
{
	long v;
	char *end;

	if (n->kind != YNODE_SCALAR || ynode_type(n) != YSCALAR_INT)
		return -1;
	if (starts_with(n->value, "0o") || starts_with(n->value, "0x")) {
		unsigned long long u = strtoull(n->value + 2, &end, n->value[1] == 'o' ? 8 : 16);
		if (*end || u > (unsigned long long)max)
			return -1;
		v = (long)u;
	} else {
		const char *p = n->value[0] == '+' ? n->value + 1 : n->value;
		if (parse_long(p, min, max, &v) < 0)
			return -1;
	}
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

struct loader {
	const char *name;
	bool cases;   /* a file of cases for "add --from": evidence may be a quote alone */
};

static int type_error(struct loader *ld, const struct ynode *n, const char *what, const char *want)
{
	return yamlio_type_error(ld->name, n, what, want);
}

/* Read a string field; a null scalar gives NULL. Any other scalar is taken
 * as its text. */
static int get_string(struct loader *ld, const struct ynode *n, const char *what, char **out)
{
	free(*out);
	*out = NULL;
	if (n->kind != YNODE_SCALAR)
		return type_error(ld, n, what, "a string");
	if (ynode_type(n) == YSCALAR_NULL)
		return 0;
	*out = xstrdup(n->value);
	return 0;
}

/* Check the keys of mapping 'm': scalars, unique, among 'known'. */
static int check_keys(struct loader *ld, const struct ynode *m, const char *const *known,
		      const char *where)
{
	for (size_t i = 0; i + 1 < m->nr; i += 2) {
		const struct ynode *k = m->kids[i];
		struct suggest sg;
		struct strbuf mean = STRBUF_INIT;
		int rc;
		bool found = false;

		if (k->kind != YNODE_SCALAR)
			return error_at(ld->name, k->line, k->col, "%s key must be a scalar, not %s",
					where, ynode_kind_name(k));
		for (size_t j = 0; j < i; j += 2)
			if (!strcmp(m->kids[j]->value, k->value))
				return error_at(ld->name, k->line, k->col,
						"duplicate key '%s' (first at line %ld)", k->value,
						m->kids[j]->line);
		for (size_t j = 0; known[j] && !found; j++)
			found = !strcmp(known[j], k->value);
		if (found)
			continue;
		suggest_init(&sg, k->value, strlen(k->value), 2, false);
		for (size_t j = 0; known[j]; j++)
			suggest_offer(&sg, known[j]);
		suggest_did_you_mean(&sg, 1, NULL, &mean);
		rc = error_at(ld->name, k->line, k->col, "unknown key '%s' in %s%s", k->value, where, mean.buf);
		suggest_release(&sg);
		strbuf_release(&mean);
		return rc;
	}
	return 0;
}

static int get_string_list(struct loader *ld, const struct ynode *n, const char *what,
			   char ***arr, size_t *nr, size_t *alloc)
{
	if (n->kind == YNODE_SCALAR && ynode_type(n) == YSCALAR_NULL)
		return 0;
	if (n->kind != YNODE_SEQ)
		return type_error(ld, n, what, "a list");
	ALLOC_EXACT(*arr, *nr + n->nr, *alloc);  /* exactly: a question has a tag or two */
	for (size_t i = 0; i < n->nr; i++) {
		const struct ynode *it = n->kids[i];
		if (it->kind != YNODE_SCALAR || ynode_type(it) == YSCALAR_NULL)
			return type_error(ld, it, "an item of this list", "a string");
		ALLOC_GROW(*arr, *nr + 1, *alloc);
		(*arr)[(*nr)++] = xstrdup(it->value);
	}
	return 0;
}

/* Load 'forbidden': a list of chunk ids and "doc:NAME" entries, each with
 * where it was read (set_check reports what is wrong with one there). */
static int get_forbidden(struct loader *ld, const struct ynode *n, struct question *q)
{
	if (n->kind == YNODE_SCALAR && ynode_type(n) == YSCALAR_NULL)
		return 0;
	if (n->kind != YNODE_SEQ)
		return type_error(ld, n, "'forbidden'", "a list of chunk ids and doc:NAME entries");
	for (size_t i = 0; i < n->nr; i++) {
		const struct ynode *it = n->kids[i];
		struct forbid *f;

		if (it->kind != YNODE_SCALAR || ynode_type(it) == YSCALAR_NULL)
			return type_error(ld, it, "a forbidden chunk id", "a string");
		ALLOC_GROW(q->forbidden, q->nr_forbidden + 1, q->alloc_forbidden);
		f = &q->forbidden[q->nr_forbidden++];
		f->id = xstrdup(it->value);
		f->line = it->line;
		f->col = it->col;
	}
	return 0;
}

/*
 * Load the set-wide 'forbidden' rules: a list whose items are a chunk id or
 * "doc:NAME" (as a question's entries), or a mapping of one selector to its
 * value ({tag: internal}). An unknown selector, a value that is not a
 * string, an empty one or one with a control character is refused here,
 * at its line and column; a repeated rule is set_check's.
 */
static int get_forbid_rules(struct loader *ld, const struct ynode *n, struct set *s)
{
	const char *want = "a list of rules (a chunk id, doc:NAME, or one of chunk, doc, "
			   "doc-prefix, id-prefix, tag with its value)";

	if (n->kind == YNODE_SCALAR && ynode_type(n) == YSCALAR_NULL)
		return 0;
	if (n->kind != YNODE_SEQ)
		return type_error(ld, n, "the set-wide 'forbidden'", want);
	for (size_t i = 0; i < n->nr; i++) {
		const struct ynode *it = n->kids[i], *at = it, *v = it;
		enum forbid_kind kind = FORBID_BY_CHUNK;
		const char *value, *why;
		struct forbid_rule *r;
		size_t plen = strlen(FORBID_DOC_PREFIX);

		if (it->kind == YNODE_MAP) {
			const struct ynode *k;

			if (it->nr != 2)
				return error_at(ld->name, it->line, it->col, "a set-wide forbidden rule "
						"has exactly one selector (chunk, doc, doc-prefix, id-prefix "
						"or tag), not %zu", (size_t)it->nr / 2);
			k = it->kids[0];
			v = it->kids[1];
			at = k;
			if (k->kind != YNODE_SCALAR || forbid_kind_parse(k->value, &kind) < 0)
				return error_at(ld->name, k->line, k->col, "unknown selector '%s' in a "
						"set-wide forbidden rule (known: chunk, doc, doc-prefix, "
						"id-prefix, tag)", k->kind == YNODE_SCALAR ? k->value : "?");
			if (v->kind != YNODE_SCALAR || ynode_type(v) == YSCALAR_NULL)
				return type_error(ld, v, "the value of a set-wide forbidden rule", "a string");
			value = v->value;
		} else if (it->kind == YNODE_SCALAR && ynode_type(it) != YSCALAR_NULL) {
			value = it->value;
			if (!strncmp(value, FORBID_DOC_PREFIX, plen)) {
				kind = FORBID_BY_DOC;
				value += plen;
			}
		} else {
			return type_error(ld, it, "a set-wide forbidden rule",
					  "a chunk id, doc:NAME or a mapping such as {tag: internal}");
		}
		if ((why = forbid_value_problem(value)))
			return error_at(ld->name, v->line, v->col, "set-wide forbidden rule '%s' %s: "
					"it must name a %s", it->kind == YNODE_MAP ? at->value : "doc",
					why, kind == FORBID_BY_TAG ? "tag" : kind == FORBID_BY_CHUNK ?
					"chunk" : kind == FORBID_BY_DOC ? "document" : "prefix");
		r = set_add_forbid(s, kind, value);
		r->as_string = it->kind == YNODE_SCALAR;
		r->line = at->line;
		r->col = at->col;
	}
	return 0;
}

/* A list of at most this many items is checked for duplicates by comparing
 * each item with those before it: no table for the one or two labels most
 * questions have. */
#define SHORT_LIST 8

static void add_label(struct question *q, const struct ynode *at, const char *chunk, int grade)
{
	struct label *l;

	ALLOC_GROW(q->relevant, q->nr_relevant + 1, q->alloc_relevant);
	l = &q->relevant[q->nr_relevant++];
	l->chunk = xstrdup(chunk);
	l->grade = grade;
	l->line = at->line;
	l->col = at->col;
}

/* Load 'relevant'; duplicates are found through a hash map, so a question
 * with 100,000 labels loads in linear time. */
static int get_relevant(struct loader *ld, const struct ynode *n, struct question *q)
{
	struct strmap seen = STRMAP_INIT;  /* chunk id -> its node */
	int ret = -1;

	if (n->kind == YNODE_SCALAR && ynode_type(n) == YSCALAR_NULL)
		return 0;
	seen.borrowed = 1;  /* the keys are the tree's, which outlives the map */
	/* exactly: most questions have one label */
	if (n->kind == YNODE_SEQ || n->kind == YNODE_MAP)
		ALLOC_EXACT(q->relevant, q->nr_relevant + (n->kind == YNODE_SEQ ? n->nr : n->nr / 2),
			    q->alloc_relevant);
	if (n->kind == YNODE_SEQ) {
		q->relevant_as_list = true;
		for (size_t i = 0; i < n->nr; i++) {
			const struct ynode *it = n->kids[i];
			int added = 1;
			if (it->kind != YNODE_SCALAR || ynode_type(it) == YSCALAR_NULL) {
				type_error(ld, it, "a relevant chunk id", "a string");
				goto out;
			}
			/* a short list is searched, a long one hashed */
			if (n->nr <= SHORT_LIST) {
				for (size_t j = 0; j < i && added; j++)
					added = strcmp(n->kids[j]->value, it->value) != 0;
			} else {
				strmap_intern_hashed(&seen, it->value, strlen(it->value),
						     strhash(it->value, strlen(it->value)), &added);
			}
			if (!added) {
				error_at(ld->name, it->line, it->col, "chunk '%s' listed twice in 'relevant'",
					 it->value);
				goto out;
			}
			add_label(q, it, it->value, 1);
		}
		ret = 0;
		goto out;
	}
	if (n->kind != YNODE_MAP) {
		type_error(ld, n, "'relevant'", "a mapping of chunk id to grade or a list");
		goto out;
	}
	for (size_t i = 0; i + 1 < n->nr; i += 2) {
		const struct ynode *k = n->kids[i], *v = n->kids[i + 1];
		struct strmap_entry *e;
		long grade;
		int added;

		if (k->kind != YNODE_SCALAR) {
			type_error(ld, k, "a relevant chunk id", "a string");
			goto out;
		}
		e = strmap_intern_hashed(&seen, k->value, strlen(k->value), strhash(k->value, strlen(k->value)), &added);
		if (!added) {
			error_at(ld->name, k->line, k->col, "duplicate key '%s' (first at line %ld)",
				 k->value, ((const struct ynode *)e->value)->line);
			goto out;
		}
		e->value = (void *)k;
		if (node_int(v, -1000000, 1000000, &grade) < 0) {
			char *what = xstrfmt("the grade of '%s'", k->value);
			type_error(ld, v, what, "an integer");
			free(what);
			goto out;
		}
		add_label(q, k, k->value, (int)grade);
	}
	ret = 0;
out:
	strmap_clear(&seen, 0);
	return ret;
}

static struct cJSON *to_json(struct loader *ld, const struct ynode *n)
{
	cJSON *j;

	if (n->kind == YNODE_SEQ) {
		j = cJSON_CreateArray();
		for (size_t i = 0; i < n->nr; i++) {
			cJSON *c = to_json(ld, n->kids[i]);
			if (!c) {
				cJSON_Delete(j);
				return NULL;
			}
			cJSON_AddItemToArray(j, c);
		}
		return j;
	}
	if (n->kind == YNODE_MAP) {
		j = cJSON_CreateObject();
		for (size_t i = 0; i + 1 < n->nr; i += 2) {
			const struct ynode *k = n->kids[i];
			cJSON *c;
			if (k->kind != YNODE_SCALAR) {
				type_error(ld, k, "a provenance key", "a string");
				cJSON_Delete(j);
				return NULL;
			}
			if (cJSON_GetObjectItemCaseSensitive(j, k->value)) {
				error_at(ld->name, k->line, k->col, "duplicate key '%s'", k->value);
				cJSON_Delete(j);
				return NULL;
			}
			c = to_json(ld, n->kids[i + 1]);
			if (!c) {
				cJSON_Delete(j);
				return NULL;
			}
			cJSON_AddItemToObject(j, k->value, c);
		}
		return j;
	}
	switch (ynode_type(n)) {
	case YSCALAR_NULL:
		return cJSON_CreateNull();
	case YSCALAR_BOOL:
		return cJSON_CreateBool(n->value[0] == 't' || n->value[0] == 'T');
	case YSCALAR_INT: {
		long v;
		if (node_int(n, -LONG_CAP(1LL << 53), LONG_CAP(1LL << 53), &v) == 0)
			return cJSON_CreateNumber((double)v);
		return cJSON_CreateNumber(strtod(n->value, NULL));
	}
	case YSCALAR_FLOAT: {
		double d = strtod(n->value, NULL);
		if (isfinite(d))
			return cJSON_CreateNumber(d);
		return cJSON_CreateString(n->value);  /* .inf/.nan: kept as text */
	}
	default:
		return cJSON_CreateString(n->value);
	}
}

/* Read the language tag 'v' into '*out' (NULL when null); refuse a value
 * that is not shaped like a BCP 47 tag. */
static int get_language(struct loader *ld, const struct ynode *v, char **out)
{
	if (get_string(ld, v, "'language'", out) < 0)
		return -1;
	if (*out && !lang_tag_valid(*out))
		return error_at(ld->name, v->line, v->col,
				"invalid language tag '%s' (a BCP 47 tag such as en, de or pt-BR)", *out);
	return 0;
}

static const char *const question_keys[] = {
	"id", "text", "conversation", "history", "origin", "answerable", "relevant", "evidence",
	"irrelevant", "forbidden", "tags", "provenance", "answer", "note", "language", NULL,
};
static const char *const conversation_keys[] = { "id", "turn", NULL };
static const char *const turn_keys[] = { "role", "text", NULL };

/* Load 'conversation': a mapping with the conversation's 'id' and the
 * question's 'turn' in it (both required; set_check judges the values). */
static int get_conversation(struct loader *ld, const struct ynode *m, struct question *q)
{
	bool has_turn = false;

	if (m->kind == YNODE_SCALAR && ynode_type(m) == YSCALAR_NULL)
		return 0;
	if (m->kind != YNODE_MAP)
		return type_error(ld, m, "'conversation'", "a mapping {id: ..., turn: N}");
	if (check_keys(ld, m, conversation_keys, "'conversation'") < 0)
		return -1;
	q->conv_line = m->line;
	q->conv_col = m->col;
	for (size_t i = 0; i + 1 < m->nr; i += 2) {
		const struct ynode *v = m->kids[i + 1];

		if (!strcmp(m->kids[i]->value, "id")) {
			if (v->kind != YNODE_SCALAR || ynode_type(v) == YSCALAR_NULL)
				return type_error(ld, v, "the conversation id", "a string");
			if (get_string(ld, v, "the conversation id", &q->conversation) < 0)
				return -1;
		} else {
			if (node_int(v, -1000000000L, 1000000000L, &q->turn) < 0)
				return type_error(ld, v, "'turn'", "a whole number (the first turn is 1)");
			has_turn = true;
		}
	}
	if (!q->conversation || !has_turn)
		return error_at(ld->name, m->line, m->col, "'conversation' without %s (write "
				"{id: ..., turn: N})", q->conversation ? "'turn'" : "'id'");
	return 0;
}

/* Load 'history': a list of {role, text} mappings, in order. */
static int get_history(struct loader *ld, const struct ynode *n, struct question *q)
{
	if (n->kind == YNODE_SCALAR && ynode_type(n) == YSCALAR_NULL)
		return 0;
	if (n->kind != YNODE_SEQ)
		return type_error(ld, n, "'history'", "a list of {role, text} turns");
	for (size_t i = 0; i < n->nr; i++) {
		const struct ynode *m = n->kids[i];
		struct turn *t;

		if (m->kind != YNODE_MAP)
			return type_error(ld, m, "a turn of the history", "a mapping {role: user, text: ...}");
		if (check_keys(ld, m, turn_keys, "a turn of the history") < 0)
			return -1;
		ALLOC_GROW(q->history, q->nr_history + 1, q->alloc_history);
		t = &q->history[q->nr_history++];
		memset(t, 0, sizeof(*t));
		t->line = m->line;
		t->col = m->col;
		for (size_t k = 0; k + 1 < m->nr; k += 2) {
			bool role = !strcmp(m->kids[k]->value, "role");
			if (get_string(ld, m->kids[k + 1], role ? "'role'" : "the text of a turn",
				       role ? &t->role : &t->text) < 0)
				return -1;
		}
		if (!t->role)
			return error_at(ld->name, m->line, m->col, "a turn of the history without "
					"'role' (user or assistant)");
	}
	return 0;
}
static const char *const evidence_keys[] = { "chunk", "doc", "start", "end", "quote", NULL };

/* Read one evidence entry: a mapping with a chunk and a span, a quote or both. */
static int get_one_evidence(struct loader *ld, const struct ynode *m, struct question *q)
{
	struct evidence e = { NULL, NULL, -1, -1, NULL, m->line, m->col };
	bool has_start = false, has_end = false;
	int rc = -1;

	if (m->kind != YNODE_MAP)
		return type_error(ld, m, "an evidence entry", "a mapping");
	if (check_keys(ld, m, evidence_keys, "an evidence entry") < 0)
		return -1;
	for (size_t i = 0; i + 1 < m->nr; i += 2) {
		const char *k = m->kids[i]->value;
		const struct ynode *v = m->kids[i + 1];

		if (!strcmp(k, "chunk")) {
			if (get_string(ld, v, "'chunk'", &e.chunk) < 0)
				goto out;
		} else if (!strcmp(k, "doc")) {
			if (get_string(ld, v, "'doc'", &e.doc) < 0)
				goto out;
		} else if (!strcmp(k, "quote")) {
			if (get_string(ld, v, "'quote'", &e.quote) < 0)
				goto out;
		} else {
			long *at = !strcmp(k, "start") ? &e.start : &e.end;
			if (node_int(v, 0, LONG_CAP(1LL << 40), at) < 0) {
				char *what = xstrfmt("'%s'", k);
				type_error(ld, v, what, "a whole number");
				free(what);
				goto out;
			}
			*(at == &e.start ? &has_start : &has_end) = true;
		}
	}
	if ((!e.chunk || !*e.chunk) && ld->cases && e.quote && *e.quote && !has_start && !e.doc) {
		/* a quote alone: add finds it in the corpus, as --evidence does */
		free(e.chunk);
		e.chunk = NULL;
		question_add_evidence(q, &e);
		rc = 0;
		goto out;
	}
	if (!e.chunk || !*e.chunk) {
		error_at(ld->name, m->line, m->col, "evidence entry without a 'chunk'%s",
			 ld->cases ? " (a quote alone is looked up in the corpus: give 'quote' "
				     "without 'doc', 'start' or 'end')" : "");
		goto out;
	}
	if (has_start != has_end) {
		error_at(ld->name, m->line, m->col, "evidence for '%s' has '%s' without '%s'",
			 e.chunk, has_start ? "start" : "end", has_start ? "end" : "start");
		goto out;
	}
	if (has_start && e.end < e.start) {
		error_at(ld->name, m->line, m->col, "evidence for '%s' ends (%ld) before it starts (%ld)",
			 e.chunk, e.end, e.start);
		goto out;
	}
	if (!has_start && (!e.quote || !*e.quote)) {
		error_at(ld->name, m->line, m->col,
			 "evidence for '%s' has neither a span (start, end) nor a quote", e.chunk);
		goto out;
	}
	question_add_evidence(q, &e);
	rc = 0;
out:
	free(e.chunk);
	free(e.doc);
	free(e.quote);
	return rc;
}

static int get_evidence(struct loader *ld, const struct ynode *n, struct question *q)
{
	if (n->kind == YNODE_SCALAR && ynode_type(n) == YSCALAR_NULL)
		return 0;
	if (n->kind != YNODE_SEQ)
		return type_error(ld, n, "'evidence'", "a list");
	for (size_t i = 0; i < n->nr; i++)
		if (get_one_evidence(ld, n->kids[i], q) < 0)
			return -1;
	return 0;
}

static int load_question(struct loader *ld, const struct ynode *m, struct set *s)
{
	struct question *q;

	if (m->kind != YNODE_MAP)
		return type_error(ld, m, "a question", "a mapping");
	if (check_keys(ld, m, question_keys, "a question") < 0)
		return -1;
	q = set_append(s);
	q->line = m->line;
	q->col = m->col;
	for (size_t i = 0; i + 1 < m->nr; i += 2) {
		const char *k = m->kids[i]->value;
		const struct ynode *v = m->kids[i + 1];
		int rc = 0;

		if (!strcmp(k, "id")) {
			rc = get_string(ld, v, "'id'", &q->id);
		} else if (!strcmp(k, "text")) {
			rc = get_string(ld, v, "'text'", &q->text);
		} else if (!strcmp(k, "answer")) {
			rc = get_string(ld, v, "'answer'", &q->answer);
		} else if (!strcmp(k, "note")) {
			rc = get_string(ld, v, "'note'", &q->note);
		} else if (!strcmp(k, "language")) {
			rc = get_language(ld, v, &q->language);
		} else if (!strcmp(k, "origin")) {
			if (v->kind != YNODE_SCALAR)
				rc = type_error(ld, v, "'origin'", "synthetic, mined or hand");
			else if (ynode_type(v) != YSCALAR_NULL && origin_parse(v->value, &q->origin) < 0)
				rc = error_at(ld->name, v->line, v->col,
					      "unknown origin '%s' (synthetic, mined or hand)", v->value);
		} else if (!strcmp(k, "answerable")) {
			if (v->kind != YNODE_SCALAR || ynode_type(v) != YSCALAR_BOOL)
				rc = type_error(ld, v, "'answerable'", "true or false");
			else
				q->answerable = v->value[0] == 't' || v->value[0] == 'T';
		} else if (!strcmp(k, "relevant")) {
			rc = get_relevant(ld, v, q);
		} else if (!strcmp(k, "evidence")) {
			rc = get_evidence(ld, v, q);
		} else if (!strcmp(k, "irrelevant")) {
			rc = get_string_list(ld, v, "'irrelevant'", &q->irrelevant,
					     &q->nr_irrelevant, &q->alloc_irrelevant);
		} else if (!strcmp(k, "forbidden")) {
			rc = get_forbidden(ld, v, q);
		} else if (!strcmp(k, "conversation")) {
			rc = get_conversation(ld, v, q);
		} else if (!strcmp(k, "history")) {
			rc = get_history(ld, v, q);
		} else if (!strcmp(k, "tags")) {
			rc = get_string_list(ld, v, "'tags'", &q->tags, &q->nr_tags, &q->alloc_tags);
		} else if (!strcmp(k, "provenance")) {
			if (v->kind == YNODE_SCALAR && ynode_type(v) == YSCALAR_NULL)
				continue;
			if (v->kind != YNODE_MAP)
				rc = type_error(ld, v, "'provenance'", "a mapping");
			else if (!(q->provenance = to_json(ld, v)))
				rc = -1;
		}
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int load_questions(struct loader *ld, const struct ynode *n, struct set *s)
{
	if (n->kind == YNODE_SCALAR && ynode_type(n) == YSCALAR_NULL)
		return 0;
	if (n->kind != YNODE_SEQ)
		return type_error(ld, n, "'questions'", "a list");
	if (n->nr > SET_MAX_QUESTIONS)
		return error_at(ld->name, n->line, n->col, "more than %d questions",
				SET_MAX_QUESTIONS);
	set_reserve(s, n->nr);
	for (size_t i = 0; i < n->nr; i++)
		if (load_question(ld, n->kids[i], s) < 0)
			return -1;
	return 0;
}

static const char *const top_keys[] = {
	"evalset", "name", "description", "version", "digest", "parent", "parent_digest",
	"tagged_at", "note", "language", "corpus", "forbidden", "questions", NULL,
};
static const char *const corpus_keys[] = { "path", "fingerprint", "chunks", "language", NULL };

static int load_corpus(struct loader *ld, const struct ynode *n, struct set *s)
{
	if (n->kind == YNODE_SCALAR && ynode_type(n) == YSCALAR_NULL)
		return 0;
	if (n->kind != YNODE_MAP)
		return type_error(ld, n, "'corpus'", "a mapping");
	if (check_keys(ld, n, corpus_keys, "'corpus'") < 0)
		return -1;
	s->has_corpus = true;
	for (size_t i = 0; i + 1 < n->nr; i += 2) {
		const char *k = n->kids[i]->value;
		const struct ynode *v = n->kids[i + 1];
		int rc;

		if (!strcmp(k, "path")) {
			rc = get_string(ld, v, "'corpus.path'", &s->corpus.path);
		} else if (!strcmp(k, "fingerprint")) {
			rc = get_string(ld, v, "'corpus.fingerprint'", &s->corpus.fingerprint);
		} else if (!strcmp(k, "language")) {
			rc = get_language(ld, v, &s->corpus.language);
		} else {
			rc = node_int(v, 0, LONG_CAP(1LL << 40), &s->corpus.chunks);
			if (rc < 0)
				type_error(ld, v, "'corpus.chunks'", "a whole number");
		}
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* Return true when the mapping 'n' has the key 'key'. */
static bool map_has(const struct ynode *n, const char *key)
{
	for (size_t i = 0; i + 1 < n->nr; i += 2)
		if (n->kids[i]->kind == YNODE_SCALAR && !strcmp(n->kids[i]->value, key))
			return true;
	return false;
}

static int load_top(struct loader *ld, const struct ynode *root, struct set *s, bool cases)
{
	if (cases && root->kind == YNODE_SEQ)
		return load_questions(ld, root, s);
	/* one question on its own, as show prints it */
	if (cases && root->kind == YNODE_MAP && map_has(root, "text") && !map_has(root, "questions"))
		return load_question(ld, root, s);
	if (root->kind != YNODE_MAP)
		return type_error(ld, root, "a set file", "a mapping");
	if (check_keys(ld, root, top_keys, "a set file") < 0)
		return -1;
	for (size_t i = 0; i + 1 < root->nr; i += 2) {
		const char *k = root->kids[i]->value;
		const struct ynode *v = root->kids[i + 1];
		int rc = 0;

		if (!strcmp(k, "evalset")) {
			long schema;
			if (node_int(v, 0, 1000000, &schema) < 0)
				rc = type_error(ld, v, "'evalset'", "the schema number 1");
			else if (schema != SET_SCHEMA)
				rc = error_at(ld->name, v->line, v->col,
					      "unsupported set schema %ld (this evalset reads %d)",
					      schema, SET_SCHEMA);
		} else if (!strcmp(k, "name")) {
			rc = get_string(ld, v, "'name'", &s->name);
		} else if (!strcmp(k, "description")) {
			rc = get_string(ld, v, "'description'", &s->description);
		} else if (!strcmp(k, "version")) {
			rc = get_string(ld, v, "'version'", &s->version);
		} else if (!strcmp(k, "digest")) {
			rc = get_string(ld, v, "'digest'", &s->digest);
		} else if (!strcmp(k, "parent")) {
			rc = get_string(ld, v, "'parent'", &s->parent);
		} else if (!strcmp(k, "parent_digest")) {
			rc = get_string(ld, v, "'parent_digest'", &s->parent_digest);
		} else if (!strcmp(k, "tagged_at")) {
			rc = get_string(ld, v, "'tagged_at'", &s->tagged_at);
		} else if (!strcmp(k, "note")) {
			rc = get_string(ld, v, "'note'", &s->note);
		} else if (!strcmp(k, "language")) {
			rc = get_language(ld, v, &s->language);
		} else if (!strcmp(k, "corpus")) {
			rc = load_corpus(ld, v, s);
		} else if (!strcmp(k, "forbidden")) {
			rc = get_forbid_rules(ld, v, s);
		} else if (!strcmp(k, "questions")) {
			rc = load_questions(ld, v, s);
		}
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int load_buf(struct set *s, const char *buf, size_t len, const char *name, bool cases)
{
	struct loader ld = { name, cases };
	struct ynode *root = NULL;
	struct mempool tree = MEMPOOL_INIT;
	int ret = -1;

	if (len > SET_MAX_FILE_BYTES) {
		error("'%s' is larger than the limit of %u bytes", name, SET_MAX_FILE_BYTES);
		goto out;
	}
	if (check_raw(buf, len, name) < 0 || yamlio_parse_tree(buf, len, name, &set_rules, &tree, &root) < 0)
		goto out;
	if (!root || (root->kind == YNODE_SCALAR && ynode_type(root) == YSCALAR_NULL)) {
		error("%s: empty set file", name);
		goto out;
	}
	if (load_top(&ld, root, s, cases) < 0)
		goto out;
	s->file = xstrdup(name);
	ret = 0;
out:
	mempool_clear(&tree);
	if (ret)
		set_release(s);
	return ret;
}

int set_load_buf(struct set *s, const char *buf, size_t len, const char *name)
{
	return load_buf(s, buf, len, name, false);
}

static int load_path(struct set *s, const char *path, bool cases)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (read_file(path, &sb, SET_MAX_FILE_BYTES) < 0) {
		strbuf_release(&sb);
		set_release(s);
		return -1;
	}
	ret = load_buf(s, sb.buf, sb.len, strcmp(path, "-") ? path : "<stdin>", cases);
	strbuf_release(&sb);
	return ret;
}

int set_load(struct set *s, const char *path)
{
	return load_path(s, path, false);
}

int set_load_cases(struct set *s, const char *path)
{
	return load_path(s, path, true);
}
