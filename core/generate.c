/*
 * generate: plan, journal, ask, filter, save (see generate.h for the
 * contract: journal keys, checkpoints, filters).
 *
 * Invariants: a request whose key is in the journal is never sent again; a
 * journal record is fsync'ed before its questions reach the set; the set
 * file is only ever replaced atomically (set_save) and a checkpoint record
 * follows each save, so the records after the last checkpoint are exactly
 * those whose questions may be missing from the file.
 *
 * Duplicate detection keeps, for every question of the set, its normalised
 * text (exact matches) and the sorted hashes of its content words, so a new
 * question is compared by merging small arrays; candidates that come close
 * are confirmed with text_near_duplicate, which stays the definition.
 */
#include "generate.h"
#include "corpus.h"
#include "digest.h"
#include "error.h"
#include "fsutil.h"
#include "journal.h"
#include "prompt.h"
#include "set.h"
#include "strmap.h"
#include "text.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const kind_names[GEN_NR_KINDS] = {
	"factoid", "paraphrase", "multi-hop", "unanswerable",
};

static const char *const prompt_vars[] = {
	"chunk.text", "chunk.title", "chunk.id", "n", "kind", "neighbour.text",
	"neighbour.title", "neighbour.id", NULL,
};

#define REPLY_SCHEMA \
	"{\"type\":\"object\",\"properties\":{\"questions\":{\"type\":\"array\",\"items\":" \
	"{\"type\":\"object\",\"properties\":{\"question\":{\"type\":\"string\"}," \
	"\"answer\":{\"type\":\"string\"}},\"required\":[\"question\",\"answer\"]," \
	"\"additionalProperties\":false}}},\"required\":[\"questions\"]," \
	"\"additionalProperties\":false}"
#define REPLY_HINT "{\"questions\": [{\"question\": \"...\", \"answer\": \"a short answer, or empty\"}]}"

const char *gen_kind_name(enum gen_kind k)
{
	return k < GEN_NR_KINDS ? kind_names[k] : "?";
}

static int kind_parse(const char *s, size_t len)
{
	for (int k = 0; k < GEN_NR_KINDS; k++)
		if (strlen(kind_names[k]) == len && !memcmp(kind_names[k], s, len))
			return k;
	if (len == 8 && !memcmp(s, "multihop", 8))
		return GEN_MULTIHOP;
	return -1;
}

