/*
 * set-yaml: reading a set from YAML (libyaml's event parser) and writing it
 * back (libyaml's emitter), plus the JSON form of a question.
 *
 * Reading happens in three steps, each refusing with FILE:LINE:COL:
 *   1. raw bytes: the size limit, an empty file, lines over
 *      SET_MAX_LINE_BYTES and invalid UTF-8 are refused before libyaml sees
 *      the bytes (so a bad byte is reported where it is, not where libyaml
 *      gives up);
 *   2. events into a small node tree that keeps every node's position;
 *      anchors, aliases, tags other than !!str, nesting deeper than
 *      SET_MAX_DEPTH, scalars over SET_MAX_SCALAR_BYTES and more than one
 *      document are refused here (no alias is ever expanded, so an alias
 *      bomb costs nothing);
 *   3. the tree into struct set: unknown keys, duplicate keys and wrong types
 *      are refused; rule violations (duplicate ids, grades 0 or 12...) are
 *      kept for set_check.
 * Plain scalars resolve as in the YAML 1.2 core schema (null, bool, int,
 * float, else string); quoted scalars are always strings. Writing quotes any
 * string that would otherwise resolve as another type, so provenance types
 * survive a round trip.
 */
#include "set.h"
#include "error.h"
#include "fsutil.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

enum ykind { Y_SCALAR, Y_SEQ, Y_MAP };

struct ynode {
	enum ykind kind;
	char *value;          /* scalars */
	size_t len;
	bool plain;           /* plain style and no explicit tag */
	long line, col;
	struct ynode **kids;  /* sequences: items; mappings: key, value, key, value... */
	size_t nr, alloc;
};

static void ynode_free(struct ynode *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nr; i++)
		ynode_free(n->kids[i]);
	free(n->kids);
	free(n->value);
	free(n);
}

static const char *kind_name(const struct ynode *n)
{
	switch (n->kind) {
	case Y_SEQ: return "a list";
	case Y_MAP: return "a mapping";
	default: return "a scalar";
	}
}

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
		long l = 1, col = 1;
		for (size_t i = 0; i < off; i++) {
			if (buf[i] == '\n') {
				l++;
				col = 1;
			} else if (((unsigned char)buf[i] & 0xC0) != 0x80) {
				col++;
			}
		}
		if (!buf[off])
			return error_at(name, l, col, "NUL byte in a set file");
		return error_at(name, l, col, "invalid UTF-8 (byte 0x%02x)",
				(unsigned char)buf[off]);
	}
	return 0;
}

/* ---- step 2: events into nodes ---- */

