/*
 * interop-mtrag: the turns of an MTRAG retrieval task read into a question
 * (docs/conversations.md, "Import"; the reader of the files is
 * import_mtrag in interop-import.c).
 *
 * MTRAG's retrieval tasks (BEIR layout) hold one query per conversation
 * turn: its "_id" is CONVERSATION<::>TURN, its "text" the conversation so
 * far, one turn a line, each opened by its speaker:
 *
 *   |user|: where do the arizona cardinals play this week
 *   |assistant|: ...
 *   |user|: Do the Arizona Cardinals play outside the US?
 *
 * The last turn is the question (it must be the user's); the turns before
 * it are its history, in order. A line with no speaker mark continues the
 * turn above it (a turn may hold line breaks); "|agent|" is read as the
 * assistant. The speaker mark is followed by ':' and one optional space;
 * each turn is trimmed of surrounding white space.
 */
#include "interop/interop.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

static const struct {
	const char *mark, *role;
} speakers[] = {
	{ "|user|:", TURN_USER },
	{ "|assistant|:", TURN_ASSISTANT },
	{ "|agent|:", TURN_ASSISTANT },
};

/* Return the role whose mark opens 'line' (setting '*rest' after it), or NULL. */
static const char *speaker_of(const char *line, const char **rest)
{
	for (size_t i = 0; i < ARRAY_SIZE(speakers); i++) {
		size_t n = strlen(speakers[i].mark);
		if (!strncmp(line, speakers[i].mark, n)) {
			*rest = line + n + (line[n] == ' ');
			return speakers[i].role;
		}
	}
	return NULL;
}

struct parsed_turn {
	const char *role;
	struct strbuf text;
};

int mtrag_read_turns(const char *text, struct question *q, size_t *users, struct strbuf *why)
{
	struct parsed_turn *t = NULL;
	size_t nr = 0, alloc = 0;
	const char *p = text;
	int ret = -1;

	*users = 0;
	while (*p) {
		const char *eol = strchr(p, '\n'), *rest;
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char *line = xstrndup(p, len);
		const char *role = speaker_of(line, &rest);

		if (role) {
			ALLOC_GROW(t, nr + 1, alloc);
			t[nr].role = role;
			strbuf_init(&t[nr].text, 0);
			strbuf_addstr(&t[nr].text, rest);
			nr++;
		} else if (nr) {
			strbuf_addch(&t[nr - 1].text, '\n');
			strbuf_addstr(&t[nr - 1].text, line);
		} else if (strspn(line, " \t\r") != len) {
			strbuf_addstr(why, "the text does not open with a speaker (|user|: ...)");
			free(line);
			goto out;
		}
		free(line);
		p = eol ? eol + 1 : p + len;
	}
	if (!nr) {
		strbuf_addstr(why, "the text holds no turn (|user|: ...)");
		goto out;
	}
	for (size_t i = 0; i < nr; i++) {
		strbuf_trim(&t[i].text);
		if (!t[i].text.len) {
			strbuf_addf(why, "turn %zu has no text", i + 1);
			goto out;
		}
		*users += !strcmp(t[i].role, TURN_USER);
	}
	if (strcmp(t[nr - 1].role, TURN_USER)) {
		strbuf_addstr(why, "the last turn is not the user's: it is the question asked");
		goto out;
	}
	free(q->text);
	q->text = xstrdup(t[nr - 1].text.buf);
	for (size_t i = 0; i + 1 < nr; i++)
		question_add_turn(q, t[i].role, t[i].text.buf);
	ret = 0;
out:
	for (size_t i = 0; i < nr; i++)
		strbuf_release(&t[i].text);
	free(t);
	return ret;
}
