/*
 * stem: a thin layer over libstemmer (see stem.h). libstemmer returns its
 * own buffer, overwritten by the next call: stemmer_stem hands it out with
 * the same lifetime.
 */
#include "text/stem.h"
#include "text/lang.h"
#include "base/utf8.h"
#include "base/util.h"

#include <libstemmer.h>
#include <stdlib.h>

struct stemmer {
	struct sb_stemmer *sb;
};

struct stemmer *stemmer_new(const struct lang *l)
{
	const char *name = lang_stemmer_name(l);
	struct sb_stemmer *sb;
	struct stemmer *st;

	if (!name || !(sb = sb_stemmer_new(name, "UTF_8")))
		return NULL;
	st = xmalloc(sizeof(*st));
	st->sb = sb;
	return st;
}

void stemmer_free(struct stemmer *st)
{
	if (!st)
		return;
	sb_stemmer_delete(st->sb);
	free(st);
}

/* Return true when the 'len' bytes at 'w' hold at least three characters. */
static int long_enough(const char *w, size_t len)
{
	return utf8_chars(w, len) >= 3;
}

const char *stemmer_stem(struct stemmer *st, const char *w, size_t len, size_t *out_len)
{
	const sb_symbol *r;

	*out_len = len;
	/* a "word" of more than 4096 bytes is no word: left as it is */
	if (!st || !long_enough(w, len) || len > 4096)
		return w;
	r = sb_stemmer_stem(st->sb, (const sb_symbol *)w, (int)len);
	if (!r)
		return w;  /* out of memory inside libstemmer: keep the word */
	*out_len = (size_t)sb_stemmer_length(st->sb);
	return (const char *)r;
}
