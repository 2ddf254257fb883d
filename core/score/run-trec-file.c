/*
 * run-trec-file: the TREC run file beneath the scanner (contract in
 * run-trec-file.h; run_trec_split and run_trec_cut in run.h).
 *
 * Cutting reads a little of the file at each place it may cut (a megabyte
 * at the middle for run_trec_split, 64 KiB for each cut of run_trec_cut),
 * never the whole file: it only decides where the threads start.
 */
#include "score/run.h"
#include "score/run-trec-file.h"

#include "base/error.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int trec_map_range(struct trec_map *m, int fd, off_t start, off_t end)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	off_t base = start - start % (off_t)page;
	size_t data = (size_t)(end - base), file_len = (data + page - 1) / page * page;
	char *area;

	if ((off_t)data != end - base || file_len > SIZE_MAX - page)
		return -1;
	area = mmap(NULL, file_len + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return -1;
	/* the file over the zeros: its last page reads as zeros past the end of the file */
	if (file_len && mmap(area, file_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED,
			     fd, base) == MAP_FAILED) {
		munmap(area, file_len + page);
		return -1;
	}
	m->area = area;
	m->area_len = file_len + page;
	m->buf = area + (start - base);
	m->len = (size_t)(end - start);
	m->dropped = 0;
	return 0;
}

void trec_map_drop(struct trec_map *m, size_t keep)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t from = (size_t)(m->buf - m->area) + m->dropped, to = (size_t)(m->buf - m->area) + keep;

	from -= from % page;
	to -= to % page;
	if (to > from)
		madvise(m->area + from, to - from, MADV_DONTNEED);
	m->dropped = keep;
}

void trec_map_release(struct trec_map *m)
{
	if (m->area)
		munmap(m->area, m->area_len);
	m->area = NULL;
}

long trec_pread_block(int fd, const char *path, off_t *off, off_t end, char *dst, size_t want)
{
	size_t got = 0;

	if ((off_t)want > end - *off)
		want = (size_t)(end - *off);
	while (got < want) {
		ssize_t n = pread(fd, dst + got, want - got, *off + (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			error("cannot read '%s': %s", path, strerror(errno));
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	*off += (off_t)got;
	return (long)got;
}

/* Return the length of the qid of the line at 'p' (its blanks skipped into '*q'). */
static size_t line_qid(const char *p, const char *e, const char **q)
{
	const char *start;

	while (p < e && TREC_IS_BLANK(*p))
		p++;
	start = p;
	while (p < e && TREC_IS_TEXT(*p))
		p++;
	*q = start;
	return (size_t)(p - start);
}

/*
 * Open 'path' for the cutting of run_trec_split and run_trec_cut when it is
 * a plain (not gzip) regular file of 'min' bytes or more, its status in
 * '*st'; return the descriptor, or -1 (nothing reported: it is then read
 * whole, as it comes).
 */
static int open_plain(const char *path, struct stat *st, off_t min)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	unsigned char magic[2];

	if (fd < 0)
		return -1;
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode) || st->st_size < min ||
	    pread(fd, magic, 2, 0) != 2 || (magic[0] == 0x1f && magic[1] == 0x8b)) {
		close(fd);
		return -1;
	}
	return fd;
}

off_t run_trec_split(const char *path, off_t *size_out)
{
	struct stat st;
	int fd = open_plain(path, &st, (off_t)(16u << 20));
	size_t cap = 1u << 20;
	char *buf;
	off_t split = 0;

	*size_out = 0;
	if (fd < 0)
		return 0;
	*size_out = st.st_size;
	buf = xmalloc(cap);
	{
		off_t mid = st.st_size / 2;
		ssize_t n = pread(fd, buf, cap, mid);
		const char *p, *e, *prev_q = NULL;
		size_t prev_len = 0;

		if (n <= 0)
			goto out;
		e = buf + n;
		p = memchr(buf, '\n', (size_t)n);
		while (p && ++p < e) {
			const char *nl = memchr(p, '\n', (size_t)(e - p)), *q;
			size_t len;

			if (!nl)
				break;
			len = line_qid(p, nl, &q);
			if (len && *q != '#') {
				if (prev_q && (len != prev_len || memcmp(q, prev_q, len))) {
					split = mid + (off_t)(p - buf);
					break;
				}
				prev_q = q;
				prev_len = len;
			}
			p = nl;
		}
	}
out:
	free(buf);
	close(fd);
	return split;
}

int run_trec_cut(const char *path, off_t *cuts, int max)
{
	struct stat st;
	int fd = max < 1 ? -1 : open_plain(path, &st, 2), n = 0;
	size_t cap = 1u << 16;
	char *buf;

	if (fd < 0)
		return 0;
	buf = xmalloc(cap);
	cuts[n++] = 0;
	for (int i = 1; i < max; i++) {
		off_t at = (off_t)((intmax_t)st.st_size * i / max);
		ssize_t got;
		const char *nl;

		if (at <= cuts[n - 1])
			continue;
		/* the start of the first line after 'at' - 1 (a line starting at 'at' included) */
		got = pread(fd, buf, cap, at - 1);
		if (got <= 0 || !(nl = memchr(buf, '\n', (size_t)got)))
			continue;
		at += nl - buf;
		if (at > cuts[n - 1] && at < st.st_size)
			cuts[n++] = at;
	}
	cuts[n] = st.st_size;
	free(buf);
	close(fd);
	return n;
}
