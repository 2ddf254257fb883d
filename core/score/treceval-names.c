/*
 * treceval-names: trec_eval's measure names, their parameters and output
 * columns (see treceval.h).
 *
 * Parameters follow trec_eval v10.0: integer cutoffs ("P.5,10") are sorted
 * and must be positive and distinct, and the column is named "P_5"; real
 * cutoffs ("iprec_at_recall.0.5") are sorted and distinct, named
 * "iprec_at_recall_0.50"; value lists ("set_F.0.5", "utility.1,-1,0,0") and
 * name=value pairs ("ndcg.1=3,2=9", "rbp.p=0.8") are kept in the order given
 * and the column takes the text verbatim ("set_F_0.5"). Numbers read as
 * atol/atof would; text that is not a number is refused rather than read as 0.
 */
#include "score/treceval.h"

#include "base/error.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum te_param_kind { PK_NONE, PK_LONG_CUTS, PK_DOUBLE_CUTS, PK_VALUES, PK_PAIRS };

struct te_name {
	const char *name;
	enum te_kind kind;
	enum te_param_kind params;
	enum te_column_type type;
	const long *lcuts;     /* defaults */
	const double *dvals;
	size_t nr_defaults;
};

static const long cuts_std[] = { 5, 10, 15, 20, 30, 100, 200, 500, 1000 };
static const long cuts_success[] = { 1, 5, 10 };
static const long cuts_unj[] = { 5, 10, 20 };
static const double pct_11[] = { 0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0 };
static const double pct_rprec[] = { 0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0 };
static const double vals_relstring[] = { 10 };
static const double vals_utility[] = { 1.0, -1.0, 0.0, 0.0 };
static const double vals_set_f[] = { 1.0 };

#define LC(a) a, NULL, ARRAY_SIZE(a)
#define DV(a) NULL, a, ARRAY_SIZE(a)

static const struct te_name te_names[] = {
	{ "runid", TK_RUNID, PK_NONE, TE_RUNID, NULL, NULL, 0 },
	{ "num_q", TK_NUM_Q, PK_NONE, TE_COUNT_Q, NULL, NULL, 0 },
	{ "num_ret", TK_NUM_RET, PK_NONE, TE_LONG, NULL, NULL, 0 },
	{ "num_rel", TK_NUM_REL, PK_NONE, TE_LONG, NULL, NULL, 0 },
	{ "num_rel_ret", TK_NUM_REL_RET, PK_NONE, TE_LONG, NULL, NULL, 0 },
	{ "map", TK_MAP, PK_NONE, TE_FLOAT, NULL, NULL, 0 },
	{ "gm_map", TK_GM_MAP, PK_NONE, TE_GEO, NULL, NULL, 0 },
	{ "Rprec", TK_RPREC, PK_NONE, TE_FLOAT, NULL, NULL, 0 },
	{ "bpref", TK_BPREF, PK_NONE, TE_FLOAT, NULL, NULL, 0 },
	{ "recip_rank", TK_RECIP_RANK, PK_NONE, TE_FLOAT, NULL, NULL, 0 },
	{ "iprec_at_recall", TK_IPREC, PK_DOUBLE_CUTS, TE_FLOAT, DV(pct_11) },
	{ "P", TK_P, PK_LONG_CUTS, TE_FLOAT, LC(cuts_std) },
	{ "relstring", TK_RELSTRING, PK_VALUES, TE_STRING, DV(vals_relstring) },
	{ "recall", TK_RECALL, PK_LONG_CUTS, TE_FLOAT, LC(cuts_std) },
	{ "infAP", TK_INFAP, PK_NONE, TE_FLOAT, NULL, NULL, 0 },
	{ "gm_bpref", TK_GM_BPREF, PK_NONE, TE_GEO, NULL, NULL, 0 },
	{ "Rprec_mult", TK_RPREC_MULT, PK_DOUBLE_CUTS, TE_FLOAT, DV(pct_rprec) },
	{ "utility", TK_UTILITY, PK_VALUES, TE_FLOAT, DV(vals_utility) },
	{ "11pt_avg", TK_11PT_AVG, PK_VALUES, TE_FLOAT, DV(pct_11) },
	{ "binG", TK_BING, PK_NONE, TE_FLOAT, NULL, NULL, 0 },
	{ "G", TK_G, PK_PAIRS, TE_FLOAT, NULL, NULL, 0 },
	{ "dcg", TK_DCG, PK_PAIRS, TE_FLOAT, NULL, NULL, 0 },
	{ "ideal_dcg", TK_IDEAL_DCG, PK_PAIRS, TE_FLOAT, NULL, NULL, 0 },
	{ "ndcg", TK_NDCG, PK_PAIRS, TE_FLOAT, NULL, NULL, 0 },
	{ "ndcg_rel", TK_NDCG_REL, PK_PAIRS, TE_FLOAT, NULL, NULL, 0 },
	{ "Rndcg", TK_RNDCG, PK_PAIRS, TE_FLOAT, NULL, NULL, 0 },
	{ "ndcg_cut", TK_NDCG_CUT, PK_LONG_CUTS, TE_FLOAT, LC(cuts_std) },
	{ "map_cut", TK_MAP_CUT, PK_LONG_CUTS, TE_FLOAT, LC(cuts_std) },
	{ "relative_P", TK_RELATIVE_P, PK_LONG_CUTS, TE_FLOAT, LC(cuts_std) },
	{ "success", TK_SUCCESS, PK_LONG_CUTS, TE_FLOAT, LC(cuts_success) },
	{ "set_P", TK_SET_P, PK_NONE, TE_FLOAT, NULL, NULL, 0 },
	{ "set_relative_P", TK_SET_RELATIVE_P, PK_NONE, TE_FLOAT, NULL, NULL, 0 },
	{ "set_recall", TK_SET_RECALL, PK_NONE, TE_FLOAT, NULL, NULL, 0 },
	{ "set_map", TK_SET_MAP, PK_NONE, TE_FLOAT, NULL, NULL, 0 },
	{ "set_F", TK_SET_F, PK_VALUES, TE_FLOAT, DV(vals_set_f) },
	{ "num_nonrel_judged_ret", TK_NUM_NONREL_JUDGED_RET, PK_NONE, TE_LONG, NULL, NULL, 0 },
	{ "rbp", TK_RBP, PK_PAIRS, TE_FLOAT, NULL, NULL, 0 },
	{ "rbp_resid", TK_RBP_RESID, PK_PAIRS, TE_FLOAT, NULL, NULL, 0 },
	{ "unj", TK_UNJ, PK_LONG_CUTS, TE_FLOAT, LC(cuts_unj) },
};

