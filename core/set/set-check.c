/*
 * set-check: the rules and warnings of a set (docs/design.md, "The model";
 * docs/sets.md, "Rules"), as findings with the line and column where each
 * question or label was read.
 *
 * Errors: a question without an id, duplicate ids, empty text, an answerable
 * question without relevant chunks, an unanswerable one with some, grades
 * outside 1..9, a chunk both relevant and irrelevant for one question, and
 * (with a corpus) chunk ids the corpus does not hold; forbidden entries
 * that are empty, repeated, relevant too, or (with a corpus) unknown; the
 * conversation rules of set-conv.c. Warnings: near-duplicate
 * texts (text_near_duplicate: each question against every earlier one,
 * through the inverted index of text/neardup.h, at every size), no unanswerable
 * question (the size warning of check and tag is the gate's, in
 * compare/gatepower.h). Findings come in question order, errors and
 * warnings mixed. Questions remap left without labels (tagged stale or
 * unmapped) are set_check_stale's, which only check and tag call: every
 * other command reads such a set.
 */
#include "set/set.h"
#include "text/lang.h"
#include "set/corpus.h"
#include "base/error.h"
#include "base/strmap.h"
#include "base/termtext.h"
#include "base/utf8.h"
#include "text/neardup.h"
#include "text/text.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool blank(const char *s)
{
	if (!s)
		return true;
	for (; *s; s++)
		if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
			return false;
	return true;
}

static const char *qname(const struct question *q)
{
	return q->id ? q->id : "(no id)";
}

/*
 * Return why 'id' (a question or chunk id) cannot stand as one field of a
 * TREC qrels or run line, or NULL: empty, starting with '#' (a comment to
 * many readers), or holding a control character (a tab or a line break
 * would split the line).
 */
static const char *id_problem(const char *id)
{
	if (!id || !*id)
		return "is empty";
	if (*id == '#')
		return "starts with '#', which TREC tools read as a comment";
	for (const unsigned char *p = (const unsigned char *)id; *p; p++)
		if (*p < ' ' || *p == 0x7f)
			return "holds a control character, which would break the lines of TREC files";
	return NULL;
}

/*
 * Return why the tag 't' cannot be one, or NULL: a control character, or a
 * character that reorders text or takes no width (a right-to-left override
 * makes "\u202egnp.exe" read as "exe.png"; a zero-width space makes two
 * tags that look the same). Tags are filtered on and shown bare, so what a
 * reader sees must be what the tag is.
 */
static const char *tag_problem(const char *t)
{
	size_t len = strlen(t);

	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = utf8_decode(t + i, len - i, &cp);
		if (!n || cp < ' ' || cp == 0x7f || (cp >= 0x80 && cp < 0xa0))
			return "holds a control character";
		if (term_hidden_mark(cp))
			return "holds a character that reorders text or takes no width";
		i += n;
	}
	return NULL;
}

/* True when some chunk of 'corpus' belongs to document 'name'. */
static bool corpus_has_doc(const struct corpus *corpus, const char *name, struct strbuf *buf)
{
	for (size_t i = 0; i < corpus->nr; i++) {
		const char *d = chunk_doc(corpus, corpus->chunks[i].id, buf);
		if (d && !strcmp(d, name))
			return true;
	}
	return false;
}

/* The forbidden entries of 'q' (docs/access.md): well-formed ids, no repeat,
 * none also relevant (as a chunk or through its document), and with a
 * corpus, chunks and documents it holds. */
static void check_forbidden(const struct question *q, const struct corpus *corpus,
			    struct findings *out, struct strbuf *mean)
{
	size_t plen = strlen(FORBID_DOC_PREFIX);
	struct strbuf doc = STRBUF_INIT;
	const char *why;

