/*
 * label: merge the graded pairs of a pool worksheet into a set's working
 * copy (docs/pool.md).
 *
 * A pool grade g becomes a relevant label of grade g when g >= --min-grade
 * (default 1: "related" counts as relevant), else an irrelevant one. Each new or changed
 * label records who made it in the question's provenance map
 * (provenance.labels: {CHUNK: human | llm:MODEL}).
 *
 * A pair the set already labels differently is a conflict: "relevance" when
 * one side says relevant and the other not, "grade" when both say relevant
 * with different grades. Conflicts are resolved only as asked (--prefer):
 *   existing  keep every existing label;
 *   pool      take every pool grade;
 *   human     take the side made by a person: a pool grade without an
 *             llm: judge beats an existing label whose provenance says
 *             llm:...; otherwise the existing label stays.
 * Without --prefer, conflicts are listed and nothing is written (exit 1).
 * A grade >= 1 for an unanswerable question is never applied (it would
 * break the set's rules): it is listed as a conflict of its own.
 *
 * Bad input (a pool that does not load, names another set, or has unknown
 * questions or chunks) writes nothing and exits 2. The merged set is checked
 * against the set rules before it is saved.
 */
#include "builtin.h"
#include "set/corpus.h"
#include "set/corpuscheck.h"
#include "base/fsutil.h"
#include "pool/pool.h"
#include "set/set.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const label_usage[] = {
	"evalset label <set> --from <pool.yaml> [--prefer human|existing|pool] [--min-grade <n>]\n"
	"                    [--corpus <chunks.jsonl>] [--dry-run]",
	NULL,
};

enum prefer { PREFER_NONE, PREFER_HUMAN, PREFER_EXISTING, PREFER_POOL };

struct tally {
	size_t graded, ungraded, added_rel, added_irr, same, changed;
	size_t conflicts, kept, taken, unresolved, unanswerable;
};

/* Return who made the existing label of 'chunk' for 'q': the provenance entry, else "set". */
static const char *existing_origin(const struct question *q, const char *chunk)
{
	const cJSON *labels = q->provenance ? cJSON_GetObjectItemCaseSensitive(q->provenance, "labels") : NULL;
	const cJSON *who = cJSON_IsObject(labels) ? cJSON_GetObjectItemCaseSensitive(labels, chunk) : NULL;

	return cJSON_IsString(who) ? who->valuestring : "set";
}

static void describe(char *buf, size_t size, int grade)
{
	if (grade < 0)
		snprintf(buf, size, "unlabelled");
	else if (grade == 0)
		snprintf(buf, size, "irrelevant");
	else
		snprintf(buf, size, "relevant grade %d", grade);
}

/* Record in 'q' that 'who' made the label of 'chunk'. */
static void record_origin(struct question *q, const char *chunk, const char *who)
{
	cJSON *labels;

	if (!q->provenance)
		q->provenance = cJSON_CreateObject();
	labels = cJSON_GetObjectItemCaseSensitive(q->provenance, "labels");
	if (!cJSON_IsObject(labels)) {
		cJSON_DeleteItemFromObjectCaseSensitive(q->provenance, "labels");
		labels = cJSON_AddObjectToObject(q->provenance, "labels");
	}
	cJSON_DeleteItemFromObjectCaseSensitive(labels, chunk);
	cJSON_AddStringToObject(labels, chunk, who);
}

