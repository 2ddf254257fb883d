/*
 * text: normalisation and tokens (see text.h; the similarity measures
 * declared there are in similar.c, which calls this file and lang.c).
 *
 * Everything goes through one pass: map the input to NFKC + case fold with
 * utf8proc (invalid UTF-8 bytes and NUL become spaces first, so one bad byte
 * never loses a whole string), then classify each code point as a word
 * character (letters, marks, numbers) or a separator.
 *
 * ASCII fast path (text_ascii_fast): NFKC + case fold of pure ASCII text is
 * ASCII lower-casing, so such text skips utf8proc_map; and a code point below
 * 128 takes its class from a table filled once (pthread_once) from
 * utf8proc_category itself, so both paths classify alike by construction.
 * Thai, Lao, Khmer and Myanmar runs go
 * through ICU's word break iterator: one is opened once and each walk that
 * meets such a run clones it, since an iterator holds state. After the
 * one-time fills (pthread_once) every function here is pure: safe to call
 * from several threads at once.
 */
#include "text/text.h"
#include "text/icu-lib.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "base/utf8.h"
#include "base/util.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

bool text_ascii_fast = true;

/* Classes of a code point, as the functions below need them. */
enum {
	CP_WORD = 1,   /* letter, mark or number: part of a token */
	CP_SPACE = 2,  /* Unicode separator (Z*) or control (Cc) */
	CP_PUNCT = 4,  /* punctuation (P*) */
};

static unsigned char ascii_class[128];
static pthread_once_t ascii_once = PTHREAD_ONCE_INIT;

/* Return the CP_* class of 'cp' from utf8proc (the general path). */
static unsigned class_of(utf8proc_int32_t cp)
{
	switch (utf8proc_category(cp)) {
	case UTF8PROC_CATEGORY_LU: case UTF8PROC_CATEGORY_LL: case UTF8PROC_CATEGORY_LT:
	case UTF8PROC_CATEGORY_LM: case UTF8PROC_CATEGORY_LO:
	case UTF8PROC_CATEGORY_MN: case UTF8PROC_CATEGORY_MC: case UTF8PROC_CATEGORY_ME:
	case UTF8PROC_CATEGORY_ND: case UTF8PROC_CATEGORY_NL: case UTF8PROC_CATEGORY_NO:
		return CP_WORD;
	case UTF8PROC_CATEGORY_ZS: case UTF8PROC_CATEGORY_ZL: case UTF8PROC_CATEGORY_ZP:
	case UTF8PROC_CATEGORY_CC:
		return CP_SPACE;
	case UTF8PROC_CATEGORY_PC: case UTF8PROC_CATEGORY_PD: case UTF8PROC_CATEGORY_PS:
	case UTF8PROC_CATEGORY_PE: case UTF8PROC_CATEGORY_PI: case UTF8PROC_CATEGORY_PF:
	case UTF8PROC_CATEGORY_PO:
		return CP_PUNCT;
	default:
		return 0;
	}
}

/* Fill the class table of the ASCII code points from utf8proc (once). */
static void ascii_init(void)
{
	for (int c = 0; c < 128; c++)
		ascii_class[c] = (unsigned char)class_of(c);
}

/* Return the CP_* class of 'cp'; the table must be filled (fold() does it). */
static inline unsigned cp_class(utf8proc_int32_t cp)
{
	if (cp >= 0 && cp < 128 && text_ascii_fast)
		return ascii_class[cp];
	return class_of(cp);
}

/* Decode the code point at 'p' ('n' > 0 bytes left) into '*cp' through
 * base/utf8; return its length in bytes, or -1 for an invalid sequence. */
static inline utf8proc_ssize_t decode_cp(const char *p, size_t n, utf8proc_int32_t *cp)
{
	uint32_t c;
	size_t k = utf8_decode(p, n, &c);

	*cp = (utf8proc_int32_t)c;
	return k ? (utf8proc_ssize_t)k : -1;
}

