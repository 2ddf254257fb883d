/*
 * icu-lib: ICU's word break iterator opened on first use (see icu-lib.h).
 */
#include "text/icu-lib.h"
#include "base/dynlib.h"

#include <stddef.h>
#include <unicode/uvernum.h>

/* the name a macro expands to, as a string: ubrk_open is a macro for
 * ubrk_open_72 in ICU 72's headers */
#define NAME_OF(x) NAME_OF_(x)
#define NAME_OF_(x) #x
#define SYM(fn, member) { NAME_OF(fn), offsetof(struct icu_lib, member) }

static const struct dynlib_sym syms[] = {
	SYM(ubrk_open, open),
	SYM(ubrk_clone, clone),
	SYM(ubrk_close, close),
	SYM(ubrk_setText, set_text),
	SYM(ubrk_first, first),
	SYM(ubrk_next, next),
	SYM(ubrk_getRuleStatus, get_rule_status),
};

static struct icu_lib table;
static struct dynlib lib = DYNLIB_INIT("libicuuc.so." NAME_OF(U_ICU_VERSION_MAJOR_NUM),
				       "cutting Thai, Lao, Khmer and Myanmar text into words needs "
				       "ICU's libicuuc", syms, &table, NULL);

const struct icu_lib *icu_lib(void)
{
	return dynlib_get(&lib);
}
