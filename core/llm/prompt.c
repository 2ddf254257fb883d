/*
 * prompt: loading, checking and rendering prompt templates (see prompt.h).
 */
#include "llm/prompt.h"
#include "base/digest.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/lineio.h"
#include "base/util.h"
#include "base/utf8.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void prompt_release(struct prompt *p)
{
	free(p->file);
	free(p->name);
	free(p->version);
	free(p->system);
	free(p->user);
	memset(p, 0, sizeof(*p));
}

/* Return the length of the line at 's' (without its newline). */
static size_t line_len(const char *s, const char *end)
{
	const char *nl = memchr(s, '\n', (size_t)(end - s));

	return nl ? (size_t)(nl - s) : (size_t)(end - s);
}

static bool line_is(const char *s, size_t len, const char *what)
{
	while (len && (s[len - 1] == '\r' || s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	return len == strlen(what) && !memcmp(s, what, len);
}

static char *trimmed(const char *s, size_t len)
{
	while (len && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
		len--;
	if (len >= 2 && ((s[0] == '"' && s[len - 1] == '"') || (s[0] == '\'' && s[len - 1] == '\''))) {
		s++;
		len -= 2;
	}
	return xstrndup(s, len);
}

int prompt_parse(struct prompt *p, const char *text, size_t len, const char *name)
{
	const char *s = text, *end = text + len;
	const char *sys = NULL, *sys_end = NULL, *usr = NULL;
	long line = 1;
	size_t n;

	memset(p, 0, sizeof(*p));
	p->file = xstrdup(name);
	sha256_hex(text, len, p->digest);
	if (!utf8_valid(text, len, &n)) {
		error_at(name, line_number_at(text, n), 0, "prompt is not valid UTF-8");
		goto fail;
	}
	n = line_len(s, end);
	if (!line_is(s, n, "---")) {
		error_at(name, 1, 0, "prompt has no front matter (a first line '---')");
		goto fail;
	}
	s += n + (s + n < end);
	for (;;) {
		const char *colon;
		line++;
		if (s >= end) {
			error_at(name, line, 0, "front matter is not closed by '---'");
			goto fail;
		}
		n = line_len(s, end);
		if (line_is(s, n, "---")) {
			s += n + (s + n < end);
			line++;
			break;
		}
		colon = memchr(s, ':', n);
		if (colon) {
			char *key = trimmed(s, (size_t)(colon - s));
			char *val = trimmed(colon + 1, n - (size_t)(colon + 1 - s));
			if (!strcmp(key, "name")) {
				free(p->name);
				p->name = val;
			} else if (!strcmp(key, "version")) {
				free(p->version);
				p->version = val;
			} else {
				free(val);
			}
			free(key);
		}
		s += n + (s + n < end);
	}
	if (!p->name || !*p->name || !p->version || !*p->version) {
		error_at(name, 1, 0, "front matter needs 'name' and 'version'");
		goto fail;
	}
	for (; s < end; line++) {
		n = line_len(s, end);
		if (line_is(s, n, "# system")) {
			sys = s + n + (s + n < end);
		} else if (line_is(s, n, "# user")) {
			if (sys && !sys_end)
				sys_end = s;
			usr = s + n + (s + n < end);
			break;
		}
		s += n + (s + n < end);
	}
	if (!usr) {
		error_at(name, line, 0, "prompt has no '# user' section");
		goto fail;
	}
	{
		struct strbuf sb = STRBUF_INIT;
		if (sys) {
			strbuf_add(&sb, sys, (size_t)(sys_end - sys));
			strbuf_trim(&sb);
		}
		p->system = strbuf_detach(&sb, NULL);
		strbuf_add(&sb, usr, (size_t)(end - usr));
		strbuf_trim(&sb);
		p->user = strbuf_detach(&sb, NULL);
	}
	return 0;
fail:
	prompt_release(p);
	return -1;
}

int prompt_load(struct prompt *p, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int rc;

	if (read_file(path, &sb, PROMPT_MAX_BYTES)) {
		strbuf_release(&sb);
		return -1;
	}
	rc = prompt_parse(p, sb.buf, sb.len, path);
	strbuf_release(&sb);
	return rc;
}

/*
 * Find the next "{{ name }}" at or after 's'. Return a pointer to "{{" and set
 * the name's start and length and the end past "}}", or NULL.
 */
static const char *next_var(const char *s, const char **name, size_t *len, const char **after)
{
	for (const char *o = strstr(s, "{{"); o; o = strstr(o + 2, "{{")) {
		const char *c = strstr(o + 2, "}}");
		const char *a = o + 2, *b;
		if (!c)
			return NULL;
		b = c;
		while (a < b && *a == ' ')
			a++;
		while (b > a && b[-1] == ' ')
			b--;
		*name = a;
		*len = (size_t)(b - a);
		*after = c + 2;
		return o;
	}
	return NULL;
}

static int check_one(const struct prompt *p, const char *tmpl, const char *const *allowed)
{
	const char *s = tmpl, *name, *after, *at;
	size_t len;

	while ((at = next_var(s, &name, &len, &after))) {
		bool known = false;
		for (size_t i = 0; allowed[i]; i++)
			if (strlen(allowed[i]) == len && !memcmp(allowed[i], name, len))
				known = true;
		if (!known)
			return error_at(p->file, 0, 0, "unknown variable '{{%.*s}}' in prompt '%s'",
					(int)len, name, p->name);
		s = after;
	}
	return 0;
}

int prompt_check_vars(const struct prompt *p, const char *const *allowed)
{
	if (check_one(p, p->system, allowed) || check_one(p, p->user, allowed))
		return -1;
	return 0;
}

int prompt_render(const char *tmpl, const struct prompt_var *vars, size_t nr, struct strbuf *out)
{
	const char *s = tmpl, *name, *after, *at;
	size_t len;

	while ((at = next_var(s, &name, &len, &after))) {
		size_t i;
		strbuf_add(out, s, (size_t)(at - s));
		for (i = 0; i < nr; i++)
			if (strlen(vars[i].name) == len && !memcmp(vars[i].name, name, len))
				break;
		if (i == nr)
			return error("unknown variable '{{%.*s}}' in a prompt", (int)len, name);
		if (vars[i].value)
			strbuf_addstr(out, vars[i].value);
		s = after;
	}
	strbuf_addstr(out, s);
	return 0;
}

char *prompt_id(const struct prompt *p)
{
	return xstrfmt("%s@%s", p->name, p->digest);
}

#ifndef EVALSET_DATADIR
#define EVALSET_DATADIR "/usr/local/share/evalset"
#endif

char *prompt_default_dir(const char *given, const char *probe)
{
	const char *env = getenv("EVALSET_PROMPT_DIR");
	char *dir;

	if (given)
		return xstrdup(given);
	if (env && *env)
		return xstrdup(env);
	if ((dir = dir_holding(xstrdup("prompts"), probe)))
		return dir;
	return data_dir_find("prompts", probe);
}
