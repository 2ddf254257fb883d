/*
 * run-trec-fast: the one-pass reader of the usual TREC run line, for the
 * scanner in core/score/run-trec.c, the only file that includes it. Its
 * functions are static inline so that they are compiled into the scanner's
 * loop: this is the hot path of `trec-eval` on runs of millions of lines.
 *
 * The usual line is shorter than 64 bytes, has its fields separated by
 * spaces or tabs and a plain decimal score. The 64 bytes from the line's
 * start are classified 16 at a time (bytes up to 0x20, blanks, '\n', '.')
 * into bit masks, and every field boundary comes out of the masks with no
 * branch per byte or per field. Anything else (a longer line, another
 * control byte, fewer than six fields, a score that is not a number) is
 * declined, the line untouched, for the general scanner, which also reports
 * what is wrong. The caller guarantees 64 readable bytes at the line's
 * start. Scores come out bit for bit as run_parse_score gives them.
 *
 * TREC_FAST_LINE is defined where the reader exists (SSE2, little endian).
 */
#ifndef EVALSET_RUN_TREC_FAST_H
#define EVALSET_RUN_TREC_FAST_H

#include "score/run.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#include <emmintrin.h>
#define TREC_FAST_LINE 1

/* One line as the fast reader found it. */
struct trec_fast {
	unsigned len;         /* bytes before the line's '\n' */
	unsigned b[6], e[6];  /* each field's [start, end) from the line's start */
	double score;         /* the fifth field's value */
};

/*
 * Return the value of the 'n' digits (1 to 8) in the low bytes of 'w' (the
 * first in the lowest), or -1 when one is not a digit. The bytes above them
 * are shifted out unread.
 */
static inline int64_t trec_fast_digits(uint64_t w, unsigned n)
{
	w = (w ^ 0x3030303030303030ULL) << (8 * (8 - n));
	if (((w + 0x7676767676767676ULL) | w) & 0x8080808080808080ULL)
		return -1;
	w = w * 10 + (w >> 8);
	w = (((w & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
	     (((w >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >> 32;
	return (int64_t)w;
}

/* The value of the 'n' digits (1 to 8) at 'p', or -1; reads 8 bytes. */
static inline int64_t trec_fast_digits8(const char *p, unsigned n)
{
	uint64_t w;

	memcpy(&w, p, 8);
	return trec_fast_digits(w, n);
}

/*
 * Parse the score in bytes [a, e) of the line at 'p' ('dot': its '.' bits)
 * as run_parse_score does, for up to 8 digits on each side of the point:
 * the same integer of digits and the same one correctly rounded division.
 * Up to 8 digits in all (27.088610) are read as one word.
 * Return false to leave it to run_parse_score.
 */
static inline __attribute__((always_inline)) bool trec_fast_score(const char *p, unsigned a, unsigned e, uint64_t dot, double *out)
{
	static const uint64_t pow10_u64[] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
	};
	static const double pow10_dbl[] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
	};
	bool neg = p[a] == '-';
	uint64_t d, m;
	unsigned ie, ni, nf;
	int64_t iv, fv = 0;

	a += neg;
	d = dot & ((1ULL << e) - 1) & ~((1ULL << a) - 1);
	ie = d ? (unsigned)__builtin_ctzll(d) : e;
	ni = ie - a;
	nf = d ? e - ie - 1 : 0;
	if (!ni || ni > 8 || nf > 8 || (d && !nf))
		return false;
	if (ni + nf <= 8) {
		/* the usual score: both parts' digits joined into one word, read at once */
		uint64_t w, f;

		memcpy(&w, p + a, 8);
		if (nf) {
			memcpy(&f, p + ie + 1, 8);
			w = (w & ((1ULL << (8 * ni)) - 1)) | f << (8 * ni);
		}
		if ((iv = trec_fast_digits(w, ni + nf)) < 0)
			return false;
		m = (uint64_t)iv;
	} else {
		if ((iv = trec_fast_digits8(p + a, ni)) < 0 ||
		    (fv = trec_fast_digits8(p + ie + 1, nf)) < 0)
			return false;
		m = (uint64_t)iv * pow10_u64[nf] + (uint64_t)fv;
	}
	if (m > ((uint64_t)1 << 53))
		return false;
	if (!m) {
		*out = neg ? -0.0 : 0.0;
		return true;
	}
	*out = (double)m / pow10_dbl[nf];
	if (neg)
		*out = -*out;
	return true;
}

/* The masks of one 16-byte chunk of a line, bit i for byte i. */
struct trec_fast_masks {
	uint64_t le;   /* bytes up to 0x20 */
	uint64_t bl;   /* spaces and tabs */
	uint64_t nl;   /* '\n' */
	uint64_t dot;  /* '.' */
};

static inline void trec_fast_chunk(const char *p, unsigned k, struct trec_fast_masks *m)
{
	const __m128i sp = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t'),
		nlc = _mm_set1_epi8('\n'), dotc = _mm_set1_epi8('.');
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + k));

	m->le |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(x, sp), sp)) << k;
	m->bl |= (uint64_t)(unsigned)_mm_movemask_epi8(
		_mm_or_si128(_mm_cmpeq_epi8(x, sp), _mm_cmpeq_epi8(x, tab))) << k;
	m->nl |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, nlc)) << k;
	m->dot |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, dotc)) << k;
}