static int parse_tree(const char *buf, size_t len, const char *name, struct ynode **root)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	struct ynode *stack[SET_MAX_DEPTH + 2];
	int depth = 0, docs = 0, ret = -1, done = 0;

	*root = NULL;
	if (!yaml_parser_initialize(&parser))
		return error("cannot initialise the YAML parser");
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	while (!done) {
		struct ynode *n = NULL;
		long line, col;
		const char *anchor = NULL, *tag = NULL;

		if (!yaml_parser_parse(&parser, &ev)) {
			if (parser.error == YAML_READER_ERROR) {
				long l = 1, c = 1;
				for (size_t i = 0; i < parser.problem_offset && i < len; i++) {
					if (buf[i] == '\n') {
						l++;
						c = 1;
					} else if (((unsigned char)buf[i] & 0xC0) != 0x80) {
						c++;
					}
				}
				error_at(name, l, c, "%s (byte 0x%02x)",
					 parser.problem ? parser.problem : "unreadable input",
					 (unsigned)parser.problem_value & 0xff);
			} else if (parser.context)
				error_at(name, (long)parser.problem_mark.line + 1,
					 (long)parser.problem_mark.column + 1,
					 "YAML syntax error: %s (%s started at %ld:%ld)",
					 parser.problem ? parser.problem : "unknown problem",
					 parser.context, (long)parser.context_mark.line + 1,
					 (long)parser.context_mark.column + 1);
			else
				error_at(name, (long)parser.problem_mark.line + 1,
					 (long)parser.problem_mark.column + 1, "YAML syntax error: %s",
					 parser.problem ? parser.problem : "unknown problem");
			goto out;
		}
		line = (long)ev.start_mark.line + 1;
		col = (long)ev.start_mark.column + 1;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++docs > 1) {
				error_at(name, line, col, "more than one YAML document in a set file");
				yaml_event_delete(&ev);
				goto out;
			}
			break;
		case YAML_ALIAS_EVENT:
			error_at(name, line, col, "YAML alias '*%s' not supported in a set file",
				 (const char *)ev.data.alias.anchor);
			yaml_event_delete(&ev);
			goto out;
		case YAML_SCALAR_EVENT:
			anchor = (const char *)ev.data.scalar.anchor;
			tag = (const char *)ev.data.scalar.tag;
			/* fallthrough */
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (ev.type == YAML_SEQUENCE_START_EVENT) {
				anchor = (const char *)ev.data.sequence_start.anchor;
				tag = (const char *)ev.data.sequence_start.tag;
			} else if (ev.type == YAML_MAPPING_START_EVENT) {
				anchor = (const char *)ev.data.mapping_start.anchor;
				tag = (const char *)ev.data.mapping_start.tag;
			}
			if (anchor) {
				error_at(name, line, col, "YAML anchor '&%s' not supported in a set file",
					 anchor);
				yaml_event_delete(&ev);
				goto out;
			}
			if (tag && strcmp(tag, "!") &&
			    strcmp(tag, ev.type == YAML_SCALAR_EVENT ? YAML_STR_TAG :
				   ev.type == YAML_SEQUENCE_START_EVENT ? YAML_SEQ_TAG : YAML_MAP_TAG)) {
				error_at(name, line, col, "YAML tag '%s' not supported in a set file", tag);
				yaml_event_delete(&ev);
				goto out;
			}
			n = xcalloc(1, sizeof(*n));
			n->line = line;
			n->col = col;
			if (ev.type == YAML_SCALAR_EVENT) {
				n->kind = Y_SCALAR;
				if (ev.data.scalar.length > SET_MAX_SCALAR_BYTES) {
					error_at(name, line, col,
						 "scalar longer than the limit of %u bytes (%zu bytes)",
						 SET_MAX_SCALAR_BYTES, ev.data.scalar.length);
					free(n);
					yaml_event_delete(&ev);
					goto out;
				}
				n->value = xstrndup((const char *)ev.data.scalar.value,
						    ev.data.scalar.length);
				n->len = ev.data.scalar.length;
				n->plain = !tag && ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
			} else {
				n->kind = ev.type == YAML_SEQUENCE_START_EVENT ? Y_SEQ : Y_MAP;
			}
			if (depth == 0) {
				ynode_free(*root);
				*root = n;
			} else {
				struct ynode *p = stack[depth - 1];
				ALLOC_GROW(p->kids, p->nr + 1, p->alloc);
				p->kids[p->nr++] = n;
			}
			if (n->kind != Y_SCALAR) {
				if (depth >= SET_MAX_DEPTH) {
					error_at(name, line, col,
						 "nesting deeper than the limit of %d levels",
						 SET_MAX_DEPTH);
					yaml_event_delete(&ev);
					goto out;
				}
				stack[depth++] = n;
			}
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	ret = 0;
out:
	yaml_parser_delete(&parser);
	if (ret) {
		ynode_free(*root);
		*root = NULL;
	}
	return ret;
}

/* ---- step 3: nodes into the set ---- */

enum scalar_type { S_NULL, S_BOOL, S_INT, S_FLOAT, S_STR };

static bool all_in(const char *s, const char *set)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!strchr(set, *s))
			return false;
	return true;
}

static bool is_float_text(const char *s)
{
	const char *p = s;
	bool digits = false;

	if (*p == '+' || *p == '-')
		p++;
	if (!strcmp(p, ".inf") || !strcmp(p, ".Inf") || !strcmp(p, ".INF"))
		return true;
	if (p == s && (!strcmp(p, ".nan") || !strcmp(p, ".NaN") || !strcmp(p, ".NAN")))
		return true;
	while (isdigit((unsigned char)*p)) {
		p++;
		digits = true;
	}
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p)) {
			p++;
			digits = true;
		}
	}
	if (!digits)
		return false;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			return false;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return !*p;
}

