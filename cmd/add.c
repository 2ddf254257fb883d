/*
 * add: add questions to a set's working copy, from the command line or from
 * a YAML file of cases (--from FILE or - for stdin).
 *
 * Nothing is written unless every new question passes the rules of a set
 * (docs/sets.md, "Rules") and no given id already exists. Ids left out
 * are assigned as q-NNNN above every id the set has ever used (working copy,
 * frozen versions, .evalset/ids), so a removed id never comes back. A
 * near-duplicate text is a warning, not a refusal. With --new-ids (merging
 * the outputs of generate shards), every incoming id is replaced by the next
 * one of the set's sequence, and an incoming question whose normalised text
 * and relevant chunk ids equal those of a question already in the set (or
 * added earlier in the same file) is skipped as a duplicate. The whole
 * read-check-write runs twice: once without the lock to refuse bad input
 * without touching anything, then under the set's lock on a fresh read, so
 * two writers never interleave.
 *
 * --relevant ID is always the whole chunk id, whatever characters it holds
 * (manual.pdf:3, URLs); --grade N right after it gives its grade. The old
 * form ID:N (N a digit 1..9 after the last colon) is no longer read as a
 * grade; so that an old script does not silently label another chunk,
 * ID:N is refused when ID is a chunk the set knows (its corpus, or a label
 * of the set) and ID:N is not, and taken whole with a warning when nothing
 * can tell.
 *
 * --evidence QUOTE finds the quote in the set's corpus (exactly, else with
 * white space runs taken as one space): the chunk holding it becomes
 * relevant (grade 1 unless --relevant gives it) and the place is recorded
 * as the label's evidence. A quote found nowhere, or in several places of
 * the documents (listed), is refused. An evidence entry of a --from file
 * that is a quote alone ({quote: "..."}) is found the same way, a refusal
 * naming its FILE:LINE:COL.
 */
#include "builtin.h"
#include "base/termtext.h"
#include "chunk/remap.h"
#include "set/corpus.h"
#include "set/corpuscheck.h"
#include "base/fsutil.h"
#include "base/strmap.h"
#include "interop/interop.h"
#include "set/set.h"
#include "text/neardup.h"
#include "text/text.h"
#include "base/util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const add_usage[] = {
	"evalset add <set> --text <question> (--relevant <chunk> [--grade <n>])... [--irrelevant <chunk>]...\n"
	"                  [--forbidden <id>]... [--tag <tag>]... [--origin <origin>] [--id <id>] [--note <note>]",
	"evalset add <set> --text <question> --unanswerable [--tag <tag>]... [--origin <origin>]",
	"evalset add <set> --from <file.yaml | -> [--new-ids] [--tag <tag>]... [--origin <origin>]",
	"evalset add <set> (--from-beir <dir> [--split <name>] | --from-trec <topics> <qrels> |\n"
	"                  --from-jsonl <file> | --from-mtrag <queries.jsonl> <qrels.tsv> |\n"
	"                  --from-mtrag <conversations.json>)\n"
	"                  [--new-ids] [--tag <tag>]... [--origin <origin>]",
	"evalset add <set> (--from-ragas <file> | --from-deepeval <file> | --from-llamaindex <file>)\n"
	"                  [--tag <tag>]... [--origin <origin>]",
	"evalset add <set> --from-hf <file> --question-field <name> [--contexts-field <name>]\n"
	"                  [--chunks-field <name>] [--answer-field <name>] [--id-field <name>]\n"
	"                  [--tag <tag>]... [--origin <origin>]",
	NULL,
};

/* Label 'chunk' (a whole --relevant argument) relevant with 'grade' in 'q'.
 * Return 0 or -1 (reported). */
static int add_relevant(struct question *q, const char *chunk, long grade)
{
	if (!*chunk)
		return error("empty chunk id in --relevant");
	if (question_grade(q, chunk) >= 1)
		return error("chunk '%s' given twice with --relevant", chunk);
	question_set_label(q, chunk, (int)grade);
	return 0;
}

struct add_opts {
	const char *text, *from, *origin, *id, *note;
	struct string_list relevant, irrelevant, forbidden, tags, evidence;
	long *grades;               /* --grade of relevant.items[i]; 0: none given */
	size_t nr_grades, alloc_grades;
	int unanswerable, new_ids;
	enum origin origin_value;
	struct interop_import io;  /* --from-beir/--from-trec/--from-jsonl/--from-mtrag (core/interop/interop.h) */
	const char *tool_file[4];  /* --from-ragas/-deepeval/-llamaindex/-hf, by enum interop_tool */
	struct interop_fields fields;  /* --question-field etc., for --from-hf */
};

/* Return the tool whose test set 'o' adds (enum interop_tool), or -1. */
static int tool_of(const struct add_opts *o)
{
	for (int t = 0; t < 4; t++)
		if (o->tool_file[t])
			return t;
	return -1;
}

