/*
 * doc-libs: libxml2 and cmark opened on first use (see doc-libs.h).
 */
#include "chunk/doc-libs.h"
#include "base/dynlib.h"

#include <cmark_version.h>
#include <stddef.h>

#define XSYM(name, member) { #name, offsetof(struct xml_lib, member) }
#define CSYM(f) { "cmark_" #f, offsetof(struct cmark_lib, f) }

static const struct dynlib_sym xml_syms[] = {
	XSYM(htmlNewParserCtxt, new_parser_ctxt),
	XSYM(htmlCtxtReadMemory, ctxt_read_memory),
	XSYM(htmlFreeParserCtxt, free_parser_ctxt),
	XSYM(xmlCtxtGetLastError, ctxt_get_last_error),
	XSYM(xmlDocGetRootElement, doc_get_root_element),
	XSYM(xmlFreeDoc, free_doc),
	XSYM(xmlStopParser, stop_parser),
};

static const struct dynlib_sym cmark_syms[] = {
	CSYM(parse_document),
	CSYM(node_free),
	CSYM(node_first_child),
	CSYM(node_next),
	CSYM(node_get_type),
	CSYM(node_get_literal),
	CSYM(node_get_heading_level),
	CSYM(node_get_list_tight),
	CSYM(node_get_start_line),
	CSYM(node_get_start_column),
	CSYM(node_get_end_line),
	CSYM(node_get_end_column),
	CSYM(iter_new),
	CSYM(iter_next),
	CSYM(iter_get_node),
	CSYM(iter_free),
};

static struct xml_lib xml;
static struct cmark_lib cm;
static struct dynlib xml_dl = DYNLIB_INIT("libxml2.so.2",
					  "reading HTML needs libxml2 2.9.10 or later", xml_syms,
					  &xml, NULL);
static struct dynlib cmark_dl = DYNLIB_INIT("libcmark.so." CMARK_VERSION_STRING,
					    "reading Markdown needs the cmark library evalset "
					    "was built with", cmark_syms, &cm, NULL);

const struct xml_lib *xml_lib(void)
{
	return dynlib_get(&xml_dl);
}

const struct cmark_lib *cmark_lib(void)
{
	return dynlib_get(&cmark_dl);
}