	for (size_t i = 0; i < q->nr_forbidden; i++) {
		const struct forbid *f = &q->forbidden[i];
		long line = f->line ? f->line : q->line, col = f->line ? f->col : q->col;
		bool is_doc = !strncmp(f->id, FORBID_DOC_PREFIX, plen);
		bool repeat = false;

		if ((why = id_problem(is_doc && f->id[plen] ? f->id + plen : f->id))) {
			findings_add(out, FINDING_ERROR, line, col, "forbidden id '%s' of question '%s' %s",
				     f->id, qname(q), why);
			continue;
		}
		if (is_doc && !f->id[plen]) {
			findings_add(out, FINDING_ERROR, line, col, "forbidden entry '%s' of question '%s' "
				     "names no document (write doc:NAME)", f->id, qname(q));
			continue;
		}
		for (size_t j = 0; j < i && !repeat; j++)
			repeat = !strcmp(q->forbidden[j].id, f->id);
		if (repeat) {
			findings_add(out, FINDING_ERROR, line, col, "'%s' listed twice in 'forbidden' "
				     "of question '%s'", f->id, qname(q));
			continue;
		}
		for (size_t k = 0; k < q->nr_relevant; k++) {
			const char *c = q->relevant[k].chunk;
			const char *d = is_doc ? chunk_doc(corpus, c, &doc) : NULL;

			if (is_doc ? (d && !strcmp(d, f->id + plen)) : !strcmp(c, f->id))
				findings_add(out, FINDING_ERROR, line, col,
					     "relevant chunk '%s' of question '%s' is forbidden by '%s': "
					     "a chunk cannot be both", c, qname(q), f->id);
		}
		if (!corpus)
			continue;
		if (is_doc && !corpus_has_doc(corpus, f->id + plen, &doc)) {
			findings_add(out, FINDING_ERROR, line, col, "forbidden document '%s' of question "
				     "'%s' has no chunk in the corpus", f->id + plen, qname(q));
		} else if (!is_doc && !corpus_get(corpus, f->id)) {
			strbuf_reset(mean);
			corpus_did_you_mean(corpus, f->id, mean);
			findings_add(out, FINDING_ERROR, line, col, "forbidden chunk '%s' of question '%s' "
				     "is not in the corpus%s", f->id, qname(q), mean->buf);
		}
	}
	strbuf_release(&doc);
}

static void check_question(const struct question *q, const struct corpus *corpus,
			   struct findings *out)
{
	const char *why;

	struct strmap irrelevant = STRMAP_INIT;
	struct strbuf mean = STRBUF_INIT;
	int added;

