/*
 * prompt: prompt templates from prompts/, with a name, a version and a digest.
 *
 * A template file is UTF-8 text:
 *
 *     ---
 *     name: generate-factoid
 *     version: 1
 *     ---
 *     # system
 *     You write questions ...
 *     # user
 *     Write {{n}} questions about this passage ...
 *     <chunk>{{chunk.text}}</chunk>
 *
 * The front matter (between the two "---" lines) needs 'name' and 'version'.
 * A line "# system" starts the system message and "# user" the user message
 * (text before either is ignored; a missing "# system" means none). Variables
 * are written {{name}} with optional spaces inside the braces; the names a
 * template may use are fixed by its caller (prompt_check_vars), so a typo is
 * an error at load time rather than a silently empty prompt.
 *
 * The digest is SHA-256 of the whole file, so any edit (wording, version,
 * whitespace) gives a new digest, and with it new journal keys.
 *
 * Ownership: a struct prompt owns its strings; prompt_release frees them.
 */
#ifndef EVALSET_PROMPT_H
#define EVALSET_PROMPT_H

#include <stddef.h>

#include "base/strbuf.h"

#define PROMPT_MAX_BYTES (1u << 20)

struct prompt {
	char *file;
	char *name;
	char *version;
	char *system;    /* may be "" */
	char *user;
	char digest[72]; /* "sha256:..." of the file */
};
#define PROMPT_INIT { NULL, NULL, NULL, NULL, NULL, { 0 } }

struct prompt_var {
	const char *name;
	const char *value;  /* NULL renders as "" */
};

/* Load 'path' into 'p'. Return 0, or -1 after an error naming FILE:LINE. */
int prompt_load(struct prompt *p, const char *path);
/* Parse 'len' bytes of 'text' as if read from 'name'. Return 0 or -1. */
int prompt_parse(struct prompt *p, const char *text, size_t len, const char *name);
void prompt_release(struct prompt *p);

/* Check every {{var}} of 'p' is in the NULL-terminated 'allowed'. Return 0 or -1 (reported). */
int prompt_check_vars(const struct prompt *p, const char *const *allowed);

/*
 * Append 'tmpl' with every {{var}} replaced from 'vars' (an array of 'nr'
 * pairs) to 'out'. Return 0, or -1 (reported) for a variable not in 'vars'.
 */
int prompt_render(const char *tmpl, const struct prompt_var *vars, size_t nr, struct strbuf *out);

/* Return "name@sha256:..." for provenance; caller frees. */
char *prompt_id(const struct prompt *p);

/*
 * Return the prompt directory to use (caller frees): 'given' (--prompt-dir)
 * when not NULL; else $EVALSET_PROMPT_DIR when set; else the first of these
 * that holds the template 'probe' (a file name such as "judge.md"):
 * ./prompts, <binary dir>/../share/evalset/prompts (an installed or staged
 * tree), <binary dir>/prompts (a build directory, where the build copies
 * prompts/); else the install data directory compiled in
 * (<prefix>/share/evalset/prompts). The binary's directory is known on
 * Linux; elsewhere the last step applies.
 */
char *prompt_default_dir(const char *given, const char *probe);

#endif
