/*
 * strbuf: the one growable byte buffer of evalset.
 *
 * Invariants: 'buf' is never NULL and always NUL-terminated at 'len' (an
 * empty strbuf points at a shared static ""), so 'buf' can be handed to any
 * string function. 'limit', when non-zero, caps 'len' for untrusted input:
 * the bounded readers refuse to grow past it instead of eating memory.
 * The strbuf owns 'buf'; strbuf_detach hands ownership to the caller.
 */
#ifndef EVALSET_STRBUF_H
#define EVALSET_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

extern char strbuf_empty[];

struct strbuf {
	size_t alloc;
	size_t len;
	size_t limit; /* 0: no limit */
	char *buf;
};

#define STRBUF_INIT { 0, 0, 0, strbuf_empty }

void strbuf_init(struct strbuf *sb, size_t hint);
/* Free the memory and leave 'sb' as after STRBUF_INIT (limit kept). */
void strbuf_release(struct strbuf *sb);
/* Return the buffer (caller frees) and reinitialise 'sb'. */
char *strbuf_detach(struct strbuf *sb, size_t *len);
/* Make room for 'extra' more bytes plus the NUL. */
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_setlen(struct strbuf *sb, size_t len);
#define strbuf_reset(sb) strbuf_setlen((sb), 0)

void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* Trim ASCII whitespace at both ends. */
void strbuf_trim(struct strbuf *sb);

/*
 * Read one line from 'fp' into 'sb' (replacing its content), without the
 * trailing "\n" or "\r\n". Return 0 on a line, EOF at end of file, and -2
 * when the line is longer than 'sb->limit' (the rest of the line is skipped,
 * so the caller can report it and go on).
 */
int strbuf_getline(struct strbuf *sb, FILE *fp);

/* Read the whole of 'fp'; return 0, or -2 past 'sb->limit', or -1 on a read error. */
int strbuf_read_fp(struct strbuf *sb, FILE *fp);

#endif
