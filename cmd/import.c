/*
 * import: mine labelled questions from query logs into a set (docs/import.md).
 *
 * The logs are read first, without the lock (they may be large); then, under
 * the set's lock, the working copy is read fresh, the labelled queries are
 * added and the set is written once. Bad input (an unreadable log, options
 * that do not parse, logs without one usable record) writes nothing.
 * docs/import.md describes the semantics of every option.
 */
#include "builtin.h"
#include "set/corpus.h"
#include "set/corpuscheck.h"
#include "base/fsutil.h"
#include "base/progress.h"
#include "logs/importset.h"
#include "logs/logconv.h"
#include "logs/logimport.h"
#include "set/set.h"
#include "base/util.h"

#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

static const char *const import_usage[] = {
	"evalset import <set> --log <file>... [--preset <name>|<file>]\n"
	"                     [--format jsonl|csv|tsv] [--field <name>=<path>]...\n"
	"                     [--assume-click] [--min-clicks <n>] [--min-dwell <seconds>] [--pii redact|drop]\n"
	"                     [--pii-pattern <name>=<regex>]... [--min-count <n>]\n"
	"                     [--since <time>] [--until <time>]\n"
	"                     [--sample <n> [--seed <s>]] [--unlabelled <file>]\n"
	"                     [--replace-synthetic] [--dry-run] [--quiet]",
	"evalset import <set> --conversations --log <file>... [--format jsonl|csv|tsv] [--field <name>=<path>]...\n"
	"                     [--assume-click] [--min-dwell <seconds>] [--pii redact|drop]\n"
	"                     [--pii-pattern <name>=<regex>]... [--since <time>] [--until <time>] [--dry-run]",
	NULL,
};

struct import_cli {
	struct string_list logs, fields, pii_patterns;
	struct pii_patterns patterns;  /* compiled from pii_patterns */
	const char *preset, *format, *pii, *since, *until, *unlabelled;
	long min_clicks, min_count, sample, seed;
	double min_dwell;
	int replace_synthetic, dry_run, assume_click, quiet, conversations;
};

/* Return the bytes of the logs, for the progress line: 0 (not known) when
 * one is compressed (the reader counts the bytes it decodes) or not a
 * regular file. */
static double logs_size(const struct string_list *logs)
{
	double total = 0;

	for (size_t i = 0; i < logs->nr; i++) {
		unsigned char magic[2] = { 0, 0 };
		struct stat st;
		FILE *fp;

		if (stat(logs->items[i], &st) < 0 || !S_ISREG(st.st_mode))
			return 0;
		fp = fopen(logs->items[i], "rb");
		if (fp) {
			size_t n = fread(magic, 1, 2, fp);

			fclose(fp);
			if (n == 2 && magic[0] == 0x1f && magic[1] == 0x8b)
				return 0;
		}
		total += (double)st.st_size;
	}
	return total;
}

/* Return true when 'name' is the long name of one of 'opts'. */
static bool is_option(const struct option *opts, const char *name, size_t len)
{
	for (; opts->type != OPTION_END; opts++)
		if (opts->long_name && strlen(opts->long_name) == len && !strncmp(opts->long_name, name, len))
			return true;
	return false;
}

/*
 * Read the preset 'name' (a file when it holds '/' or ends in ".preset",
 * else presets/NAME.preset of evalset's data) into 'buf' and its options
 * into 'args', one "--option" or "--option=value" a line ('#': a comment).
 * Return 0, or -1 (reported).
 */
static int load_preset(const char *name, const struct option *opts, struct strbuf *buf,
		       struct string_list *args)
{
	size_t n = strlen(name);
	bool file = strchr(name, '/') || (n > 7 && !strcmp(name + n - 7, ".preset"));
	char *probe = file ? NULL : xstrfmt("%s.preset", name);
	char *dir = file ? NULL : data_dir_find("presets", probe);
	char *path = file ? xstrdup(name) : path_join(dir, probe);
	long line = 0;
	int ret = -1;

