/*
 * corpuslint: empty, huge, markup-heavy and duplicated chunks (see
 * corpuslint.h).
 *
 * Near duplicates are found with a prefix filter, exact for Jaccard: each
 * chunk's content-word hashes are ordered by how rare they are in the
 * corpus, and two sets with Jaccard >= t share at least one word among the
 * first |x| - ceil(t * |x|) + 1 of each. Only chunks sharing such a prefix
 * word are compared, so a corpus of distinct chunks costs about one pass.
 */
#include "chunk/corpuslint.h"
#include "chunk/chunker.h"
#include "set/corpus.h"
#include "set/set.h"
#include "text/text.h"
#include "base/strmap.h"
#include "base/util.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- markup ---- */

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Length of an HTML tag or comment at s[i] ('<'), or 0. */
static size_t html_tag(const char *s, size_t len, size_t i)
{
	size_t j;

	if (i + 1 >= len)
		return 0;
	if (len - i >= 4 && !memcmp(s + i, "<!--", 4)) {
		for (j = i + 4; j + 3 <= len; j++)
			if (!memcmp(s + j, "-->", 3))
				return j + 3 - i;
		return 0;
	}
	if (!((s[i + 1] >= 'a' && s[i + 1] <= 'z') || (s[i + 1] >= 'A' && s[i + 1] <= 'Z') ||
	      s[i + 1] == '/' || s[i + 1] == '!' || s[i + 1] == '?'))
		return 0;
	for (j = i + 1; j < len && j - i < 2000; j++) {
		if (s[j] == '>')
			return j + 1 - i;
		if (s[j] == '<')
			return 0;
	}
	return 0;
}

/* Length of an HTML entity at s[i] ('&'): "&name;" or "&#123;", or 0. */
static size_t html_entity(const char *s, size_t len, size_t i)
{
	size_t j = i + 1;

	if (j < len && s[j] == '#')
		j++;
	while (j < len && j - i <= 12 && is_alnum(s[j]))
		j++;
	return j < len && s[j] == ';' && j > i + 1 + (s[i + 1] == '#') ? j + 1 - i : 0;
}

/* Length of a Markdown link target "](...)" at s[i] (']'), or 0. */
static size_t md_link_target(const char *s, size_t len, size_t i)
{
	if (i + 1 >= len || s[i + 1] != '(')
		return 0;
	for (size_t j = i + 2; j < len && j - i < 2000; j++) {
		if (s[j] == ')')
			return j + 1 - i;
		if (s[j] == '\n')
			return 0;
	}
	return 0;
}

/* Count the markup bytes of the line s[a..b) that are line-level Markdown:
 * a table rule ("|---|:--:|"), a fence ("```", "~~~"), heading marks, or a
 * trailing "{ #anchor }". Set '*whole' when the whole line is markup. */
static size_t md_line(const char *s, size_t a, size_t b, bool *whole)
{
	size_t i = a, n = 0, dashes = 0, other = 0;

	*whole = false;
	while (i < b && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i == b)
		return 0;
	if (b - i >= 3 && (!memcmp(s + i, "```", 3) || !memcmp(s + i, "~~~", 3))) {
		*whole = true;
		return 0;
	}
	for (size_t j = i; j < b; j++) {
		if (s[j] == '-' || s[j] == '=')
			dashes++;
		else if (s[j] != '|' && s[j] != ':' && !is_space(s[j]))
			other++;
	}
	if (!other && dashes >= 3) {
		*whole = true;  /* a table rule, a thematic break, a setext underline */
		return 0;
	}
	if (s[i] == '#') {
		while (i < b && s[i] == '#')
			i++, n++;
	}
	/* a trailing "{ #anchor }" */
	{
		size_t e = b;
		while (e > a && is_space(s[e - 1]))
			e--;
		if (e > a && s[e - 1] == '}') {
			size_t o = e - 1;
			while (o > a && s[o] != '{' && s[o] != '\n')
				o--;
			if (s[o] == '{' && memchr(s + o, '#', e - o))
				n += e - o;
		}
	}
	return n;
}

