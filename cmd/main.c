/*
 * main: dispatch "evalset <command> [<args>]" through a flat command table.
 */
#include "builtin.h"
#include "base/config.h"
#include "base/curl-lib.h"
#include "base/fsutil.h"
#include "base/redact.h"
#include "base/suggest.h"
#include "evalset-version.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <utf8proc.h>
#include <yaml.h>

struct command {
	const char *name;
	int (*fn)(int argc, const char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "chunk", cmd_chunk, "cut Markdown, text and HTML documents into a corpus" },
	{ "init", cmd_init, "create an empty set" },
	{ "add", cmd_add, "add questions to a set" },
	{ "rm", cmd_rm, "remove questions from a set" },
	{ "ls", cmd_ls, "list the questions of a set" },
	{ "show", cmd_show, "show one question in full" },
	{ "check", cmd_check, "check a set against the rules and show its composition" },
	{ "tag", cmd_tag, "freeze the working copy as a tagged version" },
	{ "versions", cmd_versions, "list the tagged versions of a set" },
	{ "remap", cmd_remap, "carry a set's labels to a new chunking of its documents" },
	{ "diff", cmd_diff, "show what changed between two versions of a set" },
	{ "verify", cmd_verify, "verify every version of every set and its history (for CI)" },
	{ "run", cmd_run, "ask a retriever every question and write its run" },
	{ "score", cmd_score, "score a run against a set version or TREC qrels" },
	{ "trec-eval", cmd_trec_eval, "evaluate a TREC run like trec_eval v10.0" },
	{ "generate", cmd_generate, "write synthetic questions from corpus chunks with an LLM" },
	{ "compare", cmd_compare, "compare two runs on a set version and gate on regressions" },
	{ "power", cmd_power, "show the smallest change a set can detect, and the size needed" },
	{ "report", cmd_report, "write an HTML report with plots and a k slider" },
	{ "import", cmd_import, "mine labelled questions from query logs into a set" },
	{ "export", cmd_export, "write a set as TREC qrels, BEIR or JSONL" },
	{ "pool", cmd_pool, "write a worksheet of unlabelled documents several runs found" },
	{ "judge", cmd_judge, "grade a pool's pairs with an LLM judge, or measure its agreement" },
	{ "label", cmd_label, "merge a graded pool into a set's labels" },
	{ "review", cmd_review, "serve a local page to review questions or grade a pool" },
	{ "config", cmd_config, "show the effective defaults and where each comes from" },
	/* COMMANDS: one row per subcommand, in the order of the tour */
};

static void print_help(FILE *fp)
{
	fprintf(fp, "usage: evalset [--version] [-h] [--config <file>] <command> [<args>]\n\n"
		    "Build evaluation sets for retrieval and gate merges on regressions.\n\n"
		    "commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(fp, "    %-11s %s\n", commands[i].name, commands[i].summary);
	fprintf(fp, "\n'evalset <command> -h' shows a command's options.\n");
}

static void print_version(void)
{
	curl_version_info_data *cv;

	if (*EVALSET_GIT_DESCRIBE)
		printf("evalset %s (git %s)\n", EVALSET_VERSION, EVALSET_GIT_DESCRIBE);
	else
		printf("evalset %s\n", EVALSET_VERSION);
	/* libcurl is opened here (it is not loaded at start): a library that
	 * cannot be loaded ends --version with its reason, after evalset's own */
	cv = curl_lib()->version_info(CURLVERSION_NOW);
	printf("libcurl %s\n", cv->version);
	printf("cJSON %s\n", cJSON_Version());
	printf("libyaml %s\n", yaml_get_version_string());
	printf("utf8proc %s\n", utf8proc_version());
}

/*
 * Return the exit code for a command that returned 'ret', after making sure
 * what it printed reached standard output: a command that succeeded but whose
 * output was lost (a full disk, an I/O error) exits 2 with a message,
 * so `evalset versions demo > file` cannot leave a short file behind an
 * exit 0. A reader that went away early (EPIPE, with SIGPIPE ignored) is not
 * an error of ours. A command that failed already said why.
 */
static int finish(int ret)
{
	int flushed = fflush(stdout);
	int err = errno;

	if (ret != EXIT_OK || (!flushed && !ferror(stdout)))
		return ret;
	if (flushed && err == EPIPE)
		return ret;
	if (flushed)
		error("cannot write to standard output: %s", strerror(err));
	else
		error("cannot write to standard output");
	return EXIT_BAD_INPUT;
}

/* Report 'name' as an unknown command, with the closest commands when a
 * typo explains it ("did you mean 'score'?"). */
static void unknown_command(const char *name)
{
	struct suggest sg;
	struct strbuf dym = STRBUF_INIT;

	suggest_init(&sg, name, strlen(name), 2, true);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		suggest_offer(&sg, commands[i].name);
	suggest_did_you_mean(&sg, 3, NULL, &dym);
	error("unknown command '%s'%s", name, dym.buf);
	strbuf_release(&dym);
	suggest_release(&sg);
}

static int run(int argc, const char **argv)
{
	/* keys in the environment never reach a message, whatever path they take */
	redact_add_env_secrets();
	/* --config FILE before the command: the project config (core/base/config.h) */
	if (argc >= 3 && !strcmp(argv[1], "--config")) {
		/* named on purpose: missing is an error for every command, not only
		 * for those that read the config */
		int fd = open_regular(argv[2]);

		if (fd < 0)
			return EXIT_BAD_INPUT;
		close(fd);
		config_set_path(argv[2]);
		argc -= 2;
		argv += 2;
	}
	if (argc < 2) {
		print_help(stderr);
		return EXIT_BAD_INPUT;
	}
	/* help COMMAND is COMMAND -h */
	if (!strcmp(argv[1], "help") && argc >= 3) {
		static const char *h[] = { "-h", NULL };

		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (!strcmp(argv[2], commands[i].name))
				return commands[i].fn(1, h);
		unknown_command(argv[2]);
		return EXIT_BAD_INPUT;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		print_help(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		print_version();
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 2, argv + 2);
	unknown_command(argv[1]);
	print_help(stderr);
	return EXIT_BAD_INPUT;
}

/* Open /dev/null on any of descriptors 0, 1 and 2 that is closed, so a file
 * evalset opens cannot become its standard output and take its prints. */
static void keep_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++)
		/* open() takes the lowest free descriptor: 'fd', as those below are open */
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF && open("/dev/null", O_RDWR) != fd)
			exit(EXIT_BAD_INPUT);
}

/*
 * Have glibc's allocator serve blocks of up to 32 MiB (16 MiB on 32-bit
 * systems, glibc's ceiling) from its heap rather than from mappings of
 * their own. evalset makes and frees many blocks of a few hundred
 * kilobytes to a few megabytes (the hash tables of 20,000 question ids, a
 * results file's text, a set's digest): by default each is a fresh mapping,
 * and every page of it costs a page fault when first written, which on a
 * virtual machine was a tenth of scoring a run of two million lines.
 * From the heap, a freed block's pages serve the next one. Blocks larger
 * than that are still mapped, and given back when freed.
 */
static void tune_malloc(void)
{
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD)
	if (!mallopt(M_MMAP_THRESHOLD, 32 << 20))
		(void)mallopt(M_MMAP_THRESHOLD, 16 << 20);
#endif
}

int main(int argc, const char **argv)
{
	tune_malloc();
	keep_std_fds();
	return finish(run(argc, argv));
}