/* decode_cp, with ASCII taken without a call. */
static inline utf8proc_ssize_t next_cp(const char *p, size_t n, utf8proc_int32_t *cp)
{
	if (!((unsigned char)*p & 0x80) && text_ascii_fast) {
		*cp = (unsigned char)*p;
		return 1;
	}
	return decode_cp(p, n, cp);
}

/* Return whether the 'len' bytes of 's' are all ASCII. */
static bool is_ascii(const char *s, size_t len)
{
	unsigned char any = 0;

	for (size_t i = 0; i < len; i++)
		any |= (unsigned char)s[i];
	return !(any & 0x80);
}

/* Return 'len' bytes of 's' with every invalid UTF-8 sequence and NUL replaced by a space; caller frees. */
static char *sanitize(const char *s, size_t len)
{
	char *out = xmalloc(len + 1);
	size_t i = 0;

	while (i < len) {
		utf8proc_int32_t cp;
		utf8proc_ssize_t n = decode_cp(s + i, len - i, &cp);
		if (n <= 0 || cp == 0) {
			out[i++] = ' ';
			continue;
		}
		memcpy(out + i, s + i, (size_t)n);
		i += (size_t)n;
	}
	out[len] = '\0';
	return out;
}

/* Bytes of a caller's buffer that fold() uses for short ASCII text. */
#define FOLD_SMALL 256

/*
 * Return 's' mapped to NFKC + case fold, and its length in '*out_len': in
 * 'small' (FOLD_SMALL bytes) when it fits, else in memory the caller frees
 * (free the result when it is not 'small'). Fills the ASCII class table on
 * first use.
 */
/* Append the NFKC + case fold of the 'len' bytes of 's' through utf8proc. */
static void fold_slow(struct strbuf *out, const char *s, size_t len)
{
	char *clean = sanitize(s, len);
	utf8proc_uint8_t *mapped = NULL;
	utf8proc_ssize_t n;

	n = utf8proc_map((const utf8proc_uint8_t *)clean, (utf8proc_ssize_t)len, &mapped,
			 UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT |
			 UTF8PROC_CASEFOLD | UTF8PROC_IGNORE);
	/* n < 0 cannot happen after sanitize, short of memory: keep the input */
	if (n < 0)
		strbuf_add(out, clean, len);
	else
		strbuf_add(out, mapped, (size_t)n);
	free(mapped);
	free(clean);
}

/* Write the fold of 'len' ASCII bytes of 's' to 'out': lower case, NUL a space. */
static void fold_ascii(char *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		out[i] = !c ? ' ' : c >= 'A' && c <= 'Z' ? (char)(c + ('a' - 'A')) : c;
	}
}

/*
 * Return 's' mapped to NFKC + case fold, and its length in '*out_len': in
 * 'small' (FOLD_SMALL bytes) when it fits, else in memory the caller frees
 * (free the result when it is not 'small'). Fills the ASCII class table on
 * first use.
 *
 * With the fast path, only the non-ASCII stretches go through utf8proc, each
 * with the ASCII character before it (a combining mark composes with it:
 * "e" U+0301 is "é") and up to an ASCII character that another ASCII
 * character or the end follows (no mark after it). An ASCII character never
 * composes with what precedes it, and folding maps no character by its
 * neighbours, so the pieces fold as the whole would.
 */
static char *fold(const char *s, size_t len, char *small, size_t *out_len)
{
	struct strbuf out = STRBUF_INIT;
	size_t i = 0;

	pthread_once(&ascii_once, ascii_init);
	if (text_ascii_fast && is_ascii(s, len)) {
		char *o = len < FOLD_SMALL ? small : xmalloc(len + 1);

		fold_ascii(o, s, len);
		o[len] = '\0';
		*out_len = len;
		return o;
	}
	if (!text_ascii_fast) {
		fold_slow(&out, s, len);
		*out_len = out.len;
		return strbuf_detach(&out, NULL);
	}
	strbuf_grow(&out, len + len / 4);
	while (i < len) {
		size_t j = i, a, e;

		while (j < len && !((unsigned char)s[j] & 0x80))
			j++;
		a = j > i && j < len ? j - 1 : j;
		strbuf_grow(&out, a - i);
		fold_ascii(out.buf + out.len, s + i, a - i);
		strbuf_setlen(&out, out.len + (a - i));
		if (j == len)
			break;
		for (e = j; e < len; e++)
			if (!((unsigned char)s[e] & 0x80) && (e + 1 == len || !((unsigned char)s[e + 1] & 0x80)))
				break;
		fold_slow(&out, s + a, e - a);
		i = e;
	}
	*out_len = out.len;
	return strbuf_detach(&out, NULL);
}

