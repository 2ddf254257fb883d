/*
 * termtext: text from input made harmless to print on a terminal.
 *
 * Ids, tags and question texts come from files anyone can write. Printed
 * raw, an escape sequence in one (ESC ] ... BEL, an OSC) can retitle the
 * terminal or write its clipboard, and bidirectional or zero-width
 * characters can make one id look like another. Everything that prints such
 * text to stdout or stderr goes through here; error() and warning() do it
 * for every message.
 */
#ifndef EVALSET_TERMTEXT_H
#define EVALSET_TERMTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"

/*
 * Append 's' to 'out' with every character that could act on a terminal, or
 * hide or reorder text, made visible: C0 controls (but '\n' and '\t' when
 * 'keep_lines'), DEL, C1 controls and invalid UTF-8 bytes as \xNN;
 * bidirectional controls and zero-width characters as <U+XXXX>. Everything
 * else is copied as it is.
 */
void term_add_visible(struct strbuf *out, const char *s, bool keep_lines);
/* Return true for the characters that reorder text or take no width:
 * bidirectional controls and marks, zero-width spaces and joiners, BOM,
 * and every other format character (Unicode category Cf: the soft hyphen,
 * the invisible tag characters U+E0000-E007F...). */
bool term_hidden_mark(uint32_t cp);
/*
 * Append the 'len' bytes of 's' to 'out' with only the bidirectional and
 * zero-width characters made visible, as <U+XXXX>; everything else as is.
 * For outputs that deal with controls their own way (tables, Markdown).
 */
void term_add_marked(struct strbuf *out, const char *s, size_t len);
/*
 * Return 's' made visible as above (no line breaks kept), in one of a few
 * buffers that are reused: valid until the fourth call after this one. For
 * printf arguments on the main thread.
 */
const char *term_visible(const char *s);

/*
 * Return the number of terminal columns the 'len' bytes of 's' take, as a
 * table prints them: a wide (East Asian) character takes two, a combining
 * mark none, every other character one (utf8proc's character widths). A
 * control byte (which tables print as a space) and a byte that is not valid
 * UTF-8 take one each.
 */
size_t term_width(const char *s, size_t len);
/*
 * Return the byte length of the longest start of the 'len' bytes of 's'
 * that takes at most 'max_cols' columns (term_width), never splitting a
 * character; its width goes to '*cols'. A wide character that would pass
 * the limit is left out whole, so the start may be a column short.
 */
size_t term_prefix(const char *s, size_t len, size_t max_cols, size_t *cols);

#endif
