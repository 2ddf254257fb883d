/* Unit tests for base/suggest: edit distance and "did you mean". */
#include "test-lib.h"
#include "base/suggest.h"
#include "base/util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t dist(const char *a, const char *b, bool fold)
{
	return edit_distance(a, strlen(a), b, strlen(b), fold, 9);
}

static void test_distance(void)
{
	char long_name[SUGGEST_MAX_LEN + 2];

	is_int(dist("", "", false), 0, "two empty names are equal");
	is_int(dist("kitten", "sitting", false), 3, "kitten/sitting: three edits");
	is_int(dist("questions", "qeustions", false), 2, "a swap is two edits");
	is_int(dist("ndcg", "nDCG", false), 3, "case counts by default");
	is_int(dist("ndcg", "nDCG", true), 0, "case is ignored when asked");
	is_int(dist("abc", "abcd", false), 1, "one insertion");
	is_int(dist("abcd", "abc", false), 1, "one deletion");
	is_int(edit_distance("a", 1, "abcdefgh", 8, false, 3), 3, "capped at 'cap' by the lengths alone");
	is_int(edit_distance("abcdef", 6, "uvwxyz", 6, false, 4), 4, "capped at 'cap'");
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	is_int(dist(long_name, long_name, false), 9, "a name past the limit is never close");
}

static void test_suggest(void)
{
	struct suggest sg;
	struct strbuf sb = STRBUF_INIT;

	/* the closest one, first offered wins a tie when one is shown */
	suggest_init(&sg, "questons", 8, 2, false);
	suggest_offer(&sg, "corpus");
	suggest_offer(&sg, "questions");
	suggest_offer(&sg, "question");
	is_int(suggest_did_you_mean(&sg, 1, NULL, &sb), 1, "one name shown");
	is_str(sb.buf, "; did you mean 'questions'?", "the first of the closest");
	suggest_release(&sg);

	/* every closest name, each with the tail */
	strbuf_reset(&sb);
	suggest_init(&sg, "NDCh", 4, 2, true);
	suggest_offer(&sg, "map");
	suggest_offer(&sg, "ndcg");
	suggest_offer(&sg, "ndcf");
	suggest_offer(&sg, "recall");
	is_int(suggest_did_you_mean(&sg, SIZE_MAX, "@10", &sb), 2, "two at the same distance");
	is_str(sb.buf, "; did you mean 'ndcg@10', 'ndcf@10'?", "ties in the order offered, with the tail");
	suggest_release(&sg);

	/* nothing within reach: nothing written */
	strbuf_reset(&sb);
	suggest_init(&sg, "zzzz", 4, 2, false);
	suggest_offer(&sg, "questions");
	is_int(suggest_did_you_mean(&sg, 1, NULL, &sb), 0, "no name is close");
	is_int(sb.len, 0, "nothing appended");
	suggest_release(&sg);

	/* a closer name drops the ones kept before; the offered buffer may be reused */
	strbuf_reset(&sb);
	suggest_init(&sg, "nightly", 7, suggest_max_for(7), false);
	{
		char buf[16];

		strcpy(buf, "nightlx2");
		suggest_offer(&sg, buf);
		strcpy(buf, "nighty");
		suggest_offer(&sg, buf);
		strcpy(buf, "weekly");
		suggest_offer(&sg, buf);
	}
	suggest_did_you_mean(&sg, SIZE_MAX, NULL, &sb);
	is_str(sb.buf, "; did you mean 'nighty'?", "the closer name replaces the farther, copied");
	suggest_release(&sg);
	is_int(suggest_max_for(7), 2, "a third of a user-chosen name's length");
	strbuf_release(&sb);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The index keeps exactly what offering every name in sorted order keeps. */
static void test_index(void)
{
	enum { N = 3000 };
	static char store[N][24];
	char *names[N], *sorted[N];
	const char *words[] = { "doc-0042#3", "Doc-0042#3", "doc-42", "doc-0042#", "zzzzzz",
				"oc-0042#33", "d", "", "doc-0100#1x", "doc-0042#3-extra-long-tail" };
	unsigned seed = 12345;
	struct suggest_index ix;
	int same = 0;

	for (size_t i = 0; i < N; i++) {
		seed = seed * 1103515245u + 12345u;
		/* shared prefixes, ids of several lengths, a few wild ones */
		if (i % 97 == 0)
			snprintf(store[i], sizeof(store[i]), "w%u", seed >> 8);
		else
			snprintf(store[i], sizeof(store[i]), "%s-%04u#%u", (seed >> 20) % 3 ? "doc" : "Doc",
				 (seed >> 8) % 200, (seed >> 4) % 12);
		names[i] = sorted[i] = store[i];
	}
	suggest_index_build(&ix, (const char *const *)names, N);
	qsort(sorted, N, sizeof(*sorted), cmp_str);
	for (size_t w = 0; w < ARRAY_SIZE(words); w++)
		for (int fold = 0; fold < 2; fold++)
			for (size_t max = 0; max < 5; max++) {
				struct suggest a, b;
				struct strbuf sa = STRBUF_INIT, sb = STRBUF_INIT;

				suggest_init(&a, words[w], strlen(words[w]), max, fold);
				suggest_init(&b, words[w], strlen(words[w]), max, fold);
				for (size_t i = 0; i < N; i++)
					suggest_offer(&a, sorted[i]);
				suggest_offer_index(&b, &ix);
				suggest_did_you_mean(&a, SIZE_MAX, NULL, &sa);
				suggest_did_you_mean(&b, SIZE_MAX, NULL, &sb);
				if (!strcmp(sa.buf, sb.buf) && a.best == b.best)
					same++;
				else
					test_diag("'%s' fold %d max %zu: offered one by one '%s', index '%s'",
					     words[w], fold, max, sa.buf, sb.buf);
				suggest_release(&a);
				suggest_release(&b);
				strbuf_release(&sa);
				strbuf_release(&sb);
			}
	is_int(same, (int)(ARRAY_SIZE(words) * 2 * 5), "the index keeps what one-by-one offers keep");

	/* a long name (past SUGGEST_MAX_LEN) is found through the index */
	{
		const char *longs[] = { "https://example.com/manual/chapter-three/section-two.html#part-4",
					"https://example.com/manual/chapter-three/section-two.html#part-5" };
		struct suggest sg;
		struct strbuf sb = STRBUF_INIT;

		suggest_index_release(&ix);
		suggest_index_build(&ix, longs, 2);
		suggest_init(&sg, "https://example.com/manual/chapter-three/section-tow.html#part-4", 64, 3, false);
		suggest_offer_index(&sg, &ix);
		suggest_did_you_mean(&sg, 3, NULL, &sb);
		is_str(sb.buf, "; did you mean 'https://example.com/manual/chapter-three/section-two.html#part-4'?",
		       "a long chunk id gets its suggestion");
		suggest_release(&sg);
		strbuf_release(&sb);
	}
	suggest_index_release(&ix);
}

int main(void)
{
	test_distance();
	test_suggest();
	test_index();
	return test_done();
}
