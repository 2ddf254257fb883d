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
#include "pool/pool.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/lineio.h"
#include "set/set.h"
#include "base/strmap.h"
#include "base/util.h"
#include "base/utf8.h"
#include "base/yamlio.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* ---- writing ---- */

static int kv_str(yaml_emitter_t *em, const char *k, const char *v)
{
	return yamlio_plain(em, k) || yamlio_str(em, v);
}

static int kv_long(yaml_emitter_t *em, const char *k, long v)
{
	return yamlio_plain(em, k) || yamlio_long(em, v);
}

/* Emit a chunk text as a literal block when it has several lines. */
static int emit_text(yaml_emitter_t *em, const char *s)
{
	if (s && strchr(s, '\n') && yscalar_resolve(s) == YSCALAR_STR)
		return yamlio_scalar(em, s, YAML_LITERAL_SCALAR_STYLE);
	return yamlio_str(em, s);
}

static int emit_pair(yaml_emitter_t *em, const struct pool_pair *pp)
{
	if (yamlio_map_start(em, false) || kv_str(em, "chunk", pp->chunk))
		return -1;
	if (pp->title && kv_str(em, "title", pp->title))
		return -1;
	if (yamlio_plain(em, "found_by") || yamlio_seq_start(em, true))
		return -1;
	for (size_t i = 0; i < pp->nr_found; i++)
		if (yamlio_map_start(em, true) || kv_str(em, "run", pp->found[i].run) ||
		    kv_long(em, "rank", pp->found[i].rank) || yamlio_map_end(em))
			return -1;
	if (yamlio_seq_end(em))
		return -1;
	if (pp->text && (yamlio_plain(em, "text") || emit_text(em, pp->text)))
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
	if (pp->reviewed_by && kv_str(em, "reviewed_by", pp->reviewed_by))
		return -1;
	if (pp->reviewed_at && kv_str(em, "reviewed_at", pp->reviewed_at))
		return -1;
	if (pp->llm_grade >= 0 && (kv_long(em, "llm_grade", pp->llm_grade) ||
				   (pp->llm_judge && kv_str(em, "llm_judge", pp->llm_judge))))
		return -1;
	return yamlio_map_end(em);
}

/* Emit the head of 'p': every key but the questions, as a document of its own. */
static int emit_head(yaml_emitter_t *em, const struct pool *p)
{
	if (yamlio_doc_start(em) ||
	    yamlio_map_start(em, false) || kv_long(em, "evalset_pool", p->schema))
		return -1;
	if (yamlio_plain(em, "set") || yamlio_map_start(em, false) ||
	    kv_str(em, "name", p->set_name))
		return -1;
	if (p->set_path && kv_str(em, "path", p->set_path))
		return -1;
	if (kv_str(em, "version", p->set_version) || kv_str(em, "digest", p->set_digest) || yamlio_map_end(em))
		return -1;
	if (p->depth > 0 && kv_long(em, "depth", p->depth))
		return -1;
	if (p->corpus_path) {
		if (yamlio_plain(em, "corpus") || yamlio_map_start(em, false) ||
		    kv_str(em, "path", p->corpus_path) ||
		    (p->corpus_fingerprint && kv_str(em, "fingerprint", p->corpus_fingerprint)) ||
		    yamlio_map_end(em))
			return -1;
	}
	if (yamlio_plain(em, "runs") || yamlio_seq_start(em, false))
		return -1;
	for (size_t i = 0; i < p->nr_runs; i++)
		if (yamlio_map_start(em, false) || kv_str(em, "name", p->runs[i].name) ||
		    kv_str(em, "path", p->runs[i].path) ||
		    (p->runs[i].sha256 && kv_str(em, "sha256", p->runs[i].sha256)) || yamlio_map_end(em))
			return -1;
	if (yamlio_seq_end(em) || yamlio_map_end(em) || yamlio_doc_end(em))
		return -1;
	return 0;
}

/*
 * Emit the question 'pq' as a document of its own: a sequence of one item,
 * which libyaml writes at the column and with the indentation the item has
 * under "questions:" (a block sequence that is a mapping's value is written
 * without indentation), so that the parts joined are the whole document.
 */
