/*
 * logjson: JSON Lines records into the node arena of a log reader
 * (core/logjson.h): a one-pass scanner for flat objects, and the strict
 * full parser every other line (and every malformed one) goes to.
 *
 * The full parser is strict (RFC 8259: no trailing commas, no comments, no
 * bare control characters in strings) and decodes strings in place in the
 * stream buffer: an unescaped string never grows, so values are slices of
 * the line. Nodes live in an arena reused for every record; node 0 is the
 * object of the line.
 */
#include "logjson.h"

#include "util.h"

#include <stdint.h>
#include <string.h>

bool log_json_fast = true;

enum jtype { J_NULL, J_FALSE, J_TRUE, J_NUM, J_STR, J_ARR, J_OBJ };

struct jnode {
	enum jtype type;
	const char *key, *val;
	size_t key_len, val_len;
	long child, next;   /* indexes into the arena, -1: none */
};
struct jparse {
	struct log_reader *r;
	char *p, *end;
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

static void skip_ws(struct jparse *jp)
{
	while (jp->p < jp->end && (*jp->p == ' ' || *jp->p == '\t' || *jp->p == '\r' || *jp->p == '\n'))
		jp->p++;
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

static char *put_utf8(char *w, unsigned cp)
{
	if (cp < 0x80) {
		*w++ = (char)cp;
	} else if (cp < 0x800) {
		*w++ = (char)(0xC0 | (cp >> 6));
		*w++ = (char)(0x80 | (cp & 0x3F));
	} else if (cp < 0x10000) {
		*w++ = (char)(0xE0 | (cp >> 12));
		*w++ = (char)(0x80 | ((cp >> 6) & 0x3F));
		*w++ = (char)(0x80 | (cp & 0x3F));
	} else {
		*w++ = (char)(0xF0 | (cp >> 18));
		*w++ = (char)(0x80 | ((cp >> 12) & 0x3F));
		*w++ = (char)(0x80 | ((cp >> 6) & 0x3F));
		*w++ = (char)(0x80 | (cp & 0x3F));
	}
	return w;
}

/* Parse the string at jp->p (on the opening quote), decoding it in place. */
static int jstring(struct jparse *jp, const char **s, size_t *len)
{
	char *w, *start;

	jp->p++;
	start = w = jp->p;
	/* fast path: no escapes */
	while (jp->p < jp->end && *jp->p != '"' && *jp->p != '\\' && (unsigned char)*jp->p >= 0x20)
		jp->p++;
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
			w = put_utf8(w, cp);
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
	char *p = jp->p;
	const char *e = jp->end;
#define DIGIT(c) ((c) >= '0' && (c) <= '9')
	if (p < e && *p == '-')
		p++;
	if (p < e && *p == '0')
		p++;
	else if (p < e && DIGIT(*p))
		while (p < e && DIGIT(*p))
			p++;
	else
		return -1;
	if (p < e && *p == '.') {
		p++;
		if (!(p < e && DIGIT(*p)))
			return -1;
		while (p < e && DIGIT(*p))
			p++;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < e && (*p == '+' || *p == '-'))
			p++;
		if (!(p < e && DIGIT(*p)))
			return -1;
		while (p < e && DIGIT(*p))
			p++;
	}
#undef DIGIT
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
static int parse_full(struct log_reader *r, char *line, size_t len)
{
	struct jparse jp = { r, line, line + len, 0, NULL };
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

static void jget(const struct log_reader *r, long idx, const struct log_path *p, size_t k,
		 struct log_values *out)
{
	const struct jnode *n = &r->nodes[idx];

	if (n->type == J_ARR) {
		for (long c = n->child; c >= 0; c = r->nodes[c].next)
			jget(r, c, p, k, out);
		return;
	}
	if (k == p->nr) {
		if (n->type != J_OBJ && n->type != J_NULL)
			log_values_push(out, n->val, n->val_len);
		return;
	}
	if (n->type != J_OBJ)
		return;
	size_t want = p->lens[k];
	for (long c = n->child; c >= 0; c = r->nodes[c].next) {
		const struct jnode *ch = &r->nodes[c];
		if (ch->key_len == want && !memcmp(ch->key, p->parts[k], want)) {
			jget(r, c, p, k + 1, out);
			return;
		}
	}
}

/* ---- the flat fast path: gives up (-1) on anything but a flat object ---- */

/* Scan a string without escapes at jp->p (on the quote). Return 0, or -1 to give up. */
static int flat_string(struct jparse *jp, const char **s, size_t *len)
{
	char *p = jp->p + 1;

	*s = p;
	while (p < jp->end && *p != '"') {
		if (*p == '\\' || (unsigned char)*p < 0x20)
			return -1;
		p++;
	}
	if (p == jp->end)
		return -1;
	*len = (size_t)(p - *s);
	jp->p = p + 1;
	return 0;
}

/* Scan the scalar at jp->p (not at the end) into a new node. Return its index, or -1. */
static long flat_scalar(struct jparse *jp)
{
	static const char *const lit[] = { "true", "false", "null" };
	static const enum jtype types[] = { J_TRUE, J_FALSE, J_NULL };
	char *start = jp->p;
	const char *s = start;
	size_t len;
	enum jtype t = J_NUM;
	long n;

	if (*jp->p == '"') {
		if (flat_string(jp, &s, &len))
			return -1;
		t = J_STR;
	} else if (*jp->p == 't' || *jp->p == 'f' || *jp->p == 'n') {
		int k = *jp->p == 't' ? 0 : *jp->p == 'f' ? 1 : 2;
		len = strlen(lit[k]);
		if ((size_t)(jp->end - jp->p) < len || memcmp(jp->p, lit[k], len))
			return -1;
		jp->p += len;
		s = lit[k];
		t = types[k];
	} else {
		if (*jp->p == '{' || *jp->p == '[' || jnumber(jp))
			return -1;
		len = (size_t)(jp->p - start);
	}
	n = new_node(jp->r, t);
	jp->r->nodes[n].val = s;
	jp->r->nodes[n].val_len = len;
	return n;
}

/* Scan a list of scalars at jp->p (on the bracket). Return its node, or -1. */
static long flat_array(struct jparse *jp)
{
	long self = new_node(jp->r, J_ARR), last = -1, child;

	jp->p++;
	skip_ws(jp);
	if (jp->p < jp->end && *jp->p == ']') {
		jp->p++;
		return self;
	}
	for (;;) {
		skip_ws(jp);
		if (jp->p >= jp->end || (child = flat_scalar(jp)) < 0)
			return -1;
		link_child(jp->r, self, &last, child);
		skip_ws(jp);
		if (jp->p < jp->end && *jp->p == ',') {
			jp->p++;
		} else if (jp->p < jp->end && *jp->p == ']') {
			jp->p++;
			return self;
		} else {
			return -1;
		}
	}
}

/*
 * Scan a flat object into the arena, building the nodes the full parser
 * would, without touching the line. Return 0, or -1 to leave the line to
 * the full parser (blank, malformed, escapes, nesting).
 */
static int parse_flat(struct log_reader *r, char *line, size_t len)
{
	struct jparse jp = { r, line, line + len, 0, NULL };
	long last = -1, child;

	r->nr_nodes = 0;
	skip_ws(&jp);
	if (jp.p == jp.end || *jp.p != '{')
		return -1;
	new_node(r, J_OBJ);
	jp.p++;
	skip_ws(&jp);
	if (jp.p < jp.end && *jp.p == '}')
		jp.p++;
	else
		for (;;) {
			const char *key;
			size_t key_len;

			skip_ws(&jp);
			if (jp.p >= jp.end || *jp.p != '"' || flat_string(&jp, &key, &key_len))
				return -1;
			skip_ws(&jp);
			if (jp.p >= jp.end || *jp.p != ':')
				return -1;
			jp.p++;
			skip_ws(&jp);
			if (jp.p >= jp.end)
				return -1;
			child = *jp.p == '[' ? flat_array(&jp) : flat_scalar(&jp);
			if (child < 0)
				return -1;
			r->nodes[child].key = key;
			r->nodes[child].key_len = key_len;
			link_child(r, 0, &last, child);
			skip_ws(&jp);
			if (jp.p < jp.end && *jp.p == ',') {
				jp.p++;
				continue;
			}
			if (jp.p < jp.end && *jp.p == '}') {
				jp.p++;
				break;
			}
			return -1;
		}
	skip_ws(&jp);
	return jp.p == jp.end ? 0 : -1;
}

int log_json_parse(struct log_reader *r, char *line, size_t len)
{
	if (log_json_fast && !parse_flat(r, line, len))
		return 0;
	return parse_full(r, line, len);
}

void log_json_get(const struct log_reader *r, const struct log_path *p, struct log_values *out)
{
	if (r->nr_nodes)
		jget(r, 0, p, 0, out);
}
