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
 * --evidence QUOTE finds the quote in the set's corpus (exactly, else with
 * white space runs taken as one space): the chunk holding it becomes
 * relevant (grade 1 unless --relevant gives it) and the place is recorded
 * as the label's evidence. A quote found nowhere, or in several places of
 * the documents (listed), is refused.
 */
#include "builtin.h"
#include "base/termtext.h"
#include "chunk/remap.h"
#include "set/corpus.h"
#include "set/corpuscheck.h"
#include "base/fsutil.h"
#include "interop/interop.h"
#include "set/set.h"
#include "text/text.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const add_usage[] = {
	"evalset add <set> --text <question> --relevant <chunk>[:<grade>]... [--irrelevant <chunk>]...\n"
	"                  [--tag <tag>]... [--origin <origin>] [--id <id>] [--note <note>]",
	"evalset add <set> --text <question> --unanswerable [--tag <tag>]... [--origin <origin>]",
	"evalset add <set> --from <file.yaml | -> [--new-ids] [--tag <tag>]... [--origin <origin>]",
	"evalset add <set> (--from-beir <dir> [--split <name>] | --from-trec <topics> <qrels> |\n"
	"                  --from-jsonl <file>) [--tag <tag>]... [--origin <origin>]",
	NULL,
};

/* Parse "CHUNK[:GRADE]" into 'q'. Return 0 or -1 (reported). */
static int add_relevant_spec(struct question *q, const char *spec)
{
	const char *colon = strrchr(spec, ':');
	char *chunk;
	long grade = 1;

	if (colon && colon[1] && strspn(colon + 1, "0123456789-") == strlen(colon + 1)) {
		if (parse_long(colon + 1, -1000, 1000, &grade) < 0 || grade < 1 || grade > 9)
			return error("bad grade in --relevant '%s': grades are 1..9 "
				     "(use --irrelevant for a judged non-relevant chunk)", spec);
		chunk = xstrndup(spec, (size_t)(colon - spec));
	} else {
		chunk = xstrdup(spec);
	}
	if (!*chunk) {
		free(chunk);
		return error("empty chunk id in --relevant '%s'", spec);
	}
	if (question_grade(q, chunk) >= 1) {
		error("chunk '%s' given twice with --relevant", chunk);
		free(chunk);
		return -1;
	}
	question_set_label(q, chunk, (int)grade);
	free(chunk);
	return 0;
}

struct add_opts {
	const char *text, *from, *origin, *id, *note;
	struct string_list relevant, irrelevant, tags, evidence;
	int unanswerable, new_ids;
	enum origin origin_value;
	struct interop_import io;  /* --from-beir/--from-trec/--from-jsonl (core/interop/interop.h) */
};

