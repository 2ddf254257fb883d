/*
 * generate-steer: what steers the generator besides the prompt: personas
 * (--persona, spread over chunks), seed questions (--seed-questions: the
 * topics users ask about) and examples of real queries (--style-from: how
 * users ask), chosen per chunk; and the realism gap between the synthetic
 * questions and the real ones (core/llm/realism.h). Contract in generate.h,
 * shared state in generate-internal.h.
 *
 * Choice per chunk: seed questions and style examples are small corpora of
 * their own, indexed with the built-in BM25; the chunk's text is the query
 * and the best 3 are taken (seeds: only those sharing a term; style: filled
 * up to 3 with queries picked by a hash of the chunk id, so every chunk
 * sees examples). A persona is picked by a hash of the chunk id, so a chunk
 * keeps its persona whatever the selection or the shard. The steering text
 * is part of the request's journal key.
 */
#include "llm/generate-internal.h"
#include "llm/realism.h"
#include "base/error.h"
#include "base/fsutil.h"
#include "base/utf8.h"
#include "base/util.h"
#include "set/corpus.h"
#include "set/set.h"
#include "text/text.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEER_EXAMPLES 3

static void add_query(struct corpus *c, const char *text, const char *rel)
{
	struct chunk *ch;

	ALLOC_GROW(c->chunks, c->nr + 1, c->alloc);
	ch = &c->chunks[c->nr];
	memset(ch, 0, sizeof(*ch));
	ch->id = xstrfmt("%zu", c->nr);
	ch->text = xstrdup(text);
	ch->doc = rel ? xstrdup(rel) : NULL;   /* a real question's relevant chunk, for the gap */
	ch->start = ch->end = -1;
	c->nr++;
}

/* Read the queries of 'path' (one a line; blank lines and '#' comments skipped) into 'c'. */
static int read_queries(struct corpus *c, const char *path, const char *what)
{
	FILE *fp = fopen_regular(path);
	struct strbuf line = STRBUF_INIT;
	long nr = 0;
	int rc = 0;

	if (!fp)
		return -1;
	line.limit = 1 << 16;
	for (;;) {
		int got = strbuf_getline(&line, fp);
		if (got == EOF)
			break;
		nr++;
		if (got == -2) {
			rc = error_at(path, nr, 0, "line too long for a query");
			break;
		}
		strbuf_trim(&line);
		if (!line.len || line.buf[0] == '#')
			continue;
		if (!utf8_valid(line.buf, line.len, NULL)) {
			rc = error_at(path, nr, 0, "not valid UTF-8");
			break;
		}
		add_query(c, line.buf, NULL);
	}
	fclose(fp);
	strbuf_release(&line);
	if (!rc && !c->nr)
		rc = error("'%s' holds no %s (one a line)", path, what);
	return rc;
}

/* Is 'q' selected by the set filter 'key'='val' (origin or tag)? */
static bool matches(const struct question *q, const char *key, const char *val)
{
	if (!strcmp(key, "origin"))
		return !strcmp(origin_name(q->origin), val);
	return question_has_tag(q, val);
}

static int load_style(struct gen *g, const char *spec)
{
	const char *eq = strchr(spec, '=');

	if (eq && !path_exists(spec)) {
		char *key = xstrndup(spec, (size_t)(eq - spec));
		const char *val = eq + 1;
		int rc = 0;

		if (strcmp(key, "origin") && strcmp(key, "tag")) {
			rc = error("bad --style-from '%s': a filter is origin=NAME or tag=NAME, else a file of queries",
				   spec);
		} else {
			for (size_t i = 0; i < g->set->nr; i++) {
				const struct question *q = &g->set->q[i];
				if (q->text && matches(q, key, val))
					add_query(&g->styles, q->text, q->nr_relevant ? q->relevant[0].chunk : NULL);
			}
			if (!g->styles.nr)
				rc = error("--style-from '%s': no question of the set matches", spec);
		}
		free(key);
		return rc;
	}
	return read_queries(&g->styles, spec, "queries");
}

int gen_steer_load(struct gen *g)
{
	const struct gen_options *o = g->o;
	struct bm25_params p = BM25_PARAMS_INIT;
	struct bm25 init = BM25_INIT;

	p.language = o->set->corpus.language;
	if (o->seed_questions) {
		if (read_queries(&g->seeds, o->seed_questions, "seed questions"))
			return -1;
		g->seeds_ix = init;
		if (bm25_build(&g->seeds_ix, &g->seeds, &p))
			return -1;
		g->seeds_built = true;
	}
	if (o->style_from) {
		if (load_style(g, o->style_from))
			return -1;
		g->styles_ix = init;
		if (bm25_build(&g->styles_ix, &g->styles, &p))
			return -1;
		g->styles_built = true;
	}
	return 0;
}

