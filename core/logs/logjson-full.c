/*
 * logjson-full: the strict JSON parser of logs/logjson.c (RFC 8259: no
 * trailing commas, no comments, no bare control characters in strings). It
 * decodes strings in place in the line (an unescaped string never grows, so
 * values are slices of the line) and says what is wrong with a malformed
 * line. Every verdict on a malformed line comes from here.
 */
#include "logs/logjson-internal.h"

#include "base/utf8.h"
#include "base/util.h"

#include <stdint.h>
#include <string.h>

struct jparse {
	struct log_reader *r;
	char *line, *p, *end;  /* the line, where the parse is, its end */
	int depth;
	const char *why;
};

static long new_node(struct log_reader *r, enum jtype t)
{
	ALLOC_GROW(r->nodes, r->nr_nodes + 1, r->alloc_nodes);
	struct jnode *n = &r->nodes[r->nr_nodes];
	n->type = t;
	n->key = n->val = NULL;
	n->key_len = n->val_len = 0;
	n->child = n->next = -1;
	return (long)r->nr_nodes++;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

static int read_hex4(struct jparse *jp, unsigned *out)
{
	unsigned v = 0;
	if (jp->end - jp->p < 4)
		return -1;
	for (int k = 0; k < 4; k++) {
		int h = hexval((unsigned char)jp->p[k]);
		if (h < 0)
			return -1;
		v = v * 16 + (unsigned)h;
	}
	jp->p += 4;
	*out = v;
	return 0;
}

static void skip_ws(struct jparse *jp)
{
	jp->p = skip_blank(jp->p, jp->end);
}

/* Parse the string at jp->p (on the opening quote), decoding it in place. */
static int jstring(struct jparse *jp, const char **s, size_t *len)
{
	char *w, *start;

	jp->p++;
	start = w = jp->p;
	jp->p = scan_plain(jp->p, jp->end, jp->line);  /* the run without escapes */
	w = jp->p;
	while (jp->p < jp->end) {
		unsigned char c = (unsigned char)*jp->p;
		if (c == '"') {
			*s = start;
			*len = (size_t)(w - start);
			jp->p++;
			return 0;
		}
		if (c < 0x20) {
			jp->why = "control character in a JSON string";
			return -1;
		}
		if (c != '\\') {
			*w++ = (char)c;
			jp->p++;
			continue;
		}
		jp->p++;
		if (jp->p >= jp->end)
			break;
		c = (unsigned char)*jp->p++;
		switch (c) {
		case '"': *w++ = '"'; break;
		case '\\': *w++ = '\\'; break;
		case '/': *w++ = '/'; break;
		case 'b': *w++ = '\b'; break;
		case 'f': *w++ = '\f'; break;
		case 'n': *w++ = '\n'; break;
		case 'r': *w++ = '\r'; break;
		case 't': *w++ = '\t'; break;
		case 'u': {
			unsigned cp, lo;
			if (read_hex4(jp, &cp)) {
				jp->why = "bad \\u escape in a JSON string";
				return -1;
			}
			if (cp >= 0xD800 && cp <= 0xDBFF && jp->end - jp->p >= 6 && jp->p[0] == '\\' &&
			    jp->p[1] == 'u') {
				char *save = jp->p;
				jp->p += 2;
				if (!read_hex4(jp, &lo) && lo >= 0xDC00 && lo <= 0xDFFF)
					cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				else
					jp->p = save;
			}
			if (cp >= 0xD800 && cp <= 0xDFFF)
				cp = 0xFFFD;  /* a lone surrogate */
			w += utf8_encode(cp, w);
			break;
		}
		default:
			jp->why = "bad escape in a JSON string";
			return -1;
		}
	}
	jp->why = "unterminated JSON string";
	return -1;
}

static int jnumber(struct jparse *jp)
{
	char *p = scan_number(jp->p, jp->end);

	if (!p)
		return -1;
	jp->p = p;
	return 0;
}

/* Append node 'child' to the children of 'self' after '*last' (-1: none yet). */
static void link_child(struct log_reader *r, long self, long *last, long child)
{
	if (*last < 0)
		r->nodes[self].child = child;
	else
		r->nodes[*last].next = child;
	*last = child;
}

static long jvalue(struct jparse *jp);

static long jcontainer(struct jparse *jp, int is_obj)
{
	long self = new_node(jp->r, is_obj ? J_OBJ : J_ARR), last = -1;
	char close = is_obj ? '}' : ']';

	if (++jp->depth > LOG_MAX_DEPTH) {
		jp->why = "JSON nested too deeply";
		return -1;
	}
	jp->p++;
	skip_ws(jp);
	if (jp->p < jp->end && *jp->p == close) {
		jp->p++;
		jp->depth--;
		return self;
	}
	for (;;) {
		const char *key = NULL;
		size_t key_len = 0;
		long child;

		skip_ws(jp);
		if (is_obj) {
			if (jp->p >= jp->end || *jp->p != '"') {
				jp->why = "expected a key in a JSON object";
				return -1;
			}
			if (jstring(jp, &key, &key_len))
				return -1;
			skip_ws(jp);
			if (jp->p >= jp->end || *jp->p != ':') {
				jp->why = "expected ':' in a JSON object";
				return -1;
			}
			jp->p++;
		}
		child = jvalue(jp);
		if (child < 0)
			return -1;
		jp->r->nodes[child].key = key;
		jp->r->nodes[child].key_len = key_len;
		link_child(jp->r, self, &last, child);
		skip_ws(jp);
		if (jp->p < jp->end && *jp->p == ',') {
			jp->p++;
			continue;
		}
		if (jp->p < jp->end && *jp->p == close) {
			jp->p++;
			jp->depth--;
			return self;
		}
		jp->why = is_obj ? "expected ',' or '}' in a JSON object" : "expected ',' or ']' in a JSON array";
		return -1;
	}
}

static long jvalue(struct jparse *jp)
{
	long n;
	char *start;

	skip_ws(jp);
	if (jp->p >= jp->end) {
		jp->why = "unexpected end of JSON";
		return -1;
	}
	start = jp->p;
	switch (*jp->p) {
	case '{':
		return jcontainer(jp, 1);
	case '[':
		return jcontainer(jp, 0);
	case '"': {
		const char *s;
		size_t len;
		if (jstring(jp, &s, &len))
			return -1;
		n = new_node(jp->r, J_STR);
		jp->r->nodes[n].val = s;
		jp->r->nodes[n].val_len = len;
		return n;
	}
	case 't':
	case 'f':
	case 'n': {
		static const char *const lit[] = { "true", "false", "null" };
		static const enum jtype types[] = { J_TRUE, J_FALSE, J_NULL };
		for (int k = 0; k < 3; k++) {
			size_t l = strlen(lit[k]);
			if ((size_t)(jp->end - jp->p) >= l && !memcmp(jp->p, lit[k], l)) {
				jp->p += l;
				n = new_node(jp->r, types[k]);
				jp->r->nodes[n].val = lit[k];
				jp->r->nodes[n].val_len = l;
				return n;
			}
		}
		break;
	}
	default:
		if (!jnumber(jp)) {
			n = new_node(jp->r, J_NUM);
			jp->r->nodes[n].val = start;
			jp->r->nodes[n].val_len = (size_t)(jp->p - start);
			return n;
		}
	}
	jp->why = "invalid JSON value";
	return -1;
}

/* Parse one line with the full parser. Return 0, 1 for a blank line, -1 (r->why). */
int log_json_parse_full(struct log_reader *r, char *line, size_t len)
{
	struct jparse jp = { r, line, line, line + len, 0, NULL };
	long root;

	r->nr_nodes = 0;
	skip_ws(&jp);
	if (jp.p == jp.end)
		return 1;
	if (*jp.p != '{') {
		r->why = "not a JSON object";
		return -1;
	}
	root = jvalue(&jp);
	if (root < 0) {
		r->why = jp.why ? jp.why : "invalid JSON";
		return -1;
	}
	skip_ws(&jp);
	if (jp.p != jp.end) {
		r->why = "text after the JSON object";
		return -1;
	}
	return 0;
}
