/*
 * compare-input: loading the inputs of compare, power and report (contract
 * in compare-input.h). A run is scored to depth 50 with score's default
 * measures followed by the caller's, without duplicates. Every input goes
 * through compare_input_load, so a new kind of input (another chunking, a
 * new run format) is added here once for all three commands.
 */
#include "compare/compare-input.h"
#include "compare/compare.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "score/measures.h"
#include "score/results.h"
#include "score/leak.h"
#include "score/resultcheck.h"
#include "set/corpus.h"
#include "set/corpuscheck.h"
#include "set/versioncache.h"
#include "score/bind.h"
#include "chunk/chunker.h"
#include "chunk/remap.h"
#include "score/run.h"
#include "score/score.h"
#include "set/set.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MEASURES 64

/* Score 'run' (read from 'path') against 'set' into 'r', the chunks'
 * documents from 'corpus' (may be NULL). Return 0 or -1 (reported). */
static int score_run(struct results *r, const struct set *set, const struct run *run,
		     const char *path, const struct compare_input_opts *o,
		     const struct corpus *corpus)
{
	struct measure ms[MAX_MEASURES];
	struct score_options so;
	struct score_summary sum;
	size_t nr;
	int ret = -1;

	memset(&so, 0, sizeof(so));
	memset(&sum, 0, sizeof(sum));
	nr = score_default_measures(ms, MAX_MEASURES);
	for (size_t i = 0; i < o->nr_measures; i++) {
		struct measure m;
		bool dup = false;

		if (!strcmp(o->measures[i], COMPARE_DECLINE) ||
		    !strcmp(o->measures[i], COMPARE_FALSE_DECLINE))
			continue;
		if (measure_parse(o->measures[i], &m) < 0)
			goto out;
		for (size_t j = 0; j < nr; j++)
			dup |= !strcmp(ms[j].name, m.name);
		if (!dup && nr < MAX_MEASURES)
			ms[nr++] = m;
	}
	so.measures = ms;
	so.nr_measures = nr;
	so.k = o->k > 0 ? o->k : 5;
	so.depth = 50;
	so.corpus = corpus;
	ret = score_set(set, set->version, run, path, &so, r, &sum);
	score_summary_release(&sum);
out:
	return ret;
}

/*
 * When a measure of 'o' is document-level, load into 'c' the corpus that
 * gives the chunks of a run their documents: the one the run is judged on
 * (o->corpus), else the set's (a missing one is a warning: the chunker's id
 * form then names the documents). Return 0 or -1 (reported).
 */
static int load_doc_corpus(const struct set *set, const struct set_ref *ref,
			   const struct compare_input_opts *o, struct corpus *c)
{
	bool docs = false;

	for (size_t i = 0; i < o->nr_measures && !docs; i++) {
		struct measure m;
		struct strbuf why = STRBUF_INIT;

		docs = measure_parse_why(o->measures[i], &m, NULL, &why) == 0 && measure_is_doc(&m);
		strbuf_release(&why);
	}
	if (!docs)
		return 0;
	if (o->corpus)
		return corpus_load(c, o->corpus);
	return set_corpus_load(set, ref && ref->dir ? ref->dir : ".", c) < 0 ? -1 : 0;
}

const char *compare_input_measure(const struct results *r, const char *name, char buf[64])
{
	if (results_measure(r, name) >= 0 || !strcmp(name, COMPARE_DECLINE) || strlen(name) >= 40)
		return name;
	if (starts_with(name, "Hit@"))
		snprintf(buf, 64, "Success@%s", name + 4);
	else if (starts_with(name, "Success@"))
		snprintf(buf, 64, "Hit@%s", name + 8);
	else
		return name;
	return results_measure(r, buf) >= 0 ? buf : name;
}

/* Mark stale the questions of 'r' (scored on 'set') whose text,
 * answerability, conversation or history differ in the version 'rec'
 * records (or that it lacks); return 0, or -1 when that version cannot be
 * loaded. */
