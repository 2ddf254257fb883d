/*
 * run-trec-fast: the one-pass reader of the usual TREC run line, and the
 * loop that reads a question's lines with it, for the scanner in
 * core/score/run-trec.c, the only file that includes it. Its functions are
 * static and inlined into that loop: this is the hot path of `trec-eval`
 * on runs of millions of lines.
 *
 * The usual line is shorter than 64 bytes, has its fields separated by
 * spaces or tabs and a plain decimal score. The 64 bytes from the line's
 * start are classified (bytes up to 0x20, blanks, '\n', '.') into bit
 * masks, and every field boundary comes out of the masks with no branch
 * per byte or per field. Anything else (a longer line, another control
 * byte, fewer than six fields, a score that is not a number) is declined,
 * the line untouched, for the general scanner, which also reports what is
 * wrong. The caller guarantees 80 readable bytes at the line's start (64
 * for the line, 16 more for a score read from up to its 63rd byte).
 * Scores come out bit for bit as run_parse_score gives them.
 *
 * The file is included twice. The first time it defines the shared part
 * and the reader and loop for SSE2 (names ending in _sse2); the second
 * time, on x86-64 with TREC_FAST_AVX2 defined, the same reader and loop
 * compiled for AVX2 and BMI2 (names ending in _avx2: 32 bytes classified
 * at once, bit operations in one instruction each), which the scanner
 * calls when the processor has them. Both copies give the same results
 * (the unit tests read every line shape through both).
 *
 * TREC_FAST_LINE is defined where the reader exists (SSE2, little endian).
 */
#ifndef EVALSET_RUN_TREC_FAST_H
#define EVALSET_RUN_TREC_FAST_H

#include "score/run.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/*
 * Return the word that stands for the qid of 'len' bytes at 'p' (8
 * readable bytes there) when lines are compared: its bytes, those past its
 * end cleared, when it is 8 bytes or shorter; else its first 8 bytes (a
 * longer qid is compared by memcmp too). Taken before the qid is
 * NUL-terminated: a word load across that byte store would wait for it.
 */
static inline uint64_t trec_qid_word(const char *p, size_t len)
{
	uint64_t w;

	memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return len >= 8 ? w : w & ((1ULL << (8 * len)) - 1);
}

#if defined(__SSE2__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#include <emmintrin.h>
#define TREC_FAST_LINE 1
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define TREC_FAST_HAVE_AVX2 1
#endif

/* One line as the fast reader found it. */
struct trec_fast {
	unsigned len;         /* bytes before the line's '\n' */
	unsigned b[6], e[6];  /* each field's [start, end) from the line's start */
	double score;         /* the fifth field's value */
};

/* The masks of a line's first 64 bytes, bit i for byte i. */
struct trec_fast_masks {
	uint64_t le;   /* bytes up to 0x20 */
	uint64_t bl;   /* spaces and tabs */
	uint64_t nl;   /* '\n' */
	uint64_t dot;  /* '.' */
};

/*
 * The state of the loop that reads the usual lines of one question
 * (trec_fast_loop_*), taken from the scan and given back to it: lines are
 * read from 'pos' while pos <= end (64 bytes of data from each), as long as
 * they belong to the question whose qid (qid_len bytes, its word qid_word:
 * see trec_qid_word) is at buf + gs + qid_off, and lines[] has room
 * (nr < alloc). Each line's docid goes to lines[nr] as a pointer when
 * 'mapped' (the buffer never moves; nothing is written to it), else as an
 * offset from gs in off_doc[nr], NUL-terminated in place. With 'batches'
 * (RUN_SCAN_LINES) lines of any question are read, each qid's offset from
 * gs and length going to off_qid[nr] and len_qid[nr] (NUL-terminated in
 * place unless mapped), until lines[] is full. 'tag_len' is
 * the length of the last run line's tag (at 'tag_off'); both are left as
 * they were when no run line is read.
 */
struct trec_fast_state {
	char *buf;
	size_t pos, end, gs, qid_off, qid_len, nr, alloc, tag_off, tag_len;
	uint64_t qid_word;
	struct trec_line *lines;
	uint32_t *off_doc, *off_qid, *len_qid;
	long lineno;
	bool mapped, batches;
};

/*
 * Return the value of the 'n' digits (1 to 8) in the low bytes of 'w' (the
 * first in the lowest), or -1 when one is not a digit. The bytes above them
 * are shifted out unread.
 */