static int emit_question(yaml_emitter_t *em, const struct pool_question *pq)
{
	if (yamlio_doc_start(em) || yamlio_seq_start(em, false) ||
	    yamlio_map_start(em, false) || kv_str(em, "id", pq->id) || kv_str(em, "text", pq->text) ||
	    yamlio_plain(em, "pairs") || yamlio_seq_start(em, !pq->nr))
		return -1;
	for (size_t j = 0; j < pq->nr; j++)
		if (emit_pair(em, &pq->pairs[j]))
			return -1;
	if (yamlio_seq_end(em) || yamlio_map_end(em) || yamlio_seq_end(em) || yamlio_doc_end(em))
		return -1;
	return 0;
}

/* Replace 'out' with the YAML of the head of 'p' (emit_head when 'pq' is
 * NULL) or of its question 'pq'; 'what' names the file for an error. */
static int emit_part(const struct pool *p, const struct pool_question *pq, struct strbuf *out, const char *what)
{
	yaml_emitter_t em;

	strbuf_reset(out);
	if (yamlio_emitter_init(&em, out) < 0)
		return -1;
	if (!pq)
		strbuf_addstr(out, "# evalset pool: grade each pair 0-3 (null: not graded yet); see docs/pool.md\n"
				   "#   0 unrelated  1 related but does not answer  2 partly answers\n"
				   "#   3 dedicated to the question and holds the exact answer\n");
	if (yamlio_emitter_end(&em, pq ? emit_question(&em, pq) : emit_head(&em, p), what) < 0)
		return -1;
	/* the questions' key, closing the head: the parts follow it */
	if (!pq)
		strbuf_addstr(out, p->nr ? "questions:\n" : "questions: []\n");
	return 0;
}

void pool_yaml_release(struct pool_yaml *y)
{
	strbuf_release(&y->head);
	for (size_t i = 0; i < y->nr; i++)
		strbuf_release(&y->part[i]);
	free(y->part);
	y->part = NULL;
	y->nr = 0;
}

/* pool_yaml_build, naming the pool 'what' when it cannot be written. */
static int build(struct pool_yaml *y, const struct pool *p, const char *what)
{
	pool_yaml_release(y);
	y->part = xcalloc(p->nr ? p->nr : 1, sizeof(*y->part));
	y->nr = p->nr;
	for (size_t i = 0; i < p->nr; i++)
		strbuf_init(&y->part[i], 0);
	if (emit_part(p, NULL, &y->head, what) < 0)
		goto fail;
	for (size_t i = 0; i < p->nr; i++)
		if (emit_part(p, &p->q[i], &y->part[i], what) < 0)
			goto fail;
	return 0;
fail:
	pool_yaml_release(y);
	return -1;
}

int pool_yaml_build(struct pool_yaml *y, const struct pool *p)
{
	return build(y, p, "the pool");
}

int pool_yaml_update(struct pool_yaml *y, const struct pool *p, size_t i)
{
	if (y->nr != p->nr || i >= p->nr)
		return error("internal: the YAML held is of another pool (%zu questions, not %zu)", y->nr, p->nr);
	if (emit_part(p, &p->q[i], &y->part[i], "the pool") < 0) {
		pool_yaml_release(y);
		return -1;
	}
	return 0;
}

void pool_yaml_join(const struct pool_yaml *y, struct strbuf *out)
{
	size_t len = y->head.len;

	for (size_t i = 0; i < y->nr; i++)
		len += y->part[i].len;
	strbuf_grow(out, len);
	strbuf_add(out, y->head.buf, y->head.len);
	for (size_t i = 0; i < y->nr; i++)
		strbuf_add(out, y->part[i].buf, y->part[i].len);
}

/* pool_to_yaml, naming the pool 'what' ("the pool", "'FILE'") when it cannot be written. */
static int to_yaml(const struct pool *p, struct strbuf *out, const char *what)
{
	struct pool_yaml y = POOL_YAML_INIT;

	if (build(&y, p, what) < 0)
		return -1;
	pool_yaml_join(&y, out);
	pool_yaml_release(&y);
	return 0;
}

int pool_to_yaml(const struct pool *p, struct strbuf *out)
{
	return to_yaml(p, out, "the pool");
}

