/*
 * logread: the byte stream (read, hash, inflate), the lines of JSON Lines
 * (parsed by core/logs/logjson.c) and the CSV/TSV record reader behind
 * log_reader_next().
 *
 * The stream hashes the bytes as stored before anything else looks at them,
 * so the digest covers the whole file even when records are skipped. Gzip is
 * recognised by its magic bytes; concatenated members are read in turn.
 */
#include "logs/logread.h"
#include "logs/logjson.h"

#include "base/digest.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define RAW_BLOCK (1u << 20)

struct log_stream {
	int fd;
	bool gzip, z_live, raw_eof, failed;
	z_stream z;
	struct sha256_ctx *sha;
	char digest[72];
	unsigned char *raw;
	size_t raw_len;
	char *buf;          /* decoded bytes [pos, end) */
	size_t pos, end, cap;
	long long base;     /* offset of buf[0] in the decoded stream */
	long long offset;   /* bytes read from fd so far, counted from its start */
	long long limit;    /* read no byte at or past this offset; -1: no limit */
};

int log_format_parse(const char *s, enum log_format *out)
{
	if (!strcmp(s, "jsonl") || !strcmp(s, "json") || !strcmp(s, "ndjson"))
		*out = LOG_FORMAT_JSONL;
	else if (!strcmp(s, "csv"))
		*out = LOG_FORMAT_CSV;
	else if (!strcmp(s, "tsv"))
		*out = LOG_FORMAT_TSV;
	else
		return -1;
	return 0;
}

const char *log_format_name(enum log_format f)
{
	switch (f) {
	case LOG_FORMAT_JSONL: return "jsonl";
	case LOG_FORMAT_CSV: return "csv";
	case LOG_FORMAT_TSV: return "tsv";
	default: return "auto";
	}
}

void log_values_release(struct log_values *vals)
{
	free(vals->v);
	vals->v = NULL;
	vals->nr = vals->alloc = 0;
}

void log_values_push(struct log_values *out, const char *s, size_t len)
{
	ALLOC_GROW(out->v, out->nr + 1, out->alloc);
	out->v[out->nr].s = s;
	out->v[out->nr].len = len;
	out->nr++;
}

/* ---- the byte stream ---- */

/* Read the next block of the file into st->raw, hashing it. Return bytes read, 0 at EOF, -1. */
static ssize_t read_block(struct log_stream *st, const char *path, void *dst)
{
	size_t want = RAW_BLOCK;
	ssize_t n;

	if (st->limit >= 0 && st->limit - st->offset < (long long)want)
		want = st->limit > st->offset ? (size_t)(st->limit - st->offset) : 0;
	do
		n = want ? read(st->fd, dst, want) : 0;
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		st->failed = true;
		return error("cannot read '%s': %s", path, strerror(errno));
	}
	if (n == 0)
		st->raw_eof = true;
	else if (st->sha)
		sha256_update(st->sha, dst, (size_t)n);
	st->offset += n;
	return n;
}

static ssize_t raw_read(struct log_stream *st, const char *path)
{
	ssize_t n = read_block(st, path, st->raw);

	st->raw_len = n > 0 ? (size_t)n : 0;
	return n;
}

/* Append more decoded bytes after st->end, first moving [pos, end) to the
 * front. Return the number of bytes added, 0 at end of input, -1 on error. */
