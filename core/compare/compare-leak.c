/*
 * compare-leak: the candidate's leaks for the gate's leak rule
 * (docs/access.md, "The gate").
 *
 * A candidate question leaks at k when, in any of the candidate's runs, one
 * of its first k ids is forbidden (results.h "leaks"); it is listed once,
 * with the forbidden ids of the first run that leaked it. Every question of
 * the candidate counts, also one a set change leaves out of the comparison:
 * a leak is never acceptable. The baseline's leaks only annotate ("also in
 * baseline"); a baseline that records none leaves that unknown.
 */
#include "compare/compare-internal.h"
#include "score/results.h"
#include "base/error.h"
#include "base/strmap.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* Add the question ids of 'r' that leak at 'k' to 'ids'; return how many
 * were new. */
static size_t add_leaking(struct strmap *ids, const struct results *r, long k)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nr; i++)
		if (results_leaks_at(&r->q[i], k) && !strmap_get(ids, r->q[i].id)) {
			strmap_put(ids, r->q[i].id, (void *)&r->q[i]);
			n++;
		}
	return n;
}

int cmp_leaks(struct compare *c, const struct results *const *base, size_t nb,
	      const struct results *const *cand, size_t nc, long k)
{
	struct strmap seen = STRMAP_INIT, in_base = STRMAP_INIT;
	size_t alloc = 0;

	for (size_t j = 0; j < nc; j++)
		if (cand[j]->leaks_absent) {
			strmap_clear(&seen, 0);
			return error("candidate '%s' records no leaks, though the set forbids ids: "
				     "it was saved by an evalset that did not record them, and the "
				     "gate's leak rule cannot be judged on it; score the run again "
				     "with evalset score --save", cand[j]->file ? cand[j]->file : "?");
		}
	c->leak_k = k;
	for (size_t j = 0; j < nb; j++)
		c->base_leaks_absent |= base[j]->leaks_absent;
	for (size_t j = 0; j < nb; j++)
		c->base_leaking += add_leaking(&in_base, base[j], k);
	for (size_t j = 0; j < nc; j++) {
		const struct results *r = cand[j];

		for (size_t i = 0; i < r->nr; i++) {
			const struct question_result *q = &r->q[i];
			size_t n = results_leaks_at(q, k);
			struct leak_cmp *l;

			if (!j)
				c->leak_forbidding += q->forbids;
			if (!n || strmap_get(&seen, q->id))
				continue;
			strmap_put(&seen, q->id, (void *)q);
			ALLOC_GROW(c->leaks, c->nr_leaks + 1, alloc);
			l = &c->leaks[c->nr_leaks++];
			l->id = xstrdup(q->id);
			l->nr = n;
			l->hits = xcalloc(n, sizeof(*l->hits));
			for (size_t h = 0; h < n; h++) {
				l->hits[h].rank = q->leaks[h].rank;
				l->hits[h].chunk = xstrdup(q->leaks[h].chunk);
				l->hits[h].entry = xstrdup(q->leaks[h].entry);
			}
			l->in_baseline = strmap_get(&in_base, q->id) != NULL;
		}
	}
	strmap_clear(&seen, 0);
	strmap_clear(&in_base, 0);
	return 0;
}

void cmp_leaks_release(struct compare *c)
{
	for (size_t i = 0; i < c->nr_leaks; i++) {
		for (size_t h = 0; h < c->leaks[i].nr; h++) {
			free(c->leaks[i].hits[h].chunk);
			free(c->leaks[i].hits[h].entry);
		}
		free(c->leaks[i].hits);
		free(c->leaks[i].id);
	}
	free(c->leaks);
}
