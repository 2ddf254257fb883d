/*
 * yamlfast: a reader of the block YAML that evalset writes, without libyaml.
 *
 * A frozen version of 20,000 questions is 2 MB of YAML; libyaml's scanner
 * reads it a character and a token at a time, and that was a third of
 * scoring a run against it. The files evalset writes use a small part of
 * YAML: block mappings and sequences indented with spaces, one-line plain,
 * single- and double-quoted scalars, and one-line flow sequences and
 * mappings of scalars. yamlfast_parse reads exactly that part into the tree
 * yamlio_parse_tree makes (the same nodes, texts, styles and positions) and
 * declines everything else: a comment after a value, a tab, an empty value, a scalar over
 * two lines, an anchor, a tag, a directive, a key that is not a simple word,
 * nesting or a scalar over the rules' limits, any byte libyaml would treat
 * specially. It never reports: a declined file is parsed by libyaml, which
 * gives the tree or the error as before. So what the fast reader accepts,
 * libyaml reads to the same tree (tests/unit/t-yamlfast.c compares the two
 * on every YAML file of the repository and on thousands of edited copies).
 */
#ifndef EVALSET_YAMLFAST_H
#define EVALSET_YAMLFAST_H

#include "base/yamlio.h"

/*
 * Parse the 'len' bytes at 'buf' into '*root' (blocks of 'pool', as
 * yamlio_parse_tree) when they are in the part of YAML above and within the
 * limits of 'r'. Return 1 when parsed, 0 when declined ('*root' NULL; what
 * it put in 'pool' stays there until the caller clears it).
 */
int yamlfast_parse(const char *buf, size_t len, const struct yamlio_rules *r,
		   struct mempool *pool, struct ynode **root);

#endif
