/*
 * yamlfast: the block YAML evalset writes, read without libyaml (contract
 * in yamlfast.h).
 *
 * A recursive descent over lines. A function declines by returning NULL
 * or -1, and so do its callers; nothing is reported. Columns are 1-based and count UTF-8
 * characters, as libyaml's marks do. Where libyaml puts a node:
 *  - a scalar: its first character (the quote of a quoted one);
 *  - a block mapping: its first key;
 *  - a block sequence, also one at its key's indentation: its first '-';
 *  - a flow sequence or mapping: its '[' or '{'.
 */
#include "base/yamlfast.h"
#include "base/utf8.h"
#include "base/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct fast {
	const char *end;    /* the end of the text */
	const struct yamlio_rules *r;
	struct mempool *pool;
	const char *line;   /* the current line's first byte */
	const char *eol;    /* its '\n', or 'end' */
	long lineno;        /* 1-based */
	int ind;            /* its indentation in spaces; -1 at the end of the text */
	int depth;          /* collections open */
	char *tmp;          /* a quoted scalar's text being unescaped */
	size_t tmp_cap;
};

/* Return the length of the UTF-8 character at 'p' (before 'end') when
 * libyaml reads it as a printable character and no line break, else 0:
 * not a control character (U+0085 is a line break too), U+2028, U+2029,
 * U+FEFF, U+FFFE or U+FFFF. */
static size_t printable_char(const char *p, const char *end)
{
	uint32_t c;
	size_t n = utf8_decode(p, (size_t)(end - p), &c);

	if (!n || c < 0x20 || (c >= 0x7F && c < 0xA0))
		return 0;
	if (c == 0x2028 || c == 0x2029 || c == 0xFEFF || c == 0xFFFE || c == 0xFFFF)
		return 0;
	return n;
}

/* Move to the next line with content after 'from' (the start of a line),
 * past blank lines and lines that hold only a comment: set line, eol, ind;
 * ind -1 at the end. Decline a tab in the indentation, a document marker
 * and a directive. */
static int load_line(struct fast *f, const char *from)
{
	const char *p = from;

	for (;;) {
		const char *q = p, *nl;

		if (p >= f->end) {
			f->line = f->eol = f->end;
			f->ind = -1;
			return 0;
		}
		nl = memchr(p, '\n', (size_t)(f->end - p));
		if (!nl)
			nl = f->end;
		while (q < nl && *q == ' ')
			q++;
		if (q < nl && *q == '#') {
			/* a comment alone on its line: libyaml ends it at any line
			 * break (also CR, U+0085, U+2028, U+2029) and refuses control
			 * characters in it */
			size_t n;

			for (q++; q < nl; q += n)
				if (!(n = printable_char(q, nl)))
					return -1;
		}
		if (q == nl) {  /* blank, or a comment alone on its line */
			p = nl + 1;
			f->lineno++;
			continue;
		}
		if (*q == '\t' || *q == '\r')
			return -1;
		if (q == p && (*q == '%' || (nl - q >= 3 && (!memcmp(q, "---", 3) || !memcmp(q, "...", 3)))))
			return -1;
		if (q - p > 1000000)
			return -1;
		f->line = p;
		f->eol = nl;
		f->ind = (int)(q - p);
		return 0;
	}
}

/* Go on to the line after the current one. */
static int next_line(struct fast *f)
{
	if (f->eol >= f->end) {
		f->line = f->eol = f->end;
		f->ind = -1;
		return 0;
	}
	f->lineno++;
	return load_line(f, f->eol + 1);
}

static long column(const struct fast *f, const char *at)
{
	return 1 + (long)utf8_chars(f->line, (size_t)(at - f->line));
}

static struct ynode *new_node(struct fast *f, unsigned char kind, const char *at)
{
	struct ynode *n = mempool_bump(f->pool, sizeof(*n), _Alignof(struct ynode));

	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->line = f->lineno;
	n->col = column(f, at);
	return n;
}

