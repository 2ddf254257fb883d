/*
 * judge: fill the grades of a pool worksheet with an LLM judge, or measure
 * how far the judge agrees with existing labels (docs/pool.md).
 *
 * The job itself (keys, journal, asking) runs in the library; this command finds
 * the pool's set and corpus, checks the pool against them before anything is
 * sent (unknown questions and chunks are bad input), runs the job, writes
 * the grades back into the pool atomically, and prints the summary. Only
 * ungraded pairs are asked; grades already in the pool (people's or an
 * earlier judge's) are never replaced. A pool edited while the judge ran is
 * not overwritten: the grades stay in the journal and the next run applies
 * them without asking again.
 *
 * With --against SET@TAG nothing is written to the pool: the judge grades
 * the pairs that SET@TAG has labelled (for the pool's questions) and the
 * pairs people graded in the pool, and Cohen's kappa and the confusion
 * tables between judge and labels are printed.
 */
#include "builtin.h"
#include "llm-options.h"
#include "pool/agreement.h"
#include "set/corpus.h"
#include "set/corpuscheck.h"
#include "base/fsutil.h"
#include "llm/judge.h"
#include "pool/pool.h"
#include "llm/prompt.h"
#include "set/set.h"
#include "base/table.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const judge_usage[] = {
	"evalset judge <pool.yaml> [--corpus <chunks.jsonl>] [--model <m>] [--base-url <url>] [--api-key-env <var>]\n"
	"                          [--prompt-dir <dir>] [--temperature <t>] [--concurrency <n>] [--max-requests <n>] [--retry-failed]\n"
	"                          [--deadline <duration>] [--request-deadline <duration>] [--stall-timeout <duration>]\n"
	"                          [--set <set>[@<tag>]] [--shard <i>/<n> -o <out.yaml>] [--dry-run] [--quiet]",
	"evalset judge <pool.yaml> --against <set>@<tag> [<options>]",
	"evalset judge <pool.yaml> --batch [--batch-max-requests <n>] [--batch-poll <s>] [--price <in>/<out> [--max-cost <usd>]] [<options>]",
	"evalset judge <pool.yaml> --batch-out <file> [<options>]",
	"evalset judge <pool.yaml> --batch-in <file>... [<options>]",
	"evalset judge <pool.yaml> --merge <shard.yaml>... [-o <out.yaml>]",
	NULL,
};

static void show_progress(const struct judge_stats *st, void *ctx)
{
	if (st->batch.polls)
		llm_progress_batch(ctx, "judge", &st->batch);
	else
		llm_progress_count(ctx, "judge", "pairs", st->graded + st->failed + st->lost, st->to_send,
				   st->elapsed, st->usage.retries, st->failed + st->lost);
}

/* Return the prompt file to use: a new string; caller frees. */
static char *find_prompt(const char *dir)
{
	char *d = prompt_default_dir(dir, "judge.md");
	char *file = path_join(d, "judge.md");

	free(d);
	return file;
}

/* The kappa of the k x k 'table' with its 95% interval (agreement.h). */
static const char *kappa_text(const long *table, int k, char *buf, size_t size)
{
	double kappa = cohen_kappa(table, k), lo, hi;

	if (isnan(kappa))
		return "undefined (every pair in one level)";
	if (kappa_interval(table, k, 1, &lo, &hi) < 0)
		snprintf(buf, size, "%.3f", kappa);
	else
		snprintf(buf, size, "%.3f (95%% interval %.3f to %.3f)", kappa, lo, hi);
	return buf;
}

/* Start a table of 'n' judge grades by label: the judge's grades 0..n-1 as
 * columns, or 0 and 'rest' when 'rest' is given (n 2). */
static void confusion_init(struct table *t, int n, const char *rest)
{
	table_init(t, TABLE_TEXT);
	t->sep = " ";
	table_add_column(t, "", 0, 10, 0);
	for (int j = 0; j < n; j++) {
		char name[32];

		if (rest && j)
			snprintf(name, sizeof(name), "judge %s", rest);
		else
			snprintf(name, sizeof(name), "judge %d", j);
		table_add_column(t, name, TABLE_RIGHT, 9, 0);
	}
}

