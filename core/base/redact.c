/*
 * redact: secrets out of messages and URLs (see redact.h).
 *
 * Invariant: every pass only ever replaces bytes by "***" (never adds
 * anything else), so scrubbing twice gives what scrubbing once gave.
 */
#include "base/redact.h"
#include "base/curl-lib.h"
#include "base/util.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern char **environ;

static char **secrets;
static size_t nr_secrets, alloc_secrets;

/* Replace the contents of 'sb' by those of 'out', and release 'out'. */
static void take_over(struct strbuf *sb, struct strbuf *out)
{
	strbuf_reset(sb);
	strbuf_add(sb, out->buf, out->len);
	strbuf_release(out);
}

/* Return 'name' lower-cased with '-', '_', '.' and blanks left out, in 'out'. */
static void squash(const char *name, size_t len, struct strbuf *out)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)name[i];
		if (isalnum(ch))
			strbuf_addch(out, (char)tolower(ch));
	}
}

static bool contains_token(const char *s)
{
	for (const char *p = s; (p = strstr(p, "token")); p += 5)
		if (p[5] != 's')
			return true;
	return false;
}

bool redact_secret_name(const char *name, size_t len)
{
	static const char *const parts[] = {
		"key", "secret", "passw", "pwd", "auth", "credential", "cookie", "session", "signature",
	};
	struct strbuf s = STRBUF_INIT;
	bool yes = false;

	squash(name, len, &s);
	if (s.len) {
		yes = !strcmp(s.buf, "sig") || contains_token(s.buf);
		for (size_t i = 0; !yes && i < ARRAY_SIZE(parts); i++)
			yes = strstr(s.buf, parts[i]) != NULL;
	}
	strbuf_release(&s);
	return yes;
}

void redact_add_secret(const char *value)
{
	if (!value || strlen(value) < 4)
		return;
	for (size_t i = 0; i < nr_secrets; i++)
		if (!strcmp(secrets[i], value))
			return;
	ALLOC_GROW(secrets, nr_secrets + 1, alloc_secrets);
	secrets[nr_secrets++] = xstrdup(value);
}

/*
 * True for an environment variable that holds a key: its name says key,
 * token, secret, password or credential (not session or auth, which name
 * sockets and files as often), and its value is not a path.
 */
static bool env_holds_secret(const char *name, size_t len, const char *value)
{
	static const char *const parts[] = { "key", "secret", "passw", "pwd", "credential" };
	struct strbuf s = STRBUF_INIT;
	bool yes;

	if (strlen(value) < REDACT_MIN_PIECE || strchr("/.~", value[0]) || strchr(value, ' '))
		return false;
	squash(name, len, &s);
	yes = contains_token(s.buf);
	for (size_t i = 0; !yes && i < ARRAY_SIZE(parts); i++)
		yes = strstr(s.buf, parts[i]) != NULL;
	strbuf_release(&s);
	return yes;
}

void redact_add_env_secrets(void)
{
	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		if (eq && env_holds_secret(*e, (size_t)(eq - *e), eq + 1))
			redact_add_secret(eq + 1);
	}
}

void redact_clear(void)
{
	for (size_t i = 0; i < nr_secrets; i++) {
		memset(secrets[i], 0, strlen(secrets[i]));
		free(secrets[i]);
	}
	free(secrets);
	secrets = NULL;
	nr_secrets = alloc_secrets = 0;
}

/* Return the length of the longest piece of 'secret' that starts at 'text' (case-insensitive). */
static size_t piece_at(const char *text, size_t left, const char *secret, size_t slen)
{
	size_t best = 0;
	unsigned char first = (unsigned char)tolower((unsigned char)text[0]);

	for (size_t j = 0; j < slen && slen - j > best; j++) {
		size_t m = 0;
		if (tolower((unsigned char)secret[j]) != first)
			continue;
		while (m < left && j + m < slen &&
		       tolower((unsigned char)text[m]) == tolower((unsigned char)secret[j + m]))
			m++;
		if (m > best)
			best = m;
	}
	return best;
}

static void scrub_values(struct strbuf *sb, const char *const *vals, size_t nr)
{
	struct strbuf out = STRBUF_INIT;
	size_t i = 0;

	while (i < sb->len) {
		size_t take = 0;
		for (size_t k = 0; k < nr; k++) {
			size_t slen = strlen(vals[k]);
			size_t need = slen < REDACT_MIN_PIECE ? slen : REDACT_MIN_PIECE;
			size_t m = piece_at(sb->buf + i, sb->len - i, vals[k], slen);
			if (m >= need && m > take)
				take = m;
		}
		if (take) {
			strbuf_addstr(&out, "***");
			i += take;
		} else {
			strbuf_addch(&out, sb->buf[i++]);
		}
	}
	take_over(sb, &out);
}

