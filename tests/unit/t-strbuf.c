/*
 * t-strbuf: the string buffer, the hash map, the memory pool and the small
 * parsers of util.
 */
#include "test-lib.h"
#include "base/mempool.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "base/util.h"
#include "base/utf8.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_strbuf(void)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;
	size_t len;

	ok(sb.buf != NULL && sb.buf[0] == '\0', "a new strbuf is an empty string, never NULL");
	strbuf_addstr(&sb, "hello");
	strbuf_addch(&sb, ' ');
	strbuf_addf(&sb, "%d-%s", 42, "x");
	is_str(sb.buf, "hello 42-x", "add, addch and addf append");
	is_int(sb.len, 10, "len follows the content");
	for (int i = 0; i < 1000; i++)
		strbuf_addf(&sb, "%04d", i);
	is_int(sb.len, 4010, "addf grows the buffer as needed");
	ok(!memcmp(sb.buf + sb.len - 4, "0999", 4), "the last formatted chunk is intact");
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "  \t trimmed \r\n");
	strbuf_trim(&sb);
	is_str(sb.buf, "trimmed", "trim removes whitespace at both ends");
	s = strbuf_detach(&sb, &len);
	is_str(s, "trimmed", "detach hands over the content");
	ok(sb.buf[0] == '\0' && sb.len == 0, "detach leaves an empty strbuf");
	free(s);
	strbuf_release(&sb);
}

static void test_getline(void)
{
	struct strbuf sb = STRBUF_INIT;
	FILE *fp = tmpfile();

	fputs("one\r\ntwo\n0123456789abcdef\nlast", fp);
	rewind(fp);
	sb.limit = 10;
	is_int(strbuf_getline(&sb, fp), 0, "first line read");
	is_str(sb.buf, "one", "CRLF is stripped");
	strbuf_getline(&sb, fp);
	is_str(sb.buf, "two", "LF is stripped");
	is_int(strbuf_getline(&sb, fp), -2, "a line over the limit is reported");
	is_int(strbuf_getline(&sb, fp), 0, "reading goes on after an over-long line");
	is_str(sb.buf, "last", "a last line without newline is read");
	is_int(strbuf_getline(&sb, fp), EOF, "EOF at the end");
	fclose(fp);
	strbuf_release(&sb);
}

static void test_strmap(void)
{
	struct strmap m = STRMAP_INIT;
	char key[32];
	int ok_all = 1, added;

	for (uintptr_t i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "doc-%lu", (unsigned long)i);
		strmap_put(&m, key, (void *)(i + 1));
	}
	is_int(m.size, 5000, "5000 distinct keys stored");
	for (uintptr_t i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "doc-%lu", (unsigned long)i);
		if ((uintptr_t)strmap_get(&m, key) != i + 1)
			ok_all = 0;
	}
	ok(ok_all, "every key maps to its own value after rehashing");
	ok(strmap_get(&m, "doc-5000") == NULL, "an absent key gives NULL");
	ok(strmap_find(&m, "doc-12xyz", 6) != NULL, "find takes a length-delimited key");
	strmap_intern(&m, "doc-1", 5, &added);
	ok(!added, "interning a present key does not add it");
	strmap_clear(&m, 0);
	is_int(m.size, 0, "clear empties the map");
}

static void test_parsers(void)
{
	long l;
	double d;

	ok(parse_long("42", 0, 100, &l) == 0 && l == 42, "parse_long reads a number");
	ok(parse_long("42x", 0, 100, &l) < 0, "parse_long refuses trailing bytes");
	ok(parse_long("", 0, 100, &l) < 0, "parse_long refuses the empty string");
	ok(parse_long("101", 0, 100, &l) < 0, "parse_long refuses out of range");
	ok(parse_double("1e3", &d) == 0 && d == 1000.0, "parse_double reads exponents");
	ok(parse_double("nan", &d) < 0, "parse_double refuses NaN");
	ok(parse_double("inf", &d) < 0, "parse_double refuses infinity");
	ok(utf8_valid("caf\xc3\xa9", 5, NULL), "valid UTF-8 is accepted");
	ok(!utf8_valid("caf\xe9", 4, NULL), "a Latin-1 byte is refused");
	ok(!utf8_valid("\xc0\xaf", 2, NULL), "an overlong encoding is refused");
	ok(!utf8_valid("\xed\xa0\x80", 3, NULL), "a surrogate is refused");
}

