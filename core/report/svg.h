/*
 * svg: the charts of the HTML report, written as inline SVG elements.
 *
 * Every number a chart shows is passed in by the caller; this module only
 * maps them to coordinates, draws axes, ticks, labels and a legend, and
 * escapes every label through core/base/html.h. Nothing is fetched: fonts are the
 * reader's "sans-serif", colours are literal attributes, so a chart renders
 * the same inside the report, printed, or saved as a file on its own.
 *
 * Each drawn value also carries its exact number as a data attribute
 * (data-x/data-y on line points, data-est/data-lo/data-hi on forest rows,
 * data-value on bars and segments, printed with %.17g) and a <title>
 * tooltip, so a test or a reader can check a chart against `score` output.
 *
 * Invariants: a NAN value is not drawn (no bar, no point, no segment);
 * values outside the axis range are clamped to it; the output is a single
 * well-formed <svg> element.
 *
 * Ownership: the structs below borrow every pointer; functions append to a
 * caller-owned strbuf.
 */
#ifndef EVALSET_SVG_H
#define EVALSET_SVG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"

/* Return the colour ("#rrggbb") of palette entry 'i' (colour-blind safe, cycles). */
const char *svg_color(size_t i);

struct svg_series {
	const char *name;       /* legend text and data-series */
	const double *x, *y;    /* n points; x > 0 on a log axis */
	size_t n;
	size_t color;           /* palette index */
	bool dashed;
};

struct svg_line_chart {
	const char *id;          /* id attribute of the <svg>, or NULL */
	const char *title;       /* accessible title (<title>) and caption */
	const char *x_label, *y_label;
	bool log_x;              /* decade ticks at 1, 10, 100... with 2 and 5 between */
	double x_min, x_max, y_min, y_max;
	const struct svg_series *series;
	size_t nr_series;
	double mark_x;           /* a dashed vertical marker at this x; NAN: none */
	const char *mark_label;  /* text beside the marker, or NULL */
	int width, height;       /* viewBox size; 0 picks 640 x 360 */
};

/* Append a line chart with axes, ticks, labels and legend to 'out'. */
void svg_line_chart(struct strbuf *out, const struct svg_line_chart *c);

struct svg_forest_row {
	const char *label;
	double est, lo, hi;      /* estimate and its interval */
	int verdict;             /* >0 drawn as better, <0 as worse, 0 neutral */
	const char *note;        /* extra text after the numbers (e.g. "p=0.01"), or NULL */
};

struct svg_forest {
	const char *id;
	const char *title;
	const char *x_label;
	const struct svg_forest_row *rows;
	size_t nr_rows;
	int width;               /* 0 picks 640; the height follows the rows */
};

/* Append a horizontal forest plot (point and interval per row, a line at 0). */
void svg_forest(struct strbuf *out, const struct svg_forest *f);

struct svg_bar_group {
	const char *label;
	const double *values;    /* one per series; NAN: no bar */
	long n;                  /* questions in the group, shown at the right as "n = 12"; < 0: none */
};

struct svg_bars {
	const char *id;
	const char *title;
	const char *x_label;
	const char *const *series;   /* series names (legend), nr_series of them */
	size_t nr_series;
	const size_t *colors;        /* palette index per series, or NULL for 0, 1, ... */
	const struct svg_bar_group *groups;
	size_t nr_groups;
	double x_max;                /* axis from 0 to x_max (> 0) */
	int width;                   /* 0 picks 640; the height follows the groups */
};

/* Append horizontal grouped bars: one block per group, one bar per series. */
void svg_bars(struct strbuf *out, const struct svg_bars *b);

struct svg_stacked {
	const char *id;
	const char *title;
	const char *const *parts;     /* part names (legend), nr_parts of them */
	const size_t *colors;         /* palette index per part, or NULL */
	size_t nr_parts;
	const char *const *rows;      /* row labels */
	const double *values;         /* nr_rows x nr_parts, row-major, shares of 'total' */
	size_t nr_rows;
	double total;                 /* the full bar (1 for shares) */
	int width;
};

/* Append horizontal stacked bars, one per row, with percentages in the
 * segments wide enough to hold them. */
void svg_stacked(struct strbuf *out, const struct svg_stacked *s);

#endif
