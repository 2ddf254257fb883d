/*
 * t-redact: secrets never shown: registered values in any case and in
 * pieces, credentials and secret parameters of URLs, key-looking words and
 * secret-named values; error() scrubs every message. Also the durations of
 * parse_duration_ms (the time limits of the LLM jobs).
 */
#include "test-lib.h"
#include "base/error.h"
#include "base/redact.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

static char *scrubbed(const char *in)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, in);
	redact_text(&sb);
	return strbuf_detach(&sb, NULL);
}

static void check(const char *in, const char *want, const char *what)
{
	char *got = scrubbed(in);

	is_str(got, want, what);
	free(got);
}

static void url(const char *in, const char *want, const char *what)
{
	struct strbuf sb = STRBUF_INIT;

	redact_url(in, &sb);
	is_str(sb.buf, want, what);
	strbuf_release(&sb);
}

static void test_names(void)
{
	const char *yes[] = { "API_KEY", "x-api-key", "Authorization", "GITHUB_TOKEN", "client_secret",
			      "MY_SECRET_THING", "password", "db-passwd", "apikey", "Cookie", "sig",
			      "access_token", "OPENAI_API_KEY", "X-Goog-Api-Key" };
	const char *no[] = { "max_tokens", "prompt_tokens", "model", "k", "index", "query", "PATH", "" };

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++)
		ok(redact_secret_name(yes[i], strlen(yes[i])), "'%s' looks secret", yes[i]);
	for (size_t i = 0; i < ARRAY_SIZE(no); i++)
		ok(!redact_secret_name(no[i], strlen(no[i])), "'%s' does not", no[i]);
}

static void test_urls(void)
{
	url("https://user:KEY123@host.example/v1?key=KEY123&model=m#x", "https://***@host.example/v1?key=***&model=m#x",
	    "user:password@ and ?key= scrubbed, other parameters kept");
	url("http://host/v1?api_key=a&x-api-key=b&access_token=c&limit=5", "http://host/v1?api_key=***&x-api-key=***&access_token=***&limit=5",
	    "secret query parameters by partial, case-insensitive name");
	url("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1", "a plain URL is unchanged");
	url("http://a@b@host/x", "http://***@host/x", "the last @ of the authority ends the user info");
	check("error: cannot reach 'https://me:hunter2@api.example.com/v1?token=abc&q=1': refused",
	      "error: cannot reach 'https://***@api.example.com/v1?token=***&q=1': refused",
	      "URLs inside a message are scrubbed");
	url("http://user:p#ss@host/v1?x=1", "http://***@host/v1?x=1",
	    "a raw '#' in the password: all before the last '@' is user info");
	url("http://user:p/ss@host/v1", "http://***@host/v1", "a raw '/' in the password too");
	url("http://host/users/@me?q=1", "http://host/users/@me?q=1", "an '@' in the path of a URL libcurl reads is no user info");
	url("http://host/v1?tok%65n=abc&api%5Fkey=x&limit=5", "http://host/v1?tok%65n=***&api%5Fkey=***&limit=5",
	    "parameter names are read with their escapes decoded");
	url("http://u:pw@[::1]:8080/v1#access_token=abc", "http://***@[::1]:8080/v1#access_token=***",
	    "an IPv6 literal, and secrets in the fragment");
	check("error: cannot reach 'http://[::1]:9/api?code=abc123': refused",
	      "error: cannot reach 'http://[::1]:9/api?code=***': refused",
	      "a URL with an IPv6 literal inside a message is scrubbed whole");
	check("see [http://h/x?token=abc123] there", "see [http://h/x?token=***] there",
	      "a bracket after a URL is not part of it");
}

static void test_words(void)
{
	check("Incorrect API key provided: sk-abc123DEF", "Incorrect API key provided: sk-***", "sk- words");
	check("header Authorization: Bearer eyJhbGciOi.x.y sent", "header Authorization: Bearer *** sent", "bearer tokens");
	check("{\"api_key\": \"abcdefgh12345678\"}", "{\"api_key\": \"***\"}", "JSON secret fields");
	check("retr --token abc --k 5 --password=pw", "retr --token *** --k 5 --password=***", "command-line secrets");
	check("DB_PASSWORD=pw ./retr", "DB_PASSWORD=*** ./retr", "NAME=VALUE");
	check("duplicate key: id", "duplicate key: id", "a short value after a colon is not a secret");
	check("max_tokens=1024 refused", "max_tokens=1024 refused", "token counts are not secrets");
}

static void test_values(void)
{
	const char *key = "sk-SENTINEL-0123456789abcdefXYZ", *got;

	redact_clear();
	redact_add_secret(key);
	check("echo: SK-SENTINEL-0123456789ABCDEFXYZ", "echo: ***", "the key upper-cased");
	check("part one 0123456789ab and part two cdefXYZ1", "part one *** and part two cdefXYZ1",
	      "a piece of 8 or more characters of the key");
	check("key split: SENTINEL-01 / 23456789abcdefXYZ", "key split: *** / ***", "both halves of a split key");
	check("short 0123 piece", "short 0123 piece", "pieces under 8 characters stay");
	redact_clear();
	check("echo: SK-SENTINEL-0123456789ABCDEFXYZ", "echo: SK-SENTINEL-0123456789ABCDEFXYZ",
	      "forgotten after redact_clear (no sk- word: upper case)");
	setenv("EVALSET_TEST_API_KEY", "zq9XK2mv7Lp4Rt8W", 1);
	setenv("EVALSET_TEST_SESSION", "/run/user/1000/bus", 1);
	redact_add_env_secrets();
	check("server said zq9xk2mv7lp4rt8w", "server said ***", "a key from the environment, any case");
	check("file /run/user/1000/bus", "file /run/user/1000/bus", "a path in a secret-named variable is not a key");
	redact_clear();

	redact_add_secret("pa55word-Very-Long");
	test_capture_errors();
	error("the server answered PA55WORD-VERY-LONG at https://u:p@h/x?secret=s");
	got = test_captured();
	ok(!strstr(got, "PA55") && strstr(got, "https://***@h/x?secret=***"),
	   "error() scrubs every message: %s", got);
	redact_clear();
}

static void test_durations(void)
{
	long ms = -1;

	ok(!parse_duration_ms("90", 86400000, &ms) && ms == 90000, "plain seconds");
	ok(!parse_duration_ms("1.5s", 86400000, &ms) && ms == 1500, "seconds with a unit");
	ok(!parse_duration_ms("250ms", 86400000, &ms) && ms == 250, "milliseconds");
	ok(!parse_duration_ms("30m", 86400000, &ms) && ms == 1800000, "minutes");
	ok(!parse_duration_ms("2h", 86400000, &ms) && ms == 7200000, "hours");
	ok(!parse_duration_ms("0", 86400000, &ms) && ms == 0, "zero");
	ok(parse_duration_ms("2d", 86400000, &ms) < 0, "an unknown unit is refused");
	ok(parse_duration_ms("-5s", 86400000, &ms) < 0, "a negative duration is refused");
	ok(parse_duration_ms("soon", 86400000, &ms) < 0, "words are refused");
	ok(parse_duration_ms("1e300", 86400000, &ms) < 0, "a huge number is refused, not converted");
	ok(parse_duration_ms("25h", 86400000, &ms) < 0, "past the maximum is refused");
	ok(parse_duration_ms("", 86400000, &ms) < 0, "empty is refused");
}

int main(void)
{
	test_names();
	test_urls();
	test_words();
	test_values();
	test_durations();
	return test_done();
}
