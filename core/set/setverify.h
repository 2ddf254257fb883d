/*
 * setverify: everything `evalset verify` checks about one set, for CI.
 *
 * A set verifies when its working copy loads, every frozen version is intact
 * (its content matches its recorded digest and it names its own tag), every
 * parent a version names exists and has the digest the version recorded for
 * it, the history has no loop, and the corpus the latest version was tagged
 * against (when it recorded a fingerprint and the corpus is present) still
 * has that fingerprint. Versions tagged before evalset recorded parent
 * digests are not problems: they are counted as unanchored links.
 *
 * What this protects against and what it cannot: docs/versions.md.
 */
#ifndef EVALSET_SETVERIFY_H
#define EVALSET_SETVERIFY_H

#include <stddef.h>

struct set_ref;

struct set_verify {
	size_t versions;     /* frozen versions found */
	size_t problems;     /* each reported through error() */
	size_t unanchored;   /* links whose child records no parent digest */
	char *latest;        /* tag of the latest version, or NULL; owned */
	int corpus;          /* 1 checked and matches, 0 not checked (none recorded or
			      * not present), -1 differs (a problem) */
	char corpus_fp[72];  /* the fingerprint the latest version recorded, when checked */
};
#define SET_VERIFY_INIT { 0, 0, 0, NULL, 0, "" }

/* Verify the set 'ref' names (its working copy and every version) into 'out'.
 * Return 0 when it verifies, else -1 (every problem reported). */
int set_verify(const struct set_ref *ref, struct set_verify *out);
void set_verify_release(struct set_verify *out);

#endif
