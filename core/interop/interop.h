/*
 * interop: a set to and from the files other evaluation tools read
 * (docs/formats/trec-qrels.md, beir.md, jsonl.md).
 *
 * Export writes only standard files plus one sidecar of evalset's own:
 *
 *   trec-qrels  PATH             "qid 0 docid grade", judged-irrelevant as 0
 *               PATH.topics.tsv  "qid<TAB>text" (tabs and line breaks in a
 *                                text become spaces; the sidecar keeps the
 *                                exact text when that changed it)
 *               PATH.meta.json   only when asked for ('meta'): set name, tag,
 *                                digest, and per question what the qrels
 *                                cannot hold (origin, answerable, tags,
 *                                provenance, answer, note, conversation and
 *                                history, evidence, forbidden ids, language).
 *                                Without it export notes what was left out,
 *                                and removes (with 'force') or refuses over
 *                                a sidecar an earlier export left there,
 *                                which import would otherwise read back.
 *   beir        DIR/queries.jsonl      {"_id", "text", "metadata": {...}}: the
 *                                      metadata holds what the qrels cannot
 *               DIR/qrels/SPLIT.tsv    "query-id<TAB>corpus-id<TAB>score" header
 *               DIR/evalset.meta.json  set name, tag, digest
 *   jsonl       PATH   a first line {"meta": {set, version, digest}}, then one
 *                      question per line (the fields of the YAML)
 *
 * The set's name, tag, digest (set_digest) and content digest
 * (set_content_digest) are recorded in the sidecar, in BEIR's
 * evalset.meta.json and in the JSONL meta line.
 *
 * Invariant: importing what export wrote gives questions with the content
 * digest of the exported set, and so the same set digest when imported into
 * a set with the same header (the round trip of the tests), because every
 * question field the digest covers is either in the standard file or in the
 * sidecar/metadata.
 * A collection made by another tool (no sidecar, no metadata) imports with
 * the origin given (default hand), no tags, and ids kept as they are.
 *
 * Import rules: a query judged only with grade 0 is unanswerable; a query
 * with no judgment in the qrels is skipped (BEIR keeps every split's queries
 * in one queries.jsonl) unless its metadata says it is unanswerable; a qrels
 * line for a query missing from the topics is an error naming FILE:LINE;
 * negative TREC grades ("in the pool, unjudged") are skipped; grades above 9
 * are refused.
 *
 * Ownership: the caller owns the struct set it passes in; nothing returned
 * needs freeing beyond it.
 */
#ifndef EVALSET_INTEROP_H
#define EVALSET_INTEROP_H

#include <stdbool.h>
#include <stddef.h>

#include "set/set.h"

#define MTRAG_ID_SEP "<::>"  /* MTRAG query ids: CONVERSATION<::>TURN */

enum interop_format {
	INTEROP_TREC_QRELS,
	INTEROP_BEIR,
	INTEROP_JSONL,
};

/* Return 0 and set '*out' for "trec-qrels", "beir" or "jsonl", else -1 (nothing printed). */
int interop_format_parse(const char *s, enum interop_format *out);

struct interop_export {
	enum interop_format format;
	const char *path;      /* PATH, or the BEIR directory */
	const char *split;     /* BEIR qrels split (default "test") */
	const char *name;      /* recorded set name */
	const char *version;   /* recorded tag, NULL for the working copy */
	bool force;            /* replace existing files */
	bool meta;             /* trec-qrels: write PATH.meta.json too */
};

/*
 * Return the files an export with 'o' writes, as a new array of 'nr' new
 * strings (caller frees each and the array).
 */
char **interop_export_targets(const struct interop_export *o, size_t *nr);

/*
 * Write 's' in the format of 'o'. Without 'o->force', refuse (-1, reported,
 * nothing written) when any target exists. Every file is written atomically;
 * the digest recorded is set_digest('s'). Return 0 or -1 (reported).
 */
int interop_export(const struct set *s, const struct interop_export *o);

