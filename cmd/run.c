/*
 * run: ask a retriever every question of a set and write its answers as a
 * JSONL run (docs/formats/runs.md) for `evalset score`.
 *
 * The retriever is the built-in BM25 (the default), a command speaking JSON
 * lines, an HTTP endpoint, or a file of answers computed elsewhere (the
 * Python package's retriever functions); docs/run.md gives the protocols. The
 * run is written at the end, atomically; when the retriever fails or the
 * user interrupts, the questions answered so far are still written (the meta
 * line then says "complete": false) and the exit code is 3 or 130.
 */
#include "builtin.h"
#include "base/config.h"
#include "retrieve/bm25.h"
#include "set/corpus.h"
#include "set/corpuscheck.h"
#include "base/fsutil.h"
#include "base/redact.h"
#include "base/url.h"
#include "retrieve/retriever.h"
#include "set/set.h"
#include "text/lang.h"
#include "base/util.h"

#include <limits.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static const char *const run_usage[] = {
	"evalset run <set>[@<tag>] [--bm25] [--corpus <chunks.jsonl>] [--k1 <n>] [--b <n>] [--[no-]stem]\n"
	"                  [--language <tag>] [--query-form <form>] [--history-weight <w>] [-k <n>] [-o <file>]",
	"evalset run <set>[@<tag>] --cmd <command> [--pass-env <name>]... [--timeout <seconds>] [-k <n>]\n"
	"                  [--query-form <form>] [--corpus <chunks.jsonl>] [-o <file> [--resume]]",
	"evalset run <set>[@<tag>] --url <url> [--header '<name>: <value>']... [--body <template>]\n"
	"                  [--results <path>] [--concurrency <n>] [--retries <n>] [--timeout <seconds>] [-k <n>]\n"
	"                  [--query-form <form>] [--corpus <chunks.jsonl>] [-o <file> [--resume]]",
	"evalset run <set>[@<tag>] --answers <file> [--retriever <description>] [-k <n>]\n"
	"                  [--corpus <chunks.jsonl>] [-o <file>]",
	NULL,
};

struct run_opts {
	const char *output, *cmd, *url, *corpus, *body, *results, *language, *answers, *retriever;
	struct string_list headers, pass_env;
	long k, concurrency, retries;
	int bm25, stem, resume;
	double k1, b, timeout;
	const char *query_form;   /* NULL: not given (turn+history) */
	double history_weight;    /* NAN: not given */
};

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Exit 2 with the usage when the options do not make one retriever. */
static void check_options(struct run_opts *o, const struct option *opts)
{
	int kinds = !!o->bm25 + !!o->cmd + !!o->url + !!o->answers;

	if (kinds > 1) {
		error("--bm25, --cmd, --url and --answers are alternatives: give one");
		usage_with_options(run_usage, opts);
	}
	if (!kinds)
		o->bm25 = 1;
	if (!o->bm25 && (!isnan(o->k1) || !isnan(o->b) || o->stem >= 0 || o->language)) {
		error("--k1, --b, --stem and --language only apply to --bm25");
		usage_with_options(run_usage, opts);
	}
	if (o->language && !lang_tag_valid(o->language)) {
		error("invalid language tag '%s' (a BCP 47 tag such as en, de or pt-BR)", o->language);
		usage_with_options(run_usage, opts);
	}
	if (!o->cmd && o->pass_env.nr) {
		error("--pass-env only applies to --cmd");
		usage_with_options(run_usage, opts);
	}
	if (!o->url && (o->headers.nr || o->body || o->results || o->concurrency >= 0 || o->retries >= 0)) {
		error("--header, --body, --results, --concurrency and --retries only apply to --url");
		usage_with_options(run_usage, opts);
	}
	if (o->query_form && strcmp(o->query_form, "turn") && strcmp(o->query_form, "turn+history")) {
		error("unknown query form '%s' (turn or turn+history)", o->query_form);
		usage_with_options(run_usage, opts);
	}
	if (o->query_form && o->answers) {
		error("--query-form does not apply to --answers (the answers were computed elsewhere)");
		usage_with_options(run_usage, opts);
	}
	if (!isnan(o->history_weight) && !o->bm25) {
		error("--history-weight only applies to --bm25");
		usage_with_options(run_usage, opts);
	}
	if (!isnan(o->history_weight) && !(o->history_weight > 0 && o->history_weight <= 10)) {
		error("--history-weight must be above 0 and at most 10 (--query-form turn leaves the history out)");
		usage_with_options(run_usage, opts);
	}
	if (o->retriever && !o->answers) {
		error("--retriever only applies to --answers");
		usage_with_options(run_usage, opts);
	}
	if (o->retriever && (!*o->retriever || strchr(o->retriever, '\n'))) {
		error("--retriever must be one non-empty line");
		usage_with_options(run_usage, opts);
	}
	if (o->resume && (o->bm25 || o->answers || !o->output)) {
		error("--resume needs --cmd or --url, and -o <file>");
		usage_with_options(run_usage, opts);
	}
	if ((o->bm25 || o->answers) && !isnan(o->timeout)) {
		error("--timeout only applies to --cmd and --url");
		usage_with_options(run_usage, opts);
	}
	if (o->k < 1 || o->k > 100000) {
		error("-k must be between 1 and 100000, not %ld", o->k);
		usage_with_options(run_usage, opts);
	}
	if (!isnan(o->timeout) && !(o->timeout > 0 && o->timeout <= 86400)) {
		error("--timeout must be a number of seconds above 0");
		usage_with_options(run_usage, opts);
	}
	if (o->concurrency == 0 || o->concurrency > 256) {
		error("--concurrency must be between 1 and 256");
		usage_with_options(run_usage, opts);
	}
	if (o->retries > 20) {
		error("--retries must be between 0 and 20");
		usage_with_options(run_usage, opts);
	}
	for (size_t i = 0; i < o->headers.nr; i++) {
		const char *colon = strchr(o->headers.items[i], ':');
		if (!colon || colon == o->headers.items[i]) {
			error("a --header must look like 'Name: value'");
			usage_with_options(run_usage, opts);
		}
	}
	if (o->url && !starts_with(o->url, "http://") && !starts_with(o->url, "https://")) {
		error("--url must start with http:// or https://");
		usage_with_options(run_usage, opts);
	}
	if (o->url) {
		struct strbuf why = STRBUF_INIT;

		if (url_check(o->url, &why) < 0) {
			error("bad --url '%s': %s", o->url, why.buf);
			usage_with_options(run_usage, opts);
		}
		strbuf_release(&why);
	}
}

