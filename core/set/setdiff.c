/*
 * setdiff: compare two versions of a set question by question (see
 * setdiff.h for what counts as a change and in which order changes come).
 *
 * Labels are compared through question_grade() over the union of the chunks
 * either side judges, so a chunk that moved from relevant to irrelevant, or
 * whose grade changed, or that was added or dropped, is one label change
 * each. Provenance is compared through its canonical JSON text, so key order
 * never counts as a change, matching the digest.
 */
#include "set/setdiff.h"
#include "set/set.h"
#include "base/jsontree.h"
#include "base/strmap.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_label_change(const void *a, const void *b)
{
	return strcmp(((const struct label_change *)a)->chunk,
		      ((const struct label_change *)b)->chunk);
}

static bool str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

/* Return true when JSON values 'a' and 'b' are equal (object key order ignored). */
static bool json_eq(const cJSON *a, const cJSON *b)
{
	if (!a || !b)
		return a == b;
	return cJSON_Compare(a, b, 1);
}

static bool one_evidence_eq(const struct evidence *x, const struct evidence *y)
{
	return !strcmp(x->chunk, y->chunk) && str_eq(x->doc, y->doc) && x->start == y->start &&
	       x->end == y->end && str_eq(x->quote, y->quote);
}

/* True when 'a' and 'b' carry the same evidence entries, in any order. */
static bool evidence_eq(const struct question *a, const struct question *b)
{
	if (a->nr_evidence != b->nr_evidence)
		return false;
	for (size_t i = 0; i < a->nr_evidence; i++) {
		bool found = false;
		for (size_t j = 0; j < b->nr_evidence && !found; j++)
			found = one_evidence_eq(&a->evidence[i], &b->evidence[j]);
		if (!found)
			return false;
	}
	return true;
}

static void side_from_set(struct diff_side *side, const struct set *s)
{
	side->name = xstrdup(s->name ? s->name : "");
	side->version = xstrdup(s->version);
	set_digest(s, side->digest);
	set_content_digest(s, side->content_digest);
	side->nr_questions = s->nr;
}

/* Add to 'c' every chunk whose grade differs between 'a' and 'b'. */
static void diff_labels(const struct question *a, const struct question *b,
			struct question_change *c)
{
	struct strmap seen = STRMAP_INIT;
	const struct question *qs[2] = { a, b };

	for (int side = 0; side < 2; side++) {
		const struct question *q = qs[side];
		size_t n = q->nr_relevant + q->nr_irrelevant;

		for (size_t i = 0; i < n; i++) {
			const char *chunk = i < q->nr_relevant ? q->relevant[i].chunk
							       : q->irrelevant[i - q->nr_relevant];
			int from, to;

			if (strmap_get(&seen, chunk))
				continue;
			strmap_put(&seen, chunk, (void *)(uintptr_t)1);
			from = question_grade(a, chunk);
			to = question_grade(b, chunk);
			if (from == to)
				continue;
			ALLOC_GROW(c->labels, c->nr_labels + 1, c->alloc_labels);
			c->labels[c->nr_labels].chunk = xstrdup(chunk);
			c->labels[c->nr_labels].from = from;
			c->labels[c->nr_labels].to = to;
			c->nr_labels++;
		}
	}
	strmap_clear(&seen, 0);
	if (c->nr_labels > 1)
		qsort(c->labels, c->nr_labels, sizeof(*c->labels), cmp_label_change);
}

/* Append to 'out' the tags of 'q' that 'other' lacks, sorted, without repeats. */
static void tags_missing(const struct question *q, const struct question *other,
			 char ***out, size_t *nr, size_t *alloc)
{
	for (size_t i = 0; i < q->nr_tags; i++) {
		bool dup = false;

		if (question_has_tag(other, q->tags[i]))
			continue;
		for (size_t j = 0; j < *nr && !dup; j++)
			dup = !strcmp((*out)[j], q->tags[i]);
		if (dup)
			continue;
		ALLOC_GROW(*out, *nr + 1, *alloc);
		(*out)[(*nr)++] = xstrdup(q->tags[i]);
	}
	if (*nr > 1)
		qsort(*out, *nr, sizeof(**out), cmp_str);
}