int gen_kinds_parse(const char *list, unsigned *mask)
{
	const char *s = list;

	*mask = 0;
	while (*s) {
		size_t len = strcspn(s, ",");
		int k = kind_parse(s, len);
		if (k < 0)
			return error("unknown kind '%.*s' (known: factoid, paraphrase, multi-hop, unanswerable)",
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

void gen_stats_release(struct gen_stats *st)
{
	free(st->overlaps);
	st->overlaps = NULL;
	st->nr_overlaps = st->alloc_overlaps = 0;
}

struct gen;

struct item {
	struct gen *g;
	size_t chunk, neighbour;   /* corpus indexes; neighbour SIZE_MAX: none */
	enum gen_kind kind;
	char key[40];
	bool done;
};

/* What duplicate detection keeps per question. */
struct known {
	uint64_t *words;           /* sorted unique content-word hashes */
	size_t nr;
	bool this_run;
	const char *text;          /* the set's copy (stable: we keep an index, see below) */
	size_t index;              /* question index in the set */
};

struct gen {
	const struct gen_options *o;
	struct gen_stats *st;
	struct set *set;
	struct prompt prompts[GEN_NR_KINDS];
	char *prompt_ids[GEN_NR_KINDS];
	char **chunk_digests;      /* per corpus index, lazily */
	struct item *items;
	size_t nr_items, alloc_items;
	struct strmap plan;        /* key -> item + 1 */
	struct strmap done;        /* journaled keys */
	cJSON **replay;            /* records after the last checkpoint */
	size_t nr_replay, alloc_replay;
	struct journal journal;
	bool journal_open;
	long records_since_save;
	long floor;
	bool dirty;                /* questions added since the last save */
	bool abort;
	int abort_code;
	struct known *known;
	size_t nr_known, alloc_known;
	struct strmap exact;       /* normalised text -> known index + 1 */
	struct llm *llm;
	int64_t started_ms;
	int64_t last_progress;
};

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Fill the sorted unique content-word hashes of 'text'. */
static uint64_t *content_words(const char *text, size_t *nr)
{
	struct tokens t = TOKENS_INIT;
	uint64_t *h;
	size_t n = 0, u = 0;

	text_tokenize(text, strlen(text), &t);
	h = xcalloc(t.nr + 1, sizeof(*h));
	for (size_t i = 0; i < t.nr; i++)
		if (!text_is_stopword(t.items[i]))
			h[n++] = strhash(t.items[i], strlen(t.items[i]));
	qsort(h, n, sizeof(*h), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (!u || h[u - 1] != h[i])
			h[u++] = h[i];
	tokens_release(&t);
	*nr = u;
	return h;
}

static double jaccard(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
	size_t i = 0, j = 0, inter = 0;

	while (i < na && j < nb) {
		if (a[i] == b[j]) {
			inter++;
			i++;
			j++;
		} else if (a[i] < b[j]) {
			i++;
		} else {
			j++;
		}
	}
	return na + nb - inter ? (double)inter / (double)(na + nb - inter) : 1.0;
}

static void know(struct gen *g, size_t index, bool this_run)
{
	const char *text = g->set->q[index].text ? g->set->q[index].text : "";
	char *norm = text_normalize(text, strlen(text));
	struct known *k;

	ALLOC_GROW(g->known, g->nr_known + 1, g->alloc_known);
	k = &g->known[g->nr_known];
	k->words = content_words(text, &k->nr);
	k->this_run = this_run;
	k->index = index;
	k->text = NULL;
	if (!strmap_get(&g->exact, norm))
		strmap_put(&g->exact, norm, (void *)(uintptr_t)(g->nr_known + 1));
	g->nr_known++;
	free(norm);
}

/* Return the known index + 1 of a duplicate of 'text', or 0. */
static size_t find_duplicate(struct gen *g, const char *text)
{
	char *norm = text_normalize(text, strlen(text));
	uintptr_t hit = (uintptr_t)strmap_get(&g->exact, norm);
	size_t nr;
	uint64_t *w;

	free(norm);
	if (hit)
		return hit;
	w = content_words(text, &nr);
	for (size_t i = 0; i < g->nr_known; i++) {
		struct known *k = &g->known[i];
		double lo = nr < k->nr ? (double)nr / (double)k->nr : k->nr ? (double)k->nr / (double)nr : 1;
		if (nr && k->nr && lo < TEXT_NEAR_DUP_THRESHOLD - 1e-9)
			continue; /* Jaccard cannot reach the threshold */
		if ((nr && k->nr && jaccard(w, nr, k->words, k->nr) < TEXT_NEAR_DUP_THRESHOLD - 0.05))
			continue;
		if (text_near_duplicate(text, g->set->q[k->index].text, TEXT_NEAR_DUP_THRESHOLD)) {
			free(w);
			return i + 1;
		}
	}
	free(w);
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
	strbuf_addf(&sb, "\n%s\n%s\n%s\n%ld\n%d", kind_names[it->kind], g->prompts[it->kind].digest,
		    g->o->llm.model ? g->o->llm.model : "", g->o->seed, 0);
	sha256_hex(sb.buf, sb.len, d);
	snprintf(it->key, sizeof(it->key), "g-%.32s", d + 7);
	strbuf_release(&sb);
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
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
			uintptr_t at = (uintptr_t)strmap_get(&c->index, id);
			if (!at) {
				error("unknown chunk '%s' in --chunks (not in '%s')", id, c->path);
				free(id);
				free(sel);
				return -1;
			}
			free(id);
			if (n < c->nr + 1)
				sel[n++] = at - 1;
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
				r[i].rank = mix(strhash(id, strlen(id)) ^ mix((uint64_t)g->o->seed + 1));
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
			if (mix(strhash(id, strlen(id))) % (uint64_t)g->o->shard_n == (uint64_t)(g->o->shard_i - 1))
				sel[u++] = sel[i];
		}
		n = u;
	}
	*out = sel;
	*nr = n;
	return 0;
}

/* Return the next chunk of the same document after 'i' (else the one before), or SIZE_MAX. */
static size_t neighbour_of(const struct corpus *c, size_t i)
{
	const char *doc = c->chunks[i].doc;

	if (!doc)
		return SIZE_MAX;
	for (size_t j = i + 1; j < c->nr; j++)
		if (c->chunks[j].doc && !strcmp(c->chunks[j].doc, doc))
			return j;
	for (size_t j = i; j-- > 0;)
		if (c->chunks[j].doc && !strcmp(c->chunks[j].doc, doc))
			return j;
	return SIZE_MAX;
}

static int load_prompts(struct gen *g)
{
	for (int k = 0; k < GEN_NR_KINDS; k++) {
		char *file, *path;
		if (!(g->o->kinds & (1u << k)))
			continue;
		file = xstrfmt("generate-%s.md", kind_names[k]);
		path = path_join(g->o->prompt_dir, file);
		free(file);
		if (!path_exists(path)) {
			error("no prompt for kind '%s': '%s' does not exist (see --prompt-dir)",
			      kind_names[k], path);
			free(path);
			return -1;
		}
		if (prompt_load(&g->prompts[k], path) || prompt_check_vars(&g->prompts[k], prompt_vars)) {
			free(path);
			return -1;
		}
		g->prompt_ids[k] = prompt_id(&g->prompts[k]);
		free(path);
	}
	return 0;
}

/* Render the system and user messages of 'it'. Return 0 or -1. */
static int render(struct gen *g, const struct item *it, struct strbuf *sys, struct strbuf *user)
{
	const struct corpus *c = g->o->corpus;
	const struct chunk *ch = &c->chunks[it->chunk];
	const struct chunk *nb = it->neighbour != SIZE_MAX ? &c->chunks[it->neighbour] : NULL;
	char n[32];
	struct prompt_var vars[] = {
		{ "chunk.text", ch->text }, { "chunk.title", ch->title ? ch->title : "" },
		{ "chunk.id", ch->id }, { "n", n }, { "kind", kind_names[it->kind] },
		{ "neighbour.text", nb ? nb->text : "" },
		{ "neighbour.title", nb && nb->title ? nb->title : "" },
		{ "neighbour.id", nb ? nb->id : "" },
	};
	const struct prompt *p = &g->prompts[it->kind];

	snprintf(n, sizeof(n), "%ld", g->o->per_chunk);
	if (prompt_render(p->system, vars, ARRAY_SIZE(vars), sys) ||
	    prompt_render(p->user, vars, ARRAY_SIZE(vars), user))
		return -1;
	return 0;
}

static int validate(const cJSON *json, void *data, struct strbuf *why)
{
	const cJSON *qs = cJSON_GetObjectItemCaseSensitive(json, "questions"), *q;

	(void)data;
	if (!cJSON_IsArray(qs)) {
		strbuf_addstr(why, "reply has no 'questions' array");
		return -1;
	}
	cJSON_ArrayForEach(q, qs) {
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(q, "answer");
		if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(q, "question"))) {
			strbuf_addstr(why, "reply has a question without a 'question' string");
			return -1;
		}
		if (a && !cJSON_IsString(a) && !cJSON_IsNull(a)) {
			strbuf_addstr(why, "reply has an 'answer' that is not a string");
			return -1;
		}
	}
	return 0;
}