static ssize_t stream_fill(struct log_stream *st, const char *path)
{
	if (st->pos) {
		memmove(st->buf, st->buf + st->pos, st->end - st->pos);
		st->end -= st->pos;
		st->base += (long long)st->pos;
		st->pos = 0;
	}
	if (st->cap - st->end < RAW_BLOCK) {
		st->cap = st->end + 2 * (size_t)RAW_BLOCK;
		st->buf = xrealloc(st->buf, st->cap + 1);
	}
	if (!st->gzip) {
		ssize_t n = 0;

		if (st->raw_len) {
			/* the block read when the file was opened */
			n = (ssize_t)st->raw_len;
			memcpy(st->buf + st->end, st->raw, st->raw_len);
			st->raw_len = 0;
		} else if (!st->raw_eof) {
			/* straight into the buffer: plain files are not copied twice */
			n = read_block(st, path, st->buf + st->end);
			if (n < 0)
				return -1;
		}
		st->end += (size_t)n;
		return n;
	}
	for (;;) {
		size_t before = st->end;
		int rc;

		if (st->z.avail_in == 0) {
			if (st->raw_eof && st->z_live) {
				st->failed = true;
				return error("cannot decompress '%s': truncated gzip data", path);
			}
			if (st->raw_eof)
				return 0;
			if (raw_read(st, path) < 0)
				return -1;
			if (st->raw_len == 0)
				continue;
			st->z.next_in = st->raw;
			st->z.avail_in = (uInt)st->raw_len;
		}
		if (!st->z_live) {
			/* a further gzip member */
			if (inflateReset(&st->z) != Z_OK)
				goto bad;
			st->z_live = true;
		}
		st->z.next_out = (Bytef *)st->buf + st->end;
		st->z.avail_out = (uInt)(st->cap - st->end);
		rc = inflate(&st->z, Z_NO_FLUSH);
		st->end = st->cap - st->z.avail_out;
		if (rc == Z_STREAM_END)
			st->z_live = false;
		else if (rc != Z_OK && rc != Z_BUF_ERROR)
			goto bad;
		if (st->end > before)
			return (ssize_t)(st->end - before);
	}
bad:
	st->failed = true;
	return error("cannot decompress '%s': %s", path, st->z.msg ? st->z.msg : "corrupt gzip data");
}

/* Read one line of the stream into '*line'. Return 1, 0 at EOF, -2 too long, -1. */
static int next_line(struct log_reader *r, char **line, size_t *len)
{
	struct log_stream *st = r->st;
	size_t scanned = st->pos;
	bool too_long = false;

	for (;;) {
		char *nl = memchr(st->buf + scanned, '\n', st->end - scanned);
		ssize_t got;

		if (nl) {
			size_t end = (size_t)(nl - st->buf);
			*line = st->buf + st->pos;
			*len = end - st->pos;
			st->pos = end + 1;
			if (too_long)
				return -2;
			if (*len && (*line)[*len - 1] == '\r')
				(*len)--;
			return 1;
		}
		if (st->end - st->pos > LOG_MAX_RECORD) {
			too_long = true;
			st->pos = st->end;  /* drop what we have of the long line */
		}
		scanned = st->end - st->pos;
		got = stream_fill(st, r->path);
		scanned += st->pos;  /* pos is 0 after fill */
		if (got < 0)
			return -1;
		if (got == 0) {
			if (st->pos == st->end && !too_long)
				return 0;
			*line = st->buf + st->pos;
			*len = st->end - st->pos;
			st->pos = st->end;
			if (too_long)
				return -2;
			if (*len && (*line)[*len - 1] == '\r')
				(*len)--;
			return 1;
		}
	}
}

/* ---- CSV / TSV ---- */

/* Return the next byte of the stream, -1 at EOF, -2 on error. */
static int next_byte(struct log_reader *r)
{
	struct log_stream *st = r->st;
	if (st->pos == st->end) {
		ssize_t got = stream_fill(st, r->path);
		if (got < 0)
			return -2;
		if (got == 0)
			return -1;
	}
	return (unsigned char)st->buf[st->pos++];
}

static int peek_byte(struct log_reader *r)
{
	int c = next_byte(r);
	if (c >= 0)
		r->st->pos--;
	return c;
}