/* Open a collection node at 'at'; NULL past the depth limit. */
static struct ynode *open_node(struct fast *f, unsigned char kind, const char *at)
{
	if (f->depth >= f->r->max_depth)
		return NULL;
	f->depth++;
	return new_node(f, kind, at);
}

static int add_kid(struct fast *f, struct ynode *up, struct ynode *n)
{
	if (up->nr == up->alloc) {
		size_t more = up->alloc ? 2 * (size_t)up->alloc : 4;

		if (more > UINT32_MAX)
			return -1;
		up->kids = mempool_realloc(f->pool, up->kids, up->alloc * sizeof(*up->kids),
					   more * sizeof(*up->kids));
		up->alloc = (uint32_t)more;
	}
	up->kids[up->nr++] = n;
	return 0;
}

/* Make the scalar node of the 'len' bytes at 's', found at 'at'. */
static struct ynode *scalar(struct fast *f, const char *at, const char *s, size_t len, bool plain)
{
	struct ynode *n;

	if (f->r->max_scalar && len > f->r->max_scalar)
		return NULL;
	if (memchr(s, '\0', len))
		return NULL;
	n = new_node(f, YNODE_SCALAR, at);
	n->value = mempool_strndup(f->pool, s, len);
	n->plain = plain;
	return n;
}

/*
 * Read the plain scalar at '*pp'; 'flow' inside a flow collection, where
 * it ends at ',', ']' or '}'. Decline what might be anything but a plain scalar of
 * one line: an indicator first, ": " or " #" inside, a ':' at its end.
 */
static struct ynode *plain(struct fast *f, const char **pp, bool flow)
{
	const char *s = *pp, *p = s, *e;

	if (strchr("?:,[]{}#&*!|>'\"%@`", *s))
		return NULL;
	if (*s == '-' && (s + 1 == f->eol || s[1] == ' '))
		return NULL;
	while (p < f->eol) {
		size_t n;

		if (flow && (*p == ',' || *p == ']' || *p == '}'))
			break;
		if (*p == ':' && (flow || p + 1 == f->eol || p[1] == ' '))
			return NULL;
		if (*p == '#' && p[-1] == ' ')
			return NULL;
		if (flow && (*p == '[' || *p == '{'))
			return NULL;
		if (!(n = printable_char(p, f->eol)))
			return NULL;
		p += n;
	}
	for (e = p; e > s && e[-1] == ' '; e--)
		;
	if (e == s)
		return NULL;
	*pp = p;
	return scalar(f, s, s, (size_t)(e - s), true);
}

static void tmp_add(struct fast *f, size_t *len, const char *s, size_t n)
{
	if (*len + n > f->tmp_cap) {
		f->tmp_cap = 2 * (*len + n) + 64;
		f->tmp = xrealloc(f->tmp, f->tmp_cap);
	}
	memcpy(f->tmp + *len, s, n);
	*len += n;
}

/* Append code point 'u' as UTF-8; -1 for U+0000, a surrogate or past U+10FFFF. */
static int tmp_utf8(struct fast *f, size_t *len, unsigned long u)
{
	char b[4];

	if (!u || (u >= 0xD800 && u <= 0xDFFF) || u > 0x10FFFF)
		return -1;
	tmp_add(f, len, b, utf8_encode((uint32_t)u, b));
	return 0;
}

static int hex_value(const char *p, int digits, unsigned long *out)
{
	unsigned long v = 0;

	for (int i = 0; i < digits; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned long)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned long)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned long)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

/* Read the quoted scalar at '*pp' (its quote), closed on the same line. */
static struct ynode *quoted(struct fast *f, const char **pp)
{
	const char *s = *pp, *p = s + 1;
	char q = *s;
	size_t len = 0;

