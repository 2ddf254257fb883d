/*
 * pool: building the judging worksheet from a set and runs, checking it
 * against a set and corpus, and counting it (see pool.h). The YAML form is
 * in pool-yaml.c.
 *
 * Invariants of a built pool: no pair is labelled in the set it was built
 * from; each (question, chunk) appears once; found_by lists the runs in the
 * order given, each with the 1-based rank at which it returned the chunk.
 */
#include "pool/pool.h"
#include "set/corpus.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "score/run.h"
#include "set/set.h"
#include "base/strmap.h"
#include "base/util.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- releasing ---- */

static void pair_release(struct pool_pair *pp)
{
	free(pp->chunk);
	free(pp->title);
	free(pp->text);
	for (size_t i = 0; i < pp->nr_found; i++)
		free(pp->found[i].run);
	free(pp->found);
	free(pp->judge);
	free(pp->prompt);
	free(pp->reason);
	free(pp->note);
	free(pp->reviewed_by);
	free(pp->reviewed_at);
	free(pp->llm_judge);
}

void pool_release(struct pool *p)
{
	for (size_t i = 0; i < p->nr; i++) {
		for (size_t j = 0; j < p->q[i].nr; j++)
			pair_release(&p->q[i].pairs[j]);
		free(p->q[i].pairs);
		free(p->q[i].id);
		free(p->q[i].text);
	}
	free(p->q);
	for (size_t i = 0; i < p->nr_runs; i++) {
		free(p->runs[i].name);
		free(p->runs[i].path);
		free(p->runs[i].sha256);
	}
	free(p->runs);
	free(p->set_name);
	free(p->set_path);
	free(p->set_version);
	free(p->set_digest);
	free(p->corpus_path);
	free(p->corpus_fingerprint);
	free(p->file);
	*p = (struct pool)POOL_INIT;
}

const char *pool_pair_judge(const struct pool_pair *pp)
{
	return pp->judge ? pp->judge : "human";
}

struct pool_question *pool_find(const struct pool *p, const char *id)
{
	for (size_t i = 0; i < p->nr; i++)
		if (!strcmp(p->q[i].id, id))
			return &p->q[i];
	return NULL;
}

void pool_count(const struct pool *p, struct pool_counts *out)
{
	memset(out, 0, sizeof(*out));
	out->questions = p->nr;
	for (size_t i = 0; i < p->nr; i++)
		for (size_t j = 0; j < p->q[i].nr; j++) {
			const struct pool_pair *pp = &p->q[i].pairs[j];
			out->pairs++;
			if (pp->grade < 0)
				continue;
			out->graded++;
			out->by_grade[pp->grade]++;
			if (starts_with(pool_pair_judge(pp), "llm:"))
				out->llm++;
			else
				out->human++;
		}
}

/* ---- building ---- */

/* Return the file name of 'path' without directories and known extensions; caller frees. */
static char *run_name_of(const char *path)
{
	static const char *const exts[] = { ".gz", ".trec", ".run", ".txt", ".jsonl", ".json", ".tsv" };
	const char *slash = strrchr(path, '/');
	char *name = xstrdup(slash ? slash + 1 : path);
	bool cut = true;

	while (cut) {
		cut = false;
		for (size_t i = 0; i < ARRAY_SIZE(exts); i++)
			if (ends_with(name, exts[i]) && strlen(name) > strlen(exts[i])) {
				name[strlen(name) - strlen(exts[i])] = '\0';
				cut = true;
			}
	}
	if (!*name) {
		free(name);
		name = xstrdup("run");
	}
	return name;
}

static long best_rank(const struct pool_pair *pp)
{
	long best = 0;

	for (size_t i = 0; i < pp->nr_found; i++)
		if (!best || pp->found[i].rank < best)
			best = pp->found[i].rank;
	return best;
}