enum text_script text_script_of(int32_t cp)
{
	static const struct { int32_t lo, hi; unsigned char sc; } ranges[] = {
		{ 0x0041, 0x005A, TEXT_SCRIPT_LATIN }, { 0x0061, 0x007A, TEXT_SCRIPT_LATIN },
		{ 0x00AA, 0x00AA, TEXT_SCRIPT_LATIN }, { 0x00BA, 0x00BA, TEXT_SCRIPT_LATIN },
		{ 0x00C0, 0x024F, TEXT_SCRIPT_LATIN }, { 0x0250, 0x02AF, TEXT_SCRIPT_LATIN },
		{ 0x0370, 0x03FF, TEXT_SCRIPT_GREEK }, { 0x0400, 0x052F, TEXT_SCRIPT_CYRILLIC },
		{ 0x0530, 0x058F, TEXT_SCRIPT_ARMENIAN }, { 0x0590, 0x05FF, TEXT_SCRIPT_HEBREW },
		{ 0x0600, 0x06FF, TEXT_SCRIPT_ARABIC }, { 0x0750, 0x077F, TEXT_SCRIPT_ARABIC },
		{ 0x08A0, 0x08FF, TEXT_SCRIPT_ARABIC }, { 0x0900, 0x097F, TEXT_SCRIPT_DEVANAGARI },
		{ 0x0B80, 0x0BFF, TEXT_SCRIPT_TAMIL }, { 0x0E00, 0x0E7F, TEXT_SCRIPT_THAI },
		{ 0x0E80, 0x0EFF, TEXT_SCRIPT_LAO }, { 0x1000, 0x109F, TEXT_SCRIPT_MYANMAR },
		{ 0x10A0, 0x10FF, TEXT_SCRIPT_GEORGIAN }, { 0x1100, 0x11FF, TEXT_SCRIPT_HANGUL },
		{ 0x1780, 0x17FF, TEXT_SCRIPT_KHMER }, { 0x19E0, 0x19FF, TEXT_SCRIPT_KHMER },
		{ 0x1C80, 0x1C8F, TEXT_SCRIPT_CYRILLIC }, { 0x1C90, 0x1CBF, TEXT_SCRIPT_GEORGIAN },
		{ 0x1E00, 0x1EFF, TEXT_SCRIPT_LATIN }, { 0x1F00, 0x1FFF, TEXT_SCRIPT_GREEK },
		{ 0x2C60, 0x2C7F, TEXT_SCRIPT_LATIN }, { 0x2D00, 0x2D2F, TEXT_SCRIPT_GEORGIAN },
		{ 0x2DE0, 0x2DFF, TEXT_SCRIPT_CYRILLIC }, { 0x2E80, 0x2FDF, TEXT_SCRIPT_HAN },
		{ 0x3005, 0x3005, TEXT_SCRIPT_HAN }, { 0x3007, 0x3007, TEXT_SCRIPT_HAN },
		{ 0x3021, 0x3029, TEXT_SCRIPT_HAN }, { 0x3038, 0x303B, TEXT_SCRIPT_HAN },
		{ 0x3041, 0x30FF, TEXT_SCRIPT_KANA }, { 0x3131, 0x318E, TEXT_SCRIPT_HANGUL },
		{ 0x31F0, 0x31FF, TEXT_SCRIPT_KANA }, { 0x3400, 0x4DBF, TEXT_SCRIPT_HAN },
		{ 0x4E00, 0x9FFF, TEXT_SCRIPT_HAN }, { 0xA640, 0xA69F, TEXT_SCRIPT_CYRILLIC },
		{ 0xA720, 0xA7FF, TEXT_SCRIPT_LATIN }, { 0xA8E0, 0xA8FF, TEXT_SCRIPT_DEVANAGARI },
		{ 0xA960, 0xA97F, TEXT_SCRIPT_HANGUL }, { 0xA9E0, 0xA9FF, TEXT_SCRIPT_MYANMAR },
		{ 0xAA60, 0xAA7F, TEXT_SCRIPT_MYANMAR }, { 0xAB30, 0xAB6F, TEXT_SCRIPT_LATIN },
		{ 0xAC00, 0xD7FF, TEXT_SCRIPT_HANGUL }, { 0xF900, 0xFAFF, TEXT_SCRIPT_HAN },
		{ 0xFB1D, 0xFB4F, TEXT_SCRIPT_HEBREW }, { 0xFB50, 0xFDFF, TEXT_SCRIPT_ARABIC },
		{ 0xFE70, 0xFEFF, TEXT_SCRIPT_ARABIC }, { 0xFF21, 0xFF3A, TEXT_SCRIPT_LATIN },
		{ 0xFF41, 0xFF5A, TEXT_SCRIPT_LATIN }, { 0xFF66, 0xFF9F, TEXT_SCRIPT_KANA },
		{ 0xFFA0, 0xFFDC, TEXT_SCRIPT_HANGUL }, { 0x1B000, 0x1B16F, TEXT_SCRIPT_KANA },
		{ 0x20000, 0x3FFFF, TEXT_SCRIPT_HAN },
	};
	size_t lo = 0, hi = ARRAY_SIZE(ranges);

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (cp < ranges[mid].lo)
			hi = mid;
		else if (cp > ranges[mid].hi)
			lo = mid + 1;
		else
			return (enum text_script)ranges[mid].sc;
	}
	return TEXT_SCRIPT_NONE;
}