static void add_other(struct question_change *c, const char *field)
{
	ALLOC_GROW(c->other, c->nr_other + 1, c->alloc_other);
	c->other[c->nr_other++] = xstrdup(field);
}

static void question_change_release(struct question_change *c)
{
	free(c->id);
	free(c->from_text);
	free(c->to_text);
	for (size_t i = 0; i < c->nr_labels; i++)
		free(c->labels[i].chunk);
	free(c->labels);
	for (size_t i = 0; i < c->nr_tags_added; i++)
		free(c->tags_added[i]);
	free(c->tags_added);
	for (size_t i = 0; i < c->nr_tags_removed; i++)
		free(c->tags_removed[i]);
	free(c->tags_removed);
	for (size_t i = 0; i < c->nr_other; i++)
		free(c->other[i]);
	free(c->other);
	memset(c, 0, sizeof(*c));
}

/* True when 'a' and 'b' forbid the same entries (order and repeats ignored). */
static bool forbidden_eq(const struct question *a, const struct question *b)
{
	for (size_t i = 0; i < a->nr_forbidden; i++) {
		bool found = false;
		for (size_t j = 0; j < b->nr_forbidden && !found; j++)
			found = !strcmp(a->forbidden[i].id, b->forbidden[j].id);
		if (!found)
			return false;
	}
	for (size_t j = 0; j < b->nr_forbidden; j++) {
		bool found = false;
		for (size_t i = 0; i < a->nr_forbidden && !found; i++)
			found = !strcmp(a->forbidden[i].id, b->forbidden[j].id);
		if (!found)
			return false;
	}
	return true;
}

/* Fill 'c' with what changed from 'a' to 'b' (same id); return its 'what'. */
static unsigned diff_question(const struct question *a, const struct question *b,
			      struct question_change *c)
{
	memset(c, 0, sizeof(*c));
	if (!str_eq(a->text, b->text))
		c->what |= QCHANGE_TEXT;
	diff_labels(a, b, c);
	if (c->nr_labels)
		c->what |= QCHANGE_LABELS;
	if (a->answerable != b->answerable)
		c->what |= QCHANGE_ANSWERABLE;
	tags_missing(b, a, &c->tags_added, &c->nr_tags_added, &c->alloc_tags_added);
	tags_missing(a, b, &c->tags_removed, &c->nr_tags_removed, &c->alloc_tags_removed);
	if (c->nr_tags_added || c->nr_tags_removed)
		c->what |= QCHANGE_TAGS;
	if (a->origin != b->origin)
		add_other(c, "origin");
	if (!evidence_eq(a, b))
		add_other(c, "evidence");
	if (!forbidden_eq(a, b))
		add_other(c, "forbidden");
	if (!question_conversation_eq(a, b))
		add_other(c, "conversation");
	if (!json_eq(a->provenance, b->provenance))
		add_other(c, "provenance");
	if (!str_eq(a->answer, b->answer))
		add_other(c, "answer");
	if (!str_eq(a->note, b->note))
		add_other(c, "note");
	if (c->nr_other)
		c->what |= QCHANGE_OTHER;
	c->id = xstrdup(b->id);
	c->from_text = xstrdup(a->text ? a->text : "");
	c->to_text = xstrdup(b->text ? b->text : "");
	c->from_answerable = a->answerable;
	c->to_answerable = b->answerable;
	return c->what;
}

/* True when every evidence place (doc, span, quote) of 'a' is one of 'b''s. */
static bool places_kept(const struct question *a, const struct question *b)
{
	for (size_t i = 0; i < a->nr_evidence; i++) {
		const struct evidence *x = &a->evidence[i];
		bool found = false;

		for (size_t j = 0; j < b->nr_evidence && !found; j++) {
			const struct evidence *y = &b->evidence[j];
			found = str_eq(x->doc, y->doc) && x->start == y->start && x->end == y->end &&
				str_eq(x->quote, y->quote);
		}
		if (!found)
			return false;
	}
	return true;
}

/* True when the relevant labels of 'b' are those of 'a' carried by 'map'
 * (remapped_from.labels: old chunk -> [new chunks]), at the same grade. */
