/*
 * run: reading retriever outputs (see run.h).
 *
 * The TREC scanner is the hot path of `trec-eval` on runs of millions of
 * lines: it reads large blocks (through zlib, which passes plain files
 * through), finds lines with memchr, splits fields by hand with the line's
 * '\n' as a sentinel, NUL-terminates the qid and docid in place, and parses
 * scores with an exact fast path (run_parse_score). In streaming mode the
 * bytes of the current question stay contiguous at the front of the buffer:
 * before each read the finished part is dropped with one memmove, so memory
 * is one question plus one block. Line offsets are kept relative to the
 * start of the question so that moving or growing the buffer needs no fixup.
 */
#include "run.h"

#include "error.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define SCAN_BLOCK (4u << 20)
#define RUN_MAX_JSON_BYTES ((size_t)1 << 31)

const char *run_format_name(enum run_format f)
{
	switch (f) {
	case RUN_TREC: return "trec";
	case RUN_JSONL: return "jsonl";
	case RUN_JSON: return "json";
	default: return "empty";
	}
}

/* ---- scores ---- */

static const double pow10_exact[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

static int parse_score_slow(const char *s, size_t len, double *out)
{
	char small[64];
	char *tmp = len < sizeof(small) ? small : xmalloc(len + 1);
	char *end;
	double v;
	int ret = -1;

	memcpy(tmp, s, len);
	tmp[len] = '\0';
	errno = 0;
	v = strtod(tmp, &end);
	if (len && end == tmp + len && isfinite(v)) {
		*out = v;
		ret = 0;
	}
	if (tmp != small)
		free(tmp);
	return ret;
}

int run_parse_score(const char *s, size_t len, double *out)
{
	const char *p = s, *e = s + len;
	uint64_t m = 0;
	int ndig = 0, exp10 = 0;
	bool neg = false, any = false;
	double v;

	if (p < e && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	for (; p < e && *p >= '0' && *p <= '9'; p++) {
		any = true;
		if (!m && *p == '0')
			continue;
		if (ndig == 19)
			return parse_score_slow(s, len, out);
		m = m * 10 + (uint64_t)(*p - '0');
		ndig++;
	}
	if (p < e && *p == '.') {
		for (p++; p < e && *p >= '0' && *p <= '9'; p++) {
			any = true;
			if (!m && *p == '0') {
				exp10--;
				continue;
			}
			if (ndig == 19)
				return parse_score_slow(s, len, out);
			m = m * 10 + (uint64_t)(*p - '0');
			ndig++;
			exp10--;
		}
	}
	if (!any)
		return parse_score_slow(s, len, out);
	if (p < e && (*p == 'e' || *p == 'E')) {
		bool eneg = false;
		int x = 0;

		p++;
		if (p < e && (*p == '-' || *p == '+'))
			eneg = *p++ == '-';
		if (p == e || *p < '0' || *p > '9')
			return parse_score_slow(s, len, out);
		for (; p < e && *p >= '0' && *p <= '9'; p++) {
			if (x > 10000)
				return parse_score_slow(s, len, out);
			x = x * 10 + (*p - '0');
		}
		exp10 += eneg ? -x : x;
	}
	if (p != e)
		return parse_score_slow(s, len, out);
	if (!m) {
		*out = neg ? -0.0 : 0.0;
		return 0;
	}
	if (m > ((uint64_t)1 << 53) || exp10 < -22 || exp10 > 22)
		return parse_score_slow(s, len, out);
	/* Clinger's fast path: both operands exact, so one correctly rounded operation */
	v = (double)m;
	v = exp10 >= 0 ? v * pow10_exact[exp10] : v / pow10_exact[-exp10];
	*out = neg ? -v : v;
	return 0;
}

int run_rank_cmp(double sa, const char *da, double sb, const char *db)
{
	if (sa > sb)
		return -1;
	if (sa < sb)
		return 1;
	return strcmp(db, da);
}

/* ---- reading ---- */

static gzFile open_gz(const char *path)
{
	gzFile gz;

	if (!strcmp(path, "-")) {
		int fd = dup(STDIN_FILENO);

		gz = fd < 0 ? NULL : gzdopen(fd, "rb");
	} else {
		gz = gzopen(path, "rb");
	}
	if (!gz) {
		error("cannot open '%s': %s", path, strerror(errno ? errno : ENOMEM));
		return NULL;
	}
	gzbuffer(gz, 1u << 20);
	return gz;
}

/* Read up to 'want' bytes; return the count, or -1 (reported). */
static long gz_read_block(gzFile gz, const char *path, char *dst, size_t want)
{
	size_t got = 0;

	while (got < want) {
		unsigned chunk = want - got > (1u << 30) ? (1u << 30) : (unsigned)(want - got);
		int n = gzread(gz, dst + got, chunk);
		int err;

		if (n < 0) {
			const char *msg = gzerror(gz, &err);

			error("cannot read '%s': %s", path, err == Z_ERRNO ? strerror(errno) : msg);
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (long)got;
}

/* Report a NUL byte in the 'len' bytes at 'buf' (first block) as a binary file. */
static int check_binary(const char *path, const char *buf, size_t len)
{
	const char *nul = memchr(buf, '\0', len);
	long line = 1;

	if (!nul)
		return 0;
	for (const char *p = buf; p < nul; p++)
		line += *p == '\n';
	return error_at(path, line, 0, "binary file: NUL byte where text was expected");
}

/* ---- the TREC scanner ---- */

struct fields {
	char *qid, *doc;
	size_t qid_len, doc_len;
	char *tag;
	size_t tag_len;
	double score;
};

/* Byte classes: 1 blank (a field separator), 2 end of line, 0 anything else. */
static const unsigned char byte_class[256] = {
	['\t'] = 1, ['\r'] = 1, ['\v'] = 1, ['\f'] = 1, [' '] = 1, ['\n'] = 2,
};
#define IS_BLANK(c) (byte_class[(unsigned char)(c)] == 1)
#define IS_TEXT(c) (!byte_class[(unsigned char)(c)])

/*
 * Split the line at 'p' (its '\n' at 'e' is the sentinel). Return 1 for a
 * run line, 0 for a blank or comment line, -1 on a bad line (reported).
 */
static int parse_line(char *p, char *e, const char *path, long lineno, struct fields *f)
{
	char *start[6], *end[6];
	int n = 0;

	while (IS_BLANK(*p))
		p++;
	if (p == e || *p == '#')
		return 0;
	for (; n < 6; n++) {
		start[n] = p;
		while (IS_TEXT(*p))
			p++;
		end[n] = p;
		while (IS_BLANK(*p))
			p++;
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
	if (run_parse_score(start[4], (size_t)(end[4] - start[4]), &f->score) < 0) {
		int len = (int)(end[4] - start[4]);

		return error_at(path, lineno, 0, "score '%.*s' is not a finite number",
				len > 40 ? 40 : len, start[4]);
	}
	*end[0] = '\0';
	*end[2] = '\0';
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
	bool collect;
	trec_group_fn fn;
	void *data;
	char *buf;
	size_t cap, len, pos;
	size_t group_start;      /* streaming: offset of the current question's first line */
	size_t qid_off, qid_len; /* streaming: relative to group_start */
	struct trec_line *lines;
	uint32_t *off;           /* streaming: doc offsets relative to group_start */
	size_t nr, alloc, alloc_off;
	struct cline *cl;        /* collect: every line */
	size_t nr_cl, alloc_cl;
	struct strmap seen;
	size_t tag_off, tag_len; /* absolute */
	bool have_tag;
	long lineno;
};

static int emit_group(struct scan *s)
{
	struct trec_group g;
	char *base = s->buf + s->group_start;

	for (size_t i = 0; i < s->nr; i++)
		s->lines[i].doc = base + s->off[i];
	g.qid = base + s->qid_off;
	g.qid_len = s->qid_len;
	g.lines = s->lines;
	g.nr = s->nr;
	s->nr = 0;
	return s->fn(&g, s->data);
}

/* Compare two short strings inline (qids are a few bytes; a memcmp call costs more). */
static inline bool same_bytes(const char *a, const char *b, size_t la, size_t lb)
{
	if (la != lb)
		return false;
	for (size_t i = 0; i < la; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

static int stream_line(struct scan *s, size_t line_start, const struct fields *f)
{
	char *base;

	if (s->nr) {
		base = s->buf + s->group_start;
		if (!same_bytes(f->qid, base + s->qid_off, f->qid_len, s->qid_len)) {
			int added;

			if (emit_group(s) < 0)
				return -1;
			strmap_intern(&s->seen, f->qid, f->qid_len, &added);
			if (!added)
				return RUN_SCAN_UNSORTED;
			s->group_start = line_start;
			s->qid_off = (size_t)(f->qid - (s->buf + line_start));
			s->qid_len = f->qid_len;
		}
	} else {
		int added;

		strmap_intern(&s->seen, f->qid, f->qid_len, &added);
		if (!added)
			return RUN_SCAN_UNSORTED;
		s->group_start = line_start;
		s->qid_off = (size_t)(f->qid - (s->buf + line_start));
		s->qid_len = f->qid_len;
	}
	if (s->nr == s->alloc) {
		ALLOC_GROW(s->lines, s->nr + 1, s->alloc);
		ALLOC_GROW(s->off, s->nr + 1, s->alloc_off);
	}
	s->off[s->nr] = (uint32_t)(f->doc - (s->buf + s->group_start));
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

/* Process the complete line [start, nl) of the buffer. */
static int scan_line(struct scan *s, size_t start, char *nl)
{
	struct fields f;
	int r;

	s->lineno++;
	r = parse_line(s->buf + start, nl, s->path, s->lineno, &f);
	if (r <= 0)
		return r;
	if (f.doc_len > UINT32_MAX / 2 || f.qid_len > UINT32_MAX / 2)
		return error_at(s->path, s->lineno, 0, "field too long");
	s->tag_off = (size_t)(f.tag - s->buf);
	s->tag_len = f.tag_len;
	s->have_tag = true;
	if (s->collect) {
		collect_line(s, &f);
		return 0;
	}
	return stream_line(s, start, &f);
}

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
	bool eof = !s->gz, first = true;

	for (;;) {
		char *nl;
		int r;

		while ((nl = memchr(s->buf + s->pos, '\n', s->len - s->pos))) {
			size_t start = s->pos;

			s->pos = (size_t)(nl - s->buf) + 1;
			if ((r = scan_line(s, start, nl)))
				return r;
		}
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
		if (s->cap - s->len < SCAN_BLOCK / 2 + 1) {
			s->cap = s->cap * 2;
			s->buf = xrealloc(s->buf, s->cap);
		}
		{
			long n = gz_read_block(s->gz, s->path, s->buf + s->len,
					       s->cap - s->len - 1);

			if (n < 0)
				return -1;
			if (first && check_binary(s->path, s->buf + s->len,
						  (size_t)n < 8192 ? (size_t)n : 8192) < 0)
				return -1;
			first = false;
			if ((size_t)n < s->cap - s->len - 1)
				eof = true;
			s->len += (size_t)n;
		}
	}
	if (s->collect)
		return emit_collected(s);
	if (s->nr)
		return emit_group(s);
	return 0;
}

int run_trec_scan(const char *path, bool collect, trec_group_fn fn, void *data,
		  struct strbuf *runid)
{
	struct scan s;
	int ret;

	memset(&s, 0, sizeof(s));
	s.path = path;
	s.collect = collect || !strcmp(path, "-");
	s.fn = fn;
	s.data = data;
	if (!(s.gz = open_gz(path)))
		return -1;
	s.cap = SCAN_BLOCK + 1;
	s.buf = xmalloc(s.cap);
	ret = scan_run(&s);
	if (!ret && runid && s.have_tag) {
		strbuf_reset(runid);
		strbuf_add(runid, s.buf + s.tag_off, s.tag_len);
	}
	if (ret == RUN_SCAN_UNSORTED && s.collect)
		ret = -1; /* cannot happen: collect mode never reports unsorted */
	gzclose(s.gz);
	free(s.buf);
	free(s.lines);
	free(s.off);
	free(s.cl);
	strmap_clear(&s.seen, 0);
	return ret;
}

/* ---- struct run ---- */

void run_init(struct run *r)
{
	memset(r, 0, sizeof(*r));
}

void run_release(struct run *r)
{
	for (size_t i = 0; i < r->nr; i++) {
		struct run_query *q = &r->q[i];

		for (size_t d = 0; d < q->nr; d++)
			free(q->docs[d].id);
		free(q->docs);
		free(q->qid);
	}
	free(r->q);
	strmap_clear(&r->index, 0);
	free(r->path);
	free(r->name);
	free(r->meta);
	memset(r, 0, sizeof(*r));
}

struct run_query *run_find(const struct run *r, const char *qid)
{
	struct strmap_entry *e = strmap_find(&r->index, qid, strlen(qid));

	return e ? &r->q[(uintptr_t)e->value - 1] : NULL;
}

/* Add question 'qid' first seen at 'line'; refuse one seen before. */
static struct run_query *add_query(struct run *r, const char *qid, long line)
{
	int added;
	struct strmap_entry *e = strmap_intern(&r->index, qid, strlen(qid), &added);
	struct run_query *q;

	if (!added) {
		q = &r->q[(uintptr_t)e->value - 1];
		error_at(r->path, line, 0, "question '%s' listed twice (first at line %ld)",
			 qid, q->line);
		return NULL;
	}
	ALLOC_GROW(r->q, r->nr + 1, r->alloc);
	q = &r->q[r->nr++];
	memset(q, 0, sizeof(*q));
	q->qid = xstrdup(qid);
	q->line = line;
	e->value = (void *)(uintptr_t)r->nr;
	return q;
}

static void add_doc(struct run_query *q, const char *id, double score, long line)
{
	ALLOC_GROW(q->docs, q->nr + 1, q->alloc);
	q->docs[q->nr].id = xstrdup(id);
	q->docs[q->nr].score = score;
	q->docs[q->nr].line = line;
	q->nr++;
}

/* Refuse a docid listed twice in 'q'. */
static int check_dups(const struct run *r, const struct run_query *q)
{
	struct strmap ids = STRMAP_INIT;
	int ret = 0;

	for (size_t i = 0; i < q->nr && !ret; i++) {
		int added;
		struct strmap_entry *e = strmap_intern(&ids, q->docs[i].id, strlen(q->docs[i].id), &added);

		if (added) {
			e->value = (void *)&q->docs[i];
		} else {
			const struct run_doc *prev = e->value;
			long line = q->docs[i].line > prev->line ? q->docs[i].line : prev->line;
			long first = q->docs[i].line > prev->line ? prev->line : q->docs[i].line;

			if (line)
				ret = error_at(r->path, line, 0,
					       "document '%s' listed twice for question '%s' (first at line %ld)",
					       q->docs[i].id, q->qid, first);
			else
				ret = error("%s: document '%s' listed twice for question '%s'",
					    r->path, q->docs[i].id, q->qid);
		}
	}
	strmap_clear(&ids, 0);
	return ret;
}

static int cmp_doc_rank(const void *a, const void *b)
{
	const struct run_doc *x = a, *y = b;

	return run_rank_cmp(x->score, x->id, y->score, y->id);
}

static int trec_group_to_run(struct trec_group *g, void *data)
{
	struct run *r = data;
	struct run_query *q = add_query(r, g->qid, g->nr ? g->lines[0].line : 0);

	if (!q)
		return -1;
	for (size_t i = 0; i < g->nr; i++)
		add_doc(q, g->lines[i].doc, g->lines[i].score, g->lines[i].line);
	r->nr_docs += (long)g->nr;
	if (check_dups(r, q) < 0)
		return -1;
	qsort(q->docs, q->nr, sizeof(*q->docs), cmp_doc_rank);
	return 0;
}

static int read_all(const char *path, struct strbuf *sb)
{
	gzFile gz = open_gz(path);
	int ret = 0;

	if (!gz)
		return -1;
	for (;;) {
		long n;

		strbuf_grow(sb, 1u << 20);
		n = gz_read_block(gz, path, sb->buf + sb->len, sb->alloc - sb->len - 1);
		if (n < 0) {
			ret = -1;
			break;
		}
		strbuf_setlen(sb, sb->len + (size_t)n);
		if (!n)
			break;
		if (sb->len > RUN_MAX_JSON_BYTES) {
			ret = error("'%s' is too large to load in memory", path);
			break;
		}
	}
	gzclose(gz);
	return ret;
}

static const char *json_type(const cJSON *j)
{
	if (cJSON_IsObject(j)) return "an object";
	if (cJSON_IsArray(j)) return "a list";
	if (cJSON_IsString(j)) return "a string";
	if (cJSON_IsNumber(j)) return "a number";
	if (cJSON_IsBool(j)) return "a boolean";
	if (cJSON_IsNull(j)) return "null";
	return "invalid";
}

static int parse_jsonl_meta(struct run *r, const cJSON *meta, long line)
{
	const cJSON *name;

	if (!cJSON_IsObject(meta))
		return error_at(r->path, line, 0, "'meta' is %s, not an object", json_type(meta));
	r->meta = cJSON_PrintUnformatted(meta);
	name = cJSON_GetObjectItemCaseSensitive(meta, "name");
	if (!cJSON_IsString(name))
		name = cJSON_GetObjectItemCaseSensitive(meta, "retriever");
	if (cJSON_IsString(name)) {
		free(r->name);
		r->name = xstrdup(name->valuestring);
	}
	return 0;
}

static int parse_jsonl_line(struct run *r, const cJSON *o, long line)
{
	const cJSON *qid = cJSON_GetObjectItemCaseSensitive(o, "qid");
	const cJSON *res = cJSON_GetObjectItemCaseSensitive(o, "results");
	const cJSON *abst = cJSON_GetObjectItemCaseSensitive(o, "abstained");
	const cJSON *it;
	struct run_query *q;
	char num[32];
	const char *id;

	if (cJSON_IsString(qid)) {
		id = qid->valuestring;
	} else if (cJSON_IsNumber(qid) && qid->valuedouble == floor(qid->valuedouble)) {
		snprintf(num, sizeof(num), "%.0f", qid->valuedouble);
		id = num;
	} else {
		return error_at(r->path, line, 0, qid ? "'qid' is %s, not a string" : "no 'qid' in the object",
				json_type(qid));
	}
	if (res && !cJSON_IsArray(res))
		return error_at(r->path, line, 0, "'results' is %s, not a list", json_type(res));
	if (abst && !cJSON_IsBool(abst))
		return error_at(r->path, line, 0, "'abstained' is %s, not true or false", json_type(abst));
	if (!(q = add_query(r, id, line)))
		return -1;
	q->abstained = cJSON_IsTrue(abst);
	cJSON_ArrayForEach(it, res) {
		if (cJSON_IsString(it)) {
			add_doc(q, it->valuestring, NAN, line);
		} else if (cJSON_IsObject(it)) {
			const cJSON *did = cJSON_GetObjectItemCaseSensitive(it, "id");
			const cJSON *sc = cJSON_GetObjectItemCaseSensitive(it, "score");
			double score = NAN;

			if (!did)
				did = cJSON_GetObjectItemCaseSensitive(it, "docid");
			if (!cJSON_IsString(did))
				return error_at(r->path, line, 0, "a result of question '%s' has no string 'id'", id);
			if (sc && !cJSON_IsNull(sc)) {
				if (!cJSON_IsNumber(sc) || !isfinite(sc->valuedouble))
					return error_at(r->path, line, 0,
							"score of '%s' for question '%s' is not a finite number",
							did->valuestring, id);
				score = sc->valuedouble;
			}
			add_doc(q, did->valuestring, score, line);
		} else {
			return error_at(r->path, line, 0, "a result of question '%s' is %s, not an id or an object",
					id, json_type(it));
		}
	}
	r->nr_docs += (long)q->nr;
	return check_dups(r, q);
}

static int parse_jsonl(struct run *r, char *buf, size_t len)
{
	long line = 0;
	size_t pos = 0;

	while (pos < len) {
		char *nl = memchr(buf + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - buf) : len;
		char *p = buf + pos;
		size_t n = end - pos;
		cJSON *o;
		int ret = 0;

		line++;
		pos = end + 1;
		while (n && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		while (n && (*p == ' ' || *p == '\t')) {
			p++;
			n--;
		}
		if (!n)
			continue;
		o = cJSON_ParseWithLength(p, n);
		if (!o)
			return error_at(r->path, line, 0, "not valid JSON");
		if (!cJSON_IsObject(o)) {
			ret = error_at(r->path, line, 0, "line is %s, not a JSON object", json_type(o));
		} else if (cJSON_GetObjectItemCaseSensitive(o, "meta") &&
			   !cJSON_GetObjectItemCaseSensitive(o, "qid")) {
			if (r->nr || r->meta)
				ret = error_at(r->path, line, 0, "a 'meta' line is only allowed first");
			else
				ret = parse_jsonl_meta(r, cJSON_GetObjectItemCaseSensitive(o, "meta"), line);
		} else {
			ret = parse_jsonl_line(r, o, line);
		}
		cJSON_Delete(o);
		if (ret < 0)
			return -1;
	}
	return 0;
}

static int parse_json_dict(struct run *r, const char *buf, size_t len)
{
	cJSON *root = cJSON_ParseWithLength(buf, len);
	const cJSON *qo, *d;
	int ret = 0;

	if (!root)
		return error("%s: not valid JSON (nor JSONL, nor a TREC run)", r->path);
	if (!cJSON_IsObject(root)) {
		ret = error("%s: the run is %s, not an object {qid: {docid: score}}", r->path, json_type(root));
		goto out;
	}
	cJSON_ArrayForEach(qo, root) {
		struct run_query *q;

		if (!cJSON_IsObject(qo)) {
			ret = error("%s: question '%s' maps to %s, not an object {docid: score}",
				    r->path, qo->string, json_type(qo));
			goto out;
		}
		if (!(q = add_query(r, qo->string, 0))) {
			ret = -1;
			goto out;
		}
		cJSON_ArrayForEach(d, qo) {
			if (!cJSON_IsNumber(d) || !isfinite(d->valuedouble)) {
				ret = error("%s: score of '%s' for question '%s' is not a finite number",
					    r->path, d->string, q->qid);
				goto out;
			}
			add_doc(q, d->string, d->valuedouble, 0);
		}
		r->nr_docs += (long)q->nr;
		if (check_dups(r, q) < 0) {
			ret = -1;
			goto out;
		}
		qsort(q->docs, q->nr, sizeof(*q->docs), cmp_doc_rank);
	}
out:
	cJSON_Delete(root);
	return ret;
}

/* Decide whether the content starting at 'p' (first byte '{') is JSONL. */
static bool looks_jsonl(const char *p, size_t len)
{
	const char *nl = memchr(p, '\n', len);
	cJSON *o = cJSON_ParseWithLength(p, nl ? (size_t)(nl - p) : len);
	bool yes = o && cJSON_IsObject(o) &&
		   (cJSON_GetObjectItemCaseSensitive(o, "qid") ||
		    cJSON_GetObjectItemCaseSensitive(o, "meta") ||
		    cJSON_GetObjectItemCaseSensitive(o, "results"));

	cJSON_Delete(o);
	return yes;
}

int run_load(struct run *r, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i = 0;
	int ret = -1;

	r->path = xstrdup(path);
	if (read_all(path, &sb) < 0)
		goto out;
	if (check_binary(path, sb.buf, sb.len) < 0)
		goto out;
	if (sb.len >= 3 && !memcmp(sb.buf, "\xef\xbb\xbf", 3))
		i = 3;
	while (i < sb.len && (sb.buf[i] == ' ' || sb.buf[i] == '\t' || sb.buf[i] == '\r' || sb.buf[i] == '\n'))
		i++;
	if (i == sb.len) {
		r->format = RUN_EMPTY;
		ret = 0;
		goto out;
	}
	if (sb.buf[i] == '[') {
		ret = error("%s: a JSON list is not a run; use JSONL (one object per line) or {qid: {docid: score}}",
			    path);
		goto out;
	}
	if (sb.buf[i] == '{') {
		if (looks_jsonl(sb.buf + i, sb.len - i)) {
			r->format = RUN_JSONL;
			ret = parse_jsonl(r, sb.buf, sb.len);
		} else {
			r->format = RUN_JSON;
			ret = parse_json_dict(r, sb.buf + i, sb.len - i);
		}
		goto out;
	}
	r->format = RUN_TREC;
	{
		/* scan the buffer already read, in collect mode */
		struct scan s;

		memset(&s, 0, sizeof(s));
		s.path = path;
		s.collect = true;
		s.fn = trec_group_to_run;
		s.data = r;
		s.len = sb.len;
		s.cap = sb.alloc;
		s.buf = strbuf_detach(&sb, NULL);
		ret = scan_run(&s);
		if (!ret && s.have_tag)
			r->name = xstrndup(s.buf + s.tag_off, s.tag_len);
		free(s.buf);
		free(s.lines);
		free(s.off);
		free(s.cl);
		strmap_clear(&s.seen, 0);
	}
out:
	strbuf_release(&sb);
	if (ret < 0) {
		run_release(r);
		return -1;
	}
	return 0;
}