enum text_script text_script_of_word(const char *w, size_t len)
{
	size_t i = 0;

	while (i < len) {
		utf8proc_int32_t cp;
		utf8proc_ssize_t n = decode_cp(w + i, len - i, &cp);
		enum text_script sc;

		if (n <= 0)
			return TEXT_SCRIPT_NONE;
		sc = text_script_of(cp);
		if (sc != TEXT_SCRIPT_NONE)
			return sc;
		i += (size_t)n;
	}
	return TEXT_SCRIPT_NONE;
}

/* How a run of word characters is cut into tokens. */
enum seg {
	SEG_PLAIN,  /* one token */
	SEG_CJK,    /* overlapping bigrams */
	SEG_DICT,   /* ICU's dictionary word breaks */
};

static enum seg seg_of(utf8proc_int32_t cp)
{
	if (cp < 0x0E00)
		return SEG_PLAIN;
	switch (text_script_of(cp)) {
	case TEXT_SCRIPT_HAN: case TEXT_SCRIPT_KANA: case TEXT_SCRIPT_HANGUL:
		return SEG_CJK;
	case TEXT_SCRIPT_THAI: case TEXT_SCRIPT_LAO: case TEXT_SCRIPT_KHMER: case TEXT_SCRIPT_MYANMAR:
		return SEG_DICT;
	default:
		return SEG_PLAIN;
	}
}

/* True for a combining mark: it stays with the run before it. */
static bool is_mark(utf8proc_int32_t cp)
{
	utf8proc_category_t c;

	if (cp < 0x300)
		return false;
	c = utf8proc_category(cp);
	return c == UTF8PROC_CATEGORY_MN || c == UTF8PROC_CATEGORY_MC || c == UTF8PROC_CATEGORY_ME;
}

/* The word break iterator dictionary runs are cloned from (opened once). */
static UBreakIterator *dict_proto;
static pthread_once_t dict_once = PTHREAD_ONCE_INIT;

static void dict_init(void)
{
	UErrorCode st = U_ZERO_ERROR;

	/* the dictionary follows the characters' script, whatever the locale */
	dict_proto = icu_lib()->open(UBRK_WORD, "th", NULL, 0, &st);
	if (U_FAILURE(st))
		dict_proto = NULL;
}

