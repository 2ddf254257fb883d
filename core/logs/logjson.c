/*
 * logjson: JSON Lines records into the node arena of a log reader
 * (logs/logjson.h): a one-pass scanner for flat objects, and the strict
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
 *
 * Four files, calls going one way: this one (log_json_parse chooses the
 * parser; the lookups) calls logjson-flat.c (the scanner) and
 * logjson-full.c (the strict parser), which share the node type and the
 * byte scanners of logjson-internal.h and call nothing of each other.
 */
#include "logs/logjson.h"
#include "logs/logjson-internal.h"

#include "base/util.h"

#include <stdint.h>
#include <string.h>

bool log_json_fast = true;

int log_json_parse(struct log_reader *r, char *line, size_t len)
{
	if (log_json_fast && !log_json_parse_flat(r, line, len))
		return 0;
	r->json.gen = 0;
	return log_json_parse_full(r, line, len);
}

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
 * Return how many components of 'p' from 'k' on the key of node 'n' spells
 * with its dots ("gen_ai.evaluation.name" for gen_ai, evaluation, name), or
 * 0: keys holding dots, as tracing attributes are named.
 */
static size_t dotted_key(const struct jnode *n, const struct log_path *p, size_t k)
{
	size_t at = 0, j = k;

	while (j < p->nr) {
		if (at + p->lens[j] > n->key_len || memcmp(n->key + at, p->parts[j], p->lens[j]))
			return 0;
		at += p->lens[j++];
		if (at == n->key_len)
			return j - k > 1 ? j - k : 0;
		if (n->key[at++] != '.')
			return 0;
	}
	return 0;
}

/*
 * Follow components 'k'.. of 'p' under node 'idx', calling 'fn'('out',
 * node) on every node they reach: an object goes on into the first child
 * with the key, then (before the last component) into each child whose
 * dotted key spells several components; an array into every element.
 */
static void jwalk(const struct log_reader *r, long idx, const struct log_path *p, size_t k,
		  void (*fn)(const struct log_reader *r, long idx, void *out), void *out)
{
	for (;;) {
		const struct jnode *n = &r->nodes[idx];
		long c;

		if (n->type == J_ARR) {
			for (c = n->child; c >= 0; c = r->nodes[c].next)
				jwalk(r, c, p, k, fn, out);
			return;
		}
		if (k == p->nr) {
			fn(r, idx, out);
			return;
		}
		if (n->type != J_OBJ)
			return;
		for (c = n->child; c >= 0 && !has_key(&r->nodes[c], p->parts[k], p->lens[k]);
		     c = r->nodes[c].next)
			;
		if (k + 1 < p->nr) {  /* rare: the exact key's values first, then the dotted keys' */
			if (c >= 0)
				jwalk(r, c, p, k + 1, fn, out);
			for (c = n->child; c >= 0; c = r->nodes[c].next) {
				size_t used = dotted_key(&r->nodes[c], p, k);
				if (used)
					jwalk(r, c, p, k + used, fn, out);
			}
			return;
		}
		if (c < 0)
			return;
		idx = c;
		k++;
	}
}

/* Append the scalar of node 'idx' to the values 'out' (objects and null give nothing). */
static void take_scalar(const struct log_reader *r, long idx, void *out)
{
	const struct jnode *n = &r->nodes[idx];

	if (n->type != J_OBJ && n->type != J_NULL)
		push_value(out, n->val, n->val_len);
}

/* Append what components 'k'.. of 'p' select under node 'idx' to 'out' (scalars at the end). */
static void jget(const struct log_reader *r, long idx, const struct log_path *p, size_t k,
		 struct log_values *out)
{
	jwalk(r, idx, p, k, take_scalar, out);
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
	if (at < 0) {
		if (p->nr > 1)  /* a top-level key with dots in it, maybe */
			jget(r, 0, p, 0, out);
		return;
	}
	n = &r->nodes[r->json.kid[at]];
	if (p->nr == 1 && n->type != J_ARR && n->type != J_OBJ) {
		if (n->type != J_NULL)  /* as jget */
			push_value(out, n->val, n->val_len);
		return;
	}
	jget(r, r->json.kid[at], p, 1, out);
}

/* Keep node 'idx' in the list of items 'out' (a struct log_items). */
static void take_item(const struct log_reader *r, long idx, void *out)
{
	struct log_items *it = out;

	if (r->nodes[idx].type == J_OBJ) {
		ALLOC_GROW(it->node, it->nr + 1, it->alloc);
		it->node[it->nr++] = idx;
	}
}

void log_json_items(struct log_reader *r, const struct log_path *p, struct log_items *out)
{
	if (r->nr_nodes)
		jwalk(r, 0, p, 0, take_item, out);
}

void log_json_get_in(struct log_reader *r, long item, const struct log_path *p, struct log_values *out)
{
	jget(r, item, p, 0, out);
}
