/*
 * yamlio: the libyaml emitter helpers and the position-keeping tree reader
 * that set-yaml.c, set-write.c and pool-yaml.c share (contract in yamlio.h).
 *
 * The tree reader never holds more than one libyaml event: each event is
 * deleted before the next is parsed, and on any refusal the partial tree is
 * freed, so a caller only ever sees a whole tree or none.
 */
#include "base/yamlio.h"
#include "base/yamlfast.h"
#include "base/error.h"
#include "base/util.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


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

enum yscalar_type yscalar_resolve(const char *s)
{
	const char *p = s;

	if (!*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL"))
		return YSCALAR_NULL;
	if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE") ||
	    !strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE"))
		return YSCALAR_BOOL;
	if (*p == '+' || *p == '-')
		p++;
	if (all_in(p, "0123456789"))
		return YSCALAR_INT;
	if ((starts_with(s, "0o") && all_in(s + 2, "01234567")) ||
	    (starts_with(s, "0x") && all_in(s + 2, "0123456789abcdefABCDEF")))
		return YSCALAR_INT;
	if (is_float_text(s))
		return YSCALAR_FLOAT;
	return YSCALAR_STR;
}

/* ---- writing ---- */

static int write_handler(void *data, unsigned char *buffer, size_t size)
{
	strbuf_add(data, buffer, size);
	return 1;
}

int yamlio_emitter_init(yaml_emitter_t *em, struct strbuf *out)
{
	if (!yaml_emitter_initialize(em))
		return error("cannot initialise the YAML emitter");
	yaml_emitter_set_output(em, write_handler, out);
	yaml_emitter_set_unicode(em, 1);
	yaml_emitter_set_width(em, -1);
	yaml_emitter_set_indent(em, 2);
	return 0;
}

int yamlio_emit(yaml_emitter_t *em, yaml_event_t *ev, int ok)
{
	if (!ok) {
		/* libyaml refuses to make an event only for a string that is not
		 * UTF-8 (or out of memory), and says nothing: say it for it */
		em->error = YAML_EMITTER_ERROR;
		em->problem = "a string is not valid UTF-8";
		return -1;
	}
	if (!yaml_emitter_emit(em, ev))
		return -1;
	return 0;
}

int yamlio_emitter_end(yaml_emitter_t *em, int ret, const char *what)
{
	if (ret)
		error("cannot write %s as YAML: %s", what, em->problem ? em->problem : "unknown problem");
	yaml_emitter_delete(em);
	return ret;
}

int yamlio_doc_start(yaml_emitter_t *em)
{
	yaml_event_t ev;

	if (yamlio_emit(em, &ev, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING)) ||
	    yamlio_emit(em, &ev, yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1)))
		return -1;
	return 0;
}

int yamlio_doc_end(yaml_emitter_t *em)
{
	yaml_event_t ev;

	if (yamlio_emit(em, &ev, yaml_document_end_event_initialize(&ev, 1)) ||
	    yamlio_emit(em, &ev, yaml_stream_end_event_initialize(&ev)) ||
	    !yaml_emitter_flush(em))
		return -1;
	return 0;
}

int yamlio_scalar(yaml_emitter_t *em, const char *s, yaml_scalar_style_t style)
{
	yaml_event_t ev;

	return yamlio_emit(em, &ev, yaml_scalar_event_initialize(&ev, NULL, NULL,
			(yaml_char_t *)s, (int)strlen(s), 1, 1, style));
}

int yamlio_plain(yaml_emitter_t *em, const char *s)
{
	return yamlio_scalar(em, s, YAML_PLAIN_SCALAR_STYLE);
}

int yamlio_str(yaml_emitter_t *em, const char *s)
{
	if (!s)
		return yamlio_plain(em, "null");
	return yamlio_scalar(em, s, yscalar_resolve(s) == YSCALAR_STR ?
				 YAML_ANY_SCALAR_STYLE : YAML_SINGLE_QUOTED_SCALAR_STYLE);
}

int yamlio_long(yaml_emitter_t *em, long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", v);
	return yamlio_plain(em, buf);
}

int yamlio_map_start(yaml_emitter_t *em, bool flow)
{
	yaml_event_t ev;

	return yamlio_emit(em, &ev, yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
			flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE));
}

int yamlio_map_end(yaml_emitter_t *em)
{
	yaml_event_t ev;

	return yamlio_emit(em, &ev, yaml_mapping_end_event_initialize(&ev));
}

int yamlio_seq_start(yaml_emitter_t *em, bool flow)
{
	yaml_event_t ev;

	return yamlio_emit(em, &ev, yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
			flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE));
}