static int mark_stale(struct results *r, const struct set *set, const struct set_ref *ref,
		      const struct bind_record *rec, const char *path)
{
	struct set old = SET_INIT;
	struct set_ref oref = SET_REF_INIT;
	struct set_lookup lk, now;
	char *arg;
	int ret = 0;
	size_t stale = 0;

	if (!rec->version || !ref || !ref->dir)
		return error("run '%s' records the working copy of '%s' at another state, which "
			     "cannot be loaded to tell which questions changed; produce the run "
			     "again on a tagged version", path, rec->set_name ? rec->set_name : "?");
	arg = xstrfmt("%s@%s", ref->dir, rec->version);
	if (set_open(&old, &oref, arg) < 0) {
		ret = error("cannot load %s, the version run '%s' was produced for, to tell which "
			    "questions changed", arg, path);
		goto out;
	}
	set_lookup_init(&lk, &old);
	set_lookup_init(&now, set);
	for (size_t i = 0; i < r->nr; i++) {
		struct question_result *q = &r->q[i];
		const struct question *oq = set_lookup_find(&lk, q->id);
		const struct question *cq = set_lookup_find(&now, q->id);

		if (!oq || oq->answerable != q->answerable || !q->text || strcmp(oq->text, q->text) ||
		    (cq && !question_conversation_eq(oq, cq))) {
			q->stale = true;
			stale++;
		}
	}
	set_lookup_release(&now);
	set_lookup_release(&lk);
out:
	free(arg);
	set_release(&old);
	set_ref_release(&oref);
	return ret;
}

/* Return the first 12 hex digits of 'fp' with its "sha256:" prefix. */
static const char *short_fp(const char *fp, char buf[32])
{
	snprintf(buf, 32, "%.*s", starts_with(fp, "sha256:") ? 7 + 12 : 12, fp);
	return buf;
}

/*
 * Refuse the results 'r' of 'what' (file 'path') when the run they were
 * scored from records another corpus than the one 'set' was labelled on
 * and they were not judged on a corpus of their own (score --corpus),
 * unless corpus changes are allowed (then a note). Return 0 or -1.
 */
static int results_corpus_check(const struct results *r, const struct set *set,
				const struct set_ref *ref, const char *what, const char *path,
				const struct compare_input_opts *o, struct strbuf *note)
{
	char set_fp[72], x[32], y[32];
	struct strbuf why = STRBUF_INIT;
	int ret = 0;

	if (!r->run_corpus || r->judged_on || !bind_set_corpus(set, ref ? ref->dir : ".", set_fp) ||
	    !strcmp(r->run_corpus, set_fp))
		return 0;
	strbuf_addf(&why, "%s '%s' holds the results of a run made over corpus %s, not the corpus "
		    "the set was labelled on (%s)", what, path, short_fp(r->run_corpus, x),
		    short_fp(set_fp, y));
	if (r->labels_absent)
		strbuf_addf(&why, "; %ld labels pointing at chunks that corpus lacks were left out",
			    r->labels_absent);
	if (!o->allow_corpus_change)
		ret = error("%s; score the run again with --corpus (the corpus it was made over), "
			    "or pass --allow-corpus-change", why.buf);
	else
		strbuf_addf(note, "%scorpus changed: %s", note->len ? "; " : "", why.buf);
	strbuf_release(&why);
	return ret;
}

/*
 * Check the results 'r', scored on another version of the set in 'ref',
 * against that version: it must load from the set's versions/ and have the
 * digest the results record. Return 0 or -1 (reported).
 */