static bool labels_carried(const struct question *a, const struct question *b, const cJSON *map)
{
	size_t carried = 0;

	if (a->nr_irrelevant > b->nr_irrelevant)
		return false;  /* judgements dropped */
	for (size_t i = 0; i < a->nr_relevant; i++) {
		const cJSON *to = cJSON_GetObjectItemCaseSensitive(map, a->relevant[i].chunk), *it;

		if (!cJSON_IsArray(to) || !cJSON_GetArraySize(to))
			return false;
		cJSON_ArrayForEach(it, to)
			if (!cJSON_IsString(it) || question_grade(b, it->valuestring) < a->relevant[i].grade)
				return false;
	}
	/* and b has no relevant chunk that no old label went to */
	for (size_t k = 0; k < b->nr_relevant; k++) {
		bool from_old = false;

		for (size_t i = 0; i < a->nr_relevant && !from_old; i++) {
			const cJSON *to = cJSON_GetObjectItemCaseSensitive(map, a->relevant[i].chunk), *it;
			cJSON_ArrayForEach(it, to)
				from_old |= cJSON_IsString(it) && !strcmp(it->valuestring, b->relevant[k].chunk);
		}
		carried += from_old;
	}
	return carried == b->nr_relevant;
}

/* Decide whether change 'c' (from 'a' to 'b') is provenance only (setdiff.h). */
static bool provenance_only(const struct question *a, const struct question *b,
			    const struct question_change *c)
{
	const cJSON *from, *old_from;

	if (c->what & (QCHANGE_TEXT | QCHANGE_ANSWERABLE | QCHANGE_TAGS))
		return false;
	for (size_t i = 0; i < c->nr_other; i++)
		if (strcmp(c->other[i], "evidence") && strcmp(c->other[i], "provenance"))
			return false;
	if (!places_kept(a, b))
		return false;
	if (!(c->what & QCHANGE_LABELS))
		return true;
	from = b->provenance ? cJSON_GetObjectItemCaseSensitive(b->provenance, "remapped_from") : NULL;
	old_from = a->provenance ? cJSON_GetObjectItemCaseSensitive(a->provenance, "remapped_from") : NULL;
	if (!cJSON_IsObject(from) || json_eq(from, old_from) ||
	    cJSON_GetObjectItemCaseSensitive(from, "stale") ||
	    cJSON_GetObjectItemCaseSensitive(from, "unmapped"))
		return false;
	return labels_carried(a, b, cJSON_GetObjectItemCaseSensitive(from, "labels"));
}

static void push_question(struct diff_question **arr, size_t *nr, size_t *alloc,
			  const struct question *q)
{
	ALLOC_GROW(*arr, *nr + 1, *alloc);
	(*arr)[*nr].id = xstrdup(q->id ? q->id : "");
	(*arr)[*nr].text = xstrdup(q->text ? q->text : "");
	(*nr)++;
}

unsigned set_header_changes(const struct set *from, const struct set *to)
{
	unsigned what = 0;

	if (!str_eq(from->name, to->name))
		what |= HCHANGE_NAME;
	if (!str_eq(from->description, to->description))
		what |= HCHANGE_DESCRIPTION;
	if (from->has_corpus != to->has_corpus ||
	    (from->has_corpus && !str_eq(from->corpus.path, to->corpus.path)))
		what |= HCHANGE_CORPUS;
	/* a working copy's fingerprint is the one init saw; only tag's are comparable */
	if (from->has_corpus && to->has_corpus && from->version && to->version &&
	    (!str_eq(from->corpus.fingerprint, to->corpus.fingerprint) ||
	     from->corpus.chunks != to->corpus.chunks))
		what |= HCHANGE_CORPUS;
	return what;
}

/* Return true when 'r' is among the rules of 's' (same selector and value). */
static bool has_rule(const struct set *s, const struct forbid_rule *r)
{
	for (size_t i = 0; i < s->nr_forbid; i++)
		if (s->forbid[i].kind == r->kind && !strcmp(s->forbid[i].value, r->value))
			return true;
	return false;
}