static void print_agreement(const struct agreement *a)
{
	long b[2][2];
	char kb[64];
	struct table t;

	/* labels by row, the judge's grades by column */
	confusion_init(&t, AGREEMENT_LEVELS, NULL);
	for (int i = 0; i < AGREEMENT_LEVELS; i++) {
		table_addf(&t, "label %d", i);
		for (int j = 0; j < AGREEMENT_LEVELS; j++)
			table_addf(&t, "%ld", a->table[i][j]);
	}
	printf("\n");
	print_table(&t);
	printf("kappa (4 levels): %s, observed agreement %.3f\n",
	       kappa_text(&a->table[0][0], AGREEMENT_LEVELS, kb, sizeof(kb)),
	       observed_agreement(&a->table[0][0], AGREEMENT_LEVELS));
	agreement_binary(a, 1, b);
	confusion_init(&t, 2, "1-3");
	for (int i = 0; i < 2; i++) {
		table_add(&t, i ? "label 1-3" : "label 0");
		table_addf(&t, "%ld", b[i][0]);
		table_addf(&t, "%ld", b[i][1]);
	}
	printf("\n");
	print_table(&t);
	printf("kappa (binary, relevant = grade >= 1): %s, observed agreement %.3f\n",
	       kappa_text(&b[0][0], 2, kb, sizeof(kb)), observed_agreement(&b[0][0], 2));
	if (a->n < KAPPA_FEW_PAIRS)
		warning("only %ld pair%s compared: below %d pairs a kappa and its interval say little "
			"about the judge; grade more pairs", a->n, a->n == 1 ? "" : "s", KAPPA_FEW_PAIRS);
}

/* One labelled pair for --against: where its label came from. */
struct against_pair {
	int label;          /* 0..3 (set grades above 3 count as 3) */
	bool from_pool;     /* graded by people in the pool */
	bool list_form;     /* a list-form label (grade 1 meaning only "relevant") */
};

/*
 * --merge: take the grades of the shard worksheets 'shards' into the pool
 * 'pool_path' and write it to 'out' (NULL: in place). Nothing is asked.
 */