static int check_other_version(struct results *r, const struct set_ref *ref, const char *what)
{
	struct set old = SET_INIT;
	struct set_ref oref = SET_REF_INIT;
	char digest[72], *arg = NULL;
	int ret = -1;

	if (!r->set_version || !ref || !ref->dir) {
		error("%s '%s' was scored against the working copy of '%s' at another state, which "
		      "cannot be loaded to check it; score the run again on a tagged version", what,
		      r->file, r->set_name ? r->set_name : "?");
		goto out;
	}
	arg = xstrfmt("%s@%s", ref->dir, r->set_version);
	if (set_open(&old, &oref, arg) < 0) {
		error("cannot load %s, the version %s '%s' was scored against, to check it", arg,
		      what, r->file);
		goto out;
	}
	set_digest(&old, digest);
	if (strcmp(digest, r->set_digest ? r->set_digest : "")) {
		error("%s '%s' records %s with digest %s, but %s has %s", what, r->file,
		      r->set_version, r->set_digest ? r->set_digest : "none", arg, digest);
		goto out;
	}
	ret = results_check(r, &old, arg);
out:
	free(arg);
	set_release(&old);
	set_ref_release(&oref);
	return ret;
}

/* Refuse results whose recorded run is at hand with other content. */
static int check_run_file(const struct results *r, const char *what)
{
	char sha[72];

	if (!r->run_path || !r->run_sha256 || !strcmp(r->run_path, "-") || !path_exists(r->run_path) ||
	    file_sha256(r->run_path, sha) < 0 || !strcmp(sha, r->run_sha256))
		return 0;
	return error("%s '%s' was scored from run '%s' (%s), but that file now holds %s: score it "
		     "again", what, r->file, r->run_path, r->run_sha256, sha);
}

/*
 * Return a description of a version of the set in 'ref' whose questions
 * (ids and texts) differ from those of 's' ("version 'v1'", "the working
 * copy"), or NULL when every version asks the same questions; caller frees.
 */
static char *other_questions_version(const struct set *s, const struct set_ref *ref)
{
	struct set_versions v = SET_VERSIONS_INIT;
	struct set_lookup lk;
	char *found = NULL;

	if (!ref || !ref->dir || set_versions_list(ref, &v) < 0) {
		set_versions_release(&v);
		return NULL;
	}
	set_lookup_init(&lk, s);
	for (size_t i = 0; i < v.nr && !found; i++) {
		const struct version_summary *vs = &v.items[i].summary;
		bool same = vs->nr_ids == s->nr;

		for (size_t q = 0; same && q < vs->nr_ids; q++) {
			const struct question *sq = set_lookup_find(&lk, vs->ids[q]);
			char td[72];

			if (!sq) {
				same = false;
				break;
			}
			version_text_digest(sq->text, td);
			same = !strcmp(td, vs->text_digests[q]);
		}
		if (!same)
			found = xstrfmt("version '%s'", v.items[i].tag);
	}
	set_lookup_release(&lk);
	set_versions_release(&v);
	return found;
}

/* Return true when 'name', recorded by a run or results, names the set 's'. */
static bool same_set(const char *name, const struct set *s)
{
	return name && s->name && !strcmp(name, s->name);
}

