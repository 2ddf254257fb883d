/*
 * fuzz-log-common: what fuzz-log-jsonl and fuzz-log-csv share: the log
 * importer (import_read, then import_label) on arbitrary bytes in one
 * format, with a time window so time parsing runs, and min_clicks 1 so
 * labels are decided. Whatever is read must hold the invariants of
 * logimport.h: counts add up, queries come sorted by count, grades are 0-2
 * and a labelled document has a positive event.
 */
#ifndef EVALSET_FUZZ_LOG_COMMON_H
#define EVALSET_FUZZ_LOG_COMMON_H

#include "base/error.h"
#include "logs/logimport.h"

static void quiet(const char *prefix, const char *msg)
{
	(void)prefix;
	(void)msg;
}

static void fuzz_import(const uint8_t *data, size_t size, enum log_format fmt)
{
	struct import_options o;
	struct import im;

	set_error_routine(quiet);
	set_warning_routine(quiet);
	import_options_init(&o);
	o.format = fmt;
	o.min_clicks = 1;
	o.assume_click = size & 1;  /* else documents without a signal refuse the log */
	o.have_since = true;
	o.since = 0;
	o.field[FIELD_DOC] = fmt == LOG_FORMAT_JSONL ? "docs.id" : "doc";
	import_init(&im, &o);
	if (import_read(&im, fuzz_temp_file(data, size)) == 0) {
		unsigned long used = 0;

		if (im.st.used > im.st.records || im.st.malformed > im.st.records)
			__builtin_trap();
		import_label(&im);
		for (size_t i = 0; i < im.nr; i++) {
			const struct import_query *q = &im.q[i];

			if (i && im.q[i - 1].t.count < q->t.count)
				__builtin_trap();
			if (!q->key || !q->text)
				__builtin_trap();
			for (size_t d = 0; d < q->t.nr_docs; d++)
				if (q->t.docs[d].grade < 0 || q->t.docs[d].grade > 2 ||
				    (q->t.docs[d].grade && !q->t.docs[d].positive))
					__builtin_trap();
			used += q->t.count;
		}
		if (used > im.st.used)
			__builtin_trap();
	}
	import_release(&im);
}

#endif
