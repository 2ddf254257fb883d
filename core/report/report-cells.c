/*
 * report-cells: numbers, cells and labels every section of the HTML report
 * writes the same way (see report-cells.h).
 */
#include "report/report-cells.h"
#include "base/html.h"
#include "score/results.h"

#include <math.h>

/* Return the rank of the first relevant document of 'qr' (0: none). */
long report_first_rel(const struct question_result *qr)
{
	return qr && qr->nr_rel_ranks ? qr->rel_ranks[0] : 0;
}

static void num(struct strbuf *out, double v)
{
	if (isnan(v))
		strbuf_addstr(out, "&ndash;");
	else
		strbuf_addf(out, "%.4f", v);
}

/* Append 'v' with its sign and four decimals, or a dash for NAN. */
void report_signed_num(struct strbuf *out, double v)
{
	if (isnan(v))
		strbuf_addstr(out, "&ndash;");
	else
		strbuf_addf(out, "%+.4f", v);
}

/* Append a numeric table cell carrying the exact value in data-value. */
void report_td_num(struct strbuf *out, double v)
{
	strbuf_addf(out, "<td class=\"n\" data-value=\"%.17g\">", v);
	num(out, v);
	strbuf_addstr(out, "</td>");
}

/* Return the name to show for a run: its name, else its path, else its file. */
const char *report_run_label(const struct results *r)
{
	if (r->run_name && *r->run_name)
		return r->run_name;
	if (r->run_path && *r->run_path)
		return r->run_path;
	return r->file ? r->file : "run";
}
