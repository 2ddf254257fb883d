/*
 * fuzz-pool: the pool worksheet loader (what `evalset label` reads back
 * after people edit it) on arbitrary bytes. Whatever loads must hold the
 * invariants of pool.h (grades -1..3, every pair placed in the file) and
 * survive a round trip: written back as YAML it loads again, and writing
 * that gives the same bytes.
 */
#include "fuzz.h"
#include "base/error.h"
#include "pool/pool.h"
#include "base/strbuf.h"

#include <string.h>

static void quiet(const char *prefix, const char *msg)
{
	(void)prefix;
	(void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pool p = POOL_INIT, t = POOL_INIT;
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;

	set_error_routine(quiet);
	set_warning_routine(quiet);
	if (pool_load_buf(&p, (const char *)data, size, "fuzz.yaml") < 0)
		goto out;
	for (size_t i = 0; i < p.nr; i++) {
		if (!p.q[i].id || pool_find(&p, p.q[i].id) != &p.q[i])
			__builtin_trap();
		for (size_t j = 0; j < p.q[i].nr; j++) {
			const struct pool_pair *pp = &p.q[i].pairs[j];

			if (!pp->chunk || pp->grade < -1 || pp->grade > POOL_MAX_GRADE || pp->line < 1)
				__builtin_trap();
		}
	}
	if (pool_to_yaml(&p, &a) < 0)
		__builtin_trap();
	if (pool_load_buf(&t, a.buf, a.len, "saved.yaml") < 0)
		__builtin_trap();
	if (pool_to_yaml(&t, &b) < 0 || strcmp(a.buf, b.buf))
		__builtin_trap();
out:
	strbuf_release(&a);
	strbuf_release(&b);
	pool_release(&p);
	pool_release(&t);
	return 0;
}
