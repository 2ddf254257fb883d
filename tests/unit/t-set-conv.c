/*
 * t-set-conv: conversations in a set: the history and conversation read
 * with their lines, written back and read again unchanged, refused where
 * they cannot be read, covered by the digests only when present, and the
 * conversation rules of set_check at the line of what breaks them.
 */
#include "test-lib.h"
#include "t-set-fixture.h"
#include "base/error.h"
#include "set/set.h"
#include "base/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char conv[] =
	"evalset: 1\n"
	"name: conv\n"
	"questions:\n"
	"  - id: q-1\n"                                           /* 4 */
	"    text: How do I rotate an API key?\n"
	"    conversation: {id: c-1, turn: 1}\n"
	"    relevant: [k-1]\n"
	"  - id: q-2\n"                                           /* 8 */
	"    text: And for a service account?\n"
	"    conversation: {id: c-1, turn: 2}\n"                  /* 10 */
	"    history:\n"
	"      - {role: user, text: How do I rotate an API key?}\n" /* 12 */
	"      - {role: assistant, text: 'From the console, under Keys.'}\n"
	"    relevant: [k-2]\n"
	"  - id: q-3\n"                                           /* 15 */
	"    text: standalone\n"
	"    relevant: [k-3]\n";

static bool has_finding(const struct findings *f, long line, const char *text)
{
	for (size_t i = 0; i < f->nr; i++)
		if (f->items[i].level == FINDING_ERROR && f->items[i].line == line &&
		    strstr(f->items[i].message, text))
			return true;
	return false;
}

static void test_read_write(void)
{
	struct set s = SET_INIT, t = SET_INIT;
	struct strbuf y = STRBUF_INIT, ca = STRBUF_INIT, cb = STRBUF_INIT;

	if (load_str(&s, conv) < 0) {
		ok(0, "a set with a conversation loads");
		return;
	}
	is_str(s.q[1].conversation, "c-1", "the conversation id is read");
	is_int(s.q[1].turn, 2, "the turn is read");
	is_int(s.q[1].conv_line, 10, "the conversation knows its line");
	is_int(s.q[1].nr_history, 2, "two turns of history");
	is_str(s.q[1].history[1].role, "assistant", "a turn's role");
	is_str(s.q[1].history[1].text, "From the console, under Keys.", "a turn's text");
	is_int(s.q[1].history[0].line, 12, "a turn knows its line");
	ok(!s.q[2].conversation && !s.q[2].nr_history, "a question without either has none");
	ok(!question_is_follow_up(&s.q[0]), "turn 1 is a first turn");
	ok(question_is_follow_up(&s.q[1]), "turn 2 is a follow-up");
	ok(!question_is_follow_up(&s.q[2]), "a standalone question is a first turn");
	ok(set_has_conversations(&s), "the set has conversations");

	ok(set_to_yaml(&s, &y) == 0 && set_load_buf(&t, y.buf, y.len, "saved.yaml") == 0,
	   "the written set loads again");
	set_canonical(&s, &ca);
	set_canonical(&t, &cb);
	is_str(cb.buf, ca.buf, "conversation and history survive the round trip");
	ok(strstr(y.buf, "conversation: {id: c-1, turn: 2}") != NULL,
	   "the conversation is written as a flow mapping");
	ok(t.nr == 3 && t.q[1].nr_history == 2 && !strcmp(t.q[1].history[0].role, "user"),
	   "the history is written in order");
	{
		struct question c;
		question_copy(&c, &s.q[1]);
		ok(c.history != s.q[1].history && c.nr_history == 2 &&
		   !strcmp(c.history[1].text, s.q[1].history[1].text) && !strcmp(c.conversation, "c-1"),
		   "question_copy copies the history");
		question_release(&c);
	}
	strbuf_release(&y);
	strbuf_release(&ca);
	strbuf_release(&cb);
	set_release(&s);
	set_release(&t);
}

