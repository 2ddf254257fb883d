/*
 * logimport: fold log records into query groups and decide labels.
 *
 * Stage one fills a struct part per reader: a table of the distinct raw
 * query forms the reader keeps, each with its tally, and the reader's own
 * document keys. A table slot holds the hash next to the pointer, so a
 * probe touches one slot and one record; records are folded in batches
 * whose passes ask for the memory the next pass reads, so that cache
 * misses overlap.
 *
 * A large plain JSON Lines file is read by two readers, one per half. The
 * raw forms are shared out by the top bit of their hash: each reader keeps
 * the records of its half and passes the others to the other reader in
 * rounds (struct exchange), so the two tables never hold the same form and
 * no tally is ever merged twice. Memory stays bounded by the distinct forms
 * and one round of passed records.
 *
 * Stage two merges the parts: the raw forms of both, in order of their
 * first record in the file, each find or become a raw form of struct
 * import (redacted and normalised once for the whole import), and its
 * tally is added into its group's. Forms and groups are therefore created in
 * the order a single reader creates them, and what a tally holds (sums,
 * minimum and maximum times, sketch unions) does not depend on the order
 * records are met in.
 *
 * Raw forms and document ids live in arenas, tallies in pools, each given
 * back at once.
 *
 * The import is four files sharing logs/logimport-internal.h, and calls go
 * one way, never back up:
 *
 *   logimport.c   the driver: options, import_read, the labels, releasing
 *     logpart.c     stage one: a reader's records folded into its part
 *     logmerge.c    stage two: the parts folded into the import
 *       logtally.c    what both stages use: arenas, hash tables, tallies,
 *                     document keys, the places of skipped records, halves
 */
#include "logs/logimport-internal.h"
#include "set/set.h"

#include "base/error.h"
#include "base/fsutil.h"
#include "base/progress.h"
#include "base/util.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SPLIT_MIN_DEFAULT (16LL << 20)

void import_options_init(struct import_options *o)
{
	memset(o, 0, sizeof(*o));
	o->format = LOG_FORMAT_AUTO;
	o->min_clicks = 2;
	o->min_dwell = 30;
	o->pii = PII_REDACT;
	o->min_count = 1;
	o->split_min = SPLIT_MIN_DEFAULT;
}

void import_init(struct import *im, const struct import_options *opt)
{
	memset(im, 0, sizeof(*im));
	im->opt = *opt;
	for (int h = 0; h < 2; h++) {
		/* forms' texts live in the shard arenas, group keys in their queries */
		im->shard[h].forms.borrowed = 1;
		im->shard[h].groups.borrowed = 1;
	}
}

/* Free what query 'q' owns outside the pools (its tally is pool memory). */
static void query_release(struct import_query *q)
{
	dedup_text_release(&q->dd);
	free(q->key);
	q->key = NULL;
}

void import_release_early(struct import *im)
{
	for (size_t i = 0; i < im->nr; i++)
		query_release(&im->q[i]);
	for (int h = 0; h < 2; h++) {
		struct import_shard *sh = &im->shard[h];

		strmap_clear(&sh->forms, 0);
		strmap_clear(&sh->groups, 0);
		free(sh->raws.slot);
		memset(&sh->raws, 0, sizeof(sh->raws));
	}
	free(im->form_list);
	im->form_list = NULL;
	im->nr_forms = im->alloc_forms = 0;
}

void import_release_tallies(struct import *im)
{
	for (int h = 0; h < 2; h++)
		import_arena_free(&im->shard[h].arena);
	for (size_t i = 0; i < im->nr_pools; i++)
		mempool_clear(&im->pools[i]);
	free(im->pools);
	im->pools = NULL;
	im->nr_pools = im->alloc_pools = 0;
	import_arena_free(&im->arena);
	import_docs_release(&im->docs);
}

void import_release(struct import *im)
{
	import_release_early(im);
	import_release_tallies(im);
	free(im->q);
	for (size_t i = 0; i < im->nr_logs; i++)
		free(im->logs[i].path);
	free(im->logs);
	for (size_t i = 0; i < im->st.nr_malformed_at; i++)
		free(im->st.malformed_at[i]);
	for (size_t i = 0; i < im->st.nr_missing_at; i++)
		free(im->st.missing_at[i]);
	memset(im, 0, sizeof(*im));
}

struct digest_job {
	const char *path;
	int rc;
	char sum[72];
};

/* Digest the file of 'arg' (a struct digest_job); a thread's body. */
static void *digest_main(void *arg)
{
	struct digest_job *dg = arg;
	dg->rc = file_sha256(dg->path, dg->sum);
	return NULL;
}

/*
 * Start 'fn'('arg') on a thread that runs only when a core is idle
 * (SCHED_IDLE; a normal thread when that is refused). The digest of a log
 * read by two readers runs so: in the readers' waits and the sequential
 * passes, not in their way. Return true when the thread started.
 */