/* Read one CSV/TSV record into r->cells. Return 1, 0 at EOF, -2 malformed, -1. */
static int csv_record(struct log_reader *r, long *line)
{
	int delim = r->format == LOG_FORMAT_TSV ? '\t' : ',';
	size_t *offs = NULL, nr = 0, alloc = 0, start = 0;
	bool quoted = false, in_quotes = false, any = false, too_long = false;
	int c, ret = 1;

	strbuf_reset(&r->rec);
	r->lineno = *line;
	r->offset = r->st->base + (long long)r->st->pos;
	for (;;) {
		c = next_byte(r);
		if (c == -2) {
			ret = -1;
			goto out;
		}
		if (c == -1) {
			if (in_quotes) {
				r->why = "unterminated quoted field";
				ret = -2;
				goto out;
			}
			if (!any && !nr) {
				ret = 0;
				goto out;
			}
			break;
		}
		any = true;
		if (in_quotes) {
			if (c == '"') {
				if (peek_byte(r) == '"') {
					next_byte(r);
				} else {
					in_quotes = false;
					continue;
				}
			} else if (c == '\n') {
				(*line)++;
			}
		} else if (c == '"' && r->rec.len == start && !quoted) {
			quoted = in_quotes = true;
			continue;
		} else if (c == delim) {
			ALLOC_GROW(offs, nr + 2, alloc);
			offs[nr++] = start;
			offs[nr++] = r->rec.len;
			start = r->rec.len;
			quoted = false;
			continue;
		} else if (c == '\n' || (c == '\r' && peek_byte(r) == '\n')) {
			if (c == '\r')
				next_byte(r);
			(*line)++;
			if (!nr && r->rec.len == start && !quoted) {
				/* a blank line */
				any = false;
				r->lineno = *line;
				r->offset = r->st->base + (long long)r->st->pos;
				continue;
			}
			break;
		}
		if (r->rec.len >= LOG_MAX_RECORD) {
			too_long = true;
			continue;
		}
		strbuf_addch(&r->rec, c);
	}
	ALLOC_GROW(offs, nr + 2, alloc);
	offs[nr++] = start;
	offs[nr++] = r->rec.len;
	if (too_long) {
		r->why = "record longer than 1 MiB";
		ret = -2;
		goto out;
	}
	r->nr_cells = 0;
	for (size_t k = 0; k < nr; k += 2) {
		ALLOC_GROW(r->cells, r->nr_cells + 1, r->alloc_cells);
		r->cells[r->nr_cells].s = r->rec.buf + offs[k];
		r->cells[r->nr_cells].len = offs[k + 1] - offs[k];
		r->nr_cells++;
	}
out:
	free(offs);
	return ret;
}

/* ---- the reader ---- */

int log_reader_open(struct log_reader *r, const char *path, enum log_format fmt)
{
	struct log_stream *st = xcalloc(1, sizeof(*st));
	char *base;

	memset(r, 0, sizeof(*r));
	r->path = path;
	r->rec = (struct strbuf)STRBUF_INIT;
	r->st = st;
	st->fd = -1;
	st->limit = -1;
	st->sha = sha256_new();
	st->raw = xmalloc(RAW_BLOCK);
	if (!strcmp(path, "-")) {
		st->fd = 0;
	} else {
		st->fd = open_regular(path);
		if (st->fd < 0)
			goto fail;
	}
	if (raw_read(st, path) < 0)
		goto fail;
	if (st->raw_len >= 2 && st->raw[0] == 0x1f && st->raw[1] == 0x8b) {
		st->gzip = st->z_live = true;
		if (inflateInit2(&st->z, 15 + 16) != Z_OK) {
			error("cannot decompress '%s'", path);
			goto fail;
		}
		st->z.next_in = st->raw;
		st->z.avail_in = (uInt)st->raw_len;
	}
	if (stream_fill(st, path) < 0)
		goto fail;
	/* a UTF-8 byte order mark is not content */
	if (st->end - st->pos >= 3 && !memcmp(st->buf + st->pos, "\xEF\xBB\xBF", 3))
		st->pos += 3;

	if (fmt == LOG_FORMAT_AUTO) {
		base = xstrdup(path);
		if (ends_with(base, ".gz"))
			base[strlen(base) - 3] = '\0';
		if (ends_with(base, ".jsonl") || ends_with(base, ".ndjson") || ends_with(base, ".json"))
			fmt = LOG_FORMAT_JSONL;
		else if (ends_with(base, ".csv"))
			fmt = LOG_FORMAT_CSV;
		else if (ends_with(base, ".tsv"))
			fmt = LOG_FORMAT_TSV;
		free(base);
	}
	if (fmt == LOG_FORMAT_AUTO) {
		size_t k = st->pos;
		while (k < st->end && (st->buf[k] == ' ' || st->buf[k] == '\n' || st->buf[k] == '\r'))
			k++;
		const char *nl = memchr(st->buf + k, '\n', st->end - k);
		size_t first = nl ? (size_t)(nl - st->buf) : st->end;
		if (k < st->end && st->buf[k] == '{')
			fmt = LOG_FORMAT_JSONL;
		else if (memchr(st->buf + k, '\t', first - k))
			fmt = LOG_FORMAT_TSV;
		else
			fmt = LOG_FORMAT_CSV;
	}
	r->format = fmt;
	r->lineno = 1;
	if (fmt != LOG_FORMAT_JSONL) {
		long line = 1;
		int rc = csv_record(r, &line);
		if (rc <= 0) {
			if (rc != -1)
				error_at(path, 1, 0, "cannot read the header row%s%s", rc == -2 ? ": " : "",
					 rc == -2 ? r->why : " (empty file)");
			goto fail;
		}
		r->header = xcalloc(r->nr_cells, sizeof(char *));
		r->nr_header = r->nr_cells;
		for (size_t k = 0; k < r->nr_cells; k++)
			r->header[k] = xstrndup(r->cells[k].s, r->cells[k].len);
		r->next_line = line;
	} else {
		r->next_line = 1;
	}
	return 0;
fail:
	log_reader_close(r);
	return -1;
}