	if (!q->id || !*q->id)
		findings_add(out, FINDING_ERROR, q->line, q->col, "question without an id");
	else if ((why = id_problem(q->id)))
		findings_add(out, FINDING_ERROR, q->line, q->col, "question id '%s' %s", q->id, why);
	for (size_t i = 0; i < q->nr_relevant; i++)
		if ((why = id_problem(q->relevant[i].chunk)))
			findings_add(out, FINDING_ERROR, q->relevant[i].line ? q->relevant[i].line : q->line,
				     q->relevant[i].line ? q->relevant[i].col : q->col,
				     "chunk id '%s' of question '%s' %s", q->relevant[i].chunk, qname(q), why);
	for (size_t k = 0; k < q->nr_irrelevant; k++)
		if ((why = id_problem(q->irrelevant[k])))
			findings_add(out, FINDING_ERROR, q->line, q->col,
				     "chunk id '%s' of question '%s' %s", q->irrelevant[k], qname(q), why);
	for (size_t i = 0; i < q->nr_tags; i++)
		if ((why = tag_problem(q->tags[i])))
			findings_add(out, FINDING_ERROR, q->line, q->col, "tag '%s' of question '%s' %s: "
				     "remove it, or write it in plain characters", term_visible(q->tags[i]),
				     term_visible(qname(q)), why);
	if (blank(q->text))
		findings_add(out, FINDING_ERROR, q->line, q->col, "question '%s' has no text",
			     qname(q));
	if (q->answerable && !q->nr_relevant)
		findings_add(out, FINDING_ERROR, q->line, q->col,
			     "answerable question '%s' has no relevant chunk (add one, or set "
			     "'answerable: false')", qname(q));
	if (!q->answerable && q->nr_relevant)
		findings_add(out, FINDING_ERROR, q->relevant[0].line ? q->relevant[0].line : q->line,
			     q->relevant[0].line ? q->relevant[0].col : q->col,
			     "unanswerable question '%s' has %zu relevant chunk%s", qname(q),
			     q->nr_relevant, q->nr_relevant == 1 ? "" : "s");
	/* the irrelevant chunks by id: linear, whatever the number of labels */
	irrelevant.borrowed = 1;
	for (size_t k = 0; q->nr_relevant && k < q->nr_irrelevant; k++)
		strmap_intern_hashed(&irrelevant, q->irrelevant[k], strlen(q->irrelevant[k]), strhash(q->irrelevant[k], strlen(q->irrelevant[k])), &added);
	for (size_t i = 0; i < q->nr_relevant; i++) {
		const struct label *l = &q->relevant[i];
		long line = l->line ? l->line : q->line, col = l->line ? l->col : q->col;

		if (l->grade < 1 || l->grade > 9)
			findings_add(out, FINDING_ERROR, line, col,
				     "grade %d of chunk '%s' in question '%s' is outside 1..9",
				     l->grade, l->chunk, qname(q));
		if (irrelevant.size && strmap_find(&irrelevant, l->chunk, strlen(l->chunk)))
			findings_add(out, FINDING_ERROR, line, col,
				     "chunk '%s' is both relevant and irrelevant for "
				     "question '%s'", l->chunk, qname(q));
		if (corpus && !corpus_get(corpus, l->chunk)) {
			strbuf_reset(&mean);
			corpus_did_you_mean(corpus, l->chunk, &mean);
			findings_add(out, FINDING_ERROR, line, col,
				     "relevant chunk '%s' of question '%s' is not in the corpus%s",
				     l->chunk, qname(q), mean.buf);
		}
	}
	for (size_t i = 0; i < q->nr_evidence; i++) {
		const struct evidence *e = &q->evidence[i];
		if (question_grade(q, e->chunk) < 1)
			findings_add(out, FINDING_ERROR, e->line ? e->line : q->line,
				     e->line ? e->col : q->col,
				     "evidence for chunk '%s' of question '%s', which is not one of "
				     "its relevant chunks", e->chunk, qname(q));
	}
	if (corpus)
		for (size_t k = 0; k < q->nr_irrelevant; k++)
			if (!corpus_get(corpus, q->irrelevant[k])) {
				strbuf_reset(&mean);
				corpus_did_you_mean(corpus, q->irrelevant[k], &mean);
				findings_add(out, FINDING_ERROR, q->line, q->col,
					     "irrelevant chunk '%s' of question '%s' is not in "
					     "the corpus%s", q->irrelevant[k], qname(q), mean.buf);
			}
	strmap_clear(&irrelevant, 0);
	check_forbidden(q, corpus, out, &mean);
	strbuf_release(&mean);
}

/* ---- conversations (docs/conversations.md, "Rules") ----
 *
 * Turn N of a conversation follows N - 1 user turns, and two questions of
 * one conversation share their earlier turns: the later one's history
 * starts with the earlier one's history followed by the earlier one's
 * text, said by the user. Assistant turns may appear anywhere, or not at
 * all.
 */

static long conv_line(const struct question *q)
{
	return q->conv_line ? q->conv_line : q->line;
}

static long conv_col(const struct question *q)
{
	return q->conv_line ? q->conv_col : q->col;
}

/* The rules of one question on its own: roles, empty turns, the turn index
 * and the number of user turns before it. */
static void check_one(const struct question *q, struct findings *out)
{
	size_t users = 0;

	for (size_t i = 0; i < q->nr_history; i++) {
		const struct turn *t = &q->history[i];
		long line = t->line ? t->line : q->line, col = t->line ? t->col : q->col;
		bool user = t->role && !strcmp(t->role, TURN_USER);

		users += user;
		if (!user && (!t->role || strcmp(t->role, TURN_ASSISTANT)))
			findings_add(out, FINDING_ERROR, line, col, "turn %zu of the history of question "
				     "'%s' has role '%s' (user or assistant)", i + 1, qname(q),
				     t->role ? t->role : "");
		if (blank(t->text))
			findings_add(out, FINDING_ERROR, line, col, "turn %zu of the history of question "
				     "'%s' has no text", i + 1, qname(q));
	}
	if (!q->conversation)
		return;
	if (blank(q->conversation)) {
		findings_add(out, FINDING_ERROR, conv_line(q), conv_col(q),
			     "the conversation of question '%s' has an empty id", qname(q));
		return;
	}
	if (q->turn < 1) {
		findings_add(out, FINDING_ERROR, conv_line(q), conv_col(q), "question '%s' is turn %ld "
			     "of conversation '%s': turns count from 1", qname(q), q->turn, q->conversation);
		return;
	}
	if (users != (size_t)(q->turn - 1))
		findings_add(out, FINDING_ERROR, conv_line(q), conv_col(q), "question '%s' is turn %ld "
			     "of conversation '%s' but its history holds %zu user turn%s (%ld expected)",
			     qname(q), q->turn, q->conversation, users, users == 1 ? "" : "s", q->turn - 1);
}