double lint_markup_share(const char *s, size_t len, size_t *markup)
{
	size_t text = 0, mark = 0;

	for (size_t a = 0; a < len;) {
		size_t b = a, i;
		bool whole;

		while (b < len && s[b] != '\n')
			b++;
		mark += md_line(s, a, b, &whole);
		for (i = a; i < b;) {
			size_t n = 0;

			if (is_space(s[i])) {
				i++;
				continue;
			}
			if (whole) {
				text++;
				mark++;
				i++;
				continue;
			}
			if (s[i] == '<')
				n = html_tag(s, len, i);
			else if (s[i] == '&')
				n = html_entity(s, len, i);
			else if (s[i] == ']')
				n = md_link_target(s, len, i);
			else if (s[i] == '|' || (s[i] == '!' && i + 1 < len && s[i + 1] == '['))
				n = 1;
			if (!n) {
				text++;
				i++;
				continue;
			}
			/* a tag may run over lines: count its non-space bytes */
			for (size_t k = i; k < i + n; k++)
				if (!is_space(s[k])) {
					text++;
					mark++;
				}
			i += n;
		}
		/* heading marks and anchors were counted as text above too */
		a = i < len ? i + 1 : len;
		if (i > b)  /* a tag ran past the line end: continue after it */
			a = i;
	}
	if (mark > text)
		mark = text;
	if (markup)
		*markup = mark;
	return text ? (double)mark / (double)text : 0.0;
}

/* ---- the checks ---- */

struct lint {
	const struct corpus *c;
	const char *file;
	struct findings *out;
	struct strmap relevant;   /* chunk id -> question id (borrowed) labelling it relevant */
	size_t listed[4], more[4];
};
enum lint_kind { LINT_EMPTY, LINT_HUGE, LINT_MARKUP, LINT_DUP };

static long line_of(const struct corpus *c, size_t idx)
{
	return c->lines ? c->lines[idx] : 0;
}

/* Whether to list one more finding of 'kind' (else it is counted). */
static bool listing(struct lint *l, enum lint_kind kind)
{
	if (l->listed[kind] < LINT_MAX_LISTED) {
		l->listed[kind]++;
		return true;
	}
	l->more[kind]++;
	return false;
}

static void lint_each(struct lint *l, size_t max_tokens)
{
	const struct corpus *c = l->c;

	for (size_t i = 0; i < c->nr; i++) {
		const char *t = c->chunks[i].text, *q;
		size_t len = strlen(t), tokens = chunk_count_tokens(t, len), mark;
		double share;

		q = strmap_get(&l->relevant, c->chunks[i].id);
		if (!tokens) {
			if (q)
				findings_add_at(l->out, FINDING_ERROR, l->file, line_of(c, i), 0,
						"chunk '%s' is empty (%s), yet question '%s' labels "
						"it relevant: no retriever can find it",
						c->chunks[i].id, len ? "no word in it" : "no text", q);
			else if (listing(l, LINT_EMPTY))
				findings_add_at(l->out, FINDING_WARNING, l->file, line_of(c, i), 0,
						"chunk '%s' is empty (%s): a retriever cannot find it",
						c->chunks[i].id, len ? "no word in it" : "no text");
			continue;
		}
		if (max_tokens && tokens > max_tokens && listing(l, LINT_HUGE))
			findings_add_at(l->out, FINDING_WARNING, l->file, line_of(c, i), 0,
					"chunk '%s' is huge: %zu tokens, over the limit of %zu "
					"(--max-chunk-tokens)",
					c->chunks[i].id, tokens, max_tokens);
		share = lint_markup_share(t, len, &mark);
		if (share >= LINT_MARKUP_SHARE && mark >= 8 && listing(l, LINT_MARKUP))
			findings_add_at(l->out, FINDING_WARNING, l->file, line_of(c, i), 0,
					"chunk '%s' is mostly markup (%.0f%% of its characters are "
					"HTML tags or Markdown syntax)", c->chunks[i].id, 100.0 * share);
	}
}

