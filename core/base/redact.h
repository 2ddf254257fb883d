/*
 * redact: keeping secrets out of what evalset prints and writes.
 *
 * Every message that goes through error(), warning() and note() is passed
 * through redact_text() first, so a secret that reaches a message by any
 * path (a server echoing the key, a URL with credentials, an error body) is
 * replaced by "***" before it is shown. What is scrubbed:
 *  - the values registered with redact_add_secret() (the API key, secret
 *    headers, the values of environment variables whose names look secret:
 *    redact_add_env_secrets()), matched case-insensitively and in pieces: any
 *    run of REDACT_MIN_PIECE or more characters of a secret (a server that
 *    upper-cases the key, or splits it, still gets it scrubbed);
 *  - in any URL ("scheme://...", IPv6 literals included): the
 *    user:password@ part and the values of query and fragment parameters
 *    whose names, percent escapes decoded, look secret, and of "code"
 *    (Azure Functions keys) (redact_url). A URL libcurl's URL API cannot
 *    read (a raw '#' or '/' in a password) has everything before its last
 *    '@' taken for user info;
 *  - words that look like keys: "sk-..." and what follows "Bearer ";
 *  - NAME=VALUE, --NAME VALUE and NAME: VALUE (8 bytes or more) where NAME
 *    looks secret ("api_key=...", "--token abc", "\"password\": \"...\"").
 *
 * A name looks secret (redact_secret_name) when, compared without case and
 * with '-' and '_' ignored, it contains key, token (not "tokens"), secret,
 * passw, pwd, auth, credential, cookie, session or signature, or is sig:
 * API_KEY, x-api-key, Authorization, GITHUB_TOKEN, client_secret, ...
 *
 * Ownership: registered secrets are copied and kept for the process's life
 * (redact_clear() forgets them, for tests).
 */
#ifndef EVALSET_REDACT_H
#define EVALSET_REDACT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"

#define REDACT_MIN_PIECE 8   /* shortest piece of a secret that is scrubbed */

/* Return true when the name 'name' of 'len' bytes looks like it holds a secret. */
bool redact_secret_name(const char *name, size_t len);

/* Register 'value' (copied) as a secret; NULL or shorter than 4 bytes: ignored. */
void redact_add_secret(const char *value);
/* Register the value of every environment variable whose name looks secret. */
void redact_add_env_secrets(void);
/* Forget every registered secret. */
void redact_clear(void);

/* Append 'url' to 'out' with its user:password@ and secret query values as "***". */
void redact_url(const char *url, struct strbuf *out);

/* Scrub 'sb' in place (see the header comment). */
void redact_text(struct strbuf *sb);

/* Scrub 'sb' in place of 'secret' alone (case-insensitive, in pieces). */
void redact_value(struct strbuf *sb, const char *secret);

#endif
