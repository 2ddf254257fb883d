/*
 * text: normalisation, tokens and lexical similarity (see text.h).
 *
 * Everything goes through one pass: map the input to NFKC + case fold with
 * utf8proc (invalid UTF-8 bytes and NUL become spaces first, so one bad byte
 * never loses a whole string), then classify each code point as a word
 * character (letters, marks, numbers) or a separator. Similarities work on
 * token hashes; collisions of 64-bit hashes are ignored as negligible.
 *
 * ASCII fast path (text_ascii_fast): NFKC + case fold of pure ASCII text is
 * ASCII lower-casing, so such text skips utf8proc_map; and a code point below
 * 128 takes its class from a table filled once (pthread_once) from
 * utf8proc_category itself, so both paths classify alike by construction.
 * Stop words are found through a small hash table, also filled once. After
 * those one-time fills (pthread_once) every function here is pure: safe to
 * call from several threads at once.
 */
#include "text/text.h"
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

/* Decode the code point at 'p' ('n' > 0 bytes left) into '*cp'; return its
 * length in bytes, or a value <= 0 for an invalid sequence. */
static inline utf8proc_ssize_t next_cp(const char *p, size_t n, utf8proc_int32_t *cp)
{
	if (!((unsigned char)*p & 0x80) && text_ascii_fast) {
		*cp = (unsigned char)*p;
		return 1;
	}
	return utf8proc_iterate((const utf8proc_uint8_t *)p, (utf8proc_ssize_t)n, cp);
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
		utf8proc_ssize_t n = utf8proc_iterate((const utf8proc_uint8_t *)s + i,
						      (utf8proc_ssize_t)(len - i), &cp);
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
static char *fold(const char *s, size_t len, char *small, size_t *out_len)
{
	char *clean;
	utf8proc_uint8_t *mapped = NULL;
	utf8proc_ssize_t n;

	pthread_once(&ascii_once, ascii_init);
	if (text_ascii_fast && is_ascii(s, len)) {
		/* NFKC leaves ASCII alone; case folding lower-cases A-Z */
		char *out = len < FOLD_SMALL ? small : xmalloc(len + 1);
		for (size_t i = 0; i < len; i++) {
			char c = s[i];
			out[i] = !c ? ' ' : c >= 'A' && c <= 'Z' ? (char)(c + ('a' - 'A')) : c;
		}
		out[len] = '\0';
		*out_len = len;
		return out;
	}
	clean = sanitize(s, len);
	n = utf8proc_map((const utf8proc_uint8_t *)clean, (utf8proc_ssize_t)len, &mapped,
			 UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT |
			 UTF8PROC_CASEFOLD | UTF8PROC_IGNORE);
	if (n < 0) {
		/* cannot happen after sanitize, short of memory; keep the input */
		*out_len = len;
		return clean;
	}
	free(clean);
	*out_len = (size_t)n;
	return (char *)mapped;
}

/*
 * Walk the 'len' bytes of folded text 'f' calling 'fn' for each word (start, length).
 */
static void each_word(const char *f, size_t len,
		      void (*fn)(const char *w, size_t len, void *data), void *data)
{
	size_t i = 0, start = 0;
	int in_word = 0;

	while (i < len) {
		utf8proc_int32_t cp;
		utf8proc_ssize_t n = next_cp(f + i, len - i, &cp);
		if (n <= 0) {
			n = 1;
			cp = ' ';
		}
		if (cp_class(cp) & CP_WORD) {
			if (!in_word) {
				start = i;
				in_word = 1;
			}
		} else if (in_word) {
			fn(f + start, i - start, data);
			in_word = 0;
		}
		i += (size_t)n;
	}
	if (in_word)
		fn(f + start, len - start, data);
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

/* English stop words (function words and question words). */
static const char *const stopwords[] = {
	"a", "about", "above", "after", "again", "against", "all", "am", "an", "and",
	"any", "are", "as", "at", "be", "because", "been", "before", "being", "below",
	"between", "both", "but", "by", "can", "could", "did", "do", "does", "doing",
	"down", "during", "each", "few", "for", "from", "further", "had", "has", "have",
	"having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how",
	"i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most",
	"my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or",
	"other", "our", "ours", "ourselves", "out", "over", "own", "same", "she", "should",
	"so", "some", "such", "than", "that", "the", "their", "theirs", "them",
	"themselves", "then", "there", "these", "they", "this", "those", "through", "to",
	"too", "under", "until", "up", "very", "was", "we", "were", "what", "when",
	"where", "which", "while", "who", "whom", "whose", "why", "will", "with", "would",
	"you", "your", "yours", "yourself", "yourselves",
};

/* Stop words by hash (open addressing): index + 1 into stopwords, 0 empty. */
#define STOP_SLOTS 512
static unsigned short stop_slot[STOP_SLOTS];
static unsigned char stop_len[ARRAY_SIZE(stopwords)];
static size_t stop_max;

/* Return the first slot to probe for the 'len' bytes at 'w' (FNV-1a). */
static size_t stop_hash(const char *w, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)w[i]) * 16777619u;
	return (h ^ (h >> 15)) & (STOP_SLOTS - 1);
}

/* Fill the stop word table (once). */
static void stop_init(void)
{
	for (size_t k = 0; k < ARRAY_SIZE(stopwords); k++) {
		size_t len = strlen(stopwords[k]), i = stop_hash(stopwords[k], len);
		while (stop_slot[i])
			i = (i + 1) & (STOP_SLOTS - 1);
		stop_slot[i] = (unsigned short)(k + 1);
		stop_len[k] = (unsigned char)len;
		if (len > stop_max)
			stop_max = len;
	}
}

