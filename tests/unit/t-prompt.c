/*
 * t-prompt: front matter, sections, variables checked at load, rendering,
 * and a digest that changes with any edit.
 */
#include "test-lib.h"
#include "llm/judge.h"
#include "llm/prompt.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

static const char good[] =
	"---\nname: gen-test\nversion: 2\n---\nnotes for humans\n# system\nBe brief.\n\n"
	"# user\nWrite {{n}} questions.\n<chunk>{{ chunk.text }}</chunk>\n";

/* The shipped judge prompt names the languages of the question and the passage. */
static void test_judge_languages(void)
{
	struct prompt p;
	struct strbuf sys = STRBUF_INIT, user = STRBUF_INIT;
	struct judge_item de = { .qid = "q-0001", .question = "Wann wurde der Eiffelturm gebaut?",
				 .chunk = "c-1", .text = "Der Eiffelturm wurde zwischen 1887 und 1889 gebaut." };
	struct judge_item cross = de;
	struct judge_item digits = { .qid = "q-0002", .question = "1887?", .chunk = "c-2", .text = "1889" };

	if (judge_prompt_load(&p, "prompts/judge.md")) {
		ok(0, "prompts/judge.md loads");
		return;
	}
	ok(!strcmp(p.version, "2"), "the judge prompt's version moved with the languages: %s", p.version);
	is_int(judge_render(&p, &de, &sys, &user), 0, "a German pair renders");
	ok(strstr(user.buf, "The question is in German; the passage is in German.") != NULL,
	   "detected languages are named: %s", user.buf);
	ok(strstr(sys.buf, "judge the\n  meaning, never the language") != NULL, "the rules say how to judge across languages");
	cross.question = "When was the Eiffel Tower built?";
	cross.question_language = "en";
	cross.chunk_language = "de";
	strbuf_reset(&sys);
	strbuf_reset(&user);
	judge_render(&p, &cross, &sys, &user);
	ok(strstr(user.buf, "The question is in English; the passage is in German.") != NULL,
	   "recorded languages are named (a cross-lingual pair): %s", user.buf);
	strbuf_reset(&sys);
	strbuf_reset(&user);
	judge_render(&p, &digits, &sys, &user);
	ok(strstr(user.buf, "The question is in the language of the text;") != NULL,
	   "text without letters names no language: %s", user.buf);
	prompt_release(&p);
	strbuf_release(&sys);
	strbuf_release(&user);
}

int main(void)
{
	struct prompt p;
	struct strbuf out = STRBUF_INIT;
	static const char *const allowed[] = { "n", "chunk.text", NULL };
	static const char *const fewer[] = { "n", NULL };
	struct prompt_var vars[] = { { "n", "3" }, { "chunk.text", "Keys rotate {{n}} daily." } };
	char digest[72];

	test_capture_errors();
	is_int(prompt_parse(&p, good, strlen(good), "p.md"), 0, "valid prompt parses");
	is_str(p.name, "gen-test", "name");
	is_str(p.version, "2", "version");
	is_str(p.system, "Be brief.", "system section, trimmed");
	is_int(prompt_check_vars(&p, allowed), 0, "known variables accepted");
	is_int(prompt_check_vars(&p, fewer), -1, "unknown variable refused");
	ok(strstr(test_captured(), "chunk.text") != NULL, "error names the variable");
	is_int(prompt_render(p.user, vars, 2, &out), 0, "render");
	is_str(out.buf, "Write 3 questions.\n<chunk>Keys rotate {{n}} daily.</chunk>",
	       "variables replaced once; values are not re-expanded");
	memcpy(digest, p.digest, sizeof(digest));
	{
		char *id = prompt_id(&p);
		ok(starts_with(id, "gen-test@sha256:"), "id is name@digest: %s", id);
		free(id);
	}
	prompt_release(&p);
	{
		char *edited = xstrdup(good);
		edited[strlen(edited) - 2] = '!';
		prompt_parse(&p, edited, strlen(edited), "p.md");
		ok(strcmp(p.digest, digest) != 0, "any edit changes the digest");
		prompt_release(&p);
		free(edited);
	}
	is_int(prompt_parse(&p, "# user\nhi\n", 10, "bare.md"), -1, "front matter required");
	is_int(prompt_parse(&p, "---\nname: x\n---\n# user\nhi\n", 26, "nov.md"), -1, "version required");
	is_int(prompt_parse(&p, "---\nname: x\nversion: 1\n---\nhi\n", 29, "nouser.md"), -1, "user section required");
	ok(strstr(test_captured(), "nouser.md") != NULL, "error names the file");
	strbuf_release(&out);
	test_judge_languages();
	return test_done();
}