/* --grade N: the grade of the --relevant just before it (parse-options
 * calls this in command-line order). Return 0 or -1 (reported). */
static int take_grade(void *value, const char *arg)
{
	struct add_opts *o = value;
	size_t i;
	long g;

	if (!o->relevant.nr)
		return error("--grade %s has no --relevant before it: write --relevant <chunk> --grade <n>", arg);
	i = o->relevant.nr - 1;
	ALLOC_GROW(o->grades, o->relevant.nr, o->alloc_grades);
	while (o->nr_grades < o->relevant.nr)
		o->grades[o->nr_grades++] = 0;
	if (o->grades[i])
		return error("chunk '%s' has two --grade (%ld and %s)", o->relevant.items[i], o->grades[i], arg);
	if (parse_long(arg, -1000, 1000, &g) < 0 || g < 1 || g > 9)
		return error("bad --grade '%s' for chunk '%s': grades are 1..9 "
			     "(use --irrelevant for a judged non-relevant chunk)", arg, o->relevant.items[i]);
	o->grades[i] = g;
	return 0;
}

/* Return the --grade given to relevant.items[i] of 'o', or 0. */
static long given_grade(const struct add_opts *o, size_t i)
{
	return i < o->nr_grades ? o->grades[i] : 0;
}

/* Return true when chunk 'id' is known to the set 's': a chunk of 'corpus'
 * (when not NULL) or a label of one of its questions. */
static bool known_chunk(const struct set *s, const struct corpus *corpus, const char *id)
{
	if (corpus && corpus_get(corpus, id))
		return true;
	for (size_t i = 0; i < s->nr; i++)
		if (question_grade(&s->q[i], id) >= 0)
			return true;
	return false;
}

/*
 * The old grade form: a --relevant ID:N without --grade, N a digit 1..9,
 * used to mean chunk ID with grade N; now it is the chunk id ID:N. Refuse it when
 * ID is a chunk the set of 'ref' knows and ID:N is not (an old script would
 * otherwise label another chunk); warn when neither is known and the set
 * has no corpus to tell. Return 0 or -1 (reported).
 */
static int check_grade_suffixes(const struct add_opts *o, const struct set_ref *ref)
{
	struct set s = SET_INIT;
	struct corpus corpus = CORPUS_INIT;
	char *corpus_path = NULL, *base = NULL;
	bool opened = false, have_corpus = false;
	int ret = -1;

	for (size_t i = 0; i < o->relevant.nr; i++) {
		const char *id = o->relevant.items[i];
		const char *colon = strrchr(id, ':');

		/* the old form took grades 1..9 only: ID:0, ID:12, ID:8443 were refused */
		if (given_grade(o, i) || !colon || colon == id || colon[1] < '1' || colon[1] > '9' || colon[2])
			continue;
		if (!opened) {
			if (set_open_ref(&s, ref, false) < 0)
				goto out;
			opened = true;
			corpus_path = set_corpus_path(&s, ref->dir);
			if (corpus_path && !path_exists(corpus_path) && s.corpus.path && path_exists(s.corpus.path)) {
				free(corpus_path);
				corpus_path = xstrdup(s.corpus.path);
			}
			if (corpus_path && path_exists(corpus_path)) {
				if (corpus_load(&corpus, corpus_path) < 0)
					goto out;
				have_corpus = true;
			}
		}
		if (known_chunk(&s, have_corpus ? &corpus : NULL, id))
			continue;
		free(base);
		base = xstrndup(id, (size_t)(colon - id));
		if (known_chunk(&s, have_corpus ? &corpus : NULL, base)) {
			error("--relevant '%s': there is no chunk '%s', but there is '%s'; --relevant takes the "
			      "whole chunk id, and a grade is given apart: --relevant '%s' --grade %s",
			      id, id, base, base, colon + 1);
			goto out;
		}
		if (!have_corpus)
			warning("--relevant '%s' is taken whole, as the chunk id '%s' (grade 1); for chunk '%s' "
				"with grade %s write --relevant '%s' --grade %s",
				id, id, base, colon + 1, base, colon + 1);
	}
	ret = 0;
out:
	free(base);
	free(corpus_path);
	corpus_release(&corpus);
	set_release(&s);
	return ret;
}