/* Whether chunks x and y are windows of one document that overlap. */
static bool overlapping(const struct chunk *x, const struct chunk *y)
{
	return x->doc && y->doc && !strcmp(x->doc, y->doc) && x->start >= 0 && y->start >= 0 &&
	       x->start < y->end && y->start < x->end;
}

/* The question labelling one of 'a' and 'b' relevant but not the other, or NULL. */
static const char *label_gap(struct lint *l, const struct set *s, const char *a, const char *b,
			     const char **labelled)
{
	const char *qa = strmap_get(&l->relevant, a), *qb = strmap_get(&l->relevant, b);

	if (!s || (!qa && !qb))
		return NULL;
	for (size_t i = 0; i < s->nr; i++) {
		const struct question *q = &s->q[i];
		bool ra = false, rb = false;

		for (size_t k = 0; k < q->nr_relevant; k++) {
			ra |= !strcmp(q->relevant[k].chunk, a);
			rb |= !strcmp(q->relevant[k].chunk, b);
		}
		for (size_t k = 0; k < q->nr_irrelevant; k++) {
			ra |= !strcmp(q->irrelevant[k], a);
			rb |= !strcmp(q->irrelevant[k], b);
		}
		if (ra != rb) {
			*labelled = ra ? a : b;
			return q->id ? q->id : "?";
		}
	}
	return NULL;
}

static void report_dup(struct lint *l, const struct set *s, size_t first, size_t i, bool exact,
		       double sim)
{
	const struct corpus *c = l->c;
	const char *labelled = NULL, *q;

	if (!listing(l, LINT_DUP))
		return;
	q = label_gap(l, s, c->chunks[first].id, c->chunks[i].id, &labelled);
	if (exact)
		findings_add_at(l->out, FINDING_WARNING, l->file, line_of(c, i), 0,
				"chunk '%s' has the same text as '%s' (line %ld)%s%s%s%s%s",
				c->chunks[i].id, c->chunks[first].id, line_of(c, first),
				q ? "; question '" : "", q ? q : "", q ? "' labels only '" : "",
				q ? labelled : "", q ? "': a retriever returning the other scores a miss"
				: "");
	else
		findings_add_at(l->out, FINDING_WARNING, l->file, line_of(c, i), 0,
				"chunk '%s' nearly duplicates '%s' (line %ld; %.0f%% of their "
				"words shared)%s%s%s%s%s", c->chunks[i].id, c->chunks[first].id,
				line_of(c, first), 100.0 * sim,
				q ? "; question '" : "", q ? q : "", q ? "' labels only '" : "",
				q ? labelled : "", q ? "': a retriever returning the other scores a miss"
				: "");
}

/* A word of a chunk: its index in the word table, and its number of chunks. */
struct ranked {
	uint32_t word, freq;
};

static int cmp_rarity(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->freq != y->freq)
		return x->freq < y->freq ? -1 : 1;
	return x->word < y->word ? -1 : x->word > y->word;
}

/* The distinct words of the corpus: word hash -> index, open addressing. */
struct words {
	uint64_t *keys;
	uint32_t *slot;     /* index + 1, 0: empty */
	size_t cap, nr;
	uint32_t *freq;     /* chunks holding each word */
	struct postings {   /* chunks whose prefix holds each word, and where */
		uint32_t *v, *pos;
		size_t nr, alloc, alloc_pos;
	} *post;
	size_t alloc;
};

static void words_grow(struct words *w)
{
	size_t cap = w->cap ? w->cap * 2 : 1024;
	uint64_t *keys = xcalloc(cap, sizeof(*keys));
	uint32_t *slot = xcalloc(cap, sizeof(*slot));

	for (size_t i = 0; i < w->cap; i++) {
		size_t j;
		if (!w->slot[i])
			continue;
		for (j = w->keys[i] & (cap - 1); slot[j]; j = (j + 1) & (cap - 1))
			;
		keys[j] = w->keys[i];
		slot[j] = w->slot[i];
	}
	free(w->keys);
	free(w->slot);
	w->keys = keys;
	w->slot = slot;
	w->cap = cap;
}

