/* Unit tests for base/url: URLs taken apart and joined by libcurl's URL API. */
#include "test-lib.h"
#include "base/url.h"

#include <string.h>

static void join(const char *base, const char *path, const char *want, const char *what)
{
	struct strbuf sb = STRBUF_INIT;

	url_join(base, path, &sb);
	is_str(sb.buf, want, what);
	strbuf_release(&sb);
}

static void check(const char *url, int want, const char *why, const char *what)
{
	struct strbuf sb = STRBUF_INIT;

	is_int(url_check(url, &sb), want, what);
	if (why)
		ok(strstr(sb.buf, why) != NULL, "  saying '%s' (%s)", why, sb.buf);
	strbuf_release(&sb);
}

/* Where credentials may go: the origin of the base URL, nowhere else. */
static void test_same_origin(void)
{
	static const struct { const char *a, *b; bool same; } cases[] = {
		{ "https://api.anthropic.com/v1", "https://api.anthropic.com/v1/messages/batches/m/results", true },
		{ "https://api.anthropic.com/v1", "https://API.Anthropic.com:443/x", true },
		{ "http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/other", true },
		{ "http://127.0.0.1/v1", "http://127.0.0.1:80/x", true },
		{ "https://api.anthropic.com/v1", "http://api.anthropic.com/v1/x", false },
		{ "https://api.anthropic.com/v1", "https://api.anthropic.com:8443/v1/x", false },
		{ "https://api.anthropic.com/v1", "https://api.anthropic.com.evil.example/v1/x", false },
		{ "https://api.anthropic.com/v1", "https://evil.example/?h=api.anthropic.com", false },
		{ "https://api.anthropic.com/v1", "https://user@evil.example/api.anthropic.com", false },
		{ "http://127.0.0.1:8080/v1", "http://localhost:8080/v1", false },
		{ "http://127.0.0.1:8080/v1", "http://127.0.0.1:8081/v1", false },
		{ "http://127.0.0.1:8080/v1", "not a url", false },
		{ "http://127.0.0.1:8080/v1", "", false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ok(url_same_origin(cases[i].a, cases[i].b) == cases[i].same, "'%s' and '%s': %s", cases[i].a,
		   cases[i].b, cases[i].same ? "same origin" : "other origins");
}

int main(void)
{
	struct strbuf sb = STRBUF_INIT;

	join("https://x.openai.azure.com/openai/deployments/d?api-version=2024-10-21", "/chat/completions",
	     "https://x.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21",
	     "the path goes before the query");
	join("http://localhost:11434/v1/", "/chat/completions", "http://localhost:11434/v1/chat/completions",
	     "a trailing slash is dropped");
	join("http://host/v1#notes", "/chat/completions", "http://host/v1/chat/completions",
	     "a fragment is dropped, not taken for part of the path");
	join("http://host/v1?api-version=1#x?y=2", "/messages", "http://host/v1/messages?api-version=1",
	     "a '?' inside the fragment is no query");
	join("http://[::1]:8080/v1/", "/chat/completions", "http://[::1]:8080/v1/chat/completions",
	     "an IPv6 literal with its port");
	join("http://us%40er:p%23ss@host:8/v1", "/x", "http://us%40er:p%23ss@host:8/v1/x",
	     "encoded user info is kept as written");
	join("http://host", "/chat/completions", "http://host/chat/completions", "a base without a path");
	join("http://host/v1/?a=1", "", "http://host/v1?a=1", "the base itself, without its slash");
	join("not a url/v1/?q=1#f", "/x", "not a url/v1/x?q=1", "what cannot be parsed is joined as text");

	url_query("https://h/openai/deployments/d?api-version=2024#x", &sb);
	is_str(sb.buf, "?api-version=2024", "the query with its '?', no fragment");
	strbuf_reset(&sb);
	url_query("https://h/v1#a?b=1", &sb);
	is_str(sb.buf, "", "no query when the '?' is in the fragment");
	strbuf_release(&sb);

	check("https://api.openai.com/v1", 0, NULL, "an https URL passes");
	check("http://[::1]:8080/v1", 0, NULL, "an IPv6 literal passes");
	check("ftp://example.org/", -1, "http:// or https://", "another scheme is refused");
	check("http://", -1, NULL, "no host is refused");
	check("http://[::1", -1, NULL, "an unclosed IPv6 literal is refused");
	check("http://host:99999/v1", -1, NULL, "a port out of range is refused");

	ok(url_host_in("https://x.openai.azure.com/openai/deployments/d", "azure.com"), "a host under the domain");
	ok(url_host_in("https://AZURE.COM/", "azure.com"), "the domain itself, any case");
	ok(!url_host_in("https://notazure.com/", "azure.com"), "not a host that merely ends in its letters");
	ok(!url_host_in("http://localhost:8080/v1?x=.azure.com", "azure.com"), "not the domain in the query");
	ok(!url_host_in("http://proxy.example/x.azure.com/v1", "azure.com"), "nor in the path");
	test_same_origin();
	return test_done();
}