bool text_is_stopword(const char *word)
{
	return text_is_stopword_mem(word, strlen(word));
}

bool text_is_stopword_mem(const char *w, size_t len)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	size_t i;

	pthread_once(&once, stop_init);
	if (!len || len > stop_max)
		return false;
	for (i = stop_hash(w, len); stop_slot[i]; i = (i + 1) & (STOP_SLOTS - 1)) {
		size_t k = stop_slot[i] - 1u;
		if (stop_len[k] == len && !memcmp(stopwords[k], w, len))
			return true;
	}
	return false;
}

/* A sorted, de-duplicated array of token hashes. */
struct hashset {
	uint64_t *h;
	size_t nr;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

struct hash_acc {
	uint64_t *h;
	size_t nr, alloc;
	int all;
};

static void add_hash(const char *w, size_t len, void *data)
{
	struct hash_acc *acc = data;

	if (acc->all || !text_is_stopword_mem(w, len)) {
		ALLOC_GROW(acc->h, acc->nr + 1, acc->alloc);
		acc->h[acc->nr++] = strhash(w, len);
	}
}

/* Fill 'hs' with the hashes of the content words of 's' (all words when 'all'). */
static void hashset_of(const char *s, int all, struct hashset *hs)
{
	struct hash_acc acc = { NULL, 0, 0, all };

	text_each_token(s, strlen(s), add_hash, &acc);
	ALLOC_GROW(acc.h, 1, acc.alloc);  /* never NULL */
	qsort(acc.h, acc.nr, sizeof(uint64_t), cmp_u64);
	hs->h = acc.h;
	hs->nr = 0;
	for (size_t i = 0; i < acc.nr; i++)
		if (!hs->nr || hs->h[hs->nr - 1] != hs->h[i])
			hs->h[hs->nr++] = hs->h[i];
}

static bool hashset_has(const struct hashset *hs, uint64_t h)
{
	return bsearch(&h, hs->h, hs->nr, sizeof(uint64_t), cmp_u64) != NULL;
}

double text_similarity(const char *a, const char *b)
{
	struct hashset x, y;
	size_t inter = 0, uni;
	double sim;

	hashset_of(a, 0, &x);
	hashset_of(b, 0, &y);
	if (!x.nr && !y.nr) {
		/* only stop words on both sides: compare every word */
		free(x.h);
		free(y.h);
		hashset_of(a, 1, &x);
		hashset_of(b, 1, &y);
	}
	for (size_t i = 0; i < x.nr; i++)
		inter += hashset_has(&y, x.h[i]);
	uni = x.nr + y.nr - inter;
	sim = uni ? (double)inter / (double)uni : 1.0;
	free(x.h);
	free(y.h);
	return sim;
}

bool text_near_duplicate(const char *a, const char *b, double threshold)
{
	char *na = text_normalize(a, strlen(a));
	char *nb = text_normalize(b, strlen(b));
	bool same = !strcmp(na, nb);

	free(na);
	free(nb);
	return same || text_similarity(a, b) >= threshold;
}

double text_overlap(const char *question, const char *chunk)
{
	struct hashset q, c;
	size_t found = 0;
	double share;

	hashset_of(question, 0, &q);
	if (!q.nr) {
		free(q.h);
		return 0.0;
	}
	hashset_of(chunk, 1, &c);
	for (size_t i = 0; i < q.nr; i++)
		found += hashset_has(&c, q.h[i]);
	share = (double)found / (double)q.nr;
	free(q.h);
	free(c.h);
	return share;
}

double text_copied_share(const char *question, const char *chunk)
{
	struct tokens tq = TOKENS_INIT, tc = TOKENS_INIT;
	uint64_t *hq, *hc;
	size_t *prev, *cur, best = 0;
	double share;

	text_tokenize(question, strlen(question), &tq);
	text_tokenize(chunk, strlen(chunk), &tc);
	if (!tq.nr || !tc.nr) {
		tokens_release(&tq);
		tokens_release(&tc);
		return 0.0;
	}
	hq = xmalloc(tq.nr * sizeof(*hq));
	hc = xmalloc(tc.nr * sizeof(*hc));
	for (size_t i = 0; i < tq.nr; i++)
		hq[i] = strhash(tq.items[i], strlen(tq.items[i]));
	for (size_t j = 0; j < tc.nr; j++)
		hc[j] = strhash(tc.items[j], strlen(tc.items[j]));
	/* longest common run of consecutive tokens, by dynamic programming */
	prev = xcalloc(tc.nr + 1, sizeof(*prev));
	cur = xcalloc(tc.nr + 1, sizeof(*cur));
	for (size_t i = 1; i <= tq.nr; i++) {
		size_t *tmp;
		for (size_t j = 1; j <= tc.nr; j++) {
			cur[j] = hq[i - 1] == hc[j - 1] ? prev[j - 1] + 1 : 0;
			if (cur[j] > best)
				best = cur[j];
		}
		tmp = prev;
		prev = cur;
		cur = tmp;
	}
	share = (double)best / (double)tq.nr;
	free(prev);
	free(cur);
	free(hq);
	free(hc);
	tokens_release(&tq);
	tokens_release(&tc);
	return share;
}
