/*
 * dynlib: shared libraries opened on first use (see dynlib.h).
 */
#include "base/dynlib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Print why on stderr and end the process. Not through error(): error
 * redacts URLs, which opens libcurl through this file (a circle); the
 * message holds a soname, a function name and the loader's text alone. */
static void give_up(const char *soname, const char *needed_for, const char *why)
{
	fflush(stdout);
	fprintf(stderr, "error: cannot load %s (%s): %s\n", soname, needed_for,
		why ? why : "unknown reason");
	exit(127);
}

void dynlib_load(const char *soname, const char *needed_for, const struct dynlib_sym *syms,
		 size_t n, void *table)
{
	void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);

	if (!lib)
		give_up(soname, needed_for, dlerror());
	for (size_t i = 0; i < n; i++) {
		void *fn;

		dlerror();
		fn = dlsym(lib, syms[i].name);
		if (!fn) {
			char why[256];
			const char *err = dlerror();

			snprintf(why, sizeof(why), "no function %s (%s)", syms[i].name,
				 err ? err : "not found");
			give_up(soname, needed_for, why);
		}
		/* POSIX: a function's address is returned as an object pointer
		 * of the same representation */
		memcpy((char *)table + syms[i].offset, &fn, sizeof(fn));
	}
	/* the library stays loaded until the process ends */
}