	for (;;) {
		size_t n;

		if (p >= f->eol)
			return NULL;
		if (*p == q) {
			if (q == '\'' && p + 1 < f->eol && p[1] == '\'') {
				tmp_add(f, &len, "'", 1);
				p += 2;
				continue;
			}
			break;
		}
		if (q == '"' && *p == '\\') {
			static const char plain_esc[] = "\\\"/abefnrtv N_LP";
			static const char *const plain_val[] = {
				"\\", "\"", "/", "\a", "\b", "\x1b", "\f", "\n", "\r", "\t",
				"\v", " ", "\xc2\x85", "\xc2\xa0", "\xe2\x80\xa8", "\xe2\x80\xa9"
			};
			const char *e;
			unsigned long u;
			int digits;

			if (p + 1 >= f->eol)
				return NULL;
			if ((e = strchr(plain_esc, p[1])) && p[1]) {
				const char *v = plain_val[e - plain_esc];

				tmp_add(f, &len, v, strlen(v));
				p += 2;
				continue;
			}
			digits = p[1] == 'x' ? 2 : p[1] == 'u' ? 4 : p[1] == 'U' ? 8 : 0;
			if (!digits || f->eol - (p + 2) < digits || hex_value(p + 2, digits, &u) < 0 ||
			    tmp_utf8(f, &len, u) < 0)
				return NULL;
			p += 2 + digits;
			continue;
		}
		if (!(n = printable_char(p, f->eol)))
			return NULL;
		tmp_add(f, &len, p, n);
		p += n;
	}
	*pp = p + 1;
	return scalar(f, s, f->tmp ? f->tmp : "", len, false);
}

static struct ynode *flow_scalar(struct fast *f, const char **pp, bool flow)
{
	return **pp == '"' || **pp == '\'' ? quoted(f, pp) : plain(f, pp, flow);
}

static const char *skip_spaces(const struct fast *f, const char *p)
{
	while (p < f->eol && *p == ' ')
		p++;
	return p;
}

/*
 * Step '*pp' on in a flow collection closed by 'close': from its opening
 * bracket ('first') or after an item, past the spaces and the ',' to the
 * next item (return 0), or past 'close' (return 1). Return -1 to decline:
 * the line ends, or a ',' follows another or comes last.
 */
static int flow_step(const struct fast *f, const char **pp, char close, bool first)
{
	const char *p = skip_spaces(f, *pp + first);

	if (p >= f->eol)
		return -1;
	if (*p == close) {
		*pp = p + 1;
		return 1;
	}
	if (!first) {
		if (*p != ',')
			return -1;
		p = skip_spaces(f, p + 1);
		if (p >= f->eol || *p == close || *p == ',')
			return -1;
	}
	*pp = p;
	return 0;
}

static const char *key_end(const struct fast *f, const char *p);

/*
 * Read the flow collection at '*pp' (its '[' or '{'), on one line: a
 * sequence of scalars, or a mapping of simple keys and scalars.
 */
static struct ynode *flow(struct fast *f, const char **pp)
{
	bool is_map = **pp == '{';
	struct ynode *c = open_node(f, is_map ? YNODE_MAP : YNODE_SEQ, *pp);
	char close = is_map ? '}' : ']';
	int r;

	if (!c)
		return NULL;
	for (r = flow_step(f, pp, close, true); !r; r = flow_step(f, pp, close, false)) {
		struct ynode *n;

		if (is_map) {
			const char *k = *pp, *ke = key_end(f, k);

			if (!ke || !(n = scalar(f, k, k, (size_t)(ke - k), true)) || add_kid(f, c, n) < 0)
				return NULL;
			*pp = skip_spaces(f, ke + 1);
			if (*pp >= f->eol || **pp == ',' || **pp == '}')
				return NULL;
		}
		if (!(n = flow_scalar(f, pp, true)) || add_kid(f, c, n) < 0)
			return NULL;
	}
	if (r < 0)
		return NULL;
	f->depth--;
	return c;
}

/* Read the value at 'p' that takes the rest of the line, and go on to the next line. */
static struct ynode *inline_value(struct fast *f, const char *p)
{
	struct ynode *n;

	if (*p == '[' || *p == '{') {
		n = flow(f, &p);
	} else {
		n = flow_scalar(f, &p, false);
	}
	if (!n || skip_spaces(f, p) != f->eol || next_line(f) < 0)
		return NULL;
	return n;
}