int pool_save(const struct pool *p, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	char *what = xstrfmt("'%s'", path);
	int rc = to_yaml(p, &sb, what);

	if (!rc)
		rc = write_file_atomic(path, sb.buf, sb.len);
	free(what);
	strbuf_release(&sb);
	return rc;
}

/* ---- reading: events into a tree ---- */

/* ---- reading: the tree into a pool ---- */

static const struct yamlio_rules pool_rules = {
	.file = "pool file", .max_depth = POOL_MAX_DEPTH, .max_scalar = 0,
	.detail = false,
};

struct reader {
	const char *name;
};

static int bad_type(struct reader *rd, const struct ynode *n, const char *what, const char *want)
{
	return yamlio_type_error(rd->name, n, what, want);
}

/* Read a string; null gives NULL unless 'required'. */
static int get_str(struct reader *rd, const struct ynode *n, const char *what, bool required, char **out)
{
	free(*out);
	*out = NULL;
	if (n->kind != YNODE_SCALAR || (required && (ynode_is_null(n) || !*n->value)))
		return bad_type(rd, n, what, required ? "a non-empty string" : "a string");
	if (!ynode_is_null(n))
		*out = xstrdup(n->value);
	return 0;
}

static int get_long(struct reader *rd, const struct ynode *n, const char *what, long min, long max,
		    long *out)
{
	char *range = xstrfmt("an integer in %ld..%ld", min, max);
	int rc = 0;

	if (n->kind != YNODE_SCALAR || !n->plain || yscalar_resolve(n->value) != YSCALAR_INT ||
	    parse_long(n->value[0] == '+' ? n->value + 1 : n->value, min, max, out))
		rc = bad_type(rd, n, what, range);
	free(range);
	return rc;
}

