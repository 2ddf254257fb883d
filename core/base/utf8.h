/*
 * utf8: the one UTF-8 decoder and encoder of evalset, and the
 * character-boundary helpers built on them (validation, counting, cutting).
 *
 * A valid sequence is the shortest form of a code point in U+0000..U+10FFFF
 * that is not a surrogate (RFC 3629). Everything else (a stray continuation
 * byte, an overlong form, a truncated sequence, a lead byte 0xF5..0xFF) is
 * invalid, one byte at a time: a caller that repairs text replaces that byte
 * and resumes at the next one.
 *
 * Counting and cutting treat every byte that is not a continuation byte
 * (10xxxxxx) as the start of a character, so on invalid input they still
 * never split a valid sequence and never loop. Nothing here allocates.
 * Normalisation and case folding are the text wing's (through utf8proc).
 */
#ifndef EVALSET_UTF8_H
#define EVALSET_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Decode the sequence at 's' (at most 'len' bytes, 'len' >= 1): return its
 * length (1 to 4) and set '*cp', or return 0 when the bytes there are not a
 * valid sequence. A NUL byte decodes as U+0000.
 */
size_t utf8_decode(const char *s, size_t len, uint32_t *cp);

/* Write code point 'cp' (at most U+10FFFF) as UTF-8 at 'out' (4 bytes of
 * room); return the number of bytes written, 1 to 4. */
size_t utf8_encode(uint32_t cp, char *out);

/* Return true when 'buf' of 'len' bytes is valid UTF-8 without NUL bytes;
 * on false, '*bad_offset' (if not NULL) is the offset of the first bad byte. */
bool utf8_valid(const char *buf, size_t len, size_t *bad_offset);

/* Return the number of characters in the first 'len' bytes of 's'. */
size_t utf8_chars(const char *s, size_t len);

/* Return the byte length of the first 'max_chars' characters of the first
 * 'len' bytes of 's' ('len' when there are no more). */
size_t utf8_prefix(const char *s, size_t len, size_t max_chars);

/* Return the largest character boundary of 's' at or before byte 'off'
 * (the cut point for "at most 'off' bytes"); 'off' must be within 's'. */
size_t utf8_floor(const char *s, size_t off);

/* Return the smallest character boundary of the 'len' bytes of 's' at or
 * after byte 'off' ('len' when there is none before the end). */
size_t utf8_ceil(const char *s, size_t len, size_t off);

#endif