static inline __attribute__((always_inline)) int64_t trec_fast_digits(uint64_t w, unsigned n)
{
	w = (w ^ 0x3030303030303030ULL) << (8 * (8 - n));
	if (((w + 0x7676767676767676ULL) | w) & 0x8080808080808080ULL)
		return -1;
	w = w * 10 + (w >> 8);
	w = (((w & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
	     (((w >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >> 32;
	return (int64_t)w;
}

/*
 * Parse the score in bytes [a, e) of the line at 'p' ('dot': its '.' bits)
 * as run_parse_score does, when it is the usual short decimal: an optional
 * '-', then up to 8 digits in all, with or without a point that has digits
 * on both sides (27.088610, -3.25, 5). Its digits are joined into one word
 * and read at once; the value is the same one correctly rounded division
 * of that integer by a power of ten (exact below 2^53) as run_parse_score's.
 * Return false to leave any other score to run_parse_score.
 */
static inline __attribute__((always_inline)) bool trec_fast_score(const char *p, unsigned a,
								  unsigned e, uint64_t dot,
								  double *out)
{
	static const double pow10_dbl[] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
	};
	bool neg = p[a] == '-';
	unsigned s = a + neg, n = e - s, nf = 0;
	uint64_t w, d = (dot >> s) & ((1ULL << n) - 1);
	int64_t m;

	memcpy(&w, p + s, 8);
	if (d) {
		/* ni digits, the point, nf digits: 1 <= ni, 1 <= nf, ni + nf <= 8 */
		unsigned ni = (unsigned)__builtin_ctzll(d);
		uint64_t f;

		nf = n - ni - 1;
		if (ni - 1 >= 7 || nf - 1 >= 8 - ni)
			return false;
		memcpy(&f, p + s + ni + 1, 8);
		w = (w & ((1ULL << (8 * ni)) - 1)) | f << (8 * ni);
		n = ni + nf;
	} else if (n - 1 >= 8) {
		return false;
	}
	if ((m = trec_fast_digits(w, n)) < 0)
		return false;
	/* 0 / x is +0, negated to -0 as strtod reads "-0" */
	*out = (double)m / pow10_dbl[nf];
	if (neg)
		*out = -*out;
	return true;
}

#endif /* the reader exists */
#endif /* EVALSET_RUN_TREC_FAST_H */

/* ---- the reader and the loop, once per instruction set ---- */
#if defined(TREC_FAST_LINE) && (!defined(TREC_FAST_AVX2) || defined(TREC_FAST_HAVE_AVX2))
#ifdef TREC_FAST_AVX2
#define TF_(name) name##_avx2
#define TF_TARGET __attribute__((target("avx2,bmi,bmi2,popcnt")))  /* implies SSSE3 */
#else
#define TF_(name) name##_sse2
#define TF_TARGET
#endif

#ifdef TREC_FAST_AVX2
/* Classify the 32 bytes at p + k into 'm' (k a constant once inlined). */
static inline __attribute__((always_inline)) TF_TARGET void TF_(trec_fast_chunk)(const char *p,
									       unsigned k,
									       struct trec_fast_masks *m)
{
	const __m256i sp = _mm256_set1_epi8(' '), tab = _mm256_set1_epi8('\t'),
		nlc = _mm256_set1_epi8('\n'), dotc = _mm256_set1_epi8('.');
	__m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(p + k));

	m->le |= (uint64_t)(uint32_t)_mm256_movemask_epi8(
		_mm256_cmpeq_epi8(_mm256_max_epu8(x, sp), sp)) << k;
	m->bl |= (uint64_t)(uint32_t)_mm256_movemask_epi8(
		_mm256_or_si256(_mm256_cmpeq_epi8(x, sp), _mm256_cmpeq_epi8(x, tab))) << k;
	m->nl |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, nlc)) << k;
	m->dot |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, dotc)) << k;
}
#else
/* Classify the 16 bytes at p + k into 'm' (k a constant once inlined). */
static inline __attribute__((always_inline)) void TF_(trec_fast_chunk)(const char *p, unsigned k,
								     struct trec_fast_masks *m)
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
#endif

/* Classify the 64 bytes at 'p' into 'm'; return false when no '\n' is among them. */
static inline __attribute__((always_inline)) TF_TARGET bool TF_(trec_fast_classify)(const char *p,
									      struct trec_fast_masks *m)
{
#ifdef TREC_FAST_AVX2
	m->le = m->bl = m->nl = m->dot = 0;
	TF_(trec_fast_chunk)(p, 0, m);
	TF_(trec_fast_chunk)(p, 32, m);
	return m->nl != 0;
#else
	m->le = m->bl = m->nl = m->dot = 0;
	/* the usual line ends in its first 48 bytes: three chunks without a test between */
	TF_(trec_fast_chunk)(p, 0, m);
	TF_(trec_fast_chunk)(p, 16, m);
	TF_(trec_fast_chunk)(p, 32, m);
	if (!m->nl)
		TF_(trec_fast_chunk)(p, 48, m);
	return m->nl != 0;
#endif
}

#ifdef TREC_FAST_AVX2
/*
 * trec_fast_score by vector: the score's bytes are checked as digits at
 * once, one shuffle squeezes the point out and right-aligns the digits in
 * 8 bytes, and two multiply-adds give their value. It takes exactly the
 * scores trec_fast_score takes, with the same value. Reads 16 bytes from
 * the score's first digit.
 */