static int save(struct gen *g)
{
	cJSON *rec;
	int rc;

	if (!g->dirty && !g->records_since_save)
		return 0;
	if (g->dirty) {
		if (set_save(g->set, g->o->set_file) || set_id_floor_write(g->o->ref, g->floor))
			return -1;
		g->dirty = false;
	}
	g->records_since_save = 0;
	if (!g->journal_open)
		return 0;
	rec = cJSON_CreateObject();
	cJSON_AddBoolToObject(rec, "checkpoint", 1);
	rc = journal_append(&g->journal, rec);
	cJSON_Delete(rec);
	return rc;
}

static const char *json_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static size_t utf8_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* Run one question through the filters and append it when kept. */
static void consider(struct gen *g, const cJSON *rec, const cJSON *qj, long sample,
		     const struct chunk *ch, const struct chunk *nb, enum gen_kind kind)
{
	struct strbuf text = STRBUF_INIT, both = STRBUF_INIT;
	const char *answer = json_str(qj, "answer");
	struct gen_stats *st = g->st;
	struct question *q;
	double overlap, copied;
	size_t dup;
	char *id;
	cJSON *prov;

	st->proposed++;
	strbuf_addstr(&text, json_str(qj, "question") ? json_str(qj, "question") : "");
	/* one line of text: newlines in a question are noise */
	for (size_t i = 0; i < text.len; i++)
		if (text.buf[i] == '\n' || text.buf[i] == '\r' || text.buf[i] == '\t')
			text.buf[i] = ' ';
	strbuf_trim(&text);
	if (!text.len) {
		st->drop_empty++;
		goto out;
	}
	if ((long)utf8_chars(text.buf) > g->o->max_chars || !utf8_valid(text.buf, text.len, NULL)) {
		st->drop_long++;
		goto out;
	}
	dup = find_duplicate(g, text.buf);
	if (dup) {
		if (g->known[dup - 1].this_run)
			st->drop_dup_run++;
		else
			st->drop_dup_set++;
		goto out;
	}
	copied = text_copied_share(text.buf, ch->text);
	if (nb) {
		double c2 = text_copied_share(text.buf, nb->text);
		if (c2 > copied)
			copied = c2;
	}
	if (g->o->max_copied <= 1 && copied >= g->o->max_copied && kind != GEN_UNANSWERABLE) {
		st->drop_copied++;
		goto out;
	}
	strbuf_addstr(&both, ch->text);
	if (nb) {
		strbuf_addch(&both, '\n');
		strbuf_addstr(&both, nb->text);
	}
	overlap = text_overlap(text.buf, both.buf);
	if (g->o->max_overlap <= 1 && overlap > g->o->max_overlap) {
		st->drop_overlap++;
		goto out;
	}
	id = set_next_id(g->set, g->floor);
	if (question_id_number(id) > g->floor)
		g->floor = question_id_number(id);
	q = set_append(g->set);
	q->id = id;
	q->text = strbuf_detach(&text, NULL);
	q->origin = ORIGIN_SYNTHETIC;
	if (kind == GEN_UNANSWERABLE) {
		q->answerable = false;
	} else {
		question_set_label(q, ch->id, 1);
		if (nb)
			question_set_label(q, nb->id, 1);
		q->relevant_as_list = true;
	}
	if (answer && *answer && kind != GEN_UNANSWERABLE)
		q->answer = xstrdup(answer);
	prov = cJSON_CreateObject();
	cJSON_AddStringToObject(prov, "chunk", ch->id);
	if (nb)
		cJSON_AddStringToObject(prov, "neighbour", nb->id);
	cJSON_AddStringToObject(prov, "kind", kind_names[kind]);
	if (json_str(rec, "model"))
		cJSON_AddStringToObject(prov, "model", json_str(rec, "model"));
	if (json_str(rec, "prompt"))
		cJSON_AddStringToObject(prov, "prompt", json_str(rec, "prompt"));
	{
		const cJSON *seed = cJSON_GetObjectItemCaseSensitive(rec, "seed");
		if (cJSON_IsNumber(seed))
			cJSON_AddNumberToObject(prov, "seed", seed->valuedouble);
	}
	cJSON_AddNumberToObject(prov, "sample", (double)sample);
	cJSON_AddNumberToObject(prov, "overlap", round(overlap * 100) / 100);
	q->provenance = prov;
	know(g, g->set->nr - 1, true);
	ALLOC_GROW(st->overlaps, st->nr_overlaps + 1, st->alloc_overlaps);
	st->overlaps[st->nr_overlaps++] = overlap;
	st->kept++;
	g->dirty = true;
out:
	strbuf_release(&text);
	strbuf_release(&both);
}

