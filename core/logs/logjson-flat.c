/*
 * logjson-flat: the one-pass scanner of logs/logjson.c for flat objects
 * (scalar values and lists of scalars, strings without escapes), the hot
 * path of `evalset import`. It leaves the line untouched, builds exactly
 * the nodes the full parser would, and gives up (-1) on anything else. It
 * matches each top-level key against the shape the reader remembers from
 * the record before (logjson.c says how that memory is kept).
 */
#include "logs/logjson-internal.h"

#include "base/util.h"

#include <stdint.h>
#include <string.h>

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
int log_json_parse_flat(struct log_reader *r, char *line, size_t len)
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
