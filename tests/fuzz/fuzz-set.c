/*
 * fuzz-set: the set loader on arbitrary bytes. Whatever loads must survive a
 * round trip: written back as YAML, it loads again with the same canonical
 * form (so the same digest), and writing it again gives the same bytes.
 */
#include "fuzz.h"
#include "base/error.h"
#include "set/set.h"
#include "base/strbuf.h"

#include <string.h>

static void quiet(const char *prefix, const char *msg)
{
	(void)prefix;
	(void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct set s = SET_INIT, t = SET_INIT;
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, ca = STRBUF_INIT, cb = STRBUF_INIT;
	struct findings f = FINDINGS_INIT;

	set_error_routine(quiet);
	set_warning_routine(quiet);
	if (set_load_buf(&s, (const char *)data, size, "fuzz.yaml") < 0)
		goto out;
	set_check(&s, NULL, &f);
	if (set_to_yaml(&s, &a) < 0)
		__builtin_trap();
	if (set_load_buf(&t, a.buf, a.len, "saved.yaml") < 0)
		__builtin_trap();
	set_canonical(&s, &ca);
	set_canonical(&t, &cb);
	if (strcmp(ca.buf, cb.buf))
		__builtin_trap();
	if (set_to_yaml(&t, &b) < 0 || strcmp(a.buf, b.buf))
		__builtin_trap();
out:
	findings_release(&f);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&ca);
	strbuf_release(&cb);
	set_release(&s);
	set_release(&t);
	return 0;
}
