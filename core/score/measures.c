/*
 * measures: parsing measure names of both schemes (see measures.h).
 */
#include "score/measures.h"

#include "base/error.h"
#include "base/suggest.h"
#include "base/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- ir_measures ---- */

struct ir_name {
	const char *name;
	enum measure_kind kind;      /* without a cutoff */
	enum measure_kind kind_cut;  /* with a cutoff */
	int cutoff;                  /* 0 none, 1 optional, 2 required */
	bool rel;                    /* accepts (rel=N) */
	const char *canon;
};

static const struct ir_name ir_names[] = {
	{ "P", MK_P, MK_P, 2, true, "P" },
	{ "R", MK_RECALL, MK_RECALL, 2, true, "R" },
	{ "Success", MK_SUCCESS, MK_SUCCESS, 2, true, "Success" },
	{ "Hit", MK_SUCCESS, MK_SUCCESS, 2, true, "Success" },
	{ "RR", MK_RECIP_RANK, MK_RECIP_RANK, 1, true, "RR" },
	{ "nDCG", MK_NDCG, MK_NDCG_CUT, 1, false, "nDCG" },
	{ "AP", MK_MAP, MK_MAP_CUT, 1, true, "AP" },
	{ "Rprec", MK_RPREC, MK_RPREC, 0, true, "Rprec" },
	{ "Bpref", MK_BPREF, MK_BPREF, 0, true, "Bpref" },
	{ "Judged", MK_JUDGED, MK_JUDGED, 2, false, "Judged" },
	{ "NumRet", MK_NUM_RET, MK_NUM_RET, 0, false, "NumRet" },
	{ "NumRel", MK_NUM_REL, MK_NUM_REL, 0, true, "NumRel" },
	{ "NumRelRet", MK_NUM_REL_RET, MK_NUM_REL_RET, 1, true, "NumRelRet" },
	{ "DocR", MK_DOC_RECALL, MK_DOC_RECALL, 2, false, "DocR" },
	{ "DocSuccess", MK_DOC_SUCCESS, MK_DOC_SUCCESS, 2, false, "DocSuccess" },
	{ "DocnDCG", MK_DOC_NDCG, MK_DOC_NDCG, 2, false, "DocnDCG" },
	{ "FirstR", MK_FIRST_RECALL, MK_FIRST_RECALL, 2, true, "FirstR" },
	{ "CallSuccess", MK_CALL_SUCCESS, MK_CALL_SUCCESS, 2, true, "CallSuccess" },
	{ "Calls", MK_CALLS, MK_CALLS, 0, false, "Calls" },
};

void measure_list(struct strbuf *out)
{
	strbuf_addstr(out, "P@k, R@k, Success@k (Hit@k), RR, RR@k, nDCG, nDCG@k, AP, AP@k, "
			   "Rprec, Bpref, Judged@k, NumRet, NumRel, NumRelRet, DocR@k, DocSuccess@k "
			   "(DocHit@k), DocnDCG@k, FirstR@k, CallSuccess@n (CallHit@n), Calls; "
			   "a relevance threshold as P(rel=2)@5; any case, and MRR, Recall, "
			   "Precision, MAP, R-precision for RR, R, P, AP, Rprec; trec_eval's "
			   "P_5, recall_10, success_10, ndcg_cut_10, map_cut_10, recip_rank, map, "
			   "ndcg, bpref, num_ret, num_rel, num_rel_ret");
}

/*
 * Names users type for the measures above, matched like the names
 * themselves without regard to case; outputs keep the canonical name.
 */
static const struct { const char *alias, *name; } ir_aliases[] = {
	{ "MRR", "RR" },
	{ "Recall", "R" },
	{ "Precision", "P" },
	{ "MAP", "AP" },
	{ "HitRate", "Success" },
	{ "R-precision", "Rprec" },
	{ "R-prec", "Rprec" },
	{ "DocRecall", "DocR" },
	{ "DocHit", "DocSuccess" },
	{ "DocHitRate", "DocSuccess" },
	{ "FirstRecall", "FirstR" },
	{ "FirstCallR", "FirstR" },
	{ "CallHit", "CallSuccess" },
};

/*
 * trec_eval's names for the measures above: NAME, or NAME_K for a cutoff
 * (P_5, recall_10, ndcg_cut_10), spelled as trec_eval prints them; read as
 * the ir_measures name they stand for, which outputs carry.
 */
static const struct { const char *trec, *ir; bool cut; } trec_names[] = {
	{ "P", "P", true },
	{ "recall", "R", true },
	{ "success", "Success", true },
	{ "ndcg_cut", "nDCG", true },
	{ "map_cut", "AP", true },
	{ "recip_rank", "RR", false },
	{ "map", "AP", false },
	{ "ndcg", "nDCG", false },
	{ "bpref", "Bpref", false },
	{ "num_ret", "NumRet", false },
	{ "num_rel", "NumRel", false },
	{ "num_rel_ret", "NumRelRet", false },
};

