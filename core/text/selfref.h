/*
 * selfref: does a question refer to the text it was written from ("the
 * passage", "according to the document", "Title:") instead of standing
 * alone, as a question a user types never does?
 *
 * The phrases are data files, one per language the text layer knows
 * (core/text/selfref/<code>.txt, built into the binary): one phrase a line,
 * '#' comments. A question and a phrase are compared after NFKC case
 * folding with runs of whitespace collapsed (punctuation kept, so "title:"
 * does not match "title"). A phrase must start at a word boundary and end at
 * one, unless it ends in '*' (then any word ending follows: "mentioned*");
 * the boundaries are not checked for scripts written without spaces (Han,
 * Kana, Hangul, Thai, Lao, Khmer, Myanmar), where a phrase may sit inside
 * a run of letters. Every language's phrases are tried on every question:
 * a model that slips into English ("the passage") is caught in a German
 * set too.
 *
 * The lists favour precision: a phrase goes in only when a real user's
 * question would hardly contain it ("according to the author", not "the
 * author": "who is the author of Dune?" is a real question).
 *
 * Thread-safe after the one-time load (pthread_once); the phrases live as
 * long as the process.
 */
#ifndef EVALSET_SELFREF_H
#define EVALSET_SELFREF_H

#include <stddef.h>

/*
 * Return the phrase (as written in its list, with its language code in
 * '*lang' when 'lang' is not NULL) by which the 'len' bytes of 'text' refer
 * to their source, or NULL when they do not.
 */
const char *text_source_reference(const char *text, size_t len, const char **lang);

#endif
