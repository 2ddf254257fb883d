/*
 * t-svg: the report's charts hold the numbers given, escape their labels,
 * and map values to coordinates in order.
 */
#include "test-lib.h"
#include "base/strbuf.h"
#include "report/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* Return the value of attribute 'name' in the 'nth' element that starts with
 * 'tag' (e.g. "<rect class=\"bar\""), or NAN. */
static double attr_of(const char *svg, const char *tag, size_t nth, const char *name)
{
	const char *p = svg;
	char key[64];

	for (size_t i = 0; p; i++) {
		p = strstr(p, tag);
		if (!p)
			return NAN;
		if (i == nth)
			break;
		p++;
	}
	snprintf(key, sizeof(key), " %s=\"", name);
	p = strstr(p, key);
	return p ? strtod(p + strlen(key), NULL) : NAN;
}

static void test_line_chart(void)
{
	struct strbuf sb = STRBUF_INIT;
	double x[5] = { 1, 2, 5, 10, 100 };
	double y1[5] = { 0.1, 0.25, NAN, 0.6, 0.9 };
	double y2[5] = { 0.05, 0.2, 0.3, 0.5, 0.8 };
	struct svg_series s[2] = {
		{ "cand <b>", x, y1, 5, 0, false },
		{ "base", x, y2, 5, 1, true },
	};
	struct svg_line_chart c = { "rk", "R@k", "k", "recall", true, 1, 100, 0, 1,
				    s, 2, 5, "k = 5", 0, 0 };

	svg_line_chart(&sb, &c);
	is_int(count(sb.buf, "<svg"), 1, "one svg element");
	ok(strstr(sb.buf, "</svg>") != NULL, "the svg element is closed");
	is_int(count(sb.buf, "<circle class=\"pt\""), 9, "one point per non-NaN value");
	ok(strstr(sb.buf, "data-y=\"0.90000000000000002\"") != NULL,
	   "a point carries its exact value");
	ok(!strstr(sb.buf, "<b>") && strstr(sb.buf, "cand &lt;b&gt;"),
	   "series names are escaped");
	ok(strstr(sb.buf, ">100</text>") && strstr(sb.buf, ">10</text>") &&
	   strstr(sb.buf, ">50</text>"), "a log axis has ticks at 10, 50 and 100");
	ok(strstr(sb.buf, "class=\"marker\"") && strstr(sb.buf, "k = 5"),
	   "the context size is marked");
	{
		double x1 = attr_of(sb.buf, "<circle class=\"pt\"", 0, "cx");
		double x10 = attr_of(sb.buf, "<circle class=\"pt\"", 2, "cx");
		double x100 = attr_of(sb.buf, "<circle class=\"pt\"", 3, "cx");
		is_double(x10 - x1, x100 - x10, 0.02, "on a log axis 1..10 spans as much as 10..100");
		ok(attr_of(sb.buf, "<circle class=\"pt\"", 3, "cy") <
		   attr_of(sb.buf, "<circle class=\"pt\"", 0, "cy"),
		   "a higher value is drawn higher");
	}
	strbuf_release(&sb);
}

static void test_forest(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct svg_forest_row rows[3] = {
		{ "R@5", 0.05, 0.01, 0.09, 1, "p=0.01" },
		{ "nDCG@10", -0.02, -0.06, 0.02, 0, NULL },
		{ "RR", NAN, NAN, NAN, 0, NULL },
	};
	struct svg_forest f = { NULL, "Deltas", "candidate - baseline", rows, 3, 0 };
	double e0, e1, zero;

	svg_forest(&sb, &f);
	is_int(count(sb.buf, "<g class=\"row\""), 3, "one row per measure");
	is_int(count(sb.buf, "<rect class=\"est\""), 2, "a NaN estimate draws no point");
	ok(strstr(sb.buf, "+0.050 [+0.010, +0.090]  p=0.01") != NULL, "the numbers are written out");
	e0 = attr_of(sb.buf, "<rect class=\"est\"", 0, "x");
	e1 = attr_of(sb.buf, "<rect class=\"est\"", 1, "x");
	zero = attr_of(sb.buf, "<line class=\"zero\"", 0, "x1");
	ok(e1 + 4 < zero && zero < e0 + 4, "a negative delta lies left of zero, a positive right");
	strbuf_release(&sb);
}

static void test_bars(void)
{
	struct strbuf sb = STRBUF_INIT;
	const char *series[2] = { "baseline", "candidate" };
	double v1[2] = { 0.5, 1.0 }, v2[2] = { NAN, 0.25 };
	struct svg_bar_group g[2] = { { "all", v1, 12 }, { "tag=<x>", v2, -1 } };
	struct svg_bars b = { NULL, "Subsets", "R@5", series, 2, NULL, g, 2, 1, 0 };
	double w0, w1, w3;

	svg_bars(&sb, &b);
	is_int(count(sb.buf, "<rect class=\"bar\""), 3, "a NaN value draws no bar");
	w0 = attr_of(sb.buf, "<rect class=\"bar\"", 0, "width");
	w1 = attr_of(sb.buf, "<rect class=\"bar\"", 1, "width");
	w3 = attr_of(sb.buf, "<rect class=\"bar\"", 2, "width");
	is_double(w0 * 2, w1, 0.02, "bar length is proportional to the value");
	is_double(w3 * 4, w1, 0.02, "a quarter is a quarter of the full bar");
	ok(strstr(sb.buf, "tag=&lt;x&gt;") && !strstr(sb.buf, "<x>"), "group labels are escaped");
	strbuf_release(&sb);
}

static void test_stacked(void)
{
	struct strbuf sb = STRBUF_INIT;
	const char *parts[3] = { "found", "ranked low", "not found" };
	const char *rows[2] = { "baseline", "a candidate with a long name \xC3\xA9\xC3\xA9" };
	double v[6] = { 0.6, 0.3, 0.1, 0.5, 0.0, 0.5 };
	struct svg_stacked s = { NULL, "Find vs rank", parts, NULL, 3, rows, v, 2, 1, 0 };
	double total = 0;

	svg_stacked(&sb, &s);
	is_int(count(sb.buf, "<rect class=\"seg\""), 6, "one segment per part and row");
	for (size_t i = 0; i < 3; i++)
		total += attr_of(sb.buf, "<rect class=\"seg\"", i, "width");
	is_double(total, 640 - 20 - 130, 0.05, "shares summing to 1 fill the bar");
	ok(strstr(sb.buf, ">60%</text>") != NULL, "a wide segment shows its percentage");
	is_double(attr_of(sb.buf, "<rect class=\"seg\"", 5, "x"),
		  attr_of(sb.buf, "<rect class=\"seg\"", 4, "x"), 1e-9,
		  "a zero share takes no room");
	ok(strstr(sb.buf, "<title>a candidate with a long name \xC3\xA9\xC3\xA9</title>a candidate with "
		   "\xE2\x80\xA6</text>") != NULL,
	   "a long row label is cut with an ellipsis and kept whole in its tooltip");
	strbuf_release(&sb);
}

int main(void)
{
	test_line_chart();
	test_forest();
	test_bars();
	test_stacked();
	return test_done();
}