/* Write into 'out' the ir_measures name of the trec_eval name 'text'; return false when it is none. */
static bool trec_to_ir(const char *text, char *out, size_t size)
{
	const char *us = strrchr(text, '_');
	bool digits = us && us[1] && strspn(us + 1, "0123456789") == strlen(us + 1) && us[1] != '0';

	for (size_t i = 0; i < ARRAY_SIZE(trec_names); i++) {
		size_t n = strlen(trec_names[i].trec);

		if (!trec_names[i].cut && !strcmp(text, trec_names[i].trec)) {
			snprintf(out, size, "%s", trec_names[i].ir);
			return true;
		}
		if (trec_names[i].cut && digits && (size_t)(us - text) == n &&
		    !strncmp(text, trec_names[i].trec, n) && strlen(us + 1) < 10) {
			snprintf(out, size, "%s@%s", trec_names[i].ir, us + 1);
			return true;
		}
	}
	return false;
}

/* Return the entry of ir_names whose name or alias is 'p' (length 'len', any case), or NULL. */
static const struct ir_name *ir_lookup(const char *p, size_t len)
{
	const char *name = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(ir_aliases) && !name; i++)
		if (strlen(ir_aliases[i].alias) == len && !strncasecmp(ir_aliases[i].alias, p, len))
			name = ir_aliases[i].name;
	for (size_t i = 0; i < ARRAY_SIZE(ir_names); i++) {
		const char *n = ir_names[i].name;

		if (name ? !strcmp(n, name) : strlen(n) == len && !strncmp(n, p, len))
			return &ir_names[i];
	}
	/* no exact match: the one name equal to 'p' but for case ("ndcg", "r") */
	for (size_t i = 0; !name && i < ARRAY_SIZE(ir_names); i++)
		if (strlen(ir_names[i].name) == len && !strncasecmp(ir_names[i].name, p, len))
			return &ir_names[i];
	return NULL;
}

/* Append to 'out' "; did you mean …?" with the known names closest to the
 * name part of 'text', among them those of 'extra' (NULL-terminated, may be NULL). */
static void closest_measures(const char *text, const char *const *extra, struct strbuf *out)
{
	size_t len = strcspn(text, "(@");
	struct suggest sg;

	suggest_init(&sg, text, len, 2, true);
	for (size_t i = 0; i < ARRAY_SIZE(ir_names) + ARRAY_SIZE(ir_aliases); i++)
		suggest_offer(&sg, i < ARRAY_SIZE(ir_names) ? ir_names[i].name
							 : ir_aliases[i - ARRAY_SIZE(ir_names)].alias);
	for (size_t i = 0; extra && extra[i]; i++)
		suggest_offer(&sg, extra[i]);
	suggest_did_you_mean(&sg, SIZE_MAX, text + len, out);
	suggest_release(&sg);
}

/* Write the problem 'why' with 'text' into 'out'. Return -1. */
static int bad_measure(const char *text, const char *why, const char *const *extra, struct strbuf *out)
{
	if (!strcmp(why, "unknown measure")) {
		struct strbuf mean = STRBUF_INIT;

		bool close;

		closest_measures(text, extra, &mean);
		close = mean.len > 0;
		if (close)
			strbuf_addf(out, "unknown measure '%s'%s", text, mean.buf);
		strbuf_release(&mean);
		if (close)
			return -1;
	}
	strbuf_addf(out, "%s '%s'; supported: ", why, text);
	measure_list(out);
	for (size_t i = 0; extra && extra[i]; i++)
		strbuf_addf(out, "%s%s", i ? ", " : "; and here ", extra[i]);
	return -1;
}

int measure_parse(const char *text, struct measure *m)
{
	struct strbuf why = STRBUF_INIT;
	int rc = measure_parse_why(text, m, NULL, &why);

	if (rc < 0)
		error("%s", why.buf);
	strbuf_release(&why);
	return rc;
}

int measure_parse_why(const char *text, struct measure *m, const char *const *extra, struct strbuf *why)
{
	const char *p = text, *at, *paren;
	size_t nlen;
	const struct ir_name *n = NULL;
	long k = 0, rel = 1;
	bool has_rel = false;
	char ir[32];

	if (trec_to_ir(text, ir, sizeof(ir)))
		return measure_parse_why(ir, m, extra, why);
	memset(m, 0, sizeof(*m));
	paren = strchr(p, '(');
	at = strchr(p, '@');
	nlen = paren ? (size_t)(paren - p) : at ? (size_t)(at - p) : strlen(p);
	n = ir_lookup(p, nlen);
	if (!n)
		return bad_measure(text, "unknown measure", extra, why);
	if (paren) {
		const char *close = strchr(paren, ')');
		char num[24];
		size_t len;

		if (at && at < paren)
			return bad_measure(text, "malformed measure", extra, why);
		if (!close || strncmp(paren, "(rel=", 5))
			return bad_measure(text, "malformed measure", extra, why);
		len = (size_t)(close - (paren + 5));
		if (!len || len >= sizeof(num))
			return bad_measure(text, "malformed relevance threshold in", extra, why);
		memcpy(num, paren + 5, len);
		num[len] = '\0';
		if (parse_long(num, 0, 1000, &rel) < 0)
			return bad_measure(text, "malformed relevance threshold in", extra, why);
		if (!n->rel)
			return bad_measure(text, "no relevance threshold allowed in", extra, why);
		has_rel = true;
		if (close[1] && close[1] != '@')
			return bad_measure(text, "malformed measure", extra, why);
		at = close[1] ? close + 1 : NULL;
	}
	if (at) {
		if (parse_long(at + 1, 1, 100000000, &k) < 0)
			return bad_measure(text, "malformed cutoff in", extra, why);
		if (!n->cutoff)
			return bad_measure(text, "no cutoff allowed in", extra, why);
	} else if (n->cutoff == 2) {
		return bad_measure(text, "a cutoff @k is required in", extra, why);
	}
	m->kind = k ? n->kind_cut : n->kind;
	m->k = k;
	m->rel = (int)rel;
	if (has_rel && k)
		snprintf(m->name, sizeof(m->name), "%s(rel=%ld)@%ld", n->canon, rel, k);
	else if (has_rel)
		snprintf(m->name, sizeof(m->name), "%s(rel=%ld)", n->canon, rel);
	else if (k)
		snprintf(m->name, sizeof(m->name), "%s@%ld", n->canon, k);
	else
		snprintf(m->name, sizeof(m->name), "%s", n->canon);
	return 0;
}

