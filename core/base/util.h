/*
 * util: allocation that cannot fail silently, small string helpers, number
 * parsing and 64-bit hash mixing.
 *
 * Out of memory is the one condition core/ does not report through error():
 * x* allocators print a message and abort, since no caller can do anything
 * useful without memory. Every other failure is returned to the caller.
 */
#ifndef EVALSET_UTIL_H
#define EVALSET_UTIL_H

#include <limits.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/utf8.h" /* utf8_valid was declared here: old includers still find it */

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Grow the array 'x' (with 'alloc' slots) so that it holds at least 'nr' elements. */
#define ALLOC_GROW(x, nr, alloc)                                             \
	do {                                                                 \
		if ((nr) > (alloc)) {                                        \
			size_t alloc_grow_n_ = (alloc) < 8 ? 8 : (alloc);    \
			while (alloc_grow_n_ < (nr))                         \
				alloc_grow_n_ += alloc_grow_n_ / 2 + 8;      \
			(x) = xreallocarray((x), alloc_grow_n_, sizeof(*(x))); \
			(alloc) = alloc_grow_n_;                             \
		}                                                            \
	} while (0)

/* Grow the array 'x' (with 'alloc' slots) to exactly 'nr' elements when it
 * holds fewer: for a caller that knows how many are coming (a loader that
 * has the list's length), where ALLOC_GROW's slack would be waste. */
#define ALLOC_EXACT(x, nr, alloc)                                            \
	do {                                                                 \
		if ((nr) > (alloc)) {                                        \
			(x) = xreallocarray((x), (nr), sizeof(*(x)));        \
			(alloc) = (nr);                                      \
		}                                                            \
	} while (0)

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
/*
 * xcalloc for a hash table: the zeroes are written at once. Fresh zeroed
 * memory first read is mapped to the shared zero page, so the first write
 * faults again and, with several threads running, interrupts all of them.
 */
void *xcalloc_written(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
void *xreallocarray(void *ptr, size_t nmemb, size_t size);
/* Return a copy of 's' (NULL stays NULL); caller frees. */
char *xstrdup(const char *s);
/* Return a NUL-terminated copy of the first 'len' bytes of 's'; caller frees. */
char *xstrndup(const char *s, size_t len);
/* Return a newly allocated printf-formatted string; caller frees. */
char *xstrfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

bool starts_with(const char *s, const char *prefix);
bool ends_with(const char *s, const char *suffix);

/*
 * Parse all of 's' as a base-10 integer within [min, max]. Return 0 and set
 * '*out', or -1 (nothing printed) when 's' is empty, has trailing bytes or is
 * out of range. The replacement for atoi/strtol in option and file parsing.
 */
int parse_long(const char *s, long min, long max, long *out);
/*
 * The limit 'v' (a long long constant) as a long, or LONG_MAX where long is
 * narrower (32-bit builds): for bounds such as 1LL << 40 given to parse_long.
 */
#define LONG_CAP(v) ((long)(LONG_MAX < (v) ? LONG_MAX : (v)))
/* Parse all of 's' as a finite double. Return 0 or -1 as parse_long. */
int parse_double(const char *s, double *out);
/*
 * Parse a duration: a non-negative number of seconds, or a number followed
 * by one unit of ms, s, m or h ("90", "1.5s", "250ms", "30m", "2h"). Set
 * '*ms' to it in milliseconds (rounded up) and return 0, or return -1
 * (nothing printed) when 's' is not such a duration or passes 'max_ms'.
 */
int parse_duration_ms(const char *s, long max_ms, long *ms);
/*
 * Parse a size: a whole number of bytes, optionally followed by K, M, G or T
 * (powers of 1024) and an optional "B" or "iB" ("500000", "100M", "2GiB").
 * Set '*bytes' and return 0, or return -1 (nothing printed) when 's' is not
 * such a size or passes 'max'.
 */
int parse_size(const char *s, long max, long *bytes);
/*
 * Converting a double from input to an integer type is undefined behaviour
 * when it does not fit (1e300, NaN): every such conversion goes through one
 * of these. double_to_long stores 'd' in '*out' and returns 0 when it is a
 * whole number in [min, max], else returns -1. double_clamp_long returns 'd'
 * truncated and clamped to [min, max] ('min' for NaN).
 */
int double_to_long(double d, long min, long max, long *out);
long double_clamp_long(double d, long min, long max);

/* Return the current UTC time as "YYYY-MM-DDTHH:MM:SSZ" into 'out' (21 bytes).
 * EVALSET_NOW, when set, replaces the clock (for reproducible tests). */
void utc_now_iso8601(char out[21]);

/*
 * Non-cryptographic 64-bit mixing, for hash tables, shards and seeded
 * choices (never for anything an attacker may pick). Their values must not
 * change: a seed gives the same questions, samples and bootstrap draws on
 * every version.
 *
 * mix64: MurmurHash3's 64-bit finaliser, every input bit to every output bit.
 * splitmix64_mix: SplitMix64's finaliser, the same job with other constants.
 * splitmix64_next: the next value of the SplitMix64 sequence in '*state'.
 */
static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static inline uint64_t splitmix64_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static inline uint64_t splitmix64_next(uint64_t *state)
{
	return splitmix64_mix(*state += 0x9e3779b97f4a7c15ULL);
}

#endif