int yamlio_seq_end(yaml_emitter_t *em)
{
	yaml_event_t ev;

	return yamlio_emit(em, &ev, yaml_sequence_end_event_initialize(&ev));
}

/* ---- reading ---- */

enum yscalar_type ynode_type(const struct ynode *n)
{
	return n->plain ? yscalar_resolve(n->value) : YSCALAR_STR;
}

bool ynode_is_null(const struct ynode *n)
{
	return n->kind == YNODE_SCALAR && ynode_type(n) == YSCALAR_NULL;
}

const char *ynode_kind_name(const struct ynode *n)
{
	switch (n->kind) {
	case YNODE_SEQ: return "a list";
	case YNODE_MAP: return "a mapping";
	default: return "a scalar";
	}
}

const struct ynode *ynode_get(const struct ynode *m, const char *key)
{
	for (size_t i = 0; i + 1 < m->nr; i += 2)
		if (!strcmp(m->kids[i]->value, key))
			return m->kids[i + 1];
	return NULL;
}

int yamlio_type_error(const char *name, const struct ynode *n, const char *what,
		      const char *want)
{
	if (n->kind == YNODE_SCALAR)
		return error_at(name, n->line, n->col, "%s must be %s, not '%s'", what, want,
				n->value);
	return error_at(name, n->line, n->col, "%s must be %s, not %s", what, want,
			ynode_kind_name(n));
}

void yamlio_position(const char *buf, size_t off, long *line, long *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		if (buf[i] == '\n') {
			++*line;
			*col = 1;
		} else if (((unsigned char)buf[i] & 0xC0) != 0x80) {
			++*col;
		}
	}
}

/* Report the parser's error in the wording 'r' asks for. */
static void parse_error(const yaml_parser_t *ps, const char *buf, size_t len, const char *name,
			const struct yamlio_rules *r)
{
	const char *problem = ps->problem ? ps->problem : "unknown problem";

	if (ps->error == YAML_READER_ERROR && !r->detail) {
		error_at(name, 0, 0, "%s at byte %zu", ps->problem ? ps->problem : "unreadable input",
			 ps->problem_offset);
	} else if (ps->error == YAML_READER_ERROR) {
		long l, c;
		yamlio_position(buf, ps->problem_offset < len ? ps->problem_offset : len, &l, &c);
		error_at(name, l, c, "%s (byte 0x%02x)",
			 ps->problem ? ps->problem : "unreadable input",
			 (unsigned)ps->problem_value & 0xff);
	} else if (ps->context && r->detail) {
		error_at(name, (long)ps->problem_mark.line + 1, (long)ps->problem_mark.column + 1,
			 "YAML syntax error: %s (%s started at %ld:%ld)", problem, ps->context,
			 (long)ps->context_mark.line + 1, (long)ps->context_mark.column + 1);
	} else {
		error_at(name, (long)ps->problem_mark.line + 1, (long)ps->problem_mark.column + 1,
			 "YAML syntax error: %s", problem);
	}
}

/*
 * Check the anchor and tag of a scalar or collection start event; return 0
 * or -1 after reporting at 'line':'col'.
 */
static int check_props(const yaml_event_t *ev, const char *name, long line, long col,
		       const struct yamlio_rules *r)
{
	const char *anchor, *tag, *want;

	if (ev->type == YAML_SCALAR_EVENT) {
		anchor = (const char *)ev->data.scalar.anchor;
		tag = (const char *)ev->data.scalar.tag;
		want = YAML_STR_TAG;
	} else if (ev->type == YAML_SEQUENCE_START_EVENT) {
		anchor = (const char *)ev->data.sequence_start.anchor;
		tag = (const char *)ev->data.sequence_start.tag;
		want = YAML_SEQ_TAG;
	} else {
		anchor = (const char *)ev->data.mapping_start.anchor;
		tag = (const char *)ev->data.mapping_start.tag;
		want = YAML_MAP_TAG;
	}
	if (anchor && r->detail)
		return error_at(name, line, col, "YAML anchor '&%s' not supported in a %s", anchor,
				r->file);
	if (tag && strcmp(tag, "!") && strcmp(tag, want) && r->detail)
		return error_at(name, line, col, "YAML tag '%s' not supported in a %s", tag,
				r->file);
	if (anchor || (tag && strcmp(tag, "!") && strcmp(tag, want)))
		return error_at(name, line, col, "YAML %s not supported in a %s",
				anchor ? "anchor" : "tag", r->file);
	return 0;
}