/* Build the incoming cases into 'in'. Return 0 or -1 (reported). */
static int read_cases(const struct add_opts *o, struct set *in)
{
	struct question *q;
	int tool = tool_of(o);

	if (o->from || o->io.beir_dir || o->io.topics || o->io.jsonl || o->io.mtrag || tool >= 0) {
		if ((o->from ? set_load_cases(in, o->from)
		     : tool == INTEROP_FIELDS ? interop_import_fields(in, o->tool_file[tool], &o->fields)
		     : tool >= 0 ? interop_import_tool(in, (enum interop_tool)tool, o->tool_file[tool])
		     : interop_import(in, &o->io)) < 0)
			return -1;
		if (!in->nr)
			return error("no questions in '%s'", in->file);
		for (size_t i = 0; i < in->nr; i++) {
			q = &in->q[i];
			if (q->origin == ORIGIN_NONE && (o->from || tool >= 0))
				q->origin = o->origin_value;
			for (size_t k = 0; k < o->tags.nr; k++)
				if (!question_has_tag(q, o->tags.items[k])) {
					ALLOC_GROW(q->tags, q->nr_tags + 1, q->alloc_tags);
					q->tags[q->nr_tags++] = xstrdup(o->tags.items[k]);
				}
		}
		return 0;
	}
	q = set_append(in);
	q->text = xstrdup(o->text);
	q->id = xstrdup(o->id);
	q->note = xstrdup(o->note);
	q->origin = o->origin_value;
	q->answerable = !o->unanswerable;
	q->relevant_as_list = true;  /* kept only while every grade is 1 */
	for (size_t i = 0; i < o->relevant.nr; i++)
		if (add_relevant(q, o->relevant.items[i], given_grade(o, i) ? given_grade(o, i) : 1) < 0)
			return -1;
	for (size_t i = 0; i < o->irrelevant.nr; i++) {
		if (question_grade(q, o->irrelevant.items[i]) >= 1)
			return error("chunk '%s' given both with --relevant and --irrelevant",
				     o->irrelevant.items[i]);
		question_set_label(q, o->irrelevant.items[i], 0);
	}
	for (size_t i = 0; i < o->forbidden.nr; i++)
		question_add_forbidden(q, o->forbidden.items[i]);
	for (size_t i = 0; i < o->tags.nr; i++)
		if (!question_has_tag(q, o->tags.items[i])) {
			ALLOC_GROW(q->tags, q->nr_tags + 1, q->alloc_tags);
			q->tags[q->nr_tags++] = xstrdup(o->tags.items[i]);
		}
	if (!*o->text || strspn(o->text, " \t\r\n") == strlen(o->text))
		return error("empty question text in --text");
	if (q->answerable && !q->nr_relevant && !o->evidence.nr)
		return error("an answerable question needs at least one --relevant chunk "
			     "or --evidence (or --unanswerable)");
	if (!q->answerable && (q->nr_relevant || o->evidence.nr))
		return error("--unanswerable and --relevant or --evidence exclude each other");
	return 0;
}

#define MAX_PLACES 8

/*
 * Find 'quote' in 'corpus' and label the chunk holding it in 'q', with the
 * place as evidence (into 'e' when not NULL, else appended). A quote found
 * nowhere, or in several places (listed), is refused, the message naming
 * it as 'what' ("--evidence", or FILE:LINE:COL of a cases file when
 * 'file' is given). Return 0 or -1.
 */
static int resolve_quote(const struct corpus *corpus, const char *quote, const char *what,
			 const char *file, long line, long col, struct question *q, struct evidence *e)
{
	struct quote_hit hits[MAX_PLACES];
	size_t n = remap_find_quote(corpus, quote, hits, MAX_PLACES);
	const struct chunk *c;
	struct evidence found;

	if (!n) {
		if (file)
			return error_at(file, line, col, "evidence quote \"%s\" is not in the corpus '%s'",
					quote, corpus->path);
		return error("%s \"%s\" is not in the corpus '%s'", what, quote, corpus->path);
	}
	if (n > 1) {
		if (file)
			error_at(file, line, col, "evidence quote \"%s\" is in %zu places of the corpus; "
				 "quote more of it:", quote, n);
		else
			error("%s \"%s\" is in %zu places of the corpus; quote more of it:", what, quote, n);
		for (size_t k = 0; k < n && k < MAX_PLACES; k++) {
			c = &corpus->chunks[hits[k].chunk];
			if (hits[k].start >= 0)
				fprintf(stderr, "  %s %ld..%ld (chunk %s)\n", hits[k].doc, hits[k].start,
					hits[k].end, c->id);
			else
				fprintf(stderr, "  chunk %s\n", c->id);
		}
		return -1;
	}
	c = &corpus->chunks[hits[0].chunk];
	if (question_grade(q, c->id) == 0)
		return file ? error_at(file, line, col, "evidence quote \"%s\" is in chunk '%s', which "
				       "the question judges irrelevant", quote, c->id)
			    : error("%s \"%s\" is in chunk '%s', which is given with --irrelevant",
				    what, quote, c->id);
	if (question_grade(q, c->id) < 1)
		question_set_label(q, c->id, 1);
	if (e) {
		free(e->chunk);
		e->chunk = xstrdup(c->id);
		free(e->doc);
		e->doc = hits[0].start >= 0 ? xstrdup(hits[0].doc) : NULL;
		e->start = hits[0].start;
		e->end = hits[0].end;
		return 0;
	}
	found.chunk = c->id;
	found.doc = hits[0].start >= 0 ? (char *)hits[0].doc : NULL;
	found.start = hits[0].start;
	found.end = hits[0].end;
	found.quote = (char *)quote;
	found.line = found.col = 0;
	question_add_evidence(q, &found);
	return 0;
}