/* Check mapping 'm' has only keys of 'known', each once. */
static int check_map(struct reader *rd, const struct ynode *m, const char *what,
		     const char *const *known)
{
	if (m->kind != YNODE_MAP)
		return bad_type(rd, m, what, "a mapping");
	for (size_t i = 0; i + 1 < m->nr; i += 2) {
		const struct ynode *k = m->kids[i];
		bool found = false;

		if (k->kind != YNODE_SCALAR)
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

static int need(struct reader *rd, const struct ynode *m, const char *key, const char *what,
		const struct ynode **out)
{
	*out = ynode_get(m, key);
	if (!*out)
		return error_at(rd->name, m->line, m->col, "%s has no '%s'", what, key);
	return 0;
}

static int read_found(struct reader *rd, const struct ynode *n, struct pool_pair *pp)
{
	static const char *const keys[] = { "run", "rank", NULL };

	if (ynode_is_null(n))
		return 0;
	if (n->kind != YNODE_SEQ)
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
		"chunk", "title", "text", "found_by", "grade", "judge", "prompt", "reason", "note",
		"reviewed_by", "reviewed_at", "llm_grade", "llm_judge", NULL,
	};
	const struct ynode *v;

	pp->grade = -1;
	pp->llm_grade = -1;
	pp->line = n->line;
	pp->col = n->col;
	if (check_map(rd, n, "a pair", keys))
		return -1;
	if (need(rd, n, "chunk", "a pair", &v) || get_str(rd, v, "'chunk'", true, &pp->chunk))
		return -1;
	if ((v = ynode_get(n, "title")) && get_str(rd, v, "'title'", false, &pp->title))
		return -1;
	if ((v = ynode_get(n, "text")) && get_str(rd, v, "'text'", false, &pp->text))
		return -1;
	if ((v = ynode_get(n, "found_by")) && read_found(rd, v, pp))
		return -1;
	if ((v = ynode_get(n, "grade")) && !ynode_is_null(v)) {
		long g;
		if (get_long(rd, v, "the grade", 0, POOL_MAX_GRADE, &g))
			return -1;
		pp->grade = (int)g;
		pp->grade_line = v->line;
		pp->grade_col = v->col;
	}
	if ((v = ynode_get(n, "judge")) && get_str(rd, v, "'judge'", false, &pp->judge))
		return -1;
	if (pp->judge && strcmp(pp->judge, "human") && !(starts_with(pp->judge, "llm:") && pp->judge[4]))
		return error_at(rd->name, v->line, v->col,
				"unknown judge '%s'; expected 'human' or 'llm:MODEL'", pp->judge);
	if ((v = ynode_get(n, "prompt")) && get_str(rd, v, "'prompt'", false, &pp->prompt))
		return -1;
	if ((v = ynode_get(n, "reason")) && get_str(rd, v, "'reason'", false, &pp->reason))
		return -1;
	if ((v = ynode_get(n, "note")) && get_str(rd, v, "'note'", false, &pp->note))
		return -1;
	if ((v = ynode_get(n, "reviewed_by")) && get_str(rd, v, "'reviewed_by'", false, &pp->reviewed_by))
		return -1;
	if ((v = ynode_get(n, "reviewed_at")) && get_str(rd, v, "'reviewed_at'", false, &pp->reviewed_at))
		return -1;
	if ((v = ynode_get(n, "llm_grade")) && !ynode_is_null(v)) {
		long g;
		if (get_long(rd, v, "'llm_grade'", 0, POOL_MAX_GRADE, &g))
			return -1;
		pp->llm_grade = (int)g;
	}
	if ((v = ynode_get(n, "llm_judge")) && get_str(rd, v, "'llm_judge'", false, &pp->llm_judge))
		return -1;
	if (pp->llm_judge && !(starts_with(pp->llm_judge, "llm:") && pp->llm_judge[4]))
		return error_at(rd->name, v->line, v->col, "unknown llm_judge '%s'; expected 'llm:MODEL'",
				pp->llm_judge);
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
	if ((v = ynode_get(n, "text")) && get_str(rd, v, "'text'", false, &pq->text))
		return -1;
	v = ynode_get(n, "pairs");
	if (!v || ynode_is_null(v))
		return 0;
	if (v->kind != YNODE_SEQ)
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
	if ((v = ynode_get(s, "path")) && get_str(rd, v, "'path'", false, &p->set_path))
		return -1;
	if ((v = ynode_get(s, "version")) && get_str(rd, v, "'version'", false, &p->set_version))
		return -1;
	if ((v = ynode_get(s, "digest")) && get_str(rd, v, "'digest'", false, &p->set_digest))
		return -1;
	if ((v = ynode_get(root, "depth")) && get_long(rd, v, "'depth'", 1, 100000000, &p->depth))
		return -1;
	if ((s = ynode_get(root, "corpus")) && !ynode_is_null(s)) {
		if (check_map(rd, s, "'corpus'", corpus_keys))
			return -1;
		if ((v = ynode_get(s, "path")) && get_str(rd, v, "'path'", false, &p->corpus_path))
			return -1;
		if ((v = ynode_get(s, "fingerprint")) && get_str(rd, v, "'fingerprint'", false, &p->corpus_fingerprint))
			return -1;
	}
	if ((s = ynode_get(root, "runs")) && !ynode_is_null(s)) {
		if (s->kind != YNODE_SEQ)
			return bad_type(rd, s, "'runs'", "a list");
		for (size_t i = 0; i < s->nr; i++) {
			struct pool_run *r;
			ALLOC_GROW(p->runs, p->nr_runs + 1, p->alloc_runs);
			r = &p->runs[p->nr_runs++];
			memset(r, 0, sizeof(*r));
			if (check_map(rd, s->kids[i], "a run", run_keys) ||
			    need(rd, s->kids[i], "name", "a run", &v) || get_str(rd, v, "'name'", true, &r->name))
				return -1;
			if ((v = ynode_get(s->kids[i], "path")) && get_str(rd, v, "'path'", false, &r->path))
				return -1;
			if ((v = ynode_get(s->kids[i], "sha256")) && get_str(rd, v, "'sha256'", false, &r->sha256))
				return -1;
		}
	}
	s = ynode_get(root, "questions");
	if (!s || ynode_is_null(s))
		return 0;
	if (s->kind != YNODE_SEQ)
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
	struct mempool tree = MEMPOOL_INIT;
	size_t bad;
	int rc = -1;

	if (!utf8_valid(buf, len, &bad))
		return error_at(name, line_number_at(buf, bad), 0, "invalid UTF-8 or NUL byte in a pool file");
	if (yamlio_parse_tree(buf, len, name, &pool_rules, &tree, &root))
		goto out;
	if (read_pool(&rd, root, p))
		goto out;
	p->file = xstrdup(name);
	rc = 0;
out:
	mempool_clear(&tree);
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
