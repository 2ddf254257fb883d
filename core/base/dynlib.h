/*
 * dynlib: the shared libraries evalset opens when a command first needs
 * them rather than when the program starts: libcurl (HTTP and URLs),
 * libmicrohttpd (the review page), libxml2 and cmark (HTML and Markdown
 * documents), ICU (words of Thai-like scripts).
 *
 * Why: most runs use none of them (score, compare, check, tag...), yet
 * linking them made every start load and relocate 35 more libraries (TLS,
 * Kerberos, LDAP, IDN, ICU's data, the C++ runtime...): 46 in all, about
 * half of the start-up time of a short command, and more under the
 * sanitizers and an emulator. Loaded on first use, they cost only the
 * commands that use them.
 *
 * Contract: dynlib_get fills a table of function pointers from a library
 * named by its soname (the ABI the headers were compiled for:
 * libcurl.so.4, libxml2.so.2...), once per process and thread-safe. A
 * library or a function that cannot be found is fatal: the message names
 * the library, the loader's reason and what needs it, and the process
 * exits 127, as the dynamic loader itself does for a library missing at
 * start.
 */
#ifndef EVALSET_DYNLIB_H
#define EVALSET_DYNLIB_H

#include <stddef.h>

/* One function of a table: its name in the library and the offset of its
 * pointer in the table. */
struct dynlib_sym {
	const char *name;
	size_t offset;
};

/* A library and the table of its functions a module calls, defined once
 * per library (static) with DYNLIB_INIT and read with dynlib_get. */
struct dynlib {
	const char *soname;
	const char *needed_for;        /* in the message when loading fails:
	                                * "HTTP needs libcurl 7.66 or later" */
	const struct dynlib_sym *syms;
	size_t nr_syms;
	void *table;                   /* a struct of function pointers */
	void (*loaded)(void *table);   /* run once after loading, or NULL */
	_Atomic int ready;
};

#define DYNLIB_INIT(soname, needed_for, syms, table, loaded) \
	{ (soname), (needed_for), (syms), sizeof(syms) / sizeof((syms)[0]), (table), (loaded), 0 }

/* Return lib->table, filled on the first call of any thread (the library
 * opened, each function looked up, then lib->loaded run), or end the
 * process (see above). Thread-safe. */
const void *dynlib_get(struct dynlib *lib);

#endif
