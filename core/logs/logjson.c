/*
 * logjson: JSON Lines records into the node arena of a log reader
 * (core/logs/logjson.h): a one-pass scanner for flat objects, and the strict
 * full parser every other line (and every malformed one) goes to.
 *
 * The full parser is strict (RFC 8259: no trailing commas, no comments, no
 * bare control characters in strings) and decodes strings in place in the
 * stream buffer: an unescaped string never grows, so values are slices of
 * the line. Nodes live in an arena reused for every record; node 0 is the
 * object of the line, and the children of a node keep the order of the
 * line, so a lookup that takes the first matching key sees the first of
 * duplicate keys whichever parser ran.
 *
 * The flat scanner is the hot path of `evalset import` (one call per
 * record): it finds the end of a string 16 bytes at a time (SSE2; else 8,
 * in a word) and grows the arena only when a record has more nodes than
 * any before. It accepts exactly the lines whose nodes it can build as the
 * full parser would, and leaves every other line, unchanged, to the full
 * parser.
 *
 * Log records mostly repeat the keys of the record before, in the same
 * order. The reader keeps the top-level keys of the last flat record
 * (struct log_json_shape in logread.h): the scanner matches each key
 * against the remembered one before scanning it, and a lookup remembers,
 * per path, the position of the key it found. That memory holds while
 * every key of every record matches (a "generation"); then the first
 * matching key, which decides between duplicates, is at the same position.
 * Any other record starts a new generation, and a line the full parser
 * reads has none: its lookups walk the nodes.
 */
#include "logs/logjson.h"

#include "base/util.h"

#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

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

#define BYTES_1 0x0101010101010101ULL
#define BYTES_80 0x8080808080808080ULL

#ifdef __SSE2__
/* Return a bit for each of the 16 bytes at 'p' that ends a plain string run. */
static inline unsigned plain_stops(const char *p)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i ctl = _mm_set1_epi8(0x1f);
	__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
					      _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
				 _mm_cmpeq_epi8(_mm_max_epu8(v, ctl), ctl));  /* v <= 0x1f */

	return (unsigned)_mm_movemask_epi8(m);
}
#define STOP_BLOCK 16
#define STOP_INDEX(m) ((size_t)__builtin_ctzll(m))
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/*
 * Return 0x80 in each of the 8 bytes at 'p' that ends a plain string run.
 * In each of the three tests the lowest flagged byte is a true match (a
 * borrow only flags bytes above the one that caused it), so the lowest
 * flag of their union is the answer.
 */
static inline uint64_t plain_stops(const char *p)
{
	uint64_t w, q, b;

	memcpy(&w, p, 8);
	q = w ^ (BYTES_1 * '"');
	b = w ^ (BYTES_1 * '\\');
	return (((q - BYTES_1) & ~q) | ((b - BYTES_1) & ~b) | ((w - BYTES_1 * 0x20) & ~w)) & BYTES_80;
}
#define STOP_BLOCK 8
#define STOP_INDEX(m) ((size_t)__builtin_ctzll(m) >> 3)
#endif

/*
 * Return the first byte in ['p', 'end') that ends the plain run of a JSON
 * string (a quote, a backslash or a control character), or 'end'. A block
 * of bytes at a time where the machine allows. The last bytes of the line
 * ('line' is its first byte) are read with SSE2 as the last block of the
 * line, else through a block padded with NULs, which stop the run at 'end'
 * (the word tests would see borrows from bytes before 'p').
 */