static bool start_idle_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	struct sched_param sp = { 0 };
	bool ok = false;

	if (!pthread_attr_init(&attr)) {
#ifdef HAVE_SCHED_IDLE
		if (!pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED) &&
		    !pthread_attr_setschedpolicy(&attr, SCHED_IDLE) &&
		    !pthread_attr_setschedparam(&attr, &sp))
			ok = !pthread_create(t, &attr, fn, arg);
#else
		(void)sp; /* no idle class here (not Linux): a normal thread */
#endif
		pthread_attr_destroy(&attr);
	}
	return ok || !pthread_create(t, NULL, fn, arg);
}

int import_read(struct import *im, const char *path)
{
	struct part p[2];
	struct import_log lg;
	struct exchange ex;
	struct digest_job dg = { NULL, 0, { 0 } };
	pthread_t thread, digester;
	bool threaded = false, barrier = false, digesting = false;
	long long split = -1;
	int ret = -1;

	memset(p, 0, sizeof(p));
	memset(&lg, 0, sizeof(lg));
	if (im->opt.progress) {
		/* a second reader's count of an earlier file is in the base now */
		progress_update_lane(im->opt.progress, 1, 0);
		progress_update_lane(im->opt.progress, 0, im->opt.progress_base);
	}
	memset(&ex, 0, sizeof(ex));
	for (int k = 0; k < 2; k++) {
		p[k].opt = &im->opt;
		p[k].file_idx = im->nr_logs;
		p[k].self = k;
		p[k].other = &p[1 - k];
		p[k].bytes = (struct strbuf)STRBUF_INIT;
		p[k].out.bytes = (struct strbuf)STRBUF_INIT;
		p[k].batch = xcalloc(BATCH, sizeof(*p[k].batch));
	}
	if (log_reader_open(&p[0].r, path, im->opt.format) < 0)
		goto out;
	p[0].open = true;
	import_part_paths(&p[0]);
	if (p[0].r.format != LOG_FORMAT_JSONL && p[0].path[FIELD_QUERY].column < 0) {
		error_at(path, 1, 0, "no column '%s' for the query in the header",
			 p[0].path[FIELD_QUERY].text);
		goto out;
	}
	p[0].digest = true;
	/* a pre-aggregated table is read by one reader (its rows carry lists of sessions) */
	if (im->opt.split_min > 0 && !im->opt.field[FIELD_COUNT])
		split = log_reader_split(&p[0].r, im->opt.split_min, 50);
	if (split > 0) {
		struct stat sb;
		long long round_bytes = im->opt.split_round > 0 ? im->opt.split_round : ROUND_BYTES;

		if (log_reader_open_range(&p[1].r, path, split) < 0 || stat(path, &sb) < 0)
			goto out;
		p[1].open = true;
		import_part_paths(&p[1]);
		/* a split reader does not hash: a third thread digests the file meanwhile */
		p[0].digest = false;
		dg.path = path;
		digesting = start_idle_thread(&digester, digest_main, &dg);
		p[0].start = 0;
		p[0].len = p[1].start = split;
		p[1].len = (long long)sb.st_size - split;
		p[0].rounds = p[1].rounds = 1 + (long)(split / round_bytes);
		p[0].ex = p[1].ex = &ex;
		barrier = !pthread_barrier_init(&ex.barrier, NULL, 2);
		threaded = barrier && !pthread_create(&thread, NULL, import_read_shared, &p[1]);
		if (threaded) {
			import_read_shared(&p[0]);
			pthread_join(thread, NULL);
		} else {
			import_read_shared_here(p);
		}
	} else {
		import_read_records(&p[0]);
	}
	if (split > 0) {
		if (digesting)
			pthread_join(digester, NULL);
		else
			digest_main(&dg);
		digesting = false;
		if (dg.rc < 0)
			goto out;
		memcpy(p[0].sum, dg.sum, sizeof(p[0].sum));
	}
	if (p[0].failed || p[1].failed)
		goto out;
	if (p[0].no_signal + p[1].no_signal) {
		struct place at = p[p[0].silent.nr ? 0 : 1].silent.at[0];
		long line = at.line + (at.half ? p[0].r.next_line - 1 : 0);

		error_at(path, line, 0, "record names a document (field '%s') but has no signal "
			 "field ('%s'; %lu such record%s): map the field that says what "
			 "happened with --field signal=PATH, or pass --assume-click if such "
			 "records are clicks", p[0].path[FIELD_DOC].text, p[0].path[FIELD_SIGNAL].text,
			 p[0].no_signal + p[1].no_signal,
			 p[0].no_signal + p[1].no_signal == 1 ? "" : "s");
		goto out;
	}

	memcpy(lg.digest, p[0].sum, sizeof(lg.digest));
	lg.gzip = log_reader_gzip(&p[0].r);
	lg.format = p[0].r.format;
	lg.path = xstrdup(path);
	lg.records = p[0].records + p[1].records;
	lg.readers = split > 0 ? 2 : 1;
	import_merge_parts(im, path, p, split > 0 ? p[0].r.next_line - 1 : 0);
	ALLOC_GROW(im->logs, im->nr_logs + 1, im->alloc_logs);
	im->logs[im->nr_logs++] = lg;
	ret = 0;
out:
	if (digesting)
		pthread_join(digester, NULL);
	if (barrier)
		pthread_barrier_destroy(&ex.barrier);
	import_part_release(&p[0]);
	import_part_release(&p[1]);
	return ret;
}