double measure_value(const struct measure *m, const struct query_eval *e)
{
	switch (m->kind) {
	case MK_P: return m_precision(e, m->rel, m->k);
	case MK_RECALL: return m_recall(e, m->rel, m->k);
	case MK_SUCCESS: return m_success(e, m->rel, m->k);
	case MK_RECIP_RANK: return m_recip_rank(e, m->rel, m->k);
	case MK_NDCG: return m_ndcg(e, 0);
	case MK_NDCG_CUT: return m_ndcg(e, m->k);
	case MK_MAP: return m_ap(e, m->rel, 0);
	case MK_MAP_CUT: return m_ap(e, m->rel, m->k);
	case MK_RPREC: return m_rprec(e, m->rel);
	case MK_BPREF: return m_bpref(e, m->rel);
	case MK_JUDGED: return m_judged(e, m->k);
	case MK_NUM_RET: return (double)e->num_ret;
	case MK_NUM_REL: return (double)m_num_rel(e, m->rel);
	case MK_NUM_REL_RET: return (double)m_num_rel_ret(e, m->rel, m->k);
	default: return 0.0;
	}
}

bool measure_is_doc(const struct measure *m)
{
	return m->kind == MK_DOC_RECALL || m->kind == MK_DOC_SUCCESS || m->kind == MK_DOC_NDCG;
}

double measure_value_docs(const struct measure *m, const struct query_eval *e,
			  const struct doc_eval *d)
{
	switch (m->kind) {
	case MK_DOC_RECALL: return m_doc_recall(d, m->k);
	case MK_DOC_SUCCESS: return m_doc_success(d, m->k);
	case MK_DOC_NDCG: return m_doc_ndcg(d, m->k);
	default: return measure_value(m, e);
	}
}

bool measure_is_call(const struct measure *m)
{
	return m->kind == MK_FIRST_RECALL || m->kind == MK_CALL_SUCCESS || m->kind == MK_CALLS;
}

/* Return how many positions of the ranking the first 'n' calls of 'c' fill
 * ('c' NULL: one call filling the 'num_ret' positions). */
static long calls_end(const struct call_eval *c, size_t n, long num_ret)
{
	if (!c)
		return n ? num_ret : 0;
	if (!n || !c->nr)
		return 0;
	return c->end[(n < c->nr ? n : c->nr) - 1];
}

long calls_to_relevant(const struct query_eval *e, const struct call_eval *c, int rel_level)
{
	size_t nr = c ? c->nr : 1;

	for (size_t i = 0; i < e->nr_hits; i++) {
		if (e->hits[i].rel < rel_level || e->hits[i].rel < 0)
			continue;
		/* the first relevant chunk: the call that brought it */
		for (size_t n = 1; n <= nr; n++)
			if (e->hits[i].rank <= calls_end(c, n, e->num_ret))
				return (long)n;
		return 0;
	}
	return 0;
}

double measure_value_all(const struct measure *m, const struct query_eval *e,
			 const struct doc_eval *d, const struct call_eval *c)
{
	long end, num_rel;

	switch (m->kind) {
	case MK_FIRST_RECALL:
		/* R@k of the first call's list alone: the ranking's first positions */
		end = calls_end(c, 1, e->num_ret);
		if (end > m->k)
			end = m->k;
		num_rel = m_num_rel(e, m->rel);
		return end && num_rel ? (double)m_num_rel_ret(e, m->rel, end) / (double)num_rel : 0.0;
	case MK_CALL_SUCCESS:
		/* whole lists of the first k calls: no rank cutoff within them */
		end = calls_end(c, (size_t)m->k, e->num_ret);
		return end ? m_success(e, m->rel, end) : 0.0;
	case MK_CALLS:
		return (double)(c ? c->nr : 1);
	default:
		return measure_value_docs(m, e, d);
	}
}