static int merge_shards(const char *pool_path, const char **shards, size_t nr, const char *out)
{
	struct pool p = POOL_INIT;
	struct pool *sp = xcalloc(nr + 1, sizeof(*sp));
	struct pool_merge_counts mc;
	size_t loaded = 0;
	int ret = EXIT_BAD_INPUT;

	if (pool_load(&p, pool_path) < 0)
		goto out;
	for (; loaded < nr; loaded++) {
		sp[loaded] = (struct pool)POOL_INIT;
		if (pool_load(&sp[loaded], shards[loaded]) < 0)
			goto out;
	}
	if (pool_merge(&p, sp, shards, nr, &mc) < 0)
		goto out;
	if (pool_save(&p, out ? out : pool_path) < 0)
		goto out;
	printf("merged %zu shards into %s: %zu grades taken, %zu already there, %zu pairs graded in the pool kept, "
	       "%zu pairs ungraded\n", nr, out ? out : pool_path, mc.taken, mc.same, mc.kept, mc.ungraded);
	ret = EXIT_OK;
out:
	for (size_t i = 0; i < loaded; i++)
		pool_release(&sp[i]);
	free(sp);
	pool_release(&p);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Return the judge journals of the set directory 'dir' other than 'own'
 * (judge.jsonl and every shard's judge.I-of-N.jsonl), sorted, in a
 * NULL-terminated array the caller frees with its strings, and their number
 * in '*nr': a rerun with other shards (or none) reuses every paid grade.
 */
static char **other_journals(const char *dir, const char *own, size_t *nr)
{
	char *ed = path_join(dir, ".evalset");
	DIR *d = opendir(ed);
	struct dirent *e;
	char **list = NULL;
	size_t alloc = 0;

	*nr = 0;
	while (d && (e = readdir(d))) {
		char *path;
		if (!starts_with(e->d_name, "judge") || !ends_with(e->d_name, ".jsonl") ||
		    (strcmp(e->d_name, "judge.jsonl") && !strstr(e->d_name, "-of-")))
			continue;
		path = path_join(ed, e->d_name);
		if (!strcmp(path, own)) {
			free(path);
			continue;
		}
		ALLOC_GROW(list, *nr + 2, alloc);
		list[(*nr)++] = path;
	}
	if (d)
		closedir(d);
	free(ed);
	if (list) {
		qsort(list, *nr, sizeof(*list), cmp_str);
		list[*nr] = NULL;
	}
	return list;
}

int cmd_judge(int argc, const char **argv)
{
	const char *corpus_path = NULL, *prompt_dir = NULL, *against = NULL, *set_opt = NULL;
	struct llm_cli lo = LLM_CLI_INIT;
	struct llm_batch_cli bc = LLM_BATCH_CLI_INIT;
	const char *shard = NULL, *out_path = NULL, *batch_out = NULL;
	struct string_list batch_in = STRING_LIST_INIT;
	long shard_i = 1, shard_n = 1;
	int dry_run = 0, quiet = 0, retry_failed = 0, merge = 0;
	char **journals = NULL;
	size_t nr_journals = 0;
	const char *lock_wait = NULL;
	struct option opts[] = {
		OPT_STRING(0, "corpus", &corpus_path, "file", "the chunks (default: the pool's corpus, else the set's)"),
		OPT_LLM_ENDPOINT(&lo),
		OPT_STRING(0, "prompt-dir", &prompt_dir, "dir", "where judge.md is"),
		OPT_BOOL(0, "retry-failed", &retry_failed, "ask again the pairs whose reply was unusable before"),
		OPT_STRING(0, "set", &set_opt, "set[@tag]",
			   "the pool's set (default: set.path of the pool, from the pool's directory)"),
		OPT_STRING(0, "against", &against, "set@tag", "grade the pairs this version labelled and print the agreement"),
		OPT_STRING(0, "shard", &shard, "i/n", "grade only the i-th of n deterministic shards of the pairs"),
		OPT_STRING('o', "output", &out_path, "file", "write the graded worksheet here, not over the pool"),
		OPT_LLM_BATCH(&bc),
		OPT_STRING(0, "batch-out", &batch_out, "file", "write the Batch API input lines of the pairs to ask; ask nothing"),
		OPT_STRING_LIST(0, "batch-in", &batch_in, "file", "grade from Batch API output or error files; repeatable"),
		OPT_BOOL(0, "merge", &merge, "take the grades of the shard worksheets given after the pool; ask nothing"),
		OPT_BOOL(0, "dry-run", &dry_run, "show how many pairs would be asked; send nothing"),
		OPT_BOOL('q', "quiet", &quiet, "no progress or notes"),
		OPT_LOCK_WAIT(&lock_wait),
		OPT_END(),
	};
	struct pool p = POOL_INIT;
	struct set_ref ref = SET_REF_INIT, aref = SET_REF_INIT;
	struct set s = SET_INIT, as = SET_INIT;
	struct set_lookup in_s, in_as;
	struct corpus corpus = CORPUS_INIT;
	struct prompt prompt = PROMPT_INIT;
	struct lock_file lock = LOCK_FILE_INIT;
	struct judge_options jo;
	struct judge_stats st;
	struct judge_item *items = NULL;
	struct pool_pair **targets = NULL;
	struct against_pair *ap = NULL;
	size_t nr = 0, alloc = 0, alloc_t = 0, alloc_ap = 0;
	struct llm_progress prog = { 0 };
	char *prompt_path = NULL, *journal = NULL, *lock_path = NULL, *judge_name = NULL, *pid = NULL;
	char *set_arg = NULL, *what = NULL, *batch_journal = NULL;
	char loaded_sha[72];
	const char *model;
	int ret = EXIT_BAD_INPUT, rc;
	bool have_corpus;

	memset(&st, 0, sizeof(st));
	argc = parse_options(argc, argv, opts, judge_usage);
	apply_lock_wait(lock_wait, judge_usage, opts);
	set_quiet(quiet);
	if (merge) {
		if (argc < 2) {
			error("--merge needs the pool and at least one shard worksheet");
			usage_with_options(judge_usage, opts);
		}
		if (shard || against || dry_run) {
			error("--merge cannot be combined with --shard, --against or --dry-run");
			usage_with_options(judge_usage, opts);
		}
		return merge_shards(argv[0], argv + 1, (size_t)argc - 1, out_path);
	}
	if (argc != 1)
		usage_with_options(judge_usage, opts);
	if (shard && llm_cli_parse_shard(shard, &shard_i, &shard_n))
		usage_with_options(judge_usage, opts);
	if (shard && against) {
		error("--shard cannot be combined with --against (the agreement needs every pair)");
		usage_with_options(judge_usage, opts);
	}
	if (shard && shard_n > 1 && !out_path && !dry_run) {
		error("--shard needs -o <file>: each shard writes its own worksheet, merged with --merge");
		usage_with_options(judge_usage, opts);
	}
	if ((bc.batch || batch_out || batch_in.nr) && against) {
		error("--batch, --batch-out and --batch-in cannot be combined with --against");
		usage_with_options(judge_usage, opts);
	}
	if ((batch_out != NULL) + (batch_in.nr > 0) + (bc.batch != 0) > 1) {
		error("--batch, --batch-out and --batch-in cannot be combined");
		usage_with_options(judge_usage, opts);
	}
	if (out_path && against) {
		error("-o cannot be combined with --against (nothing is written)");
		usage_with_options(judge_usage, opts);
	}
	if (llm_cli_finish(&lo, !dry_run && !batch_out && !batch_in.nr, judge_usage, opts) < 0)
		goto out;
	model = lo.model;
	judge_name = xstrfmt("llm:%s", model);

	if (file_sha256(argv[0], loaded_sha) < 0 || pool_load(&p, argv[0]) < 0)
		goto out;
	if (set_opt) {
		/* the version is the pool's unless --set names one */
		set_arg = p.set_version && !strchr(set_opt, '@') ? xstrfmt("%s@%s", set_opt, p.set_version)
								 : xstrdup(set_opt);
	} else if (!p.set_path) {
		error("pool '%s' does not say where its set is (set.path): give --set", argv[0]);
		goto out;
	} else {
		char *dir = pool_resolve_path(p.set_path, argv[0]);
		set_arg = p.set_version ? xstrfmt("%s@%s", dir, p.set_version) : xstrdup(dir);
		free(dir);
	}
	if (set_ref_resolve(&ref, set_arg, true) < 0 || set_open_ref(&s, &ref, true) < 0)
		goto out;
	if (p.set_digest) {
		char d[72];
		set_digest(&s, d);
		if (strcmp(d, p.set_digest))
			note("set '%s' changed since the pool was made (digest %s, pool %s)", set_arg, d, p.set_digest);
	}
	if (corpus_path) {
		if (corpus_load(&corpus, corpus_path) < 0)
			goto out;
		have_corpus = true;
	} else if (p.corpus_path && path_exists(p.corpus_path)) {
		if (corpus_load(&corpus, p.corpus_path) < 0)
			goto out;
		have_corpus = true;
	} else {
		rc = set_corpus_load(&s, ref.dir, &corpus);
		if (rc < 0)
			goto out;
		have_corpus = rc > 0;
	}
	if (!have_corpus) {
		error("no corpus: give --corpus (the judge reads each chunk's text from it)");
		goto out;
	}
	if (p.corpus_fingerprint) {
		char fp[72];
		corpus_fingerprint(&corpus, fp);
		if (strcmp(fp, p.corpus_fingerprint))
			warning("corpus '%s' has fingerprint %s but the pool was made with %s: chunk texts may have changed",
				corpus.path, fp, p.corpus_fingerprint);
	}
	if (pool_check(&p, &s, &corpus))
		goto out;
	prompt_path = find_prompt(prompt_dir);
	if (!path_exists(prompt_path)) {
		error("no judge prompt: '%s' does not exist (see --prompt-dir)", prompt_path);
		goto out;
	}
	if (judge_prompt_load(&prompt, prompt_path) < 0)
		goto out;
	pid = prompt_id(&prompt);

	/* the pairs to ask */
	if (against) {
		if (set_open(&as, &aref, against) < 0)
			goto out;
		if (!aref.tag) {
			error("--against needs a tagged version (<set>@<tag>), not the working copy '%s'", against);
			goto out;
		}
	}
	/* the pooled questions in the set (and --against's), by id: neither set changes here */
	set_lookup_init(&in_s, &s);
	set_lookup_init(&in_as, &as);
	for (size_t i = 0; i < p.nr; i++) {
		struct pool_question *pq = &p.q[i];
		const struct question *q = set_lookup_find(&in_s, pq->id);
		const struct question *aq = against ? set_lookup_find(&in_as, pq->id) : NULL;
		const char *qtext = q && q->text ? q->text : pq->text;

		if (against && aq) {
			for (size_t k = 0; k < aq->nr_relevant + aq->nr_irrelevant; k++) {
				const char *cid = k < aq->nr_relevant ? aq->relevant[k].chunk
								      : aq->irrelevant[k - aq->nr_relevant];
				const struct chunk *ch = corpus_get(&corpus, cid);
				int g = k < aq->nr_relevant ? aq->relevant[k].grade : 0;
				if (!ch) {
					struct strbuf mean = STRBUF_INIT;

					corpus_did_you_mean(&corpus, cid, &mean);
					warning("chunk '%s' labelled for '%s' in '%s' is not in the corpus%s; skipped",
						cid, aq->id, against, mean.buf);
					strbuf_release(&mean);
					continue;
				}
				ALLOC_GROW(items, nr + 1, alloc);
				ALLOC_GROW(ap, nr + 1, alloc_ap);
				items[nr] = (struct judge_item){ .qid = pq->id, .question = aq->text, .chunk = ch->id,
								 .title = ch->title, .text = ch->text,
								 .question_language = aq->language ? aq->language : as.language,
								 .chunk_language = s.corpus.language };
				ap[nr].label = g > 3 ? 3 : g;
				ap[nr].from_pool = false;
				ap[nr].list_form = k < aq->nr_relevant && aq->relevant_as_list;
				nr++;
			}
		}
		for (size_t j = 0; j < pq->nr; j++) {
			struct pool_pair *pp = &pq->pairs[j];
			const struct chunk *ch = corpus_get(&corpus, pp->chunk);
			if (against ? pp->grade < 0 || starts_with(pool_pair_judge(pp), "llm:") : pp->grade >= 0)
				continue;
			if (!judge_in_shard(pq->id, pp->chunk, shard_i, shard_n))
				continue;
			ALLOC_GROW(items, nr + 1, alloc);
			items[nr] = (struct judge_item){ .qid = pq->id, .question = qtext, .chunk = ch->id,
							 .title = ch->title, .text = ch->text,
							 .question_language = q && q->language ? q->language : s.language,
							 .chunk_language = s.corpus.language };
			if (against) {
				ALLOC_GROW(ap, nr + 1, alloc_ap);
				ap[nr].label = pp->grade;
				ap[nr].from_pool = true;
				ap[nr].list_form = false;
			} else {
				ALLOC_GROW(targets, nr + 1, alloc_t);
				targets[nr] = pp;
			}
			nr++;
		}
	}
	/* a judge grading its own questions */
	{
		size_t own = 0;
		for (size_t i = 0; i < p.nr; i++) {
			const struct question *q = set_lookup_find(&in_s, p.q[i].id);
			const cJSON *m = q && q->provenance ? cJSON_GetObjectItemCaseSensitive(q->provenance, "model") : NULL;
			if (cJSON_IsString(m) && !strcmp(m->valuestring, model))
				own++;
		}
		if (own)
			warning("the judge '%s' generated %zu of the %zu pooled questions: a model tends to favour "
				"passages close to its own wording; prefer another model as judge", model, own, p.nr);
	}
	set_lookup_release(&in_s);
	set_lookup_release(&in_as);

	journal = llm_cli_shard_file(ref.dir, "judge", "jsonl", shard_i, shard_n);
	journals = other_journals(ref.dir, journal, &nr_journals);
	memset(&jo, 0, sizeof(jo));
	jo.prompt = &prompt;
	jo.journal_path = journal;
	jo.more_journals = (const char *const *)journals;
	jo.nr_more_journals = nr_journals;
	jo.retry_failed = retry_failed;
	jo.dry_run = true;
	batch_journal = llm_cli_batch_journal(ref.dir, "judge", shard_i, shard_n);
	if (bc.batch && llm_cli_batch_options(&bc, batch_journal, "judge", &jo.batch_opts) < 0)
		goto out;
	jo.batch = bc.batch;
	jo.batch_out = batch_out;
	jo.batch_in = batch_in.items;
	jo.nr_batch_in = batch_in.nr;
	llm_cli_apply(&lo, &jo.llm);
	jo.llm.max_tokens = 200;
	jo.llm.seed = -1;
	if (judge_run(&jo, items, nr, &st))
		goto out;
	if (bc.batch && st.to_send)
		llm_cli_print_estimate(&st.batch);
	if (dry_run && bc.batch) {
		printf("dry run: nothing submitted\n");
		ret = EXIT_OK;
		goto out;
	}
	if (dry_run) {
		printf("dry run: %zu pairs to ask (%zu distinct, %zu graded in the journal, %zu failed before%s); nothing sent\n",
		       st.to_send, st.planned, st.done_before, st.failed_before,
		       retry_failed ? ", asked again" : ", not asked again without --retry-failed");
		ret = EXIT_OK;
		goto out;
	}
	what = xstrfmt("judge journal of set '%s'", ref.dir);
	lock_path = llm_cli_shard_file(ref.dir, "judge", "lock", shard_i, shard_n);
	{
		char *dir = path_join(ref.dir, ".evalset");
		rc = mkdir_private(dir);
		free(dir);
	}
	if (rc < 0 || lock_take(&lock, lock_path, what) < 0)
		goto out;
	handle_interrupts();
	prog.tty = isatty(2);
	jo.dry_run = false;
	jo.progress = show_progress;
	jo.ctx = &prog;
	judge_items_release(items, nr);
	rc = judge_run(&jo, items, nr, &st);
	llm_progress_clear(&prog, 100);
	if (batch_out) {
		if (rc)
			goto out;
		printf("wrote %zu requests to %s (%zu pairs graded in the journal); custom_id is the journal key: "
		       "submit the file, then run judge with --batch-in on the results\n", st.batch_written, batch_out,
		       st.done_before);
		ret = EXIT_OK;
		goto out;
	}

	if (against) {
		struct agreement a = AGREEMENT_INIT;
		size_t from_pool = 0, failed = 0, pending = 0, list_form = 0;
		printf("agreement: judge %s (prompt %s) against %s\n", judge_name, pid, against);
		for (size_t i = 0; i < nr; i++) {
			if (items[i].status != JUDGE_GRADED) {
				failed += items[i].status == JUDGE_FAILED;
				pending += items[i].status != JUDGE_FAILED;
				continue;
			}
			agreement_add(&a, ap[i].label, items[i].grade);
			from_pool += ap[i].from_pool;
			list_form += ap[i].list_form;
		}
		printf("pairs: %zu labelled; %ld judged (%zu of them graded by people in the pool), %zu unusable replies, "
		       "%zu not judged\n", nr, a.n, from_pool, failed, pending);
		if (list_form)
			printf("note: %zu labels are list-form relevant (grade 1 meaning only \"relevant\"): "
			       "read the binary kappa for them\n", list_form);
		print_agreement(&a);
	} else {
		size_t changed = 0, failed = 0, pending = 0;
		for (size_t i = 0; i < nr; i++) {
			struct pool_pair *pp = targets[i];
			if (items[i].status != JUDGE_GRADED) {
				failed += items[i].status == JUDGE_FAILED;
				pending += items[i].status != JUDGE_FAILED;
				continue;
			}
			pp->grade = items[i].grade;
			free(pp->judge);
			pp->judge = xstrdup(judge_name);
			free(pp->prompt);
			pp->prompt = xstrdup(pid);
			free(pp->reason);
			pp->reason = xstrdup(items[i].reason);
			changed++;
		}
		if (out_path) {
			if (pool_save(&p, out_path) < 0)
				goto out;
		} else if (changed) {
			char now_sha[72];
			if (file_sha256(argv[0], now_sha) < 0 || strcmp(now_sha, loaded_sha)) {
				error("'%s' changed while the judge ran; not overwritten. The %zu grades are in the "
				      "journal: run the same command again to apply them", argv[0], changed);
				ret = EXIT_BAD_INPUT;
				goto out;
			}
			if (pool_save(&p, argv[0]) < 0)
				goto out;
		}
		printf("judge: %s (model %s, prompt %s, structured output %s)\n", argv[0], model, pid,
		       llm_mode_name(st.mode));
		if (!nr)
			printf("nothing to grade: every pair of the pool has a grade\n");
		else
			printf("pairs: %zu to grade (%zu distinct); %zu graded from the journal, %zu graded now, "
			       "%zu unusable replies, %zu not judged\n", nr, st.planned, st.done_before, st.graded,
			       failed, pending);
		if (failed)
			warning("%zu pairs stay ungraded: the judge's reply was unusable (see %s); "
				"--retry-failed asks them again", failed, journal);
	}
	llm_cli_print_usage(&st.usage, st.elapsed);
	if (bc.batch)
		llm_cli_print_batch(&st.batch);
	if (batch_in.nr)
		llm_cli_print_batch_in(st.batch_matched, st.batch_unmatched, st.batch_errors);
	ret = llm_cli_exit_code(&(struct llm_cli_outcome){ rc, st.lost, st.cancelled, "pairs not asked",
							   st.graded, "grades" }, &lo);
out:
	lock_release(&lock);
	judge_items_release(items, nr);
	free(items);
	free(targets);
	free(ap);
	free(prompt_path);
	free(journal);
	free(lock_path);
	free(judge_name);
	free(pid);
	free(set_arg);
	free(what);
	free(batch_journal);
	string_list_clear(&batch_in);
	for (size_t i = 0; i < nr_journals; i++)
		free(journals[i]);
	free(journals);
	prompt_release(&prompt);
	corpus_release(&corpus);
	pool_release(&p);
	set_release(&s);
	set_release(&as);
	set_ref_release(&ref);
	set_ref_release(&aref);
	return ret;
}
