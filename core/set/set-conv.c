/*
 * set-conv: the conversation a question belongs to and the turns before it
 * (docs/conversations.md), and the rules a set's conversations keep.
 *
 * A question's 'text' is the turn being answered; 'history' holds the turns
 * before it, in order, each by "user" or "assistant"; 'conversation' names
 * the conversation and the question's turn in it, counted in user turns from
 * 1. So turn N follows N - 1 user turns, and two questions of one
 * conversation share their earlier turns: the later one's history starts
 * with the earlier one's history followed by the earlier one's text, said by
 * the user. Assistant turns are free to appear anywhere in a history, or
 * not at all (MTRAG's retrieval tasks carry user turns only).
 *
 * The rules are set-check.c's (set_check_conversations); this file holds
 * the model's helpers, which set.c calls (copy, release).
 */
#include "set/set.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

void question_add_turn(struct question *q, const char *role, const char *text)
{
	struct turn *t;

	ALLOC_GROW(q->history, q->nr_history + 1, q->alloc_history);
	t = &q->history[q->nr_history++];
	t->role = xstrdup(role);
	t->text = xstrdup(text);
	t->line = 0;
	t->col = 0;
}

void question_clear_conversation(struct question *q)
{
	for (size_t i = 0; i < q->nr_history; i++) {
		free(q->history[i].role);
		free(q->history[i].text);
	}
	free(q->history);
	q->history = NULL;
	q->nr_history = q->alloc_history = 0;
	free(q->conversation);
	q->conversation = NULL;
	q->turn = 0;
}

void question_copy_conversation(struct question *dst, const struct question *src)
{
	dst->conversation = xstrdup(src->conversation);
	dst->turn = src->turn;
	dst->history = NULL;
	dst->nr_history = dst->alloc_history = 0;
	for (size_t i = 0; i < src->nr_history; i++) {
		question_add_turn(dst, src->history[i].role, src->history[i].text);
		dst->history[i].line = src->history[i].line;
		dst->history[i].col = src->history[i].col;
	}
}

bool question_is_follow_up(const struct question *q)
{
	return q->nr_history > 0 || (q->conversation && q->turn > 1);
}

const char *question_turn_position(const struct question *q)
{
	return question_is_follow_up(q) ? TURN_FOLLOW_UP : TURN_FIRST;
}

static bool str_same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

bool question_conversation_eq(const struct question *a, const struct question *b)
{
	if (!str_same(a->conversation, b->conversation) || (a->conversation && a->turn != b->turn) ||
	    a->nr_history != b->nr_history)
		return false;
	for (size_t i = 0; i < a->nr_history; i++)
		if (!str_same(a->history[i].role, b->history[i].role) ||
		    !str_same(a->history[i].text, b->history[i].text))
			return false;
	return true;
}

bool set_has_conversations(const struct set *s)
{
	for (size_t i = 0; i < s->nr; i++)
		if (s->q[i].conversation || s->q[i].nr_history)
			return true;
	return false;
}