/* Append to 'arr' the rules of 'a' that 'b' lacks, as "selector:value", once each. */
static void push_rules(const struct set *a, const struct set *b, char ***arr, size_t *nr,
		       size_t *alloc)
{
	for (size_t i = 0; i < a->nr_forbid; i++) {
		const struct forbid_rule *r = &a->forbid[i];
		char *name;
		bool dup = false;

		if (has_rule(b, r))
			continue;
		name = xstrfmt("%s:%s", forbid_kind_name(r->kind), r->value);
		for (size_t j = 0; j < *nr && !dup; j++)
			dup = !strcmp((*arr)[j], name);
		if (dup) {
			free(name);
			continue;
		}
		ALLOC_GROW(*arr, *nr + 1, *alloc);
		(*arr)[(*nr)++] = name;
	}
}

void set_diff_compute(const struct set *from, const struct set *to, struct set_diff *out)
{
	struct set_lookup in_from, in_to;

	set_lookup_init(&in_from, from);
	set_lookup_init(&in_to, to);
	side_from_set(&out->from, from);
	side_from_set(&out->to, to);
	out->header = set_header_changes(from, to);
	push_rules(to, from, &out->rules_added, &out->nr_rules_added, &out->alloc_rules_added);
	push_rules(from, to, &out->rules_removed, &out->nr_rules_removed, &out->alloc_rules_removed);
	for (size_t i = 0; i < to->nr; i++) {
		const struct question *b = &to->q[i];
		const struct question *a = b->id ? set_lookup_find(&in_from, b->id) : NULL;
		struct question_change c;

		if (!a) {
			push_question(&out->added, &out->nr_added, &out->alloc_added, b);
			continue;
		}
		if (!diff_question(a, b, &c)) {
			question_change_release(&c);
			out->nr_unchanged++;
			continue;
		}
		c.provenance_only = provenance_only(a, b, &c);
		ALLOC_GROW(out->changed, out->nr_changed + 1, out->alloc_changed);
		out->changed[out->nr_changed++] = c;
		if (c.provenance_only) {
			out->nr_provenance_only++;
			continue;
		}
		out->nr_text += !!(c.what & QCHANGE_TEXT);
		out->nr_labels += !!(c.what & QCHANGE_LABELS);
		out->nr_answerable += !!(c.what & QCHANGE_ANSWERABLE);
		out->nr_tags += !!(c.what & QCHANGE_TAGS);
		out->nr_other += !!(c.what & QCHANGE_OTHER);
	}
	for (size_t i = 0; i < from->nr; i++) {
		const struct question *a = &from->q[i];

		if (!a->id || !set_lookup_find(&in_to, a->id))
			push_question(&out->removed, &out->nr_removed, &out->alloc_removed, a);
	}
	set_lookup_release(&in_from);
	set_lookup_release(&in_to);
}

void set_diff_release(struct set_diff *d)
{
	free(d->from.name);
	free(d->from.version);
	free(d->to.name);
	free(d->to.version);
	for (size_t i = 0; i < d->nr_added; i++) {
		free(d->added[i].id);
		free(d->added[i].text);
	}
	free(d->added);
	for (size_t i = 0; i < d->nr_removed; i++) {
		free(d->removed[i].id);
		free(d->removed[i].text);
	}
	free(d->removed);
	for (size_t i = 0; i < d->nr_changed; i++)
		question_change_release(&d->changed[i]);
	free(d->changed);
	for (size_t i = 0; i < d->nr_rules_added; i++)
		free(d->rules_added[i]);
	free(d->rules_added);
	for (size_t i = 0; i < d->nr_rules_removed; i++)
		free(d->rules_removed[i]);
	free(d->rules_removed);
	memset(d, 0, sizeof(*d));
}

bool set_diff_empty(const struct set_diff *d)
{
	return !d->nr_added && !d->nr_removed && !d->nr_changed && !d->nr_rules_added &&
	       !d->nr_rules_removed;
}

