/*
 * chunker: the four chunking strategies over a document's blocks (see
 * chunker.h for the invariants every chunk keeps).
 *
 * Everything is computed in bytes of the document's text and converted to
 * code points when a chunk is emitted. Sentences are found inside blocks
 * (a heading or a code block is one sentence): a sentence ends after '.',
 * '!' or '?' (and any closing quotes or brackets) followed by white space
 * and a capital, a digit, an opening quote or bracket or a non-ASCII
 * character, unless the word before the stop is an initial ("J."), has a
 * stop inside ("U.S.", "e.g.") or is a common abbreviation ("Mr.", "etc.").
 */
#include "chunk/chunker.h"
#include "chunk/document.h"
#include "base/digest.h"
#include "base/error.h"
#include "base/jsontree.h"
#include "base/strmap.h"
#include "base/util.h"
#include "set/corpus.h"
#include "text/text.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const strategy_names[] = { "headings", "paragraphs", "sentences", "tokens" };

const char *chunk_strategy_name(enum chunk_strategy s)
{
	return (size_t)s < ARRAY_SIZE(strategy_names) ? strategy_names[s] : "";
}

int chunk_strategy_parse(const char *name, enum chunk_strategy *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(strategy_names); i++) {
		if (!strcmp(name, strategy_names[i])) {
			*out = (enum chunk_strategy)i;
			return 0;
		}
	}
	return -1;
}

void chunk_list_release(struct chunk_list *l)
{
	for (size_t i = 0; i < l->nr; i++) {
		free(l->items[i].id);
		free(l->items[i].doc);
		free(l->items[i].title);
		free(l->items[i].text);
	}
	free(l->items);
	memset(l, 0, sizeof(*l));
}

static void count_one(const char *w, size_t len, void *data)
{
	(void)w;
	(void)len;
	(*(size_t *)data)++;
}

size_t chunk_count_tokens(const char *s, size_t len)
{
	size_t n = 0;

	text_each_token(s, len, count_one, &n);
	return n;
}

bool chunk_text_negligible(const char *doc, const char *text, size_t len)
{
	if (!chunk_count_tokens(text, len))
		return true;
	return doc && document_kind_of(doc) == DOC_MARKDOWN && !markdown_visible_tokens(text, len);
}

/* ---- emitting ---- */

struct cutter {
	const struct document *d;
	const struct chunk_options *o;
	struct chunk_list *out;
	size_t first;       /* index in 'out' of this document's first chunk */
	const char *title;  /* heading path of what is being cut, or NULL */
	struct strmap texts; /* SHA-256 of a chunk text -> how many chunks of the document have it */
};

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

/* Emit bytes [a, b) of the document as a chunk, unless they hold no token. */
static void emit(struct cutter *c, size_t a, size_t b)
{
	const char *t = c->d->text;
	struct doc_chunk *ch;
	struct strmap_entry *e;
	char hex[72], *base;
	size_t dup;

	while (a < b && blank(t[a]))
		a++;
	while (b > a && blank(t[b - 1]))
		b--;
	if (a >= b || !chunk_count_tokens(t + a, b - a))
		return;
	ALLOC_GROW(c->out->items, c->out->nr + 1, c->out->alloc);
	ch = &c->out->items[c->out->nr];
	ch->text = xstrndup(t + a, b - a);
	ch->doc = xstrdup(c->d->name);
	ch->title = c->title && *c->title ? xstrdup(c->title) : NULL;
	ch->start = document_cp(c->d, a);
	ch->end = document_cp(c->d, b);
	sha256_hex(ch->text, b - a, hex);
	base = xstrfmt("%s#%.12s", c->d->name, hex + 7);
	/* the texts seen in this document, by digest: one lookup a chunk, so a
	 * document of many chunks with a text that repeats costs no more than another */
	e = strmap_intern(&c->texts, hex + 7, strlen(hex + 7), NULL);
	dup = (size_t)(uintptr_t)e->value + 1;
	e->value = (void *)(uintptr_t)dup;
	ch->id = dup > 1 ? xstrfmt("%s-%zu", base, dup) : xstrdup(base);
	free(base);
	c->out->nr++;
}

