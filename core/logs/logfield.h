/*
 * logfield: parsing the values of log fields that are not plain text:
 * times (ISO 8601 or epoch numbers) and signals (click, cite, ratings).
 * docs/import.md lists the accepted forms.
 */
#ifndef EVALSET_LOGFIELD_H
#define EVALSET_LOGFIELD_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Parse a time: ISO 8601 "YYYY-MM-DD[THH:MM[:SS[.fff]]][Z|+HH:MM|-HHMM]"
 * (no zone: UTC; 'T' or a space between date and time) or a number of
 * seconds since the epoch (a number above 1e11 is taken as milliseconds).
 * '*date_only' (may be NULL) tells whether only a date was given. Return 0
 * or -1 (nothing printed).
 */
int import_parse_time(const char *s, size_t len, double *out, bool *date_only);
/* Format epoch seconds 't' as "YYYY-MM-DDTHH:MM:SSZ" into 'out'. */
void import_format_time(double t, char out[32]);

/* SIGNAL_SHORT_CLICK: a click already known to be short ("short_click", as aggregations write it) */
enum signal_kind {
	SIGNAL_CLICK, SIGNAL_CITE, SIGNAL_POSITIVE, SIGNAL_NEGATIVE, SIGNAL_OTHER, SIGNAL_SHORT_CLICK
};
/* Classify the signal value of 'len' bytes at 's' (docs/import.md, "Signals"). */
enum signal_kind import_signal_kind(const char *s, size_t len);

#endif
