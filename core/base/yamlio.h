/*
 * yamlio: the libyaml plumbing the set and pool files share.
 *
 * Writing: an emitter set up the one way evalset writes YAML (UTF-8 as is,
 * no line folding, indent 2, output appended to a strbuf) and one-line
 * helpers for scalars, mappings and sequences. Every helper returns 0, or -1
 * when libyaml refused the event (the emitter's 'problem' says why; the
 * caller reports it). A string that would read back as another type when
 * plain (yscalar_resolve: "true", "7", "null", "") is single-quoted, so a
 * round trip keeps every type.
 *
 * Reading: YAML text into a small tree of nodes that keeps each node's
 * line and column (1-based), so the caller can check types and keys and
 * point at the place. Anchors, aliases, tags other than the standard ones,
 * a second document, escaped NUL bytes in scalars (when asked), scalars
 * over a size limit and nesting deeper than a limit are refused while the
 * tree is built, as NAME:LINE:COL errors; no alias is ever expanded.
 */
#ifndef EVALSET_YAMLIO_H
#define EVALSET_YAMLIO_H

#include "base/mempool.h"
#include "base/strbuf.h"

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <yaml.h>

/* How a plain (unquoted, untagged) YAML scalar resolves in the YAML 1.2
 * core schema; a quoted scalar is always a string. */
enum yscalar_type {
	YSCALAR_NULL,    /* "", "~", null, Null, NULL */
	YSCALAR_BOOL,    /* true/True/TRUE, false/False/FALSE */
	YSCALAR_INT,     /* [-+]?[0-9]+, 0o[0-7]+, 0x[0-9a-fA-F]+ */
	YSCALAR_FLOAT,   /* [-+]?(.[0-9]+|[0-9]+(.[0-9]*)?)([eE][-+]?[0-9]+)?, .inf, .nan */
	YSCALAR_STR,
};
enum yscalar_type yscalar_resolve(const char *plain);

/* ---- writing ---- */

/*
 * Initialise 'em' to append to 'out' (block style, UTF-8 unescaped, width
 * unlimited, indent 2). Return 0, or -1 after reporting. On success the
 * caller calls yaml_emitter_delete(em) when done.
 */
int yamlio_emitter_init(yaml_emitter_t *em, struct strbuf *out);

/*
 * Release 'em' once writing 'what' ("the set", "'pool.yaml'") ended with
 * 'ret' (0, or -1 from a helper below): on -1 report "cannot write WHAT as
 * YAML: " and the emitter's problem. Return 'ret'.
 */
int yamlio_emitter_end(yaml_emitter_t *em, int ret, const char *what);

/* Emit 'ev' when 'ok' (the result of its _initialize call) is true; when it
 * is false, the emitter's problem says a string is not valid UTF-8. */
int yamlio_emit(yaml_emitter_t *em, yaml_event_t *ev, int ok);

/* Emit the stream start and document start events. */
int yamlio_doc_start(yaml_emitter_t *em);

/* Emit the document end and stream end events and flush the output. */
int yamlio_doc_end(yaml_emitter_t *em);

/* Emit 's' as a scalar in 'style', untagged. */
int yamlio_scalar(yaml_emitter_t *em, const char *s, yaml_scalar_style_t style);

/* Emit 's' as a plain scalar (keys, numbers, booleans, null). */
int yamlio_plain(yaml_emitter_t *em, const char *s);

/* Emit 's' so that it reads back as the same string; NULL gives null. */
int yamlio_str(yaml_emitter_t *em, const char *s);

/* Emit 'v' as a plain decimal integer. */
int yamlio_long(yaml_emitter_t *em, long v);

/* Open or close a mapping; 'flow' picks {a: b} over block style. */
int yamlio_map_start(yaml_emitter_t *em, bool flow);
int yamlio_map_end(yaml_emitter_t *em);

/* Open or close a sequence; 'flow' picks [a, b] over block style. */
int yamlio_seq_start(yaml_emitter_t *em, bool flow);
int yamlio_seq_end(yaml_emitter_t *em);

/* ---- reading ---- */

enum ynode_kind { YNODE_SCALAR, YNODE_SEQ, YNODE_MAP };

/* A node of the tree; the tree, its texts and its lists live in the pool
 * it was parsed into (yamlio_parse_tree). */
struct ynode {
	char *value;          /* scalars: the text (a scalar holding an escaped NUL is refused) */
	struct ynode **kids;  /* sequences: items; mappings: key, value, key, value... */
	long line, col;
	uint32_t nr, alloc;   /* a file has fewer than 2^32 nodes (yamlio_parse_tree) */
	unsigned char kind;   /* enum ynode_kind; 48 bytes a node, not 64: a set of
	                       * 20,000 questions has a quarter of a million of them */
	bool plain;           /* plain style and no explicit tag */
};

/* What a file kind allows, and how its messages read. */
struct yamlio_rules {
	const char *file;     /* the messages' subject: "set file" gives "... in a set file" */
	int max_depth;        /* collections nested deeper are refused */
	size_t max_scalar;    /* longer scalars are refused; 0: no limit */
	bool detail;          /* name the anchor, alias or tag refused, give the syntax
			       * error's context and a reader error's line:col; else
			       * the shorter wording */
};

/*
 * Parse the 'len' bytes at 'buf' (named 'name' in messages) into '*root'.
 * Every node, text and list of the tree is a block of 'pool' (a set of
 * thousands of questions is a tree of hundreds of thousands of nodes: one
 * malloc each was a third of loading it); the caller frees the whole tree
 * with mempool_clear(pool), also after a failure. An empty document gives
 * NULL. Return 0, or -1 after reporting (with '*root' NULL).
 */
int yamlio_parse_tree(const char *buf, size_t len, const char *name,
		      const struct yamlio_rules *rules, struct mempool *pool,
		      struct ynode **root);

/*
 * yamlio_parse_tree's second reader alone: libyaml's events into the tree.
 * yamlio_parse_tree first tries the reader of the block YAML evalset writes
 * (yamlfast.h), which gives the same tree faster or declines; this is what
 * it falls back to, and what the tests compare it with.
 */
int yamlio_parse_events(const char *buf, size_t len, const char *name,
			const struct yamlio_rules *r, struct mempool *pool,
			struct ynode **root);

/*
 * Set '*line' and '*col' (1-based; columns count UTF-8 characters) of byte
 * 'off' of 'buf', which holds at least 'off' bytes.
 */
void yamlio_position(const char *buf, size_t off, long *line, long *col);

/* Return the core-schema type of scalar 'n' (quoted scalars are strings). */
enum yscalar_type ynode_type(const struct ynode *n);

/* Return whether 'n' is a null scalar. */
bool ynode_is_null(const struct ynode *n);

/* Return "a scalar", "a list" or "a mapping". */
const char *ynode_kind_name(const struct ynode *n);

/* Return the value of 'key' in mapping 'm' (its first), or NULL; every key
 * of 'm' must be a scalar (checked by the caller first). */
const struct ynode *ynode_get(const struct ynode *m, const char *key);

/*
 * Report at NAME:LINE:COL of 'n' that 'what' must be 'want' but is n's text
 * (scalars) or kind (collections). Return -1.
 */
int yamlio_type_error(const char *name, const struct ynode *n, const char *what,
		      const char *want);

#endif
