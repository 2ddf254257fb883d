/*
 * t-dynlib: a library opened on first use: its functions looked up by name
 * into a table that works, the table filled and the hook run once however
 * many threads ask at the same time, and every later call the same table.
 * (A library or a function that cannot be loaded ends the process: the CLI
 * case lib-on-first-use checks that.)
 */
#include "test-lib.h"
#include "base/dynlib.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

/* two functions every C library has, looked up in glibc's */
struct c_lib {
	size_t (*len)(const char *);
	int (*cmp)(const char *, const char *);
};

static const struct dynlib_sym syms[] = {
	{ "strlen", offsetof(struct c_lib, len) },
	{ "strcmp", offsetof(struct c_lib, cmp) },
};

static atomic_int hooks;

static void loaded(void *table)
{
	struct c_lib *c = table;

	/* the hook sees the table filled */
	if (c->len && c->cmp)
		atomic_fetch_add(&hooks, 1);
}

static struct c_lib table;
static struct dynlib lib = DYNLIB_INIT("libc.so.6", "this test needs the C library", syms, &table,
				       loaded);

#define THREADS 8

static atomic_int go;

static void *ask(void *arg)
{
	const void **out = arg;

	while (!atomic_load(&go))
		;
	*out = dynlib_get(&lib);
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	const void *got[THREADS];
	const struct c_lib *c;
	size_t same = 0;

	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, ask, &got[i]);
	atomic_store(&go, 1);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < THREADS; i++)
		same += got[i] == (const void *)&table;
	is_int(same, THREADS, "8 threads asking at once each get the one table");
	is_int(atomic_load(&hooks), 1, "the hook after loading ran once, with the table filled");
	c = dynlib_get(&lib);
	ok(c == &table, "a later call returns the same table");
	is_int(c->len("first use"), 9, "a function looked up by name works (strlen)");
	ok(c->cmp("a", "b") < 0 && c->cmp("b", "b") == 0, "and the other (strcmp)");
	is_int(atomic_load(&hooks), 1, "the hook did not run again");
	return test_done();
}
