/*
 * dynlib: the shared libraries evalset opens when a command first needs
 * them (libcurl for HTTP and URLs, libmicrohttpd for the review page)
 * rather than when the program starts.
 *
 * Why: most runs never touch the network (score, compare, check, tag...),
 * yet linking libcurl and libmicrohttpd made every start load and relocate
 * about 30 more libraries (TLS, Kerberos, LDAP, IDN...): 46 in all, about
 * half of the start-up time of a short command, and more under the
 * sanitizers and an emulator. Loaded on first use, they cost only the
 * commands that use them.
 *
 * Contract: dynlib_load fills a table of function pointers from a library
 * named by its soname (the ABI the headers were compiled for: libcurl.so.4,
 * libmicrohttpd.so.12), once per process and thread-safe. A library or a
 * function that cannot be found is fatal: the message names the library,
 * the loader's reason and what needs it, and the process exits 127, as the
 * dynamic loader itself does for a library missing at start.
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

/* Open 'soname' and store each of the 'n' functions of 'syms' into 'table'
 * (a struct of function pointers); 'needed_for' says what needs it in the
 * message when this fails ("HTTP needs libcurl 7.66 or later"). Not thread-safe: callers run it under
 * pthread_once. */
void dynlib_load(const char *soname, const char *needed_for, const struct dynlib_sym *syms,
		 size_t n, void *table);

#endif