int log_reader_next(struct log_reader *r)
{
	int rc;

	if (r->format != LOG_FORMAT_JSONL) {
		rc = csv_record(r, &r->next_line);
		if (rc == 1 && r->nr_cells != r->nr_header) {
			r->why = r->nr_cells < r->nr_header ? "row has fewer fields than the header"
							    : "row has more fields than the header";
			rc = -2;
		}
		return rc;
	}
	for (;;) {
		char *line;
		size_t len;

		r->lineno = r->next_line;
		r->offset = r->st->base + (long long)r->st->pos;
		rc = next_line(r, &line, &len);
		if (rc == 0 || rc == -1)
			return rc;
		r->next_line++;
		if (rc == -2) {
			r->why = "line longer than 1 MiB";
			return -2;
		}
		rc = log_json_parse(r, line, len);
		if (rc == 1)
			continue;  /* blank lines are not records */
		return rc == 0 ? 1 : -2;
	}
}

long long log_reader_split(struct log_reader *r, long long min_size, int percent)
{
	struct log_stream *st = r->st;
	struct stat sb;
	char probe[4096];
	long long at;

	if (r->format != LOG_FORMAT_JSONL || st->gzip || st->fd <= 0 || st->limit >= 0 ||
	    fstat(st->fd, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_size < min_size)
		return -1;
	/* the first newline at or after that point; the reader must not be past it */
	for (at = sb.st_size / 100 * percent; at < sb.st_size;) {
		ssize_t n = pread(st->fd, probe, sizeof(probe), (off_t)at);
		char *nl;
		if (n <= 0)
			return -1;
		if ((nl = memchr(probe, '\n', (size_t)n))) {
			at += (long long)(nl - probe) + 1;
			break;
		}
		at += n;
	}
	if (at >= sb.st_size || at <= st->base + (long long)st->pos)
		return -1;
	if (at < st->offset) {
		/* already read: the buffer holds the file's bytes as stored */
		st->end = (size_t)(at - st->base);
		st->raw_len = 0;
	}
	st->limit = at;
	if (st->sha) {
		/* the caller digests the file itself (the halves are read at once) */
		char sink[72];
		sha256_final(st->sha, sink);
		st->sha = NULL;
		st->digest[0] = '\0';
	}
	return at;
}

int log_reader_open_range(struct log_reader *r, const char *path, long long start)
{
	struct log_stream *st = xcalloc(1, sizeof(*st));

	memset(r, 0, sizeof(*r));
	r->path = path;
	r->rec = (struct strbuf)STRBUF_INIT;
	r->st = st;
	r->format = LOG_FORMAT_JSONL;
	r->lineno = r->next_line = 1;
	st->limit = -1;
	st->base = st->offset = start;
	st->raw = xmalloc(RAW_BLOCK);
	st->fd = open_regular(path);
	if (st->fd < 0 || lseek(st->fd, (off_t)start, SEEK_SET) < 0) {
		if (st->fd >= 0)
			error("cannot open log '%s': %s", path, strerror(errno));
		log_reader_close(r);
		return -1;
	}
	if (stream_fill(st, path) < 0) {
		log_reader_close(r);
		return -1;
	}
	return 0;
}

void log_path_init(struct log_path *p, const struct log_reader *r, const char *text)
{
	const char *s = text, *dot;

	memset(p, 0, sizeof(*p));
	p->text = xstrdup(text);
	p->column = -1;
	if (r->format != LOG_FORMAT_JSONL) {
		for (size_t k = 0; k < r->nr_header; k++)
			if (!strcmp(r->header[k], text)) {
				p->column = (long)k;
				break;
			}
		return;
	}
	for (;;) {
		dot = strchr(s, '.');
		p->parts = xreallocarray(p->parts, p->nr + 1, sizeof(char *));
		p->lens = xreallocarray(p->lens, p->nr + 1, sizeof(size_t));
		p->lens[p->nr] = dot ? (size_t)(dot - s) : strlen(s);
		p->parts[p->nr++] = dot ? xstrndup(s, (size_t)(dot - s)) : xstrdup(s);
		if (!dot)
			break;
		s = dot + 1;
	}
}

void log_path_release(struct log_path *p)
{
	for (size_t k = 0; k < p->nr; k++)
		free(p->parts[k]);
	free(p->parts);
	free(p->lens);
	free(p->text);
	memset(p, 0, sizeof(*p));
	p->column = -1;
}

size_t log_reader_get(struct log_reader *r, const struct log_path *p, struct log_values *out)
{
	size_t before = out->nr;

	if (r->format != LOG_FORMAT_JSONL) {
		if (p->column >= 0 && (size_t)p->column < r->nr_cells)
			log_values_push(out, r->cells[p->column].s, r->cells[p->column].len);
		return out->nr - before;
	}
	log_json_get(r, p, out);
	return out->nr - before;
}

void log_items_release(struct log_items *it)
{
	free(it->node);
	memset(it, 0, sizeof(*it));
}

size_t log_reader_items(struct log_reader *r, const struct log_path *p, struct log_items *out)
{
	size_t before = out->nr;

	if (r->format == LOG_FORMAT_JSONL)
		log_json_items(r, p, out);
	return out->nr - before;
}

size_t log_reader_get_in(struct log_reader *r, long item, const struct log_path *p,
			 struct log_values *out)
{
	size_t before = out->nr;

	if (r->format == LOG_FORMAT_JSONL)
		log_json_get_in(r, item, p, out);
	return out->nr - before;
}

void log_reader_digest(struct log_reader *r, char out[72])
{
	struct log_stream *st = r->st;

	if (st->sha) {
		/* hash whatever the reader did not need to read */
		while (!st->failed && raw_read(st, r->path) > 0)
			;
		sha256_final(st->sha, st->digest);
		st->sha = NULL;
	}
	memcpy(out, st->digest, 72);
}

bool log_reader_gzip(const struct log_reader *r)
{
	return r->st && r->st->gzip;
}

void log_reader_close(struct log_reader *r)
{
	struct log_stream *st = r->st;

	if (st) {
		if (st->sha) {
			char sink[72];
			sha256_final(st->sha, sink);
		}
		if (st->gzip)
			inflateEnd(&st->z);
		if (st->fd > 0)
			close(st->fd);
		free(st->raw);
		free(st->buf);
		free(st);
	}
	strbuf_release(&r->rec);
	free(r->nodes);
	free(r->cells);
	for (size_t k = 0; k < r->nr_header; k++)
		free(r->header[k]);
	free(r->header);
	memset(r, 0, sizeof(*r));
}