/* Return true when some question of 'in' has an evidence quote without a chunk. */
static bool has_bare_quotes(const struct set *in)
{
	for (size_t i = 0; i < in->nr; i++)
		for (size_t k = 0; k < in->q[i].nr_evidence; k++)
			if (!in->q[i].evidence[k].chunk)
				return true;
	return false;
}

/*
 * Find in the corpus of the set 'ref' the --evidence quotes of 'o' (for the
 * one question of 'in'), and the evidence quotes without a chunk of the
 * cases file (every question of 'in'), exactly alike: the chunk holding each
 * is labelled relevant (grade 1 unless given) and the place recorded as its
 * evidence. Return 0 or -1 (reported; for a cases file at FILE:LINE:COL).
 */
static int add_evidence(const struct add_opts *o, const struct set_ref *ref, struct set *in)
{
	struct set s = SET_INIT;
	struct corpus corpus = CORPUS_INIT;
	int has, ret = -1;

	if (!o->evidence.nr && !has_bare_quotes(in))
		return 0;
	if (set_open_ref(&s, ref, false) < 0)
		goto out;
	if ((has = set_corpus_load(&s, ref->dir, &corpus)) <= 0) {
		if (!has)
			error("%s searches the set's corpus, and '%s' names none that exists",
			      o->evidence.nr ? "--evidence" : "an evidence quote without a chunk", ref->file);
		goto out;
	}
	for (size_t i = 0; i < o->evidence.nr; i++)
		if (resolve_quote(&corpus, o->evidence.items[i], "--evidence", NULL, 0, 0, &in->q[0],
				  NULL) < 0)
			goto out;
	for (size_t i = 0; i < in->nr; i++) {
		struct question *q = &in->q[i];

		for (size_t k = 0; k < q->nr_evidence; k++) {
			struct evidence *e = &q->evidence[k];
			if (!e->chunk && resolve_quote(&corpus, e->quote, NULL, in->file, e->line, e->col,
						      q, e) < 0)
				goto out;
		}
	}
	ret = 0;
out:
	corpus_release(&corpus);
	set_release(&s);
	return ret;
}

/*
 * For the test sets of other tools: find every context quote of 'in' in the
 * set's corpus as add_evidence does, but list rather than refuse what is
 * not found once: a context found nowhere or in several places is dropped
 * (and listed), a question none of whose contexts was found is left out
 * (and listed). Return 0, or -1 (reported) when no question is left or the
 * corpus cannot be read.
 */
static int resolve_tool_contexts(const struct set_ref *ref, struct set *in)
{
	struct set s = SET_INIT;
	struct corpus corpus = CORPUS_INIT;
	size_t contexts = 0, found = 0, left_out = 0, chunk_ids = 0, unknown_ids = 0;
	int has, ret = -1;

	if (set_open_ref(&s, ref, false) < 0)
		goto out;
	if ((has = set_corpus_load(&s, ref->dir, &corpus)) <= 0) {
		if (!has)
			error("a test set's contexts are looked for in the set's corpus, and '%s' names "
			      "none that exists", ref->file);
		goto out;
	}
	for (size_t i = 0; i < in->nr;) {
		struct question *q = &in->q[i];

		for (size_t k = 0; k < q->nr_relevant;) {
			const char *id = q->relevant[k].chunk;
			struct strbuf hint = STRBUF_INIT;

			chunk_ids++;
			if (corpus_get(&corpus, id)) {
				k++;
				continue;
			}
			corpus_did_you_mean(&corpus, id, &hint);
			warning("%s:%ld: question \"%.60s\": chunk '%s' is not in the corpus%s", in->file,
				q->line, q->text, id, hint.buf);
			strbuf_release(&hint);
			unknown_ids++;
			question_set_label(q, id, -1);
		}
		for (size_t k = 0; k < q->nr_evidence;) {
			struct evidence *e = &q->evidence[k];
			struct quote_hit hits[MAX_PLACES];
			size_t n = remap_find_quote(&corpus, e->quote, hits, MAX_PLACES);

			contexts++;
			if (n == 1) {
				const struct chunk *c = &corpus.chunks[hits[0].chunk];

				found++;
				if (question_grade(q, c->id) < 1)
					question_set_label(q, c->id, 1);
				e->chunk = xstrdup(c->id);
				e->doc = hits[0].start >= 0 ? xstrdup(hits[0].doc) : NULL;
				e->start = hits[0].start;
				e->end = hits[0].end;
				k++;
				continue;
			}
			warning("%s: question \"%.60s\": context %s the corpus: \"%.80s%s\"", in->file,
				q->text, n ? "is in several places of" : "is not in", e->quote,
				strlen(e->quote) > 80 ? "..." : "");
			free(e->quote);
			memmove(e, e + 1, (q->nr_evidence - k - 1) * sizeof(*e));
			q->nr_evidence--;
		}
		if (!q->nr_relevant) {
			warning("%s: question \"%.60s\" left out: none of its contexts%s is in the corpus",
				in->file, q->text, chunk_ids ? " or chunks" : "");
			set_remove(in, i);
			left_out++;
			continue;
		}
		i++;
	}
	if (chunk_ids)
		note("%s: %zu of %zu chunk ids in the corpus", in->file, chunk_ids - unknown_ids,
		     chunk_ids);
	note("%s: %zu of %zu contexts found in the corpus; %zu question%s left out", in->file,
	     found, contexts, left_out, left_out == 1 ? "" : "s");
	if (!in->nr) {
		error("no question of '%s' has a context in the corpus '%s': nothing added", in->file,
		      corpus.path);
		goto out;
	}
	ret = 0;
out:
	corpus_release(&corpus);
	set_release(&s);
	return ret;
}