static void test_refusals(void)
{
	static const struct {
		const char *from, *to, *msg;
	} cases[] = {
		{ "conversation: {id: c-1, turn: 2}", "conversation: c-1",
		  "t.yaml:10:19: 'conversation' must be a mapping", },
		{ "conversation: {id: c-1, turn: 2}", "conversation: {id: c-1}",
		  "t.yaml:10:19: 'conversation' without 'turn'" },
		{ "conversation: {id: c-1, turn: 2}", "conversation: {turn: 2}",
		  "t.yaml:10:19: 'conversation' without 'id'" },
		{ "conversation: {id: c-1, turn: 2}", "conversation: {id: c-1, turn: two}",
		  "'turn' must be a whole number" },
		{ "conversation: {id: c-1, turn: 2}", "conversation: {id: c-1, turn: 2, at: 3}",
		  "unknown key 'at'" },
		{ "{role: user, text: How do I rotate an API key?}", "How do I rotate an API key?",
		  "t.yaml:12:9: a turn of the history must be a mapping" },
		{ "{role: user, text: How do I rotate an API key?}", "{text: How do I rotate an API key?}",
		  "t.yaml:12:9: a turn of the history without 'role'" },
		{ "{role: user, text: How do I rotate an API key?}", "{role: user, said: hi}",
		  "unknown key 'said'" },
	};

	test_capture_errors();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct set s = SET_INIT;
		char *yaml = replaced(conv, cases[i].from, cases[i].to);
		int rc = yaml ? load_str(&s, yaml) : 0;

		ok(rc < 0 && strstr(test_captured(), cases[i].msg), "refused: %s", cases[i].msg);
		set_release(&s);
		free(yaml);
	}
	set_error_routine(NULL);
	set_warning_routine(NULL);
}

static void digests(const char *yaml, char d[72], char c[72], char q[72])
{
	struct set s = SET_INIT;

	if (load_str(&s, yaml) < 0) {
		snprintf(d, 72, "no load");
		snprintf(c, 72, "no load");
		snprintf(q, 72, "no load");
		return;
	}
	set_digest(&s, d);
	set_content_digest(&s, c);
	set_questions_digest(&s, q);
	set_release(&s);
}

static void test_digests(void)
{
	const char *plain =
		"evalset: 1\nname: conv\nquestions:\n"
		"  - id: q-1\n    text: And for a service account?\n    relevant: [k-2]\n";
	char *with_conv = replaced(plain, "    relevant", "    conversation: {id: c-1, turn: 2}\n"
				   "    history:\n      - {role: user, text: How?}\n    relevant");
	char *other_turn = replaced(with_conv, "text: How?", "text: Why?");
	char *other_role = replaced(with_conv, "role: user", "role: assistant");
	char *other_id = replaced(with_conv, "id: c-1", "id: c-2");
	char d0[72], c0[72], q0[72], d1[72], c1[72], q1[72], d[72], c[72], q[72];
	struct set s = SET_INIT;
	struct strbuf canon = STRBUF_INIT;

	digests(plain, d0, c0, q0);
	digests(with_conv, d1, c1, q1);
	ok(strcmp(d0, d1) && strcmp(c0, c1) && strcmp(q0, q1),
	   "a conversation changes the digest, the content digest and the questions digest");
	digests(other_turn, d, c, q);
	ok(strcmp(d, d1) && strcmp(q, q1), "a turn's text changes the digests");
	digests(other_role, d, c, q);
	ok(strcmp(d, d1) && strcmp(q, q1), "a turn's role changes the digests");
	digests(other_id, d, c, q);
	ok(strcmp(d, d1) && strcmp(q, q1), "the conversation id changes the digests");
	/* without a conversation the canonical text has no line for one: the
	 * digest is the one sets had before conversations existed */
	if (load_str(&s, plain) == 0) {
		set_canonical(&s, &canon);
		ok(!strstr(canon.buf, "conversation") && !strstr(canon.buf, "history"),
		   "a question without a conversation adds no line to the canonical text");
		is_str(canon.buf, "evalset-set 1\nschema 1\nname \"conv\"\ndescription null\n"
		       "parent null\nnote null\ncorpus null\nquestion \"q-1\"\n"
		       "text \"And for a service account?\"\norigin null\nanswerable true\n"
		       "relevant \"k-2\" 1\nend\n", "the canonical text of a plain question");
		set_release(&s);
	}
	strbuf_release(&canon);
	free(with_conv);
	free(other_turn);
	free(other_role);
	free(other_id);
}

