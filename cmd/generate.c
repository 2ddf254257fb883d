/*
 * generate: write synthetic questions into a set's working copy from corpus
 * chunks through an OpenAI-compatible endpoint (docs/generate.md).
 *
 * The job itself (plan, journal, filters, saving) runs in the library; this
 * command reads the options and the environment, checks the input before
 * anything is written (a dry pass of the job), takes the set's lock, runs
 * the job and prints progress (stderr) and the summary (stdout). The API key
 * is read from the environment and handed to the LLM client only.
 */
#include "builtin.h"
#include "llm-options.h"
#include "base/config.h"
#include "set/corpus.h"
#include "set/corpuscheck.h"
#include "base/fsutil.h"
#include "llm/generate.h"
#include "llm/prompt.h"
#include "set/set.h"
#include "text/lang.h"
#include "base/table.h"
#include "base/util.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const generate_usage[] = {
	"evalset generate <set> [--corpus <chunks.jsonl>] [--sample <n> | --chunks <id>,...] [--per-chunk <n>]\n"
	"                       [--kinds <kind>,...] [--seed <s>] [--temperature <t>] [--model <m>] [--base-url <url>]\n"
	"                       [--api-key-env <var>] [--prompt-dir <dir>] [--concurrency <n>]\n"
	"                       [--max-requests <n>] [--max-attempts <n>] [--dry-run] [--max-overlap <x>]\n"
	"                       [--max-copied <x>] [--max-chars <n>] [--question-language <tag>]\n"
	"                       [--shard <i>/<n>] [--retry-failed] [--deadline <duration>]\n"
	"                       [--request-deadline <duration>] [--stall-timeout <duration>]\n"
	"                       [--difficulty <band>,...] [--no-critique] [--critique-model <m>]\n"
	"                       [--critique-min <n>] [--no-verify] [--verify-k <k>] [--retriever-cmd <cmd>]\n"
	"                       [--persona <text>]... [--seed-questions <file>] [--style-from <filter>|<file>]\n"
	"                       [--quiet]",
	"evalset generate <set> [--corpus <chunks.jsonl>] --batch [--batch-max-requests <n>] [--batch-poll <s>]\n"
	"                       [--price <in>/<out> [--max-cost <usd>]] [<selection and endpoint options>]",
	"evalset generate <set> [--corpus <chunks.jsonl>] --batch-out <file> [<selection options>]",
	"evalset generate <set> [--corpus <chunks.jsonl>] --batch-in <file>... [<selection options>]",
	NULL,
};

