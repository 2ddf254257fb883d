/*
 * set-forbid: set-wide forbidden rules (docs/access.md, "Set-wide rules").
 *
 * A set may forbid chunks for every question at once: "never any chunk of
 * a document tagged internal". Each rule is one selector and a value:
 *   chunk       the chunk with that id
 *   doc         every chunk of that document
 *   doc-prefix  every chunk of a document whose name starts with the value
 *               ("internal/" for a folder given to evalset chunk)
 *   id-prefix   every chunk whose id starts with the value
 *   tag         every chunk whose corpus line carries the tag ("tags")
 * A chunk's document is chunk_doc's (the corpus's "doc", else the chunker's
 * id form); its tags are the corpus's, so a tag rule matches nothing
 * without the corpus. doc, doc-prefix and tag rules therefore need the
 * corpus, and set_forbid_ready refuses to decide leaks without it rather
 * than report none. Rules are resolved against the corpus when leaks are
 * found (score, compare, report), never stored resolved: the set says
 * what is forbidden, the corpus which chunks that is today.
 *
 * A question's effective forbidden list is its own entries and every
 * rule; a chunk a question labels relevant that a rule forbids is a
 * contradiction (check's error, and a refusal to find leaks).
 */
#include "set/set.h"
#include "set/corpus.h"
#include "base/error.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {
	[FORBID_BY_CHUNK] = "chunk",
	[FORBID_BY_DOC] = "doc",
	[FORBID_BY_DOC_PREFIX] = "doc-prefix",
	[FORBID_BY_ID_PREFIX] = "id-prefix",
	[FORBID_BY_TAG] = "tag",
};

const char *question_forbids(const struct question *q, const char *chunk, const char *doc)
{
	size_t plen = strlen(FORBID_DOC_PREFIX);

	for (size_t i = 0; i < q->nr_forbidden; i++) {
		const char *f = q->forbidden[i].id;

		if (!strncmp(f, FORBID_DOC_PREFIX, plen)) {
			if (doc && !strcmp(f + plen, doc))
				return f;
		} else if (!strcmp(f, chunk)) {
			return f;
		}
	}
	return NULL;
}

const char *forbid_kind_name(enum forbid_kind kind)
{
	return (size_t)kind < ARRAY_SIZE(kind_names) ? kind_names[kind] : "?";
}

int forbid_kind_parse(const char *name, enum forbid_kind *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(kind_names); i++)
		if (!strcmp(name, kind_names[i])) {
			*out = (enum forbid_kind)i;
			return 0;
		}
	return -1;
}

const char *forbid_value_problem(const char *value)
{
	if (!*value)
		return "is empty";
	for (const unsigned char *p = (const unsigned char *)value; *p; p++)
		if (*p < ' ' || *p == 0x7f)
			return "holds a control character";
	return NULL;
}

struct forbid_rule *set_add_forbid(struct set *s, enum forbid_kind kind, const char *value)
{
	struct forbid_rule *r;

	ALLOC_GROW(s->forbid, s->nr_forbid + 1, s->alloc_forbid);
	r = &s->forbid[s->nr_forbid++];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->value = xstrdup(value);
	r->entry = kind == FORBID_BY_CHUNK ? xstrdup(value)
					   : xstrfmt("%s:%s", forbid_kind_name(kind), value);
	return r;
}

void set_clear_forbid(struct set *s)
{
	for (size_t i = 0; i < s->nr_forbid; i++) {
		free(s->forbid[i].value);
		free(s->forbid[i].entry);
	}
	free(s->forbid);
	s->forbid = NULL;
	s->nr_forbid = s->alloc_forbid = 0;
}

void set_copy_forbid(struct set *dst, const struct set *src)
{
	set_clear_forbid(dst);
	for (size_t i = 0; i < src->nr_forbid; i++) {
		const struct forbid_rule *from = &src->forbid[i];
		struct forbid_rule *r = set_add_forbid(dst, from->kind, from->value);

		r->as_string = from->as_string;
		r->line = from->line;
		r->col = from->col;
	}
}

