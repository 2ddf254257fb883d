/* Unit tests for base/suggest: edit distance and "did you mean". */
#include "test-lib.h"
#include "base/suggest.h"

#include <stdint.h>
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

int main(void)
{
	test_distance();
	test_suggest();
	return test_done();
}
