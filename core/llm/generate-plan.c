/*
 * generate-plan: what one `evalset generate` asks for (contract in
 * generate.h): the kinds, the selected chunks, the shard, one item per
 * (chunk, kind), each item's journal key, and the messages rendered for it
 * in the language its questions are written in.
 *
 * Invariants: selection and sharding depend only on chunk ids, --seed and
 * the shard, never on corpus order or on earlier runs, so shards partition
 * any selection and a rerun plans the same keys; a key changes whenever the
 * chunk text, its neighbour, the kind, the prompt, the model, the seed,
 * --per-chunk or a follow-up's earlier question does.
 *
 * The lowest of the generate files: it calls none of the others.
 */
#include "llm/generate-internal.h"
#include "set/corpus.h"
#include "base/digest.h"
#include "base/error.h"
#include "text/lang.h"
#include "set/set.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[GEN_NR_KINDS] = {
	"factoid", "paraphrase", "multi-hop", "unanswerable", "follow-up",
};

const char *gen_kind_name(enum gen_kind k)
{
	return k < GEN_NR_KINDS ? kind_names[k] : "?";
}

int gen_kind_parse(const char *s, size_t len)
{
	for (int k = 0; k < GEN_NR_KINDS; k++)
		if (strlen(kind_names[k]) == len && !memcmp(kind_names[k], s, len))
			return k;
	if (len == 8 && !memcmp(s, "multihop", 8))
		return GEN_MULTIHOP;
	if (len == 8 && !memcmp(s, "followup", 8))
		return GEN_FOLLOWUP;
	return -1;
}

int gen_kinds_parse(const char *list, unsigned *mask)
{
	const char *s = list;

	*mask = 0;
	while (*s) {
		size_t len = strcspn(s, ",");
		int k = gen_kind_parse(s, len);
		if (k < 0)
			return error("unknown kind '%.*s' (known: factoid, paraphrase, multi-hop, unanswerable, follow-up)",
				     (int)len, s);
		*mask |= 1u << k;
		s += len;
		if (*s == ',')
			s++;
	}
	if (!*mask)
		return error("no kinds given");
	return 0;
}

/*
 * Return the language questions about 'ch' are written in: --question-language,
 * else the corpus's language from the set, else the one the chunk's text is in.
 */
const struct lang *gen_question_lang(const struct gen *g, const struct chunk *ch)
{
	if (g->o->question_language)
		return lang_get(g->o->question_language);
	if (g->o->set->corpus.language)
		return lang_get(g->o->set->corpus.language);
	return lang_detect(ch->text, strlen(ch->text));
}

int gen_render(struct gen *g, const struct item *it, struct strbuf *sys, struct strbuf *user)
{
	const struct corpus *c = g->o->corpus;
	const struct chunk *ch = &c->chunks[it->chunk];
	const struct chunk *nb = it->neighbour != SIZE_MAX ? &c->chunks[it->neighbour] : NULL;
	const struct question *eq = it->earlier != SIZE_MAX ? &g->set->q[it->earlier] : NULL;
	char n[32];
	struct prompt_var vars[] = {
		{ "chunk.text", ch->text }, { "chunk.title", ch->title ? ch->title : "" },
		{ "chunk.id", ch->id }, { "n", n }, { "kind", gen_kind_name(it->kind) },
		{ "neighbour.text", nb ? nb->text : "" },
		{ "neighbour.title", nb && nb->title ? nb->title : "" },
		{ "neighbour.id", nb ? nb->id : "" },
		{ "earlier.text", eq ? eq->text : "" },
		{ "earlier.answer", eq && eq->answer ? eq->answer : "" },
		{ "language", NULL },
		{ "steering", NULL },
	};
	struct strbuf steer = STRBUF_INIT;
	const struct prompt *p = &g->prompts[it->kind];
	const struct lang *l = gen_question_lang(g, ch);

	vars[ARRAY_SIZE(vars) - 2].value = l == lang_und() ? "the language of the passage" : lang_name(l);

	snprintf(n, sizeof(n), "%ld", g->o->per_chunk);
	gen_steering(g, it->chunk, &steer);
	vars[ARRAY_SIZE(vars) - 1].value = steer.buf;
	if (prompt_render(p->system, vars, ARRAY_SIZE(vars), sys) ||
	    prompt_render(p->user, vars, ARRAY_SIZE(vars), user)) {
		strbuf_release(&steer);
		return -1;
	}
	/* a template without {{steering}} gets it at the end of the user message */
	if (steer.len && !strstr(p->user, "steering}}") && !strstr(p->system, "steering}}")) {
		strbuf_addstr(user, "\n\n");
		strbuf_add(user, steer.buf, steer.len);
	}
	strbuf_release(&steer);
	return 0;
}

