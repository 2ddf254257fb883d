/*
 * pool-yaml: writing and reading the pool worksheet as YAML (see pool.h for
 * the format's rules).
 *
 * Reading is two steps, like the set loader: libyaml events into a small
 * tree that keeps each node's line and column (anchors, aliases, tags other
 * than the standard ones, and nesting deeper than POOL_MAX_DEPTH refused
 * there), then the tree into struct pool with every type and key checked.
 * Writing uses libyaml's emitter: block style, flow style for found_by, and
 * multi-line chunk texts as literal blocks when libyaml allows it, so the
 * file reads well in an editor. Strings that would read back as another type
 * when plain are single-quoted, so a round trip keeps every value.
 */
#include "pool.h"
#include "error.h"
#include "fsutil.h"
#include "set.h"
#include "strmap.h"
#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

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

	return emit(em, &ev, yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s,
							  (int)strlen(s), 1, 1, style));
}

static int emit_str(yaml_emitter_t *em, const char *s)
{
	if (!s)
		return emit_raw(em, "null", YAML_PLAIN_SCALAR_STYLE);
	return emit_raw(em, s, set_scalar_resolve(s) == SET_SCALAR_STR ? YAML_ANY_SCALAR_STYLE
								      : YAML_SINGLE_QUOTED_SCALAR_STYLE);
}

static int emit_long(yaml_emitter_t *em, long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", v);
	return emit_raw(em, buf, YAML_PLAIN_SCALAR_STYLE);
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

static int kv_str(yaml_emitter_t *em, const char *k, const char *v)
{
	return emit_raw(em, k, YAML_PLAIN_SCALAR_STYLE) || emit_str(em, v);
}

static int kv_long(yaml_emitter_t *em, const char *k, long v)
{
	return emit_raw(em, k, YAML_PLAIN_SCALAR_STYLE) || emit_long(em, v);
}

/* Emit a chunk text as a literal block when it has several lines. */
static int emit_text(yaml_emitter_t *em, const char *s)
{
	if (s && strchr(s, '\n') && set_scalar_resolve(s) == SET_SCALAR_STR)
		return emit_raw(em, s, YAML_LITERAL_SCALAR_STYLE);
	return emit_str(em, s);
}

static int emit_pair(yaml_emitter_t *em, const struct pool_pair *pp)
{
	if (start_map(em, false) || kv_str(em, "chunk", pp->chunk))
		return -1;
	if (pp->title && kv_str(em, "title", pp->title))
		return -1;
	if (emit_raw(em, "found_by", YAML_PLAIN_SCALAR_STYLE) || start_seq(em, true))
		return -1;
	for (size_t i = 0; i < pp->nr_found; i++)
		if (start_map(em, true) || kv_str(em, "run", pp->found[i].run) ||
		    kv_long(em, "rank", pp->found[i].rank) || end_map(em))
			return -1;
	if (end_seq(em))
		return -1;
	if (pp->text && (emit_raw(em, "text", YAML_PLAIN_SCALAR_STYLE) || emit_text(em, pp->text)))
		return -1;
	if (pp->grade >= 0 ? kv_long(em, "grade", pp->grade) : kv_str(em, "grade", NULL))
		return -1;
	if (pp->judge && kv_str(em, "judge", pp->judge))
		return -1;
	if (pp->prompt && kv_str(em, "prompt", pp->prompt))
		return -1;
	if (pp->reason && kv_str(em, "reason", pp->reason))
		return -1;
	if (pp->note && kv_str(em, "note", pp->note))
		return -1;
	return end_map(em);
}

static int emit_pool(yaml_emitter_t *em, const struct pool *p)
{
	yaml_event_t ev;

	if (emit(em, &ev, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING)) ||
	    emit(em, &ev, yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1)) ||
	    start_map(em, false) || kv_long(em, "evalset_pool", p->schema))
		return -1;
	if (emit_raw(em, "set", YAML_PLAIN_SCALAR_STYLE) || start_map(em, false) ||
	    kv_str(em, "name", p->set_name))
		return -1;
	if (p->set_path && kv_str(em, "path", p->set_path))
		return -1;
	if (kv_str(em, "version", p->set_version) || kv_str(em, "digest", p->set_digest) || end_map(em))
		return -1;
	if (p->depth > 0 && kv_long(em, "depth", p->depth))
		return -1;
	if (p->corpus_path) {
		if (emit_raw(em, "corpus", YAML_PLAIN_SCALAR_STYLE) || start_map(em, false) ||
		    kv_str(em, "path", p->corpus_path) ||
		    (p->corpus_fingerprint && kv_str(em, "fingerprint", p->corpus_fingerprint)) ||
		    end_map(em))
			return -1;
	}
	if (emit_raw(em, "runs", YAML_PLAIN_SCALAR_STYLE) || start_seq(em, false))
		return -1;
	for (size_t i = 0; i < p->nr_runs; i++)
		if (start_map(em, false) || kv_str(em, "name", p->runs[i].name) ||
		    kv_str(em, "path", p->runs[i].path) ||
		    (p->runs[i].sha256 && kv_str(em, "sha256", p->runs[i].sha256)) || end_map(em))
			return -1;
	if (end_seq(em) || emit_raw(em, "questions", YAML_PLAIN_SCALAR_STYLE) || start_seq(em, false))
		return -1;
	for (size_t i = 0; i < p->nr; i++) {
		const struct pool_question *pq = &p->q[i];
		if (start_map(em, false) || kv_str(em, "id", pq->id) || kv_str(em, "text", pq->text) ||
		    emit_raw(em, "pairs", YAML_PLAIN_SCALAR_STYLE) || start_seq(em, !pq->nr))
			return -1;
		for (size_t j = 0; j < pq->nr; j++)
			if (emit_pair(em, &pq->pairs[j]))
				return -1;
		if (end_seq(em) || end_map(em))
			return -1;
	}
	if (end_seq(em) || end_map(em) ||
	    emit(em, &ev, yaml_document_end_event_initialize(&ev, 1)) ||
	    emit(em, &ev, yaml_stream_end_event_initialize(&ev)))
		return -1;
	return 0;
}