void redact_value(struct strbuf *sb, const char *secret)
{
	if (secret && strlen(secret) >= 4)
		scrub_values(sb, &secret, 1);
}

/* Return true when the parameter name 'name' of 'len' bytes, its percent
 * escapes decoded ("tok%65n" is "token"), looks secret, or is "code". */
static bool secret_param(const char *name, size_t len)
{
	int n = 0;
	char *d = len < INT_MAX ? curl_lib()->easy_unescape(NULL, name, (int)len, &n) : NULL;
	bool secret;

	if (!d)
		return redact_secret_name(name, len);
	secret = redact_secret_name(d, (size_t)n) || (n == 4 && !strncasecmp(d, "code", 4));
	curl_lib()->free(d);
	return secret;
}

/* Append the query or fragment 'q' of 'len' bytes with secret values as "***". */
static void redact_params(const char *q, size_t len, struct strbuf *out)
{
	size_t i = 0;

	while (i < len) {
		size_t n = i, eq;
		while (n < len && q[n] != '&' && q[n] != ';')
			n++;
		for (eq = i; eq < n && q[eq] != '='; eq++)
			;
		if (eq < n && secret_param(q + i, eq - i)) {
			strbuf_add(out, q + i, eq + 1 - i);
			strbuf_addstr(out, "***");
		} else {
			strbuf_add(out, q + i, n - i);
		}
		if (n < len)
			strbuf_addch(out, q[n]);
		i = n + 1;
	}
}

/* Return true when the 'len' bytes of 'url' are a URL libcurl's URL API
 * can read; it then knows where the authority ends (no '/', '?' or '#'
 * can stand in its user info). */
static bool url_parses(const char *url, size_t len)
{
	char *copy = xstrndup(url, len);
	CURLU *u = curl_lib()->url();
	bool ok = u && !curl_lib()->url_set(u, CURLUPART_URL, copy,
					     CURLU_NON_SUPPORT_SCHEME | CURLU_PATH_AS_IS);

	curl_lib()->url_cleanup(u);
	free(copy);
	return ok;
}

/*
 * Append the URL 'url' of 'len' bytes, redacted, to 'out'. Where libcurl
 * reads it, the user info is what stands before the last '@' of the
 * authority; where it cannot ("http://user:p#ss@host", a raw '/', '?' or
 * '#' in a password), nobody can tell where the password ends, and
 * everything up to the last '@' of the whole URL is taken for user info.
 */
static void redact_url_len(const char *url, size_t len, struct strbuf *out)
{
	const char *end = url + len;
	const char *scheme = NULL, *host, *auth_end, *at = NULL, *q;

	for (const char *p = url; p + 3 <= end; p++)
		if (!memcmp(p, "://", 3)) {
			scheme = p;
			break;
		}
	host = scheme ? scheme + 3 : url;
	if (scheme && !url_parses(url, len))
		auth_end = end;
	else
		for (auth_end = host; auth_end < end && !strchr("/?#", *auth_end); auth_end++)
			;
	for (const char *p = host; p < auth_end; p++)
		if (*p == '@')
			at = p;
	strbuf_add(out, url, (size_t)(host - url));
	if (at) {
		strbuf_addstr(out, "***@");
		host = at + 1;
	}
	for (q = host; q < end && *q != '?' && *q != '#'; q++)
		;
	strbuf_add(out, host, (size_t)(q - host));
	while (q < end) {
		const char *next = q + 1;
		while (next < end && *next != '#')
			next++;
		strbuf_addch(out, *q);
		redact_params(q + 1, (size_t)(next - q - 1), out);
		q = next;
	}
}

void redact_url(const char *url, struct strbuf *out)
{
	redact_url_len(url, strlen(url), out);
}

static bool url_char(unsigned char c)
{
	return c > ' ' && c < 0x7f && !strchr("\"'<>`()[]{}|\\^", c);
}

/* Return the length of the IPv6 literal ("[::1]", "[fe80::1%25eth0]") at
 * 'p' ('len' bytes left), or 0: brackets are URL characters only there. */
static size_t ipv6_literal(const char *p, size_t len)
{
	size_t n = 1;

	if (!len || *p != '[')
		return 0;
	while (n < len && n < 64 && (isalnum((unsigned char)p[n]) || (p[n] && strchr(":.%", p[n]))))
		n++;
	return n < len && p[n] == ']' && n > 1 ? n + 1 : 0;
}

