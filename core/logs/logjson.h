/*
 * logjson: the JSON Lines half of logread (internal to logread.c and
 * logjson.c): one line parsed into the node arena of a struct log_reader,
 * and the values a dotted path selects in it.
 *
 * Two parsers fill the arena with the same nodes: a one-pass scanner for
 * flat objects (scalar values and lists of scalars, strings without
 * escapes), which leaves the line untouched and gives up on anything else,
 * and the full strict parser (RFC 8259), which decodes escapes in place and
 * says what is wrong with a malformed line. Every verdict on a malformed
 * line comes from the full parser.
 *
 * The scanner and the lookups keep what they learn about one record for
 * the next in 'r->json' (the top-level keys and where each path's key
 * was): results never depend on it, only the time they take. A reader is
 * for one thread at a time.
 */
#ifndef EVALSET_LOGJSON_H
#define EVALSET_LOGJSON_H

#include "logs/logread.h"

/*
 * Parse the 'len' bytes of 'line' (modified in place) as one JSON object
 * into the arena of 'r'. Return 0, 1 for a blank line, -1 for a malformed
 * one ('r->why' says what is wrong).
 */
int log_json_parse(struct log_reader *r, char *line, size_t len);

/*
 * Append the values 'p' selects in the parsed line to 'out' (logread.h).
 * Remembers in 'r' where the first component of 'p' was found.
 */
void log_json_get(struct log_reader *r, const struct log_path *p, struct log_values *out);

/* Append the objects 'p' selects in the parsed line to 'out' (log_reader_items). */
void log_json_items(struct log_reader *r, const struct log_path *p, struct log_items *out);
/* Append the values 'p' selects under the object 'item' to 'out' (log_reader_get_in). */
void log_json_get_in(struct log_reader *r, long item, const struct log_path *p, struct log_values *out);

/* Append the value of 'len' bytes at 's' to 'out'. */
void log_values_push(struct log_values *out, const char *s, size_t len);

#endif