void gen_steer_release(struct gen *g)
{
	if (g->seeds_built)
		bm25_release(&g->seeds_ix);
	if (g->styles_built)
		bm25_release(&g->styles_ix);
	corpus_release(&g->seeds);
	corpus_release(&g->styles);
}

const char *gen_persona(const struct gen *g, size_t chunk)
{
	const char *id = g->o->corpus->chunks[chunk].id;

	if (!g->o->nr_personas)
		return NULL;
	return g->o->personas[mix64(strhash(id, strlen(id)) ^ 0x5bd1e995) % g->o->nr_personas];
}

void gen_steering(struct gen *g, size_t chunk, struct strbuf *out)
{
	const struct chunk *ch = &g->o->corpus->chunks[chunk];
	const char *persona = gen_persona(g, chunk);
	struct bm25_hit hits[STEER_EXAMPLES];
	size_t n;

	if (persona)
		strbuf_addf(out, "Ask as this user would: %s\n", persona);
	if (g->seeds_built && (n = bm25_search(&g->seeds_ix, ch->text, STEER_EXAMPLES, hits))) {
		if (out->len)
			strbuf_addch(out, '\n');
		strbuf_addstr(out, "Users have asked about topics like these; ask about what the passage "
			      "says on such topics, in your own words:\n");
		for (size_t i = 0; i < n; i++)
			strbuf_addf(out, "- %s\n", g->seeds.chunks[hits[i].doc].text);
	}
	if (g->styles_built) {
		size_t pick[STEER_EXAMPLES], np;
		uint64_t h = mix64(strhash(ch->id, strlen(ch->id)));

		np = bm25_search(&g->styles_ix, ch->text, STEER_EXAMPLES, hits);
		for (size_t i = 0; i < np; i++)
			pick[i] = hits[i].doc;
		/* fill up with queries picked by the chunk's hash: every chunk sees examples */
		for (size_t tries = 0; np < STEER_EXAMPLES && np < g->styles.nr && tries < 4 * STEER_EXAMPLES; tries++) {
			size_t cand = (size_t)((h + tries * 0x9e3779b97f4a7c15ULL) % g->styles.nr);
			bool seen = false;
			for (size_t i = 0; i < np; i++)
				seen |= pick[i] == cand;
			if (!seen)
				pick[np++] = cand;
		}
		if (out->len)
			strbuf_addch(out, '\n');
		strbuf_addstr(out, "Real queries of this product's users, to show how they ask: write like them "
			      "(their length, wording, case, punctuation, even typos or bare keywords), "
			      "not about their topics:\n");
		for (size_t i = 0; i < np; i++)
			strbuf_addf(out, "- %s\n", g->styles.chunks[pick[i]].text);
	}
}

/* The overlap of 'text' with chunk id 'rel' when in the corpus, else with the chunk BM25 ranks first. */
static double overlap_of(struct gen *g, const char *text, const char *rel)
{
	const struct chunk *ch = rel ? corpus_get(g->o->corpus, rel) : NULL;

	if (!ch) {
		const struct bm25 *ix = gen_bm25(g);
		struct bm25_hit hit;
		if (!ix || !bm25_search(ix, text, 1, &hit))
			return 0;
		ch = &g->o->corpus->chunks[hit.doc];
	}
	return text_overlap(text, ch->text);
}

void gen_realism_mark(struct gen *g)
{
	for (size_t i = 0; i < g->set->nr; i++)
		if (g->set->q[i].origin == ORIGIN_SYNTHETIC)
			strmap_put(&g->before, g->set->q[i].id, (void *)1);
}

void gen_realism(struct gen *g)
{
	struct gen_stats *st = g->st;

	if (!g->styles_built)
		return;
	for (size_t i = 0; i < g->styles.nr; i++)
		realism_add(&st->real, g->styles.chunks[i].text,
			    overlap_of(g, g->styles.chunks[i].text, g->styles.chunks[i].doc));
	for (size_t i = 0; i < g->set->nr; i++) {
		const struct question *q = &g->set->q[i];
		if (q->origin != ORIGIN_SYNTHETIC || !q->text)
			continue;
		realism_add(strmap_get(&g->before, q->id) ? &st->before : &st->after, q->text,
			    overlap_of(g, q->text, q->nr_relevant ? q->relevant[0].chunk : NULL));
	}
}