/* Replace 'dst' with a deep copy of the questions of 'src' (and its file name). */
static void copy_cases(struct set *dst, const struct set *src)
{
	set_release(dst);
	dst->file = xstrdup(src->file);
	for (size_t i = 0; i < src->nr; i++)
		question_copy(set_append(dst), &src->q[i]);
}

/* Return true when 'a' and 'b' have the same relevant chunk ids (grades aside). */
static bool same_relevant(const struct question *a, const struct question *b)
{
	if (a->nr_relevant != b->nr_relevant || a->answerable != b->answerable)
		return false;
	for (size_t i = 0; i < a->nr_relevant; i++)
		if (question_grade(b, a->relevant[i].chunk) < 1)
			return false;
	return true;
}

/* Return the index in 's' of a question with the normalised text 'norm' and
 * the relevant chunks of 'q', or -1. */
static long find_exact_duplicate(const struct set *s, const char *norm,
				 const struct question *q)
{
	for (size_t i = 0; i < s->nr; i++) {
		char *other;
		bool same;

		if (!s->q[i].text || !same_relevant(q, &s->q[i]))
			continue;
		other = text_normalize(s->q[i].text, strlen(s->q[i].text));
		same = !strcmp(norm, other);
		free(other);
		if (same)
			return (long)i;
	}
	return -1;
}

/*
 * For --new-ids: drop from 'in' every question that duplicates one of 's'
 * or an earlier one of 'in' (same normalised text, same relevant chunks),
 * and clear the ids of the others so that merge assigns fresh ones. Return
 * how many were dropped.
 */
static size_t drop_duplicates(const struct set *s, struct set *in)
{
	struct set kept = SET_INIT;
	size_t dropped = 0;

	for (size_t i = 0; i < in->nr; i++) {
		struct question *q = &in->q[i];
		char *norm = q->text ? text_normalize(q->text, strlen(q->text)) : NULL;

		if (norm && (find_exact_duplicate(s, norm, q) >= 0 ||
			     find_exact_duplicate(&kept, norm, q) >= 0)) {
			dropped++;
		} else {
			struct question *k = set_append(&kept);
			question_copy(k, q);
			free(k->id);
			k->id = NULL;
		}
		free(norm);
	}
	kept.file = in->file;
	in->file = NULL;
	set_release(in);
	*in = kept;
	return dropped;
}

/* Note 'id' (may be NULL) at index 'i' of a set in 'ids', unless an earlier index has it. */
static void note_id(struct strmap *ids, const char *id, size_t i)
{
	struct strmap_entry *e;
	int added;

	if (!id)
		return;
	e = strmap_intern(ids, id, strlen(id), &added);
	if (added)
		e->value = (void *)(uintptr_t)(i + 1);
}

/*
 * Open the working copy of 'ref' into 's', merge the cases of 'in' (ids
 * assigned in 'in'), and check them. With 'final', warn about near
 * duplicates. With 'new_ids', incoming ids are replaced and exact duplicates
 * dropped from 'in' (counted in '*dropped'). Return 0 or -1 (reported).
 */