/* Apply the questions of journal record 'rec' to the set. */
static void apply_record(struct gen *g, const cJSON *rec)
{
	const struct corpus *c = g->o->corpus;
	const char *cid = json_str(rec, "chunk"), *nid = json_str(rec, "neighbour");
	const char *status = json_str(rec, "status"), *kname = json_str(rec, "kind");
	const struct chunk *ch, *nb = NULL;
	const cJSON *qs, *q;
	int kind;
	long sample = 0;

	if (!status || strcmp(status, "ok") || !cid || !kname)
		return;
	kind = kind_parse(kname, strlen(kname));
	ch = corpus_get(c, cid);
	if (nid)
		nb = corpus_get(c, nid);
	if (kind < 0 || !ch || (nid && !nb)) {
		warning("journal record for chunk '%s' does not match the corpus; skipped", cid);
		return;
	}
	qs = cJSON_GetObjectItemCaseSensitive(rec, "questions");
	cJSON_ArrayForEach(q, qs) {
		if (sample >= g->o->per_chunk && g->o->per_chunk > 0)
			break;
		consider(g, rec, q, sample++, ch, nb, (enum gen_kind)kind);
	}
}

static void maybe_checkpoint(struct gen *g)
{
	long every = g->o->checkpoint_every > 0 ? g->o->checkpoint_every : 25;

	if (++g->records_since_save >= every && save(g)) {
		g->abort = true;
		g->abort_code = ERR_INPUT;
	}
}