static inline __attribute__((always_inline)) TF_TARGET bool TF_(trec_fast_score_vec)(const char *p,
									       unsigned a,
									       unsigned e,
									       uint64_t dot,
									       double *out)
{
	static const double pow10_dbl[] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
	};
	bool neg = p[a] == '-';
	unsigned s = a + neg, n = e - s, ni = 16, nd = n, nf = 0;
	uint64_t field = (1ULL << n) - 1, d = (dot >> s) & field, w;
	uint32_t digit;
	__m128i x, j, src;

	if (n - 1 >= 9)
		return false;
	x = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + s)), _mm_set1_epi8('0'));
	digit = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(9)), x));
	/* every byte a digit but the point (a second point is no digit) */
	if ((digit & field) != (field & ~d))
		return false;
	if (d) {
		/* ni digits, the point, nf digits: 1 <= ni, 1 <= nf, ni + nf <= 8 */
		ni = (unsigned)__builtin_ctzll(d);
		nd = n - 1;
		nf = nd - ni;
		if (!ni || !nf)
			return false;
	} else if (nd > 8) {
		return false;
	}
	/* byte k takes digit k - (8 - nd): at byte j of the score, or j + 1 past
	 * the point; a negative j (bit 7 set) makes the byte 0 */
	j = _mm_sub_epi8(_mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
			 _mm_set1_epi8((char)(8 - nd)));
	src = _mm_sub_epi8(j, _mm_cmpgt_epi8(j, _mm_set1_epi8((char)(ni - 1))));
	x = _mm_shuffle_epi8(x, src);
	x = _mm_maddubs_epi16(x, _mm_setr_epi8(10, 1, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1));
	x = _mm_madd_epi16(x, _mm_setr_epi16(100, 1, 100, 1, 100, 1, 100, 1));
	w = (uint64_t)_mm_cvtsi128_si64(x);
	/* 0 / x is +0, negated to -0 as strtod reads "-0" */
	*out = (double)(int64_t)((w & 0xffffffffu) * 10000 + (w >> 32)) / pow10_dbl[nf];
	if (neg)
		*out = -*out;
	return true;
}
#define TF_SCORE TF_(trec_fast_score_vec)
#else
#define TF_SCORE trec_fast_score
#endif

/*
 * Read the line at 'p' into 'l'. Return 1 for a run line of six fields or
 * more, 0 for a blank or comment line (only l->len set), -1 when the line
 * is left to the general scanner.
 */
static inline __attribute__((always_inline)) TF_TARGET int TF_(trec_fast_line)(const char *p,
									     struct trec_fast *l)
{
	struct trec_fast_masks m;
	uint64_t in, text, st, en;
	unsigned n;

	if (!TF_(trec_fast_classify)(p, &m))
		return -1;
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
	if (!TF_SCORE(p, l->b[4], l->e[4], m.dot, &l->score) &&
	    run_parse_score(p + l->b[4], l->e[4] - l->b[4], &l->score) < 0)
		return -1;
	return 1;
}


/*
 * Read the usual lines of the question of 'r' (see struct trec_fast_state),
 * with its state in locals (the NUL stores into the buffer would otherwise
 * make the compiler reload it for every line). Stop, the line untouched, at
 * a line of another question, a line the reader declines, or when the line
 * arrays are full.
 */
static TF_TARGET void TF_(trec_fast_loop)(struct trec_fast_state *r)
{
	char *buf = r->buf;
	const char *qid = r->buf + r->gs + r->qid_off;
	size_t pos = r->pos, nr = r->nr, gs = r->gs, qlen = r->qid_len, end = r->end, alloc = r->alloc;
	size_t last = SIZE_MAX;
	unsigned tag_b = 0, tag_e = 0;
	struct trec_line *lines = r->lines;
	uint32_t *off_doc = r->off_doc, *off_qid = r->off_qid, *len_qid = r->len_qid;
	uint64_t qword = r->qid_word;
	long lineno = r->lineno;
	bool mapped = r->mapped, batches = r->batches;

	while (pos <= end && nr < alloc) {
		char *p = buf + pos;
		struct trec_fast l;
		int got = TF_(trec_fast_line)(p, &l);
		size_t ql;

		if (got < 0)
			break;
		if (got) {
			ql = l.e[0] - l.b[0];
			if (batches) {
				if (!mapped)
					p[l.e[0]] = '\0';
				off_qid[nr] = (uint32_t)(pos + l.b[0] - gs);
				len_qid[nr] = (uint32_t)ql;
			} else if (ql != qlen || trec_qid_word(p + l.b[0], ql) != qword ||
				   (ql > 8 && memcmp(p + l.b[0], qid, ql))) {
				break;
			}
			if (mapped) {
				lines[nr].doc = p + l.b[2];
			} else {
				p[l.e[2]] = '\0';
				off_doc[nr] = (uint32_t)(pos + l.b[2] - gs);
			}
			lines[nr].len = l.e[2] - l.b[2];
			lines[nr].line = lineno + 1;
			lines[nr].score = l.score;
			nr++;
			last = pos;
			tag_b = l.b[5];
			tag_e = l.e[5];
		}
		lineno++;
		pos += l.len + 1;
	}
	r->pos = pos;
	r->nr = nr;
	r->lineno = lineno;
	if (last != SIZE_MAX) {
		r->tag_off = last + tag_b;
		r->tag_len = tag_e - tag_b;
	}
}

#undef TF_
#undef TF_TARGET
#undef TF_SCORE
#endif