static int cmp_pair(const void *a, const void *b)
{
	const struct pool_pair *x = a, *y = b;
	long rx = best_rank(x), ry = best_rank(y);

	if (rx != ry)
		return rx < ry ? -1 : 1;
	if (x->nr_found != y->nr_found)
		return x->nr_found > y->nr_found ? -1 : 1;
	return strcmp(x->chunk, y->chunk);
}

int pool_build(struct pool *p, const struct set *s, const char *set_path, const char *tag,
	       struct run *runs, const char *const *paths, size_t nr, long depth,
	       const struct corpus *c, long *not_in_corpus)
{
	char digest[72];
	struct strmap names = STRMAP_INIT;

	*not_in_corpus = 0;
	p->schema = POOL_SCHEMA;
	p->set_name = xstrdup(s->name);
	p->set_path = xstrdup(set_path);
	p->set_version = xstrdup(tag);
	set_digest(s, digest);
	p->set_digest = xstrdup(digest);
	p->depth = depth;
	if (c) {
		char fp[72];
		corpus_fingerprint(c, fp);
		p->corpus_path = xstrdup(c->path);
		p->corpus_fingerprint = xstrdup(fp);
	}
	for (size_t r = 0; r < nr; r++) {
		struct pool_run *pr;
		char *name = run_name_of(paths[r]), sha[72];

		for (int n = 2; strmap_get(&names, name); n++) {
			char *base = run_name_of(paths[r]);
			free(name);
			name = xstrfmt("%s-%d", base, n);
			free(base);
		}
		strmap_put(&names, name, (void *)1);
		ALLOC_GROW(p->runs, p->nr_runs + 1, p->alloc_runs);
		pr = &p->runs[p->nr_runs++];
		pr->name = name;
		pr->path = xstrdup(paths[r]);
		pr->sha256 = !file_sha256(paths[r], sha) ? xstrdup(sha) : NULL;
	}
	strmap_clear(&names, 0);

	for (size_t i = 0; i < s->nr; i++) {
		const struct question *q = &s->q[i];
		struct pool_question *pq;
		struct strmap seen = STRMAP_INIT;  /* chunk -> pair index + 1 */

		if (!q->answerable)
			continue;
		ALLOC_GROW(p->q, p->nr + 1, p->alloc);
		pq = &p->q[p->nr++];
		memset(pq, 0, sizeof(*pq));
		pq->id = xstrdup(q->id);
		pq->text = xstrdup(q->text);
		for (size_t r = 0; r < nr; r++) {
			const struct run_query *rq = run_find(&runs[r], q->id);
			for (size_t d = 0; rq && d < rq->nr && (long)d < depth; d++) {
				const char *doc = rq->docs[d].id;
				uintptr_t at;
				struct pool_pair *pp;
				const struct chunk *ch = NULL;

				if (question_grade(q, doc) >= 0)
					continue;
				if (c && !(ch = corpus_get(c, doc))) {
					(*not_in_corpus)++;
					continue;
				}
				at = (uintptr_t)strmap_get(&seen, doc);
				if (!at) {
					ALLOC_GROW(pq->pairs, pq->nr + 1, pq->alloc);
					pp = &pq->pairs[pq->nr++];
					memset(pp, 0, sizeof(*pp));
					pp->chunk = xstrdup(doc);
					pp->grade = -1;
					pp->llm_grade = -1;
					if (ch) {
						pp->title = xstrdup(ch->title);
						pp->text = xstrdup(ch->text);
					}
					strmap_put(&seen, doc, (void *)(uintptr_t)pq->nr);
				} else {
					pp = &pq->pairs[at - 1];
				}
				ALLOC_GROW(pp->found, pp->nr_found + 1, pp->alloc_found);
				pp->found[pp->nr_found].run = xstrdup(p->runs[r].name);
				pp->found[pp->nr_found].rank = (long)d + 1;
				pp->nr_found++;
			}
		}
		strmap_clear(&seen, 0);
		if (pq->nr > 1)
			qsort(pq->pairs, pq->nr, sizeof(*pq->pairs), cmp_pair);
	}
	return 0;
}