static inline char *scan_plain(char *p, const char *end, const char *line)
{
#ifdef STOP_BLOCK
	char pad[STOP_BLOCK] = { 0 };
	unsigned long long m;
	size_t left;

	while (end - p >= STOP_BLOCK) {
		if ((m = plain_stops(p)))
			return p + STOP_INDEX(m);
		p += STOP_BLOCK;
	}
	left = (size_t)(end - p);
	if (!left)
		return p;
#if STOP_BLOCK == 16
	if (end - line >= STOP_BLOCK) {
		/* the block ending at 'end': drop the bits of the bytes before 'p' */
		m = plain_stops(end - STOP_BLOCK) >> (STOP_BLOCK - left);
		return m ? p + STOP_INDEX(m) : (char *)end;
	}
#else
	(void)line;
#endif
	memcpy(pad, p, left);
	return p + STOP_INDEX(plain_stops(pad));  /* at most 'left': pad[left] stops it */
#else
	(void)line;
	while (p < end && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
		p++;
	return p;
#endif
}

static inline bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Return the first byte at or after 'p' that is not JSON whitespace, or 'end'. */
static inline char *skip_blank(char *p, const char *end)
{
	while (p < end && is_ws(*p))
		p++;
	return p;
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

/* Return the end of the JSON number at 'p' (RFC 8259 grammar), or NULL if there is none. */
static inline char *scan_number(char *p, const char *e)
{
#define DIGIT(c) ((c) >= '0' && (c) <= '9')
	if (p < e && *p == '-')
		p++;
	if (p < e && *p == '0')
		p++;
	else if (p < e && DIGIT(*p))
		while (p < e && DIGIT(*p))
			p++;
	else
		return NULL;
	if (p < e && *p == '.') {
		p++;
		if (!(p < e && DIGIT(*p)))
			return NULL;
		while (p < e && DIGIT(*p))
			p++;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < e && (*p == '+' || *p == '-'))
			p++;
		if (!(p < e && DIGIT(*p)))
			return NULL;
		while (p < e && DIGIT(*p))
			p++;
	}
#undef DIGIT
	return p;
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
static int parse_full(struct log_reader *r, char *line, size_t len)
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

/* ---- lookup ---- */

/* Return true when node 'n' has the key 'part' of 'len' bytes. */
static inline bool has_key(const struct jnode *n, const char *part, size_t len)
{
	/* length first, then the first byte: a mismatch rarely reaches memcmp */
	return n->key_len == len && (!len || (n->key[0] == part[0] && !memcmp(n->key + 1, part + 1, len - 1)));
}

static inline void push_value(struct log_values *out, const char *s, size_t len)
{
	ALLOC_GROW(out->v, out->nr + 1, out->alloc);
	out->v[out->nr].s = s;
	out->v[out->nr].len = len;
	out->nr++;
}

/*
 * Append what components 'k'.. of 'p' select under node 'idx' to 'out': an
 * object goes on into the first child with the key, an array into every
 * element, and the end of the path takes a scalar.
 */
static void jget(const struct log_reader *r, long idx, const struct log_path *p, size_t k,
		 struct log_values *out)
{
	for (;;) {
		const struct jnode *n = &r->nodes[idx];
		long c;

		if (n->type == J_ARR) {
			for (c = n->child; c >= 0; c = r->nodes[c].next)
				jget(r, c, p, k, out);
			return;
		}
		if (k == p->nr) {
			if (n->type != J_OBJ && n->type != J_NULL)
				push_value(out, n->val, n->val_len);
			return;
		}
		if (n->type != J_OBJ)
			return;
		for (c = n->child; c >= 0 && !has_key(&r->nodes[c], p->parts[k], p->lens[k]);
		     c = r->nodes[c].next)
			;
		if (c < 0)
			return;
		idx = c;
		k++;
	}
}

/* ---- the flat fast path: gives up (-1) on anything but a flat object ---- */

static const char lit_true[] = "true", lit_false[] = "false", lit_null[] = "null";

/*
 * Scan the scalar at 'p' (before 'end', in the line starting at 'line')
 * into 'n' (type and value). Return the byte after it, or NULL to give up
 * (escapes, containers, bad syntax).
 */
static inline char *flat_scalar(char *p, const char *end, const char *line, struct jnode *n)
{
	char *q;

	switch (*p) {
	case '"':
		q = scan_plain(p + 1, end, line);
		if (q == end || *q != '"')
			return NULL;
		n->type = J_STR;
		n->val = p + 1;
		n->val_len = (size_t)(q - p - 1);
		return q + 1;
	case 't':
		if (end - p < 4 || memcmp(p, lit_true, 4))
			return NULL;
		n->type = J_TRUE;
		n->val = lit_true;
		n->val_len = 4;
		return p + 4;
	case 'f':
		if (end - p < 5 || memcmp(p, lit_false, 5))
			return NULL;
		n->type = J_FALSE;
		n->val = lit_false;
		n->val_len = 5;
		return p + 5;
	case 'n':
		if (end - p < 4 || memcmp(p, lit_null, 4))
			return NULL;
		n->type = J_NULL;
		n->val = lit_null;
		n->val_len = 4;
		return p + 4;
	default:
		q = scan_number(p, end);  /* also refuses '{' and '[' */
		if (!q)
			return NULL;
		n->type = J_NUM;
		n->val = p;
		n->val_len = (size_t)(q - p);
		return q;
	}
}

/* Return the arena of 'r' with room for node 'nr'. */
static inline struct jnode *flat_room(struct log_reader *r, size_t nr)
{
	if (nr >= r->alloc_nodes)
		ALLOC_GROW(r->nodes, nr + 1, r->alloc_nodes);
	return r->nodes;
}

/* Start node 'nr' of the arena of 'r' with key 'key' ('len' bytes) and no links. */
static inline struct jnode *flat_node(struct log_reader *r, size_t nr, const char *key, size_t len)
{
	struct jnode *n = &flat_room(r, nr)[nr];

	n->key = key;
	n->key_len = len;
	n->child = n->next = -1;
	return n;
}

/*
 * Scan the list of scalars at 'p' (after the bracket) into the elements of
 * array node 'self', from node '*nr' on. Return the byte after the closing
 * bracket, or NULL to give up.
 */
static char *flat_array(struct log_reader *r, long self, size_t *nr, char *p, const char *end,
			const char *line)
{
	long last = -1;

	p = skip_blank(p, end);
	if (p < end && *p == ']')
		return p + 1;
	for (;;) {
		long idx = (long)*nr;

		if (p == end || !(p = flat_scalar(p, end, line, flat_node(r, *nr, NULL, 0))))
			return NULL;
		(*nr)++;
		if (last < 0)
			r->nodes[self].child = idx;
		else
			r->nodes[last].next = idx;
		last = idx;
		p = skip_blank(p, end);
		if (p < end && *p == ',')
			p = skip_blank(p + 1, end);
		else if (p < end && *p == ']')
			return p + 1;
		else
			return NULL;
	}
}

/*
 * Return true when the 'n' bytes at 'a' and 'b' are equal. With 'wide'
 * (both have 16 bytes readable) a short run is compared in one block.
 */
static inline bool same_bytes(const char *a, const char *b, size_t n, bool wide)
{
#ifdef __SSE2__
	if (wide && n <= 16) {
		__m128i va = _mm_loadu_si128((const __m128i *)(const void *)a);
		__m128i vb = _mm_loadu_si128((const __m128i *)(const void *)b);
		unsigned eq = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(va, vb));
		unsigned want = (1u << n) - 1;

		return (eq & want) == want;
	}
#else
	(void)wide;
#endif
	return !memcmp(a, b, n);
}

/*
 * Return the end of the key at 'key' (after its quote) when it is key 'k'
 * of the remembered shape 'sh', or NULL. Such a key needs no scan: its
 * bytes were checked plain in the record the shape was taken from. The
 * shape keeps each key with its closing quote, and 16 bytes of room after.
 */
static inline char *known_key(const struct log_json_shape *sh, size_t k, char *key, const char *end)
{
	size_t n = (size_t)(sh->off[k + 1] - sh->off[k]);  /* with the quote */

	if ((size_t)(end - key) >= n && same_bytes(key, sh->bytes + sh->off[k], n, end - key >= 16))
		return key + n - 1;
	return NULL;
}

/* Copy key 'k' ('len' bytes at 'key', then a quote) into 'sh'. Return false when it does not fit. */
static bool remember_key(struct log_json_shape *sh, size_t k, const char *key, size_t len)
{
	if (k >= LOG_JSON_KEYS || (size_t)(LOG_JSON_KEY_BYTES - 16 - sh->off[k]) <= len)
		return false;
	memcpy(sh->bytes + sh->off[k], key, len + 1);
	sh->off[k + 1] = (unsigned short)(sh->off[k] + len + 1);
	return true;
}

/*
 * Scan a flat object into the arena, building the nodes the full parser
 * would, without touching the line. Return 0, or -1 to leave the line to
 * the full parser (blank, malformed, escapes, nesting).
 *
 * Keys are first matched against the remembered shape, in order, and
 * scanned only from the first that differs; the shape keeps its generation
 * when every key matched, so lookups cached under it still hold.
 */
static int parse_flat(struct log_reader *r, char *line, size_t len)
{
	struct log_json_shape *sh = &r->json;
	unsigned long prev = sh->gen;
	bool same = prev != 0, fits = true;
	char *p = line;
	const char *end = line + len;
	size_t nr = 0, nkeys = 0;
	long last = -1;
	struct jnode *n;

	r->nr_nodes = 0;
	sh->gen = 0;  /* no shape until the line is read */
	sh->off[0] = 0;
	p = skip_blank(p, end);
	if (p == end || *p != '{')
		return -1;
	n = flat_node(r, nr++, NULL, 0);
	n->type = J_OBJ;
	n->val = NULL;
	n->val_len = 0;
	p = skip_blank(p + 1, end);
	if (p < end && *p == '}')
		p++;
	else
		for (;;) {
			char *key = p + 1, *q = NULL;
			long idx = (long)nr;

			if (p == end || *p != '"')
				return -1;
			if (same && !(nkeys < sh->nr && (q = known_key(sh, nkeys, key, end))))
				same = false;
			if (!q) {
				q = scan_plain(key, end, line);
				if (q == end || *q != '"')
					return -1;
				fits = fits && remember_key(sh, nkeys, key, (size_t)(q - key));
			}
			if (nkeys < LOG_JSON_KEYS)
				sh->kid[nkeys] = idx;
			nkeys++;
			p = skip_blank(q + 1, end);
			if (p == end || *p != ':')
				return -1;
			p = skip_blank(p + 1, end);
			if (p == end)
				return -1;
			n = flat_node(r, nr++, key, (size_t)(q - key));
			if (*p == '[') {
				n->type = J_ARR;
				n->val = NULL;
				n->val_len = 0;
				p = flat_array(r, idx, &nr, p + 1, end, line);
			} else {
				p = flat_scalar(p, end, line, n);
			}
			if (!p)
				return -1;
			if (last < 0)
				r->nodes[0].child = idx;
			else
				r->nodes[last].next = idx;
			last = idx;
			p = skip_blank(p, end);
			if (p < end && *p == ',') {
				p = skip_blank(p + 1, end);
				continue;
			}
			if (p < end && *p == '}') {
				p++;
				break;
			}
			return -1;
		}
	if (skip_blank(p, end) != end)
		return -1;
	r->nr_nodes = nr;
	if (same && nkeys == sh->nr) {
		sh->gen = prev;
	} else if (fits && nkeys <= LOG_JSON_KEYS) {
		sh->nr = nkeys;
		sh->gen = ++sh->last_gen ? sh->last_gen : ++sh->last_gen;  /* never 0 */
	}
	return 0;
}

int log_json_parse(struct log_reader *r, char *line, size_t len)
{
	if (log_json_fast && !parse_flat(r, line, len))
		return 0;
	r->json.gen = 0;
	return parse_full(r, line, len);
}

/*
 * Return the index of the top-level key 'part' ('len' bytes) in the shape
 * of the current record, or -1; 'p' names the path it is the first
 * component of, for the cache of the shape's generation.
 */
static long shape_find(struct log_json_shape *sh, const struct jnode *nodes, const struct log_path *p,
		       const char *part, size_t len)
{
	struct log_json_slot *s = NULL;
	long at;

	/* paths come in the same order record after record: try the slot after the last first */
	if (sh->slot[sh->next_slot].p == p)
		s = &sh->slot[sh->next_slot];
	else
		for (size_t i = 0; i < LOG_JSON_SLOTS; i++)
			if (sh->slot[i].p == p) {
				s = &sh->slot[i];
				break;
			}
	if (s)
		sh->next_slot = (size_t)(s - sh->slot + 1) % LOG_JSON_SLOTS;
	/* the path may be another one at a freed one's address: compare the key too */
	if (s && s->gen == sh->gen && s->len == len) {
		size_t i = 0;
		while (i < len && s->key[i] == part[i])
			i++;
		if (i == len)
			return s->at;
	}
	for (at = 0; at < (long)sh->nr && !has_key(&nodes[sh->kid[at]], part, len); at++)
		;  /* the first of duplicate keys, as jget */
	if (at == (long)sh->nr)
		at = -1;
	if (!s) {
		s = &sh->slot[sh->next_slot];
		sh->next_slot = (sh->next_slot + 1) % LOG_JSON_SLOTS;
	}
	s->p = p;
	s->gen = sh->gen;
	s->at = at;
	s->len = len;
	memcpy(s->key, part, len);
	return at;
}

void log_json_get(struct log_reader *r, const struct log_path *p, struct log_values *out)
{
	const struct jnode *n;
	long at;

	if (!r->nr_nodes)
		return;
	if (!r->json.gen || !p->nr || p->lens[0] > LOG_JSON_SLOT_KEY) {
		jget(r, 0, p, 0, out);
		return;
	}
	at = shape_find(&r->json, r->nodes, p, p->parts[0], p->lens[0]);
	if (at < 0)
		return;
	n = &r->nodes[r->json.kid[at]];
	if (p->nr == 1 && n->type != J_ARR && n->type != J_OBJ) {
		if (n->type != J_NULL)  /* as jget */
			push_value(out, n->val, n->val_len);
		return;
	}
	jget(r, r->json.kid[at], p, 1, out);
}