int pool_to_yaml(const struct pool *p, struct strbuf *out)
{
	yaml_emitter_t em;
	int rc;

	if (!yaml_emitter_initialize(&em))
		return error("cannot initialise the YAML emitter");
	yaml_emitter_set_output(&em, write_handler, out);
	yaml_emitter_set_unicode(&em, 1);
	yaml_emitter_set_width(&em, -1);
	yaml_emitter_set_indent(&em, 2);
	strbuf_addstr(out, "# evalset pool: grade each pair 0-3 (null: not graded yet); see docs/pool.md\n"
			   "#   0 unrelated  1 related but does not answer  2 partly answers\n"
			   "#   3 dedicated to the question and holds the exact answer\n");
	rc = emit_pool(&em, p);
	if (rc)
		error("cannot write the pool as YAML: %s", em.problem ? em.problem : "emitter error");
	yaml_emitter_delete(&em);
	return rc;
}

int pool_save(const struct pool *p, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int rc = pool_to_yaml(p, &sb);

	if (!rc)
		rc = write_file_atomic(path, sb.buf, sb.len);
	strbuf_release(&sb);
	return rc;
}

/* ---- reading: events into a tree ---- */

enum ykind { Y_SCALAR, Y_SEQ, Y_MAP };

struct ynode {
	enum ykind kind;
	char *value;
	bool plain;
	long line, col;
	struct ynode **kids;   /* mappings: key, value, key, value... */
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

static int parse_error(yaml_parser_t *ps, const char *name)
{
	if (ps->error == YAML_READER_ERROR)
		return error_at(name, 0, 0, "%s at byte %zu", ps->problem ? ps->problem : "unreadable input",
				ps->problem_offset);
	return error_at(name, (long)ps->problem_mark.line + 1, (long)ps->problem_mark.column + 1,
			"YAML syntax error: %s", ps->problem ? ps->problem : "unknown problem");
}

static int parse_tree(const char *buf, size_t len, const char *name, struct ynode **root)
{
	yaml_parser_t ps;
	yaml_event_t ev;
	struct ynode *stack[POOL_MAX_DEPTH + 2];
	int depth = 0, docs = 0, ret = -1;
	bool done = false;

	*root = NULL;
	if (!yaml_parser_initialize(&ps))
		return error("cannot initialise the YAML parser");
	yaml_parser_set_input_string(&ps, (const unsigned char *)buf, len);
	while (!done) {
		struct ynode *n;
		long line, col;
		const char *anchor = NULL, *tag = NULL, *want = NULL;

		if (!yaml_parser_parse(&ps, &ev)) {
			parse_error(&ps, name);
			goto out;
		}
		line = (long)ev.start_mark.line + 1;
		col = (long)ev.start_mark.column + 1;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++docs > 1) {
				error_at(name, line, col, "more than one YAML document in a pool file");
				yaml_event_delete(&ev);
				goto out;
			}
			break;
		case YAML_ALIAS_EVENT:
			error_at(name, line, col, "YAML alias not supported in a pool file");
			yaml_event_delete(&ev);
			goto out;
		case YAML_SCALAR_EVENT:
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (ev.type == YAML_SCALAR_EVENT) {
				anchor = (const char *)ev.data.scalar.anchor;
				tag = (const char *)ev.data.scalar.tag;
				want = YAML_STR_TAG;
			} else if (ev.type == YAML_SEQUENCE_START_EVENT) {
				anchor = (const char *)ev.data.sequence_start.anchor;
				tag = (const char *)ev.data.sequence_start.tag;
				want = YAML_SEQ_TAG;
			} else {
				anchor = (const char *)ev.data.mapping_start.anchor;
				tag = (const char *)ev.data.mapping_start.tag;
				want = YAML_MAP_TAG;
			}
			if (anchor || (tag && strcmp(tag, "!") && strcmp(tag, want))) {
				error_at(name, line, col, "YAML %s not supported in a pool file",
					 anchor ? "anchor" : "tag");
				yaml_event_delete(&ev);
				goto out;
			}
			n = xcalloc(1, sizeof(*n));
			n->line = line;
			n->col = col;
			if (ev.type == YAML_SCALAR_EVENT) {
				n->kind = Y_SCALAR;
				n->value = xstrndup((const char *)ev.data.scalar.value, ev.data.scalar.length);
				n->plain = !tag && ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
				if (strlen(n->value) != ev.data.scalar.length) {
					error_at(name, line, col, "NUL byte in a pool file");
					ynode_free(n);
					yaml_event_delete(&ev);
					goto out;
				}
			} else {
				n->kind = ev.type == YAML_SEQUENCE_START_EVENT ? Y_SEQ : Y_MAP;
			}
			if (!depth) {
				ynode_free(*root);
				*root = n;
			} else {
				struct ynode *up = stack[depth - 1];
				ALLOC_GROW(up->kids, up->nr + 1, up->alloc);
				up->kids[up->nr++] = n;
			}
			if (n->kind != Y_SCALAR) {
				if (depth >= POOL_MAX_DEPTH) {
					error_at(name, line, col, "nesting deeper than %d levels", POOL_MAX_DEPTH);
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
	yaml_parser_delete(&ps);
	if (ret) {
		ynode_free(*root);
		*root = NULL;
	}
	return ret;
}

/* ---- reading: the tree into a pool ---- */

struct reader {
	const char *name;
};

static bool is_null(const struct ynode *n)
{
	return n->kind == Y_SCALAR && n->plain && set_scalar_resolve(n->value) == SET_SCALAR_NULL;
}

static int bad_type(struct reader *rd, const struct ynode *n, const char *what, const char *want)
{
	if (n->kind == Y_SCALAR)
		return error_at(rd->name, n->line, n->col, "%s must be %s, not '%s'", what, want, n->value);
	return error_at(rd->name, n->line, n->col, "%s must be %s, not a %s", what, want,
			n->kind == Y_SEQ ? "list" : "mapping");
}

/* Read a string; null gives NULL unless 'required'. */
static int get_str(struct reader *rd, const struct ynode *n, const char *what, bool required, char **out)
{
	free(*out);
	*out = NULL;
	if (n->kind != Y_SCALAR || (required && (is_null(n) || !*n->value)))
		return bad_type(rd, n, what, required ? "a non-empty string" : "a string");
	if (!is_null(n))
		*out = xstrdup(n->value);
	return 0;
}

static int get_long(struct reader *rd, const struct ynode *n, const char *what, long min, long max,
		    long *out)
{
	char *range = xstrfmt("an integer in %ld..%ld", min, max);
	int rc = 0;

	if (n->kind != Y_SCALAR || !n->plain || set_scalar_resolve(n->value) != SET_SCALAR_INT ||
	    parse_long(n->value[0] == '+' ? n->value + 1 : n->value, min, max, out))
		rc = bad_type(rd, n, what, range);
	free(range);
	return rc;
}

/* Check mapping 'm' has only keys of 'known', each once. */
static int check_map(struct reader *rd, const struct ynode *m, const char *what,
		     const char *const *known)
{
	if (m->kind != Y_MAP)
		return bad_type(rd, m, what, "a mapping");
	for (size_t i = 0; i + 1 < m->nr; i += 2) {
		const struct ynode *k = m->kids[i];
		bool found = false;

		if (k->kind != Y_SCALAR)
			return error_at(rd->name, k->line, k->col, "a key of %s must be a scalar", what);
		for (size_t j = 0; j < i; j += 2)
			if (!strcmp(m->kids[j]->value, k->value))
				return error_at(rd->name, k->line, k->col, "duplicate key '%s' in %s",
						k->value, what);
		for (size_t j = 0; known[j]; j++)
			found |= !strcmp(known[j], k->value);
		if (!found)
			return error_at(rd->name, k->line, k->col, "unknown key '%s' in %s", k->value, what);
	}
	return 0;
}

static const struct ynode *get_key(const struct ynode *m, const char *key)
{
	for (size_t i = 0; i + 1 < m->nr; i += 2)
		if (!strcmp(m->kids[i]->value, key))
			return m->kids[i + 1];
	return NULL;
}

static int need(struct reader *rd, const struct ynode *m, const char *key, const char *what,
		const struct ynode **out)
{
	*out = get_key(m, key);
	if (!*out)
		return error_at(rd->name, m->line, m->col, "%s has no '%s'", what, key);
	return 0;
}

static int read_found(struct reader *rd, const struct ynode *n, struct pool_pair *pp)
{
	static const char *const keys[] = { "run", "rank", NULL };

	if (is_null(n))
		return 0;
	if (n->kind != Y_SEQ)
		return bad_type(rd, n, "'found_by'", "a list");
	for (size_t i = 0; i < n->nr; i++) {
		const struct ynode *it = n->kids[i], *v;
		struct pool_found *f;

		if (check_map(rd, it, "a found_by entry", keys))
			return -1;
		ALLOC_GROW(pp->found, pp->nr_found + 1, pp->alloc_found);
		f = &pp->found[pp->nr_found++];
		memset(f, 0, sizeof(*f));
		if (need(rd, it, "run", "a found_by entry", &v) || get_str(rd, v, "'run'", true, &f->run) ||
		    need(rd, it, "rank", "a found_by entry", &v) ||
		    get_long(rd, v, "'rank'", 1, 100000000, &f->rank))
			return -1;
	}
	return 0;
}

static int read_pair(struct reader *rd, const struct ynode *n, struct pool_pair *pp)
{
	static const char *const keys[] = {
		"chunk", "title", "text", "found_by", "grade", "judge", "prompt", "reason", "note", NULL,
	};
	const struct ynode *v;

	pp->grade = -1;
	pp->line = n->line;
	pp->col = n->col;
	if (check_map(rd, n, "a pair", keys))
		return -1;
	if (need(rd, n, "chunk", "a pair", &v) || get_str(rd, v, "'chunk'", true, &pp->chunk))
		return -1;
	if ((v = get_key(n, "title")) && get_str(rd, v, "'title'", false, &pp->title))
		return -1;
	if ((v = get_key(n, "text")) && get_str(rd, v, "'text'", false, &pp->text))
		return -1;
	if ((v = get_key(n, "found_by")) && read_found(rd, v, pp))
		return -1;
	if ((v = get_key(n, "grade")) && !is_null(v)) {
		long g;
		if (get_long(rd, v, "the grade", 0, POOL_MAX_GRADE, &g))
			return -1;
		pp->grade = (int)g;
		pp->grade_line = v->line;
		pp->grade_col = v->col;
	}
	if ((v = get_key(n, "judge")) && get_str(rd, v, "'judge'", false, &pp->judge))
		return -1;
	if (pp->judge && strcmp(pp->judge, "human") && !(starts_with(pp->judge, "llm:") && pp->judge[4]))
		return error_at(rd->name, v->line, v->col,
				"unknown judge '%s'; expected 'human' or 'llm:MODEL'", pp->judge);
	if ((v = get_key(n, "prompt")) && get_str(rd, v, "'prompt'", false, &pp->prompt))
		return -1;
	if ((v = get_key(n, "reason")) && get_str(rd, v, "'reason'", false, &pp->reason))
		return -1;
	if ((v = get_key(n, "note")) && get_str(rd, v, "'note'", false, &pp->note))
		return -1;
	return 0;
}

static int read_question(struct reader *rd, const struct ynode *n, struct pool_question *pq)
{
	static const char *const keys[] = { "id", "text", "pairs", NULL };
	const struct ynode *v;
	struct strmap seen = STRMAP_INIT;
	int rc = -1;

	pq->line = n->line;
	pq->col = n->col;
	if (check_map(rd, n, "a question", keys))
		return -1;
	if (need(rd, n, "id", "a question", &v) || get_str(rd, v, "'id'", true, &pq->id))
		return -1;
	if ((v = get_key(n, "text")) && get_str(rd, v, "'text'", false, &pq->text))
		return -1;
	v = get_key(n, "pairs");
	if (!v || is_null(v))
		return 0;
	if (v->kind != Y_SEQ)
		return bad_type(rd, v, "'pairs'", "a list");
	for (size_t i = 0; i < v->nr; i++) {
		struct pool_pair *pp;
		uintptr_t first;

		ALLOC_GROW(pq->pairs, pq->nr + 1, pq->alloc);
		pp = &pq->pairs[pq->nr++];
		memset(pp, 0, sizeof(*pp));
		if (read_pair(rd, v->kids[i], pp))
			goto out;
		first = (uintptr_t)strmap_get(&seen, pp->chunk);
		if (first) {
			error_at(rd->name, pp->line, pp->col,
				 "duplicate pair: chunk '%s' listed twice for question '%s' (first at line %ld)",
				 pp->chunk, pq->id, (long)first);
			goto out;
		}
		strmap_put(&seen, pp->chunk, (void *)(uintptr_t)pp->line);
	}
	rc = 0;
out:
	strmap_clear(&seen, 0);
	return rc;
}

static int read_pool(struct reader *rd, const struct ynode *root, struct pool *p)
{
	static const char *const keys[] = { "evalset_pool", "set", "depth", "corpus", "runs", "questions", NULL };
	static const char *const set_keys[] = { "name", "path", "version", "digest", NULL };
	static const char *const corpus_keys[] = { "path", "fingerprint", NULL };
	static const char *const run_keys[] = { "name", "path", "sha256", NULL };
	const struct ynode *v, *s;
	struct strmap ids = STRMAP_INIT;
	long schema;
	int rc = -1;

	if (!root)
		return error_at(rd->name, 1, 1, "empty pool file");
	if (check_map(rd, root, "the pool", keys))
		return -1;
	if (need(rd, root, "evalset_pool", "the pool", &v) || get_long(rd, v, "'evalset_pool'", 1, 1000, &schema))
		return -1;
	if (schema != POOL_SCHEMA)
		return error_at(rd->name, v->line, v->col, "unsupported pool schema %ld (this evalset reads %d)",
				schema, POOL_SCHEMA);
	p->schema = (int)schema;
	if (need(rd, root, "set", "the pool", &s) || check_map(rd, s, "'set'", set_keys) ||
	    need(rd, s, "name", "'set'", &v) || get_str(rd, v, "'name'", true, &p->set_name))
		return -1;
	if ((v = get_key(s, "path")) && get_str(rd, v, "'path'", false, &p->set_path))
		return -1;
	if ((v = get_key(s, "version")) && get_str(rd, v, "'version'", false, &p->set_version))
		return -1;
	if ((v = get_key(s, "digest")) && get_str(rd, v, "'digest'", false, &p->set_digest))
		return -1;
	if ((v = get_key(root, "depth")) && get_long(rd, v, "'depth'", 1, 100000000, &p->depth))
		return -1;
	if ((s = get_key(root, "corpus")) && !is_null(s)) {
		if (check_map(rd, s, "'corpus'", corpus_keys))
			return -1;
		if ((v = get_key(s, "path")) && get_str(rd, v, "'path'", false, &p->corpus_path))
			return -1;
		if ((v = get_key(s, "fingerprint")) && get_str(rd, v, "'fingerprint'", false, &p->corpus_fingerprint))
			return -1;
	}
	if ((s = get_key(root, "runs")) && !is_null(s)) {
		if (s->kind != Y_SEQ)
			return bad_type(rd, s, "'runs'", "a list");
		for (size_t i = 0; i < s->nr; i++) {
			struct pool_run *r;
			ALLOC_GROW(p->runs, p->nr_runs + 1, p->alloc_runs);
			r = &p->runs[p->nr_runs++];
			memset(r, 0, sizeof(*r));
			if (check_map(rd, s->kids[i], "a run", run_keys) ||
			    need(rd, s->kids[i], "name", "a run", &v) || get_str(rd, v, "'name'", true, &r->name))
				return -1;
			if ((v = get_key(s->kids[i], "path")) && get_str(rd, v, "'path'", false, &r->path))
				return -1;
			if ((v = get_key(s->kids[i], "sha256")) && get_str(rd, v, "'sha256'", false, &r->sha256))
				return -1;
		}
	}
	s = get_key(root, "questions");
	if (!s || is_null(s))
		return 0;
	if (s->kind != Y_SEQ)
		return bad_type(rd, s, "'questions'", "a list");
	for (size_t i = 0; i < s->nr; i++) {
		struct pool_question *pq;
		uintptr_t first;

		ALLOC_GROW(p->q, p->nr + 1, p->alloc);
		pq = &p->q[p->nr++];
		memset(pq, 0, sizeof(*pq));
		if (read_question(rd, s->kids[i], pq))
			goto out;
		first = (uintptr_t)strmap_get(&ids, pq->id);
		if (first) {
			error_at(rd->name, pq->line, pq->col, "duplicate question '%s' (first at line %ld)",
				 pq->id, (long)first);
			goto out;
		}
		strmap_put(&ids, pq->id, (void *)(uintptr_t)pq->line);
	}
	/* every found_by names a run of the pool */
	for (size_t i = 0; i < p->nr; i++)
		for (size_t j = 0; j < p->q[i].nr; j++)
			for (size_t f = 0; f < p->q[i].pairs[j].nr_found; f++) {
				const char *run = p->q[i].pairs[j].found[f].run;
				bool known = false;
				for (size_t r = 0; r < p->nr_runs && !known; r++)
					known = !strcmp(p->runs[r].name, run);
				if (!known) {
					error_at(rd->name, p->q[i].pairs[j].line, p->q[i].pairs[j].col,
						 "unknown run '%s' in found_by (not in 'runs')", run);
					goto out;
				}
			}
	rc = 0;
out:
	strmap_clear(&ids, 0);
	return rc;
}

int pool_load_buf(struct pool *p, const char *buf, size_t len, const char *name)
{
	struct reader rd = { name };
	struct ynode *root = NULL;
	size_t bad;
	int rc = -1;

	if (!utf8_valid(buf, len, &bad)) {
		long line = 1;
		for (size_t i = 0; i < bad; i++)
			line += buf[i] == '\n';
		return error_at(name, line, 0, "invalid UTF-8 or NUL byte in a pool file");
	}
	if (parse_tree(buf, len, name, &root))
		goto out;
	if (read_pool(&rd, root, p))
		goto out;
	p->file = xstrdup(name);
	rc = 0;
out:
	ynode_free(root);
	if (rc)
		pool_release(p);
	return rc;
}

int pool_load(struct pool *p, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int rc;

	if (read_file(path, &sb, POOL_MAX_FILE_BYTES) < 0) {
		strbuf_release(&sb);
		return -1;
	}
	rc = pool_load_buf(p, sb.buf, sb.len, path);
	strbuf_release(&sb);
	return rc;
}