/* Build the journal record of item 'it' (caller frees). */
static cJSON *new_record(struct gen *g, const struct item *it, const char *status)
{
	const struct corpus *c = g->o->corpus;
	cJSON *rec = cJSON_CreateObject();

	cJSON_AddStringToObject(rec, "key", it->key);
	cJSON_AddStringToObject(rec, "status", status);
	cJSON_AddStringToObject(rec, "chunk", c->chunks[it->chunk].id);
	if (it->neighbour != SIZE_MAX)
		cJSON_AddStringToObject(rec, "neighbour", c->chunks[it->neighbour].id);
	cJSON_AddStringToObject(rec, "kind", kind_names[it->kind]);
	cJSON_AddStringToObject(rec, "model", g->o->llm.model ? g->o->llm.model : "");
	cJSON_AddStringToObject(rec, "prompt", g->prompt_ids[it->kind]);
	cJSON_AddNumberToObject(rec, "seed", (double)g->o->seed);
	cJSON_AddNumberToObject(rec, "sample", 0);
	return rec;
}

/* Journal and apply the outcome of 'it'. */
static void record_result(struct gen *g, struct item *it, const struct llm_result *res)
{
	cJSON *rec;

	if (res->status == LLM_CANCELLED) {
		g->st->cancelled++;
		return;
	}
	if (res->status == LLM_FAILED && !res->answered) {
		g->st->lost++;
		return;
	}
	rec = new_record(g, it, res->status == LLM_OK ? "ok" : "unusable");
	if (res->status == LLM_OK) {
		cJSON *out = cJSON_AddArrayToObject(rec, "questions"), *q;
		cJSON_ArrayForEach(q, cJSON_GetObjectItemCaseSensitive(res->json, "questions")) {
			cJSON *o = cJSON_CreateObject();
			const char *a = json_str(q, "answer");
			cJSON_AddStringToObject(o, "question", json_str(q, "question"));
			if (a && *a)
				cJSON_AddStringToObject(o, "answer", a);
			cJSON_AddItemToArray(out, o);
		}
		g->st->answered++;
	} else {
		cJSON_AddStringToObject(rec, "why", res->why ? res->why : "unusable reply");
		g->st->unusable++;
	}
	{
		cJSON *u = cJSON_AddObjectToObject(rec, "usage");
		cJSON_AddNumberToObject(u, "prompt_tokens", (double)res->prompt_tokens);
		cJSON_AddNumberToObject(u, "completion_tokens", (double)res->completion_tokens);
	}
	if (g->journal_open && journal_append(&g->journal, rec)) {
		g->abort = true;
		g->abort_code = ERR_INPUT;
		cJSON_Delete(rec);
		return;
	}
	it->done = true;
	strmap_put(&g->done, it->key, (void *)1);
	apply_record(g, rec);
	cJSON_Delete(rec);
	maybe_checkpoint(g);
}