struct interop_import {
	const char *beir_dir;   /* --from-beir DIR */
	const char *split;      /* its split (default "test") */
	const char *topics;     /* --from-trec TOPICS QRELS */
	const char *qrels;
	const char *jsonl;      /* --from-jsonl FILE */
	enum origin origin;     /* for questions whose origin nothing records */
	bool origin_given;      /* --origin given: it replaces recorded origins too */
	const char *mtrag;      /* --from-mtrag QUERIES QRELS (the qrels in 'qrels'), or
				 * --from-mtrag CONVERSATIONS (no qrels) */
};

/*
 * Read the questions of a BEIR folder, a TREC topics + qrels pair, an
 * evalset JSONL file, or MTRAG retrieval tasks (queries JSONL whose text
 * holds the turns, ids CONVERSATION<::>TURN, BEIR qrels: each query a
 * question with its conversation and history, docs/conversations.md)
 * (whichever 'o' names) into 'out' (initialised), with
 * out->file set to the file the labels came from. Topics may be TSV
 * ("qid<TAB>text") or TREC SGML (<top> <num> <title>). When the sidecar
 * records a digest and nothing was overridden, a mismatch after import is
 * reported as a warning. Return 0, or -1 (reported; 'out' then holds
 * nothing the caller should use).
 */
int interop_import(struct set *out, const struct interop_import *o);

/*
 * Read the turns of the MTRAG query text 'text' ("|user|: ..." lines,
 * interop-mtrag.c) into 'q': the last turn, the user's, as its text, the
 * turns before it as its history; the number of user turns in '*users'.
 * Return 0, or -1 with why in 'why' (nothing printed).
 */
int mtrag_read_turns(const char *text, struct question *q, size_t *users, struct strbuf *why);

/*
 * Read MTRAG's conversations (a JSON list or JSONL of conversations with
 * their messages, or of generation tasks with their input and contexts;
 * interop-mtrag-conv.c) at 'o->mtrag' into questions appended to 'out', one
 * per user turn with its history, conversation, turn and labels. Return 0,
 * or -1 (reported at the file and line or list item).
 */
int mtrag_conversations_import(struct set *out, const struct interop_import *o);

/*
 * Test sets of other tools (interop-tools.c): RAGAS testsets (JSONL or a
 * JSON list of {user_input, reference_contexts, reference,
 * synthesizer_name}), DeepEval goldens (a JSON list or JSONL of {input,
 * expected_output, context, source_file}) and LlamaIndex's
 * EmbeddingQAFinetuneDataset ({queries, corpus, relevant_docs}).
 */
enum interop_tool {
	INTEROP_RAGAS,
	INTEROP_DEEPEVAL,
	INTEROP_LLAMAINDEX,
	INTEROP_FIELDS,  /* JSONL, columns named by the caller: interop_import_fields */
};
/* Return "ragas", "deepeval", "llamaindex" or "jsonl". */
const char *interop_tool_name(enum interop_tool t);
/*
 * Read the test set 'path' made by the tool 't' into 'out' (initialised;
 * out->file set to 'path'): a question per item with its text, the
 * reference answer, provenance naming the tool (and the synthesizer, source
 * file or LlamaIndex ids), and every context text as an evidence quote
 * without a chunk, for the caller to find in a corpus. Return 0, or -1
 * (reported, naming FILE:LINE or the item).
 */
int interop_import_tool(struct set *out, enum interop_tool t, const char *path);

/* The names of the columns of a JSONL test set (a Hugging Face dataset's
 * to_json); only 'question' is required. */
struct interop_fields {
	const char *question;  /* the question's text */
	const char *contexts;  /* a text or a list: evidence quotes to find */
	const char *chunks;    /* a chunk id or a list: relevant chunks as given */
	const char *answer;    /* the reference answer */
	const char *id;        /* the record's id, kept as provenance source_id */
};
/*
 * Read the JSONL file 'path' whose columns 'f' names into 'out' as
 * interop_import_tool does (provenance source "jsonl"); chunk ids become
 * relevant labels (grade 1) for the caller to check against the corpus.
 * Return 0, or -1 (reported with FILE:LINE).
 */
int interop_import_fields(struct set *out, const char *path, const struct interop_fields *f);

#endif