	if (!file && !path_exists(path)) {
		error("no preset '%s' (langfuse, langsmith, otel-genai, or a file: ./NAME.preset)", name);
		goto out;
	}
	if (read_file(path, buf, 1 << 16) < 0)
		goto out;
	strbuf_addch(buf, '\n');
	for (char *s = buf->buf, *nl; (nl = strchr(s, '\n')); s = nl + 1) {
		char *end = nl, *sp;

		line++;
		*nl = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
		while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
			*--end = '\0';
		if (!*s || *s == '#')
			continue;
		sp = s + strcspn(s, " \t=");
		if (strncmp(s, "--", 2) || !is_option(opts, s + 2, (size_t)(sp - s - 2)) ||
		    !strncmp(s, "--preset", 8) || !strncmp(s, "--log", 5)) {
			error_at(path, line, 0, "not an option of import a preset may set: '%s'", s);
			goto out;
		}
		if (*sp == ' ' || *sp == '\t') {  /* "--option value" */
			*sp++ = '\0';
			while (*sp == ' ' || *sp == '\t')
				sp++;
			string_list_append(args, s);
			if (*sp)
				string_list_append(args, sp);
		} else {
			string_list_append(args, s);
		}
	}
	ret = 0;
out:
	free(probe);
	free(dir);
	free(path);
	return ret;
}

/* Turn the options into 'o'. Return 0 or -1 (reported). */
static int parse_import_options(struct import_cli *c, struct import_options *o)
{
	import_options_init(o);
	for (size_t i = 0; i < c->fields.nr; i++) {
		const char *spec = c->fields.items[i], *eq = strchr(spec, '=');
		char *name;
		int f;

		if (!eq || eq == spec || !eq[1])
			return error("bad --field '%s': expected NAME=PATH", spec);
		name = xstrndup(spec, (size_t)(eq - spec));
		f = import_field_parse(name);
		if (f < 0) {
			error("unknown field '%s' in --field '%s' (query, doc, signal, session, time, "
			      "dwell, end, count, sessions, last, event)", name, spec);
			free(name);
			return -1;
		}
		free(name);
		o->field[f] = eq + 1;
	}
	if (!o->field[FIELD_COUNT] && (o->field[FIELD_SESSIONS] || o->field[FIELD_LAST]))
		return error("--field %s describes pre-aggregated rows: give their count too "
			     "(--field count=COLUMN)", o->field[FIELD_SESSIONS] ? "sessions" : "last");
	if (o->field[FIELD_COUNT] && (c->since || c->until))
		return error("--since/--until cannot split pre-aggregated rows: filter the records "
			     "in the aggregation (WHERE time >= ...)");
	if (c->format && log_format_parse(c->format, &o->format) < 0)
		return error("unknown log format '%s' (jsonl, csv, tsv)", c->format);
	if (c->pii) {
		if (!strcmp(c->pii, "redact"))
			o->pii = PII_REDACT;
		else if (!strcmp(c->pii, "drop"))
			o->pii = PII_DROP;
		else
			return error("unknown --pii mode '%s' (redact, drop)", c->pii);
	}
	for (size_t i = 0; i < c->pii_patterns.nr; i++)
		if (pii_patterns_add(&c->patterns, c->pii_patterns.items[i]) < 0)
			return -1;
	o->pii_patterns = &c->patterns;
	o->assume_click = c->assume_click;
	if (c->min_clicks < 1 || c->min_clicks > IMPORT_DOC_SKETCH)
		return error("--min-clicks '%ld' out of range 1..%d", c->min_clicks, IMPORT_DOC_SKETCH);
	o->min_clicks = c->min_clicks;
	if (c->min_dwell < 0)
		return error("--min-dwell '%g' is negative", c->min_dwell);
	o->min_dwell = c->min_dwell;
	if (c->min_count < 1)
		return error("--min-count '%ld' must be at least 1", c->min_count);
	o->min_count = c->min_count;
	if (c->since) {
		if (import_parse_time(c->since, strlen(c->since), &o->since, NULL) < 0)
			return error("bad --since '%s': expected YYYY-MM-DD[THH:MM[:SS]][Z|+HH:MM] "
				     "or epoch seconds", c->since);
		o->have_since = true;
	}
	if (c->until) {
		bool date_only;
		if (import_parse_time(c->until, strlen(c->until), &o->until, &date_only) < 0)
			return error("bad --until '%s': expected YYYY-MM-DD[THH:MM[:SS]][Z|+HH:MM] "
				     "or epoch seconds", c->until);
		if (date_only)
			o->until += 86400;  /* a date means through the end of that day */
		o->have_until = true;
	}
	if (o->have_since && o->have_until && o->until <= o->since)
		return error("--until '%s' is not after --since '%s'", c->until, c->since);
	if (c->sample == 0 || c->sample < -1)
		return error("--sample '%ld' must be at least 1", c->sample);
	if (!c->logs.nr)
		return error("no log given: use --log <file>");
	return 0;
}

