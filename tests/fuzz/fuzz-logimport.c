/*
 * fuzz-logimport: the log readers and the folding of records, on arbitrary
 * bytes. The first byte picks the format (JSON Lines, CSV, TSV) and whether
 * the JSON Lines fast path is on; the rest is the log. The whole input also
 * goes through the PII scrubber, which must never grow a text by more than
 * its placeholders.
 */
#include "fuzz.h"
#include "base/error.h"
#include "logs/logimport.h"
#include "text/pii.h"
#include "base/strbuf.h"

#include <stdlib.h>
#include <string.h>

static void quiet(const char *prefix, const char *msg)
{
	(void)prefix;
	(void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum log_format formats[] = { LOG_FORMAT_JSONL, LOG_FORMAT_CSV, LOG_FORMAT_TSV,
		LOG_FORMAT_AUTO };
	struct import_options o;
	struct import im;
	struct strbuf out = STRBUF_INIT;
	struct pii_counts c = { { 0 }, { 0 } };
	size_t spans;
	const char *path;

	if (!size)
		return 0;
	set_error_routine(quiet);
	set_warning_routine(quiet);
	spans = pii_redact((const char *)data + 1, size - 1, &out, &c);
	if (out.len > size - 1 + spans * 8)
		abort();
	strbuf_release(&out);

	import_options_init(&o);
	o.format = formats[data[0] & 3];
	log_json_fast = !(data[0] & 4);
	o.min_clicks = 1;
	o.assume_click = !(data[0] & 32);  /* else documents without a signal refuse the log */
	if (data[0] & 64)  /* a trace: documents and signals in each event of the list "ev" */
		o.field[FIELD_EVENT] = "ev";
	if (data[0] & 128) {  /* pre-aggregated rows */
		o.field[FIELD_COUNT] = "n";
		o.field[FIELD_SESSIONS] = "ss";
		o.field[FIELD_LAST] = "last";
	}
	o.field[FIELD_QUERY] = (data[0] & 8) ? "q.text" : "query";
	o.split_min = (data[0] & 16) ? 1 : 0;  /* two readers, one from each half */
	import_init(&im, &o);
	path = fuzz_temp_file(data + 1, size - 1);
	if (!import_read(&im, path))
		import_label(&im);
	import_release(&im);
	return 0;
}
