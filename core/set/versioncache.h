/*
 * versioncache: what the commands need to know of a frozen version file
 * (its header, whether its digest recomputes, its ids and the digest of each
 * id's text), kept between runs so that `add` and `versions` do not parse
 * every frozen version each time.
 *
 * The cache is keyed by the SHA-256 of the version file's bytes: a file
 * that changes in any way (an edit, a swap, a copy) is parsed again, a file
 * that does not is never parsed twice, whatever its name or mtime. Entries
 * live in the user's cache directory ($EVALSET_CACHE_DIR, else
 * $XDG_CACHE_HOME/evalset, else ~/.cache/evalset; "off" turns it off), one
 * file per digest under versions/ (two JSON lines: the header, then the ids
 * and text digests), written atomically; never inside a
 * set or a repository, so a repository cannot plant an entry that vouches
 * for a tampered file. A missing, unreadable or unwritable cache only costs
 * the parse: nothing is reported. The cache is bounded: after an entry is
 * written, the least recently used ones (an entry's mtime is set when it is
 * read) are dropped until the entries hold at most $EVALSET_CACHE_MAX_SIZE,
 * else the config's cache_max_size, else 100 MiB (0: no cache).
 *
 * Ownership: a summary owns its strings (version_summary_release). The
 * versions of a set (struct set_version, set.h) each hold one, moved in
 * whole from version_summary_load.
 */
#ifndef EVALSET_VERSIONCACHE_H
#define EVALSET_VERSIONCACHE_H

#include <stdbool.h>
#include <stddef.h>

struct version_summary {
	char *version, *tagged_at, *digest, *parent, *parent_digest, *note;  /* as recorded, or NULL */
	size_t nr_questions;
	bool digest_ok;        /* the recorded digest recomputes from the content */
	char **ids;            /* every question id, in file order */
	char **text_digests;   /* "sha256:..." of each id's text ("" text when none) */
	size_t nr_ids;
	bool from_cache;       /* for tests: the file was not parsed */
};
#define VERSION_SUMMARY_INIT { NULL, NULL, NULL, NULL, NULL, NULL, 0, false, NULL, NULL, 0, false }

/*
 * Fill 'out' for the frozen version file 'file': from the cache when an
 * entry for the file's content digest is there, else by parsing the file
 * (and storing the entry). Return 0, or -1 when the file cannot be read or
 * parsed (reported as set_load reports it).
 */
int version_summary_load(const char *file, struct version_summary *out);
/*
 * Like version_summary_load for the header fields, question count and
 * digest_ok alone: from the cache the ids and text digests are not read
 * (nr_ids 0); a file parsed afresh may still fill them.
 */
int version_summary_load_head(const char *file, struct version_summary *out);
void version_summary_release(struct version_summary *s);

/* Append the text digest "sha256:..." of a question text 'text' (NULL: "") to 'out' (72 bytes). */
void version_text_digest(const char *text, char out[72]);

#endif