/* ---- words and token windows ---- */

struct word {
	size_t start, end, tokens;
};

struct words {
	struct word *items;
	size_t nr, alloc;
};

/* Append the white-space separated words of bytes [a, b) to 'w'. */
static void find_words(const char *t, size_t a, size_t b, struct words *w)
{
	size_t i = a;

	while (i < b) {
		size_t s;
		while (i < b && blank(t[i]))
			i++;
		if (i >= b)
			break;
		s = i;
		while (i < b && !blank(t[i]))
			i++;
		ALLOC_GROW(w->items, w->nr + 1, w->alloc);
		w->items[w->nr].start = s;
		w->items[w->nr].end = i;
		w->items[w->nr].tokens = chunk_count_tokens(t + s, i - s);
		w->nr++;
	}
}

/* Emit windows of at most 'size' tokens over bytes [a, b), neighbours
 * sharing up to 'overlap' tokens. A word longer than 'size' is a window of
 * its own. A window starts at a word, with or without a token (so "## Title"
 * starts with its "##"); the words without a token after a window's last
 * token are the next window's start, and the last window takes them all:
 * no word of [a, b) is left out. */
static void token_windows(struct cutter *c, size_t a, size_t b, size_t size, size_t overlap)
{
	struct words w = { NULL, 0, 0 };
	size_t i = 0, total = 0;

	find_words(c->d->text, a, b, &w);
	for (size_t k = 0; k < w.nr; k++)
		total += w.items[k].tokens;
	while (total && i < w.nr) {
		size_t j = i, sum = 0, last, k, back = 0;

		while (j < w.nr && (sum == 0 || sum + w.items[j].tokens <= size))
			sum += w.items[j++].tokens;
		last = j - 1;
		while (last > i && !w.items[last].tokens)
			last--;
		k = j;
		while (k < w.nr && !w.items[k].tokens)
			k++;
		if (k >= w.nr) {
			emit(c, w.items[i].start, w.items[w.nr - 1].end);  /* the last window */
			break;
		}
		emit(c, w.items[i].start, w.items[last].end);
		k = j;
		while (k > i + 1 && back + w.items[k - 1].tokens <= overlap) {
			back += w.items[k - 1].tokens;
			k--;
		}
		/* the next window starts no later than the first word after this one's last token */
		i = k < last + 1 ? k : last + 1;
		if (i <= last && !back)
			i = last + 1;
	}
	free(w.items);
}

/* ---- sentences ---- */

struct span {
	size_t start, end;
};

struct spans {
	struct span *items;
	size_t nr, alloc;
};

static void add_span(struct spans *s, size_t a, size_t b)
{
	ALLOC_GROW(s->items, s->nr + 1, s->alloc);
	s->items[s->nr].start = a;
	s->items[s->nr].end = b;
	s->nr++;
}

static bool is_abbreviation(const char *w, size_t len)
{
	static const char *const abbr[] = {
		"mr", "mrs", "ms", "dr", "st", "jr", "sr", "vs", "etc", "no", "vol", "inc",
		"ltd", "co", "corp", "gen", "col", "lt", "sgt", "rev", "prof", "mt", "fig",
		"approx", "ca", "cf", "al", "ft", "pp", "op", "jan", "feb", "mar", "apr",
		"jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "est", "dept", "univ",
		"capt", "gov", "sen", "rep", "pres", "adm", "maj", "cmdr", "hon",
	};

	if (len == 1 && isupper((unsigned char)w[0]))
		return true;  /* an initial */
	if (memchr(w, '.', len))
		return true;  /* "U.S", "e.g" */
	for (size_t i = 0; i < ARRAY_SIZE(abbr); i++)
		if (strlen(abbr[i]) == len && !strncasecmp(w, abbr[i], len))
			return true;
	return false;
}

static bool closer(char c)
{
	return c == '"' || c == '\'' || c == ')' || c == ']' || c == '*' || c == '_';
}