static void on_llm_done(const struct llm_result *res, void *data)
{
	struct item *it = data;

	record_result(it->g, it, res);
}

static int stop_job(void *ctx)
{
	struct gen *g = ctx;
	const struct http_options *ho = &g->o->llm.http;

	if (g->abort)
		return 1;
	return ho->stop ? ho->stop(ho->ctx) : 0;
}

static void tick(void *ctx)
{
	struct gen *g = ctx;

	if (g->llm)
		llm_get_usage(g->llm, &g->st->usage);
	g->st->elapsed = (mono_ms() - g->started_ms) / 1000.0;
	if (g->o->progress)
		g->o->progress(g->st, g->o->ctx);
}

static int read_record(const cJSON *rec, long line, void *data)
{
	struct gen *g = data;
	const char *key = json_str(rec, "key");

	(void)line;
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "checkpoint"))) {
		for (size_t i = 0; i < g->nr_replay; i++)
			cJSON_Delete(g->replay[i]);
		g->nr_replay = 0;
		return 0;
	}
	if (!key)
		return 0;
	strmap_put(&g->done, key, (void *)1);
	ALLOC_GROW(g->replay, g->nr_replay + 1, g->alloc_replay);
	g->replay[g->nr_replay++] = cJSON_Duplicate(rec, 1);
	return 0;
}

/* Write the Batch API input file for the items not yet done. */
static int batch_out(struct gen *g)
{
	struct strbuf out = STRBUF_INIT, sys = STRBUF_INIT, user = STRBUF_INIT, body = STRBUF_INIT;
	int rc = -1;

	for (size_t i = 0; i < g->nr_items; i++) {
		struct item *it = &g->items[i];
		if (it->done)
			continue;
		strbuf_reset(&sys);
		strbuf_reset(&user);
		strbuf_reset(&body);
		if (render(g, it, &sys, &user))
			goto out;
		llm_request_body(g->llm, sys.buf, user.buf, LLM_JSON_SCHEMA, 0, &body);
		strbuf_addf(&out, "{\"custom_id\":\"%s\",\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\"body\":",
			    it->key);
		strbuf_add(&out, body.buf, body.len);
		strbuf_addstr(&out, "}\n");
		g->st->batch_written++;
	}
	rc = write_file_atomic(g->o->batch_out, out.buf, out.len);
out:
	strbuf_release(&out);
	strbuf_release(&sys);
	strbuf_release(&user);
	strbuf_release(&body);
	return rc;
}