static const char *const nick_official[] = {
	"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
	"Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", NULL
};
static const char *const nick_all_trec[] = {
	"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
	"Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring",
	"recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref",
	"utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success",
	"map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G",
	"set_P", "set_recall", "set_relative_P", "set_map", "set_F",
	"num_nonrel_judged_ret", NULL
};
static const char *const nick_set[] = {
	"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
	"set_recall", "set_relative_P", "set_map", "set_F", NULL
};

static const struct {
	const char *name;
	const char *const *list;
} nicknames[] = {
	{ "official", nick_official },
	{ "all_trec", nick_all_trec },
	{ "set", nick_set },
};

void te_list(struct strbuf *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(te_names); i++)
		strbuf_addf(out, "%s%s", i ? ", " : "", te_names[i].name);
	for (size_t i = 0; i < ARRAY_SIZE(nicknames); i++)
		strbuf_addf(out, ", %s", nicknames[i].name);
}

static int te_unknown(const char *arg)
{
	struct strbuf sb = STRBUF_INIT;

	te_list(&sb);
	if (!strncmp(arg, "prefs", 5) || !strncmp(arg, "all_prefs", 9) || strstr(arg, "avgjg") ||
	    !strncmp(arg, "yaap", 4) || !strncmp(arg, "qrels_jg", 8))
		error("measure '%s' needs trec_eval's preference or judgment-group formats (-R), "
		      "which are not supported; supported: %s", arg, sb.buf);
	else
		error("unknown measure '%s'; supported: %s", arg, sb.buf);
	strbuf_release(&sb);
	return -1;
}

void te_selection_init(struct te_selection *s)
{
	memset(s, 0, sizeof(*s));
}

static void set_defaults(struct te_params *p, const struct te_name *n)
{
	p->nr = n->nr_defaults;
	for (size_t i = 0; i < n->nr_defaults; i++) {
		if (n->lcuts)
			p->cut[i] = n->lcuts[i];
		else
			p->val[i] = n->dvals[i];
	}
	p->printable[0] = '\0';
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Parse the number 'text' for parameter 'arg'; integers when 'whole'. */
static int param_number(const char *text, const char *arg, bool whole, long *l, double *d)
{
	if (whole ? parse_long(text, -1000000000L, 1000000000L, l) < 0 : parse_double(text, d) < 0)
		return error("parameter '%s' of '%s' is not a number", text, arg);
	return 0;
}

static int parse_params(struct te_params *p, const struct te_name *n, const char *arg,
			const char *params)
{
	char *copy = xstrdup(params), *s = copy, *comma;
	size_t nr = 0;
	int ret = -1;

	if (strlen(params) >= TE_MAX_PRINTABLE) {
		error("parameters of '%s' are too long (at most %d characters)", arg,
		      TE_MAX_PRINTABLE - 1);
		goto out;
	}
	if (!*params) {
		error("improper measure in parameter '%s': nothing after the '.'", arg);
		goto out;
	}
	do {
		comma = strchr(s, ',');
		if (comma)
			*comma = '\0';
		if (nr == TE_MAX_PARAMS) {
			error("too many parameters in '%s' (at most %d)", arg, TE_MAX_PARAMS);
			goto out;
		}
		if (n->params == PK_PAIRS) {
			char *eq = strchr(s, '=');

			if (!eq || eq == s || (size_t)(eq - s) >= sizeof(p->key[0])) {
				error("malformed pair parameters in '%s' (expected name=value,...)", arg);
				goto out;
			}
			*eq = '\0';
			memcpy(p->key[nr], s, (size_t)(eq - s) + 1);
			if (param_number(eq + 1, arg, false, NULL, &p->val[nr]) < 0)
				goto out;
		} else if (param_number(s, arg, n->params == PK_LONG_CUTS, &p->cut[nr], &p->val[nr]) < 0) {
			goto out;
		}
		nr++;
		if (comma)  /* NULL + 1 is undefined */
			s = comma + 1;
	} while (comma);
	if (n->params == PK_LONG_CUTS) {
		qsort(p->cut, nr, sizeof(long), cmp_long);
		if (p->cut[0] <= 0) {
			error("cutoffs in '%s' must be positive", arg);
			goto out;
		}
	} else if (n->params == PK_DOUBLE_CUTS) {
		qsort(p->val, nr, sizeof(double), cmp_double);
	}
	for (size_t i = 1; i < nr && (n->params == PK_LONG_CUTS || n->params == PK_DOUBLE_CUTS); i++) {
		if (n->params == PK_LONG_CUTS ? p->cut[i] == p->cut[i - 1] : p->val[i] == p->val[i - 1]) {
			error("duplicate cutoffs in '%s'", arg);
			goto out;
		}
	}
	if (n->kind == TK_UTILITY && nr != 4) {
		error("utility takes 4 coefficients, not %zu: '%s'", nr, arg);
		goto out;
	}
	p->nr = nr;
	memcpy(p->printable, params, strlen(params) + 1);
	ret = 0;
out:
	free(copy);
	return ret;
}

static const struct te_name *te_lookup(const char *name, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(te_names); i++)
		if (strlen(te_names[i].name) == len && !strncmp(te_names[i].name, name, len))
			return &te_names[i];
	return NULL;
}