static bool turn_eq(const struct turn *t, const char *role, const char *text)
{
	return t->role && t->text && text && !strcmp(t->role, role) && !strcmp(t->text, text);
}

/*
 * Check that 'b', a later turn of the conversation of 'a', continues it:
 * its history starts with the history of 'a' and then the text of 'a' said
 * by the user. Report the first turn where they part.
 */
static void check_continues(const struct question *a, const struct question *b,
			    struct findings *out)
{
	size_t n = a->nr_history + 1;

	for (size_t i = 0; i < n; i++) {
		bool same;

		if (i >= b->nr_history)
			break;  /* too short: check_one reports its turn count */
		if (i < a->nr_history)
			same = a->history[i].role && a->history[i].text &&
			       turn_eq(&b->history[i], a->history[i].role, a->history[i].text);
		else
			same = turn_eq(&b->history[i], TURN_USER, a->text);
		if (same)
			continue;
		findings_add(out, FINDING_ERROR, b->history[i].line ? b->history[i].line : b->line,
			     b->history[i].line ? b->history[i].col : b->col,
			     "turn %zu of the history of question '%s' (turn %ld of conversation '%s') "
			     "differs from %s of question '%s' (turn %ld): the questions of a "
			     "conversation share its earlier turns", i + 1, qname(b), b->turn,
			     b->conversation, i < a->nr_history ? "the history" : "the text", qname(a),
			     a->turn);
		return;
	}
}

struct conv_member {
	const struct question *q;
	size_t order;  /* its place in the set, for a stable report */
};