static int merge(struct set *s, struct set *in, const struct set_ref *ref, bool final,
		 bool new_ids, size_t *dropped, long *floor_out)
{
	struct findings f = FINDINGS_INIT;
	struct corpus corpus = CORPUS_INIT;
	struct strmap ids = STRMAP_INIT;  /* each id of 's' to its first index + 1 */
	bool have_corpus = false;
	char *corpus_path = NULL;
	long floor_id = set_id_floor(ref), top, n;
	size_t old_nr;
	int ret = -1;

	if (set_open_ref(s, ref, true) < 0)
		goto out;
	old_nr = s->nr;
	if (new_ids)
		*dropped = drop_duplicates(s, in);
	if (!new_ids && set_refuse_reused_ids(ref, s, in)) {
		error("nothing added");
		goto out;
	}
	/* the highest id number in 's' or the floor, as set_next_id finds it */
	top = floor_id > 0 ? floor_id : 0;
	for (size_t i = 0; i < s->nr; i++) {
		note_id(&ids, s->q[i].id, i);
		n = question_id_number(s->q[i].id);
		if (n > top)
			top = n;
	}
	for (size_t i = 0; i < in->nr; i++) {
		struct question *q = &in->q[i];
		const struct strmap_entry *e = q->id ? strmap_find(&ids, q->id, strlen(q->id)) : NULL;

		if (e) {
			n = (long)((uintptr_t)e->value - 1);
			if ((size_t)n >= old_nr)
				error_at(in->file, q->line, q->col,
					 "duplicate question id '%s' (first at line %ld)", q->id,
					 s->q[n].line);
			else
				error_at(in->file, q->line, q->col,
					 "question id '%s' already exists in '%s'", q->id, ref->file);
			goto out;
		}
		if (!q->id)
			q->id = set_id_after(top);
		n = question_id_number(q->id);
		if (n > floor_id)
			floor_id = n;
		if (n > top)
			top = n;
		question_copy(set_append(s), q);
		note_id(&ids, s->q[s->nr - 1].id, s->nr - 1);
	}
	if ((corpus_path = set_corpus_path(s, ref->dir))) {
		/* relative to the set directory; failing that, as written */
		if (!path_exists(corpus_path) && path_exists(s->corpus.path)) {
			free(corpus_path);
			corpus_path = xstrdup(s->corpus.path);
		}
		if (path_exists(corpus_path)) {
			if (corpus_load(&corpus, corpus_path) < 0)
				goto out;
			have_corpus = true;
		}
	}
	for (size_t i = 0; i < in->nr; i++) {
		struct strbuf why = STRBUF_INIT;
		const struct question *q = &in->q[i];

		/* what the reader would refuse is never written */
		if (question_writable(q, &why) < 0) {
			error_at(in->file, q->line, q->col, "question '%.64s': %s",
				 q->id, why.buf);
			strbuf_release(&why);
			error("nothing added");
			goto out;
		}
	}
	set_check_errors(in, have_corpus ? &corpus : NULL, &f);
	if (findings_report_errors(&f, in->file)) {
		error("nothing added");
		goto out;
	}
	if (final) {
		/* each new question against every one before it, the first near
		 * duplicate named: through the filter's index, not every pair */
		struct dedup *dd = dedup_new(TEXT_NEAR_DUP_THRESHOLD);

		for (size_t i = 0; i < s->nr; i++) {
			const struct question *q = &s->q[i];
			struct dd_text t;
			long j;

			if (!q->text)
				continue;
			if (i < old_nr) {
				dedup_add(dd, q->text, (long)i);
				continue;
			}
			dedup_text_prepare(q->text, strlen(q->text), &t);
			j = dedup_find_add_prepared(dd, &t, (long)i);
			dedup_text_release(&t);
			if (j >= 0)
				warning("question '%s' is a near-duplicate of '%s': %s", q->id,
					s->q[j].id, s->q[j].text);
		}
		dedup_free(dd);
	}
	*floor_out = floor_id;
	ret = 0;
out:
	free(corpus_path);
	findings_release(&f);
	corpus_release(&corpus);
	strmap_clear(&ids, 0);
	return ret;
}

