/*
 * parse-options: table-driven option parsing (see parse-options.h).
 */
#include "parse-options.h"
#include "base/error.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void string_list_append(struct string_list *l, const char *s)
{
	ALLOC_GROW(l->items, l->nr + 1, l->alloc);
	l->items[l->nr++] = s;
}

void string_list_clear(struct string_list *l)
{
	free(l->items);
	l->items = NULL;
	l->nr = l->alloc = 0;
}

static void print_usage(FILE *fp, const char *const *usage, const struct option *opts)
{
	fprintf(fp, "usage: %s\n", usage[0]);
	for (size_t i = 1; usage[i]; i++)
		fprintf(fp, "%s%s\n", *usage[i] ? "   or: " : "", usage[i]);
	fputc('\n', fp);
	for (const struct option *o = opts; o->type != OPTION_END; o++) {
		char left[80];
		int n = 0;

		if (o->short_name && o->long_name)
			n = snprintf(left, sizeof(left), "-%c, --%s", o->short_name, o->long_name);
		else if (o->short_name)
			n = snprintf(left, sizeof(left), "-%c", o->short_name);
		else
			n = snprintf(left, sizeof(left), "--%s", o->long_name);
		/* synopsis style: "--gate <file>"; choices ("text|json") stay bare */
		if (o->type == OPTION_OPTARG && n > 0 && (size_t)n < sizeof(left))
			snprintf(left + n, sizeof(left) - (size_t)n, "[=<%s>]", o->argh);
		else if (o->argh && n > 0 && (size_t)n < sizeof(left))
			snprintf(left + n, sizeof(left) - (size_t)n,
				 strpbrk(o->argh, "<|[") ? " %s" : " <%s>", o->argh);
		if (strlen(left) > 24)
			fprintf(fp, "    %s\n    %-24s  %s\n", left, "", o->help);
		else
			fprintf(fp, "    %-24s  %s\n", left, o->help);
	}
}

void usage_with_options(const char *const *usage, const struct option *opts)
{
	print_usage(stderr, usage, opts);
	exit(EXIT_BAD_INPUT);
}

static void bad(const char *const *usage, const struct option *opts,
		const char *what, const char *name, const char *problem)
{
	if (*problem)
		error("%s '%s' %s", what, name, problem);
	else
		error("%s '%s'", what, name);
	usage_with_options(usage, opts);
}

static void set_value(const struct option *o, const char *arg, const char *shown,
		      const char *const *usage, const struct option *opts)
{
	switch (o->type) {
	case OPTION_STRING:
	case OPTION_OPTARG:
		*(const char **)o->value = arg;
		break;
	case OPTION_INT:
		if (parse_long(arg, -2147483647L, 2147483647L, (long *)o->value) < 0) {
			error("option '%s' wants a whole number, not '%s'", shown, arg);
			usage_with_options(usage, opts);
		}
		break;
	case OPTION_DOUBLE:
		if (parse_double(arg, (double *)o->value) < 0) {
			error("option '%s' wants a number, not '%s'", shown, arg);
			usage_with_options(usage, opts);
		}
		break;
	case OPTION_STRING_LIST:
		string_list_append(o->value, arg);
		break;
	case OPTION_CALLBACK:
		if (o->callback(o->value, arg) < 0)
			usage_with_options(usage, opts);
		break;
	default:
		break;
	}
}

int parse_options(int argc, const char **argv, const struct option *opts,
		  const char *const *usage)
{
	int nr = 0, i;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		const struct option *o;

		if (!strcmp(a, "--")) {
			for (i++; i < argc; i++)
				argv[nr++] = argv[i];
			break;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			print_usage(stdout, usage, opts);
			exit(EXIT_OK);
		}
		if (a[0] != '-' || !a[1]) {
			argv[nr++] = a;
			continue;
		}
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			int negated = 0;

			for (o = opts; o->type != OPTION_END; o++)
				if (o->long_name && strlen(o->long_name) == len &&
				    !strncmp(o->long_name, name, len))
					break;
			if (o->type == OPTION_END && len > 3 && !strncmp(name, "no-", 3)) {
				for (o = opts; o->type != OPTION_END; o++)
					if (o->type == OPTION_BOOL && o->long_name &&
					    strlen(o->long_name) == len - 3 &&
					    !strncmp(o->long_name, name + 3, len - 3))
						break;
				negated = 1;
			}
			if (o->type == OPTION_END)
				bad(usage, opts, "unknown option", a, "");
			if (o->type == OPTION_BOOL) {
				if (eq)
					bad(usage, opts, "option", a, "takes no value");
				*(int *)o->value = !negated;
				continue;
			}
			if (eq) {
				set_value(o, eq + 1, a, usage, opts);
			} else if (o->type == OPTION_OPTARG) {
				*(const char **)o->value = "";
			} else {
				if (i + 1 >= argc)
					bad(usage, opts, "option", a, "needs a value");
				set_value(o, argv[++i], a, usage, opts);
			}
			continue;
		}
		/* one or more short options: -q, -qc, -k5, -k 5 */
		for (const char *p = a + 1; *p; p++) {
			char shown[3] = { '-', *p, '\0' };

			for (o = opts; o->type != OPTION_END; o++)
				if (o->short_name == *p)
					break;
			if (o->type == OPTION_END)
				bad(usage, opts, "unknown option", shown, "");
			if (o->type == OPTION_BOOL) {
				*(int *)o->value = 1;
				continue;
			}
			if (p[1]) {
				set_value(o, p + 1, shown, usage, opts);
			} else {
				if (i + 1 >= argc)
					bad(usage, opts, "option", shown, "needs a value");
				set_value(o, argv[++i], shown, usage, opts);
			}
			break;
		}
	}
	argv[nr] = NULL;
	return nr;
}