static void add_places(struct strbuf *sb, const char *label, unsigned long n, char *const *at,
		       size_t nr_at)
{
	strbuf_addf(sb, "%-22s %lu", label, n);
	if (n) {
		strbuf_addstr(sb, " (");
		for (size_t i = 0; i < nr_at; i++)
			strbuf_addf(sb, "%s%s", i ? ", " : "", at[i]);
		strbuf_addf(sb, "%s)", n > nr_at ? ", ..." : "");
	}
	strbuf_addch(sb, '\n');
}

struct release_job {
	struct import *im;
	struct import_outcome *out;
	const char *path;       /* write the unlabelled queries here (NULL: no) */
	struct strbuf *lines;   /* their lines */
	int rc;                 /* -1 when they could not be written (reported) */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int saved;              /* 0 until the set is saved (1) or failed to be (-1) */
};

/* Tell the job 'r' whether the set was saved ('ok'). */
static void set_saved(struct release_job *r, bool ok)
{
	pthread_mutex_lock(&r->lock);
	r->saved = ok ? 1 : -1;
	pthread_cond_signal(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

/*
 * Prepare the unlabelled queries of the job 'arg' (a struct release_job)
 * and, once the set is saved, write them (when it is not, nothing is
 * written); then free its outcome and the import's tallies
 * (core/logs/logimport.h says what may run alongside); a thread's body.
 */
static void *release_main(void *arg)
{
	struct release_job *r = arg;
	bool ok;

	r->rc = 0;
	if (r->path)
		import_unlabelled_jsonl(r->im, r->out, r->lines);
	pthread_mutex_lock(&r->lock);
	while (!r->saved)
		pthread_cond_wait(&r->cond, &r->lock);
	ok = r->saved > 0;
	pthread_mutex_unlock(&r->lock);
	if (r->path && ok)
		r->rc = write_file_atomic(r->path, r->lines->buf, r->lines->len);
	import_outcome_release(r->out);
	import_release_tallies(r->im);
	return NULL;
}

/* Append what the import did (added and retired questions, then the summary) to 'sb'. */
static void add_report(struct strbuf *sb, const struct import *im, const struct import_outcome *out,
		       const struct import_cli *c)
{
	const struct import_stats *st = &im->st;

	for (size_t i = 0; i < im->nr; i++)
		if (out->status[i] == IMPORT_ADDED)
			strbuf_addf(sb, "%s %s: %s\n", c->dry_run ? "would add" : "added", out->ids[i],
				    im->q[i].text);
	for (size_t r = 0; r < out->nr_retired; r++)
		strbuf_addf(sb, "%s %s (synthetic, covered by %s): %s\n",
			    c->dry_run ? "would retire" : "retired", out->retired[r].id,
			    out->retired[r].covered_by, out->retired[r].text);

	for (size_t i = 0; i < im->nr_logs; i++)
		strbuf_addf(sb, "log %s: %lu records, %s%s, %s\n", im->logs[i].path,
			    im->logs[i].records, log_format_name(im->logs[i].format),
			    im->logs[i].gzip ? " (gzip)" : "", im->logs[i].digest);
	strbuf_addf(sb, "%-22s %lu\n", "records read", st->records);
	add_places(sb, "malformed, skipped", st->malformed, st->malformed_at, st->nr_malformed_at);
	if (st->missing_query)
		add_places(sb, "without a query", st->missing_query, st->missing_at, st->nr_missing_at);
	if (st->empty_query)
		strbuf_addf(sb, "%-22s %lu\n", "empty queries", st->empty_query);
	if (im->opt.have_since || im->opt.have_until)
		strbuf_addf(sb, "%-22s %lu outside, %lu undated\n", "--since/--until", st->outside,
			    st->undated);
	strbuf_addf(sb, "%-22s %lu\n", "distinct queries",
		    (unsigned long)im->nr + st->below_min_count + st->too_long);
	if (im->opt.min_count > 1)
		strbuf_addf(sb, "%-22s %lu\n", "below --min-count", st->below_min_count);
	if (st->too_long)
		strbuf_addf(sb, "%-22s %lu (over %u bytes, the limit of a set)\n", "too long, dropped",
			    st->too_long, SET_MAX_SCALAR_BYTES);
	strbuf_addf(sb, "%-22s %lu queries (%lu records)\n", "dropped for PII",
		    st->pii_dropped_queries, st->pii_dropped);
	strbuf_addf(sb, "%-22s", "PII found");
	for (int k = 0; k < PII_NR_KINDS; k++)
		strbuf_addf(sb, "%s %s %lu", k ? "," : "", pii_kind_name((enum pii_kind)k),
			    st->pii.n[k]);
	for (size_t k = 0; im->opt.pii_patterns && k < im->opt.pii_patterns->nr; k++)
		strbuf_addf(sb, ", %s %lu", im->opt.pii_patterns->name[k], st->pii.custom[k]);
	strbuf_addf(sb, " (in %lu records)\n", st->pii_records);
	strbuf_addf(sb, "%-22s %lu positive, %lu negative ratings, %lu short clicks, %lu other\n",
		    "signals", st->positive, st->negative, st->short_clicks, st->other_signals);
	strbuf_addf(sb, "%-22s %lu\n", "duplicates", out->duplicates);
	strbuf_addf(sb, "%-22s %lu\n", "labelled", out->candidates);
	if (out->dropped_labels)
		strbuf_addf(sb, "%-22s %lu\n", "labels not in corpus", out->dropped_labels);
	if (out->long_labels)
		strbuf_addf(sb, "%-22s %lu (ids over %u bytes, the limit of a set)\n",
			    "labels too long", out->long_labels, SET_MAX_SCALAR_BYTES);
	strbuf_addf(sb, "%-22s %lu%s%s\n", "unlabelled", out->unlabelled,
		    c->unlabelled && !c->dry_run ? " written to " : "",
		    c->unlabelled && !c->dry_run ? c->unlabelled : "");
	if (c->sample > 0)
		strbuf_addf(sb, "%-22s %lu not sampled\n", "sampled", out->not_sampled);
	strbuf_addf(sb, "%-22s %lu (head %lu, torso %lu, tail %lu)%s\n", "added", out->added,
		    out->added_by_stratum[STRATUM_HEAD], out->added_by_stratum[STRATUM_TORSO],
		    out->added_by_stratum[STRATUM_TAIL],
		    c->dry_run ? " [dry run: nothing written]" : "");
	if (c->replace_synthetic)
		strbuf_addf(sb, "%-22s %zu\n", "retired synthetic", out->nr_retired);
}

/* Load the corpus 's' records into 'corpus' when its file exists (relative
 * to the set directory, else as written, as add does). Return 1 when
 * loaded, 0 when there is none, -1 (reported) when it cannot be read. */
static int load_set_corpus(const struct set *s, const struct set_ref *ref, struct corpus *corpus)
{
	char *path = set_corpus_path(s, ref->dir);
	int ret = 0;

	if (!path)
		return 0;
	if (!path_exists(path) && path_exists(s->corpus.path)) {
		free(path);
		path = xstrdup(s->corpus.path);
	}
	if (path_exists(path))
		ret = corpus_load(corpus, path) < 0 ? -1 : 1;
	free(path);
	return ret;
}

/*
 * import --conversations (core/logs/logconv.h): the logs read without the
 * lock, then under it the working copy read fresh, the labelled turns added
 * and the set written once. Return an exit code.
 */
static int import_conversations(const struct import_cli *c, const struct import_options *o,
				const struct set_ref *ref)
{
	struct logconv lc;
	struct set s = SET_INIT;
	struct corpus corpus = CORPUS_INIT;
	struct lock_file lock = LOCK_FILE_INIT;
	struct strbuf sb = STRBUF_INIT;
	int has_corpus, ret = EXIT_BAD_INPUT;
	long floor;

	logconv_init(&lc, o);
	if (c->sample > 0 || c->unlabelled || c->replace_synthetic || c->min_count > 1 ||
	    c->min_clicks != 2 || o->field[FIELD_COUNT] || o->field[FIELD_EVENT] || o->field[FIELD_END]) {
		error("--conversations reads each turn on its own: --sample, --unlabelled, "
		      "--replace-synthetic, --min-count, --min-clicks and the count, event and end "
		      "fields do not apply");
		goto out;
	}
	for (size_t i = 0; i < c->logs.nr; i++)
		if (logconv_read(&lc, c->logs.items[i]) < 0)
			goto out;
	if (!lc.nr) {
		error("no usable record in the logs (%lu read, %lu malformed, %lu without a query, "
		      "%lu outside the time window)", lc.records, lc.malformed, lc.missing_query,
		      lc.outside);
		goto out;
	}
	if (!c->dry_run && set_lock_take(&lock, ref) < 0)
		goto out;
	if (set_open_ref(&s, ref, true) < 0 || (has_corpus = load_set_corpus(&s, ref, &corpus)) < 0)
		goto out;
	floor = set_id_floor(ref);
	logconv_apply(&lc, &s, has_corpus ? &corpus : NULL, &floor);
	if (!c->dry_run && lc.added &&
	    (set_id_floor_write(ref, floor) < 0 || set_save(&s, ref->file) < 0))
		goto out;
	strbuf_addf(&sb, "%-24s %lu (%lu malformed, %lu without a query, %lu outside the time window)\n",
		    "records", lc.records, lc.malformed, lc.missing_query, lc.outside);
	strbuf_addf(&sb, "%-24s %lu, %lu turns\n", "conversations", lc.conversations, lc.turns);
	strbuf_addf(&sb, "%-24s %lu%s\n", "questions added", lc.added, c->dry_run ? " (dry run)" : "");
	strbuf_addf(&sb, "%-24s %lu\n", "turns without a label", lc.unlabelled_turns);
	strbuf_addf(&sb, "%-24s %lu\n", "turns already in the set", lc.already);
	if (has_corpus)
		strbuf_addf(&sb, "%-24s %lu\n", "labels not in corpus", lc.dropped_labels);
	strbuf_addf(&sb, "%-24s %lu quer%s redacted, %lu session%s dropped\n", "personal data",
		    lc.pii_redacted, lc.pii_redacted == 1 ? "y" : "ies", lc.pii_sessions_dropped,
		    lc.pii_sessions_dropped == 1 ? "" : "s");
	if (write_stdout(sb.buf, sb.len) < 0)
		goto out;
	ret = EXIT_OK;
out:
	lock_release(&lock);
	strbuf_release(&sb);
	corpus_release(&corpus);
	set_release(&s);
	logconv_release(&lc);
	return ret;
}

int cmd_import(int argc, const char **argv)
{
	struct import_cli c = { .min_clicks = 2, .min_count = 1, .sample = -1, .seed = 0,
				.min_dwell = 30 };
	const char *lock_wait = NULL;
	struct option opts[] = {
		OPT_STRING_LIST(0, "log", &c.logs, "file", "a log file (JSONL, CSV, TSV; gzip ok); repeatable"),
		OPT_STRING(0, "preset", &c.preset, "name|file",
			   "options of a trace export: langfuse, langsmith, otel-genai, or a file"),
		OPT_STRING(0, "format", &c.format, "format", "jsonl, csv or tsv (default: by name or content)"),
		OPT_STRING_LIST(0, "field", &c.fields, "name=path",
				"where a field is: query, doc, signal, session, time, dwell, end; "
				"count, sessions, last for pre-aggregated rows; event for traces"),
		OPT_BOOL(0, "assume-click", &c.assume_click,
			 "a record naming documents without a signal field is a click"),
		OPT_INT(0, "min-clicks", &c.min_clicks, "n",
			"positive events from distinct sessions that make a label (default 2)"),
		OPT_DOUBLE(0, "min-dwell", &c.min_dwell, "seconds",
			   "a shorter click is a short click, not a label (default 30)"),
		OPT_STRING(0, "pii", &c.pii, "mode", "redact (default) or drop queries holding PII"),
		OPT_STRING_LIST(0, "pii-pattern", &c.pii_patterns, "name=regex",
				"also redact matches of a PCRE2 pattern as [NAME] (repeatable)"),
		OPT_INT(0, "min-count", &c.min_count, "n", "ignore queries seen fewer times (default 1)"),
		OPT_STRING(0, "since", &c.since, "time", "only records at or after this time"),
		OPT_STRING(0, "until", &c.until, "time", "only records before this time (a date: through that day)"),
		OPT_INT(0, "sample", &c.sample, "n", "add at most n questions, stratified head/torso/tail"),
		OPT_INT(0, "seed", &c.seed, "s", "the seed of --sample (default 0)"),
		OPT_STRING(0, "unlabelled", &c.unlabelled, "file",
			   "write queries without a label here (JSON Lines) for hand labelling"),
		OPT_BOOL(0, "replace-synthetic", &c.replace_synthetic,
			 "retire synthetic questions whose chunks mined ones now cover"),
		OPT_BOOL(0, "conversations", &c.conversations,
			 "each session is a conversation: one question per labelled turn, with the turns before it"),
		OPT_BOOL('n', "dry-run", &c.dry_run, "report what would change; write nothing"),
		OPT_LOCK_WAIT(&lock_wait),
		OPT_PROGRESS_QUIET(&c.quiet),
		OPT_END(),
	};
	struct progress prog = { 0 };
	struct import_options o;
	struct import im;
	struct import_outcome out;
	struct import_apply_options ao = { 0 };
	struct set_ref ref = SET_REF_INIT;
	struct set s = SET_INIT;
	struct corpus corpus = CORPUS_INIT;
	struct lock_file lock = LOCK_FILE_INIT;
	struct strbuf ul = STRBUF_INIT, report = STRBUF_INIT, preset_buf = STRBUF_INIT;
	struct string_list preset_args = STRING_LIST_INIT;
	const char **args = NULL;
	struct release_job rel = { .lock = PTHREAD_MUTEX_INITIALIZER,
				   .cond = PTHREAD_COND_INITIALIZER };
	pthread_t releaser;
	bool releasing = false, save, saved;
	long id_floor;
	char *corpus_path = NULL;
	int ret = EXIT_BAD_INPUT;

	memset(&im, 0, sizeof(im));
	memset(&out, 0, sizeof(out));
	/* a preset's options go first: the command line's own win */
	for (int i = 1; i < argc; i++) {
		const char *name = NULL;

		if (!strcmp(argv[i], "--preset") && i + 1 < argc)
			name = argv[i + 1];
		else if (!strncmp(argv[i], "--preset=", 9))
			name = argv[i] + 9;
		if (!name)
			continue;
		if (load_preset(name, opts, &preset_buf, &preset_args) < 0)
			goto out;
		args = xcalloc((size_t)argc + preset_args.nr + 1, sizeof(*args));
		args[0] = argv[0];
		for (size_t k = 0; k < preset_args.nr; k++)
			args[1 + k] = preset_args.items[k];
		for (int k = 1; k < argc; k++)
			args[preset_args.nr + (size_t)k] = argv[k];
		argc += (int)preset_args.nr;
		argv = args;
		break;
	}
	argc = parse_options(argc, argv, opts, import_usage);
	apply_lock_wait(lock_wait, import_usage, opts);
	if (argc < 1)
		usage_with_options(import_usage, opts);
	for (int i = 1; i < argc; i++)
		string_list_append(&c.logs, argv[i]);  /* --log a.jsonl b.jsonl */
	if (parse_import_options(&c, &o) < 0)
		goto out;
	if (set_ref_resolve(&ref, argv[0], true) < 0)
		goto out;
	if (ref.tag) {
		error("cannot import into frozen version '%s'; versions are never rewritten", argv[0]);
		goto out;
	}
	/* refuse a broken set before the (long) read of the logs */
	if (set_open_ref(&s, &ref, true) < 0)
		goto out;
	set_release(&s);
	if (c.conversations) {
		ret = import_conversations(&c, &o, &ref);
		goto out;
	}

	if (c.quiet)
		progress_silence();
	progress_begin(&prog, "import", PROGRESS_BYTES, NULL, logs_size(&c.logs));
	o.progress = &prog;
	import_init(&im, &o);
	for (size_t i = 0; i < c.logs.nr; i++) {
		struct stat st;

		if (import_read(&im, c.logs.items[i]) < 0) {
			progress_end(&prog);
			goto out;
		}
		if (!stat(c.logs.items[i], &st))
			im.opt.progress_base += (double)st.st_size;
	}
	progress_end(&prog);
	if (!im.st.used) {
		if (im.st.records && im.st.missing_query == im.st.records)
			error("no record has the query field '%s' (map it with --field query=PATH)",
			      o.field[FIELD_QUERY] ? o.field[FIELD_QUERY] : "query");
		else
			error("no usable record in the logs (%lu read, %lu malformed, %lu without a "
			      "query, %lu dropped)", im.st.records, im.st.malformed,
			      im.st.missing_query, im.st.pii_dropped + im.st.outside + im.st.undated +
			      im.st.empty_query);
		goto out;
	}
	for (int f = 1; f < IMPORT_NR_FIELDS; f++)
		if (o.field[f] && !im.st.field_seen[f])
			warning("field '%s' mapped to '%s' is in no record", import_field_name(f),
				o.field[f]);
	if (im.st.malformed)
		warning("skipped %lu malformed record%s", im.st.malformed,
			im.st.malformed == 1 ? "" : "s");
	import_label(&im);

	if (!c.dry_run) {
		if (set_lock_take(&lock, &ref) < 0)
			goto out;
	}
	if (set_open_ref(&s, &ref, true) < 0)
		goto out;
	if ((corpus_path = set_corpus_path(&s, ref.dir))) {
		/* relative to the set directory; failing that, as written (as add does) */
		if (!path_exists(corpus_path) && path_exists(s.corpus.path)) {
			free(corpus_path);
			corpus_path = xstrdup(s.corpus.path);
		}
		if (path_exists(corpus_path)) {
			if (corpus_load(&corpus, corpus_path) < 0)
				goto out;
			ao.corpus = &corpus;
		}
	}
	ao.replace_synthetic = c.replace_synthetic;
	ao.have_sample = c.sample > 0;
	ao.sample = c.sample;
	ao.seed = (uint64_t)c.seed;
	ao.floor = set_id_floor(&ref);
	import_apply(&im, &s, &ao, &out);

	add_report(&report, &im, &out, &c);
	/* the outcome is freed on the other thread: what the set needs is read now */
	save = !c.dry_run && (out.added || out.nr_retired);
	id_floor = out.floor;
	/*
	 * The rest of the import's work (the --unlabelled file, then giving its
	 * memory back) runs on another thread while the set is saved.
	 */
	rel.im = &im;
	rel.out = &out;
	rel.path = c.unlabelled && !c.dry_run ? c.unlabelled : NULL;
	rel.lines = &ul;
	releasing = !pthread_create(&releaser, NULL, release_main, &rel);
	saved = !save || (set_id_floor_write(&ref, id_floor) >= 0 && set_save(&s, ref.file) >= 0);
	set_saved(&rel, saved);
	if (releasing) {
		import_release_early(&im);  /* alongside the other thread: what it does not read */
		pthread_join(releaser, NULL);
		releasing = false;
	} else {
		release_main(&rel);  /* no thread to be had */
	}
	if (!saved || rel.rc < 0)
		goto out;
	if (write_stdout(report.buf, report.len) < 0)
		goto out;
	ret = EXIT_OK;
out:
	if (releasing)
		pthread_join(releaser, NULL);
	lock_release(&lock);
	free(corpus_path);
	strbuf_release(&ul);
	strbuf_release(&report);
	import_outcome_release(&out);  /* no-op when the releaser did it */
	import_release(&im);  /* what is left */
	corpus_release(&corpus);
	pii_patterns_release(&c.patterns);
	set_release(&s);
	set_ref_release(&ref);
	string_list_clear(&c.logs);
	string_list_clear(&c.fields);
	string_list_clear(&c.pii_patterns);
	string_list_clear(&preset_args);
	strbuf_release(&preset_buf);
	free(args);
	return ret;
}