/* Return the corpus path BM25 indexes: --corpus, else the set's own
 * (relative to its directory, shown from the working directory). */
static char *corpus_path(const struct run_opts *o, const struct set *s, const struct set_ref *ref)
{
	if (o->corpus)
		return xstrdup(o->corpus);
	if (!s->has_corpus || !s->corpus.path) {
		error("'%s' names no corpus: give --corpus <chunks.jsonl>", ref->file);
		return NULL;
	}
	return set_corpus_path(s, ref->dir);
}

/* Return the record of the corpus 'c' (read from 'path', fingerprint 'fp')
 * that the run's meta line carries (docs/runs.md). */
static cJSON *corpus_record(const char *path, const char *fp, const struct corpus *c)
{
	cJSON *rec = cJSON_CreateObject();

	cJSON_AddStringToObject(rec, "path", path);
	cJSON_AddStringToObject(rec, "fingerprint", fp);
	cJSON_AddNumberToObject(rec, "chunks", (double)c->nr);
	return rec;
}

/* Warn when the corpus 'fp' (at 'path') is not the one 's' was labelled against. */
static void warn_other_corpus(const struct set *s, const struct set_ref *ref, const char *path,
			      const char *fp)
{
	if (s->has_corpus && s->corpus.fingerprint && strcmp(s->corpus.fingerprint, fp))
		warning("'%s' is not the corpus '%s' was labelled against (fingerprint %s, the set "
			"has %s): score and compare will say so, or give the corpus to them "
			"(docs/runs.md)", path, ref->file, fp, s->corpus.fingerprint);
}

/*
 * For --cmd and --url with --corpus: read the corpus the retriever searches
 * and return its record for the meta line (NULL after an error).
 */
static cJSON *declared_corpus(const struct run_opts *o, const struct set *s,
			      const struct set_ref *ref)
{
	struct corpus c = CORPUS_INIT;
	cJSON *rec = NULL;
	char fp[72];

	if (corpus_load(&c, o->corpus) == 0) {
		corpus_fingerprint(&c, fp);
		warn_other_corpus(s, ref, o->corpus, fp);
		rec = corpus_record(o->corpus, fp, &c);
	}
	corpus_release(&c);
	return rec;
}

/*
 * Answer 'job' with BM25 over the corpus; describe the retriever in '*desc'
 * and its parameters in 'params'. Return 0, ERR_INPUT or ERR_INTERRUPTED.
 */