/* Redact every "scheme://..." in 'sb'. */
static void scrub_urls(struct strbuf *sb)
{
	struct strbuf out = STRBUF_INIT;
	size_t i = 0, done = 0;

	while (i + 3 <= sb->len) {
		size_t start, end;
		if (memcmp(sb->buf + i, "://", 3)) {
			i++;
			continue;
		}
		start = i;
		while (start > done && (isalnum((unsigned char)sb->buf[start - 1]) ||
					strchr("+.-", sb->buf[start - 1])))
			start--;
		end = i + 3;
		for (;;) {
			size_t v6 = end == i + 3 || sb->buf[end - 1] == '@' ?
				ipv6_literal(sb->buf + end, sb->len - end) : 0;

			if (v6)
				end += v6;
			else if (end < sb->len && url_char((unsigned char)sb->buf[end]))
				end++;
			else
				break;
		}
		strbuf_add(&out, sb->buf + done, start - done);
		redact_url_len(sb->buf + start, end - start, &out);
		done = i = end;
	}
	strbuf_add(&out, sb->buf + done, sb->len - done);
	take_over(sb, &out);
}

static bool value_char(unsigned char c)
{
	return c > ' ' && !strchr("\"',;&", c);
}

/*
 * Scrub key-looking words: "sk-..." and what follows "Bearer ", and the
 * value of NAME=VALUE and --NAME VALUE (any length) and NAME: VALUE (8 bytes
 * or more) where NAME looks secret; NAME may be quoted, as in JSON.
 */
static void scrub_words(struct strbuf *sb)
{
	struct strbuf out = STRBUF_INIT;
	const char *s = sb->buf;
	size_t i = 0, len = sb->len;

	while (i < len) {
		bool word_start = i == 0 || !isalnum((unsigned char)s[i - 1]);
		size_t j, v;
		if (word_start && len - i > 3 && !strncmp(s + i, "sk-", 3)) {
			strbuf_addstr(&out, "sk-***");
			i += 3;
			while (i < len && (isalnum((unsigned char)s[i]) || strchr("-_*", s[i])))
				i++;
			continue;
		}
		if (word_start && len - i > 7 && !strncasecmp(s + i, "bearer ", 7) &&
		    value_char((unsigned char)s[i + 7]) && strncmp(s + i + 7, "***", 3)) {
			strbuf_add(&out, s + i, 7);
			strbuf_addstr(&out, "***");
			for (i += 7; i < len && value_char((unsigned char)s[i]); i++)
				;
			continue;
		}
		if (!word_start || !(isalpha((unsigned char)s[i]) || s[i] == '_')) {
			strbuf_addch(&out, s[i++]);
			continue;
		}
		for (j = i; j < len && (isalnum((unsigned char)s[j]) || strchr("-_.", s[j])); j++)
			;
		v = j;
		if (v < len && (s[v] == '"' || s[v] == '\''))
			v++;
		while (v < len && s[v] == ' ')
			v++;
		/* a command-line option "--token VALUE" as "--token=VALUE" */
		if (v == j + 1 && s[j] == ' ' && i >= 2 && s[i - 1] == '-' && s[i - 2] == '-' &&
		    v < len && s[v] != '-')
			v = j;
		if (v < len && (s[v] == '=' || s[v] == ':' || s[v] == ' ') && redact_secret_name(s + i, j - i)) {
			bool colon = s[v] == ':';
			size_t vs = v + 1, ve;
			while (vs < len && s[vs] == ' ')
				vs++;
			if (vs < len && (s[vs] == '"' || s[vs] == '\''))
				vs++;
			for (ve = vs; ve < len && value_char((unsigned char)s[ve]); ve++)
				;
			if (ve > vs && (!colon || ve - vs >= REDACT_MIN_PIECE) && strncmp(s + vs, "***", 3) &&
			    strncasecmp(s + vs, "bearer", 6)) {
				strbuf_add(&out, s + i, vs - i);
				strbuf_addstr(&out, "***");
				i = ve;
				continue;
			}
		}
		strbuf_add(&out, s + i, j - i);
		i = j;
	}
	take_over(sb, &out);
}

void redact_text(struct strbuf *sb)
{
	if (nr_secrets)
		scrub_values(sb, (const char *const *)secrets, nr_secrets);
	scrub_urls(sb);
	scrub_words(sb);
}
