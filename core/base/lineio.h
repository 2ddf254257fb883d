/*
 * lineio: read a text file line by line, plain or gzip-compressed (detected
 * by content, not by name), with a line-length limit for untrusted input.
 * "-" reads standard input. Lines are returned without "\n" / "\r\n"; line
 * numbers start at 1.
 */
#ifndef EVALSET_LINEIO_H
#define EVALSET_LINEIO_H

#include <stddef.h>

#include "base/strbuf.h"

struct line_reader {
	void *gz;          /* gzFile */
	const char *path;  /* borrowed, for messages */
	long lineno;
	size_t limit;      /* longest line accepted, 0: none */
	char *buf;         /* read buffer */
	size_t pos, end, cap;
	int eof;
};

/* Open 'path' for reading lines no longer than 'limit' bytes (0: no limit).
 * Return 0, or -1 with an error naming the file. */
int line_reader_open(struct line_reader *lr, const char *path, size_t limit);
/*
 * Read the next line into 'line' (replacing its content). Return 1 on a line,
 * 0 at end of file, -1 on a read error (reported), -2 for a line over the
 * limit (reported as FILE:LINE; the rest of that line is skipped so the
 * caller may go on).
 */
int line_reader_next(struct line_reader *lr, struct strbuf *line);
void line_reader_close(struct line_reader *lr);

/* Return the number (from 1) of the line of 'buf' that holds byte 'off'. */
long line_number_at(const char *buf, size_t off);

/*
 * Decompression bombs: a gzip input that has given more than GZ_RATIO_FLOOR
 * bytes and more than GZ_MAX_RATIO times the compressed bytes read so far is
 * refused. Real runs, logs and qrels compress 3 to 30 times; a bomb
 * thousands of times. Every reader of gzip input (line_reader, the run
 * readers) checks after each block. Return 0, or -1 with an error naming
 * 'path'. 'gz' is a gzFile.
 */
#define GZ_MAX_RATIO 200
#define GZ_RATIO_FLOOR (64u << 20)
int gz_check_ratio(void *gz, const char *path);

#endif
