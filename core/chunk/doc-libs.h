/*
 * doc-libs: the parsers of HTML (libxml2) and Markdown (cmark), opened
 * when `chunk` first reads such a document (core/base/dynlib.h says why:
 * libxml2 brings ICU and the C++ runtime, which most commands never use).
 *
 * xml_lib() and cmark_lib() return tables of the functions document.c
 * calls, each typed as its header declares it; the first call opens the
 * library by the soname of the ABI the headers declare (libxml2.so.2,
 * libcmark.so.VERSION: cmark's soname is its whole version). Thread-safe.
 */
#ifndef EVALSET_DOC_LIBS_H
#define EVALSET_DOC_LIBS_H

#include <cmark.h>
#include <libxml/HTMLparser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

struct xml_lib {
	__typeof__(htmlNewParserCtxt) *new_parser_ctxt;
	__typeof__(htmlCtxtReadMemory) *ctxt_read_memory;
	__typeof__(htmlFreeParserCtxt) *free_parser_ctxt;
	__typeof__(xmlCtxtGetLastError) *ctxt_get_last_error;
	__typeof__(xmlDocGetRootElement) *doc_get_root_element;
	__typeof__(xmlFreeDoc) *free_doc;
	__typeof__(xmlStopParser) *stop_parser;
};

struct cmark_lib {
	__typeof__(cmark_parse_document) *parse_document;
	__typeof__(cmark_node_free) *node_free;
	__typeof__(cmark_node_first_child) *node_first_child;
	__typeof__(cmark_node_next) *node_next;
	__typeof__(cmark_node_get_type) *node_get_type;
	__typeof__(cmark_node_get_literal) *node_get_literal;
	__typeof__(cmark_node_get_heading_level) *node_get_heading_level;
	__typeof__(cmark_node_get_list_tight) *node_get_list_tight;
	__typeof__(cmark_node_get_start_line) *node_get_start_line;
	__typeof__(cmark_node_get_start_column) *node_get_start_column;
	__typeof__(cmark_node_get_end_line) *node_get_end_line;
	__typeof__(cmark_node_get_end_column) *node_get_end_column;
	__typeof__(cmark_iter_new) *iter_new;
	__typeof__(cmark_iter_next) *iter_next;
	__typeof__(cmark_iter_get_node) *iter_get_node;
	__typeof__(cmark_iter_free) *iter_free;
};

/* Return the functions, opening the library on the first call (one that
 * cannot be loaded ends the process: dynlib.h). */
const struct xml_lib *xml_lib(void);
const struct cmark_lib *cmark_lib(void);

#endif