static int cmp_member(const void *x, const void *y)
{
	const struct conv_member *a = x, *b = y;
	int c = strcmp(a->q->conversation, b->q->conversation);

	if (c)
		return c;
	if (a->q->turn != b->q->turn)
		return a->q->turn < b->q->turn ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

void set_check_conversations(const struct set *s, struct findings *out)
{
	struct conv_member *m;
	size_t nr = 0;

	for (size_t i = 0; i < s->nr; i++)
		check_one(&s->q[i], out);
	m = xcalloc(s->nr ? s->nr : 1, sizeof(*m));
	for (size_t i = 0; i < s->nr; i++)
		if (s->q[i].conversation && !blank(s->q[i].conversation) && s->q[i].turn >= 1) {
			m[nr].q = &s->q[i];
			m[nr].order = i;
			nr++;
		}
	qsort(m, nr, sizeof(*m), cmp_member);
	for (size_t i = 1; i < nr; i++) {
		const struct question *a = m[i - 1].q, *b = m[i].q;

		if (strcmp(a->conversation, b->conversation))
			continue;
		if (a->turn == b->turn)
			findings_add(out, FINDING_ERROR, conv_line(b), conv_col(b), "questions '%s' and "
				     "'%s' are both turn %ld of conversation '%s'", qname(a), qname(b),
				     b->turn, b->conversation);
		else
			check_continues(a, b, out);
	}
	free(m);
}

static void check_ids(const struct set *s, struct findings *out)
{
	struct strmap seen = STRMAP_INIT;

	for (size_t i = 0; i < s->nr; i++) {
		const struct question *q = &s->q[i];
		struct strmap_entry *e;
		int added;

		if (!q->id || !*q->id)
			continue;
		e = strmap_intern_hashed(&seen, q->id, strlen(q->id), strhash(q->id, strlen(q->id)), &added);
		if (added) {
			e->value = (void *)(uintptr_t)(i + 1);
			continue;
		}
		findings_add(out, FINDING_ERROR, q->line, q->col,
			     "duplicate question id '%s' (first at line %ld)", q->id,
			     s->q[(uintptr_t)e->value - 1].line);
	}
	strmap_clear(&seen, 0);
}

/*
 * Warn on each question that is a near-duplicate (text_near_duplicate) of
 * an earlier one, naming the first such earlier question: the answer of
 * comparing every pair, found through the inverted index of text/neardup.h
 * (only pairs that share one of their rarest words are compared), so that
 * the check runs at every size of set.
 */
static void check_near_duplicates(const struct set *s, struct findings *out)
{
	struct dedup *d = dedup_new(TEXT_NEAR_DUP_THRESHOLD);
	struct dd_text *t = xcalloc(s->nr ? s->nr : 1, sizeof(*t));

	/* every text prepared once; the hints put each text's rarest words first */
	for (size_t i = 0; i < s->nr; i++) {
		if (blank(s->q[i].text))
			continue;
		dedup_text_prepare(s->q[i].text, strlen(s->q[i].text), &t[i]);
		dedup_hint(d, &t[i]);
	}
	for (size_t i = 0; i < s->nr; i++) {
		const struct question *q = &s->q[i], *p;
		long first;

		if (!t[i].norm)
			continue;
		if ((first = dedup_find_add_prepared(d, &t[i], (long)i)) < 0)
			continue;
		p = &s->q[first];
		findings_add(out, FINDING_WARNING, q->line, q->col,
			     "question '%s' is a near-duplicate of '%s' (line %ld)",
			     qname(q), qname(p), p->line);
	}
	for (size_t i = 0; i < s->nr; i++)
		dedup_text_release(&t[i]);
	free(t);
	dedup_free(d);
}

const char *question_language(const struct set *s, const struct question *q)
{
	if (q->language)
		return lang_code(lang_get(q->language));
	if (s->language)
		return lang_code(lang_get(s->language));
	return lang_code(lang_detect(q->text ? q->text : "", q->text ? strlen(q->text) : 0));
}

/* The chunks detection reads for a corpus's language: enough evidence, bounded time. */
#define RECORD_CHUNKS 1000

static void add_evidence(const char *w, size_t len, void *data)
{
	lang_evidence_add(data, w, len);
}

size_t set_record_languages(struct set *s, const struct corpus *corpus, struct language_record *rec)
{
	struct lang_evidence ev;
	const struct lang *sl;
	size_t n = 0;

	memset(rec, 0, sizeof(*rec));
	if (!s->language && s->nr) {
		memset(&ev, 0, sizeof(ev));
		for (size_t i = 0; i < s->nr; i++)
			if (s->q[i].text)
				text_each_token(s->q[i].text, strlen(s->q[i].text), add_evidence, &ev);
		sl = lang_evidence_result(&ev);
		if (sl != lang_und()) {
			s->language = xstrdup(lang_code(sl));
			rec->set = s->language;
			n++;
		}
	}
	if (corpus && s->has_corpus && !s->corpus.language && corpus->nr) {
		const struct lang *cl;

		memset(&ev, 0, sizeof(ev));
		for (size_t i = 0; i < corpus->nr && i < RECORD_CHUNKS; i++)
			text_each_token(corpus->chunks[i].text, strlen(corpus->chunks[i].text),
					add_evidence, &ev);
		cl = lang_evidence_result(&ev);
		if (cl != lang_und()) {
			s->corpus.language = xstrdup(lang_code(cl));
			rec->corpus = s->corpus.language;
			n++;
		}
	}
	if (!s->language)
		return n;
	sl = lang_get(s->language);
	for (size_t i = 0; i < s->nr; i++) {
		struct question *q = &s->q[i];
		const struct lang *ql;
		size_t len;

		if (q->language || !q->text)
			continue;
		len = strlen(q->text);
		if (lang_text_fits(q->text, len, sl))
			continue;
		ql = lang_detect(q->text, len);
		if (ql == lang_und() || ql == sl)
			continue;
		q->language = xstrdup(lang_code(ql));
		rec->questions++;
		n++;
	}
	return n;
}

/*
 * Warn on questions whose language differs from their relevant chunks':
 * a labelled question against its chunk's code, an unlabelled one when its
 * text is clearly not in the chunk's language (lang_text_fits). Chunks take
 * the corpus's language, else the one detected in their text.
 */
static void check_languages(const struct set *s, const struct corpus *corpus, struct findings *out)
{
	for (size_t i = 0; i < s->nr; i++) {
		const struct question *q = &s->q[i];
		const char *ql = q->language ? q->language : s->language;

		for (size_t k = 0; k < q->nr_relevant && q->text; k++) {
			const struct chunk *ch = corpus_get(corpus, q->relevant[k].chunk);
			const struct lang *cl;
			bool differs;

			if (!ch)
				continue;
			cl = s->corpus.language ? lang_get(s->corpus.language)
						: lang_detect(ch->text, strlen(ch->text));
			if (cl == lang_und())
				continue;
			differs = ql ? lang_get(ql) != cl && lang_get(ql) != lang_und()
				     : !lang_text_fits(q->text, strlen(q->text), cl);
			if (differs) {
				findings_add(out, FINDING_WARNING, q->line, q->col,
					     "question '%s' is not in the language of its relevant chunk '%s' "
					     "(%s): a cross-lingual question", q->id ? q->id : "",
					     ch->id, lang_code(cl));
				break;
			}
		}
	}
}

static void run_checks(const struct set *s, const struct corpus *corpus,
		       struct findings *out, bool warnings)
{
	size_t nr_unanswerable = 0;

	check_ids(s, out);
	for (size_t i = 0; i < s->nr; i++) {
		check_question(&s->q[i], corpus, out);
		if (!s->q[i].answerable)
			nr_unanswerable++;
	}
	set_check_conversations(s, out);
	if (!warnings)
		return;
	check_near_duplicates(s, out);
	if (corpus)
		check_languages(s, corpus, out);
	if (s->nr && !nr_unanswerable)
		findings_add(out, FINDING_WARNING, 0, 0,
			     "the set has no unanswerable question (a retriever is never "
			     "tested on declining)");
}

void set_check(const struct set *s, const struct corpus *corpus, struct findings *out)
{
	run_checks(s, corpus, out, true);
	set_check_forbid(s, corpus, out, true);
}

void set_check_errors(const struct set *s, const struct corpus *corpus, struct findings *out)
{
	run_checks(s, corpus, out, false);
	set_check_forbid(s, corpus, out, false);
}

/* Append to 'sb' the old chunk ids of 'list' (a JSON array of strings), at most three. */
static void add_chunk_list(struct strbuf *sb, const cJSON *list)
{
	const cJSON *it;
	size_t n = 0;

	cJSON_ArrayForEach(it, list) {
		if (!cJSON_IsString(it))
			continue;
		if (n < 3)
			strbuf_addf(sb, "%s%s", n ? ", " : " (", it->valuestring);
		n++;
	}
	if (n)
		strbuf_addstr(sb, n > 3 ? ", ...)" : ")");
}

size_t set_check_stale(const struct set *s, enum finding_level level, struct findings *out)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nr; i++) {
		const struct question *q = &s->q[i];
		const cJSON *from = q->provenance ?
			cJSON_GetObjectItemCaseSensitive(q->provenance, "remapped_from") : NULL;
		bool stale = question_has_tag(q, "stale"), unmapped = question_has_tag(q, "unmapped");
		struct strbuf sb = STRBUF_INIT;

		if (!stale && !unmapped)
			continue;
		strbuf_addf(&sb, "question '%s' is tagged %s: ", q->id ? q->id : "?",
			    stale ? "stale" : "unmapped");
		if (stale)
			strbuf_addstr(&sb, "the documents no longer hold the evidence of its labels");
		else
			strbuf_addstr(&sb, "its labels could not be carried to the new chunks");
		if (cJSON_IsObject(from))
			add_chunk_list(&sb, cJSON_GetObjectItemCaseSensitive(from, stale ? "stale" : "unmapped"));
		strbuf_addf(&sb, "; a person decides: label the passage that answers it now, or confirm "
			    "it %s, then remove the tag ('evalset review' shows the old evidence and the "
			    "nearest new passages)", q->answerable ? "as it is" : "unanswerable");
		findings_add(out, level, q->line, q->col, "%s", sb.buf);
		strbuf_release(&sb);
		n++;
	}
	return n;
}