/* Return the index of word 'h', adding it when 'add' (else UINT32_MAX when absent). */
static uint32_t words_index(struct words *w, uint64_t h, bool add)
{
	size_t j;

	if (add && (w->nr + 1) * 2 > w->cap)
		words_grow(w);
	if (!w->cap)
		return UINT32_MAX;
	for (j = h & (w->cap - 1); w->slot[j]; j = (j + 1) & (w->cap - 1))
		if (w->keys[j] == h)
			return w->slot[j] - 1;
	if (!add)
		return UINT32_MAX;
	ALLOC_GROW(w->freq, w->nr + 1, w->alloc);
	w->freq[w->nr] = 0;
	w->keys[j] = h;
	w->slot[j] = (uint32_t)++w->nr;
	return (uint32_t)(w->nr - 1);
}

static void words_release(struct words *w)
{
	for (size_t i = 0; w->post && i < w->nr; i++) {
		free(w->post[i].v);
		free(w->post[i].pos);
	}
	free(w->post);
	free(w->keys);
	free(w->slot);
	free(w->freq);
}

static size_t prefix_len(size_t n, double t)
{
	size_t keep = (size_t)ceil(t * (double)n - 1e-9);
	return n - keep + 1 > n ? n : n - keep + 1;
}

static double jaccard_sorted(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
	size_t i = 0, j = 0, inter = 0;

	while (i < na && j < nb) {
		if (a[i] == b[j])
			inter++, i++, j++;
		else if (a[i] < b[j])
			i++;
		else
			j++;
	}
	return na + nb - inter ? (double)inter / (double)(na + nb - inter) : 1.0;
}

