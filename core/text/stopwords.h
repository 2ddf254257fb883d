/*
 * stopwords: the stop-word lists of core/text/stopwords/<code>.txt, built
 * into the binary by tools/embed-stopwords.py (core/text/lang.c reads them).
 */
#ifndef EVALSET_STOPWORDS_H
#define EVALSET_STOPWORDS_H

struct stopword_source {
	const char *code;   /* language code: the file's name */
	const char *words;  /* the words, one per line, as written in the file */
};

/* Every list, sorted by code, ending with { NULL, NULL }. */
extern const struct stopword_source stopword_sources[];

#endif