/* Return how the plain scalar 's' resolves in the YAML 1.2 core schema. */
static enum scalar_type resolve_plain(const char *s)
{
	const char *p = s;

	if (!*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL"))
		return S_NULL;
	if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE") ||
	    !strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE"))
		return S_BOOL;
	if (*p == '+' || *p == '-')
		p++;
	if (all_in(p, "0123456789"))
		return S_INT;
	if ((starts_with(s, "0o") && all_in(s + 2, "01234567")) ||
	    (starts_with(s, "0x") && all_in(s + 2, "0123456789abcdefABCDEF")))
		return S_INT;
	if (is_float_text(s))
		return S_FLOAT;
	return S_STR;
}

static enum scalar_type node_type(const struct ynode *n)
{
	return n->plain ? resolve_plain(n->value) : S_STR;
}

/* Parse an integer scalar (core schema forms) within [min, max]. */
static int node_int(const struct ynode *n, long min, long max, long *out)
{
	long v;
	char *end;

	if (n->kind != Y_SCALAR || node_type(n) != S_INT)
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
};

static int type_error(struct loader *ld, const struct ynode *n, const char *what, const char *want)
{
	if (n->kind == Y_SCALAR)
		return error_at(ld->name, n->line, n->col, "%s must be %s, not '%s'", what, want,
				n->value);
	return error_at(ld->name, n->line, n->col, "%s must be %s, not %s", what, want,
			kind_name(n));
}

/* Read a string field; a null scalar gives NULL. Any other scalar is taken
 * as its text. */
static int get_string(struct loader *ld, const struct ynode *n, const char *what, char **out)
{
	free(*out);
	*out = NULL;
	if (n->kind != Y_SCALAR)
		return type_error(ld, n, what, "a string");
	if (node_type(n) == S_NULL)
		return 0;
	*out = xstrdup(n->value);
	return 0;
}

static int levenshtein(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int row[64];

	if (lb >= ARRAY_SIZE(row) || la >= 64)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int prev = row[0], tmp;
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int best = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			tmp = row[j];
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

/* Check the keys of mapping 'm': scalars, unique, among 'known'. */
static int check_keys(struct loader *ld, const struct ynode *m, const char *const *known,
		      const char *where)
{
	for (size_t i = 0; i + 1 < m->nr; i += 2) {
		const struct ynode *k = m->kids[i];
		const char *best = NULL;
		int best_d = 3, found = 0;

		if (k->kind != Y_SCALAR)
			return error_at(ld->name, k->line, k->col, "%s key must be a scalar, not %s",
					where, kind_name(k));
		for (size_t j = 0; j < i; j += 2)
			if (!strcmp(m->kids[j]->value, k->value))
				return error_at(ld->name, k->line, k->col,
						"duplicate key '%s' (first at line %ld)", k->value,
						m->kids[j]->line);
		for (size_t j = 0; known[j]; j++) {
			int d;
			if (!strcmp(known[j], k->value)) {
				found = 1;
				break;
			}
			d = levenshtein(known[j], k->value);
			if (d < best_d) {
				best_d = d;
				best = known[j];
			}
		}
		if (found)
			continue;
		if (best)
			return error_at(ld->name, k->line, k->col,
					"unknown key '%s' in %s; did you mean '%s'?", k->value, where,
					best);
		return error_at(ld->name, k->line, k->col, "unknown key '%s' in %s", k->value, where);
	}
	return 0;
}

static int get_string_list(struct loader *ld, const struct ynode *n, const char *what,
			   char ***arr, size_t *nr, size_t *alloc)
{
	if (n->kind == Y_SCALAR && node_type(n) == S_NULL)
		return 0;
	if (n->kind != Y_SEQ)
		return type_error(ld, n, what, "a list");
	for (size_t i = 0; i < n->nr; i++) {
		const struct ynode *it = n->kids[i];
		if (it->kind != Y_SCALAR || node_type(it) == S_NULL)
			return type_error(ld, it, "an item of this list", "a string");
		ALLOC_GROW(*arr, *nr + 1, *alloc);
		(*arr)[(*nr)++] = xstrdup(it->value);
	}
	return 0;
}

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

static int get_relevant(struct loader *ld, const struct ynode *n, struct question *q)
{
	if (n->kind == Y_SCALAR && node_type(n) == S_NULL)
		return 0;
	if (n->kind == Y_SEQ) {
		q->relevant_as_list = true;
		for (size_t i = 0; i < n->nr; i++) {
			const struct ynode *it = n->kids[i];
			if (it->kind != Y_SCALAR || node_type(it) == S_NULL)
				return type_error(ld, it, "a relevant chunk id", "a string");
			for (size_t k = 0; k < q->nr_relevant; k++)
				if (!strcmp(q->relevant[k].chunk, it->value))
					return error_at(ld->name, it->line, it->col,
							"chunk '%s' listed twice in 'relevant'",
							it->value);
			add_label(q, it, it->value, 1);
		}
		return 0;
	}
	if (n->kind != Y_MAP)
		return type_error(ld, n, "'relevant'", "a mapping of chunk id to grade or a list");
	for (size_t i = 0; i + 1 < n->nr; i += 2) {
		const struct ynode *k = n->kids[i], *v = n->kids[i + 1];
		long grade;

		if (k->kind != Y_SCALAR)
			return type_error(ld, k, "a relevant chunk id", "a string");
		for (size_t j = 0; j < i; j += 2)
			if (!strcmp(n->kids[j]->value, k->value))
				return error_at(ld->name, k->line, k->col,
						"duplicate key '%s' (first at line %ld)", k->value,
						n->kids[j]->line);
		if (node_int(v, -1000000, 1000000, &grade) < 0) {
			char *what = xstrfmt("the grade of '%s'", k->value);
			type_error(ld, v, what, "an integer");
			free(what);
			return -1;
		}
		add_label(q, k, k->value, (int)grade);
	}
	return 0;
}

static struct cJSON *to_json(struct loader *ld, const struct ynode *n)
{
	cJSON *j;

	if (n->kind == Y_SEQ) {
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
	if (n->kind == Y_MAP) {
		j = cJSON_CreateObject();
		for (size_t i = 0; i + 1 < n->nr; i += 2) {
			const struct ynode *k = n->kids[i];
			cJSON *c;
			if (k->kind != Y_SCALAR) {
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
	switch (node_type(n)) {
	case S_NULL:
		return cJSON_CreateNull();
	case S_BOOL:
		return cJSON_CreateBool(n->value[0] == 't' || n->value[0] == 'T');
	case S_INT: {
		long v;
		if (node_int(n, -(1L << 53), 1L << 53, &v) == 0)
			return cJSON_CreateNumber((double)v);
		return cJSON_CreateNumber(strtod(n->value, NULL));
	}
	case S_FLOAT: {
		double d = strtod(n->value, NULL);
		if (isfinite(d))
			return cJSON_CreateNumber(d);
		return cJSON_CreateString(n->value);  /* .inf/.nan: kept as text */
	}
	default:
		return cJSON_CreateString(n->value);
	}
}

static const char *const question_keys[] = {
	"id", "text", "origin", "answerable", "relevant", "irrelevant", "tags",
	"provenance", "answer", "note", NULL,
};

static int load_question(struct loader *ld, const struct ynode *m, struct set *s)
{
	struct question *q;

	if (m->kind != Y_MAP)
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
		} else if (!strcmp(k, "origin")) {
			if (v->kind != Y_SCALAR)
				rc = type_error(ld, v, "'origin'", "synthetic, mined or hand");
			else if (node_type(v) != S_NULL && origin_parse(v->value, &q->origin) < 0)
				rc = error_at(ld->name, v->line, v->col,
					      "unknown origin '%s' (synthetic, mined or hand)", v->value);
		} else if (!strcmp(k, "answerable")) {
			if (v->kind != Y_SCALAR || node_type(v) != S_BOOL)
				rc = type_error(ld, v, "'answerable'", "true or false");
			else
				q->answerable = v->value[0] == 't' || v->value[0] == 'T';
		} else if (!strcmp(k, "relevant")) {
			rc = get_relevant(ld, v, q);
		} else if (!strcmp(k, "irrelevant")) {
			rc = get_string_list(ld, v, "'irrelevant'", &q->irrelevant,
					     &q->nr_irrelevant, &q->alloc_irrelevant);
		} else if (!strcmp(k, "tags")) {
			rc = get_string_list(ld, v, "'tags'", &q->tags, &q->nr_tags, &q->alloc_tags);
		} else if (!strcmp(k, "provenance")) {
			if (v->kind == Y_SCALAR && node_type(v) == S_NULL)
				continue;
			if (v->kind != Y_MAP)
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
	if (n->kind == Y_SCALAR && node_type(n) == S_NULL)
		return 0;
	if (n->kind != Y_SEQ)
		return type_error(ld, n, "'questions'", "a list");
	if (n->nr > SET_MAX_QUESTIONS)
		return error_at(ld->name, n->line, n->col, "more than %d questions",
				SET_MAX_QUESTIONS);
	for (size_t i = 0; i < n->nr; i++)
		if (load_question(ld, n->kids[i], s) < 0)
			return -1;
	return 0;
}

static const char *const top_keys[] = {
	"evalset", "name", "description", "version", "digest", "parent", "tagged_at",
	"note", "corpus", "questions", NULL,
};
static const char *const corpus_keys[] = { "path", "fingerprint", "chunks", NULL };

static int load_corpus(struct loader *ld, const struct ynode *n, struct set *s)
{
	if (n->kind == Y_SCALAR && node_type(n) == S_NULL)
		return 0;
	if (n->kind != Y_MAP)
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
		} else {
			rc = node_int(v, 0, 1L << 40, &s->corpus.chunks);
			if (rc < 0)
				type_error(ld, v, "'corpus.chunks'", "a whole number");
		}
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int load_top(struct loader *ld, const struct ynode *root, struct set *s, bool cases)
{
	if (cases && root->kind == Y_SEQ)
		return load_questions(ld, root, s);
	if (root->kind != Y_MAP)
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
		} else if (!strcmp(k, "tagged_at")) {
			rc = get_string(ld, v, "'tagged_at'", &s->tagged_at);
		} else if (!strcmp(k, "note")) {
			rc = get_string(ld, v, "'note'", &s->note);
		} else if (!strcmp(k, "corpus")) {
			rc = load_corpus(ld, v, s);
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
	struct loader ld = { name };
	struct ynode *root = NULL;
	int ret = -1;

	if (len > SET_MAX_FILE_BYTES) {
		error("'%s' is larger than the limit of %u bytes", name, SET_MAX_FILE_BYTES);
		goto out;
	}
	if (check_raw(buf, len, name) < 0 || parse_tree(buf, len, name, &root) < 0)
		goto out;
	if (!root || (root->kind == Y_SCALAR && node_type(root) == S_NULL)) {
		error("%s: empty set file", name);
		goto out;
	}
	if (load_top(&ld, root, s, cases) < 0)
		goto out;
	s->file = xstrdup(name);
	ret = 0;
out:
	ynode_free(root);
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

/* ---- writing ---- */

static int write_handler(void *data, unsigned char *buffer, size_t size)
{
	strbuf_add(data, buffer, size);
	return 1;
}

static int emit(yaml_emitter_t *em, yaml_event_t *ev, int ok)
{
	if (!ok || !yaml_emitter_emit(em, ev))
		return -1;
	return 0;
}

static int emit_raw(yaml_emitter_t *em, const char *s, yaml_scalar_style_t style)
{
	yaml_event_t ev;

	return emit(em, &ev, yaml_scalar_event_initialize(&ev, NULL, NULL,
			(yaml_char_t *)s, (int)strlen(s), 1, 1, style));
}

/* Emit the string 's' so that it reads back as a string. */
static int emit_str(yaml_emitter_t *em, const char *s)
{
	return emit_raw(em, s, resolve_plain(s) == S_STR ? YAML_ANY_SCALAR_STYLE
							 : YAML_SINGLE_QUOTED_SCALAR_STYLE);
}

static int emit_plain(yaml_emitter_t *em, const char *s)
{
	return emit_raw(em, s, YAML_PLAIN_SCALAR_STYLE);
}

static int emit_long(yaml_emitter_t *em, long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", v);
	return emit_plain(em, buf);
}

static int start_map(yaml_emitter_t *em, bool flow)
{
	yaml_event_t ev;
	return emit(em, &ev, yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
			flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE));
}

static int end_map(yaml_emitter_t *em)
{
	yaml_event_t ev;
	return emit(em, &ev, yaml_mapping_end_event_initialize(&ev));
}

static int start_seq(yaml_emitter_t *em, bool flow)
{
	yaml_event_t ev;
	return emit(em, &ev, yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
			flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE));
}

static int end_seq(yaml_emitter_t *em)
{
	yaml_event_t ev;
	return emit(em, &ev, yaml_sequence_end_event_initialize(&ev));
}

static int emit_kv_str(yaml_emitter_t *em, const char *k, const char *v)
{
	if (!v)
		return 0;
	return emit_plain(em, k) || emit_str(em, v) ? -1 : 0;
}

static int emit_str_list(yaml_emitter_t *em, const char *k, char **arr, size_t nr)
{
	if (!nr)
		return 0;
	if (emit_plain(em, k) || start_seq(em, true))
		return -1;
	for (size_t i = 0; i < nr; i++)
		if (emit_str(em, arr[i]))
			return -1;
	return end_seq(em);
}

static int emit_json(yaml_emitter_t *em, const cJSON *j)
{
	const cJSON *c;

	if (cJSON_IsObject(j)) {
		if (start_map(em, false))
			return -1;
		cJSON_ArrayForEach(c, j)
			if (emit_str(em, c->string) || emit_json(em, c))
				return -1;
		return end_map(em);
	}
	if (cJSON_IsArray(j)) {
		if (start_seq(em, false))
			return -1;
		cJSON_ArrayForEach(c, j)
			if (emit_json(em, c))
				return -1;
		return end_seq(em);
	}
	if (cJSON_IsBool(j))
		return emit_plain(em, cJSON_IsTrue(j) ? "true" : "false");
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
		return emit_plain(em, buf);
	}
	if (cJSON_IsString(j))
		return emit_str(em, j->valuestring);
	return emit_plain(em, "null");
}

static int emit_question(yaml_emitter_t *em, const struct question *q)
{
	if (start_map(em, false) ||
	    emit_kv_str(em, "id", q->id) ||
	    emit_kv_str(em, "text", q->text) ||
	    (q->origin != ORIGIN_NONE && emit_kv_str(em, "origin", origin_name(q->origin))))
		return -1;
	if (!q->answerable && (emit_plain(em, "answerable") || emit_plain(em, "false")))
		return -1;
	if (q->nr_relevant) {
		bool as_list = q->relevant_as_list;
		for (size_t i = 0; i < q->nr_relevant; i++)
			if (q->relevant[i].grade != 1)
				as_list = false;
		if (emit_plain(em, "relevant") || (as_list ? start_seq(em, true) : start_map(em, false)))
			return -1;
		for (size_t i = 0; i < q->nr_relevant; i++) {
			if (emit_str(em, q->relevant[i].chunk))
				return -1;
			if (!as_list && emit_long(em, q->relevant[i].grade))
				return -1;
		}
		if (as_list ? end_seq(em) : end_map(em))
			return -1;
	}
	if (emit_str_list(em, "irrelevant", q->irrelevant, q->nr_irrelevant) ||
	    emit_str_list(em, "tags", q->tags, q->nr_tags))
		return -1;
	if (q->provenance && (emit_plain(em, "provenance") || emit_json(em, q->provenance)))
		return -1;
	if (emit_kv_str(em, "answer", q->answer) || emit_kv_str(em, "note", q->note))
		return -1;
	return end_map(em);
}

static int emit_begin(yaml_emitter_t *em, struct strbuf *out)
{
	yaml_event_t ev;

	if (!yaml_emitter_initialize(em))
		return error("cannot initialise the YAML emitter");
	yaml_emitter_set_output(em, write_handler, out);
	yaml_emitter_set_unicode(em, 1);
	yaml_emitter_set_width(em, -1);
	yaml_emitter_set_indent(em, 2);
	if (emit(em, &ev, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING)) ||
	    emit(em, &ev, yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1)))
		return -1;
	return 0;
}

static int emit_end(yaml_emitter_t *em)
{
	yaml_event_t ev;

	if (emit(em, &ev, yaml_document_end_event_initialize(&ev, 1)) ||
	    emit(em, &ev, yaml_stream_end_event_initialize(&ev)) ||
	    !yaml_emitter_flush(em))
		return -1;
	return 0;
}

int question_to_yaml(const struct question *q, struct strbuf *out)
{
	yaml_emitter_t em;
	int ret = -1;

	if (emit_begin(&em, out) < 0)
		goto out;
	if (emit_question(&em, q) || emit_end(&em))
		goto out;
	ret = 0;
out:
	if (ret)
		error("cannot write YAML: %s", em.problem ? em.problem : "unknown problem");
	yaml_emitter_delete(&em);
	return ret;
}

int set_to_yaml(const struct set *s, struct strbuf *out)
{
	yaml_emitter_t em;
	int ret = -1;

	if (emit_begin(&em, out) < 0)
		goto out;
	if (start_map(&em, false) || emit_plain(&em, "evalset") || emit_long(&em, s->schema) ||
	    emit_kv_str(&em, "name", s->name) ||
	    emit_kv_str(&em, "description", s->description) ||
	    emit_kv_str(&em, "version", s->version) ||
	    emit_kv_str(&em, "digest", s->digest) ||
	    emit_kv_str(&em, "parent", s->parent) ||
	    emit_kv_str(&em, "tagged_at", s->tagged_at) ||
	    emit_kv_str(&em, "note", s->note))
		goto out;
	if (s->has_corpus) {
		if (emit_plain(&em, "corpus") || start_map(&em, false) ||
		    emit_kv_str(&em, "path", s->corpus.path) ||
		    emit_kv_str(&em, "fingerprint", s->corpus.fingerprint) ||
		    (s->corpus.chunks >= 0 &&
		     (emit_plain(&em, "chunks") || emit_long(&em, s->corpus.chunks))) ||
		    end_map(&em))
			goto out;
	}
	if (emit_plain(&em, "questions") || start_seq(&em, s->nr == 0))
		goto out;
	for (size_t i = 0; i < s->nr; i++)
		if (emit_question(&em, &s->q[i]))
			goto out;
	if (end_seq(&em) || end_map(&em) || emit_end(&em))
		goto out;
	ret = 0;
out:
	if (ret)
		error("cannot write YAML: %s", em.problem ? em.problem : "unknown problem");
	yaml_emitter_delete(&em);
	return ret;
}

int set_save(const struct set *s, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = -1;

	if (set_to_yaml(s, &sb) < 0)
		goto out;
	ret = write_file_atomic(path, sb.buf, sb.len);
out:
	strbuf_release(&sb);
	return ret;
}

/* ---- JSON ---- */

struct cJSON *question_to_json(const struct question *q)
{
	cJSON *j = cJSON_CreateObject(), *rel, *arr;

	cJSON_AddItemToObject(j, "id", q->id ? cJSON_CreateString(q->id) : cJSON_CreateNull());
	cJSON_AddItemToObject(j, "text", q->text ? cJSON_CreateString(q->text) : cJSON_CreateNull());
	if (q->origin != ORIGIN_NONE)
		cJSON_AddStringToObject(j, "origin", origin_name(q->origin));
	cJSON_AddBoolToObject(j, "answerable", q->answerable);
	rel = cJSON_AddObjectToObject(j, "relevant");
	for (size_t i = 0; i < q->nr_relevant; i++)
		cJSON_AddNumberToObject(rel, q->relevant[i].chunk, q->relevant[i].grade);
	arr = cJSON_AddArrayToObject(j, "irrelevant");
	for (size_t i = 0; i < q->nr_irrelevant; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(q->irrelevant[i]));
	arr = cJSON_AddArrayToObject(j, "tags");
	for (size_t i = 0; i < q->nr_tags; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(q->tags[i]));
	if (q->provenance)
		cJSON_AddItemToObject(j, "provenance", cJSON_Duplicate(q->provenance, 1));
	if (q->answer)
		cJSON_AddStringToObject(j, "answer", q->answer);
	if (q->note)
		cJSON_AddStringToObject(j, "note", q->note);
	return j;
}