static const char *chunk_digest(struct gen *g, size_t i)
{
	if (!g->chunk_digests[i]) {
		const struct chunk *c = &g->o->corpus->chunks[i];
		char d[72];
		sha256_hex(c->text, strlen(c->text), d);
		g->chunk_digests[i] = xstrdup(d);
	}
	return g->chunk_digests[i];
}

static void make_key(struct gen *g, struct item *it)
{
	struct strbuf sb = STRBUF_INIT;
	char d[72];

	strbuf_addf(&sb, "%s", chunk_digest(g, it->chunk));
	if (it->neighbour != SIZE_MAX)
		strbuf_addf(&sb, "+%s", chunk_digest(g, it->neighbour));
	strbuf_addf(&sb, "\n%s\n%s\n%s\n%ld\n%d\n%ld", gen_kind_name(it->kind), g->prompts[it->kind].digest,
		    g->o->llm.model ? g->o->llm.model : "", g->o->seed, 0, g->o->per_chunk);
	{
		/* steering (persona, seed topics, style examples) changes the request */
		struct strbuf steer = STRBUF_INIT;
		gen_steering(g, it->chunk, &steer);
		if (steer.len) {
			char sd[72];
			sha256_hex(steer.buf, steer.len, sd);
			strbuf_addf(&sb, "\n%s", sd);
		}
		strbuf_release(&steer);
	}
	if (it->earlier != SIZE_MAX) {
		/* a follow-up to another question, or to the same one reworded, is a new request */
		const struct question *eq = &g->set->q[it->earlier];
		struct strbuf past = STRBUF_INIT;
		char ed[72];

		strbuf_addf(&past, "%s\n%s\n%s\n", eq->id, eq->text, eq->answer ? eq->answer : "");
		gen_history_text(eq, &past);
		sha256_hex(past.buf, past.len, ed);
		strbuf_addf(&sb, "\nearlier %s", ed);
		strbuf_release(&past);
	}
	sha256_hex(sb.buf, sb.len, d);
	snprintf(it->key, sizeof(it->key), "g-%.32s", d + 7);
	strbuf_release(&sb);
}