int pool_check(const struct pool *p, const struct set *s, const struct corpus *c)
{
	const char *name = p->file ? p->file : "pool";
	struct set_lookup by_id;
	int problems = 0;

	if (s)
		set_lookup_init(&by_id, s);
	for (size_t i = 0; i < p->nr; i++) {
		const struct pool_question *pq = &p->q[i];
		if (s && !set_lookup_find(&by_id, pq->id)) {
			error_at(name, pq->line, pq->col, "unknown question '%s' (not in set '%s')", pq->id,
				 s->name ? s->name : "?");
			problems++;
		}
		for (size_t j = 0; c && j < pq->nr; j++)
			if (!corpus_get(c, pq->pairs[j].chunk)) {
				struct strbuf mean = STRBUF_INIT;

				corpus_did_you_mean(c, pq->pairs[j].chunk, &mean);
				error_at(name, pq->pairs[j].line, pq->pairs[j].col,
					 "unknown chunk '%s' for question '%s' (not in corpus '%s')%s",
					 pq->pairs[j].chunk, pq->id, c->path, mean.buf);
				strbuf_release(&mean);
				problems++;
			}
	}
	if (s)
		set_lookup_release(&by_id);
	return problems;
}

/* ---- paths relative to the pool file ---- */

char *pool_path_for_file(const char *target, const char *pool_file)
{
	char *pool_dir = dir_name(pool_file);
	char abs_t[PATH_MAX], abs_d[PATH_MAX];
	struct strbuf sb = STRBUF_INIT;
	size_t common = 0, i;

	if (target[0] == '/' || !realpath(target, abs_t) || !realpath(pool_dir, abs_d)) {
		free(pool_dir);
		return xstrdup(target);
	}
	free(pool_dir);
	/* the longest common prefix that ends at a path component */
	for (i = 0; abs_t[i] && abs_t[i] == abs_d[i]; i++)
		if (abs_t[i] == '/')
			common = i;
	if (!abs_t[i] && (!abs_d[i] || abs_d[i] == '/'))
		common = i;
	else if (!abs_d[i] && abs_t[i] == '/')
		common = i;
	/* one ".." per component of the pool directory below the common prefix */
	for (const char *d = abs_d + common; *d; d++)
		if (*d == '/' && d[1])
			strbuf_addstr(&sb, "../");
	if (abs_t[common] == '/')
		strbuf_addstr(&sb, abs_t + common + 1);
	else
		strbuf_addstr(&sb, abs_t + common);
	if (!sb.len)
		strbuf_addstr(&sb, ".");
	else if (sb.buf[sb.len - 1] == '/')
		strbuf_setlen(&sb, sb.len - 1);
	return strbuf_detach(&sb, NULL);
}

char *pool_resolve_path(const char *path, const char *pool_file)
{
	char *dir, *joined;

	if (path[0] == '/')
		return xstrdup(path);
	dir = dir_name(pool_file);
	joined = path_join(dir, path);
	free(dir);
	if (path_exists(joined) || !path_exists(path))
		return joined;
	free(joined);
	return xstrdup(path);
}

/* ---- merging shard worksheets ---- */

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* True when the grades of 'a' and 'b' say the same (grade, judge, prompt). */
static bool same_grade(const struct pool_pair *a, const struct pool_pair *b)
{
	return a->grade == b->grade && !strcmp(pool_pair_judge(a), pool_pair_judge(b)) &&
	       same_str(a->prompt, b->prompt);
}

static void take_str(char **dst, const char *src)
{
	free(*dst);
	*dst = xstrdup(src);
}

