/*
 * findings: what check found, each with its level and the place it is
 * about (set.h, "check"). Every rule of the set wing reports through these.
 */
#include "set/set.h"
#include "base/error.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdlib.h>

static void findings_vadd(struct findings *f, enum finding_level level, const char *file,
			  long line, long col, const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;
	struct finding *it;

	strbuf_vaddf(&sb, fmt, ap);
	ALLOC_GROW(f->items, f->nr + 1, f->alloc);
	it = &f->items[f->nr++];
	it->level = level;
	it->file = file ? xstrdup(file) : NULL;
	it->line = line;
	it->col = col;
	it->message = strbuf_detach(&sb, NULL);
	if (level == FINDING_ERROR)
		f->nr_errors++;
	else
		f->nr_warnings++;
}

void findings_add(struct findings *f, enum finding_level level, long line, long col,
		  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	findings_vadd(f, level, NULL, line, col, fmt, ap);
	va_end(ap);
}

void findings_add_at(struct findings *f, enum finding_level level, const char *file, long line,
		     long col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	findings_vadd(f, level, file, line, col, fmt, ap);
	va_end(ap);
}

void findings_release(struct findings *f)
{
	for (size_t i = 0; i < f->nr; i++) {
		free(f->items[i].message);
		free(f->items[i].file);
	}
	free(f->items);
	f->items = NULL;
	f->nr = f->alloc = f->nr_errors = f->nr_warnings = 0;
}

size_t findings_report_errors(const struct findings *f, const char *file)
{
	size_t n = 0;

	for (size_t i = 0; i < f->nr; i++) {
		const struct finding *it = &f->items[i];
		if (it->level != FINDING_ERROR)
			continue;
		error_at(it->file ? it->file : file, it->line, it->col, "%s", it->message);
		n++;
	}
	return n;
}