/* ---- labels ---- */

struct count_key {
	unsigned long count;
	size_t order, at;  /* 'at': index into im->q */
};

static int by_count(const void *a, const void *b)
{
	const struct count_key *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Sort the queries of 'im' by count, most frequent first (ties: first seen first). */
static void sort_queries(struct import *im)
{
	struct count_key *k = xcalloc(im->nr + 1, sizeof(*k));
	struct import_query *sorted = xcalloc(im->nr + 1, sizeof(*sorted));

	/* sort small keys, then move each (large) query once */
	for (size_t i = 0; i < im->nr; i++) {
		k[i].count = im->q[i].t.count;
		k[i].order = im->q[i].order;
		k[i].at = i;
	}
	qsort(k, im->nr, sizeof(*k), by_count);
	for (size_t i = 0; i < im->nr; i++)
		sorted[i] = im->q[k[i].at];
	free(im->q);
	im->q = sorted;
	im->alloc = im->nr + 1;
	free(k);
}

static int by_id(const void *a, const void *b)
{
	const struct import_doc *x = a, *y = b;
	return strcmp(x->id, y->id);
}

/* Give every group the text of its most frequent form (ties: the form seen first). */
static void choose_texts(struct import *im)
{
	for (size_t i = 0; i < im->nr_forms; i++)
		im->form_list[i]->count = 0;
	for (int h = 0; h < 2; h++)
		for (size_t i = 0; i < im->shard[h].raws.cap; i++) {
			struct raw *r = im->shard[h].raws.slot[i].p;
			if (r)
				r->form->count += r->count;
		}
	for (size_t i = 0; i < im->nr; i++)
		im->q[i].text_count = 0;
	for (size_t i = 0; i < im->nr_forms; i++) {
		struct form *f = im->form_list[i];
		if (f->group >= 0 && f->count > im->q[f->group].text_count) {
			im->q[f->group].text_count = f->count;
			im->q[f->group].text = f->text;
		}
	}
}

/* Sort the documents and decide the labels of every other query ('half' of them). */
static void label_half(void *ctx, int half)
{
	struct import *im = ctx;

	for (size_t i = (size_t)half; i < im->nr; i += 2) {
		struct import_tally *t = &im->q[i].t;

		if (t->count < (unsigned long)im->opt.min_count)
			continue;
		/* the order records came in (or readers split them) does not show */
		if (t->nr_docs > 1)
			qsort(t->docs, t->nr_docs, sizeof(t->docs[0]), by_id);
		/* pool memory: given back with the pools */
		t->dkeys = t->dtab = NULL;
		t->dcap = 0;
		im->q[i].nr_labels = 0;
		for (size_t d = 0; d < t->nr_docs; d++) {
			struct import_doc *doc = &t->docs[d];
			doc->grade = 0;
			if (sketch_count(&doc->sessions, IMPORT_DOC_SKETCH) >= (double)im->opt.min_clicks) {
				doc->grade = 2 * doc->positive >= t->positive ? 2 : 1;
				im->q[i].nr_labels++;
			}
		}
	}
}

void import_label(struct import *im)
{
	size_t kept = 0;

	choose_texts(im);
	im->st.pii_dropped_queries = 0;
	for (size_t i = 0; i < im->nr_forms; i++)
		im->st.pii_dropped_queries += im->form_list[i]->group == -1;
	import_run_halves(label_half, im, im->nr > 4096);
	for (size_t i = 0; i < im->nr; i++) {
		struct import_query *q = &im->q[i];

		if (q->t.count < (unsigned long)im->opt.min_count) {
			im->st.below_min_count++;
			query_release(q);
			continue;
		}
		/* a set cannot hold it (set_save would refuse the whole import) */
		if (q->text && strlen(q->text) > SET_MAX_SCALAR_BYTES) {
			im->st.too_long++;
			query_release(q);
			continue;
		}
		if (q->nr_labels)
			im->st.labelled++;
		else
			im->st.unlabelled++;
		if (kept != i)
			im->q[kept] = *q;
		kept++;
	}
	im->nr = kept;
	/* the group maps hold indexes from before the filter: they are done with */
	for (int h = 0; h < 2; h++)
		strmap_clear(&im->shard[h].groups, 0);
	sort_queries(im);
}