/* Build the incoming cases into 'in'. Return 0 or -1 (reported). */
static int read_cases(const struct add_opts *o, struct set *in)
{
	struct question *q;

	if (o->from || o->io.beir_dir || o->io.topics || o->io.jsonl) {
		if ((o->from ? set_load_cases(in, o->from) : interop_import(in, &o->io)) < 0)
			return -1;
		if (!in->nr)
			return error("no questions in '%s'", in->file);
		for (size_t i = 0; i < in->nr; i++) {
			q = &in->q[i];
			if (q->origin == ORIGIN_NONE && o->from)
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
		if (add_relevant_spec(q, o->relevant.items[i]) < 0)
			return -1;
	for (size_t i = 0; i < o->irrelevant.nr; i++) {
		if (question_grade(q, o->irrelevant.items[i]) >= 1)
			return error("chunk '%s' given both with --relevant and --irrelevant",
				     o->irrelevant.items[i]);
		question_set_label(q, o->irrelevant.items[i], 0);
	}
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

/* Find each --evidence quote of 'o' in the corpus of the set 'ref' and add
 * the chunk holding it, with the place as evidence, to the one question of
 * 'in'. Return 0 or -1 (reported). */
static int add_evidence(const struct add_opts *o, const struct set_ref *ref, struct set *in)
{
	struct set s = SET_INIT;
	struct corpus corpus = CORPUS_INIT;
	struct question *q = &in->q[0];
	int has, ret = -1;

	if (set_open_ref(&s, ref, false) < 0)
		goto out;
	if ((has = set_corpus_load(&s, ref->dir, &corpus)) <= 0) {
		if (!has)
			error("--evidence searches the set's corpus, and '%s' names none that exists",
			      ref->file);
		goto out;
	}
	for (size_t i = 0; i < o->evidence.nr; i++) {
		const char *quote = o->evidence.items[i];
		struct quote_hit hits[MAX_PLACES];
		size_t n = remap_find_quote(&corpus, quote, hits, MAX_PLACES);
		const struct chunk *c;
		struct evidence e;

		if (!n) {
			error("--evidence \"%s\" is not in the corpus '%s'", quote, corpus.path);
			goto out;
		}
		if (n > 1) {
			error("--evidence \"%s\" is in %zu places of the corpus; quote more of it:",
			      quote, n);
			for (size_t k = 0; k < n && k < MAX_PLACES; k++) {
				c = &corpus.chunks[hits[k].chunk];
				if (hits[k].start >= 0)
					fprintf(stderr, "  %s %ld..%ld (chunk %s)\n", hits[k].doc,
						hits[k].start, hits[k].end, c->id);
				else
					fprintf(stderr, "  chunk %s\n", c->id);
			}
			goto out;
		}
		c = &corpus.chunks[hits[0].chunk];
		e.chunk = c->id;
		e.doc = hits[0].start >= 0 ? (char *)hits[0].doc : NULL;
		e.start = hits[0].start;
		e.end = hits[0].end;
		e.quote = (char *)quote;
		e.line = e.col = 0;
		if (question_grade(q, c->id) < 1)
			question_set_label(q, c->id, 1);
		question_add_evidence(q, &e);
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
	bool have_corpus = false;
	char *corpus_path = NULL;
	long floor_id = set_id_floor(ref);
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
	for (size_t i = 0; i < in->nr; i++) {
		struct question *q = &in->q[i];
		long n;

		if (q->id && (n = set_index(s, q->id)) >= 0) {
			if ((size_t)n >= old_nr)
				error_at(in->file, q->line, q->col,
					 "duplicate question id '%s' (first at line %ld)", q->id,
					 s->q[n].line);
			else
				error_at(in->file, q->line, q->col,
					 "question id '%s' already exists in '%s'", q->id, ref->file);
			goto out;
		}
		if (!q->id) {
			char *id = set_next_id(s, floor_id);
			q->id = id;
		}
		n = question_id_number(q->id);
		if (n > floor_id)
			floor_id = n;
		question_copy(set_append(s), q);
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
		for (size_t i = old_nr; i < s->nr; i++) {
			const struct question *q = &s->q[i];
			for (size_t j = 0; j < i; j++) {
				if (!s->q[j].text || !q->text ||
				    !text_near_duplicate(q->text, s->q[j].text, TEXT_NEAR_DUP_THRESHOLD))
					continue;
				warning("question '%s' is a near-duplicate of '%s': %s", q->id,
					s->q[j].id, s->q[j].text);
				break;
			}
		}
	}
	*floor_out = floor_id;
	ret = 0;
out:
	free(corpus_path);
	findings_release(&f);
	corpus_release(&corpus);
	return ret;
}

int cmd_add(int argc, const char **argv)
{
	struct add_opts o = { 0 };
	const char *lock_wait = NULL;
	struct option opts[] = {
		OPT_STRING(0, "text", &o.text, "question", "the question text"),
		OPT_STRING_LIST(0, "relevant", &o.relevant, "chunk[:grade]",
				"a relevant chunk, grade 1..9 (default 1); repeatable"),
		OPT_STRING_LIST(0, "irrelevant", &o.irrelevant, "chunk",
				"a chunk judged not relevant; repeatable"),
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
		OPT_STRING(0, "from-jsonl", &o.io.jsonl, "file", "add the questions of an evalset JSONL export"),
		OPT_LOCK_WAIT(&lock_wait),
		OPT_END(),
	};
	struct set_ref ref = SET_REF_INIT;
	struct set s = SET_INIT, in = SET_INIT, cases = SET_INIT;
	struct lock_file lock = LOCK_FILE_INIT;
	char *lock_path = NULL, *what = NULL;
	long floor_id = 0;
	size_t dropped = 0;
	int ret = EXIT_BAD_INPUT;

	argc = parse_options(argc, argv, opts, add_usage);
	apply_lock_wait(lock_wait, add_usage, opts);
	if (o.io.topics && argc == 2)
		o.io.qrels = argv[--argc];
	if (argc != 1 || (o.io.topics && !o.io.qrels))
		usage_with_options(add_usage, opts);
	if (!!o.from + !!o.text + !!o.io.beir_dir + !!o.io.topics + !!o.io.jsonl > 1) {
		error("give one of --text, --from, --from-beir, --from-trec, --from-jsonl");
		usage_with_options(add_usage, opts);
	}
	if ((o.io.beir_dir || o.io.topics || o.io.jsonl) &&
	    (o.relevant.nr || o.irrelevant.nr || o.unanswerable || o.id || o.note)) {
		error("--from-beir, --from-trec and --from-jsonl cannot be combined with --relevant, "
		      "--irrelevant, --unanswerable, --id or --note");
		usage_with_options(add_usage, opts);
	}
	if ((o.from || o.io.beir_dir || o.io.topics || o.io.jsonl) && o.evidence.nr) {
		error("--evidence goes with --text");
		usage_with_options(add_usage, opts);
	}
	if (o.from && (o.text || o.relevant.nr || o.irrelevant.nr || o.unanswerable || o.id || o.note)) {
		error("--from cannot be combined with --text, --relevant, --irrelevant, "
		      "--unanswerable, --id or --note");
		usage_with_options(add_usage, opts);
	}
	if (o.new_ids && !o.from && !o.io.beir_dir && !o.io.topics && !o.io.jsonl) {
		error("--new-ids needs --from, --from-beir, --from-trec or --from-jsonl");
		usage_with_options(add_usage, opts);
	}
	if (!o.from && !o.text && !o.io.beir_dir && !o.io.topics && !o.io.jsonl) {
		error("nothing to add: give --text or --from");
		usage_with_options(add_usage, opts);
	}
	o.origin_value = o.from ? ORIGIN_NONE : ORIGIN_HAND;
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
	if (read_cases(&o, &cases) < 0)
		goto out;
	if (o.evidence.nr && add_evidence(&o, &ref, &cases) < 0)
		goto out;
	/* a dry run first: bad input is refused before the lock file is created */
	copy_cases(&in, &cases);
	if (merge(&s, &in, &ref, false, o.new_ids, &dropped, &floor_id) < 0)
		goto out;
	set_release(&s);
	set_release(&in);
	what = xstrfmt("set '%s'", ref.dir);
	if (!(lock_path = set_lock_path(&ref, true)) || lock_take(&lock, lock_path, what) < 0)
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
	free(lock_path);
	free(what);
	set_release(&s);
	set_release(&in);
	set_release(&cases);
	set_ref_release(&ref);
	string_list_clear(&o.relevant);
	string_list_clear(&o.irrelevant);
	string_list_clear(&o.tags);
	string_list_clear(&o.evidence);
	return ret;
}
