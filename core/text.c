/*
 * text: normalisation, tokens and lexical similarity (see text.h).
 *
 * Everything goes through one pass: map the input to NFKC + case fold with
 * utf8proc (invalid UTF-8 bytes become spaces first, so one bad byte never
 * loses a whole string), then classify each code point as a word character
 * (letters, marks, numbers) or a separator. Similarities work on token
 * hashes; collisions of 64-bit hashes are ignored as negligible.
 */
#include "text.h"
#include "strbuf.h"
#include "strmap.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

/* Return 'len' bytes of 's' with every invalid UTF-8 sequence replaced by a space; caller frees. */
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

/* Return 's' mapped to NFKC + case fold; caller frees. */
static char *fold(const char *s, size_t len)
{
	char *clean = sanitize(s, len);
	utf8proc_uint8_t *mapped = NULL;
	utf8proc_ssize_t n;

	n = utf8proc_map((const utf8proc_uint8_t *)clean, (utf8proc_ssize_t)len, &mapped,
			 UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT |
			 UTF8PROC_CASEFOLD | UTF8PROC_IGNORE);
	if (n < 0) {
		/* cannot happen after sanitize, short of memory; keep the input */
		return clean;
	}
	free(clean);
	return (char *)mapped;
}

static int is_word_cp(utf8proc_int32_t cp)
{
	switch (utf8proc_category(cp)) {
	case UTF8PROC_CATEGORY_LU: case UTF8PROC_CATEGORY_LL: case UTF8PROC_CATEGORY_LT:
	case UTF8PROC_CATEGORY_LM: case UTF8PROC_CATEGORY_LO:
	case UTF8PROC_CATEGORY_MN: case UTF8PROC_CATEGORY_MC: case UTF8PROC_CATEGORY_ME:
	case UTF8PROC_CATEGORY_ND: case UTF8PROC_CATEGORY_NL: case UTF8PROC_CATEGORY_NO:
		return 1;
	default:
		return 0;
	}
}

/*
 * Walk the folded text 'f' calling 'fn' for each word (start, length).
 */
static void each_word(const char *f, void (*fn)(const char *w, size_t len, void *data), void *data)
{
	const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)f;
	size_t i = 0, start = 0, len = strlen(f);
	int in_word = 0;

	while (i < len) {
		utf8proc_int32_t cp;
		utf8proc_ssize_t n = utf8proc_iterate(p + i, (utf8proc_ssize_t)(len - i), &cp);
		if (n <= 0) {
			n = 1;
			cp = ' ';
		}
		if (is_word_cp(cp)) {
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
	char *f = fold(s, len);
	struct strbuf sb = STRBUF_INIT;

	each_word(f, add_word_sb, &sb);
	free(f);
	return strbuf_detach(&sb, NULL);
}

char *text_normalize_query(const char *s, size_t len)
{
	char *f = fold(s, len);
	struct strbuf sb = STRBUF_INIT;
	const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)f;
	size_t i = 0, flen = strlen(f), keep;
	int pending_space = 0;

	/* collapse whitespace (Unicode Z* and controls) to single spaces */
	while (i < flen) {
		utf8proc_int32_t cp;
		utf8proc_ssize_t n = utf8proc_iterate(p + i, (utf8proc_ssize_t)(flen - i), &cp);
		utf8proc_category_t cat;

		if (n <= 0) {
			i++;
			continue;
		}
		cat = utf8proc_category(cp);
		if (cat == UTF8PROC_CATEGORY_ZS || cat == UTF8PROC_CATEGORY_ZL ||
		    cat == UTF8PROC_CATEGORY_ZP || cat == UTF8PROC_CATEGORY_CC) {
			pending_space = sb.len > 0;
		} else {
			if (pending_space)
				strbuf_addch(&sb, ' ');
			pending_space = 0;
			strbuf_add(&sb, f + i, (size_t)n);
		}
		i += (size_t)n;
	}
	free(f);
	/* drop trailing punctuation and spaces ("how do i reset it?!" -> "how do i reset it") */
	keep = sb.len;
	while (keep > 0) {
		size_t b = keep - 1;
		utf8proc_int32_t cp;
		utf8proc_category_t cat;

		while (b > 0 && ((unsigned char)sb.buf[b] & 0xC0) == 0x80)
			b--;
		if (utf8proc_iterate((const utf8proc_uint8_t *)sb.buf + b,
				     (utf8proc_ssize_t)(keep - b), &cp) <= 0)
			break;
		cat = utf8proc_category(cp);
		if (cp == ' ' || (cat >= UTF8PROC_CATEGORY_PC && cat <= UTF8PROC_CATEGORY_PO))
			keep = b;
		else
			break;
	}
	strbuf_setlen(&sb, keep);
	return strbuf_detach(&sb, NULL);
}

static void add_token(const char *w, size_t len, void *data)
{
	struct tokens *t = data;

	ALLOC_GROW(t->items, t->nr + 1, t->alloc);
	t->items[t->nr++] = xstrndup(w, len);
}

void text_tokenize(const char *s, size_t len, struct tokens *out)
{
	char *f = fold(s, len);

	each_word(f, add_token, out);
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

/* English stop words (function words and question words), sorted for bsearch. */
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

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool text_is_stopword(const char *word)
{
	return bsearch(&word, stopwords, ARRAY_SIZE(stopwords), sizeof(stopwords[0]), cmp_str) != NULL;
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

/* Fill 'hs' with the hashes of the content words of 's' (all words when 'all'). */
static void hashset_of(const char *s, int all, struct hashset *hs)
{
	struct tokens t = TOKENS_INIT;
	size_t n = 0;

	text_tokenize(s, strlen(s), &t);
	hs->h = xcalloc(t.nr + 1, sizeof(uint64_t));
	for (size_t i = 0; i < t.nr; i++)
		if (all || !text_is_stopword(t.items[i]))
			hs->h[n++] = strhash(t.items[i], strlen(t.items[i]));
	qsort(hs->h, n, sizeof(uint64_t), cmp_u64);
	hs->nr = 0;
	for (size_t i = 0; i < n; i++)
		if (!hs->nr || hs->h[hs->nr - 1] != hs->h[i])
			hs->h[hs->nr++] = hs->h[i];
	tokens_release(&t);
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
