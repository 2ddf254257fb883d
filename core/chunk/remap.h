/*
 * remap: carrying a set's labels to another chunking of the same documents,
 * through the evidence of each label (docs/chunking.md says the rules a
 * user relies on; this is their contract).
 *
 * A label's evidence is its entries in the question's 'evidence' list, or,
 * when it has none, the span of the labelled chunk in the old corpus (a
 * chunk with "doc", "start" and "end"). Each evidence entry is located in
 * the new corpus:
 *  1. at its span, when the new chunks of its document show there the same
 *     text as before (the quote; or the old chunk's text, byte for byte
 *     wherever a new chunk overlaps it, what none covers being text no
 *     quote needs, chunk_text_negligible): documents unchanged;
 *  2. otherwise (documents edited, or no span) by searching its quote (or
 *     the old chunk's text) in the new chunks, its own document first:
 *     exactly, then with white space runs taken as one space, then (quotes
 *     of 16 bytes or more, in its own document) allowing edits of up to a
 *     fifth of its length; the place nearest the old span wins;
 *  3. not found: the label is stale (the documents no longer hold its
 *     evidence).
 * A located span maps to the new chunks of its document that contain it
 * whole; when none does (the span is cut by chunk boundaries), to every
 * chunk holding at least half of the span or made at least half of span
 * text ("split"); when none qualifies, to the chunks holding its largest
 * piece; when no chunk holds any of it, the label is not mappable. With
 * chunkers that leave out nothing but white space and markup (chunker.h),
 * the mapping is total on unchanged documents. The old corpus's fingerprint
 * recorded in provenance is the one the set records, else the old
 * corpus's.
 * Each new chunk takes the highest grade among the labels that map to it
 * (a chunk covering the evidence of several labels counts once).
 * Judged-irrelevant chunks are not carried (a new chunk holds other text).
 *
 * Ownership: remap_set fills a new set the caller releases; a remap_report
 * owns its strings (remap_report_release).
 */
#ifndef EVALSET_REMAP_H
#define EVALSET_REMAP_H

#include <stdbool.h>
#include <stddef.h>

struct set;
struct corpus;
struct chunk;

enum remap_outcome {
	REMAP_ONE,        /* to one new chunk */
	REMAP_MANY,       /* to several new chunks (overlapping windows, or split) */
	REMAP_STALE,      /* its evidence is gone from the documents */
	REMAP_UNMAPPABLE, /* no evidence to locate, or no new chunk covers it */
};
#define REMAP_OUTCOMES 4

struct remap_label {
	char *question;
	char *chunk;             /* the old chunk id */
	enum remap_outcome outcome;
	bool split;              /* REMAP_MANY: no new chunk holds the span whole */
	bool moved;              /* found again by its quote (documents edited) */
	char *why;               /* REMAP_STALE, REMAP_UNMAPPABLE: the reason */
	char **chunks;           /* the new chunk ids */
	size_t nr_chunks;
};

struct remap_report {
	struct remap_label *labels;
	size_t nr, alloc;
	size_t count[REMAP_OUTCOMES];
	size_t moved;            /* labels found again by their quote */
	size_t dropped_irrelevant;
	size_t emptied;          /* questions left without a relevant chunk */
};
#define REMAP_REPORT_INIT { NULL, 0, 0, { 0, 0, 0, 0 }, 0, 0, 0 }
void remap_report_release(struct remap_report *r);
/* Return "1:1", "1:n", "stale" or "not mappable". */
const char *remap_outcome_name(enum remap_outcome o);

/*
 * Write into 'out' (SET_INIT) the set 's' with its labels carried from
 * 'old' (the corpus 's' was labelled on; may be NULL, then only evidence
 * entries are used) to 'new'. Header: name and description kept, no
 * version, the corpus fingerprint and chunk count of 'new' (path left to
 * the caller), a note naming 'from'. Each question with labels gets a
 * provenance key "remapped_from" ({from, corpus, labels: {old: [new...]},
 * and split, stale, unmapped lists when not empty; stale_evidence: the
 * evidence the stale labels had, [{chunk, doc, start, end, quote}], the
 * span of the old chunk for a label without entries}). A question left with
 * no relevant chunk becomes unanswerable with the tag "stale" (all its
 * labels stale) or "unmapped", so the set stays valid and the team sees it.
 * Fills 'rep' (REMAP_REPORT_INIT). Return 0.
 */
int remap_set(const struct set *s, const struct corpus *old, const struct corpus *new,
	      const char *from, struct set *out, struct remap_report *rep);

/*
 * Carry the labels of 's' (opened from the set directory 'set_dir', named
 * 'from' in provenance) to the corpus 'path' for judging a run made on that
 * chunking: 'out' (SET_INIT) gets the remapped set with the version of 's',
 * '*fingerprint' the fingerprint of 'path' (caller frees). Labels that cannot
 * be carried are one warning; a question left without a label stays
 * answerable, so that scoring leaves it unjudged (core/score/score.h)
 * rather than turning it unanswerable. The old corpus is the one the set
 * was labelled on (set_corpus_load_labelled). Return 0, or -1 (reported: a
 * corpus that cannot be read).
 */
int remap_judge_set(const struct set *s, const char *set_dir, const char *from, const char *path,
		    struct set *out, char **fingerprint);

/* A place a quote was found in a corpus. */
struct quote_hit {
	size_t chunk;        /* index in the corpus */
	const char *doc;     /* the chunk's document (borrowed), or NULL */
	long start, end;     /* code points in the document (-1 without a span) */
};
/*
 * Find the places of 'quote' in 'c' (exactly, else with white space runs
 * taken as one space): at most 'max' hits into 'hits', one per document
 * place (overlapping chunks holding the same place count once). Return the
 * number of places found (which may exceed 'max').
 */
size_t remap_find_quote(const struct corpus *c, const char *quote, struct quote_hit *hits,
			size_t max);

/*
 * Find 'quote' in the text of chunk 'ch' alone (exactly, else with white
 * space runs taken as one space; its first place). Return the chunk's own
 * text there (caller frees: the quote as the document has it), with its
 * span in the document in '*start' and '*end' (code points; -1 when the
 * chunk has no span); NULL when the chunk does not hold it.
 */
char *remap_quote_in_chunk(const struct chunk *ch, const char *quote, long *start, long *end);

#endif