int compare_input_load(struct results *r, const struct set *set, const struct set_ref *ref,
		       const char *set_arg, const char *path, const char *what,
		       const struct compare_input_opts *o, struct strbuf *note, struct run *keep)
{
	char digest[72];
	struct run local, *run = keep ? keep : &local;
	struct bind_record rec;
	struct strbuf why = STRBUF_INIT, cwhy = STRBUF_INIT;
	struct corpus_bind cb = CORPUS_BIND_INIT;
	struct corpus docs = CORPUS_INIT;
	const struct corpus *dc;
	enum bind_verdict v;
	int ret = -1;

	memset(&rec, 0, sizeof(rec));
	if (!keep)
		run_init(&local);
	if (!path_exists(path)) {
		error("cannot read %s '%s': no such file", what, path);
		goto out;
	}
	if (results_is_file(path)) {
		if (o->corpus) {
			error("%s '%s' is saved results: a corpus goes with a run (results are judged "
			      "on a corpus when saved, with score --corpus)", what, path);
			goto out;
		}
		if (results_load(r, path) < 0)
			goto out;
		if (results_corpus_check(r, set, ref, what, path, o, note) < 0)
			goto out;
		set_digest(set, digest);
		if (r->set_digest && !strcmp(r->set_digest, digest) && same_set(r->set_name, set)) {
			if (results_check(r, set, set_arg) < 0 || check_run_file(r, what) < 0)
				goto out;
			ret = 0;
			goto out;
		}
		strbuf_addf(&why, "%s '%s' was scored against %s %s (%s), not %s (%s)", what, path,
			    r->set_name ? r->set_name : "?", compare_version_name(r->set_version),
			    r->set_digest ? r->set_digest : "no digest", set_arg, digest);
		if (!o->allow_set_change || !same_set(r->set_name, set)) {
			error("%s; score the run again on %s%s", why.buf, set_arg,
			      same_set(r->set_name, set) ? ", or pass --allow-set-change"
							 : " (--allow-set-change bridges versions "
							   "of one set, not two sets)");
			goto out;
		}
		if (check_other_version(r, ref, what) < 0 || check_run_file(r, what) < 0)
			goto out;
		strbuf_addf(note, "%s%s", note->len ? "; " : "", why.buf);
		ret = 0;
		goto out;
	}
	if (run_load_ranked(run, path, o->rank) < 0)
		goto out;
	v = bind_run(run, set, set_arg, &why, &rec);
	if (v == BIND_OTHER && (!o->allow_set_change || !same_set(rec.set_name, set))) {
		error("%s %s; produce it again on %s%s", what, why.buf, set_arg,
		      !same_set(rec.set_name, set) ? (rec.set_name ? " (--allow-set-change bridges "
							     "versions of one set, not two sets)" : "")
						   : ", or pass --allow-set-change");
		goto out;
	}
	if (v == BIND_UNRECORDED) {
		/* an empty run answers no version: every question is missing whatever the version */
		char *other = o->allow_unrecorded || !run->nr ? NULL : other_questions_version(set, ref);

		if (other) {
			error("%s run '%s' records no set, and the versions of %s do not all ask the same "
			      "questions (%s differs): it cannot be told which version it answered; make "
			      "it with evalset run (which records the set), or pass --allow-unrecorded if "
			      "it comes from another tool and answers %s", what, path, set_arg, other,
			      set_arg);
			free(other);
			goto out;
		}
		warning("%s run '%s' records no set; accepted because its question ids are all in %s",
			what, path, set_arg);
	}
	bind_corpus(run, set, ref ? ref->dir : ".", chunk_text_negligible, &cb);
	if (!o->corpus && cb.verdict == CORPUS_OTHER) {
		char *who = xstrfmt("%s run '%s'", what, path);

		corpus_bind_describe(&cb, who, set_arg, &cwhy);
		free(who);
		if (!o->allow_corpus_change) {
			error("%s; %s%s%spass --allow-corpus-change to score it against the set's labels "
			      "anyway", cwhy.buf, o->corpus_option ? "give the corpus it was made over with " : "",
			      o->corpus_option ? o->corpus_option : "",
			      o->corpus_option ? " (the labels are carried there by their evidence), or " : "");
			goto out;
		}
		strbuf_addf(note, "%scorpus changed: %s", note->len ? "; " : "", cwhy.buf);
	}
	if (load_doc_corpus(set, ref, o, &docs) < 0)
		goto out;
	dc = docs.nr ? &docs : NULL;
	if (o->corpus) {
		struct set judged = SET_INIT;
		char *fp = NULL, *from = ref && ref->tag ? xstrfmt("%s@%s", ref->name, ref->tag)
							: xstrdup(set_arg);
		int rc = remap_judge_set(set, ref ? ref->dir : ".", from, o->corpus, &judged, &fp);

		free(from);
		if (rc == 0 && cb.run_fp && strcmp(cb.run_fp, fp)) {
			char x[32], y[32];
			rc = error("%s run '%s' was made over corpus %s, not over '%s' (%s) given with %s",
				   what, path, short_fp(cb.run_fp, x), o->corpus, short_fp(fp, y),
				   o->corpus_option ? o->corpus_option : "the corpus option");
		}
		if (rc == 0)
			rc = score_run(r, &judged, run, path, o, dc);
		set_release(&judged);
		if (rc < 0) {
			free(fp);
			goto out;
		}
		set_digest(set, digest);
		free(r->set_digest);
		r->set_digest = xstrdup(digest);
		free(r->judged_on);
		r->judged_on = fp;
	} else if (cb.verdict == CORPUS_OTHER && cb.absent.nr) {
		/* --allow-corpus-change: the labels the run could not return are left out */
		struct set judged = SET_INIT;
		int rc;

		bind_drop_absent(set, &cb.absent, &judged);
		rc = score_run(r, &judged, run, path, o, dc);
		set_release(&judged);
		if (rc < 0)
			goto out;
		set_digest(set, digest);
		free(r->set_digest);
		r->set_digest = xstrdup(digest);
		r->labels_absent = (long)cb.absent.nr;
	} else if (score_run(r, set, run, path, o, dc) < 0) {
		goto out;
	}
	if (set_nr_forbidding(set)) {
		/* the leaks, as score --save records them */
		struct corpus corpus = CORPUS_INIT;

		if ((leak_needs_corpus(set) && set_corpus_load(set, ref ? ref->dir : ".", &corpus) < 0) ||
		    set_forbid_ready(set, &corpus) < 0) {
			corpus_release(&corpus);
			goto out;
		}
		leak_record(set, corpus.nr ? &corpus : NULL, run, r);
		corpus_release(&corpus);
	}
	if (cb.run_fp) {
		free(r->run_corpus);
		r->run_corpus = xstrdup(cb.run_fp);
	}
	if (v == BIND_OTHER) {
		if (mark_stale(r, set, ref, &rec, path) < 0)
			goto out;
		strbuf_addf(note, "%s%s %s", note->len ? "; " : "", what, why.buf);
	}
	ret = 1;
out:
	if (!keep)
		run_release(&local);
	bind_record_release(&rec);
	corpus_bind_release(&cb);
	corpus_release(&docs);
	strbuf_release(&why);
	strbuf_release(&cwhy);
	return ret;
}

