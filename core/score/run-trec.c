/*
 * run-trec: the TREC run reader (contract in run.h), the hot path of
 * `trec-eval` on runs of millions of lines.
 *
 * The scanner reads large blocks (through zlib, which passes plain files
 * through). The usual line is read in one pass by the fast reader of
 * run-trec-fast.h; any other line is found with memchr and its fields split
 * by hand with the line's '\n' as a sentinel, the score parsed by
 * run_parse_score (run-score.c). Either way the qid and docid are
 * NUL-terminated in place, except in a mapped scan (below). In streaming
 * mode the bytes of the current
 * question stay contiguous at the front of the buffer: before each read the
 * finished part is dropped with one memmove, so memory is one question plus
 * one block. Line offsets are kept relative to the start of the question so
 * that moving or growing the buffer needs no fixup. In collect mode (stdin,
 * unsorted runs, run_load) the whole file stays in the buffer and lines are
 * grouped by question at the end.
 *
 * A mapped scan (run_trec_scan_mapped, run_trec_scan_range) maps a plain
 * file into memory instead of reading it: no copy, and the scanner never
 * writes to it, so qids and docids are handed over by their lengths, not
 * NUL-terminated. A page of zeros mapped after the data gives the slack
 * that word-wide reads need; the pages already scanned are dropped from
 * the mapping as the scan goes, so memory stays small.
 *
 * What concerns the file rather than its lines (mapping a range and
 * dropping it as the scan goes, reading a range, cutting the file for
 * threads) and the classes of a line's bytes are in run-trec-file.c,
 * beneath this file: calls go from here to there only.
 */
#include "score/run.h"
#include "score/run-build.h"
#include "score/run-internal.h"
#include "score/run-trec-file.h"
#include "score/run-trec-fast.h"
#define TREC_FAST_AVX2 1
#include "score/run-trec-fast.h"  /* the reader again, for AVX2 and BMI2 */
#undef TREC_FAST_AVX2

#include "base/digest.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/progress.h"
#include "base/util.h"

#include <errno.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define SCAN_BLOCK (256u << 10) /* read at a time: the block stays in the cache between the
                                * kernel's copy and the scan (4 MiB read cost twice the copy) */
#define SCAN_SLACK 16           /* spare bytes after the data, for word-wide reads */
#define TREC_MAX_LINE (1u << 20) /* a longer line is refused (bounds the buffer too) */
#define MAP_DROP_STEP (4u << 20) /* a mapped scan drops what it has scanned this often */

struct fields {
	char *qid, *doc;
	size_t qid_len, doc_len;
	uint64_t qid_word;       /* the qid's first 8 bytes, see trec_qid_word() */
	char *tag;
	size_t tag_len;
	double score;
};

/*
 * Scan the token at 'p': set '*end' to its end (the first blank or end of
 * line) and return the start of the next token, or the '\n' ending the
 * line. Eight bytes at a time: the lowest byte below 0x21 is found exactly
 * by the usual borrow trick (higher bytes may be flagged wrongly, the lowest
 * never is); a control byte that is not a separator is stepped over. When a
 * single blank is followed by text in the same word, the next start is known
 * without reading memory again, which keeps loads off the critical path.
 * Reads up to 7 bytes past the line's '\n': buffers keep SCAN_SLACK spare.
 */
