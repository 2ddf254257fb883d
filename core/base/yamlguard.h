/*
 * yamlguard: a first, cheap pass over YAML text for the loaders that build a
 * whole libyaml document (gate, config): refuse nesting deeper than a limit
 * before the document is built.
 *
 * Why: libyaml's scanner does work proportional to the open flow levels for
 * every token, so a 1 MiB file of '[' takes minutes of CPU to load. This pass
 * reads events only up to the first one past the limit, so a hostile file
 * costs no more than a small one. Syntax errors are left to the real loader
 * (which reports them with its own wording), as is everything else.
 */
#ifndef EVALSET_YAMLGUARD_H
#define EVALSET_YAMLGUARD_H

#include <stddef.h>

#define YAML_GUARD_DEPTH 16   /* deeper than any gate or config file needs */

/*
 * Return 0 when no collection in the 'len' bytes of YAML at 'buf' nests
 * deeper than 'max_depth' (or the text is not valid YAML: the caller's
 * loader reports that); else -1 after reporting "nesting deeper than N
 * levels" at NAME:LINE:COL of the first collection past the limit.
 */
int yaml_guard_depth(const char *buf, size_t len, const char *name, int max_depth);

#endif
