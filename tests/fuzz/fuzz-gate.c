/*
 * fuzz-gate: the gate file loader on arbitrary bytes. Whatever loads must
 * hold the invariants gate.h promises: alpha in (0, 1), at least one rule,
 * every measure a valid name, every max_drop finite and >= 0, every subset
 * value present, a leak rule absent (-1) or a count with a cutoff in
 * 0..100000 (0: the comparison's k); and describing each rule must not
 * fail.
 */
#include "fuzz.h"
#include "base/error.h"
#include "compare/gate.h"

#include <math.h>
#include <stdlib.h>

static void quiet(const char *prefix, const char *msg)
{
	(void)prefix;
	(void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gate g;

	set_error_routine(quiet);
	set_warning_routine(quiet);
	gate_init(&g);
	if (gate_load_buf(&g, (const char *)data, size, "fuzz.yaml") < 0) {
		if (g.nr || g.rules || g.file || g.max_leak != -1)
			__builtin_trap();   /* a failed load leaves nothing behind */
		return 0;
	}
	if (!(g.alpha > 0 && g.alpha < 1) || !g.nr || g.max_leak < -1 ||
	    g.leak_k < 0 || g.leak_k > 100000 || (g.max_leak < 0 && g.leak_k))
		__builtin_trap();
	for (size_t i = 0; i < g.nr; i++) {
		const struct gate_rule *r = &g.rules[i];
		char *d;

		if (!r->measure || !gate_measure_name_ok(r->measure) || !isfinite(r->max_drop) ||
		    r->max_drop < 0 || (r->subset != SUBSET_ALL && !r->subset_value))
			__builtin_trap();
		d = gate_rule_describe(r);
		if (!d)
			__builtin_trap();
		free(d);
	}
	if (g.max_leak >= 0) {
		char *d = gate_leak_describe(&g, g.leak_k ? g.leak_k : 5);

		if (!d)
			__builtin_trap();
		free(d);
	}
	gate_release(&g);
	return 0;
}