static inline char *scan_token(char *p, char **end)
{
	size_t n = 0;

	for (;;) {
		uint64_t w, t;

		memcpy(&w, p + n, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		w = __builtin_bswap64(w);
#endif
		t = (w - 0x2121212121212121ULL) & ~w & 0x8080808080808080ULL;
		if (t) {
			unsigned idx = (unsigned)__builtin_ctzll(t) >> 3;
			unsigned char c = (unsigned char)(w >> (idx * 8));
			char *q;

			if (c != ' ' && TREC_IS_TEXT(c)) {
				n += idx + 1;
				continue;
			}
			*end = p + n + idx;
			if (c == '\n')
				return *end;
			if (idx < 7 && (unsigned char)(w >> ((idx + 1) * 8)) > 0x20)
				return *end + 1;
			q = *end + 1;
			while (TREC_IS_BLANK(*q))
				q++;
			return q;
		}
		n += 8;
	}
}

/*
 * Split the line at 'p' (its '\n' at 'e' is the sentinel). Return 1 for a
 * run line, 0 for a blank or comment line, -1 on a bad line (reported).
 */
static int parse_line(char *p, char *e, const char *path, long lineno, bool terminate,
		      struct fields *f)
{
	char *start[6], *end[6];
	int n = 0;

	if (memchr(p, '\0', (size_t)(e - p)))
		return error_at(path, lineno, 0, "binary file: NUL byte where text was expected");
	while (TREC_IS_BLANK(*p))
		p++;
	if (p == e || *p == '#')
		return 0;
	for (; n < 6; n++) {
		start[n] = p;
		p = scan_token(p, &end[n]);
		if (p >= e && n < 5) {
			int found = n + 1;

			return error_at(path, lineno, 0,
					"expected 6 fields 'qid Q0 docid rank score tag', found %d", found);
		}
	}
	f->qid = start[0];
	f->qid_len = (size_t)(end[0] - start[0]);
	f->doc = start[2];
	f->doc_len = (size_t)(end[2] - start[2]);
	f->tag = start[5];
	f->tag_len = (size_t)(end[5] - start[5]);
	f->qid_word = trec_qid_word(f->qid, f->qid_len);
	if (run_parse_score(start[4], (size_t)(end[4] - start[4]), &f->score) < 0) {
		int len = (int)(end[4] - start[4]);

		return error_at(path, lineno, 0, "score '%.*s' is not a finite number",
				len > 40 ? 40 : len, start[4]);
	}
	if (terminate) {
		*end[0] = '\0';
		*end[2] = '\0';
	}
	return 1;
}

struct cline {
	size_t qid_off, doc_off;
	uint32_t qid_len, doc_len;
	double score;
	long line;
};

struct scan {
	const char *path;
	gzFile gz;
	int fd;                  /* range scans: pread from [off, end) instead of gz */
	off_t off, end;
	off_t start;             /* range scans: where the range began */
	double bytes_read;       /* read from the source (for a pipe's progress) */
	bool collect;
	bool pieces;             /* streaming: a question may come back (no RUN_SCAN_UNSORTED) */
	bool batches;            /* RUN_SCAN_LINES: lines of any questions, handed over in batches */
	bool mapped;             /* buf is the file mapped (map): never written but at the end */
	struct trec_map map;
	bool avx2;               /* read by the AVX2 copy of the fast reader */
	trec_group_fn fn;
	void *data;
	char *buf;
	size_t cap, len, pos;
	size_t group_start;      /* streaming: offset of the current question's first line */
	size_t qid_off, qid_len; /* streaming: relative to group_start */
	uint64_t qid_word;       /* streaming: the current question's, see trec_qid_word() */
	struct trec_line *lines;
	uint32_t *off_doc;       /* streaming: doc offsets relative to group_start */
	uint32_t *off_qid, *len_qid;  /* batches: each line's qid, relative to group_start */
	const char **qids;
	size_t nr, alloc, alloc_off, alloc_qid, alloc_qids;
	struct cline *cl;        /* collect: every line */
	size_t nr_cl, alloc_cl;
	struct strmap seen;
	struct sha256_ctx *sha;  /* run_trec_scan_digest: the bytes read, hashed */
	size_t tag_off, tag_len; /* absolute */
	bool have_tag;
	long lineno;
};

/* What this thread's scans tell of the bytes they read (run_trec_progress). */
static _Thread_local struct progress *scan_progress;
static _Thread_local int scan_lane;
static _Thread_local double scan_base;

void run_trec_progress(struct progress *p, int lane, double base)
{
	scan_progress = p;
	scan_lane = lane;
	scan_base = base;
}

/*
 * Tell this thread's progress, if any, how many bytes of its source the
 * scan 's' has read: of the mapped range, of the range read by pread, or
 * of the file under zlib (compressed bytes, so that a gzip file's size is
 * its total too; from a pipe, the bytes it gave).
 */
static void scan_report(const struct scan *s)
{
	double done;

	if (!scan_progress)
		return;
	if (s->mapped) {
		done = (double)s->pos;
	} else if (s->fd >= 0) {
		done = (double)(s->off - s->start);
	} else {
		z_off_t at = gzoffset(s->gz);

		/* a pipe has no offset: the (uncompressed) bytes read then */
		done = at < 0 ? s->bytes_read : (double)at;
	}
	progress_update_lane(scan_progress, scan_lane, scan_base + done);
}

/* Whether trec_fast_loop_avx2 may be used: set once, before any scan. */
static bool allow_avx2 = true;

void run_trec_set_simd(bool allow)
{
	allow_avx2 = allow;
}

/* Whether this scan reads with the AVX2 copy of the fast reader. */
static bool scan_uses_avx2(void)
{
#ifdef TREC_FAST_HAVE_AVX2
	return allow_avx2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
	       __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");
#else
	return false;
#endif
}

/* Note where the docid of 'f', the next line, is: a pointer in a mapped
 * scan (the buffer never moves), else an offset that emit_group turns into
 * one. */
static inline void keep_doc(struct scan *s, const struct fields *f)
{
	if (s->mapped)
		s->lines[s->nr].doc = f->doc;
	else
		s->off_doc[s->nr] = (uint32_t)(f->doc - (s->buf + s->group_start));
}

static int emit_group(struct scan *s)
{
	struct trec_group g;
	char *base = s->buf + s->group_start;

	if (!s->mapped)
		for (size_t i = 0; i < s->nr; i++)
			s->lines[i].doc = base + s->off_doc[i];
	g.qid = base + s->qid_off;
	g.qid_len = s->qid_len;
	g.lines = s->lines;
	g.nr = s->nr;
	g.padded = true;
	g.qids = NULL;
	g.qid_lens = NULL;
	if (s->batches) {
		ALLOC_GROW(s->qids, s->nr, s->alloc_qids);
		for (size_t i = 0; i < s->nr; i++)
			s->qids[i] = base + s->off_qid[i];
		g.qid = s->qids[0];
		g.qid_len = s->len_qid[0];
		g.qids = s->qids;
		g.qid_lens = s->len_qid;
	}
	s->nr = 0;
	return s->fn(&g, s->data);
}

/* Lines handed over at once in RUN_SCAN_LINES: few enough to stay in cache. */
#define SCAN_BATCH 1024

static int batch_line(struct scan *s, size_t line_start, const struct fields *f)
{
	if (!s->nr)
		s->group_start = line_start;
	if (s->nr == s->alloc) {
		ALLOC_GROW(s->lines, s->nr + 1, s->alloc);
		ALLOC_GROW(s->off_doc, s->nr + 1, s->alloc_off);
		ALLOC_GROW(s->off_qid, s->nr + 1, s->alloc_qid);
		s->len_qid = xreallocarray(s->len_qid, s->alloc_qid, sizeof(*s->len_qid));
	}
	keep_doc(s, f);
	s->off_qid[s->nr] = (uint32_t)(f->qid - (s->buf + s->group_start));
	s->len_qid[s->nr] = (uint32_t)f->qid_len;
	s->lines[s->nr].len = (uint32_t)f->doc_len;
	s->lines[s->nr].line = s->lineno;
	s->lines[s->nr].score = f->score;
	if (++s->nr == SCAN_BATCH)
		return emit_group(s);
	return 0;
}

static inline int stream_line(struct scan *s, size_t line_start, const struct fields *f)
{
	if (!s->nr || f->qid_word != s->qid_word || f->qid_len != s->qid_len ||
	    (f->qid_len > 8 && memcmp(f->qid, s->buf + s->group_start + s->qid_off, f->qid_len))) {
		/* a new question starts here: hand over the previous one */
		int added;

		if (s->nr && emit_group(s) < 0)
			return -1;
		if (!s->pieces) {
			strmap_intern(&s->seen, f->qid, f->qid_len, &added);
			if (!added)
				return RUN_SCAN_UNSORTED;
		}
		s->group_start = line_start;
		s->qid_off = (size_t)(f->qid - (s->buf + line_start));
		s->qid_len = f->qid_len;
		s->qid_word = f->qid_word;
	}
	if (s->nr == s->alloc) {
		ALLOC_GROW(s->lines, s->nr + 1, s->alloc);
		ALLOC_GROW(s->off_doc, s->nr + 1, s->alloc_off);
	}
	keep_doc(s, f);
	s->lines[s->nr].len = (uint32_t)f->doc_len;
	s->lines[s->nr].line = s->lineno;
	s->lines[s->nr].score = f->score;
	s->nr++;
	return 0;
}

static void collect_line(struct scan *s, const struct fields *f)
{
	struct cline *c;

	ALLOC_GROW(s->cl, s->nr_cl + 1, s->alloc_cl);
	c = &s->cl[s->nr_cl++];
	c->qid_off = (size_t)(f->qid - s->buf);
	c->qid_len = (uint32_t)f->qid_len;
	c->doc_off = (size_t)(f->doc - s->buf);
	c->doc_len = (uint32_t)f->doc_len;
	c->score = f->score;
	c->line = s->lineno;
}

/* Hand over the parsed line 'f', which starts at 'start' in the buffer. */
static inline int take_line(struct scan *s, size_t start, const struct fields *f)
{
	s->tag_off = (size_t)(f->tag - s->buf);
	s->tag_len = f->tag_len;
	s->have_tag = true;
	if (s->collect) {
		collect_line(s, f);
		return 0;
	}
	if (s->batches)
		return batch_line(s, start, f);
	return stream_line(s, start, f);
}

/* Process the complete line [start, nl) of the buffer. */
static int scan_line(struct scan *s, size_t start, char *nl)
{
	struct fields f;
	int r;

	s->lineno++;
	if ((size_t)(nl - (s->buf + start)) > TREC_MAX_LINE)
		return error_at(s->path, s->lineno, 0, "line longer than the limit of %u bytes", TREC_MAX_LINE);
	/* a UTF-8 byte order mark before the first line is not part of its qid */
	if (s->lineno == 1 && nl - (s->buf + start) >= 3 && !memcmp(s->buf + start, "\xef\xbb\xbf", 3))
		start += 3;
	r = parse_line(s->buf + start, nl, s->path, s->lineno, !s->mapped, &f);
	if (r <= 0)
		return r;
	if (f.doc_len > UINT32_MAX / 2 || f.qid_len > UINT32_MAX / 2)
		return error_at(s->path, s->lineno, 0, "field too long");
	return take_line(s, start, &f);
}

#ifdef TREC_FAST_LINE
/*
 * Read the line at s->pos, 64 readable bytes of data from there, by the
 * fast reader (run-trec-fast.h). Return false when the line is left to
 * scan_line, untouched; else true, with s->pos past the line and '*ret'
 * what scan_line would have returned.
 */
static inline bool scan_line_fast(struct scan *s, int *ret)
{
	char *p = s->buf + s->pos;
	size_t start = s->pos;
	struct trec_fast l;
	struct fields f;
	int r = trec_fast_line_sse2(p, &l);

	if (r < 0)
		return false;
	s->lineno++;
	s->pos += l.len + 1;
	if (!r) {
		*ret = 0;  /* a blank or comment line */
		return true;
	}
	f.qid = p + l.b[0];
	f.qid_len = l.e[0] - l.b[0];
	f.doc = p + l.b[2];
	f.doc_len = l.e[2] - l.b[2];
	f.tag = p + l.b[5];
	f.tag_len = l.e[5] - l.b[5];
	f.score = l.score;
	f.qid_word = trec_qid_word(f.qid, f.qid_len);
	if (!s->mapped) {
		p[l.e[0]] = '\0';
		p[l.e[2]] = '\0';
	}
	*ret = take_line(s, start, &f);
	return true;
}

/*
 * Read the usual lines of the current question in streaming mode, from
 * s->pos while 64 bytes of data follow, by trec_fast_loop (run-trec-fast.h).
 * It stops, the line untouched, at a line of another question, a line the
 * fast reader declines, or when the line arrays are full: scan_line_fast
 * and scan_line take that line, with everything the first line of a
 * question needs (the check that it is new, the hand-over of the last
 * one). Only a question's first line has its qid NUL-terminated.
 */
static int scan_stream_fast(struct scan *s)
{
	struct trec_fast_state r;

	if (!s->nr || s->len < 64)
		return 0;
	if (s->batches) {
		/* room for a whole batch in every array: the loop stops when it is full */
		ALLOC_GROW(s->lines, SCAN_BATCH, s->alloc);
		ALLOC_GROW(s->off_doc, SCAN_BATCH, s->alloc_off);
		if (s->alloc_qid < SCAN_BATCH) {
			ALLOC_GROW(s->off_qid, SCAN_BATCH, s->alloc_qid);
			s->len_qid = xreallocarray(s->len_qid, s->alloc_qid, sizeof(*s->len_qid));
		}
	}
	r.buf = s->buf;
	r.pos = s->pos;
	r.end = s->len - 64;
	r.gs = s->group_start;
	r.qid_off = s->qid_off;
	r.qid_len = s->qid_len;
	r.qid_word = s->qid_word;
	r.nr = s->nr;
	r.alloc = s->batches ? SCAN_BATCH : s->alloc;
	r.lines = s->lines;
	r.off_doc = s->off_doc;
	r.off_qid = s->off_qid;
	r.len_qid = s->len_qid;
	r.lineno = s->lineno;
	r.mapped = s->mapped;
	r.batches = s->batches;
	r.tag_len = 0;
#ifdef TREC_FAST_HAVE_AVX2
	if (s->avx2)
		trec_fast_loop_avx2(&r);
	else
#endif
		trec_fast_loop_sse2(&r);
	if (r.tag_len) {
		s->tag_off = r.tag_off;
		s->tag_len = r.tag_len;
		s->have_tag = true;
	}
	s->pos = r.pos;
	s->nr = r.nr;
	s->lineno = r.lineno;
	if (s->batches && s->nr == SCAN_BATCH)
		return emit_group(s);
	return 0;
}
#endif

/* Hand the collected lines over question by question, in order of first appearance. */
static int emit_collected(struct scan *s)
{
	struct strmap groups = STRMAP_INIT;
	size_t nr_groups = 0, *count = NULL, *first = NULL, *pos = NULL, alloc = 0, alloc_f = 0;
	uint32_t *gid = xmalloc((s->nr_cl ? s->nr_cl : 1) * sizeof(*gid));
	struct trec_line *all = xmalloc((s->nr_cl ? s->nr_cl : 1) * sizeof(*all));
	int ret = 0;

	for (size_t i = 0; i < s->nr_cl; i++) {
		int added;
		struct strmap_entry *e = strmap_intern(&groups, s->buf + s->cl[i].qid_off,
						       s->cl[i].qid_len, &added);

		if (added) {
			ALLOC_GROW(count, nr_groups + 1, alloc);
			ALLOC_GROW(first, nr_groups + 1, alloc_f);
			count[nr_groups] = 0;
			first[nr_groups] = i;
			e->value = (void *)(uintptr_t)++nr_groups;
		}
		gid[i] = (uint32_t)((uintptr_t)e->value - 1);
		count[gid[i]]++;
	}
	pos = xcalloc(nr_groups + 1, sizeof(*pos));
	for (size_t g = 0; g < nr_groups; g++)
		pos[g + 1] = pos[g] + count[g];
	for (size_t i = 0; i < s->nr_cl; i++) {
		struct trec_line *t = &all[pos[gid[i]]++];

		t->doc = s->buf + s->cl[i].doc_off;
		t->len = s->cl[i].doc_len;
		t->line = s->cl[i].line;
		t->score = s->cl[i].score;
	}
	for (size_t g = 0, at = 0; g < nr_groups && !ret; g++) {
		struct trec_group grp;
		const struct cline *c = &s->cl[first[g]];

		grp.qid = s->buf + c->qid_off;
		grp.qid_len = c->qid_len;
		grp.lines = all + at;
		grp.nr = count[g];
		grp.padded = true;
		grp.qids = NULL;
		grp.qid_lens = NULL;
		at += count[g];
		ret = s->fn(&grp, s->data);
	}
	strmap_clear(&groups, 0);
	free(gid);
	free(all);
	free(count);
	free(first);
	free(pos);
	return ret;
}

static int scan_run(struct scan *s)
{
	bool eof = !s->gz && s->fd < 0, first = true;

	for (;;) {
		char *nl;
		int r;

		for (;;) {
			size_t start;

			if (s->mapped && s->pos - s->map.dropped >= MAP_DROP_STEP) {
				trec_map_drop(&s->map, s->nr ? s->group_start : s->pos);
				scan_report(s);
			}
#ifdef TREC_FAST_LINE
			if (s->lineno && !s->collect && (r = scan_stream_fast(s)))
				return r;
			if (s->lineno && s->len - s->pos >= 64 && scan_line_fast(s, &r)) {
				if (r)
					return r;
				continue;
			}
#endif
			start = s->pos;
			if (!(nl = memchr(s->buf + start, '\n', s->len - start)))
				break;
			s->pos = (size_t)(nl - s->buf) + 1;
			if ((r = scan_line(s, start, nl)))
				return r;
		}
		if (s->len - s->pos > TREC_MAX_LINE)
			return error_at(s->path, s->lineno + 1, 0, "line longer than the limit of %u bytes",
					TREC_MAX_LINE);
		if (eof) {
			if (s->pos < s->len) {
				size_t start = s->pos;

				s->buf[s->len] = '\n';
				s->pos = s->len;
				if ((r = scan_line(s, start, s->buf + s->len)))
					return r;
			}
			break;
		}
		if (s->batches && s->nr && (r = emit_group(s)))
			return r;
		if (!s->collect) {
			/* drop everything before the current question */
			size_t keep = s->nr ? s->group_start : s->pos;

			if (keep) {
				memmove(s->buf, s->buf + keep, s->len - keep);
				s->len -= keep;
				s->pos -= keep;
				if (s->have_tag && s->tag_off >= keep)
					s->tag_off -= keep;
				else
					s->have_tag = false;
				s->group_start = 0;
			}
		}
		if (s->cap - s->len < SCAN_BLOCK / 2 + SCAN_SLACK) {
			s->cap = s->cap * 2;
			s->buf = xrealloc(s->buf, s->cap);
		}
		{
			long n = s->gz ? run_gz_read_block(s->gz, s->path, s->buf + s->len,
						       s->cap - s->len - SCAN_SLACK)
				       : trec_pread_block(s->fd, s->path, &s->off, s->end, s->buf + s->len,
						 s->cap - s->len - SCAN_SLACK);

			if (n < 0)
				return -1;
			if (first && run_check_binary(s->path, s->buf + s->len,
						  (size_t)n < 8192 ? (size_t)n : 8192) < 0)
				return -1;
			first = false;
			if ((size_t)n < s->cap - s->len - SCAN_SLACK)
				eof = true;
			if (s->sha)
				sha256_update(s->sha, s->buf + s->len, (size_t)n);
			s->len += (size_t)n;
			s->bytes_read += (double)n;
			scan_report(s);
		}
	}
	if (s->collect)
		return emit_collected(s);
	if (s->nr)
		return emit_group(s);
	return 0;
}

/* Start the scan 's' of 'path' for 'fn'; the caller sets its source. */
static void scan_init(struct scan *s, const char *path, trec_group_fn fn, void *data)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->avx2 = scan_uses_avx2();
	s->path = path;
	s->fn = fn;
	s->data = data;
}