/* Append the sentences of bytes [a, b) to 'out'. */
static void split_sentences(const char *t, size_t a, size_t b, struct spans *out)
{
	size_t s = a;

	for (size_t i = a; i < b; i++) {
		size_t j, k, w;
		unsigned char next;

		if (t[i] != '.' && t[i] != '!' && t[i] != '?')
			continue;
		j = i + 1;
		while (j < b && closer(t[j]))
			j++;
		if (j >= b)
			break;
		if (!blank(t[j]))
			continue;
		k = j;
		while (k < b && blank(t[k]))
			k++;
		if (k >= b)
			break;
		next = (unsigned char)t[k];
		if (!(isupper(next) || isdigit(next) || next >= 0xc0 || next == '"' ||
		      next == '\'' || next == '(' || next == '['))
			continue;
		if (t[i] == '.') {
			w = i;
			while (w > s && !blank(t[w - 1]) && t[w - 1] != '(' && t[w - 1] != '"')
				w--;
			if (is_abbreviation(t + w, i - w))
				continue;
		}
		add_span(out, s, j);
		s = k;
		i = k - 1;
	}
	if (s < b)
		add_span(out, s, b);
}

static void sentence_windows(struct cutter *c)
{
	const struct document *d = c->d;
	struct spans s = { NULL, 0, 0 };
	size_t size = c->o->size ? c->o->size : 1;
	size_t step = c->o->overlap < size ? size - c->o->overlap : 1;

	for (size_t i = 0; i < d->nr_blocks; i++) {
		const struct doc_block *b = &d->blocks[i];
		bool code = d->text[b->start] == '`' || d->text[b->start] == '~';
		if (b->markup && !c->o->keep_markup)
			continue;
		if (b->level || (d->kind == DOC_MARKDOWN && code))
			add_span(&s, b->start, b->end);
		else
			split_sentences(d->text, b->start, b->end, &s);
	}
	for (size_t i = 0; i < s.nr; i += step) {
		size_t j = i + size < s.nr ? i + size : s.nr;
		emit(c, s.items[i].start, s.items[j - 1].end);
		if (j == s.nr)
			break;
	}
	free(s.items);
}

/* ---- headings and paragraphs ---- */

/* Emit bytes [a, b) as one chunk, or cut at block boundaries (blocks
 * [bi, bj) of the document), then into token windows, when longer than the
 * size limit. */
static void emit_limited(struct cutter *c, size_t a, size_t b, size_t bi, size_t bj)
{
	const struct document *d = c->d;
	size_t max = c->o->max_tokens, part_start = a, part_end = a, sum = 0;
	bool have = false;

	if (!max || chunk_count_tokens(d->text + a, b - a) <= max) {
		emit(c, a, b);
		return;
	}
	for (size_t k = bi; k < bj; k++) {
		const struct doc_block *bl = &d->blocks[k];
		size_t n = chunk_count_tokens(d->text + bl->start, bl->end - bl->start);

		if (bl->markup && !c->o->keep_markup) {
			/* inside a part when one is open, never its start or its end */
			sum += have ? n : 0;
			continue;
		}
		if (n > max) {
			if (have)
				emit(c, part_start, part_end);
			have = false;
			token_windows(c, bl->start, bl->end, max, 0);
			continue;
		}
		if (have && sum + n > max) {
			emit(c, part_start, part_end);
			have = false;
		}
		if (!have) {
			part_start = bl->start;
			sum = 0;
			have = true;
		}
		sum += n;
		part_end = bl->end;
	}
	if (have)
		emit(c, part_start, part_end);
}

/* Update the heading path 'path' (levels 1..6) with heading 'b' and write it
 * joined by " > " into 'out'. */
static void heading_path(char *path[7], const struct doc_block *b, struct strbuf *out)
{
	for (int l = b->level; l <= 6; l++)
		path[l] = NULL;
	path[b->level] = b->title;
	strbuf_reset(out);
	for (int l = 1; l <= 6; l++) {
		if (!path[l] || !*path[l])
			continue;
		if (out->len)
			strbuf_addstr(out, " > ");
		strbuf_addstr(out, path[l]);
	}
}

