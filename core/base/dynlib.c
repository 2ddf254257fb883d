/*
 * dynlib: shared libraries opened on first use (see dynlib.h).
 */
#include "base/dynlib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
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

static void load(const struct dynlib *lib)
{
	void *h = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		give_up(lib->soname, lib->needed_for, dlerror());
	for (size_t i = 0; i < lib->nr_syms; i++) {
		void *fn;

		dlerror();
		fn = dlsym(h, lib->syms[i].name);
		if (!fn) {
			char why[256];
			const char *err = dlerror();

			snprintf(why, sizeof(why), "no function %s (%s)", lib->syms[i].name,
				 err ? err : "not found");
			give_up(lib->soname, lib->needed_for, why);
		}
		/* POSIX: a function's address is returned as an object pointer
		 * of the same representation */
		memcpy((char *)lib->table + lib->syms[i].offset, &fn, sizeof(fn));
	}
	/* the library stays loaded until the process ends */
}

static pthread_mutex_t loading = PTHREAD_MUTEX_INITIALIZER;

const void *dynlib_get(struct dynlib *lib)
{
	if (!atomic_load_explicit(&lib->ready, memory_order_acquire)) {
		pthread_mutex_lock(&loading);
		if (!atomic_load_explicit(&lib->ready, memory_order_relaxed)) {
			load(lib);
			if (lib->loaded)
				lib->loaded(lib->table);
			atomic_store_explicit(&lib->ready, 1, memory_order_release);
		}
		pthread_mutex_unlock(&loading);
	}
	return lib->table;
}