bool forbid_rule_needs_corpus(const struct forbid_rule *r)
{
	return r->kind == FORBID_BY_DOC || r->kind == FORBID_BY_DOC_PREFIX || r->kind == FORBID_BY_TAG;
}

const struct forbid_rule *set_forbid_needs_corpus(const struct set *s)
{
	for (size_t i = 0; i < s->nr_forbid; i++)
		if (forbid_rule_needs_corpus(&s->forbid[i]))
			return &s->forbid[i];
	return NULL;
}

static bool has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

bool forbid_rule_matches_id(const struct forbid_rule *r, const char *chunk)
{
	if (r->kind == FORBID_BY_CHUNK)
		return !strcmp(chunk, r->value);
	if (r->kind == FORBID_BY_ID_PREFIX)
		return has_prefix(chunk, r->value);
	return false;
}

/* Return true when rule 'r' forbids chunk 'chunk' of document 'doc' (may
 * be NULL), whose corpus line is 'ch' (may be NULL). */
static bool rule_matches(const struct forbid_rule *r, const char *chunk, const char *doc,
			 const struct chunk *ch)
{
	switch (r->kind) {
	case FORBID_BY_CHUNK:
	case FORBID_BY_ID_PREFIX:
		return forbid_rule_matches_id(r, chunk);
	case FORBID_BY_DOC:
		return doc && !strcmp(doc, r->value);
	case FORBID_BY_DOC_PREFIX:
		return doc && has_prefix(doc, r->value);
	case FORBID_BY_TAG:
		return ch && chunk_has_tag(ch, r->value);
	}
	return false;
}

const char *set_rule_forbids(const struct set *s, const struct corpus *corpus, const char *chunk,
			     const char *doc)
{
	const struct chunk *ch = NULL;
	bool looked = false;

	for (size_t i = 0; i < s->nr_forbid; i++) {
		const struct forbid_rule *r = &s->forbid[i];

		if (r->kind == FORBID_BY_TAG && !looked) {
			ch = corpus ? corpus_get(corpus, chunk) : NULL;
			looked = true;
		}
		if (rule_matches(r, chunk, doc, ch))
			return r->entry;
	}
	return NULL;
}

const char *set_forbids(const struct set *s, const struct question *q, const struct corpus *corpus,
			const char *chunk, struct strbuf *buf)
{
	const char *doc = NULL, *entry;

	if (!q->nr_forbidden && !s->nr_forbid)
		return NULL;
	doc = chunk_doc(corpus, chunk, buf);
	if ((entry = question_forbids(q, chunk, doc)))
		return entry;
	return set_rule_forbids(s, corpus, chunk, doc);
}

bool set_question_forbids(const struct set *s, const struct question *q)
{
	return q->nr_forbidden || s->nr_forbid;
}

const struct forbid_rule *set_find_forbid(const struct set *s, const char *entry)
{
	for (size_t i = 0; i < s->nr_forbid; i++)
		if (!strcmp(s->forbid[i].entry, entry))
			return &s->forbid[i];
	return NULL;
}

/* Return the rule of 's' forbidding relevant chunk 'chunk' with 'corpus'
 * (may be NULL: rules that need it are skipped), or NULL. */
static const struct forbid_rule *rule_on_relevant(const struct set *s, const struct corpus *corpus,
						  const char *chunk, struct strbuf *buf)
{
	const char *doc = corpus ? chunk_doc(corpus, chunk, buf) : NULL;
	const struct chunk *ch = corpus ? corpus_get(corpus, chunk) : NULL;

	for (size_t i = 0; i < s->nr_forbid; i++) {
		const struct forbid_rule *r = &s->forbid[i];

		if ((corpus || !forbid_rule_needs_corpus(r)) && rule_matches(r, chunk, doc, ch))
			return r;
	}
	return NULL;
}

/* Add to 'out' (or report, when 'out' is NULL) one error per relevant
 * chunk of a question of 's' that a rule forbids; return their number. */