struct ranked {
	uint64_t rank;
	size_t index;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

/* Fill 'out' with the selected corpus indexes, in corpus order. Return 0 or -1. */
static int select_chunks(struct gen *g, size_t **out, size_t *nr)
{
	const struct corpus *c = g->o->corpus;
	size_t *sel = NULL, n = 0;

	if (g->o->chunk_ids) {
		const char *s = g->o->chunk_ids;
		sel = xcalloc(c->nr + 1, sizeof(*sel));
		while (*s) {
			size_t len = strcspn(s, ",");
			char *id = xstrndup(s, len);
			const struct chunk *ch = corpus_get(c, id);
			if (!ch) {
				struct strbuf mean = STRBUF_INIT;

				corpus_did_you_mean(c, id, &mean);
				error("unknown chunk '%s' in --chunks (not in '%s')%s", id, c->path, mean.buf);
				strbuf_release(&mean);
				free(id);
				free(sel);
				return -1;
			}
			free(id);
			if (n < c->nr + 1)
				sel[n++] = (size_t)(ch - c->chunks);
			s += len;
			if (*s == ',')
				s++;
		}
		qsort(sel, n, sizeof(*sel), cmp_size);
		/* drop repeats */
		{
			size_t u = 0;
			for (size_t i = 0; i < n; i++)
				if (!u || sel[u - 1] != sel[i])
					sel[u++] = sel[i];
			n = u;
		}
	} else {
		sel = xcalloc(c->nr + 1, sizeof(*sel));
		for (size_t i = 0; i < c->nr; i++)
			sel[n++] = i;
		if (g->o->sample > 0 && (size_t)g->o->sample < n) {
			struct ranked *r = xcalloc(n, sizeof(*r));
			for (size_t i = 0; i < n; i++) {
				const char *id = c->chunks[i].id;
				r[i].rank = mix64(strhash(id, strlen(id)) ^ mix64((uint64_t)g->o->seed + 1));
				r[i].index = i;
			}
			qsort(r, n, sizeof(*r), cmp_ranked);
			n = (size_t)g->o->sample;
			for (size_t i = 0; i < n; i++)
				sel[i] = r[i].index;
			free(r);
			qsort(sel, n, sizeof(*sel), cmp_size);
		}
	}
	if (g->o->shard_n > 1) {
		size_t u = 0;
		for (size_t i = 0; i < n; i++) {
			const char *id = c->chunks[sel[i]].id;
			if (mix64(strhash(id, strlen(id))) % (uint64_t)g->o->shard_n == (uint64_t)(g->o->shard_i - 1))
				sel[u++] = sel[i];
		}
		n = u;
	}
	*out = sel;
	*nr = n;
	return 0;
}

/* Return true when 'q' can be the earlier turn of a follow-up: an
 * answerable question with a text, and a relevant chunk. */
static bool can_lead(const struct question *q)
{
	return q->answerable && q->text && *q->text && q->nr_relevant;
}

size_t gen_earlier(struct gen *g, size_t chunk)
{
	const struct corpus *c = g->o->corpus;
	const struct chunk *ch = &c->chunks[chunk];
	const struct set *s = g->set;

	/* the first in set order: questions added later (this run's follow-ups
	 * among them) come after it, so a rerun picks the same one */
	for (size_t i = 0; i < s->nr; i++) {
		const struct question *q = &s->q[i];
		if (!can_lead(q))
			continue;
		for (size_t j = 0; j < q->nr_relevant; j++) {
			const struct chunk *other;

			if (q->relevant[j].grade <= 0)
				continue;
			if (!strcmp(q->relevant[j].chunk, ch->id))
				return i;
			/* a chunk without a document is its own document */
			other = ch->doc ? corpus_get(c, q->relevant[j].chunk) : NULL;
			if (other && other->doc && !strcmp(other->doc, ch->doc))
				return i;
		}
	}
	return SIZE_MAX;
}

int gen_plan(struct gen *g)
{
	const struct gen_options *o = g->o;
	struct gen_stats *st = g->st;
	size_t *sel = NULL, nr_sel = 0;

	g->chunk_digests = xcalloc(o->corpus->nr + 1, sizeof(char *));
	if (select_chunks(g, &sel, &nr_sel))
		return -1;
	st->chunks = nr_sel;
	for (size_t i = 0; i < nr_sel; i++)
		for (int k = 0; k < GEN_NR_KINDS; k++) {
			struct item *it;
			size_t nb = SIZE_MAX, earlier = SIZE_MAX;
			if (!(o->kinds & (1u << k)))
				continue;
			if (k == GEN_FOLLOWUP) {
				earlier = gen_earlier(g, sel[i]);
				if (earlier == SIZE_MAX) {
					st->no_earlier++;
					continue;
				}
			}
			if (k == GEN_MULTIHOP) {
				nb = gen_hop_partner(g, sel[i]);
				if (nb == SIZE_MAX) {
					st->no_neighbour++;
					continue;
				}
			}
			ALLOC_GROW(g->items, g->nr_items + 1, g->alloc_items);
			it = &g->items[g->nr_items++];
			memset(it, 0, sizeof(*it));
			it->g = g;
			it->chunk = sel[i];
			it->neighbour = nb;
			it->earlier = earlier;
			it->kind = (enum gen_kind)k;
			make_key(g, it);
		}
	free(sel);
	st->planned = g->nr_items;
	for (size_t i = 0; i < g->nr_items; i++)
		strmap_put(&g->plan, g->items[i].key, (void *)(uintptr_t)(i + 1));
	return 0;
}

void gen_history_text(const struct question *q, struct strbuf *out)
{
	for (size_t i = 0; i < q->nr_history; i++)
		strbuf_addf(out, "<turn role=\"%s\">\n%s\n</turn>\n", q->history[i].role, q->history[i].text);
}
