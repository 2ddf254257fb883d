/*
 * url: URLs through libcurl's URL API (see url.h).
 */
#include "base/url.h"
#include "base/curl-lib.h"

#include <string.h>
#include <strings.h>

#define URL_FLAGS (CURLU_NON_SUPPORT_SCHEME | CURLU_PATH_AS_IS)

/* Return 'url' parsed (free with curl_url_cleanup), or NULL. */
static CURLU *parse(const char *url, CURLUcode *rc)
{
	CURLU *u = curl_lib()->url();
	CURLUcode r = u ? curl_lib()->url_set(u, CURLUPART_URL, url, URL_FLAGS)
			: CURLUE_OUT_OF_MEMORY;

	if (rc)
		*rc = r;
	if (r) {
		curl_lib()->url_cleanup(u);
		return NULL;
	}
	return u;
}

/* Append part 'what' of 'u' to 'out' (nothing when it is absent). */
static bool add_part(CURLU *u, CURLUPart what, struct strbuf *out)
{
	char *s = NULL;

	if (curl_lib()->url_get(u, what, &s, 0) || !s)
		return false;
	strbuf_addstr(out, s);
	curl_lib()->free(s);
	return true;
}

int url_check(const char *url, struct strbuf *why)
{
	CURLUcode rc;
	CURLU *u = parse(url, &rc);
	struct strbuf sb = STRBUF_INIT;
	int ret = -1;

	if (!u) {
		strbuf_addstr(why, curl_lib()->url_strerror(rc));
		return -1;
	}
	if (!add_part(u, CURLUPART_SCHEME, &sb) || (strcmp(sb.buf, "http") && strcmp(sb.buf, "https"))) {
		strbuf_addstr(why, "expected http:// or https://");
		goto out;
	}
	strbuf_reset(&sb);
	if (!add_part(u, CURLUPART_HOST, &sb) || !sb.len) {
		strbuf_addstr(why, "no host");
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&sb);
	curl_lib()->url_cleanup(u);
	return ret;
}

void url_join(const char *base, const char *path, struct strbuf *out)
{
	CURLU *u = parse(base, NULL);
	struct strbuf sb = STRBUF_INIT;
	size_t start = out->len;

	if (!u) {
		size_t end = strcspn(base, "?#"), len = end;

		while (len && base[len - 1] == '/')
			len--;
		strbuf_add(out, base, len);
		strbuf_addstr(out, path);
		if (base[end] == '?')
			strbuf_add(out, base + end, strcspn(base + end, "#"));
		return;
	}
	add_part(u, CURLUPART_PATH, &sb);
	while (sb.len && sb.buf[sb.len - 1] == '/')
		strbuf_setlen(&sb, sb.len - 1);
	strbuf_addstr(&sb, path);
	curl_lib()->url_set(u, CURLUPART_PATH, sb.len ? sb.buf : "/", URL_FLAGS);
	curl_lib()->url_set(u, CURLUPART_FRAGMENT, NULL, 0);
	strbuf_reset(&sb);
	add_part(u, CURLUPART_QUERY, &sb);
	curl_lib()->url_set(u, CURLUPART_QUERY, NULL, 0);
	add_part(u, CURLUPART_URL, out);
	/* the base itself ("" joined): no '/' of its own after the host */
	if (!*path && out->len > start && out->buf[out->len - 1] == '/')
		strbuf_setlen(out, out->len - 1);
	if (sb.len) {
		strbuf_addch(out, '?');
		strbuf_add(out, sb.buf, sb.len);
	}
	strbuf_release(&sb);
	curl_lib()->url_cleanup(u);
}

/* Append part 'what' of 'url' to 'out'; return false when the URL cannot
 * be parsed or has no such part. */
static bool url_part(const char *url, CURLUPart what, struct strbuf *out)
{
	CURLU *u = parse(url, NULL);
	bool got = u && add_part(u, what, out);

	curl_lib()->url_cleanup(u);
	return got;
}

void url_query(const char *url, struct strbuf *out)
{
	struct strbuf sb = STRBUF_INIT;

	if (url_part(url, CURLUPART_QUERY, &sb) && sb.len) {
		strbuf_addch(out, '?');
		strbuf_add(out, sb.buf, sb.len);
	}
	strbuf_release(&sb);
}

bool url_host_in(const char *url, const char *domain)
{
	struct strbuf host = STRBUF_INIT;
	size_t n = strlen(domain);
	bool in = false;

	if (url_part(url, CURLUPART_HOST, &host) && host.len >= n)
		in = !strcasecmp(host.buf + host.len - n, domain) &&
		     (host.len == n || host.buf[host.len - n - 1] == '.');
	strbuf_release(&host);
	return in;
}

/* Append "scheme://host:port" of 'url' (the scheme's port when none is
 * written; scheme and host lower-cased) to 'out'; false when it has none. */
static bool origin_of(const char *url, struct strbuf *out)
{
	CURLU *u = parse(url, NULL);
	char *port = NULL;
	bool got = u && add_part(u, CURLUPART_SCHEME, out);

	strbuf_addstr(out, "://");
	got = got && add_part(u, CURLUPART_HOST, out) &&
	      !curl_lib()->url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) && port;
	if (got)
		strbuf_addf(out, ":%s", port);
	for (size_t i = 0; i < out->len; i++)
		if (out->buf[i] >= 'A' && out->buf[i] <= 'Z')
			out->buf[i] = (char)(out->buf[i] - 'A' + 'a');
	curl_lib()->free(port);
	curl_lib()->url_cleanup(u);
	return got;
}

bool url_same_origin(const char *a, const char *b)
{
	struct strbuf oa = STRBUF_INIT, ob = STRBUF_INIT;
	bool same = origin_of(a, &oa) && origin_of(b, &ob) && !strcmp(oa.buf, ob.buf);

	strbuf_release(&oa);
	strbuf_release(&ob);
	return same;
}
