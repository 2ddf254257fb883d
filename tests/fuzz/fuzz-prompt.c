/*
 * fuzz-prompt: prompt templates on arbitrary bytes: parsing (front matter,
 * sections), checking the variables against the set `evalset generate`
 * allows, and rendering both messages. A template that passes the check
 * must render, and a template without variables renders as itself.
 */
#include "fuzz.h"
#include "base/error.h"
#include "llm/prompt.h"
#include "base/strbuf.h"

#include <stdlib.h>
#include <string.h>

static void quiet(const char *prefix, const char *msg)
{
	(void)prefix;
	(void)msg;
}

static const char *const allowed[] = {
	"chunk.text", "chunk.title", "chunk.id", "n", "kind",
	"neighbour.text", "neighbour.title", "neighbour.id", NULL
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prompt p = PROMPT_INIT;
	struct strbuf sys = STRBUF_INIT, user = STRBUF_INIT;
	const struct prompt_var vars[] = {
		{ "chunk.text", "The passage." }, { "chunk.title", "Title" },
		{ "chunk.id", "doc-1" }, { "n", "3" }, { "kind", "factoid" },
		{ "neighbour.text", "" }, { "neighbour.title", NULL }, { "neighbour.id", "" },
	};
	char *id;

	set_error_routine(quiet);
	set_warning_routine(quiet);
	if (prompt_parse(&p, (const char *)data, size, "fuzz.md") < 0)
		goto out;
	if (!p.name || !*p.name || !p.version || !p.system || !p.user ||
	    strncmp(p.digest, "sha256:", 7))
		__builtin_trap();
	id = prompt_id(&p);
	free(id);
	if (prompt_check_vars(&p, allowed) < 0)
		goto out;
	if (prompt_render(p.system, vars, 8, &sys) < 0 || prompt_render(p.user, vars, 8, &user) < 0)
		__builtin_trap();
	/* a template without "{{" renders as itself */
	if (!strstr(p.user, "{{") && strcmp(user.buf, p.user))
		__builtin_trap();
out:
	strbuf_release(&sys);
	strbuf_release(&user);
	prompt_release(&p);
	return 0;
}
