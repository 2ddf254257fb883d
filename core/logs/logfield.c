/*
 * logfield: the values of log fields that are not plain text: times and
 * signals. Times are ISO 8601 or epoch numbers, converted to epoch seconds
 * in UTC with a proleptic Gregorian calendar (no time zone database: an
 * offset must be written in the value). Signal words are compared without
 * case, '-' and ' ' standing for '_'.
 */
#include "logs/logfield.h"

#include "base/util.h"

#include <math.h>
#include <string.h>

static long days_from_civil(long y, long m, long d)
{
	y -= m <= 2;
	long era = (y >= 0 ? y : y - 399) / 400;
	long yoe = y - era * 400;
	long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int digits(const char *s, size_t len, size_t *i, int n, long *out)
{
	long v = 0;
	for (int k = 0; k < n; k++, (*i)++) {
		if (*i >= len || s[*i] < '0' || s[*i] > '9')
			return -1;
		v = v * 10 + (s[*i] - '0');
	}
	*out = v;
	return 0;
}

/* Return true when 't' (epoch seconds) falls in the years 1 to 9999. */
static bool import_time_in_range(double t)
{
	return t >= -62135596800.0 && t < 253402300800.0;
}

int import_parse_time(const char *s, size_t len, double *out, bool *date_only)
{
	size_t i = 0;
	long y, mo, d, h = 0, mi = 0, sec = 0, zh, zm;
	double frac = 0, off = 0;
	char tmp[64];

	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	if (!len || len >= sizeof(tmp))
		return -1;
	if (date_only)
		*date_only = false;
	if (len < 10 || s[4] != '-') {
		double v;
		memcpy(tmp, s, len);
		tmp[len] = '\0';
		if (parse_double(tmp, &v) || v < 0)
			return -1;
		*out = v > 1e11 ? v / 1000 : v;
		/* 1e300 is a number but no time: it would reach gmtime and integer conversions */
		return import_time_in_range(*out) ? 0 : -1;
	}
	if (digits(s, len, &i, 4, &y) || s[i++] != '-' || digits(s, len, &i, 2, &mo) ||
	    i >= len || s[i++] != '-' || digits(s, len, &i, 2, &d))
		return -1;
	if (mo < 1 || mo > 12 || d < 1 || d > 31)
		return -1;
	if (i == len) {
		if (date_only)
			*date_only = true;
		goto done;
	}
	if (s[i] != 'T' && s[i] != 't' && s[i] != ' ')
		return -1;
	i++;
	if (digits(s, len, &i, 2, &h) || i >= len || s[i++] != ':' || digits(s, len, &i, 2, &mi))
		return -1;
	if (i < len && s[i] == ':') {
		i++;
		if (digits(s, len, &i, 2, &sec))
			return -1;
		if (i < len && (s[i] == '.' || s[i] == ',')) {
			double scale = 0.1;
			i++;
			if (i >= len || s[i] < '0' || s[i] > '9')
				return -1;
			while (i < len && s[i] >= '0' && s[i] <= '9') {
				frac += (s[i++] - '0') * scale;
				scale /= 10;
			}
		}
	}
	if (h > 24 || mi > 59 || sec > 60)
		return -1;
	if (i < len && (s[i] == 'Z' || s[i] == 'z')) {
		i++;
	} else if (i < len && (s[i] == '+' || s[i] == '-')) {
		int sign = s[i++] == '-' ? -1 : 1;
		if (digits(s, len, &i, 2, &zh))
			return -1;
		if (i < len && s[i] == ':')
			i++;
		if (digits(s, len, &i, 2, &zm))
			return -1;
		off = sign * (zh * 3600.0 + zm * 60.0);
	}
	if (i != len)
		return -1;
done:
	*out = (double)days_from_civil(y, mo, d) * 86400.0 + h * 3600.0 + mi * 60.0 + sec + frac - off;
	return import_time_in_range(*out) ? 0 : -1;
}

/* Set '*y', '*m', '*d' to the civil date 'days' after 1970-01-01 (days_from_civil reversed). */
static void civil_from_days(long long days, long *y, long *m, long *d)
{
	long long z = days + 719468;
	long long era = (z >= 0 ? z : z - 146096) / 146097;
	long long doe = z - era * 146097;                                  /* [0, 146096] */
	long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  /* [0, 399] */
	long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);           /* [0, 365] */
	long long mp = (5 * doy + 2) / 153;                                /* March = 0 */

	*d = (long)(doy - (153 * mp + 2) / 5 + 1);
	*m = (long)(mp < 10 ? mp + 3 : mp - 9);
	*y = (long)(yoe + era * 400 + (*m <= 2));
}