/* Finish the scan 's' that returned 'ret': hand the tag of the last line
 * to 'runid' (when not NULL and all went well) and free the buffers. */
static void scan_finish(struct scan *s, int ret, struct strbuf *runid)
{
	if (!ret && runid && s->have_tag) {
		strbuf_reset(runid);
		strbuf_add(runid, s->buf + s->tag_off, s->tag_len);
	}
	if (s->mapped)
		trec_map_release(&s->map);
	else
		free(s->buf);
	free(s->lines);
	free(s->off_doc);
	free(s->off_qid);
	free(s->len_qid);
	free(s->qids);
	free(s->cl);
	strmap_clear(&s->seen, 0);
}

int run_trec_scan(const char *path, bool collect, trec_group_fn fn, void *data,
		  struct strbuf *runid)
{
	return run_trec_scan_mode(path, collect ? RUN_SCAN_COLLECT : RUN_SCAN_STREAM, fn, data, runid);
}

/* run_trec_scan_mode, and with 'sha' run_trec_scan_digest. */
static int scan_file(const char *path, enum run_scan_mode mode, trec_group_fn fn, void *data,
		     struct strbuf *runid, char *sha)
{
	struct scan s;
	int ret;

	scan_init(&s, path, fn, data);
	s.collect = mode == RUN_SCAN_COLLECT || (mode == RUN_SCAN_STREAM && !strcmp(path, "-"));
	s.pieces = mode == RUN_SCAN_PIECES;
	s.batches = mode == RUN_SCAN_LINES;
	if (!(s.gz = run_open_gz(path)))
		return -1;
	if (sha)
		s.sha = sha256_new();
	s.cap = SCAN_BLOCK + SCAN_SLACK;
	s.buf = xmalloc(s.cap);
	ret = scan_run(&s);
	if (ret == RUN_SCAN_UNSORTED && s.collect)
		ret = -1; /* cannot happen: collect mode never reports unsorted */
	if (sha) {
		/* every byte of a plain file was read: its digest; else none */
		bool whole = !ret && gzdirect(s.gz) && strcmp(path, "-");

		sha256_final(s.sha, sha);
		if (!whole)
			sha[0] = '\0';
	}
	gzclose(s.gz);
	scan_finish(&s, ret, runid);
	return ret;
}