/* Return the end of the simple key at 'p' (a word of letters, digits and
 * _-./ before ": " or ":" at the end of the line), or NULL. */
static const char *key_end(const struct fast *f, const char *p)
{
	const char *s = p;

	if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
	      *p == '_'))
		return NULL;
	while (p < f->eol && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			      (*p >= '0' && *p <= '9') || (*p && strchr("_-./", *p))))
		p++;
	if (p >= f->eol || *p != ':' || p - s > 1000)
		return NULL;
	if (p + 1 < f->eol && p[1] != ' ')
		return NULL;
	return p;
}

static struct ynode *block(struct fast *f, int ind);

static bool entry_at(const struct fast *f, const char *p)
{
	return *p == '-' && p + 1 < f->eol && p[1] == ' ';
}

/* Read the block sequence whose first '-' is at indentation 'ind' of the
 * current line; 'indentless' when it is a mapping value at its key's own
 * indentation (it then ends at a line of that indentation without '-'). */
static struct ynode *seq(struct fast *f, int ind, bool indentless)
{
	struct ynode *s = open_node(f, YNODE_SEQ, f->line + ind);

	if (!s)
		return NULL;
	for (;;) {
		const char *p = f->line + ind, *c;
		struct ynode *item;

		if (!entry_at(f, p))
			return NULL;
		c = skip_spaces(f, p + 1);
		if (c >= f->eol || *c == '-' || *c == '?')
			return NULL;
		if (key_end(f, c)) {
			int at = (int)(c - f->line);
			item = block(f, at);
		} else {
			item = inline_value(f, c);
		}
		if (!item || add_kid(f, s, item) < 0)
			return NULL;
		if (f->ind < ind)
			break;
		if (f->ind > ind)
			return NULL;
		if (!entry_at(f, f->line + ind)) {
			if (!indentless)
				return NULL;
			break;
		}
	}
	f->depth--;
	return s;
}

/* Read the block mapping whose first key is at column 'ind' of the current
 * line (after a sequence entry's "- ", or after its indentation). */
static struct ynode *map(struct fast *f, int ind)
{
	struct ynode *m = open_node(f, YNODE_MAP, f->line + ind);

	if (!m)
		return NULL;
	for (;;) {
		const char *k = f->line + ind, *ke = key_end(f, k), *p;
		struct ynode *key, *value;

		if (!ke || !(key = scalar(f, k, k, (size_t)(ke - k), true)) || add_kid(f, m, key) < 0)
			return NULL;
		p = skip_spaces(f, ke + 1);
		if (p < f->eol) {
			value = inline_value(f, p);
		} else {
			if (next_line(f) < 0 || f->ind < ind)
				return NULL;  /* an empty value */
			if (f->ind > ind)
				value = block(f, f->ind);
			else if (entry_at(f, f->line + ind))
				value = seq(f, ind, true);
			else
				return NULL;
		}
		if (!value || add_kid(f, m, value) < 0)
			return NULL;
		if (f->ind < ind)
			break;
		if (f->ind > ind)
			return NULL;
	}
	f->depth--;
	return m;
}

/* Read the collection at column 'ind' of the current line. */
static struct ynode *block(struct fast *f, int ind)
{
	const char *p = f->line + ind;

	if (entry_at(f, p))
		return seq(f, ind, false);
	if (key_end(f, p))
		return map(f, ind);
	return NULL;
}

int yamlfast_parse(const char *buf, size_t len, const struct yamlio_rules *r,
		   struct mempool *pool, struct ynode **root)
{
	struct fast f = { 0 };
	struct ynode *n = NULL;

	*root = NULL;
	f.end = buf + len;
	f.r = r;
	f.pool = pool;
	f.lineno = 1;
	if (r->max_depth >= 1 && load_line(&f, buf) == 0 && f.ind == 0)
		n = block(&f, 0);
	free(f.tmp);
	if (!n || f.ind != -1) {
		if (getenv("YF_DEBUG")) fprintf(stderr, "declined at line %ld\n", f.lineno);
		return 0;
	}
	*root = n;
	return 1;
}
