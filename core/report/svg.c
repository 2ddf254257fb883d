/*
 * svg: inline SVG charts for the report (see svg.h).
 *
 * Layout is fixed-size in viewBox units; the page scales the <svg> to its
 * container with CSS, so the charts stay sharp on screen and on paper.
 * Coordinates are printed with two decimals, data attributes with %.17g.
 */
#include "report/svg.h"
#include "base/html.h"
#include "base/utf8.h"
#include "base/util.h"

#include <math.h>
#include <string.h>

static const char *const palette[] = {
	"#0072B2", /* blue */
	"#E69F00", /* orange */
	"#009E73", /* green */
	"#D55E00", /* vermillion */
	"#CC79A7", /* purple */
	"#56B4E9", /* sky */
	"#999999", /* grey */
};

const char *svg_color(size_t i)
{
	return palette[i % ARRAY_SIZE(palette)];
}

static double clamp(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Append '<svg ...>' with 'id', the viewBox and an accessible <title>. */
static void open_svg(struct strbuf *out, const char *id, const char *cls,
		     const char *title, int w, int h)
{
	strbuf_addstr(out, "<svg xmlns=\"http://www.w3.org/2000/svg\"");
	if (id)
		html_attr(out, "id", id);
	html_attr(out, "class", cls);
	strbuf_addf(out, " viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\""
		    " font-family=\"sans-serif\" font-size=\"12\">", w, h, w, h);
	strbuf_addstr(out, "<title>");
	html_text(out, title ? title : "");
	strbuf_addstr(out, "</title>\n");
}

/* Append a <text> element at ('x', 'y') with 'anchor' and escaped 'text'. */
static void text_at(struct strbuf *out, double x, double y, const char *anchor,
		    const char *extra, const char *text)
{
	strbuf_addf(out, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"%s\"%s%s>",
		    x, y, anchor, extra ? " " : "", extra ? extra : "");
	html_text(out, text);
	strbuf_addstr(out, "</text>");
}

/* Append 'text' like text_at, cut to 'max_chars' characters with an
 * ellipsis when longer; the full text is kept in a <title> tooltip. */
static void text_fit(struct strbuf *out, double x, double y, const char *anchor,
		     const char *text, size_t max_chars)
{
	size_t len = text ? strlen(text) : 0, cut;

	if (utf8_chars(text, len) <= max_chars) {
		text_at(out, x, y, anchor, NULL, text);
		return;
	}
	strbuf_addf(out, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"%s\"><title>", x, y, anchor);
	html_text(out, text);
	strbuf_addstr(out, "</title>");
	cut = utf8_prefix(text, len, max_chars - 1);
	html_text_len(out, text, cut);
	strbuf_addstr(out, "\xE2\x80\xA6</text>");
}

/* Return a "nice" tick step (1, 2 or 5 times a power of ten) giving about
 * 'n' ticks over 'range'. */
static double nice_step(double range, int n)
{
	double raw = range / n, mag, f;

	if (!(raw > 0))
		return 1;
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

/* Format a tick value compactly ("0.25", "10", "-0.05"). */
static void tick_label(char *buf, size_t size, double v)
{
	if (fabs(v) < 1e-12)
		v = 0;
	snprintf(buf, size, "%g", v);
}

/* Format a signed delta for display: "+0.031", "-0.120", "0.000". */
static void signed_num(char *buf, size_t size, double v)
{
	if (isnan(v))
		snprintf(buf, size, "n/a");
	else if (fabs(v) < 5e-4)
		snprintf(buf, size, "0.000");
	else
		snprintf(buf, size, "%+.3f", v);
}

/* ---- line chart ---- */

struct frame {
	double l, r, t, b;    /* plot area in viewBox units */
	double x0, x1, y0, y1;
	bool log_x;
};

static double fx(const struct frame *f, double x)
{
	double a, b, v;

	if (f->log_x) {
		a = log10(f->x0); b = log10(f->x1);
		v = x > 0 ? log10(x) : a;
	} else {
		a = f->x0; b = f->x1; v = x;
	}
	return f->l + (clamp(v, a, b) - a) / (b - a) * (f->r - f->l);
}

static double fy(const struct frame *f, double y)
{
	return f->b - (clamp(y, f->y0, f->y1) - f->y0) / (f->y1 - f->y0) * (f->b - f->t);
}

static void x_tick(struct strbuf *out, const struct frame *f, double x, bool major)
{
	char buf[32];
	double px = fx(f, x);

	strbuf_addf(out, "<line class=\"grid\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\""
		    " stroke=\"#ddd\"/>", px, f->t, px, f->b);
	strbuf_addf(out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#333\"/>",
		    px, f->b, px, f->b + (major ? 5 : 3));
	tick_label(buf, sizeof(buf), x);
	text_at(out, px, f->b + 17, "middle", "class=\"tick\"", buf);
}

void svg_line_chart(struct strbuf *out, const struct svg_line_chart *c)
{
	int w = c->width ? c->width : 640, h = c->height ? c->height : 360;
	struct frame f = { 58, w - 16.0, 30, h - 46.0, c->x_min, c->x_max,
			   c->y_min, c->y_max, c->log_x };
	char buf[64];
	size_t longest = 0;

	if (!(f.x1 > f.x0))
		f.x1 = f.x0 + 1;
	if (f.log_x && !(f.x0 > 0))
		f.x0 = 1;
	if (!(f.y1 > f.y0))
		f.y1 = f.y0 + 1;
	open_svg(out, c->id, "chart line-chart", c->title, w, h);
	text_at(out, 8, 18, "start", "class=\"chart-title\" font-weight=\"bold\" font-size=\"13\"",
		c->title);

	/* y axis: linear ticks */
	{
		double step = nice_step(f.y1 - f.y0, 5);
		for (double y = ceil(f.y0 / step - 1e-9) * step; y <= f.y1 + step * 1e-9; y += step) {
			double py = fy(&f, y);
			strbuf_addf(out, "<line class=\"grid\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\""
				    " y2=\"%.2f\" stroke=\"#ddd\"/>", f.l, py, f.r, py);
			tick_label(buf, sizeof(buf), y);
			text_at(out, f.l - 6, py + 4, "end", "class=\"tick\"", buf);
		}
	}
	/* x axis */
	if (f.log_x) {
		for (double d = pow(10, floor(log10(f.x0))); d <= f.x1 * (1 + 1e-9); d *= 10) {
			static const double mult[] = { 1, 2, 5 };
			for (size_t i = 0; i < ARRAY_SIZE(mult); i++) {
				double x = d * mult[i];
				if (x >= f.x0 * (1 - 1e-9) && x <= f.x1 * (1 + 1e-9))
					x_tick(out, &f, x, i == 0);
			}
		}
	} else {
		double step = nice_step(f.x1 - f.x0, 8);
		for (double x = ceil(f.x0 / step - 1e-9) * step; x <= f.x1 + step * 1e-9; x += step)
			x_tick(out, &f, x, true);
	}
	strbuf_addf(out, "<path class=\"axis\" d=\"M%.2f %.2fV%.2fH%.2f\" fill=\"none\" stroke=\"#333\"/>",
		    f.l, f.t, f.b, f.r);
	text_at(out, (f.l + f.r) / 2, h - 8, "middle", "class=\"axis-label\"", c->x_label);
	snprintf(buf, sizeof(buf), "rotate(-90 14 %.2f)", (f.t + f.b) / 2);
	{
		char extra[96];
		snprintf(extra, sizeof(extra), "class=\"axis-label\" transform=\"%s\"", buf);
		text_at(out, 14, (f.t + f.b) / 2, "middle", extra, c->y_label);
	}

	/* the marker */
	if (!isnan(c->mark_x)) {
		double px = fx(&f, c->mark_x);
		strbuf_addf(out, "<line class=\"marker\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\""
			    " stroke=\"#555\" stroke-dasharray=\"2 3\" data-x=\"%.17g\"/>",
			    px, f.t, px, f.b, c->mark_x);
		if (c->mark_label)
			text_at(out, px + 4, f.t + 12, "start", "class=\"marker-label\" fill=\"#555\"",
				c->mark_label);
	}

	/* series: a path, then one point per value */
	for (size_t s = 0; s < c->nr_series; s++) {
		const struct svg_series *se = &c->series[s];
		const char *color = svg_color(se->color);
		bool pen = false;

		strbuf_addstr(out, "<g class=\"series\"");
		html_attr(out, "data-series", se->name);
		strbuf_addstr(out, ">");
		strbuf_addstr(out, "<path fill=\"none\" stroke-width=\"2\"");
		html_attr(out, "stroke", color);
		if (se->dashed)
			strbuf_addstr(out, " stroke-dasharray=\"6 4\"");
		strbuf_addstr(out, " d=\"");
		for (size_t i = 0; i < se->n; i++) {
			if (isnan(se->y[i]) || (f.log_x && !(se->x[i] > 0))) {
				pen = false;
				continue;
			}
			strbuf_addf(out, "%c%.2f %.2f", pen ? 'L' : 'M', fx(&f, se->x[i]), fy(&f, se->y[i]));
			pen = true;
		}
		strbuf_addstr(out, "\"/>");
		for (size_t i = 0; i < se->n; i++) {
			if (isnan(se->y[i]) || (f.log_x && !(se->x[i] > 0)))
				continue;
			strbuf_addf(out, "<circle class=\"pt\" cx=\"%.2f\" cy=\"%.2f\" r=\"1.8\""
				    " data-x=\"%.17g\" data-y=\"%.17g\"", fx(&f, se->x[i]),
				    fy(&f, se->y[i]), se->x[i], se->y[i]);
			html_attr(out, "fill", color);
			strbuf_addstr(out, "><title>");
			html_textf(out, "%s: %g at %g", se->name ? se->name : "", se->y[i], se->x[i]);
			strbuf_addstr(out, "</title></circle>");
		}
		strbuf_addstr(out, "</g>\n");
	}

	/* legend, bottom right inside the plot, as wide as the longest name */
	for (size_t s = 0; s < c->nr_series; s++) {
		size_t len = c->series[s].name ? strlen(c->series[s].name) : 0;
		if (len > longest)
			longest = len;
	}
	for (size_t s = 0; s < c->nr_series; s++) {
		double ly = f.b - 12 - 16.0 * (double)(c->nr_series - 1 - s);
		double lx = f.r - 40 - 6.6 * (double)longest;

		if (lx < f.l + 8)
			lx = f.l + 8;
		strbuf_addf(out, "<g class=\"legend\"><line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\""
			    " stroke-width=\"2\"", lx, ly - 4, lx + 22, ly - 4);
		html_attr(out, "stroke", svg_color(c->series[s].color));
		if (c->series[s].dashed)
			strbuf_addstr(out, " stroke-dasharray=\"6 4\"");
		strbuf_addstr(out, "/>");
		text_at(out, lx + 28, ly, "start", NULL, c->series[s].name);
		strbuf_addstr(out, "</g>");
	}
	strbuf_addstr(out, "</svg>\n");
}

/* ---- forest plot ---- */

void svg_forest(struct strbuf *out, const struct svg_forest *fo)
{
	int w = fo->width ? fo->width : 640;
	double row_h = 24, top = 50, label_w = 130, num_w = 250;
	int h = (int)(top + row_h * (double)fo->nr_rows + 40);
	double lo = 0, hi = 0, step;
	struct frame f;
	char buf[160];

	for (size_t i = 0; i < fo->nr_rows; i++) {
		const struct svg_forest_row *r = &fo->rows[i];
		double vals[3] = { r->est, r->lo, r->hi };
		for (size_t j = 0; j < 3; j++) {
			if (isnan(vals[j]))
				continue;
			if (vals[j] < lo) lo = vals[j];
			if (vals[j] > hi) hi = vals[j];
		}
	}
	if (hi - lo < 0.02) {
		lo -= 0.01;
		hi += 0.01;
	}
	step = nice_step(hi - lo, 6);
	lo = floor(lo / step - 1e-9) * step;
	hi = ceil(hi / step + 1e-9) * step;
	f = (struct frame){ label_w, w - num_w, top, top + row_h * (double)fo->nr_rows,
			    lo, hi, 0, 1, false };

	open_svg(out, fo->id, "chart forest", fo->title, w, h);
	text_at(out, 8, 18, "start", "class=\"chart-title\" font-weight=\"bold\" font-size=\"13\"",
		fo->title);
	for (double x = lo; x <= hi + step * 1e-9; x += step) {
		double px = fx(&f, x);
		strbuf_addf(out, "<line class=\"grid\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\""
			    " stroke=\"#eee\"/>", px, f.t, px, f.b);
		tick_label(buf, sizeof(buf), x);
		text_at(out, px, f.b + 16, "middle", "class=\"tick\"", buf);
	}
	strbuf_addf(out, "<line class=\"zero\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\""
		    " stroke=\"#333\"/>", fx(&f, 0), f.t - 4, fx(&f, 0), f.b);
	strbuf_addf(out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#333\"/>",
		    f.l, f.b, f.r, f.b);
	text_at(out, (f.l + f.r) / 2, h - 6, "middle", "class=\"axis-label\"", fo->x_label);
	text_at(out, f.r + 8, top - 8, "start", "fill=\"#555\"", "delta [95% CI]");

	for (size_t i = 0; i < fo->nr_rows; i++) {
		const struct svg_forest_row *r = &fo->rows[i];
		double cy = top + row_h * ((double)i + 0.5);
		const char *color = r->verdict > 0 ? svg_color(2) : r->verdict < 0 ? svg_color(3)
						    : "#333";
		char e[24], l[24], hh[24];

		strbuf_addf(out, "<g class=\"row\" data-est=\"%.17g\" data-lo=\"%.17g\" data-hi=\"%.17g\"",
			    r->est, r->lo, r->hi);
		html_attr(out, "data-label", r->label);
		strbuf_addstr(out, ">");
		if (i % 2)
			strbuf_addf(out, "<rect x=\"0\" y=\"%.2f\" width=\"%d\" height=\"%.2f\" fill=\"#f6f6f6\"/>",
				    cy - row_h / 2, w, row_h);
		text_fit(out, label_w - 8, cy + 4, "end", r->label, 18);
		if (!isnan(r->lo) && !isnan(r->hi)) {
			strbuf_addf(out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke-width=\"2\"",
				    fx(&f, r->lo), cy, fx(&f, r->hi), cy);
			html_attr(out, "stroke", color);
			strbuf_addstr(out, "/>");
			for (int j = 0; j < 2; j++) {
				double px = fx(&f, j ? r->hi : r->lo);
				strbuf_addf(out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"",
					    px, cy - 5, px, cy + 5);
				html_attr(out, "stroke", color);
				strbuf_addstr(out, "/>");
			}
		}
		signed_num(e, sizeof(e), r->est);
		signed_num(l, sizeof(l), r->lo);
		signed_num(hh, sizeof(hh), r->hi);
		if (!isnan(r->est)) {
			strbuf_addf(out, "<rect class=\"est\" x=\"%.2f\" y=\"%.2f\" width=\"8\" height=\"8\"",
				    fx(&f, r->est) - 4, cy - 4);
			html_attr(out, "fill", color);
			strbuf_addstr(out, "><title>");
			html_textf(out, "%s: %s [%s, %s]", r->label ? r->label : "", e, l, hh);
			strbuf_addstr(out, "</title></rect>");
		}
		snprintf(buf, sizeof(buf), "%s [%s, %s]%s%s", e, l, hh, r->note ? "  " : "",
			 r->note ? r->note : "");
		text_at(out, f.r + 8, cy + 4, "start", "class=\"num\"", buf);
		strbuf_addstr(out, "</g>\n");
	}
	strbuf_addstr(out, "</svg>\n");
}

/* ---- grouped bars ---- */

#define LEGEND_LINE 18

/* Return the width of legend entry 'name' (swatch, text, gap). */
static double legend_width(const char *name)
{
	size_t len = name ? utf8_chars(name, strlen(name)) : 0;
	return 28 + 7.0 * (double)(len < 32 ? len : 32);
}

/* Return the number of lines the legend of 'names' takes from 'x' in a
 * chart 'w' wide (an entry that would cross the right edge starts a line). */
static int legend_lines(double x, int w, const char *const *names, size_t n)
{
	double at = x;
	int lines = 1;

	for (size_t i = 0; i < n; i++) {
		double ew = legend_width(names[i]);
		if (at > x && at + ew > w) {
			lines++;
			at = x;
		}
		at += ew;
	}
	return lines;
}

/* Append the legend of 'names' from ('x', 'y'), wrapped as legend_lines says. */
static void legend_row(struct strbuf *out, double x, double y, int w, const char *const *names,
		       const size_t *colors, size_t n)
{
	double at = x;

	for (size_t i = 0; i < n; i++) {
		double ew = legend_width(names[i]);
		if (at > x && at + ew > w) {
			y += LEGEND_LINE;
			at = x;
		}
		strbuf_addf(out, "<g class=\"legend\"><rect x=\"%.2f\" y=\"%.2f\" width=\"12\" height=\"12\"",
			    at, y - 10);
		html_attr(out, "fill", svg_color(colors ? colors[i] : i));
		strbuf_addstr(out, "/>");
		text_fit(out, at + 16, y, "start", names[i], 32);
		strbuf_addstr(out, "</g>");
		at += ew;
	}
}

void svg_bars(struct strbuf *out, const struct svg_bars *b)
{
	int w = b->width ? b->width : 640;
	double bar_h = 14, gap = 10, top = 34, label_w = 170;
	double group_h = bar_h * (double)b->nr_series + gap;
	double plot_h = group_h * (double)b->nr_groups;
	int lines = legend_lines(8, w, b->series, b->nr_series);
	int h = (int)(top + plot_h + 40 + LEGEND_LINE * lines);
	struct frame f = { label_w, w - 120.0, top, top + plot_h, 0, b->x_max > 0 ? b->x_max : 1,
			   0, 1, false };
	double step = nice_step(f.x1, 5);
	char buf[64];

	open_svg(out, b->id, "chart bars", b->title, w, h);
	text_at(out, 8, 18, "start", "class=\"chart-title\" font-weight=\"bold\" font-size=\"13\"",
		b->title);
	for (double x = 0; x <= f.x1 + step * 1e-9; x += step) {
		double px = fx(&f, x);
		strbuf_addf(out, "<line class=\"grid\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\""
			    " stroke=\"#eee\"/>", px, f.t, px, f.b);
		tick_label(buf, sizeof(buf), x);
		text_at(out, px, f.b + 16, "middle", "class=\"tick\"", buf);
	}
	for (size_t g = 0; g < b->nr_groups; g++) {
		const struct svg_bar_group *gr = &b->groups[g];
		double gy = top + group_h * (double)g + gap / 2;

		strbuf_addstr(out, "<g class=\"group\"");
		html_attr(out, "data-group", gr->label);
		strbuf_addstr(out, ">");
		text_fit(out, label_w - 8, gy + bar_h * (double)b->nr_series / 2 + 4, "end",
			 gr->label, 24);
		if (gr->n >= 0) {
			snprintf(buf, sizeof(buf), "n = %ld", gr->n);
			text_at(out, w - 6, gy + bar_h * (double)b->nr_series / 2 + 4, "end",
				"class=\"n\" fill=\"#555\"", buf);
		}
		for (size_t s = 0; s < b->nr_series; s++) {
			double v = gr->values[s], y = gy + bar_h * (double)s;
			if (isnan(v))
				continue;
			strbuf_addf(out, "<rect class=\"bar\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\""
				    " height=\"%.2f\" data-value=\"%.17g\"", f.l, y,
				    fx(&f, v) - f.l, bar_h - 2, v);
			html_attr(out, "data-series", b->series[s]);
			html_attr(out, "fill", svg_color(b->colors ? b->colors[s] : s));
			strbuf_addstr(out, "><title>");
			html_textf(out, "%s, %s: %.3f", gr->label ? gr->label : "",
				   b->series[s] ? b->series[s] : "", v);
			strbuf_addstr(out, "</title></rect>");
			snprintf(buf, sizeof(buf), "%.3f", v);
			text_at(out, fx(&f, v) + 4, y + bar_h - 4, "start",
				"class=\"num\" font-size=\"10\"", buf);
		}
		strbuf_addstr(out, "</g>\n");
	}
	strbuf_addf(out, "<path class=\"axis\" d=\"M%.2f %.2fV%.2fH%.2f\" fill=\"none\" stroke=\"#333\"/>",
		    f.l, f.t, f.b, f.r);
	text_at(out, (f.l + f.r) / 2, f.b + 32, "middle", "class=\"axis-label\"", b->x_label);
	legend_row(out, 8, f.b + 40 + 4, w, b->series, b->colors, b->nr_series);
	strbuf_addstr(out, "</svg>\n");
}

/* ---- stacked bars ---- */

void svg_stacked(struct strbuf *out, const struct svg_stacked *s)
{
	int w = s->width ? s->width : 640;
	double bar_h = 26, gap = 12, top = 34, label_w = 130;
	double plot_h = (bar_h + gap) * (double)s->nr_rows;
	int lines = legend_lines(8, w, s->parts, s->nr_parts);
	int h = (int)(top + plot_h + 12 + LEGEND_LINE * lines);
	double total = s->total > 0 ? s->total : 1;
	struct frame f = { label_w, w - 20.0, top, top + plot_h, 0, total, 0, 1, false };
	char buf[64];

	open_svg(out, s->id, "chart stacked", s->title, w, h);
	text_at(out, 8, 18, "start", "class=\"chart-title\" font-weight=\"bold\" font-size=\"13\"",
		s->title);
	for (size_t r = 0; r < s->nr_rows; r++) {
		double y = top + (bar_h + gap) * (double)r, x = 0;

		strbuf_addstr(out, "<g class=\"stack\"");
		html_attr(out, "data-row", s->rows[r]);
		strbuf_addstr(out, ">");
		text_fit(out, label_w - 8, y + bar_h / 2 + 4, "end", s->rows[r], 18);
		for (size_t p = 0; p < s->nr_parts; p++) {
			double v = s->values[r * s->nr_parts + p], x0, x1;
			if (isnan(v))
				continue;
			x0 = fx(&f, x);
			x1 = fx(&f, x + v);
			strbuf_addf(out, "<rect class=\"seg\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\""
				    " height=\"%.2f\" data-value=\"%.17g\"", x0, y, x1 - x0, bar_h, v);
			html_attr(out, "data-part", s->parts[p]);
			html_attr(out, "fill", svg_color(s->colors ? s->colors[p] : p));
			strbuf_addstr(out, "><title>");
			html_textf(out, "%s, %s: %.1f%%", s->rows[r] ? s->rows[r] : "",
				   s->parts[p] ? s->parts[p] : "", 100 * v / total);
			strbuf_addstr(out, "</title></rect>");
			if (x1 - x0 >= 36) {
				snprintf(buf, sizeof(buf), "%.0f%%", 100 * v / total);
				text_at(out, (x0 + x1) / 2, y + bar_h / 2 + 4, "middle",
					"fill=\"#fff\" font-weight=\"bold\"", buf);
			}
			x += v;
		}
		strbuf_addstr(out, "</g>\n");
	}
	legend_row(out, 8, top + plot_h + 12, w, s->parts, s->colors, s->nr_parts);
	strbuf_addstr(out, "</svg>\n");
}