static void lint_dups(struct lint *l, const struct set *s)
{
	const struct corpus *c = l->c;
	struct strmap exact = STRMAP_INIT;
	struct words words;
	struct ranked **nw = xcalloc(c->nr + 1, sizeof(*nw));   /* words, rarest first */
	size_t *nr = xcalloc(c->nr + 1, sizeof(*nr));
	uint64_t **sorted = xcalloc(c->nr + 1, sizeof(*sorted));
	size_t *dup_of = xcalloc(c->nr + 1, sizeof(*dup_of));   /* exact: first index + 1 */
	size_t *seen = xcalloc(c->nr + 1, sizeof(*seen));       /* candidate stamp */
	size_t *shared = xcalloc(c->nr + 1, sizeof(*shared));   /* prefix words shared */
	size_t *cand = xcalloc(c->nr + 1, sizeof(*cand));
	const double t = TEXT_NEAR_DUP_THRESHOLD;
	struct strmap_entry *e;
	int added;

	memset(&words, 0, sizeof(words));
	for (size_t i = 0; i < c->nr; i++) {
		const char *text = c->chunks[i].text;
		char *norm = text_normalize(text, strlen(text));

		if (*norm) {
			e = strmap_intern(&exact, norm, strlen(norm), &added);
			if (added)
				e->value = (void *)(uintptr_t)(i + 1);
			else
				dup_of[i] = (uintptr_t)e->value;
		}
		free(norm);
		if (dup_of[i])
			continue;
		sorted[i] = text_word_hashes(text, strlen(text), false, &nr[i]);
		if (nr[i] < LINT_NEAR_MIN_WORDS)
			continue;
		nw[i] = xcalloc(nr[i], sizeof(**nw));
		for (size_t k = 0; k < nr[i]; k++) {
			nw[i][k].word = words_index(&words, sorted[i][k], true);
			words.freq[nw[i][k].word]++;
		}
	}
	for (size_t i = 0; i < c->nr; i++)
		if (dup_of[i] && !overlapping(&c->chunks[dup_of[i] - 1], &c->chunks[i]))
			report_dup(l, s, dup_of[i] - 1, i, true, 1.0);

	/* near duplicates among the chunks left */
	words.post = xcalloc(words.nr + 1, sizeof(*words.post));
	for (size_t i = 0; i < c->nr; i++) {
		size_t p, nr_cand;

		if (!nw[i])
			continue;
		for (size_t k = 0; k < nr[i]; k++)
			nw[i][k].freq = words.freq[nw[i][k].word];
		qsort(nw[i], nr[i], sizeof(**nw), cmp_rarity);
		p = prefix_len(nr[i], t);
		/*
		 * probe the earlier chunks sharing a prefix word, counting the
		 * shared prefix words of each; a candidate is dropped as soon as
		 * the words left after the shared one cannot reach the overlap
		 * the threshold needs (PPJoin's positional filter)
		 */
		nr_cand = 0;
		for (size_t k = 0; k < p; k++) {
			const struct postings *list = &words.post[nw[i][k].word];

			for (size_t m = 0; m < list->nr; m++) {
				size_t j = list->v[m], pj = list->pos[m];
				size_t need = (size_t)ceil(t / (1 + t) * (double)(nr[i] + nr[j]) - 1e-9);
				size_t rest = nr[i] - k - 1 < nr[j] - pj - 1 ? nr[i] - k - 1 : nr[j] - pj - 1;

				if (seen[j] != i + 1) {
					double ratio = nr[i] < nr[j] ? (double)nr[i] / (double)nr[j]
								     : (double)nr[j] / (double)nr[i];
					seen[j] = i + 1;
					shared[j] = 0;
					if (ratio < t - 1e-9 || overlapping(&c->chunks[i], &c->chunks[j])) {
						shared[j] = SIZE_MAX;
						continue;
					}
					cand[nr_cand++] = j;
				}
				if (shared[j] == SIZE_MAX)
					continue;
				if (shared[j] + 1 + rest < need)
					shared[j] = SIZE_MAX;
				else
					shared[j]++;
			}
		}
		for (size_t m = 0; m < nr_cand; m++) {
			size_t j = cand[m];
			double sim;

			if (shared[j] == SIZE_MAX)
				continue;
			sim = jaccard_sorted(sorted[i], nr[i], sorted[j], nr[j]);
			if (sim >= t - 1e-9) {
				report_dup(l, s, j, i, false, sim);
				break;
			}
		}
		for (size_t k = 0; k < p; k++) {
			struct postings *list = &words.post[nw[i][k].word];

			ALLOC_GROW(list->v, list->nr + 1, list->alloc);
			ALLOC_GROW(list->pos, list->nr + 1, list->alloc_pos);
			list->pos[list->nr] = (uint32_t)k;
			list->v[list->nr++] = (uint32_t)i;
		}
	}
	words_release(&words);
	strmap_clear(&exact, 0);
	for (size_t i = 0; i < c->nr; i++) {
		free(nw[i]);
		free(sorted[i]);
	}
	free(nw);
	free(nr);
	free(sorted);
	free(dup_of);
	free(seen);
	free(shared);
	free(cand);
}

void corpus_lint(const struct corpus *c, const struct set *s, size_t max_tokens,
		 struct findings *out)
{
	static const char *const what[] = {
		"empty chunks", "chunks over the token limit", "chunks that are mostly markup",
		"duplicated chunks",
	};
	struct lint l;

	memset(&l, 0, sizeof(l));
	l.c = c;
	l.file = c->path ? c->path : "corpus";
	l.out = out;
	l.relevant = (struct strmap)STRMAP_INIT;
	for (size_t i = 0; s && i < s->nr; i++)
		for (size_t k = 0; k < s->q[i].nr_relevant; k++) {
			int added;
			const char *id = s->q[i].relevant[k].chunk;
			struct strmap_entry *e = strmap_intern(&l.relevant, id, strlen(id), &added);
			if (added)
				e->value = s->q[i].id ? s->q[i].id : (char *)"?";
		}
	lint_each(&l, max_tokens);
	lint_dups(&l, s);
	for (size_t k = 0; k < 4; k++)
		if (l.more[k])
			findings_add_at(out, FINDING_WARNING, l.file, 0, 0,
					"%zu more %s not listed (the first %d are)", l.more[k],
					what[k], LINT_MAX_LISTED);
	strmap_clear(&l.relevant, 0);
}