/* Ingest Batch API output and error files, joined on custom_id. */
static int batch_in(struct gen *g)
{
	int rc = 0;

	for (size_t f = 0; f < g->o->nr_batch_in && !rc; f++) {
		const char *path = g->o->batch_in[f];
		FILE *fp = fopen(path, "rb");
		struct strbuf line = STRBUF_INIT;
		long nr = 0;
		int got;

		if (!fp) {
			rc = error("cannot open batch file '%s'", path);
			break;
		}
		line.limit = JOURNAL_MAX_LINE;
		while ((got = strbuf_getline(&line, fp)) != EOF) {
			cJSON *j, *resp, *body;
			const char *cid;
			uintptr_t at;
			struct item *it;
			struct llm_result res;
			long status = 0;

			nr++;
			if (got == -2) {
				rc = error_at(path, nr, 0, "line too long");
				break;
			}
			strbuf_trim(&line);
			if (!line.len)
				continue;
			j = cJSON_ParseWithLength(line.buf, line.len);
			cid = json_str(j, "custom_id");
			if (!j || !cid) {
				cJSON_Delete(j);
				rc = error_at(path, nr, 0, "not a Batch API output line (no custom_id)");
				break;
			}
			at = (uintptr_t)strmap_get(&g->plan, cid);
			if (!at) {
				g->st->batch_unmatched++;
				cJSON_Delete(j);
				continue;
			}
			it = &g->items[at - 1];
			g->st->batch_matched++;
			if (it->done) {
				cJSON_Delete(j);
				continue;
			}
			resp = cJSON_GetObjectItemCaseSensitive(j, "response");
			body = cJSON_GetObjectItemCaseSensitive(resp, "body");
			if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(resp, "status_code")))
				status = (long)cJSON_GetObjectItemCaseSensitive(resp, "status_code")->valuedouble;
			if (status != 200 || !cJSON_IsObject(body)) {
				g->st->batch_errors++;
				cJSON_Delete(j);
				continue;
			}
			{
				char *text = cJSON_PrintUnformatted(body);
				int r = llm_accept(g->llm, text, strlen(text), it, &res);
				(void)r;
				record_result(g, it, &res);
				free(text);
			}
			cJSON_Delete(j);
			if (g->abort)
				break;
		}
		fclose(fp);
		strbuf_release(&line);
	}
	return rc;
}