static void test_check(void)
{
	const char *yaml =
		"questions:\n"
		"- id: a1\n"                                          /* 2 */
		"  text: first\n"
		"  conversation: {id: c, turn: 1}\n"                  /* 4 */
		"  relevant: [k]\n"
		"- id: a2\n"                                          /* 6 */
		"  text: second\n"
		"  conversation: {id: c, turn: 2}\n"                  /* 8 */
		"  history:\n"
		"  - {role: user, text: first}\n"                     /* 10 */
		"  - {role: bot, text: an answer}\n"                  /* 11 */
		"  relevant: [k]\n"
		"- id: a3\n"                                          /* 13 */
		"  text: third\n"
		"  conversation: {id: c, turn: 3}\n"                  /* 15 */
		"  history:\n"
		"  - {role: user, text: First}\n"                     /* 17 */
		"  - {role: bot, text: an answer}\n"
		"  - {role: user, text: second}\n"
		"  relevant: [k]\n"
		"- id: a4\n"                                          /* 21 */
		"  text: again\n"
		"  conversation: {id: c, turn: 2}\n"                  /* 23 */
		"  history: [{role: user, text: first}]\n"
		"  relevant: [k]\n"
		"- id: b1\n"                                          /* 26 */
		"  text: skipped ahead\n"
		"  conversation: {id: d, turn: 3}\n"                  /* 28 */
		"  history: [{role: user, text: one}, {role: assistant, text: '  '}]\n"
		"  relevant: [k]\n"
		"- id: b2\n"                                          /* 31 */
		"  text: zero\n"
		"  conversation: {id: e, turn: 0}\n"                  /* 33 */
		"  relevant: [k]\n"
		"- id: b3\n"                                          /* 35 */
		"  text: empty id\n"
		"  conversation: {id: '', turn: 1}\n"                 /* 37 */
		"  relevant: [k]\n";
	struct set s = SET_INIT;
	struct findings f = FINDINGS_INIT;

	if (load_str(&s, yaml) < 0) {
		ok(0, "conversation rule violations load");
		return;
	}
	set_check(&s, NULL, &f);
	ok(has_finding(&f, 11, "turn 2 of the history of question 'a2' has role 'bot' (user or assistant)"),
	   "an unknown role is an error at its turn");
	ok(has_finding(&f, 29, "turn 2 of the history of question 'b1' has no text"),
	   "an empty turn is an error");
	ok(has_finding(&f, 28, "question 'b1' is turn 3 of conversation 'd' but its history holds "
		       "1 user turn (2 expected)"), "a turn index that does not follow its user turns");
	ok(has_finding(&f, 23, "questions 'a2' and 'a4' are both turn 2 of conversation 'c'"),
	   "two questions at one turn");
	ok(has_finding(&f, 17, "turn 1 of the history of question 'a3' (turn 3 of conversation 'c') "
		       "differs from the history of question 'a4' (turn 2)"),
	   "a later turn whose history does not continue the earlier one");
	ok(has_finding(&f, 33, "question 'b2' is turn 0 of conversation 'e': turns count from 1"),
	   "turn 0 is an error");
	ok(has_finding(&f, 37, "the conversation of question 'b3' has an empty id"),
	   "an empty conversation id is an error");
	is_int(f.nr_errors, 8, "eight errors in all");
	findings_release(&f);
	set_release(&s);

	/* a consistent conversation: the earlier turn's text continues the history */
	if (load_str(&s, conv) == 0) {
		set_check(&s, NULL, &f);
		is_int(f.nr_errors, 0, "a consistent conversation has no error");
		findings_release(&f);
		set_release(&s);
	}
	{
		char *bad = replaced(conv, "{role: user, text: How do I rotate an API key?}",
				     "{role: user, text: How do I rotate a key?}");
		if (bad && load_str(&s, bad) == 0) {
			set_check(&s, NULL, &f);
			ok(has_finding(&f, 12, "differs from the text of question 'q-1' (turn 1)"),
			   "a history that does not repeat the earlier turn's text is an error");
			is_int(f.nr_errors, 1, "and only that");
			findings_release(&f);
			set_release(&s);
		}
		free(bad);
	}
}

int main(void)
{
	test_read_write();
	test_refusals();
	test_digests();
	test_check();
	return test_done();
}