int te_select(struct te_selection *s, const char *arg)
{
	const char *dot = strchr(arg, '.');
	size_t len = dot ? (size_t)(dot - arg) : strlen(arg);
	const struct te_name *n;

	for (size_t i = 0; i < ARRAY_SIZE(nicknames); i++) {
		if (strlen(nicknames[i].name) != len || strncmp(arg, nicknames[i].name, len))
			continue;
		if (dot)
			return error("the measure set '%s' takes no parameters: '%s'",
				     nicknames[i].name, arg);
		for (const char *const *m = nicknames[i].list; *m; m++)
			if (te_select(s, *m) < 0)
				return -1;
		return 0;
	}
	n = te_lookup(arg, len);
	if (!n)
		return te_unknown(arg);
	if (dot && n->params == PK_NONE)
		return error("measure '%s' takes no parameters: '%s'", n->name, arg);
	s->on[n->kind] = true;
	if (n->params == PK_NONE)
		return 0;
	if (dot && !s->given[n->kind]) {
		if (parse_params(&s->p[n->kind], n, arg, dot + 1) < 0)
			return -1;
		s->given[n->kind] = true;
		return 0;
	}
	if (!s->given[n->kind])
		set_defaults(&s->p[n->kind], n);
	return 0;
}

size_t te_columns(const struct te_selection *s, struct te_column **cols)
{
	size_t nr = 0, alloc = 0;
	struct te_column *c = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(te_names); i++) {
		const struct te_name *n = &te_names[i];
		const struct te_params *p = &s->p[n->kind];
		bool per_cut = n->params == PK_LONG_CUTS || n->params == PK_DOUBLE_CUTS;
		size_t count = per_cut ? p->nr : 1;

		if (!s->on[n->kind])
			continue;
		for (size_t j = 0; j < count; j++) {
			struct te_column *col;

			ALLOC_GROW(c, nr + 1, alloc);
			col = &c[nr++];
			memset(col, 0, sizeof(*col));
			col->kind = n->kind;
			col->type = n->type;
			if (n->params == PK_LONG_CUTS) {
				col->k = p->cut[j];
				snprintf(col->name, sizeof(col->name), "%s_%ld", n->name, col->k);
			} else if (n->params == PK_DOUBLE_CUTS) {
				col->pct = p->val[j];
				snprintf(col->name, sizeof(col->name), "%s_%3.2f", n->name, col->pct);
			} else if (p->printable[0]) {
				snprintf(col->name, sizeof(col->name), "%s_%s", n->name, p->printable);
			} else {
				snprintf(col->name, sizeof(col->name), "%s", n->name);
			}
		}
	}
	*cols = c;
	return nr;
}

bool te_needs_ranking(const struct te_column *c, const struct te_selection *s)
{
	switch (c->kind) {
	case TK_RUNID: case TK_NUM_Q: case TK_NUM_RET: case TK_NUM_REL: case TK_NUM_REL_RET:
	case TK_MAP: case TK_GM_MAP: case TK_RPREC: case TK_BPREF: case TK_RECIP_RANK:
	case TK_IPREC: case TK_P: case TK_RECALL: case TK_NDCG_CUT: case TK_MAP_CUT:
	case TK_SUCCESS:
		return false;
	case TK_NDCG:
		return s->given[TK_NDCG];
	default:
		return true;
	}
}