int gen_run(const struct gen_options *o, struct gen_stats *st)
{
	struct gen g;
	size_t *sel = NULL, nr_sel = 0;
	int rc = ERR_INPUT;
	struct llm_options lo;

	memset(&g, 0, sizeof(g));
	g.o = o;
	g.st = st;
	g.set = o->set;
	g.journal.fd = -1;
	g.started_ms = mono_ms();
	if (load_prompts(&g))
		goto out;
	g.chunk_digests = xcalloc(o->corpus->nr + 1, sizeof(char *));
	if (select_chunks(&g, &sel, &nr_sel))
		goto out;
	st->chunks = nr_sel;
	for (size_t i = 0; i < nr_sel; i++)
		for (int k = 0; k < GEN_NR_KINDS; k++) {
			struct item *it;
			size_t nb = SIZE_MAX;
			if (!(o->kinds & (1u << k)))
				continue;
			if (k == GEN_MULTIHOP) {
				nb = neighbour_of(o->corpus, sel[i]);
				if (nb == SIZE_MAX) {
					st->no_neighbour++;
					continue;
				}
			}
			ALLOC_GROW(g.items, g.nr_items + 1, g.alloc_items);
			it = &g.items[g.nr_items++];
			memset(it, 0, sizeof(*it));
			it->g = &g;
			it->chunk = sel[i];
			it->neighbour = nb;
			it->kind = (enum gen_kind)k;
			make_key(&g, it);
		}
	st->planned = g.nr_items;
	for (size_t i = 0; i < g.nr_items; i++)
		strmap_put(&g.plan, g.items[i].key, (void *)(uintptr_t)(i + 1));
	if (journal_read(o->journal_path, read_record, &g))
		goto out;
	for (size_t i = 0; i < g.nr_items; i++)
		if (strmap_get(&g.done, g.items[i].key)) {
			g.items[i].done = true;
			st->done_before++;
		} else {
			st->to_send++;
		}
	for (size_t i = 0; i < g.set->nr; i++)
		know(&g, i, false);
	g.floor = set_id_floor(o->ref);

	lo = o->llm;
	lo.schema_name = "questions";
	lo.schema = REPLY_SCHEMA;
	lo.shape_hint = REPLY_HINT;
	lo.validate = validate;
	lo.done = on_llm_done;
	lo.http.stop = stop_job;
	lo.http.tick = tick;
	lo.http.ctx = &g;
	if (!lo.model || !*lo.model)
		lo.model = "unset";
	if (!lo.base_url || !*lo.base_url)
		lo.base_url = "https://api.openai.com/v1";
	g.llm = llm_new(&lo);
	if (!g.llm)
		goto out;

	if (o->dry_run) {
		struct strbuf sys = STRBUF_INIT, user = STRBUF_INIT;
		for (size_t i = 0; i < g.nr_items; i++) {
			if (g.items[i].done)
				continue;
			strbuf_reset(&sys);
			strbuf_reset(&user);
			render(&g, &g.items[i], &sys, &user);
			st->est_prompt_tokens += (long)(sys.len + user.len + 3) / 4 + 8;
		}
		strbuf_release(&sys);
		strbuf_release(&user);
		rc = 0;
		goto out;
	}
	if (o->batch_out) {
		rc = batch_out(&g) ? ERR_INPUT : 0;
		goto out;
	}
	if (journal_open(&g.journal, o->journal_path))
		goto out;
	g.journal_open = true;
	/* records after the last checkpoint may be missing from the set file */
	for (size_t i = 0; i < g.nr_replay; i++) {
		apply_record(&g, g.replay[i]);
		st->replayed++;
	}
	g.records_since_save = (long)g.nr_replay;
	if (save(&g))
		goto out;
	if (o->nr_batch_in) {
		rc = batch_in(&g);
		if (!rc && g.abort)
			rc = g.abort_code;
		goto out_save;
	}
	for (size_t i = 0; i < g.nr_items; i++) {
		struct strbuf sys = STRBUF_INIT, user = STRBUF_INIT;
		if (g.items[i].done)
			continue;
		if (render(&g, &g.items[i], &sys, &user)) {
			strbuf_release(&sys);
			strbuf_release(&user);
			goto out;
		}
		llm_submit(g.llm, sys.buf, user.buf, &g.items[i]);
		strbuf_release(&sys);
		strbuf_release(&user);
	}
	rc = llm_run(g.llm);
	if (g.abort)
		rc = g.abort_code;
out_save:
	if (save(&g) && !rc)
		rc = ERR_INPUT;
out:
	if (g.llm) {
		llm_get_usage(g.llm, &st->usage);
		st->mode = llm_current_mode(g.llm);
		llm_free(g.llm);
	}
	st->elapsed = (mono_ms() - g.started_ms) / 1000.0;
	if (g.journal_open)
		journal_close(&g.journal);
	for (int k = 0; k < GEN_NR_KINDS; k++) {
		prompt_release(&g.prompts[k]);
		free(g.prompt_ids[k]);
	}
	for (size_t i = 0; g.chunk_digests && i < o->corpus->nr; i++)
		free(g.chunk_digests[i]);
	free(g.chunk_digests);
	for (size_t i = 0; i < g.nr_replay; i++)
		cJSON_Delete(g.replay[i]);
	free(g.replay);
	for (size_t i = 0; i < g.nr_known; i++)
		free(g.known[i].words);
	free(g.known);
	strmap_clear(&g.exact, 0);
	strmap_clear(&g.plan, 0);
	strmap_clear(&g.done, 0);
	free(g.items);
	free(sel);
	return rc;
}