static int run_bm25(const struct run_opts *o, const struct set *s, const struct set_ref *ref,
		    struct job *job, char **desc, cJSON *params, cJSON **corpus_rec)
{
	struct bm25_params p = BM25_PARAMS_INIT;
	struct corpus c = CORPUS_INIT;
	struct bm25 ix = BM25_INIT;
	struct timespec t0;
	char *path = corpus_path(o, s, ref), fp[72];
	double load_s, index_s;
	int rc = ERR_INPUT;

	if (!path)
		goto out;
	if (!isnan(o->k1))
		p.k1 = o->k1;
	if (!isnan(o->b))
		p.b = o->b;
	p.stem = o->stem != 0;
	/* the language of the questions, else of the chunks, else detected */
	p.language = o->language ? o->language : s->language ? s->language : s->corpus.language;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (corpus_load(&c, path) < 0)
		goto out;
	load_s = seconds_since(&t0);
	corpus_fingerprint(&c, fp);
	warn_other_corpus(s, ref, path, fp);
	*corpus_rec = corpus_record(path, fp, &c);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (bm25_build(&ix, &c, &p) < 0)
		goto out;
	index_s = seconds_since(&t0);
	note("indexed %zu chunks of '%s' (%zu terms) in %.3f s (read in %.3f s)",
	     c.nr, path, ix.nr_terms, index_s, load_s);
	if (!p.language)
		note("language of '%s': %s (detected)", path, lang_code(ix.lang));
	*desc = bm25_describe(&ix);
	cJSON_AddNumberToObject(params, "k1", p.k1);
	cJSON_AddNumberToObject(params, "b", p.b);
	cJSON_AddStringToObject(params, "language", lang_code(ix.lang));
	cJSON_AddStringToObject(params, "stem", bm25_stems(&ix) ? lang_stemmer_name(ix.lang) : "none");
	cJSON_AddStringToObject(params, "corpus", path);
	cJSON_AddStringToObject(params, "corpus_fingerprint", fp);
	cJSON_AddNumberToObject(params, "chunks", (double)c.nr);
	rc = retrieve_bm25(&ix, job);
out:
	bm25_release(&ix);
	corpus_release(&c);
	free(path);
	return rc;
}

static int run_url(const struct run_opts *o, struct job *job, cJSON *params)
{
	struct url_retriever u;
	struct strbuf probe = STRBUF_INIT;
	const char **headers = xcalloc(o->headers.nr + 1, sizeof(*headers));
	char *safe = url_redact(o->url);
	int rc = ERR_INPUT;

	memset(&u, 0, sizeof(u));
	for (size_t i = 0; i < o->headers.nr; i++) {
		const char *h = o->headers.items[i], *colon = strchr(h, ':');
		headers[i] = h;
		/* a secret header's value never reaches a message, whatever echoes it */
		if (colon && redact_secret_name(h, (size_t)(colon - h))) {
			const char *v = colon + 1 + strspn(colon + 1, " \t");
			if (!strncasecmp(v, "bearer ", 7) || !strncasecmp(v, "basic ", 6))
				v = strchr(v, ' ') + 1;
			redact_add_secret(v);
		}
	}
	u.url = o->url;
	u.headers = headers;
	u.body = o->body ? o->body : job->with_history ? URL_BODY_DEFAULT_HISTORY : URL_BODY_DEFAULT;
	u.results_path = o->results ? o->results : "results";
	u.concurrency = o->concurrency > 0 ? (int)o->concurrency : 4;
	u.timeout_ms = isnan(o->timeout) ? 30000 : (long)(o->timeout * 1000);
	u.max_attempts = o->retries >= 0 ? (int)o->retries + 1 : 4;
	/* A template that cannot give JSON is bad input: refuse it before any request. */
	if (url_render_body(u.body, "q-0001", "a \"quoted\" query", job->k,
			    "[{\"role\": \"user\", \"text\": \"a\"}]", &probe) < 0)
		goto out;
	cJSON_AddStringToObject(params, "url", safe);
	/* The template itself may carry a key: record only whether it was ours. */
	cJSON_AddStringToObject(params, "body", o->body ? "custom" : "default");
	cJSON_AddStringToObject(params, "results", u.results_path);
	rc = retrieve_url(&u, job);
out:
	strbuf_release(&probe);
	free(headers);
	free(safe);
	return rc;
}

static void print_summary(const struct job *job, const char *desc, double secs,
			  const char *output, bool latency)
{
	size_t answered = job_answered(job);

	note("%s answered %zu of %zu question%s in %.2f s", desc, answered, job->nr,
	     job->nr == 1 ? "" : "s", secs);
	if (latency && answered)
		note("latency per question: p50 %.1f ms, p95 %.1f ms",
		     job_latency(job, 0.5), job_latency(job, 0.95));
	if (output)
		note("wrote '%s'%s", output, answered < job->nr ? " (incomplete)" : "");
}

