/*
 * chunk: cut Markdown, plain text and HTML documents into a corpus (JSONL,
 * docs/formats/corpus.md) by heading sections, paragraphs, sentence windows
 * or token windows. Every chunk records its document, its span in the
 * document's text (Unicode characters; for HTML, the text of the page) and
 * an id made of the document name and a hash of the chunk's text, so
 * running chunk again on the same documents gives the same ids. Markup a
 * reader never sees (front matter, HTML comments, anchor-only HTML,
 * thematic breaks: core/chunk/document.h) is left out of chunks unless
 * --no-drop-markup. The corpus is written atomically; an existing file is
 * kept unless --force is given, and an output that is one of the documents,
 * or that a later run would read as one, is refused. What is written is
 * what evalset reads back: a chunk whose line would pass the corpus
 * reader's limit is refused by name.
 */
#include "builtin.h"
#include "base/fsutil.h"
#include "base/progress.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "chunk/chunker.h"
#include "chunk/docfiles.h"
#include "chunk/document.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Output kept in memory before it is written (the chunks of one document
 * may take more). */
#define CHUNK_FLUSH (1u << 20)

static const char *const chunk_usage[] = {
	"evalset chunk [--by headings|paragraphs|sentences|tokens] [--size <n>] [--overlap <n>]\n"
	"              [--max-tokens <n>] [--[no-]drop-markup] -o <corpus.jsonl> [--force] [--quiet]\n"
	"              <file-or-folder>...",
	NULL,
};

int cmd_chunk(int argc, const char **argv)
{
	const char *by = "headings", *output = NULL;
	long size = -1, overlap = -1, max_tokens = 512;
	int force = 0, drop_markup = 1, quiet = 0;
	struct option opts[] = {
		OPT_STRING(0, "by", &by, "strategy",
			   "headings (default), paragraphs, sentences or tokens"),
		OPT_INT(0, "size", &size, "n",
			"sentences (default 3) or tokens (default 200) per window"),
		OPT_INT(0, "overlap", &overlap, "n",
			"sentences (default 1) or tokens (default size/8) two windows share"),
		OPT_INT(0, "max-tokens", &max_tokens, "n",
			"headings, paragraphs: cut a longer chunk (default 512, 0: no limit)"),
		OPT_BOOL(0, "drop-markup", &drop_markup,
			 "leave out markup no reader sees: front matter, HTML comments, anchors (the default; --no-drop-markup keeps it)"),
		OPT_STRING('o', "output", &output, "file", "the corpus to write ('-': standard output)"),
		OPT_BOOL(0, "force", &force, "replace the output file when it exists"),
		OPT_PROGRESS_QUIET(&quiet),
		OPT_END(),
	};
	struct chunk_options co = { CHUNK_HEADINGS, 0, 0, 0, false };
	struct doc_files files = DOC_FILES_INIT;
	struct chunk_list chunks = CHUNK_LIST_INIT;
	struct strbuf out = STRBUF_INIT;
	int ret = EXIT_BAD_INPUT, rc = 0;
	size_t markup = 0, nr_chunks = 0;
	struct atomic_file af = { NULL, NULL, -1, 0 };
	struct progress prog = { 0 };
	bool windows, to_stdout = true;

	argc = parse_options(argc, argv, opts, chunk_usage);
	if (quiet)
		progress_silence();
	if (argc < 1 || !output)
		usage_with_options(chunk_usage, opts);
	if (chunk_strategy_parse(by, &co.strategy) < 0) {
		error("unknown strategy '%s' (headings, paragraphs, sentences or tokens)", by);
		goto out;
	}
	windows = co.strategy == CHUNK_SENTENCES || co.strategy == CHUNK_TOKENS;
	if (!windows && (size >= 0 || overlap >= 0)) {
		error("--size and --overlap are for --by sentences or tokens; "
		      "'%s' chunks are limited by --max-tokens", by);
		goto out;
	}
	if (size == 0 || size > 1000000 || overlap < -1 || max_tokens < 0 || max_tokens > 1000000) {
		error("--size must be 1..1000000 and --max-tokens 0..1000000");
		goto out;
	}
	co.size = size > 0 ? (size_t)size : co.strategy == CHUNK_SENTENCES ? 3 : 200;
	co.overlap = overlap >= 0 ? (size_t)overlap : co.strategy == CHUNK_SENTENCES ? 1 : co.size / 8;
	if (windows && co.overlap >= co.size) {
		error("--overlap (%zu) must be smaller than --size (%zu)", co.overlap, co.size);
		goto out;
	}
	co.max_tokens = (size_t)max_tokens;
	co.keep_markup = !drop_markup;
	if (strcmp(output, "-") && path_exists(output) && !force) {
		error("'%s' exists; give --force to replace it", output);
		goto out;
	}
	if (doc_files_find(argv, (size_t)argc, &files) < 0 ||
	    doc_files_check_output(argv, (size_t)argc, &files, output) < 0)
		goto out;
	/* each document's chunks are written as they are made: memory holds
	 * one document, not the corpus (docs/chunking.md) */
	to_stdout = !strcmp(output, "-");
	if (!to_stdout && atomic_file_open(&af, output) < 0)
		goto out;
	progress_begin(&prog, "chunk", PROGRESS_COUNT, "documents", (double)files.nr);
	for (size_t i = 0; i < files.nr; i++) {
		struct document d = DOCUMENT_INIT;

		progress_update(&prog, (double)i);
		if (document_load(&d, files.files[i], files.names[i]) < 0)
			goto out;
		chunk_document(&d, &co, &chunks);
		for (size_t k = 0; k < d.nr_blocks; k++)
			markup += d.blocks[k].markup;
		for (size_t k = 0; k < chunks.nr && !rc; k++)
			rc = chunk_to_jsonl(&chunks.items[k], &out);
		nr_chunks += chunks.nr;
		chunk_list_release(&chunks);
		document_release(&d);
		if (rc)
			goto out;
		/* standard output gets everything at the end: nothing of a refused tree */
		if ((!to_stdout && out.len >= CHUNK_FLUSH) || i + 1 == files.nr) {
			if (to_stdout ? write_stdout(out.buf, out.len) < 0
				      : atomic_file_write(&af, out.buf, out.len) < 0)
				goto out;
			strbuf_reset(&out);
		}
	}
	progress_end(&prog);
	if (!to_stdout) {
		if (atomic_file_commit(&af) < 0)
			goto out;
		printf("wrote %zu chunks from %zu document%s to %s (by %s", nr_chunks, files.nr,
		       files.nr == 1 ? "" : "s", output, by);
		if (markup)
			printf("; %zu markup block%s %s", markup, markup == 1 ? "" : "s",
			       drop_markup ? "left out" : "kept");
		printf(")\n");
	}
	ret = EXIT_OK;
out:
	progress_end(&prog);
	if (ret != EXIT_OK && !to_stdout)
		atomic_file_abort(&af);
	strbuf_release(&out);
	chunk_list_release(&chunks);
	doc_files_release(&files);
	return ret;
}