/*
 * The pool: exact blocks (mempool_bump) at the alignment asked, each its own
 * bytes, kept while a pool grows past small chunks into its huge-page ones
 * and beside the size-class blocks of the same pool; strings copied with
 * their NUL; a large block apart; everything back at once.
 */
static void test_mempool(void)
{
	struct mempool p = MEMPOOL_INIT;
	enum { N = 400000 };
	char **strs = xcalloc(N, sizeof(*strs));
	void *classed[64];
	size_t misaligned = 0, wrong = 0, overlap = 0;
	char *prev = NULL, *big;
	size_t prev_len = 0;

	for (size_t i = 0; i < N; i++) {
		char text[32];
		int len = snprintf(text, sizeof(text), "c-%zu", i * 7919);

		strs[i] = mempool_strndup(&p, text, (size_t)len);
		if (i % 64 == 0) {
			/* a list of 8-byte-aligned records between the strings */
			double *d = mempool_bump(&p, 3 * sizeof(double), _Alignof(double));

			misaligned += ((uintptr_t)d % _Alignof(double)) != 0;
			d[0] = d[1] = d[2] = (double)i;
		}
		if (i < 64)
			classed[i] = mempool_alloc(&p, 40);
		/* a block carved after the one before it starts past its NUL
		 * (addresses compared as numbers: blocks of other chunks are
		 * other objects) */
		if (prev && (uintptr_t)strs[i] > (uintptr_t)prev &&
		    (uintptr_t)strs[i] < (uintptr_t)prev + prev_len + 1)
			overlap++;
		prev = strs[i];
		prev_len = (size_t)len;
	}
	ok(p.held > ((size_t)8 << 20), "the pool grew past its small chunks (%zu bytes)", p.held);
	for (size_t i = 0; i < N; i++) {
		char text[32];

		snprintf(text, sizeof(text), "c-%zu", i * 7919);
		wrong += strcmp(strs[i], text) != 0;
	}
	is_int(wrong, 0, "400,000 strings copied exactly, none overwritten by a later block");
	is_int(misaligned, 0, "every record at the alignment asked");
	is_int(overlap, 0, "no block starts inside the one before it");
	for (int i = 0; i < 64; i++)
		memset(classed[i], 0xab, 40);
	wrong = 0;
	for (size_t i = 0; i < 200; i++) {
		char text[32];

		snprintf(text, sizeof(text), "c-%zu", i * 7919);
		wrong += strcmp(strs[i], text) != 0;
	}
	is_int(wrong, 0, "size-class blocks of the same pool leave the exact ones alone");
	is_int(strlen(mempool_strndup(&p, "abc\0def", 7)), 3, "mempool_strndup copies the bytes asked and adds a NUL");
	is_str(mempool_strndup(&p, "abcdef", 3), "abc", "a prefix of a longer string");
	big = mempool_bump(&p, (size_t)3 << 20, 16);
	memset(big, 'x', (size_t)3 << 20);
	ok(((uintptr_t)big % 16) == 0 && strcmp(strs[N - 1], "c-3167592081") == 0,
	   "a block larger than a chunk stands apart");
	ok(mempool_bump(&p, 0, 1) != NULL, "an empty block is a valid pointer");
	mempool_clear(&p);
	ok(p.chunks == NULL && p.held == 0 && p.bump == NULL, "mempool_clear gives everything back");
	strs[0] = mempool_strndup(&p, "again", 5);
	is_str(strs[0], "again", "a cleared pool is used again");
	mempool_clear(&p);
	free(strs);
}

int main(void)
{
	test_strbuf();
	test_mempool();
	test_getline();
	test_strmap();
	test_parsers();
	return test_done();
}