static void put_digits(char *out, long v, int n)
{
	while (n-- > 0) {
		out[n] = (char)('0' + v % 10);
		v /= 10;
	}
}

void import_format_time(double t, char out[32])
{
	double fl = floor(t);
	long long s, days, rem;
	long y, mo, d;

	/* import_parse_time gives only years 1 to 9999; anything else (NaN
	 * included) is held to that range, never converted out of it */
	if (!import_time_in_range(fl))
		fl = fl >= 253402300800.0 ? 253402300799.0 : -62135596800.0;
	/* written by hand: an import writes two times per query, tens of thousands of them */
	s = (long long)fl;
	days = s >= 0 ? s / 86400 : -((-s + 86399) / 86400);
	rem = s - days * 86400;
	civil_from_days(days, &y, &mo, &d);
	put_digits(out, y, 4);
	out[4] = '-';
	put_digits(out + 5, mo, 2);
	out[7] = '-';
	put_digits(out + 8, d, 2);
	out[10] = 'T';
	put_digits(out + 11, (long)(rem / 3600), 2);
	out[13] = ':';
	put_digits(out + 14, (long)(rem / 60 % 60), 2);
	out[16] = ':';
	put_digits(out + 17, (long)(rem % 60), 2);
	out[19] = 'Z';
	out[20] = '\0';
}

/* Return true when 'len' bytes of 's' are the word 'w' of 'n' bytes (any case; '-', ' ' as '_'). */
static bool word_is(const char *s, size_t len, const char *w, size_t n)
{
	if (n != len)
		return false;
	for (size_t k = 0; k < n; k++) {
		char c = s[k];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c + 32);
		if (c == '-' || c == ' ')
			c = '_';
		if (c != w[k])
			return false;
	}
	return true;
}

#define WORD(w, kind) { w, sizeof(w) - 1, kind }

enum signal_kind import_signal_kind(const char *s, size_t len)
{
	/* every record has a signal: the length is compared first */
	static const struct { const char *w; size_t n; enum signal_kind kind; } words[] = {
		WORD("click", SIGNAL_CLICK), WORD("clicked", SIGNAL_CLICK), WORD("open", SIGNAL_CLICK),
		WORD("short_click", SIGNAL_SHORT_CLICK),
		WORD("cite", SIGNAL_CITE), WORD("citation", SIGNAL_CITE), WORD("cited", SIGNAL_CITE),
		WORD("cites", SIGNAL_CITE),
		WORD("thumbs_up", SIGNAL_POSITIVE), WORD("thumbsup", SIGNAL_POSITIVE),
		WORD("up", SIGNAL_POSITIVE), WORD("like", SIGNAL_POSITIVE), WORD("liked", SIGNAL_POSITIVE),
		WORD("positive", SIGNAL_POSITIVE), WORD("helpful", SIGNAL_POSITIVE),
		WORD("good", SIGNAL_POSITIVE), WORD("true", SIGNAL_POSITIVE), WORD("yes", SIGNAL_POSITIVE),
		WORD("thumbs_down", SIGNAL_NEGATIVE), WORD("thumbsdown", SIGNAL_NEGATIVE),
		WORD("down", SIGNAL_NEGATIVE), WORD("dislike", SIGNAL_NEGATIVE),
		WORD("disliked", SIGNAL_NEGATIVE), WORD("negative", SIGNAL_NEGATIVE),
		WORD("unhelpful", SIGNAL_NEGATIVE), WORD("not_helpful", SIGNAL_NEGATIVE),
		WORD("bad", SIGNAL_NEGATIVE), WORD("false", SIGNAL_NEGATIVE), WORD("no", SIGNAL_NEGATIVE),
	};
	char tmp[32];
	double v;

	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
		if (words[k].n == len && word_is(s, len, words[k].w, words[k].n))
			return words[k].kind;
	if (len > 7 && word_is(s, 7, "rating:", 7)) {
		s += 7;
		len -= 7;
	}
	if (len && len < sizeof(tmp)) {
		memcpy(tmp, s, len);
		tmp[len] = '\0';
		if (!parse_double(tmp, &v) || (tmp[0] == '+' && !parse_double(tmp + 1, &v))) {
			if (v > 0)
				return SIGNAL_POSITIVE;
			if (v < 0)
				return SIGNAL_NEGATIVE;
		}
	}
	return SIGNAL_OTHER;
}

