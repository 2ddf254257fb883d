/*
 * parse-options: option tables for every subcommand.
 *
 * A command declares `struct option opts[] = { OPT_..., OPT_END() }` and a
 * NULL-terminated array of usage lines in synopsis form. parse_options()
 * consumes the options (anywhere on the line, until "--"), leaves the
 * positional arguments in argv[0..n) and returns n. "-h"/"--help" prints the
 * usage and the option table on stdout and exits 0; misuse prints the problem
 * and the usage on stderr and exits 2 (docs/design.md, "Exit codes").
 */
#ifndef EVALSET_PARSE_OPTIONS_H
#define EVALSET_PARSE_OPTIONS_H

#include <stddef.h>

enum option_type {
	OPTION_END,
	OPTION_BOOL,        /* int *: set to 1 (--no-NAME sets 0) */
	OPTION_STRING,      /* const char **: last one wins */
	OPTION_INT,         /* long *: whole number */
	OPTION_DOUBLE,      /* double *: finite number */
	OPTION_STRING_LIST, /* struct string_list *: repeatable, in order */
	OPTION_OPTARG,      /* const char **: --NAME sets "", --NAME=VALUE sets VALUE (never the next word) */
	OPTION_CALLBACK,    /* callback(value, arg) at the option's place among the others */
};

struct option {
	enum option_type type;
	int short_name;
	const char *long_name;
	void *value;
	const char *argh;
	const char *help;
	/* OPTION_CALLBACK: called with 'value' and the option's argument, in
	 * command-line order; returns 0, or -1 after reporting the problem
	 * (the usage is printed and the command exits 2) */
	int (*callback)(void *value, const char *arg);
};

/* A list of borrowed strings (they point into argv). */
struct string_list {
	const char **items;
	size_t nr, alloc;
};
#define STRING_LIST_INIT { NULL, 0, 0 }
void string_list_append(struct string_list *l, const char *s);
void string_list_clear(struct string_list *l);

#define OPT_END() { OPTION_END, 0, NULL, NULL, NULL, NULL, NULL }
#define OPT_BOOL(s, l, v, h) { OPTION_BOOL, (s), (l), (v), NULL, (h), NULL }
#define OPT_STRING(s, l, v, a, h) { OPTION_STRING, (s), (l), (v), (a), (h), NULL }
#define OPT_INT(s, l, v, a, h) { OPTION_INT, (s), (l), (v), (a), (h), NULL }
#define OPT_DOUBLE(s, l, v, a, h) { OPTION_DOUBLE, (s), (l), (v), (a), (h), NULL }
#define OPT_STRING_LIST(s, l, v, a, h) { OPTION_STRING_LIST, (s), (l), (v), (a), (h), NULL }
#define OPT_OPTARG(l, v, a, h) { OPTION_OPTARG, 0, (l), (v), (a), (h), NULL }
#define OPT_CALLBACK(s, l, v, a, h, fn) { OPTION_CALLBACK, (s), (l), (v), (a), (h), (fn) }

int parse_options(int argc, const char **argv, const struct option *opts,
		  const char *const *usage);

/* Print the usage and options on stderr and exit 2. */
__attribute__((noreturn))
void usage_with_options(const char *const *usage, const struct option *opts);

#endif