/*
 * Read the line at 'p' into 'l'. Return 1 for a run line of six fields or
 * more, 0 for a blank or comment line (only l->len set), -1 when the line
 * is left to the general scanner.
 */
static inline __attribute__((always_inline)) int trec_fast_line(const char *p, struct trec_fast *l)
{
	struct trec_fast_masks m = { 0, 0, 0, 0 };
	uint64_t in, text, st, en;
	unsigned n;

	/* the usual line ends in its first 48 bytes: three chunks without a test between */
	trec_fast_chunk(p, 0, &m);
	trec_fast_chunk(p, 16, &m);
	trec_fast_chunk(p, 32, &m);
	if (!m.nl) {
		trec_fast_chunk(p, 48, &m);
		if (!m.nl)
			return -1;
	}
	n = (unsigned)__builtin_ctzll(m.nl);
	in = (1ULL << n) - 1;
	/* a control byte other than a tab: the general scanner knows */
	if ((m.le & ~m.bl) & in)
		return -1;
	l->len = n;
	text = ~m.le & in;
	if (!text || p[__builtin_ctzll(text)] == '#')
		return 0;
	/* field starts and ends; fields 1 and 3 (Q0 and the rank) are skipped */
	st = text & ~(text << 1);
	en = text & ~(text >> 1);
	l->b[0] = (unsigned)__builtin_ctzll(st);
	l->e[0] = (unsigned)__builtin_ctzll(en) + 1;
	st &= st - 1;
	st &= st - 1;
	en &= en - 1;
	en &= en - 1;
	l->b[2] = (unsigned)__builtin_ctzll(st | 1ULL << 63);
	l->e[2] = (unsigned)__builtin_ctzll(en | 1ULL << 63) + 1;
	st &= st - 1;
	st &= st - 1;
	en &= en - 1;
	en &= en - 1;
	l->b[4] = (unsigned)__builtin_ctzll(st | 1ULL << 63);
	l->e[4] = (unsigned)__builtin_ctzll(en | 1ULL << 63) + 1;
	st &= st - 1;
	en &= en - 1;
	if (!st)
		return -1;  /* fewer than six fields */
	l->b[5] = (unsigned)__builtin_ctzll(st);
	l->e[5] = (unsigned)__builtin_ctzll(en) + 1;
	if (!trec_fast_score(p, l->b[4], l->e[4], m.dot, &l->score) &&
	    run_parse_score(p + l->b[4], l->e[4] - l->b[4], &l->score) < 0)
		return -1;
	return 1;
}

#endif
#endif
