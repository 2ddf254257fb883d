/*
 * utf8: decoding and character boundaries (see utf8.h).
 */
#include "base/utf8.h"

static bool is_cont(unsigned char c)
{
	return (c & 0xC0) == 0x80;
}

size_t utf8_decode(const char *str, size_t len, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	uint32_t c = s[0], min;
	size_t n;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF) {
		n = 2; c &= 0x1F; min = 0x80;
	} else if (c >= 0xE0 && c <= 0xEF) {
		n = 3; c &= 0x0F; min = 0x800;
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4; c &= 0x07; min = 0x10000;
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if (!is_cont(s[i]))
			return 0;
		c = (c << 6) | (s[i] & 0x3F);
	}
	if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return 0;
	*cp = c;
	return n;
}

size_t utf8_encode(uint32_t cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

bool utf8_valid(const char *buf, size_t len, size_t *bad_offset)
{
	size_t i = 0;

	while (i < len) {
		uint32_t cp;
		size_t n;

		if ((unsigned char)buf[i] < 0x80 && buf[i]) {
			i++;  /* the common case, without a call */
			continue;
		}
		n = utf8_decode(buf + i, len - i, &cp);
		if (!n || !cp) {
			if (bad_offset)
				*bad_offset = i;
			return false;
		}
		i += n;
	}
	return true;
}

size_t utf8_chars(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += !is_cont((unsigned char)s[i]);
	return n;
}

size_t utf8_prefix(const char *s, size_t len, size_t max_chars)
{
	size_t chars = 0;

	for (size_t i = 0; i < len; i++) {
		if (is_cont((unsigned char)s[i]))
			continue;
		if (chars++ == max_chars)
			return i;
	}
	return len;
}

size_t utf8_floor(const char *s, size_t off)
{
	while (off > 0 && is_cont((unsigned char)s[off]))
		off--;
	return off;
}

size_t utf8_ceil(const char *s, size_t len, size_t off)
{
	while (off < len && is_cont((unsigned char)s[off]))
		off++;
	return off;
}