static void by_blocks(struct cutter *c, bool sections)
{
	const struct document *d = c->d;
	bool drop = !c->o->keep_markup;
	char *path[7] = { NULL };
	struct strbuf title = STRBUF_INIT;
	size_t i = 0;

	while (i < d->nr_blocks) {
		size_t j = i, first, last;

		/* headings in a row go with what follows them */
		while (j < d->nr_blocks && d->blocks[j].level) {
			heading_path(path, &d->blocks[j], &title);
			j++;
		}
		if (sections) {
			while (j < d->nr_blocks && !d->blocks[j].level)
				j++;
		} else {
			/* after headings, the next paragraph: past markup left out */
			while (drop && j > i && j < d->nr_blocks && !d->blocks[j].level &&
			       d->blocks[j].markup)
				j++;
			if (j < d->nr_blocks && (j == i || !d->blocks[j].level))
				j++;
		}
		/* markup at the edges is left out; markup alone makes no chunk */
		first = i;
		last = j - 1;
		while (drop && first < j && d->blocks[first].markup)
			first++;
		while (drop && last > first && d->blocks[last].markup)
			last--;
		c->title = title.buf;
		if (first < j)
			emit_limited(c, d->blocks[first].start, d->blocks[last].end, first, last + 1);
		i = j;
	}
	c->title = NULL;
	strbuf_release(&title);
}

/* Token windows over the whole text, or, leaving markup out, over each
 * stretch of blocks between markup blocks. */
static void by_token_windows(struct cutter *c)
{
	const struct document *d = c->d;
	size_t size = c->o->size ? c->o->size : 1;
	size_t overlap = c->o->overlap < c->o->size ? c->o->overlap : 0;
	size_t i = 0;

	if (c->o->keep_markup) {
		token_windows(c, 0, d->len, size, overlap);
		return;
	}
	while (i < d->nr_blocks) {
		size_t j = i;

		if (d->blocks[i].markup) {
			i++;
			continue;
		}
		while (j + 1 < d->nr_blocks && !d->blocks[j + 1].markup)
			j++;
		token_windows(c, d->blocks[i].start, d->blocks[j].end, size, overlap);
		i = j + 1;
	}
}

size_t chunk_document(const struct document *d, const struct chunk_options *o,
		      struct chunk_list *out)
{
	struct cutter c = { d, o, out, out->nr, NULL, STRMAP_INIT };

	switch (o->strategy) {
	case CHUNK_HEADINGS:
		by_blocks(&c, true);
		break;
	case CHUNK_PARAGRAPHS:
		by_blocks(&c, false);
		break;
	case CHUNK_SENTENCES:
		sentence_windows(&c);
		break;
	case CHUNK_TOKENS:
		by_token_windows(&c);
		break;
	}
	strmap_clear(&c.texts, 0);
	return out->nr - c.first;
}

int chunk_to_jsonl(const struct doc_chunk *c, struct strbuf *out)
{
	cJSON *j = cJSON_CreateObject();
	size_t before = out->len, line;

	cJSON_AddStringToObject(j, "id", c->id);
	cJSON_AddStringToObject(j, "doc", c->doc);
	cJSON_AddNumberToObject(j, "start", (double)c->start);
	cJSON_AddNumberToObject(j, "end", (double)c->end);
	if (c->title)
		cJSON_AddStringToObject(j, "title", c->title);
	cJSON_AddStringToObject(j, "text", c->text);
	json_add_tree(out, j, false);
	/* the corpus reader's limit, without the newline: what is written is read back */
	line = out->len - before - 1;
	if (line > CORPUS_MAX_LINE) {
		strbuf_setlen(out, before);
		return error("'%s': the chunk at characters %zu..%zu would be a corpus line of %zu bytes, "
			     "longer than the limit of %u bytes a corpus is read with (a word is never cut: "
			     "a word that long must be split or removed)", c->doc, c->start, c->end, line,
			     CORPUS_MAX_LINE);
	}
	return 0;
}
