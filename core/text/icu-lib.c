/*
 * icu-lib: ICU's word break iterator opened on first use (see icu-lib.h).
 */
#include "text/icu-lib.h"
#include "base/dynlib.h"

#include <pthread.h>
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

static struct icu_lib lib;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
	dynlib_load("libicuuc.so." NAME_OF(U_ICU_VERSION_MAJOR_NUM),
		    "cutting Thai, Lao, Khmer and Myanmar text into words needs ICU's libicuuc", syms,
		    sizeof(syms) / sizeof(syms[0]), &lib);
}

const struct icu_lib *icu_lib(void)
{
	pthread_once(&once, load);
	return &lib;
}