static void show_progress(const struct gen_stats *st, void *ctx)
{
	if (st->batch.polls)
		llm_progress_batch(ctx, "generate", &st->batch);
	else
		llm_progress_count(ctx, "generate", "requests", st->answered + st->unusable + st->lost,
				   st->to_send, st->elapsed, st->usage.retries, st->unusable + st->lost);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double quantile(const double *v, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t lo = (size_t)pos;

	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + (v[lo + 1] - v[lo]) * (pos - (double)lo);
}

static void side_cell(char *buf, size_t len, double *v, size_t n, const char *fmt)
{
	char lo[16], mid[16], hi[16];

	if (!n) {
		snprintf(buf, len, "-");
		return;
	}
	snprintf(lo, sizeof(lo), fmt, realism_quantile(v, n, 0.25));
	snprintf(mid, sizeof(mid), fmt, realism_quantile(v, n, 0.5));
	snprintf(hi, sizeof(hi), fmt, realism_quantile(v, n, 0.75));
	snprintf(buf, len, "%s (%s-%s)", mid, lo, hi);
}

static void stat_cell(char *buf, size_t len, const char *name, double v, double p, size_t n)
{
	if (!n)
		snprintf(buf, len, "-");
	else if (p < 0.001)
		snprintf(buf, len, "%s %.2f, p < 0.001", name, v);
	else
		snprintf(buf, len, "%s %.2f, p %.3f", name, v, p);
}

/* The realism gap: real queries, the set's synthetic questions before this run, the new ones. */
static void print_realism(const char *from, struct gen_stats *st)
{
	struct realism_side *sides[3] = { &st->real, &st->before, &st->after };
	struct realism_gap gap[2];
	char c[3][64];
	struct table t;

	if (!st->real.n)
		return;
	gap[0] = realism_compare(&st->before, &st->real);
	gap[1] = realism_compare(&st->after, &st->real);
	printf("realism gap: synthetic questions against %zu real queries (--style-from %s)\n", st->real.n, from);
	table_init(&t, TABLE_TEXT);
	t.indent = "  ";
	t.sep = " ";
	table_add_column(&t, "", 0, 26, 0);
	table_add_column(&t, "real", 0, 22, 0);
	table_add_column(&t, "synthetic before", 0, 22, 0);
	table_add_column(&t, "synthetic new", 0, 22, 0);
	table_add(&t, "questions");
	for (int i = 0; i < 3; i++)
		table_addf(&t, "%zu", sides[i]->n);
	table_add(&t, "words, median (p25-p75)");
	for (int i = 0; i < 3; i++) {
		side_cell(c[i], sizeof(c[i]), sides[i]->len, sides[i]->n, "%.0f");
		table_add(&t, c[i]);
	}
	table_add(&t, "overlap, median (p25-p75)");
	for (int i = 0; i < 3; i++) {
		side_cell(c[i], sizeof(c[i]), sides[i]->overlap, sides[i]->n, "%.2f");
		table_add(&t, c[i]);
	}
	for (int w = 0; w < QW_NR; w++) {
		table_addf(&t, "first word '%s'", qword_name(w));
		for (int i = 0; i < 3; i++)
			if (sides[i]->n)
				table_addf(&t, "%.0f%%", 100.0 * (double)sides[i]->qword[w] / (double)sides[i]->n);
			else
				table_add(&t, NULL);
	}
	for (int k = 0; k < 3; k++) {
		const char *row = k == 0 ? "length vs real" : k == 1 ? "overlap vs real" : "first word vs real";
		for (int i = 0; i < 2; i++) {
			size_t n = sides[i + 1]->n;
			if (k == 0)
				stat_cell(c[i], sizeof(c[i]), "KS D", gap[i].len.d, gap[i].len.p, n);
			else if (k == 1)
				stat_cell(c[i], sizeof(c[i]), "KS D", gap[i].overlap.d, gap[i].overlap.p, n);
			else
				stat_cell(c[i], sizeof(c[i]), "chi2", gap[i].qword.x2, gap[i].qword.p, n);
		}
		table_add(&t, row);
		table_add(&t, "");
		table_add(&t, c[0]);
		table_add(&t, c[1]);
	}
	print_table(&t);
}

static void print_summary(const char *set_file, const char *model, struct gen_stats *st, bool retry_failed,
			  int min_score, const char *style_from)
{
	printf("generate: %s (model %s, structured output %s)\n", set_file, model, llm_mode_name(st->mode));
	printf("chunks: %zu selected; requests: %zu planned, %zu already answered, %zu answered now, "
	       "%zu unusable, %zu failed, %zu not sent",
	       st->chunks, st->planned, st->done_before, st->answered, st->unusable, st->lost, st->cancelled);
	if (st->no_neighbour)
		printf(" (%zu multi-hop skipped: no chunk of another document shares a term)", st->no_neighbour);
	if (st->no_earlier)
		printf(" (%zu follow-up skipped: no question of the set on the chunk or its document)", st->no_earlier);
	printf("\n");
	if (st->failed_before)
		printf("unusable before: %zu requests, %s\n", st->failed_before,
		       retry_failed ? "asked again" : "not asked again without --retry-failed");
	if (st->replayed)
		printf("resumed: %zu journaled replies applied again\n", st->replayed);
	printf("questions: %zu proposed, %zu kept\n", st->proposed, st->kept);
	printf("dropped: %zu empty, %zu too long, %zu in another language, %zu referring to the source, "
	       "%zu duplicate of the set, %zu duplicate within the run, %zu copied from the chunk, "
	       "%zu over --max-overlap, %zu rejected in review before\n",
	       st->drop_empty, st->drop_long, st->drop_language, st->drop_reference, st->drop_dup_set, st->drop_dup_run,
	       st->drop_copied, st->drop_overlap, st->drop_rejected);
	if (st->drop_difficulty)
		printf("dropped: %zu outside --difficulty\n", st->drop_difficulty);
	if (st->bands[GEN_EASY] + st->bands[GEN_MEDIUM] + st->bands[GEN_HARD])
		printf("difficulty of kept answerable questions (BM25 rank of their chunk): %zu easy (rank 1), "
		       "%zu medium (2-10), %zu hard (beyond 10)\n",
		       st->bands[GEN_EASY], st->bands[GEN_MEDIUM], st->bands[GEN_HARD]);
	if (st->critique.planned) {
		printf("critique: %zu questions, %zu rated before, %zu rated now, %zu unusable, %zu failed, %zu not sent; "
		       "%zu rated, %zu dropped (",
		       st->critique.planned, st->critique.done_before, st->critique.answered, st->critique.unusable,
		       st->critique.lost, st->critique.cancelled, st->critiqued, st->drop_critique);
		for (int c = 0; c < GEN_NR_CRITERIA; c++)
			printf("%s%zu %s", c ? ", " : "", st->drop_criterion[c], gen_criterion_name(c));
		printf(" under %d)\n", min_score);
		for (int c = 0; c < GEN_NR_CRITERIA; c++) {
			size_t n = 0;
			double sum = 0;
			for (int v = 1; v <= 5; v++) {
				n += st->scores[c][v];
				sum += v * (double)st->scores[c][v];
			}
			printf("  %-13s 1: %zu  2: %zu  3: %zu  4: %zu  5: %zu  mean %.2f\n", gen_criterion_name(c),
			       st->scores[c][1], st->scores[c][2], st->scores[c][3], st->scores[c][4], st->scores[c][5],
			       n ? sum / (double)n : 0.0);
		}
	}
	if (st->verify.planned) {
		/* a follow-up is checked twice: alone, then with its history */
		size_t questions = st->verify.planned - st->verify_follow_ups;

		printf("verification: %zu questions", questions);
		if (st->verify_follow_ups)
			printf(" (%zu checks: a follow-up twice)", st->verify.planned);
		printf(", %zu checked before, %zu checked now, %zu unusable, %zu failed, "
		       "%zu not sent; dropped %zu unanswerable the corpus answers, %zu multi-hop one chunk answers\n",
		       st->verify.done_before, st->verify.answered, st->verify.unusable,
		       st->verify.lost, st->verify.cancelled, st->drop_answered, st->drop_one_chunk);
		if (st->verify_follow_ups)
			printf("verification of %zu follow-ups: dropped %zu its chunk answers without the history, "
			       "%zu its chunk does not answer with it\n", st->verify_follow_ups, st->drop_standalone,
			       st->drop_unsupported);
	}
	if (st->nr_overlaps) {
		size_t n = st->nr_overlaps, hist[5] = { 0 };
		double sum = 0;
		qsort(st->overlaps, n, sizeof(double), cmp_double);
		for (size_t i = 0; i < n; i++) {
			int b = (int)(st->overlaps[i] * 5);
			hist[b > 4 ? 4 : b]++;
			sum += st->overlaps[i];
		}
		printf("overlap of kept questions with their chunk: min %.2f, p25 %.2f, median %.2f, p75 %.2f, "
		       "max %.2f, mean %.2f\n", st->overlaps[0], quantile(st->overlaps, n, 0.25),
		       quantile(st->overlaps, n, 0.5), quantile(st->overlaps, n, 0.75), st->overlaps[n - 1],
		       sum / (double)n);
		printf("overlap histogram: [0,.2) %zu  [.2,.4) %zu  [.4,.6) %zu  [.6,.8) %zu  [.8,1] %zu\n",
		       hist[0], hist[1], hist[2], hist[3], hist[4]);
	}
	if (style_from)
		print_realism(style_from, st);
	{
		/* every call of the run: generation, critique, verification */
		struct llm_usage u = st->usage;
		const struct llm_usage *more[] = { &st->critique.usage, &st->verify.usage };
		for (size_t i = 0; i < 2; i++) {
			u.calls += more[i]->calls;
			u.ok += more[i]->ok;
			u.failed += more[i]->failed;
			u.cancelled += more[i]->cancelled;
			u.requests += more[i]->requests;
			u.retries += more[i]->retries;
			u.prompt_tokens += more[i]->prompt_tokens;
			u.completion_tokens += more[i]->completion_tokens;
		}
		llm_cli_print_usage(&u, st->elapsed);
	}
}

/*
 * Print what a dry run would send: the generation requests, then each pass
 * after them (critique, verification: at most, since the filters drop some
 * questions first) or that it is off, and the whole.
 */
static void print_dry_run(const struct gen_stats *st, bool critique, bool verify)
{
	size_t all = st->to_send + st->est_critique_requests + st->est_verify_requests;
	long tokens = st->est_prompt_tokens + st->est_critique_tokens + st->est_verify_tokens;

	printf("dry run: %zu generation requests to send (%zu planned, %zu already answered), "
	       "about %ld prompt tokens\n", st->to_send, st->planned, st->done_before,
	       st->est_prompt_tokens);
	if (critique)
		printf("  then up to %zu critique requests, about %ld prompt tokens (--no-critique "
		       "skips them)\n", st->est_critique_requests, st->est_critique_tokens);
	else
		printf("  critique: off\n");
	if (verify)
		printf("  then up to %zu verification requests, about %ld prompt tokens (--no-verify "
		       "skips them)\n", st->est_verify_requests, st->est_verify_tokens);
	else
		printf("  verification: off\n");
	printf("in all up to %zu requests, about %ld prompt tokens; nothing sent\n", all, tokens);
}

int cmd_generate(int argc, const char **argv)
{
	const char *corpus_path = NULL, *chunks = NULL, *kinds = "factoid,paraphrase";
	const char *prompt_dir = NULL, *batch_out = NULL, *shard = NULL, *question_language = NULL;
	const char *difficulty = NULL, *critique_model = NULL, *retriever_cmd = NULL;
	int critique = -1, verify = -1;
	const char *seed_questions = NULL, *style_from = NULL;
	struct string_list personas = STRING_LIST_INIT;
	long critique_min = 3, verify_k = 5;
	long sample = 0, per_chunk = 1, seed = 1, max_chars = 300;
	double max_overlap = 2, max_copied = 0.6;
	struct llm_cli lo = LLM_CLI_INIT;
	struct llm_batch_cli bc = LLM_BATCH_CLI_INIT;
	int dry_run = 0, quiet = 0, retry_failed = 0;
	struct string_list batch_in = STRING_LIST_INIT;
	const char *lock_wait = NULL;
	struct option opts[] = {
		OPT_STRING(0, "corpus", &corpus_path, "chunks.jsonl", "the chunks (JSONL; default: the set's corpus.path)"),
		OPT_INT(0, "sample", &sample, "n", "a seeded sample of n chunks (default: all)"),
		OPT_STRING(0, "chunks", &chunks, "id,...", "only these chunks"),
		OPT_INT(0, "per-chunk", &per_chunk, "n", "questions asked per chunk and kind (default 1)"),
		OPT_STRING(0, "kinds", &kinds, "kind,...",
			   "factoid, paraphrase, multi-hop, unanswerable, follow-up (default factoid,paraphrase)"),
		OPT_INT(0, "seed", &seed, "s", "seed of the sample, sent to the model too (default 1)"),
		OPT_LLM_ENDPOINT(&lo),
		OPT_STRING(0, "prompt-dir", &prompt_dir, "dir", "where generate-<kind>.md templates are"),
		OPT_BOOL(0, "dry-run", &dry_run, "print the requests and token estimate; send nothing"),
		OPT_BOOL(0, "retry-failed", &retry_failed, "ask again the requests whose reply was unusable before"),
		OPT_STRING(0, "question-language", &question_language, "tag",
			   "ask the questions in this language (default: each chunk's own)"),
		OPT_DOUBLE(0, "max-overlap", &max_overlap, "x", "drop questions sharing more than x of their words with the chunk"),
		OPT_DOUBLE(0, "max-copied", &max_copied, "x", "drop questions with x of their tokens copied in one run (default 0.6)"),
		OPT_INT(0, "max-chars", &max_chars, "n", "drop questions longer than n characters (default 300)"),
		OPT_LLM_BATCH(&bc),
		OPT_STRING(0, "batch-out", &batch_out, "file", "write OpenAI Batch API input instead of calling"),
		OPT_STRING_LIST(0, "batch-in", &batch_in, "file", "ingest Batch API output or error files; repeatable"),
		OPT_STRING(0, "shard", &shard, "i/n", "take the i-th of n deterministic shards of the chunks"),
		OPT_STRING(0, "difficulty", &difficulty, "band,...",
			   "keep only answerable questions of these BM25 difficulty bands: easy, medium, hard"),
		OPT_STRING_LIST(0, "persona", &personas, "text", "a user to write as; repeatable, spread over the chunks"),
		OPT_STRING(0, "seed-questions", &seed_questions, "file", "questions (one a line) whose topics steer each chunk's"),
		OPT_STRING(0, "style-from", &style_from, "filter|file",
			   "real queries to write like (origin=NAME, tag=NAME, or a file); report the realism gap"),
		OPT_BOOL(0, "critique", &critique, "rate new questions with the model, drop weak ones (default on)"),
		OPT_STRING(0, "critique-model", &critique_model, "m", "model of the critique and verification (default --model)"),
		OPT_INT(0, "critique-min", &critique_min, "n", "drop a question with a critique score under n, 1..5 (default 3)"),
		OPT_BOOL(0, "verify", &verify, "check unanswerable, multi-hop and follow-up questions against the corpus (default on)"),
		OPT_INT(0, "verify-k", &verify_k, "k", "chunks shown to the verifier per unanswerable question (default 5)"),
		OPT_STRING(0, "retriever-cmd", &retriever_cmd, "cmd",
			   "find the verifier's chunks with this command (run's protocol) instead of BM25"),
		OPT_BOOL('q', "quiet", &quiet, "no progress or notes"),
		OPT_LOCK_WAIT(&lock_wait),
		OPT_END(),
	};
	struct set_ref ref = SET_REF_INIT;
	struct set s = SET_INIT;
	struct corpus corpus = CORPUS_INIT;
	struct lock_file lock = LOCK_FILE_INIT;
	struct gen_options go;
	struct gen_stats st;
	struct llm_progress prog = { 0 };
	char *journal = NULL, *prompt_dir_found = NULL;
	char *critique_journal = NULL, *verify_journal = NULL;
	char *batch_journal = NULL;
	struct config *cfg;
	int ret = EXIT_BAD_INPUT, rc;

	memset(&st, 0, sizeof(st));
	/* options first (so -h works whatever the config), then config defaults */
	argc = parse_options(argc, argv, opts, generate_usage);
	apply_lock_wait(lock_wait, generate_usage, opts);
	if (argc != 1)
		usage_with_options(generate_usage, opts);
	set_quiet(quiet);
	memset(&go, 0, sizeof(go));
	if (sample < 0 || per_chunk < 1 || per_chunk > 50 || max_chars < 1) {
		error("out of range: --sample >= 0, --per-chunk 1..50, --max-chars >= 1");
		usage_with_options(generate_usage, opts);
	}
	if (chunks && sample) {
		error("--chunks and --sample cannot be combined");
		usage_with_options(generate_usage, opts);
	}
	if ((batch_out != NULL) + (batch_in.nr > 0) + (bc.batch != 0) > 1) {
		error("--batch, --batch-out and --batch-in cannot be combined");
		usage_with_options(generate_usage, opts);
	}
	if (question_language && !lang_tag_valid(question_language)) {
		error("invalid language tag '%s' (a BCP 47 tag such as en, de or pt-BR)", question_language);
		usage_with_options(generate_usage, opts);
	}
	if (critique_min < 1 || critique_min > 5 || verify_k < 1 || verify_k > 50) {
		error("out of range: --critique-min 1..5, --verify-k 1..50");
		usage_with_options(generate_usage, opts);
	}
	if (difficulty && gen_bands_parse(difficulty, &go.difficulty))
		usage_with_options(generate_usage, opts);
	if (shard && llm_cli_parse_shard(shard, &go.shard_i, &go.shard_n))
		usage_with_options(generate_usage, opts);
	if (llm_cli_finish(&lo, !dry_run && !batch_out && !batch_in.nr, generate_usage, opts) < 0 ||
	    config_use(&cfg) < 0)
		goto out;
	if (gen_kinds_parse(kinds, &go.kinds))
		goto out;
	if (set_ref_resolve(&ref, argv[0], true) < 0)
		goto out;
	if (ref.tag) {
		error("cannot add to frozen version '%s'; versions are never rewritten", argv[0]);
		goto out;
	}
	if (set_open_ref(&s, &ref, true) < 0)
		goto out;
	if (!corpus_path)
		corpus_path = config_corpus(cfg, ref.name, NULL);
	if ((rc = set_corpus_open(&s, ref.dir, corpus_path, &corpus)) < 0)
		goto out;
	if (!rc) {
		error("no corpus: give --corpus (or record corpus.path in the set)");
		goto out;
	}
	journal = path_join(ref.dir, ".evalset/generate.jsonl");
	batch_journal = llm_cli_batch_journal(ref.dir, "generate", go.shard_i, go.shard_n);
	if (bc.batch && llm_cli_batch_options(&bc, batch_journal, "generate", &go.batch_opts) < 0)
		goto out;
	go.batch = bc.batch;

	go.set = &s;
	go.set_file = ref.file;
	go.ref = &ref;
	go.corpus = &corpus;
	go.chunk_ids = chunks;
	go.sample = sample;
	go.seed = seed;
	go.per_chunk = per_chunk;
	if (!prompt_dir)
		prompt_dir = config_get_string(cfg, "prompt_dir", "EVALSET_PROMPT_DIR", NULL, NULL);
	go.prompt_dir = prompt_dir_found = prompt_default_dir(prompt_dir, "generate-factoid.md");
	go.max_overlap = max_overlap;
	go.question_language = question_language;
	go.max_copied = max_copied;
	go.max_chars = max_chars;
	go.journal_path = journal;
	go.batch_out = batch_out;
	go.batch_in = batch_in.items;
	go.nr_batch_in = batch_in.nr;
	llm_cli_apply(&lo, &go.llm);
	/* the passes after generation need live calls: on by default for a live run */
	go.critique = critique < 0 ? !batch_out && !batch_in.nr : critique;
	go.verify = verify < 0 ? !batch_out && !batch_in.nr : verify;
	go.critique_model = critique_model;
	go.personas = (const char *const *)personas.items;
	go.nr_personas = personas.nr;
	go.seed_questions = seed_questions;
	go.style_from = style_from;
	go.critique_min = (int)critique_min;
	go.verify_k = verify_k;
	go.retriever_cmd = retriever_cmd;
	go.critique_journal = critique_journal = path_join(ref.dir, ".evalset/critique.jsonl");
	go.verify_journal = verify_journal = path_join(ref.dir, ".evalset/verify.jsonl");
	go.llm.max_tokens = 256 + 128 * per_chunk;
	go.llm.seed = seed;

	/* a dry pass checks prompts, chunk ids and the journal before anything is written */
	go.retry_failed = retry_failed;
	go.dry_run = true;
	rc = gen_run(&go, &st);
	if (rc) {
		ret = rc == ERR_REMOTE ? EXIT_REMOTE : EXIT_BAD_INPUT;
		goto out;
	}
	if (bc.batch)
		llm_cli_print_estimate(&st.batch);
	if (dry_run) {
		if (!bc.batch)
			print_dry_run(&st, go.critique, go.verify);
		else
			printf("dry run: nothing submitted\n");
		if (style_from)
			print_realism(style_from, &st);
		ret = EXIT_OK;
		goto out;
	}
	gen_stats_release(&st);
	memset(&st, 0, sizeof(st));
	go.dry_run = false;
	if (batch_out) {
		rc = gen_run(&go, &st);
		if (rc)
			goto out;
		printf("wrote %zu requests to %s (%zu already answered); custom_id is the journal key\n",
		       st.batch_written, batch_out, st.done_before);
		ret = EXIT_OK;
		goto out;
	}
	/* the real run, on a fresh read under the set's lock */
	set_release(&s);
	set_init(&s);
	if (set_lock_take(&lock, &ref) < 0)
		goto out;
	if (set_open_ref(&s, &ref, true) < 0)
		goto out;
	handle_interrupts();
	prog.tty = isatty(2);
	go.progress = show_progress;
	go.ctx = &prog;
	rc = gen_run(&go, &st);
	llm_progress_clear(&prog, 100);
	print_summary(ref.file, lo.model, &st, retry_failed, (int)critique_min, style_from);
	if (bc.batch)
		llm_cli_print_batch(&st.batch);
	if (go.batch_in && (st.batch_unmatched || st.batch_errors))
		llm_cli_print_batch_in(st.batch_matched, st.batch_unmatched, st.batch_errors);
	ret = llm_cli_exit_code(&(struct llm_cli_outcome){ rc, st.lost + st.critique.lost + st.verify.lost,
							   st.cancelled + st.critique.cancelled + st.verify.cancelled,
							   "requests not sent",
							   st.answered, "answered requests" }, &lo);
out:
	lock_release(&lock);
	free(journal);
	free(critique_journal);
	free(verify_journal);
	free(batch_journal);
	free(prompt_dir_found);
	gen_stats_release(&st);
	corpus_release(&corpus);
	set_release(&s);
	set_ref_release(&ref);
	string_list_clear(&batch_in);
	string_list_clear(&personas);
	return ret;
}