int cmd_label(int argc, const char **argv)
{
	const char *from = NULL, *prefer_arg = NULL, *corpus_path = NULL;
	long min_grade = 1;
	int dry_run = 0;
	const char *lock_wait = NULL;
	struct option opts[] = {
		OPT_STRING(0, "from", &from, "pool.yaml", "the graded worksheet (required)"),
		OPT_STRING(0, "prefer", &prefer_arg, "side", "resolve conflicts: human, existing or pool"),
		OPT_INT(0, "min-grade", &min_grade, "n", "lowest pool grade taken as relevant (default 1; 2 is stricter)"),
		OPT_STRING(0, "corpus", &corpus_path, "file", "check chunk ids against these chunks (default: the set's corpus)"),
		OPT_BOOL(0, "dry-run", &dry_run, "show what would change; write nothing"),
		OPT_LOCK_WAIT(&lock_wait),
		OPT_END(),
	};
	struct set_ref ref = SET_REF_INIT;
	struct set s = SET_INIT;
	struct set_lookup by_id;
	struct corpus corpus = CORPUS_INIT;
	struct pool p = POOL_INIT;
	struct lock_file lock = LOCK_FILE_INIT;
	struct findings f = FINDINGS_INIT;
	struct tally t;
	enum prefer prefer = PREFER_NONE;
	bool have_corpus = false;
	int rc, ret = EXIT_BAD_INPUT;

	memset(&t, 0, sizeof(t));
	argc = parse_options(argc, argv, opts, label_usage);
	apply_lock_wait(lock_wait, label_usage, opts);
	if (argc != 1)
		usage_with_options(label_usage, opts);
	if (!from) {
		error("no pool: give --from <pool.yaml>");
		usage_with_options(label_usage, opts);
	}
	if (prefer_arg) {
		if (!strcmp(prefer_arg, "human"))
			prefer = PREFER_HUMAN;
		else if (!strcmp(prefer_arg, "existing"))
			prefer = PREFER_EXISTING;
		else if (!strcmp(prefer_arg, "pool"))
			prefer = PREFER_POOL;
		else {
			error("unknown --prefer '%s'; use human, existing or pool", prefer_arg);
			usage_with_options(label_usage, opts);
		}
	}
	if (min_grade < 1 || min_grade > POOL_MAX_GRADE) {
		error("--min-grade must be in 1..%d", POOL_MAX_GRADE);
		usage_with_options(label_usage, opts);
	}
	if (set_ref_resolve(&ref, argv[0], true) < 0)
		goto out;
	if (ref.tag) {
		error("cannot label frozen version '%s'; versions are never rewritten (label the working copy, then tag)",
		      argv[0]);
		goto out;
	}
	if (pool_load(&p, from) < 0)
		goto out;
	if (set_open_ref(&s, &ref, true) < 0)
		goto out;
	if (p.set_name && s.name && strcmp(p.set_name, s.name)) {
		error("pool '%s' was made for set '%s', not '%s'", from, p.set_name, s.name);
		goto out;
	}
	if ((rc = set_corpus_open(&s, ref.dir, corpus_path, &corpus)) < 0)
		goto out;
	have_corpus = rc > 0;
	if (!have_corpus)
		warning("no corpus (give --corpus): chunk ids of the pool are not checked");
	if (pool_check(&p, &s, have_corpus ? &corpus : NULL))
		goto out;
	if (!dry_run) {
		/* input checked: now merge into a fresh read under the set's lock */
		if (set_lock_take(&lock, &ref) < 0)
			goto out;
		set_release(&s);
		set_init(&s);
		if (set_open_ref(&s, &ref, true) < 0 || pool_check(&p, &s, have_corpus ? &corpus : NULL))
			goto out;
	}

	/* grades change labels, never which questions the set holds: one index serves */
	set_lookup_init(&by_id, &s);
	for (size_t i = 0; i < p.nr; i++) {
		const struct pool_question *pq = &p.q[i];
		struct question *q = set_lookup_find(&by_id, pq->id);

		if (pq->text && q->text && strcmp(pq->text, q->text))
			warning("question '%s' was reworded since the pool was made; its grades are applied as they are",
				pq->id);
		for (size_t j = 0; j < pq->nr; j++) {
			const struct pool_pair *pp = &pq->pairs[j];
			const char *who = pool_pair_judge(pp), *had = NULL;
			int target, existing;
			char a[32], b[32];
			bool apply;

			if (pp->grade < 0) {
				t.ungraded++;
				continue;
			}
			t.graded++;
			target = pp->grade >= min_grade ? pp->grade : 0;
			existing = question_grade(q, pp->chunk);
			if (target >= 1 && !q->answerable) {
				t.conflicts++;
				t.unanswerable++;
				printf("conflict (unanswerable): %s %s: pool says grade %d (%s) for a question marked "
				       "answerable: false; not applied\n", q->id, pp->chunk, pp->grade, who);
				continue;
			}
			if (existing == target) {
				t.same++;
				continue;
			}
			if (existing < 0) {
				apply = true;
			} else {
				had = existing_origin(q, pp->chunk);
				t.conflicts++;
				describe(a, sizeof(a), existing);
				describe(b, sizeof(b), target);
				switch (prefer) {
				case PREFER_POOL:
					apply = true;
					break;
				case PREFER_HUMAN:
					apply = !starts_with(who, "llm:") && starts_with(had, "llm:");
					break;
				default:
					apply = false;
					break;
				}
				printf("conflict (%s): %s %s: set has %s (%s), pool says %s (%s): %s\n",
				       (existing >= 1) != (target >= 1) ? "relevance" : "grade", q->id, pp->chunk,
				       a, had, b, who,
				       prefer == PREFER_NONE ? "unresolved" : apply ? "took the pool's" : "kept the set's");
				if (prefer == PREFER_NONE)
					t.unresolved++;
				else if (apply)
					t.taken++;
				else
					t.kept++;
			}
			if (!apply)
				continue;
			if (existing < 0) {
				if (target >= 1)
					t.added_rel++;
				else
					t.added_irr++;
			} else {
				t.changed++;
			}
			question_set_label(q, pp->chunk, target);
			record_origin(q, pp->chunk, who);
		}
	}
	set_lookup_release(&by_id);
	printf("label: %s from %s: %zu graded pairs (%zu ungraded left out); %zu new relevant, %zu new irrelevant, "
	       "%zu changed, %zu already so\n", ref.file, from, t.graded, t.ungraded, t.added_rel, t.added_irr,
	       t.changed, t.same);
	if (t.conflicts)
		printf("conflicts: %zu (%zu kept the set's label, %zu took the pool's, %zu unresolved, "
		       "%zu for unanswerable questions)\n", t.conflicts, t.kept, t.taken, t.unresolved,
		       t.unanswerable);
	if (t.unresolved) {
		error("%zu conflicts with existing labels; nothing written. Resolve them with --prefer human|existing|pool",
		      t.unresolved);
		ret = EXIT_FAILED;
		goto out;
	}
	set_check_errors(&s, have_corpus ? &corpus : NULL, &f);
	if (f.nr_errors) {
		findings_report_errors(&f, ref.file);
		error("the merged labels would break the set's rules; nothing written");
		ret = EXIT_FAILED;
		goto out;
	}
	if (dry_run) {
		printf("dry run: nothing written\n");
	} else if (t.added_rel + t.added_irr + t.changed) {
		if (set_save(&s, ref.file) < 0)
			goto out;
	}
	ret = EXIT_OK;
out:
	lock_release(&lock);
	findings_release(&f);
	corpus_release(&corpus);
	pool_release(&p);
	set_release(&s);
	set_ref_release(&ref);
	return ret;
}