/* Append "; set-wide forbidden rules: +tag:internal, -doc:x.md" when they changed. */
static void rules_summary(const struct set_diff *d, struct strbuf *out)
{
	const char *sep = "; set-wide forbidden rules: ";

	for (size_t i = 0; i < d->nr_rules_added; i++, sep = ", ")
		strbuf_addf(out, "%s+%s", sep, d->rules_added[i]);
	for (size_t i = 0; i < d->nr_rules_removed; i++, sep = ", ")
		strbuf_addf(out, "%s-%s", sep, d->rules_removed[i]);
}

void diff_side_label(const struct diff_side *side, struct strbuf *out)
{
	strbuf_addstr(out, side->name ? side->name : "");
	if (side->version)
		strbuf_addf(out, "@%s", side->version);
}

/* Append "; header changed: name, description" for the bits of 'header'. */
static void header_summary(unsigned header, struct strbuf *out)
{
	const char *names[] = { "name", "description", "corpus" };
	const char *sep = "; header changed: ";

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		if (!(header & (1u << i)))
			continue;
		strbuf_addf(out, "%s%s", sep, names[i]);
		sep = ", ";
	}
}

void set_diff_summary(const struct set_diff *d, struct strbuf *out)
{
	if (set_diff_empty(d)) {
		strbuf_addf(out, "no changes (%zu questions)", d->to.nr_questions);
		header_summary(d->header, out);
		return;
	}
	if (!d->nr_added && !d->nr_removed && !d->nr_changed) {
		strbuf_addf(out, "no question changed (%zu questions)", d->to.nr_questions);
		rules_summary(d, out);
		header_summary(d->header, out);
		return;
	}
	strbuf_addf(out, "%zu added, %zu removed, %zu changed", d->nr_added, d->nr_removed,
		    d->nr_changed);
	if (d->nr_provenance_only)
		strbuf_addf(out, ": %zu in content", d->nr_changed - d->nr_provenance_only);
	if (d->nr_changed > d->nr_provenance_only) {
		const size_t n[] = { d->nr_text, d->nr_labels, d->nr_answerable, d->nr_tags,
				     d->nr_other };
		const char *what[] = { "text", "labels", "answerable", "tags", "other" };
		const char *sep = " (";

		for (size_t i = 0; i < ARRAY_SIZE(n); i++) {
			if (!n[i])
				continue;
			strbuf_addf(out, "%s%zu %s", sep, n[i], what[i]);
			sep = ", ";
		}
		strbuf_addch(out, ')');
	}
	if (d->nr_provenance_only)
		strbuf_addf(out, ", %zu provenance only (the same question on the same evidence)",
			    d->nr_provenance_only);
	strbuf_addf(out, ", %zu unchanged", d->nr_unchanged);
	rules_summary(d, out);
	header_summary(d->header, out);
}

/* Append a grade as shown to people: "none" for unjudged, else the number. */
static void add_grade(struct strbuf *out, int grade)
{
	if (grade < 0)
		strbuf_addstr(out, "none");
	else
		strbuf_addf(out, "%d", grade);
}

/* Append 's' in double quotes, with quotes, backslashes and line breaks escaped. */
static void add_quoted(struct strbuf *out, const char *s)
{
	strbuf_addch(out, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			strbuf_addch(out, '\\');
		if (*s == '\n')
			strbuf_addstr(out, "\\n");
		else
			strbuf_addch(out, *s);
	}
	strbuf_addch(out, '"');
}

static void side_header(struct strbuf *out, const char *word, const struct diff_side *side)
{
	strbuf_addf(out, "%s ", word);
	diff_side_label(side, out);
	strbuf_addf(out, " (%s%zu questions, %.19s)\n", side->version ? "" : "working copy, ",
		    side->nr_questions, side->digest);
}

