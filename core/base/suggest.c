/*
 * suggest: edit distance and "did you mean" (suggest.h). The distance keeps
 * one row of the dynamic-programming table on the stack, names being short.
 */
#include "base/suggest.h"
#include "base/util.h"

#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool same_byte(char x, char y, bool fold_case)
{
	if (fold_case)
		return tolower((unsigned char)x) == tolower((unsigned char)y);
	return x == y;
}

size_t edit_distance(const char *a, size_t la, const char *b, size_t lb, bool fold_case, size_t cap)
{
	size_t row[SUGGEST_MAX_LEN + 1], prev;

	if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
		return cap;
	/* the lengths alone already differ by more than the cap */
	if ((la > lb ? la - lb : lb - la) >= cap)
		return cap;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cur = row[j], best = prev + !same_byte(a[i - 1], b[j - 1], fold_case);

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = cur;
		}
	}
	return row[lb] < cap ? row[lb] : cap;
}

void suggest_init(struct suggest *s, const char *word, size_t len, size_t max, bool fold_case)
{
	memset(s, 0, sizeof(*s));
	s->word = word;
	s->len = len;
	s->max = max;
	s->fold_case = fold_case;
	s->best = max + 1;
}

size_t suggest_max_for(size_t len)
{
	return len / 3;
}

/* Keep 'name' at distance 'd' when no name kept is closer. */
static void keep(struct suggest *s, const char *name, size_t d)
{
	if (d > s->best || d > s->max)
		return;
	if (d < s->best) {
		for (size_t i = 0; i < s->nr; i++)
			free(s->names[i]);
		s->nr = 0;
		s->best = d;
	}
	ALLOC_GROW(s->names, s->nr + 1, s->alloc);
	s->names[s->nr++] = xstrdup(name);
}

void suggest_offer(struct suggest *s, const char *name)
{
	keep(s, name, edit_distance(s->word, s->len, name, strlen(name), s->fold_case, s->max + 1));
}

size_t suggest_did_you_mean(const struct suggest *s, size_t most, const char *tail, struct strbuf *out)
{
	size_t n = s->nr < most ? s->nr : most;

	if (!n)
		return 0;
	strbuf_addstr(out, "; did you mean ");
	for (size_t i = 0; i < n; i++)
		strbuf_addf(out, "%s'%s%s'", i ? ", " : "", s->names[i], tail ? tail : "");
	strbuf_addch(out, '?');
	return n;
}

void suggest_release(struct suggest *s)
{
	for (size_t i = 0; i < s->nr; i++)
		free(s->names[i]);
	free(s->names);
	memset(s, 0, sizeof(*s));
}

/* ---- many names: the sorted index ---- */

/* A name with its first eight bytes as a number that sorts as strcmp does:
 * most comparisons end there, without reaching into the strings. */
struct keyed {
	uint64_t key;
	const char *name;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	/* equal keys: both names end within the key, or share its eight bytes */
	return (x->key & 0xff) ? strcmp(x->name + 8, y->name + 8) : 0;
}

void suggest_index_build(struct suggest_index *ix, const char *const *names, size_t nr)
{
	struct keyed *k;

	memset(ix, 0, sizeof(*ix));
	if (!nr)
		return;
	k = xcalloc(nr, sizeof(*k));
	for (size_t i = 0; i < nr; i++) {
		const unsigned char *p = (const unsigned char *)names[i];

		k[i].name = names[i];
		for (size_t b = 0; b < 8; b++) {
			k[i].key = k[i].key << 8 | *p;
			p += *p != 0;
		}
	}
	qsort(k, nr, sizeof(*k), cmp_keyed);
	ix->names = xcalloc(nr, sizeof(*ix->names));
	ix->len = xcalloc(nr, sizeof(*ix->len));
	ix->lcp = xcalloc(nr, sizeof(*ix->lcp));
	for (size_t i = 0; i < nr; i++) {
		const char *a = i ? k[i - 1].name : "", *b = k[i].name;
		size_t n = 0;

		while (a[n] && a[n] == b[n])
			n++;
		ix->names[i] = b;
		ix->lcp[i] = n;
		ix->len[i] = n + strlen(b + n);
	}
	free(k);
	ix->nr = nr;
}

void suggest_index_release(struct suggest_index *ix)
{
	free(ix->names);
	free(ix->len);
	free(ix->lcp);
	memset(ix, 0, sizeof(*ix));
}

/* The word longest a table is made for (bytes): longer ones get no suggestion. */
#define INDEX_MAX_WORD 4096

/*
 * The walk: the names in sorted order are the leaves of a trie, and row r of
 * the distance table (the word against a name's first r bytes) depends only
 * on those r bytes, so rows computed for one name hold for the next up to
 * their common prefix. Only cells within 'max' of the diagonal can stay
 * within 'max'; the others keep max + 1 from the start. A row whose every
 * cell is past the limit rules out every name starting with that prefix.
 * The walk is made with limits 0, 1, 2 ... up to the suggester's: the small
 * limits prune within a few bytes, and most mistyped names are found there;
 * the names kept are those of a single walk with the largest limit.
 */
static void walk(struct suggest *s, const struct suggest_index *ix, size_t k)
{
	size_t m = s->len, rows, valid = 0, i = 0;
	unsigned short *t;

	if (!ix->nr || m > INDEX_MAX_WORD || k >= USHRT_MAX - 1)
		return;
	if (k > m + INDEX_MAX_WORD)
		k = m + INDEX_MAX_WORD;
	rows = m + k + 1;  /* a name longer than m + k is out of reach */
	t = xcalloc(rows * (m + 1), sizeof(*t));
	for (size_t x = 0; x < rows * (m + 1); x++)
		t[x] = (unsigned short)(k + 1);
	for (size_t j = 0; j <= m && j <= k; j++)
		t[j] = (unsigned short)j;
	while (i < ix->nr) {
		const char *name = ix->names[i];
		size_t len = ix->len[i], limit = s->best < k ? s->best : k, pruned = 0;

		if (ix->lcp[i] < valid)
			valid = ix->lcp[i];
		if (len + k < m || len > m + k) {
			i++;
			continue;
		}
		while (valid < len) {
			size_t r = ++valid, lo = r > k ? r - k : 1, hi = r + k < m ? r + k : m, least;
			unsigned short *prev = t + (r - 1) * (m + 1), *row = t + r * (m + 1);
			char c = name[r - 1];

			row[0] = (unsigned short)(r <= k ? r : k + 1);
			least = row[0];
			for (size_t j = lo; j <= hi; j++) {
				size_t v = prev[j - 1] + !same_byte(c, s->word[j - 1], s->fold_case);

				if (prev[j] + 1u < v)
					v = prev[j] + 1u;
				if (row[j - 1] + 1u < v)
					v = row[j - 1] + 1u;
				if (v > k + 1)
					v = k + 1;
				row[j] = (unsigned short)v;
				if (v < least)
					least = v;
			}
			if (least > limit) {
				pruned = r;
				break;
			}
		}
		i++;
		if (pruned) {
			while (i < ix->nr && ix->lcp[i] >= pruned)
				i++;
			continue;
		}
		keep(s, name, t[len * (m + 1) + m]);
	}
	free(t);
}

void suggest_offer_index(struct suggest *s, const struct suggest_index *ix)
{
	for (size_t k = 0; k <= s->max && !s->nr; k++)
		walk(s, ix, k);
}
