/*
 * logjson-internal: what the JSON Lines parsers share, for logs/logjson.c,
 * logjson-flat.c and logjson-full.c only: the node of the arena and the
 * byte scanners both parsers use (inline: they are the hot path).
 */
#ifndef EVALSET_LOGJSON_INTERNAL_H
#define EVALSET_LOGJSON_INTERNAL_H

#include "logs/logread.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

enum jtype { J_NULL, J_FALSE, J_TRUE, J_NUM, J_STR, J_ARR, J_OBJ };

struct jnode {
	enum jtype type;
	const char *key, *val;
	size_t key_len, val_len;
	long child, next;   /* indexes into the arena, -1: none */
};

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


/*
 * Scan a flat object into the arena of 'r', building the nodes the full
 * parser would, without touching the line. Return 0, or -1 to leave the
 * line to the full parser (blank, malformed, escapes, nesting).
 */
int log_json_parse_flat(struct log_reader *r, char *line, size_t len);
/* Parse one line with the strict full parser, decoding strings in place.
 * Return 0, 1 for a blank line, -1 (r->why says what is wrong). */
int log_json_parse_full(struct log_reader *r, char *line, size_t len);

#endif