/* State of one walk over a text: the break iterator, cloned on the first
 * dictionary run and closed at the end of the walk. */
struct walk {
	void (*fn)(const char *w, size_t len, void *data);
	void *data;
	UBreakIterator *bi;
	UChar *u16;
	int32_t *u8off;   /* per UTF-16 unit: byte offset in the run */
	size_t alloc;
};

/* Cut the run 'w' ('len' bytes, one script of SEG_DICT) into words with ICU. */
static void emit_dict(struct walk *wk, const char *w, size_t len)
{
	UErrorCode st = U_ZERO_ERROR;
	size_t i = 0, n16 = 0;
	int32_t prev, b;
	const struct icu_lib *icu;

	if (len > INT32_MAX / 2)
		goto whole;
	pthread_once(&dict_once, dict_init);
	icu = icu_lib();
	if (!dict_proto)
		goto whole;
	if (!wk->bi) {
		wk->bi = icu->clone(dict_proto, &st);
		if (U_FAILURE(st)) {
			wk->bi = NULL;
			goto whole;
		}
	}
	if (len + 1 > wk->alloc) {
		wk->alloc = len + 1;
		wk->u16 = xreallocarray(wk->u16, wk->alloc, sizeof(*wk->u16));
		wk->u8off = xreallocarray(wk->u8off, wk->alloc, sizeof(*wk->u8off));
	}
	while (i < len) {
		utf8proc_int32_t cp;
		utf8proc_ssize_t n = decode_cp(w + i, len - i, &cp);
		if (n <= 0)
			goto whole;
		if (cp >= 0x10000) {
			wk->u8off[n16] = (int32_t)i;
			wk->u16[n16++] = (UChar)(0xD800 + ((cp - 0x10000) >> 10));
			wk->u8off[n16] = (int32_t)i;
			wk->u16[n16++] = (UChar)(0xDC00 + ((cp - 0x10000) & 0x3FF));
		} else {
			wk->u8off[n16] = (int32_t)i;
			wk->u16[n16++] = (UChar)cp;
		}
		i += (size_t)n;
	}
	wk->u8off[n16] = (int32_t)len;
	icu->set_text(wk->bi, wk->u16, (int32_t)n16, &st);
	if (U_FAILURE(st))
		goto whole;
	prev = icu->first(wk->bi);
	while ((b = icu->next(wk->bi)) != UBRK_DONE) {
		if (icu->get_rule_status(wk->bi) >= UBRK_WORD_NONE_LIMIT)
			wk->fn(w + wk->u8off[prev], (size_t)(wk->u8off[b] - wk->u8off[prev]), wk->data);
		prev = b;
	}
	return;
whole:
	wk->fn(w, len, wk->data);
}

/* Emit the overlapping character bigrams of the run 'w' ('len' bytes). */
static void emit_bigrams(struct walk *wk, const char *w, size_t len)
{
	size_t a = 0, b, c;
	utf8proc_int32_t cp;
	utf8proc_ssize_t n = decode_cp(w, len, &cp);

	b = n > 0 ? (size_t)n : 1;
	if (b >= len) {
		wk->fn(w, len, wk->data);
		return;
	}
	/* a: start of the pair's first character, b: of its second, c: end */
	while (b < len) {
		n = decode_cp(w + b, len - b, &cp);
		c = b + (n > 0 ? (size_t)n : 1);
		/* combining marks ride with the character before them */
		while (c < len) {
			utf8proc_ssize_t m = decode_cp(w + c, len - c, &cp);
			if (m <= 0 || !is_mark(cp))
				break;
			c += (size_t)m;
		}
		wk->fn(w + a, c - a, wk->data);
		a = b;
		b = c;
	}
}

static void emit_run(struct walk *wk, enum seg seg, const char *w, size_t len)
{
	switch (seg) {
	case SEG_CJK:
		emit_bigrams(wk, w, len);
		break;
	case SEG_DICT:
		emit_dict(wk, w, len);
		break;
	default:
		wk->fn(w, len, wk->data);
	}
}

/*
 * Walk the 'len' bytes of folded text 'f' calling 'fn' for each token
 * (start, length): runs of word characters, cut where the segmentation
 * changes (see text.h).
 */