/* Give 'to' the grade of 'from' with everything recorded about it. */
static void take_grade(struct pool_pair *to, const struct pool_pair *from)
{
	to->grade = from->grade;
	take_str(&to->judge, from->judge);
	take_str(&to->prompt, from->prompt);
	take_str(&to->reason, from->reason);
	take_str(&to->reviewed_by, from->reviewed_by);
	take_str(&to->reviewed_at, from->reviewed_at);
	to->llm_grade = from->llm_grade;
	take_str(&to->llm_judge, from->llm_judge);
	if (from->note)
		take_str(&to->note, from->note);
}

int pool_merge(struct pool *into, const struct pool *shards, const char *const *names, size_t nr,
	       struct pool_merge_counts *mc)
{
	struct strmap qidx = STRMAP_INIT;
	size_t **taken = xcalloc(into->nr + 1, sizeof(*taken));  /* per pair: shard + 1 that graded it */
	int problems = 0;

	memset(mc, 0, sizeof(*mc));
	for (size_t i = 0; i < into->nr; i++) {
		strmap_put(&qidx, into->q[i].id, (void *)(uintptr_t)(i + 1));
		taken[i] = xcalloc(into->q[i].nr + 1, sizeof(**taken));
	}
	for (size_t s = 0; s < nr && !problems; s++) {
		const struct pool *from = &shards[s];
		const char *name = names[s];
		if (!same_str(into->set_name, from->set_name) || !same_str(into->set_version, from->set_version) ||
		    !same_str(into->set_digest, from->set_digest)) {
			error("'%s' is a worksheet of set %s@%s, not of %s@%s: not a shard of this pool", name,
			      from->set_name ? from->set_name : "?",
			      from->set_version ? from->set_version : "working-copy",
			      into->set_name ? into->set_name : "?",
			      into->set_version ? into->set_version : "working-copy");
			problems++;
			break;
		}
		for (size_t i = 0; i < from->nr && problems < 20; i++) {
			const struct pool_question *fq = &from->q[i];
			uintptr_t at = (uintptr_t)strmap_get(&qidx, fq->id);
			struct pool_question *q = at ? &into->q[at - 1] : NULL;
			if (!q) {
				problems++;
				error_at(name, fq->line, fq->col, "question '%s' is not in the pool: not a shard of it",
					 fq->id);
				continue;
			}
			for (size_t j = 0; j < fq->nr; j++) {
				const struct pool_pair *fp = &fq->pairs[j];
				size_t k = j;
				/* pairs keep the pool's order: look at the same place first */
				if (k >= q->nr || strcmp(q->pairs[k].chunk, fp->chunk))
					for (k = 0; k < q->nr && strcmp(q->pairs[k].chunk, fp->chunk); k++)
						;
				if (k == q->nr) {
					problems++;
					error_at(name, fp->line, fp->col,
						 "pair (%s, %s) is not in the pool: not a shard of it", fq->id, fp->chunk);
					continue;
				}
				struct pool_pair *pp = &q->pairs[k];
				size_t *by = &taken[at - 1][k];
				if (fp->grade < 0)
					continue;
				if (pp->grade < 0) {
					take_grade(pp, fp);
					*by = s + 1;
					mc->taken++;
				} else if (same_grade(pp, fp)) {
					mc->same++;
				} else if (!*by) {
					/* graded in the pool itself (a person, an earlier judge): kept */
					mc->kept++;
				} else {
					problems++;
					error_at(name, fp->line, fp->col, "pair (%s, %s) has grade %d by %s, but '%s' "
						 "graded it %d by %s: the shards overlap", fq->id, fp->chunk, fp->grade,
						 pool_pair_judge(fp), names[*by - 1], pp->grade, pool_pair_judge(pp));
				}
			}
		}
	}
	for (size_t i = 0; i < into->nr; i++)
		for (size_t j = 0; j < into->q[i].nr; j++)
			mc->ungraded += into->q[i].pairs[j].grade < 0;
	for (size_t i = 0; i < into->nr; i++)
		free(taken[i]);
	free(taken);
	strmap_clear(&qidx, 0);
	return problems ? -1 : 0;
}