void set_diff_format_text(const struct set_diff *d, struct strbuf *out)
{
	side_header(out, "from", &d->from);
	side_header(out, "to  ", &d->to);
	for (size_t i = 0; i < d->nr_rules_added; i++)
		strbuf_addf(out, "forbidden +%s  (set-wide rule added)\n", d->rules_added[i]);
	for (size_t i = 0; i < d->nr_rules_removed; i++)
		strbuf_addf(out, "forbidden -%s  (set-wide rule removed)\n", d->rules_removed[i]);
	for (size_t i = 0; i < d->nr_added; i++) {
		strbuf_addf(out, "added    %s  ", d->added[i].id);
		add_quoted(out, d->added[i].text);
		strbuf_addch(out, '\n');
	}
	for (size_t i = 0; i < d->nr_removed; i++) {
		strbuf_addf(out, "removed  %s  ", d->removed[i].id);
		add_quoted(out, d->removed[i].text);
		strbuf_addch(out, '\n');
	}
	for (size_t i = 0; i < d->nr_changed; i++) {
		const struct question_change *c = &d->changed[i];

		if (c->provenance_only)
			continue;
		strbuf_addf(out, "changed  %s\n", c->id);
		if (c->what & QCHANGE_TEXT) {
			strbuf_addstr(out, "    text        ");
			add_quoted(out, c->from_text);
			strbuf_addstr(out, " -> ");
			add_quoted(out, c->to_text);
			strbuf_addch(out, '\n');
		}
		if (c->what & QCHANGE_ANSWERABLE)
			strbuf_addf(out, "    answerable  %s -> %s\n",
				    c->from_answerable ? "true" : "false",
				    c->to_answerable ? "true" : "false");
		if (c->what & QCHANGE_LABELS) {
			strbuf_addstr(out, "    labels      ");
			for (size_t j = 0; j < c->nr_labels; j++) {
				if (j)
					strbuf_addstr(out, ", ");
				strbuf_addf(out, "%s ", c->labels[j].chunk);
				add_grade(out, c->labels[j].from);
				strbuf_addstr(out, " -> ");
				add_grade(out, c->labels[j].to);
			}
			strbuf_addch(out, '\n');
		}
		if (c->what & QCHANGE_TAGS) {
			strbuf_addstr(out, "    tags       ");
			for (size_t j = 0; j < c->nr_tags_added; j++)
				strbuf_addf(out, " +%s", c->tags_added[j]);
			for (size_t j = 0; j < c->nr_tags_removed; j++)
				strbuf_addf(out, " -%s", c->tags_removed[j]);
			strbuf_addch(out, '\n');
		}
		if (c->what & QCHANGE_OTHER) {
			strbuf_addstr(out, "    other       ");
			for (size_t j = 0; j < c->nr_other; j++)
				strbuf_addf(out, "%s%s", j ? ", " : "", c->other[j]);
			strbuf_addch(out, '\n');
		}
	}
	for (size_t i = 0; i < d->nr_changed; i++) {
		const struct question_change *c = &d->changed[i];

		if (!c->provenance_only)
			continue;
		strbuf_addf(out, "moved    %s  ", c->id);
		if (c->nr_labels) {
			size_t shown = 0;

			for (size_t j = 0; j < c->nr_labels; j++)
				if (c->labels[j].to >= 0)
					strbuf_addf(out, "%s%s", shown++ ? ", " : "", c->labels[j].chunk);
			strbuf_addstr(out, " (labels carried with the same evidence)\n");
		} else {
			strbuf_addstr(out, "(provenance only)\n");
		}
	}
	set_diff_summary(d, out);
	strbuf_addch(out, '\n');
}

static cJSON *side_json(const struct diff_side *side)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "set", side->name ? side->name : "");
	json_add_str_or_null(o, "version", side->version);
	cJSON_AddStringToObject(o, "digest", side->digest);
	cJSON_AddStringToObject(o, "content_digest", side->content_digest);
	cJSON_AddNumberToObject(o, "questions", (double)side->nr_questions);
	return o;
}

static cJSON *questions_json(const struct diff_question *qs, size_t nr)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; i < nr; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "id", qs[i].id);
		cJSON_AddStringToObject(o, "text", qs[i].text);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

static cJSON *grade_json(int grade)
{
	return grade < 0 ? cJSON_CreateNull() : cJSON_CreateNumber(grade);
}

static cJSON *strings_json(char **items, size_t nr)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; i < nr; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(items[i]));
	return arr;
}