int cmd_add(int argc, const char **argv)
{
	struct add_opts o = { 0 };
	const char *lock_wait = NULL;
	struct option opts[] = {
		OPT_STRING(0, "text", &o.text, "question", "the question text"),
		OPT_STRING_LIST(0, "relevant", &o.relevant, "chunk",
				"a relevant chunk: the whole id, ':' and all; repeatable"),
		OPT_CALLBACK(0, "grade", &o, "n",
			     "the grade 1..9 of the --relevant chunk just before it (default 1)", take_grade),
		OPT_STRING_LIST(0, "irrelevant", &o.irrelevant, "chunk",
				"a chunk judged not relevant; repeatable"),
		OPT_STRING_LIST(0, "forbidden", &o.forbidden, "id",
				"a chunk id, or doc:NAME, it must never retrieve; repeatable"),
		OPT_STRING_LIST(0, "evidence", &o.evidence, "quote",
				"words that answer it: their chunk becomes relevant; repeatable"),
		OPT_BOOL(0, "unanswerable", &o.unanswerable, "the corpus cannot answer it"),
		OPT_STRING_LIST(0, "tag", &o.tags, "tag", "a tag; repeatable"),
		OPT_STRING(0, "origin", &o.origin, "origin", "synthetic, mined or hand (default hand)"),
		OPT_STRING(0, "id", &o.id, "id", "the question id (default: the next q-NNNN)"),
		OPT_STRING(0, "note", &o.note, "note", "a free-form note"),
		OPT_STRING(0, "from", &o.from, "file", "add the cases of a YAML file ('-': stdin)"),
		OPT_BOOL(0, "new-ids", &o.new_ids,
			 "give every incoming case a new id; skip exact duplicates (merging shards)"),
		OPT_STRING(0, "from-beir", &o.io.beir_dir, "dir", "add the queries of a BEIR folder"),
		OPT_STRING(0, "split", &o.io.split, "name", "the BEIR qrels split (default test)"),
		OPT_STRING(0, "from-trec", &o.io.topics, "topics",
			   "add TREC topics; the qrels file follows the set"),
		OPT_STRING(0, "from-mtrag", &o.io.mtrag, "queries.jsonl",
			   "add MTRAG retrieval tasks as conversations (turns as |user|: lines; the qrels file follows the set), or MTRAG's conversations or generation tasks (JSON or JSONL, no qrels)"),
		OPT_STRING(0, "from-jsonl", &o.io.jsonl, "file", "add the questions of an evalset JSONL export"),
		OPT_STRING(0, "from-ragas", &o.tool_file[INTEROP_RAGAS], "file",
			   "add a RAGAS testset (JSONL, JSON list or CSV), its contexts found in the corpus"),
		OPT_STRING(0, "from-deepeval", &o.tool_file[INTEROP_DEEPEVAL], "file",
			   "add DeepEval goldens (JSON list or JSONL), their contexts found in the corpus"),
		OPT_STRING(0, "from-llamaindex", &o.tool_file[INTEROP_LLAMAINDEX], "file",
			   "add a LlamaIndex EmbeddingQAFinetuneDataset JSON, its nodes' texts found in the corpus"),
		OPT_STRING(0, "from-hf", &o.tool_file[INTEROP_FIELDS], "file",
			   "add JSON lines (a Hugging Face dataset's to_json) whose columns the --*-field options name"),
		OPT_STRING(0, "question-field", &o.fields.question, "name",
			   "--from-hf: the column of the question's text (required)"),
		OPT_STRING(0, "contexts-field", &o.fields.contexts, "name",
			   "--from-hf: the column of its context text(s), found in the corpus"),
		OPT_STRING(0, "chunks-field", &o.fields.chunks, "name",
			   "--from-hf: the column of its relevant chunk id(s)"),
		OPT_STRING(0, "answer-field", &o.fields.answer, "name",
			   "--from-hf: the column of its reference answer"),
		OPT_STRING(0, "id-field", &o.fields.id, "name",
			   "--from-hf: the column of the record's id (kept as provenance)"),
		OPT_LOCK_WAIT(&lock_wait),
		OPT_END(),
	};
	struct set_ref ref = SET_REF_INIT;
	struct set s = SET_INIT, in = SET_INIT, cases = SET_INIT;
	struct lock_file lock = LOCK_FILE_INIT;
	long floor_id = 0;
	size_t dropped = 0;
	int tools, imports, ret = EXIT_BAD_INPUT;

	argc = parse_options(argc, argv, opts, add_usage);
	apply_lock_wait(lock_wait, add_usage, opts);
	if ((o.io.topics || o.io.mtrag) && argc == 2)
		o.io.qrels = argv[--argc];
	if (argc != 1 || (o.io.topics && !o.io.qrels))
		usage_with_options(add_usage, opts);
	tools = !!o.tool_file[0] + !!o.tool_file[1] + !!o.tool_file[2] + !!o.tool_file[3];
	if (!o.tool_file[INTEROP_FIELDS] != !o.fields.question ||
	    (!o.tool_file[INTEROP_FIELDS] && (o.fields.contexts || o.fields.chunks ||
					      o.fields.answer || o.fields.id))) {
		error("--from-hf needs --question-field, and the --*-field options go with --from-hf");
		usage_with_options(add_usage, opts);
	}
	if (o.tool_file[INTEROP_FIELDS] && !o.fields.contexts && !o.fields.chunks) {
		error("--from-hf needs --contexts-field or --chunks-field: what is relevant");
		usage_with_options(add_usage, opts);
	}
	imports = !!o.io.beir_dir + !!o.io.topics + !!o.io.jsonl + !!o.io.mtrag + tools;
	if (!!o.from + !!o.text + imports > 1) {
		error("give one of --text, --from, --from-beir, --from-trec, --from-jsonl, --from-mtrag, "
		      "--from-ragas, --from-deepeval, --from-llamaindex, --from-hf");
		usage_with_options(add_usage, opts);
	}
	if (tools && (o.relevant.nr || o.irrelevant.nr || o.unanswerable || o.id || o.note ||
		      o.evidence.nr || o.new_ids)) {
		error("--from-ragas, --from-deepeval, --from-llamaindex and --from-hf cannot be combined with "
		      "--relevant, --irrelevant, --evidence, --unanswerable, --id, --note or --new-ids");
		usage_with_options(add_usage, opts);
	}
	if ((o.io.beir_dir || o.io.topics || o.io.jsonl || o.io.mtrag) &&
	    (o.relevant.nr || o.irrelevant.nr || o.unanswerable || o.id || o.note)) {
		error("--from-beir, --from-trec, --from-jsonl and --from-mtrag cannot be combined with --relevant, "
		      "--irrelevant, --unanswerable, --id or --note");
		usage_with_options(add_usage, opts);
	}
	if ((o.from || o.io.beir_dir || o.io.topics || o.io.jsonl || o.io.mtrag) && o.evidence.nr) {
		error("--evidence goes with --text");
		usage_with_options(add_usage, opts);
	}
	if (o.from && (o.text || o.relevant.nr || o.irrelevant.nr || o.unanswerable || o.id || o.note)) {
		error("--from cannot be combined with --text, --relevant, --irrelevant, "
		      "--unanswerable, --id or --note");
		usage_with_options(add_usage, opts);
	}
	if (o.forbidden.nr && !o.text) {
		error("--forbidden goes with --text");
		usage_with_options(add_usage, opts);
	}
	if (o.new_ids && !o.from && !o.io.beir_dir && !o.io.topics && !o.io.jsonl && !o.io.mtrag) {
		error("--new-ids needs --from, --from-beir, --from-trec, --from-jsonl or --from-mtrag");
		usage_with_options(add_usage, opts);
	}
	if (!o.from && !o.text && !imports) {
		error("nothing to add: give --text or --from");
		usage_with_options(add_usage, opts);
	}
	/* the tools' test sets are written by their generators: synthetic unless told (a
	 * dataset's JSONL may be written by anyone: hand unless told) */
	o.origin_value = o.from ? ORIGIN_NONE
		: tools && !o.tool_file[INTEROP_FIELDS] ? ORIGIN_SYNTHETIC : ORIGIN_HAND;
	if (o.origin && origin_parse(o.origin, &o.origin_value) < 0) {
		error("unknown origin '%s' (synthetic, mined or hand)", o.origin);
		goto out;
	}
	o.io.origin = o.origin_value;
	o.io.origin_given = o.origin != NULL;
	if (set_ref_resolve(&ref, argv[0], false) < 0)
		goto out;
	if (ref.tag) {
		error("cannot add to frozen version '%s'; versions are never rewritten", argv[0]);
		goto out;
	}
	if (set_ref_resolve(&ref, argv[0], true) < 0)
		goto out;
	if (check_grade_suffixes(&o, &ref) < 0 || read_cases(&o, &cases) < 0)
		goto out;
	if (tools ? resolve_tool_contexts(&ref, &cases) < 0 : add_evidence(&o, &ref, &cases) < 0)
		goto out;
	/* a dry run first: bad input is refused before the lock file is created */
	copy_cases(&in, &cases);
	if (merge(&s, &in, &ref, false, o.new_ids, &dropped, &floor_id) < 0)
		goto out;
	set_release(&s);
	set_release(&in);
	if (set_lock_take(&lock, &ref) < 0)
		goto out;
	copy_cases(&in, &cases);
	if (merge(&s, &in, &ref, true, o.new_ids, &dropped, &floor_id) < 0)
		goto out;
	if (set_save(&s, ref.file) < 0 || set_id_floor_write(&ref, floor_id) < 0)
		goto out;
	for (size_t i = 0; i < in.nr; i++)
		printf("added %s\n", term_visible(in.q[i].id));
	if (o.new_ids)
		printf("%zu added, %zu skipped as duplicates\n", in.nr, dropped);
	ret = EXIT_OK;
out:
	lock_release(&lock);
	set_release(&s);
	set_release(&in);
	set_release(&cases);
	set_ref_release(&ref);
	string_list_clear(&o.relevant);
	free(o.grades);
	string_list_clear(&o.irrelevant);
	string_list_clear(&o.forbidden);
	string_list_clear(&o.tags);
	string_list_clear(&o.evidence);
	return ret;
}
