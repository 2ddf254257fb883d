/*
 * strbuf: growable, always NUL-terminated byte buffer (see strbuf.h).
 */
#include "base/strbuf.h"
#include "base/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

char strbuf_empty[1];

void strbuf_init(struct strbuf *sb, size_t hint)
{
	sb->alloc = sb->len = sb->limit = 0;
	sb->buf = strbuf_empty;
	if (hint)
		strbuf_grow(sb, hint);
}

void strbuf_release(struct strbuf *sb)
{
	size_t limit = sb->limit;

	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb, 0);
	sb->limit = limit;
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *res;

	strbuf_grow(sb, 0);
	res = sb->buf;
	if (len)
		*len = sb->len;
	sb->alloc = sb->len = 0;
	sb->buf = strbuf_empty;
	return res;
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	int new_buf = !sb->alloc;
	size_t need = sb->len + extra + 1;

	if (need < sb->len)
		xreallocarray(NULL, SIZE_MAX, 2); /* overflow: reported as OOM */
	if (new_buf)
		sb->buf = NULL;
	if (need > sb->alloc) {
		size_t n = sb->alloc ? sb->alloc : 32;
		while (n < need)
			n = n + n / 2 + 16;
		sb->buf = xrealloc(sb->buf, n);
		sb->alloc = n;
	}
	if (new_buf)
		sb->buf[0] = '\0';
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (!sb->alloc) {
		if (len == 0)
			return;
		strbuf_grow(sb, len);
	}
	sb->len = len;
	sb->buf[len] = '\0';
}

/* Whether 'sb' holds 'extra' more bytes and the NUL without growing (an
 * empty strbuf, 'alloc' 0, never does). */
static inline bool has_room(const struct strbuf *sb, size_t extra)
{
	return extra < sb->alloc - sb->len;
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	if (!len)
		return;
	if (!has_room(sb, len))
		strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, int c)
{
	if (!has_room(sb, 1))
		strbuf_grow(sb, 1);
	sb->buf[sb->len++] = (char)c;
	sb->buf[sb->len] = '\0';
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc ? sb->alloc - sb->len : 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	if (!sb->alloc || (size_t)n >= sb->alloc - sb->len) {
		strbuf_grow(sb, (size_t)n);
		n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	}
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_trim(struct strbuf *sb)
{
	size_t b = 0, e = sb->len;

	while (b < e && strchr(" \t\r\n\f\v", sb->buf[b]))
		b++;
	while (e > b && strchr(" \t\r\n\f\v", sb->buf[e - 1]))
		e--;
	if (b)
		memmove(sb->buf, sb->buf + b, e - b);
	strbuf_setlen(sb, e - b);
}

int strbuf_getline(struct strbuf *sb, FILE *fp)
{
	int c, too_long = 0;

	strbuf_reset(sb);
	c = getc_unlocked(fp);
	if (c == EOF)
		return EOF;
	while (c != EOF && c != '\n') {
		if (sb->limit && sb->len >= sb->limit)
			too_long = 1;
		else
			strbuf_addch(sb, c);
		c = getc_unlocked(fp);
	}
	if (too_long)
		return -2;
	if (sb->len && sb->buf[sb->len - 1] == '\r')
		strbuf_setlen(sb, sb->len - 1);
	return 0;
}

int strbuf_read_fp(struct strbuf *sb, FILE *fp)
{
	for (;;) {
		size_t n;

		strbuf_grow(sb, 65536);
		n = fread(sb->buf + sb->len, 1, sb->alloc - sb->len - 1, fp);
		sb->len += n;
		sb->buf[sb->len] = '\0';
		if (sb->limit && sb->len > sb->limit)
			return -2;
		if (n == 0)
			return ferror(fp) ? -1 : 0;
	}
}
