/*
 * compare-input: loading the inputs of compare, power and report (contract
 * in compare-input.h). A run is scored to depth 50 with score's default
 * measures followed by the caller's, without duplicates.
 */
#include "compare/compare-input.h"
#include "compare/compare.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "score/measures.h"
#include "score/results.h"
#include "score/run.h"
#include "score/score.h"
#include "set/set.h"
#include "base/util.h"

#include <stdio.h>
#include <string.h>

#define MAX_MEASURES 64

/* Score the run 'path' against 'set' into 'r'; keep the run in 'keep'
 * when not NULL. Return 0 or -1 (reported). */
static int score_run(struct results *r, const struct set *set, const char *path,
		     const struct compare_input_opts *o, struct run *keep)
{
	struct measure ms[MAX_MEASURES];
	struct score_options so;
	struct score_summary sum;
	struct run local, *run = keep ? keep : &local;
	size_t nr;
	int ret = -1;

	memset(&so, 0, sizeof(so));
	memset(&sum, 0, sizeof(sum));
	if (!keep)
		run_init(&local);
	nr = score_default_measures(ms, MAX_MEASURES);
	for (size_t i = 0; i < o->nr_measures; i++) {
		struct measure m;
		bool dup = false;

		if (!strcmp(o->measures[i], COMPARE_DECLINE))
			continue;
		if (measure_parse(o->measures[i], &m) < 0)
			goto out;
		for (size_t j = 0; j < nr; j++)
			dup |= !strcmp(ms[j].name, m.name);
		if (!dup && nr < MAX_MEASURES)
			ms[nr++] = m;
	}
	if (run_load(run, path) < 0)
		goto out;
	so.measures = ms;
	so.nr_measures = nr;
	so.k = o->k > 0 ? o->k : 5;
	so.depth = 50;
	ret = score_set(set, set->version, run, path, &so, r, &sum);
	score_summary_release(&sum);
out:
	if (!keep)
		run_release(&local);
	return ret;
}

int compare_input_read(struct results *r, const struct set *set, const char *path,
		       const char *what, const struct compare_input_opts *o, struct run *run)
{
	if (!path_exists(path))
		return error("cannot read %s '%s': no such file", what, path);
	if (results_is_file(path))
		return results_load(r, path) < 0 ? -1 : 0;
	return score_run(r, set, path, o, run) < 0 ? -1 : 1;
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

int compare_input_load(struct results *r, const struct set *set, const char *set_arg,
		       const char *path, const char *what,
		       const struct compare_input_opts *o, struct strbuf *note)
{
	char digest[72];

	if (compare_input_read(r, set, path, what, o, NULL) < 0)
		return -1;
	set_digest(set, digest);
	if (r->set_digest && !strcmp(r->set_digest, digest))
		return 0;
	if (!o->allow_set_change)
		return error("%s '%s' was scored against %s %s (%s), not %s (%s); "
			     "rescore it or pass --allow-set-change",
			     what, path, r->set_name ? r->set_name : "?",
			     compare_version_name(r->set_version),
			     r->set_digest ? r->set_digest : "no digest", set_arg, digest);
	strbuf_addf(note, "%s%s '%s' was scored against %s %s (%s), not %s", note->len ? "; " : "",
		    what, path, r->set_name ? r->set_name : "?", compare_version_name(r->set_version),
		    r->set_digest ? r->set_digest : "no digest", set_arg);
	return 0;
}