int run_trec_scan_mode(const char *path, enum run_scan_mode mode, trec_group_fn fn, void *data,
		       struct strbuf *runid)
{
	return scan_file(path, mode, fn, data, runid, NULL);
}

int run_trec_scan_digest(const char *path, enum run_scan_mode mode, trec_group_fn fn, void *data,
			 struct strbuf *runid, char sha[72])
{
	return scan_file(path, mode, fn, data, runid, sha);
}

/*
 * Scan the bytes [start, end) of the regular file 'path' ('end' < 0: to
 * its end) mapped, when it is plain and can be mapped; return -2 when it
 * is not (compressed, or the mapping failed), before any callback.
 */
static int scan_mapped(const char *path, off_t start, off_t end, enum run_scan_mode mode,
		       trec_group_fn fn, void *data, struct strbuf *runid)
{
	struct scan s;
	struct stat st;
	int fd, ret;

	scan_init(&s, path, fn, data);
	s.pieces = mode == RUN_SCAN_PIECES;
	s.batches = mode == RUN_SCAN_LINES;
	if ((fd = open_regular(path)) < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		error("cannot read '%s': %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (end < 0 || end > st.st_size)
		end = st.st_size;
	if (start > end)
		start = end;
	if (trec_map_range(&s.map, fd, start, end) < 0) {
		close(fd);
		return -2;
	}
	close(fd);
	s.mapped = true;
	s.buf = s.map.buf;
	s.len = s.map.len;
	s.cap = s.len + 1;
	if (!start && s.len >= 2 && (unsigned char)s.buf[0] == 0x1f && (unsigned char)s.buf[1] == 0x8b) {
		scan_finish(&s, -1, NULL);
		return -2;
	}
	if (run_check_binary(path, s.buf, s.len < 8192 ? s.len : 8192) < 0)
		ret = -1;
	else
		ret = scan_run(&s);
	scan_finish(&s, ret, runid);
	return ret;
}

int run_trec_scan_mapped(const char *path, enum run_scan_mode mode, trec_group_fn fn, void *data,
			 struct strbuf *runid)
{
	int ret = -2;

	if (mode != RUN_SCAN_COLLECT && strcmp(path, "-"))
		ret = scan_mapped(path, 0, -1, mode, fn, data, runid);
	if (ret == -2)
		ret = run_trec_scan_mode(path, mode, fn, data, runid);
	return ret;
}

int run_trec_scan_range(const char *path, off_t start, off_t end, enum run_scan_mode mode,
			trec_group_fn fn, void *data, struct strbuf *runid)
{
	struct scan s;
	int ret = scan_mapped(path, start, end, mode, fn, data, runid);

	if (ret != -2)
		return ret;
	scan_init(&s, path, fn, data);
	s.pieces = mode == RUN_SCAN_PIECES;
	s.batches = mode == RUN_SCAN_LINES;
	s.off = s.start = start;
	s.end = end;
	if ((s.fd = open_regular(path)) < 0)
		return -1;
	s.cap = SCAN_BLOCK + SCAN_SLACK;
	s.buf = xmalloc(s.cap);
	ret = scan_run(&s);
	close(s.fd);
	scan_finish(&s, ret, runid);
	return ret;
}

int run_trec_scan_buffer(struct strbuf *sb, const char *path, trec_group_fn fn,
			 void *data, struct strbuf *runid)
{
	struct scan s;
	int ret;

	scan_init(&s, path, fn, data);
	s.collect = true;
	strbuf_grow(sb, SCAN_SLACK);
	memset(sb->buf + sb->len, 0, SCAN_SLACK);
	s.len = sb->len;
	s.cap = sb->alloc;
	s.buf = strbuf_detach(sb, NULL);
	ret = scan_run(&s);
	scan_finish(&s, ret, runid);
	return ret;
}