int compare_inputs_distinct(const struct results *b, const char *const *bfiles, size_t nb,
			    const struct results *c, const char *const *cfiles, size_t nc,
			    struct strbuf *note)
{
	size_t n = nb + nc;

	for (size_t i = 0; i < n; i++) {
		const struct results *x = i < nb ? &b[i] : &c[i - nb];
		const char *xf = i < nb ? bfiles[i] : cfiles[i - nb];

		if (!x->run_sha256)
			continue;
		for (size_t j = i + 1; j < n; j++) {
			const struct results *y = j < nb ? &b[j] : &c[j - nb];
			const char *yf = j < nb ? bfiles[j] : cfiles[j - nb];
			bool across = i < nb && j >= nb;

			if (!y->run_sha256 || strcmp(x->run_sha256, y->run_sha256))
				continue;
			if (!across)
				return error("%s '%s' and '%s' are the same run (%s): repeated runs must be "
					     "separate runs of the system; one run given twice counts twice",
					     i < nb ? "baseline" : "candidate", xf, yf, x->run_sha256);
			if (nb > 1 || nc > 1)
				return error("candidate '%s' is the same run as baseline '%s' (%s): a "
					     "baseline run among the candidate's runs hides every change",
					     yf, xf, x->run_sha256);
			if (x->run_path && y->run_path && !strcmp(x->run_path, y->run_path))
				return error("candidate '%s' was scored from the baseline's own run '%s' "
					     "(%s): compare the candidate's run, not the baseline's", yf,
					     x->run_path, x->run_sha256);
			strbuf_addf(note, "%sthe candidate '%s' is byte for byte the same run as the "
				    "baseline '%s' (%s): nothing changed", note->len ? "; " : "", yf, xf,
				    x->run_sha256);
		}
	}
	return 0;
}
