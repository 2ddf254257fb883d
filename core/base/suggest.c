/*
 * suggest: edit distance and "did you mean" (suggest.h). The distance keeps
 * one row of the dynamic-programming table on the stack, names being short.
 */
#include "base/suggest.h"
#include "base/util.h"

#include <ctype.h>
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

void suggest_offer(struct suggest *s, const char *name)
{
	size_t d = edit_distance(s->word, s->len, name, strlen(name), s->fold_case, s->max + 1);

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
