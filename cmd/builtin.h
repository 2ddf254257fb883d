/*
 * builtin: the subcommands and what they share.
 *
 * Each cmd/<name>.c defines cmd_<name>(argc, argv), where argv holds the
 * arguments after the subcommand's name (argv[argc] is NULL), ready for
 * parse_options(). A command parses its options, calls into core/, prints
 * and returns an exit code of enum exit_code; only cmd/ may exit.
 */
#ifndef EVALSET_BUILTIN_H
#define EVALSET_BUILTIN_H

#include <stdbool.h>

#include "base/error.h"
#include "parse-options.h"
#include "score/run.h"

/* Print "error: ..." and exit with 'code'. */
__attribute__((noreturn, format(printf, 2, 3)))
void die(int code, const char *fmt, ...);

/* Install SIGINT/SIGTERM handlers that only set a flag (see interrupted()). */
void handle_interrupts(void);
/* Return non-zero once SIGINT or SIGTERM arrived. */
int interrupted(void);

/* --wait[=SECONDS] of the commands that write a set or a pool under its lock */
#define OPT_LOCK_WAIT(v) OPT_OPTARG("wait", (v), "seconds", \
	"when another evalset process holds the set, wait for it (at most <seconds>; bare: no limit)")
/* Apply the value of OPT_LOCK_WAIT (NULL: not given) to lock_take; a bad
 * value prints the usage and exits 2. */
void apply_lock_wait(const char *arg, const char *const *usage, const struct option *opts);

struct table;
/* Print 't' (base/table) on standard output and release it. */
void print_table(struct table *t);

/* --rank-by order|score of the commands that read runs */
/* -q/--quiet of a command whose only chatter is its progress line. */
#define OPT_PROGRESS_QUIET(v) OPT_BOOL('q', "quiet", (v), "no progress line (it is only drawn on a terminal)")
#define OPT_RANK_BY(v) OPT_STRING(0, "rank-by", (v), "order|score", \
	"rank a JSONL run by its list order (default) or by score, ties as trec_eval")
/* Return the ranking --rank-by names (NULL: not given, list order); a bad
 * value prints the usage and exits 2. */
enum run_rank apply_rank_by(const char *arg, const char *const *usage, const struct option *opts);

/*
 * The settings a gate's verdict depends on, and where each came from (the
 * verdict line names them: a pull request can change evalset.yaml or the
 * environment). 'k' from 'k_flag' (LONG_MIN: not given) or the config's k
 * (EVALSET_K, built-in 5); the gate file from 'gate_flag' or, when
 * 'want_gate', the config's gate (EVALSET_GATE), else NULL (the default
 * gate). Sources read "--k", "--gate", "env EVALSET_K", "config FILE:LINE",
 * "built-in". Return 0, or -1 after an error (a bad config value).
 */
struct gate_settings {
	long k;
	const char *gate_file;  /* borrowed */
	char *k_source, *gate_source;
};
int gate_settings_resolve(long k_flag, const char *gate_flag, bool want_gate,
			  struct gate_settings *out);
void gate_settings_release(struct gate_settings *s);

int cmd_init(int argc, const char **argv);
int cmd_add(int argc, const char **argv);
int cmd_rm(int argc, const char **argv);
int cmd_ls(int argc, const char **argv);
int cmd_show(int argc, const char **argv);
int cmd_check(int argc, const char **argv);
int cmd_run(int argc, const char **argv);
int cmd_tag(int argc, const char **argv);
int cmd_versions(int argc, const char **argv);
int cmd_verify(int argc, const char **argv);
int cmd_diff(int argc, const char **argv);
int cmd_score(int argc, const char **argv);
int cmd_trec_eval(int argc, const char **argv);
int cmd_generate(int argc, const char **argv);
int cmd_compare(int argc, const char **argv);
int cmd_power(int argc, const char **argv);
int cmd_import(int argc, const char **argv);
int cmd_report(int argc, const char **argv);
int cmd_pool(int argc, const char **argv);
int cmd_judge(int argc, const char **argv);
int cmd_label(int argc, const char **argv);
int cmd_review(int argc, const char **argv);
int cmd_export(int argc, const char **argv);
int cmd_config(int argc, const char **argv);
int cmd_chunk(int argc, const char **argv);
int cmd_remap(int argc, const char **argv);

#endif