static size_t find_conflicts(const struct set *s, const struct corpus *corpus, struct findings *out)
{
	struct strbuf buf = STRBUF_INIT;
	size_t n = 0;

	for (size_t i = 0; i < s->nr; i++) {
		const struct question *q = &s->q[i];

		for (size_t k = 0; k < q->nr_relevant; k++) {
			const struct label *l = &q->relevant[k];
			const struct forbid_rule *r = rule_on_relevant(s, corpus, l->chunk, &buf);
			long line = l->line ? l->line : q->line, col = l->line ? l->col : q->col;
			const char *fmt = "relevant chunk '%s' of question '%s' is forbidden by the "
					  "set-wide rule '%s' (line %ld): a chunk cannot be both";

			if (!r)
				continue;
			n++;
			if (out)
				findings_add(out, FINDING_ERROR, line, col, fmt, l->chunk,
					     q->id ? q->id : "?", r->entry, r->line);
			else
				error_at(s->file ? s->file : "set", line, col, fmt, l->chunk,
					 q->id ? q->id : "?", r->entry, r->line);
		}
	}
	strbuf_release(&buf);
	return n;
}

/* Return the number of chunks of 'corpus' that rule 'r' matches. */
static size_t rule_count(const struct forbid_rule *r, const struct corpus *corpus, struct strbuf *buf)
{
	size_t n = 0;

	for (size_t i = 0; i < corpus->nr; i++) {
		const struct chunk *ch = &corpus->chunks[i];

		n += rule_matches(r, ch->id, chunk_doc(corpus, ch->id, buf), ch);
	}
	return n;
}

void set_check_forbid(const struct set *s, const struct corpus *corpus, struct findings *out,
		      bool warnings)
{
	struct strbuf buf = STRBUF_INIT;

	for (size_t i = 0; i < s->nr_forbid; i++) {
		const struct forbid_rule *r = &s->forbid[i];
		bool repeat = false;

		for (size_t j = 0; j < i && !repeat; j++)
			repeat = s->forbid[j].kind == r->kind && !strcmp(s->forbid[j].value, r->value);
		if (repeat) {
			findings_add(out, FINDING_ERROR, r->line, r->col,
				     "set-wide forbidden rule '%s' listed twice", r->entry);
			continue;
		}
		if (!warnings)
			continue;
		if (!corpus) {
			if (forbid_rule_needs_corpus(r))
				findings_add(out, FINDING_WARNING, r->line, r->col,
					     "set-wide forbidden rule '%s' not checked: it selects chunks "
					     "by their %s in the corpus, and there is no corpus to read",
					     r->entry, r->kind == FORBID_BY_TAG ? "tags" : "document");
			continue;
		}
		if (!rule_count(r, corpus, &buf))
			findings_add(out, FINDING_WARNING, r->line, r->col,
				     "set-wide forbidden rule '%s' matches no chunk of the corpus '%s'%s",
				     r->entry, corpus->path ? corpus->path : "",
				     r->kind == FORBID_BY_TAG ? " (no chunk carries the tag in \"tags\")" : "");
	}
	find_conflicts(s, corpus, out);
	strbuf_release(&buf);
}

int set_forbid_ready(const struct set *s, const struct corpus *corpus)
{
	const struct forbid_rule *r = set_forbid_needs_corpus(s);

	if (r && (!corpus || !corpus->nr)) {
		const char *file = s->file ? s->file : "set";

		if (!s->has_corpus || !s->corpus.path)
			return error_at(file, r->line, r->col,
					"set-wide forbidden rule '%s' needs the corpus to know which "
					"chunks it forbids, and the set names none: add 'corpus: {path: "
					"...}' to the set (leaks are not judged without it)", r->entry);
		return error_at(file, r->line, r->col,
				"set-wide forbidden rule '%s' needs the corpus to know which chunks "
				"it forbids, and the corpus '%s' the set names was not found (or "
				"holds no chunk): leaks are not judged without it", r->entry,
				s->corpus.path);
	}
	if (s->nr_forbid && find_conflicts(s, corpus && corpus->nr ? corpus : NULL, NULL))
		return -1;
	return 0;
}
