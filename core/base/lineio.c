/*
 * lineio: buffered line reading over zlib's gz* interface, which reads
 * uncompressed files transparently (see lineio.h).
 */
#include "base/lineio.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define LINEIO_BUF (1u << 18)

int line_reader_open(struct line_reader *lr, const char *path, size_t limit)
{
	memset(lr, 0, sizeof(*lr));
	lr->path = path;
	lr->limit = limit;
	if (!strcmp(path, "-"))
		lr->gz = gzdopen(dup(STDIN_FILENO), "rb");
	else {
		int fd = open_regular(path);

		if (fd < 0)
			return -1;
		if (!(lr->gz = gzdopen(fd, "rb")))
			close(fd);
	}
	if (!lr->gz)
		return error("cannot open '%s': %s", path, errno ? strerror(errno) : "out of memory");
	gzbuffer(lr->gz, LINEIO_BUF);
	lr->cap = LINEIO_BUF;
	lr->buf = xmalloc(lr->cap);
	return 0;
}

int gz_check_ratio(void *gzv, const char *path)
{
	gzFile gz = gzv;
	z_off_t out = gztell(gz), in = gzoffset(gz);

	if (out > (z_off_t)GZ_RATIO_FLOOR && in > 0 && out / in > GZ_MAX_RATIO)
		return error("'%s' decompresses to more than %d times its size (%lld bytes from %lld): "
			     "refused as a decompression bomb", path, GZ_MAX_RATIO, (long long)out,
			     (long long)in);
	return 0;
}

static int fill(struct line_reader *lr)
{
	int n;

	if (lr->eof)
		return 0;
	n = gzread(lr->gz, lr->buf, (unsigned)lr->cap);
	if (n < 0) {
		int errnum;
		const char *msg = gzerror(lr->gz, &errnum);
		return error("cannot read '%s': %s", lr->path,
			     errnum == Z_ERRNO ? strerror(errno) : msg);
	}
	if (n == 0)
		lr->eof = 1;
	if (n > 0 && gz_check_ratio(lr->gz, lr->path) < 0)
		return -1;
	lr->pos = 0;
	lr->end = (size_t)n;
	return n > 0;
}

int line_reader_next(struct line_reader *lr, struct strbuf *line)
{
	int too_long = 0, got = 0;

	strbuf_reset(line);
	for (;;) {
		char *nl;
		size_t take;
		int r;

		if (lr->pos >= lr->end) {
			r = fill(lr);
			if (r < 0)
				return -1;
			if (r == 0)
				break;
		}
		got = 1;
		nl = memchr(lr->buf + lr->pos, '\n', lr->end - lr->pos);
		take = nl ? (size_t)(nl - (lr->buf + lr->pos)) : lr->end - lr->pos;
		if (!too_long) {
			if (lr->limit && line->len + take > lr->limit)
				too_long = 1;
			else
				strbuf_add(line, lr->buf + lr->pos, take);
		}
		lr->pos += take;
		if (nl) {
			lr->pos++;
			break;
		}
	}
	if (!got)
		return 0;
	lr->lineno++;
	if (too_long) {
		strbuf_reset(line);
		error_at(lr->path, lr->lineno, 0, "line longer than the limit of %zu bytes", lr->limit);
		return -2;
	}
	if (line->len && line->buf[line->len - 1] == '\r')
		strbuf_setlen(line, line->len - 1);
	return 1;
}

long line_number_at(const char *buf, size_t off)
{
	long line = 1;

	for (size_t i = 0; i < off; i++)
		line += buf[i] == '\n';
	return line;
}

void line_reader_close(struct line_reader *lr)
{
	if (lr->gz)
		gzclose(lr->gz);
	free(lr->buf);
	lr->gz = NULL;
	lr->buf = NULL;
}