static void each_word(const char *f, size_t len,
		      void (*fn)(const char *w, size_t len, void *data), void *data)
{
	struct walk wk = { fn, data, NULL, NULL, NULL, 0 };
	size_t i = 0, start = 0;
	int in_word = 0;
	enum seg seg = SEG_PLAIN;

	while (i < len) {
		utf8proc_int32_t cp;
		utf8proc_ssize_t n = next_cp(f + i, len - i, &cp);
		if (n <= 0) {
			n = 1;
			cp = ' ';
		}
		if (cp_class(cp) & CP_WORD) {
			enum seg s = seg_of(cp);
			if (!in_word) {
				start = i;
				in_word = 1;
				seg = s;
			} else if (s != seg && !is_mark(cp)) {
				emit_run(&wk, seg, f + start, i - start);
				start = i;
				seg = s;
			}
		} else if (in_word) {
			emit_run(&wk, seg, f + start, i - start);
			in_word = 0;
		}
		i += (size_t)n;
	}
	if (in_word)
		emit_run(&wk, seg, f + start, len - start);
	if (wk.bi)
		icu_lib()->close(wk.bi);
	free(wk.u16);
	free(wk.u8off);
}

static void add_word_sb(const char *w, size_t len, void *data)
{
	struct strbuf *sb = data;

	if (sb->len)
		strbuf_addch(sb, ' ');
	strbuf_add(sb, w, len);
}

char *text_normalize(const char *s, size_t len)
{
	size_t flen;
	char small[FOLD_SMALL], *f = fold(s, len, small, &flen);
	struct strbuf sb = STRBUF_INIT;

	strbuf_grow(&sb, flen);
	each_word(f, flen, add_word_sb, &sb);
	if (f != small)
		free(f);
	return strbuf_detach(&sb, NULL);
}

char *text_normalize_query(const char *s, size_t len)
{
	size_t flen, i = 0, o = 0;
	char small[FOLD_SMALL], *f = fold(s, len, small, &flen);
	char *out = xmalloc(flen + 1);  /* the result is never longer than the folded text */
	int pending_space = 0;

	/* collapse whitespace (Unicode Z* and controls) to single spaces */
	while (i < flen) {
		utf8proc_int32_t cp;
		utf8proc_ssize_t n = next_cp(f + i, flen - i, &cp);

		if (n <= 0) {
			i++;
			continue;
		}
		if (cp_class(cp) & CP_SPACE) {
			pending_space = o > 0;
		} else {
			if (pending_space)
				out[o++] = ' ';
			pending_space = 0;
			memcpy(out + o, f + i, (size_t)n);
			o += (size_t)n;
		}
		i += (size_t)n;
	}
	if (f != small)
		free(f);
	/* drop trailing punctuation and spaces ("how do i reset it?!" -> "how do i reset it") */
	while (o > 0) {
		size_t b = utf8_floor(out, o - 1);
		utf8proc_int32_t cp;

		if (next_cp(out + b, o - b, &cp) <= 0)
			break;
		if (cp == ' ' || (cp_class(cp) & CP_PUNCT))
			o = b;
		else
			break;
	}
	out[o] = '\0';
	return out;
}

static void add_token(const char *w, size_t len, void *data)
{
	struct tokens *t = data;

	ALLOC_GROW(t->items, t->nr + 1, t->alloc);
	t->items[t->nr++] = xstrndup(w, len);
}

void text_tokenize(const char *s, size_t len, struct tokens *out)
{
	text_each_token(s, len, add_token, out);
}

void text_each_token(const char *s, size_t len,
		     void (*fn)(const char *w, size_t len, void *data), void *data)
{
	size_t flen;
	char small[FOLD_SMALL], *f = fold(s, len, small, &flen);

	each_word(f, flen, fn, data);
	if (f != small)
		free(f);
}

void tokens_release(struct tokens *t)
{
	for (size_t i = 0; i < t->nr; i++)
		free(t->items[i]);
	free(t->items);
	t->items = NULL;
	t->nr = t->alloc = 0;
}