int cmd_run(int argc, const char **argv)
{
	struct run_opts o = { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, STRING_LIST_INIT, STRING_LIST_INIT,
			      LONG_MIN, -1, -1, 0, -1, 0, NAN, NAN, NAN, NULL, NAN };  /* k LONG_MIN, stem -1: not given */
	struct option opts[] = {
		OPT_STRING('o', "output", &o.output, "file", "write the run to <file> (default: standard output)"),
		OPT_INT('k', NULL, &o.k, "n", "results per question (default 100)"),
		OPT_BOOL(0, "bm25", &o.bm25, "the built-in BM25 retriever (the default)"),
		OPT_STRING(0, "corpus", &o.corpus, "chunks.jsonl",
			   "BM25: chunks to index (default: the set's corpus); --cmd, --url: the chunks the retriever searches, recorded in the run"),
		OPT_DOUBLE(0, "k1", &o.k1, "n", "BM25: term frequency saturation (default 0.9)"),
		OPT_DOUBLE(0, "b", &o.b, "n", "BM25: length normalisation, 0..1 (default 0.4)"),
		OPT_BOOL(0, "stem", &o.stem, "BM25: Snowball stemming in the language (the default; --no-stem: off)"),
		OPT_STRING(0, "language", &o.language, "tag", "BM25: language of the analysis (default: the set's, else detected)"),
		OPT_STRING(0, "query-form", &o.query_form, "form",
			   "turn+history (default: each question with the turns before it) or turn (its text alone)"),
		OPT_DOUBLE(0, "history-weight", &o.history_weight, "w",
			   "BM25: weight of each earlier user turn's terms (default 0.3)"),
		OPT_STRING(0, "cmd", &o.cmd, "command", "a command answering JSON lines on stdin/stdout"),
		OPT_STRING_LIST(0, "pass-env", &o.pass_env, "name",
				"--cmd: pass this variable (or NAME* prefix) to the command; repeatable"),
		OPT_STRING(0, "url", &o.url, "url", "an HTTP endpoint answering one POST per question"),
		OPT_STRING_LIST(0, "header", &o.headers, "name: value", "URL: a request header (repeatable)"),
		OPT_STRING(0, "body", &o.body, "template", "URL: JSON body with {{query}}, {{k}}, {{qid}}, {{history}}"),
		OPT_STRING(0, "results", &o.results, "path", "URL: dotted path of the results list (default results)"),
		OPT_INT(0, "concurrency", &o.concurrency, "n", "URL: requests in flight (default 4)"),
		OPT_INT(0, "retries", &o.retries, "n", "URL: retries of a failed request (default 3)"),
		OPT_DOUBLE(0, "timeout", &o.timeout, "seconds", "per question (default 30)"),
		OPT_BOOL(0, "resume", &o.resume, "keep the answers of an incomplete -o <file>, ask the rest"),
		OPT_STRING(0, "answers", &o.answers, "file",
			   "answers computed elsewhere, one JSON line per question (the Python package's run)"),
		OPT_STRING(0, "retriever", &o.retriever, "description",
			   "--answers: the retriever's one-line description in the run (default: answers <file>)"),
		OPT_END(),
	};
	struct set_ref ref = SET_REF_INIT;
	struct set s = SET_INIT;
	struct job job;
	struct strbuf out = STRBUF_INIT, shown_cmd = STRBUF_INIT;
	struct timespec t0;
	struct run_meta meta;
	cJSON *params = cJSON_CreateObject(), *corpus_rec = NULL;
	char digest[72], content_digest[72], questions_digest[72], *desc = NULL, *outdir = NULL;
	bool latency, conversational;
	int rc, ret = EXIT_BAD_INPUT;

	memset(&job, 0, sizeof(job));
	argc = parse_options(argc, argv, opts, run_usage);
	if (argc != 1) {
		error("%s", argc ? "too many arguments" : "no set given");
		usage_with_options(run_usage, opts);
	}
	/* -k not given: the project config's run_k (core/base/config.h), else 100 */
	if (o.k == LONG_MIN) {
		struct config *cfg;
		if (config_use(&cfg) < 0 ||
		    config_get_long(cfg, "run_k", NULL, 100, 1, 100000, &o.k, NULL) < 0)
			goto out;
	}
	check_options(&o, opts);
	latency = !o.bm25;

	if (o.output) {
		outdir = dir_name(o.output);
		if (!is_dir(outdir)) {
			error("cannot write '%s': no folder '%s' (create it first)", o.output, outdir);
			goto out;
		}
	}
	if (set_open(&s, &ref, argv[0]) < 0)
		goto out;
	set_digest(&s, digest);

	job_init(&job, s.nr, o.k);
	for (size_t i = 0; i < s.nr; i++) {
		job.qid[i] = s.q[i].id;
		job.query[i] = s.q[i].text;
		job.question[i] = &s.q[i];
	}
	/* the query form is recorded for a set with conversations only, so runs
	 * of other sets are written as before (docs/conversations.md) */
	conversational = set_has_conversations(&s);
	job.with_history = conversational && !o.answers &&
			   (!o.query_form || !strcmp(o.query_form, "turn+history"));
	if (!isnan(o.history_weight))
		job.history_weight = o.history_weight;
	if (job.with_history && o.url && o.body && !url_body_has_history(o.body)) {
		warning("the --body template has no {{history}}: the endpoint is not given the "
			"turns before each question, and the run records the query form 'turn'");
		job.with_history = false;
	}
	job.stop = interrupted;
	handle_interrupts();

	meta.set_name = s.name ? s.name : ref.name;
	meta.version = ref.tag;
	meta.digest = digest;
	set_content_digest(&s, content_digest);
	meta.content_digest = content_digest;
	set_questions_digest(&s, questions_digest);
	meta.questions_digest = questions_digest;
	meta.params = params;
	meta.corpus = NULL;
	meta.query_form = conversational && !o.answers ? job_query_form(&job) : NULL;
	if (job.with_history && o.bm25)
		cJSON_AddNumberToObject(params, "history_weight", job.history_weight);
	if (!o.bm25 && o.corpus && !(meta.corpus = corpus_rec = declared_corpus(&o, &s, &ref)))
		goto out;
	if (o.cmd) {
		/* what is written down of the command holds none of its secrets */
		strbuf_addstr(&shown_cmd, o.cmd);
		redact_text(&shown_cmd);
		desc = xstrfmt("cmd %s", shown_cmd.buf);
	} else if (o.url) {
		char *safe = url_redact(o.url);
		desc = xstrfmt("url %s", safe);
		free(safe);
	} else if (o.answers) {
		desc = o.retriever ? xstrdup(o.retriever) : xstrfmt("answers %s", o.answers);
	}
	meta.retriever = desc;
	if (o.resume && path_exists(o.output)) {
		long kept = run_resume(&job, &meta, o.output);
		if (kept < 0)
			goto out;
		note("resuming '%s': %ld of %zu questions already answered", o.output, kept, job.nr);
	}

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (o.bm25) {
		rc = run_bm25(&o, &s, &ref, &job, &desc, params, &corpus_rec);
		meta.retriever = desc;
		meta.corpus = corpus_rec;
	} else if (o.cmd) {
		char **env = retrieve_cmd_env((const char *const *)o.pass_env.items, o.pass_env.nr);
		cJSON_AddStringToObject(params, "cmd", shown_cmd.buf);
		rc = retrieve_cmd(o.cmd, env, isnan(o.timeout) ? 30000 : (long)(o.timeout * 1000), &job);
		free(env);
	} else if (o.answers) {
		rc = retrieve_answers(o.answers, &job);
	} else {
		rc = run_url(&o, &job, params);
	}
	if (rc == ERR_INPUT)
		goto out;

	run_format(&meta, &job, latency, &out);
	if (o.output) {
		if (write_file_atomic(o.output, out.buf, out.len) < 0) {
			ret = EXIT_BAD_INPUT;
			goto out;
		}
	} else if (write_stdout(out.buf, out.len) < 0) {
		ret = EXIT_BAD_INPUT;
		goto out;
	}
	print_summary(&job, desc, seconds_since(&t0), o.output, latency);
	if (rc == ERR_INTERRUPTED) {
		error("interrupted: kept the %zu answered questions", job_answered(&job));
		ret = EXIT_INTERRUPTED;
	} else if (rc) {
		error("retriever failed: kept the %zu answered questions", job_answered(&job));
		ret = EXIT_REMOTE;
	} else {
		ret = EXIT_OK;
	}
out:
	job_release(&job);
	cJSON_Delete(params);
	cJSON_Delete(corpus_rec);
	strbuf_release(&out);
	string_list_clear(&o.headers);
	string_list_clear(&o.pass_env);
	strbuf_release(&shown_cmd);
	free(desc);
	free(outdir);
	set_release(&s);
	set_ref_release(&ref);
	return ret;
}
