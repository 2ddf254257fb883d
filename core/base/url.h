/*
 * url: URLs taken apart and put together by libcurl's URL API (curl_url),
 * never by hand, so that IPv6 literals ("http://[::1]:8080/v1"), encoded
 * user info and a '#' fragment are read as an HTTP client reads them.
 *
 * Joining keeps the base's query and drops its fragment (a fragment is
 * never sent): "https://h/openai/deployments/d?api-version=1" joined with
 * "/chat/completions" is "https://h/openai/deployments/d/chat/completions?
 * api-version=1". The path is kept as written (no dot segments resolved).
 *
 * Nothing here reports through error(): callers say what a bad URL is
 * (base/redact also reads URLs, and error() goes through it).
 */
#ifndef EVALSET_URL_H
#define EVALSET_URL_H

#include <stdbool.h>

#include "base/strbuf.h"

/*
 * Check that 'url' is an http:// or https:// URL with a host, as an
 * endpoint must be. Return 0, or -1 with the problem in 'why' (a phrase:
 * "expected http:// or https://", "no host", libcurl's "Port number was
 * not a decimal number between 0 and 65535").
 */
int url_check(const char *url, struct strbuf *why);
/*
 * Append to 'out' the URL of 'path' ("/chat/completions", "" for the base
 * itself) under 'base': the base's path without its trailing '/', then
 * 'path', then the base's query, no fragment. A base that cannot be parsed
 * (url_check refuses it first) is joined as text, before any '?'.
 */
void url_join(const char *base, const char *path, struct strbuf *out);
/* Append the query of 'url' to 'out' with its '?' ("" when there is none). */
void url_query(const char *url, struct strbuf *out);
/* Return true when the host of 'url' is 'domain' or ends in '.'+'domain'
 * ("azure.com": "x.openai.azure.com", not "notazure.com" nor a path). */
bool url_host_in(const char *url, const char *domain);
/*
 * Return true when 'a' and 'b' have the same origin: scheme, host (case
 * aside) and port (the scheme's default when none is written). A URL that
 * cannot be parsed has no origin: false. Credentials go only to the origin
 * of the configured base URL; a URL a reply names is checked with this
 * before a request to it carries them.
 */
bool url_same_origin(const char *a, const char *b);

#endif
