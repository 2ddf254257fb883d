/*
 * logfield: the values of log fields that are not plain text: times and
 * signals. Times are ISO 8601 or epoch numbers, converted to epoch seconds
 * in UTC with a proleptic Gregorian calendar (no time zone database: an
 * offset must be written in the value). Signal words are compared without
 * case, '-' and ' ' standing for '_'.
 */
#include "logfield.h"

#include "util.h"

#include <math.h>
#include <string.h>
#include <time.h>

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
		return 0;
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
	return 0;
}

void import_format_time(double t, char out[32])
{
	time_t tt = (time_t)floor(t);
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static bool word_is(const char *s, size_t len, const char *w)
{
	size_t n = strlen(w);
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

enum signal_kind import_signal_kind(const char *s, size_t len)
{
	static const char *const pos[] = { "thumbs_up", "thumbsup", "up", "like", "liked",
		"positive", "helpful", "good", "true", "yes", NULL };
	static const char *const neg[] = { "thumbs_down", "thumbsdown", "down", "dislike",
		"disliked", "negative", "unhelpful", "not_helpful", "bad", "false", "no", NULL };
	char tmp[32];
	double v;

	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (word_is(s, len, "click") || word_is(s, len, "clicked") || word_is(s, len, "open"))
		return SIGNAL_CLICK;
	if (word_is(s, len, "cite") || word_is(s, len, "citation") || word_is(s, len, "cited") ||
	    word_is(s, len, "cites"))
		return SIGNAL_CITE;
	for (size_t k = 0; pos[k]; k++)
		if (word_is(s, len, pos[k]))
			return SIGNAL_POSITIVE;
	for (size_t k = 0; neg[k]; k++)
		if (word_is(s, len, neg[k]))
			return SIGNAL_NEGATIVE;
	if (len > 7 && word_is(s, 7, "rating:")) {
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