static cJSON *change_json(const struct question_change *c)
{
	cJSON *o = cJSON_CreateObject(), *x;

	cJSON_AddStringToObject(o, "id", c->id);
	if (c->what & QCHANGE_TEXT) {
		x = cJSON_AddObjectToObject(o, "text");
		cJSON_AddStringToObject(x, "from", c->from_text);
		cJSON_AddStringToObject(x, "to", c->to_text);
	}
	if (c->what & QCHANGE_ANSWERABLE) {
		x = cJSON_AddObjectToObject(o, "answerable");
		cJSON_AddBoolToObject(x, "from", c->from_answerable);
		cJSON_AddBoolToObject(x, "to", c->to_answerable);
	}
	if (c->what & QCHANGE_LABELS) {
		x = cJSON_AddArrayToObject(o, "labels");
		for (size_t j = 0; j < c->nr_labels; j++) {
			cJSON *l = cJSON_CreateObject();

			cJSON_AddStringToObject(l, "chunk", c->labels[j].chunk);
			cJSON_AddItemToObject(l, "from", grade_json(c->labels[j].from));
			cJSON_AddItemToObject(l, "to", grade_json(c->labels[j].to));
			cJSON_AddItemToArray(x, l);
		}
	}
	if (c->what & QCHANGE_TAGS) {
		x = cJSON_AddObjectToObject(o, "tags");
		cJSON_AddItemToObject(x, "added", strings_json(c->tags_added, c->nr_tags_added));
		cJSON_AddItemToObject(x, "removed", strings_json(c->tags_removed, c->nr_tags_removed));
	}
	if (c->what & QCHANGE_OTHER)
		cJSON_AddItemToObject(o, "other", strings_json(c->other, c->nr_other));
	cJSON_AddBoolToObject(o, "provenance_only", c->provenance_only);
	return o;
}

struct cJSON *set_diff_to_json(const struct set_diff *d)
{
	static const char *const header_names[] = { "name", "description", "corpus" };
	cJSON *o = cJSON_CreateObject(), *sum, *arr, *x_header;
	struct strbuf line = STRBUF_INIT;

	cJSON_AddItemToObject(o, "from", side_json(&d->from));
	cJSON_AddItemToObject(o, "to", side_json(&d->to));
	sum = cJSON_AddObjectToObject(o, "summary");
	cJSON_AddNumberToObject(sum, "added", (double)d->nr_added);
	cJSON_AddNumberToObject(sum, "removed", (double)d->nr_removed);
	cJSON_AddNumberToObject(sum, "changed", (double)d->nr_changed);
	cJSON_AddNumberToObject(sum, "text", (double)d->nr_text);
	cJSON_AddNumberToObject(sum, "labels", (double)d->nr_labels);
	cJSON_AddNumberToObject(sum, "answerable", (double)d->nr_answerable);
	cJSON_AddNumberToObject(sum, "tags", (double)d->nr_tags);
	cJSON_AddNumberToObject(sum, "other", (double)d->nr_other);
	cJSON_AddNumberToObject(sum, "provenance_only", (double)d->nr_provenance_only);
	cJSON_AddNumberToObject(sum, "unchanged", (double)d->nr_unchanged);
	x_header = cJSON_AddArrayToObject(sum, "header");
	for (size_t i = 0; i < ARRAY_SIZE(header_names); i++)
		if (d->header & (1u << i))
			cJSON_AddItemToArray(x_header, cJSON_CreateString(header_names[i]));
	set_diff_summary(d, &line);
	cJSON_AddStringToObject(sum, "line", line.buf);
	strbuf_release(&line);
	arr = cJSON_AddObjectToObject(o, "forbidden_rules");
	cJSON_AddItemToObject(arr, "added", strings_json(d->rules_added, d->nr_rules_added));
	cJSON_AddItemToObject(arr, "removed", strings_json(d->rules_removed, d->nr_rules_removed));
	cJSON_AddItemToObject(o, "added", questions_json(d->added, d->nr_added));
	cJSON_AddItemToObject(o, "removed", questions_json(d->removed, d->nr_removed));
	arr = cJSON_AddArrayToObject(o, "changed");
	for (size_t i = 0; i < d->nr_changed; i++)
		cJSON_AddItemToArray(arr, change_json(&d->changed[i]));
	return o;
}
