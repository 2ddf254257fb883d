/*
 * journal: append-only JSONL with fsync per record and a tolerant reader
 * (see journal.h for the crash model).
 */
#include "llm/journal.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Cut everything after the last newline of the open file 'fd' (a torn record). */
static int drop_torn_tail(int fd, const char *path)
{
	struct stat sb;
	off_t end, pos;
	char buf[4096];

	if (fstat(fd, &sb))
		return error("cannot stat '%s': %s", path, strerror(errno));
	end = sb.st_size;
	pos = end;
	while (pos > 0) {
		off_t start = pos > (off_t)sizeof(buf) ? pos - (off_t)sizeof(buf) : 0;
		ssize_t n = pread(fd, buf, (size_t)(pos - start), start);
		if (n != pos - start)
			return error("cannot read '%s': %s", path, n < 0 ? strerror(errno) : "short read");
		for (ssize_t i = n - 1; i >= 0; i--)
			if (buf[i] == '\n') {
				off_t keep = start + i + 1;
				if (keep == end)
					return 0;
				warning("'%s': dropping a torn last record (%ld bytes)", path,
					(long)(end - keep));
				if (ftruncate(fd, keep) || fsync(fd))
					return error("cannot repair '%s': %s", path, strerror(errno));
				return 0;
			}
		pos = start;
	}
	if (end > 0) {
		warning("'%s': dropping a torn last record (%ld bytes)", path, (long)end);
		if (ftruncate(fd, 0) || fsync(fd))
			return error("cannot repair '%s': %s", path, strerror(errno));
	}
	return 0;
}

int journal_open(struct journal *j, const char *path)
{
	char *dir = dir_name(path);
	int rc = -1;

	if (mkdir_private(dir))
		goto out;
	j->fd = open_private(path, O_RDWR | O_CREAT | O_APPEND, 0666);
	if (j->fd < 0)
		goto out;
	if (drop_torn_tail(j->fd, path)) {
		close(j->fd);
		j->fd = -1;
		goto out;
	}
	j->path = xstrdup(path);
	rc = 0;
out:
	free(dir);
	return rc;
}

static int append(struct journal *j, const struct cJSON *rec, int sync)
{
	char *text = cJSON_PrintUnformatted(rec);
	size_t len, done = 0;
	char *line;
	int rc = -1;

	if (!text)
		return error("cannot serialise a journal record");
	len = strlen(text);
	line = xmalloc(len + 2);
	memcpy(line, text, len);
	line[len++] = '\n';
	line[len] = '\0';
	/* one write for the common case; a partial write continues, and a crash
	 * in between leaves a torn last line that the reader ignores */
	while (done < len) {
		ssize_t n = write(j->fd, line + done, len - done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			error("cannot append to '%s': %s", j->path, strerror(errno));
			goto out;
		}
		done += (size_t)n;
	}
	if (sync && fsync(j->fd)) {
		error("cannot sync '%s': %s", j->path, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(text);
	free(line);
	return rc;
}

int journal_append(struct journal *j, const struct cJSON *rec)
{
	return append(j, rec, 1);
}

int journal_write(struct journal *j, const struct cJSON *rec)
{
	return append(j, rec, 0);
}

int journal_sync(struct journal *j)
{
	if (j->fd >= 0 && fsync(j->fd))
		return error("cannot sync '%s': %s", j->path, strerror(errno));
	return 0;
}

void journal_close(struct journal *j)
{
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
	free(j->path);
	j->path = NULL;
}

int journal_read(const char *path, journal_fn fn, void *data)
{
	struct strbuf line = STRBUF_INIT;
	struct stat st;
	long nr = 0;
	int rc = 0, fd;
	FILE *fp;

	if (lstat(path, &st) < 0 && errno == ENOENT)
		return 0;
	if ((fd = open_private(path, O_RDONLY, 0)) < 0)
		return -1;
	if (!(fp = fdopen(fd, "rb"))) {
		close(fd);
		return error("cannot open journal '%s': %s", path, strerror(errno));
	}
	line.limit = JOURNAL_MAX_LINE;
	for (;;) {
		cJSON *rec;
		int got;
		int c;

		strbuf_reset(&line);
		got = strbuf_getline(&line, fp);
		if (got == EOF)
			break;
		nr++;
		/* is this the last line, and did it end in a newline? */
		c = fgetc(fp);
		if (c != EOF)
			ungetc(c, fp);
		if (got == -2) {
			rc = error_at(path, nr, 0, "journal record too long");
			break;
		}
		if (!line.len)
			continue;
		rec = cJSON_ParseWithLength(line.buf, line.len);
		if (!rec || !cJSON_IsObject(rec)) {
			cJSON_Delete(rec);
			if (c == EOF) {
				/* torn last line of a killed run: not a record */
				break;
			}
			rc = error_at(path, nr, 0, "bad journal record (not a JSON object)");
			break;
		}
		if (c == EOF) {
			/* complete JSON but maybe no newline: the writer fsyncs the
			 * newline with the record, so a missing one means torn */
			if (fseek(fp, -1, SEEK_END) == 0 && fgetc(fp) != '\n') {
				cJSON_Delete(rec);
				break;
			}
		}
		rc = fn(rec, nr, data);
		cJSON_Delete(rec);
		if (rc)
			break;
	}
	fclose(fp);
	strbuf_release(&line);
	return rc;
}