/* Make the node of a scalar or collection start event; NULL after reporting. */
static struct ynode *new_node(const yaml_event_t *ev, const char *name, long line, long col,
			      const struct yamlio_rules *r, struct mempool *pool)
{
	struct ynode *n;

	if (ev->type == YAML_SCALAR_EVENT && r->max_scalar &&
	    ev->data.scalar.length > r->max_scalar) {
		error_at(name, line, col, "scalar longer than the limit of %zu bytes (%zu bytes)",
			 r->max_scalar, ev->data.scalar.length);
		return NULL;
	}
	n = mempool_bump(pool, sizeof(*n), _Alignof(struct ynode));
	memset(n, 0, sizeof(*n));
	n->line = line;
	n->col = col;
	if (ev->type != YAML_SCALAR_EVENT) {
		n->kind = ev->type == YAML_SEQUENCE_START_EVENT ? YNODE_SEQ : YNODE_MAP;
		return n;
	}
	n->kind = YNODE_SCALAR;
	/* strings are C strings everywhere: "\0" would silently cut the text */
	if (memchr(ev->data.scalar.value, '\0', ev->data.scalar.length)) {
		error_at(name, line, col, "NUL byte in a %s", r->file);
		return NULL;
	}
	n->value = mempool_strndup(pool, (const char *)ev->data.scalar.value, ev->data.scalar.length);
	n->plain = !ev->data.scalar.tag && ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	return n;
}

int yamlio_parse_tree(const char *buf, size_t len, const char *name,
		      const struct yamlio_rules *r, struct mempool *pool,
		      struct ynode **root)
{
	if (yamlfast_parse(buf, len, r, pool, root))
		return 0;
	return yamlio_parse_events(buf, len, name, r, pool, root);
}

int yamlio_parse_events(const char *buf, size_t len, const char *name,
			const struct yamlio_rules *r, struct mempool *pool,
			struct ynode **root)
{
	yaml_parser_t ps;
	yaml_event_t ev;
	struct ynode **stack = xcalloc((size_t)r->max_depth + 2, sizeof(*stack));
	int depth = 0, docs = 0, ret = -1;
	bool done = false;

	*root = NULL;
	if (!yaml_parser_initialize(&ps)) {
		free(stack);
		return error("cannot initialise the YAML parser");
	}
	yaml_parser_set_input_string(&ps, (const unsigned char *)buf, len);
	while (!done) {
		struct ynode *n;
		long line, col;
		int bad = 0;

		if (!yaml_parser_parse(&ps, &ev)) {
			parse_error(&ps, buf, len, name, r);
			goto out;
		}
		line = (long)ev.start_mark.line + 1;
		col = (long)ev.start_mark.column + 1;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++docs > 1)
				bad = error_at(name, line, col, "more than one YAML document in a %s",
					       r->file);
			break;
		case YAML_ALIAS_EVENT:
			if (r->detail)
				bad = error_at(name, line, col, "YAML alias '*%s' not supported in a %s",
					       (const char *)ev.data.alias.anchor, r->file);
			else
				bad = error_at(name, line, col, "YAML alias not supported in a %s",
					       r->file);
			break;
		case YAML_SCALAR_EVENT:
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (check_props(&ev, name, line, col, r) < 0 ||
			    !(n = new_node(&ev, name, line, col, r, pool))) {
				bad = -1;
				break;
			}
			if (!depth) {
				*root = n;
			} else {
				struct ynode *up = stack[depth - 1];

				if (up->nr == up->alloc) {
					size_t more = up->alloc ? 2 * (size_t)up->alloc : 4;

					if (more > UINT32_MAX) {  /* a node counts its items in 32 bits */
						bad = error_at(name, line, col, "more than %u items in one %s",
							       (unsigned)up->alloc, up->kind == YNODE_SEQ ?
							       "list" : "mapping");
						break;
					}
					up->kids = mempool_realloc(pool, up->kids,
								   up->alloc * sizeof(*up->kids),
								   more * sizeof(*up->kids));
					up->alloc = (uint32_t)more;
				}
				up->kids[up->nr++] = n;
			}
			if (n->kind == YNODE_SCALAR)
				break;
			if (depth >= r->max_depth) {
				bad = error_at(name, line, col, r->detail ?
					       "nesting deeper than the limit of %d levels" :
					       "nesting deeper than %d levels", r->max_depth);
				break;
			}
			stack[depth++] = n;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
		if (bad)
			goto out;
	}
	ret = 0;
out:
	yaml_parser_delete(&ps);
	free(stack);
	if (ret)
		*root = NULL;  /* its blocks stay in 'pool' until the caller clears it */
	return ret;
}
