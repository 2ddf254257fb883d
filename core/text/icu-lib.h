/*
 * icu-lib: ICU's word break iterator, opened when a text first holds a run
 * of a script written without spaces between words (Thai, Lao, Khmer,
 * Myanmar: text.c), rather than at every start (core/base/dynlib.h says
 * why: ICU brings its data and the C++ runtime).
 *
 * icu_lib() returns the functions text.c calls, each typed as its header
 * declares it; the first call opens libicuuc by the soname of the ICU
 * version the headers are (libicuuc.so.MAJOR), whose exported names carry
 * that version (ubrk_open_72: the headers rename each function, and the
 * names looked up are the renamed ones). Thread-safe.
 */
#ifndef EVALSET_ICU_LIB_H
#define EVALSET_ICU_LIB_H

#include <unicode/ubrk.h>

struct icu_lib {
	__typeof__(ubrk_open) *open;
	__typeof__(ubrk_clone) *clone;
	__typeof__(ubrk_close) *close;
	__typeof__(ubrk_setText) *set_text;
	__typeof__(ubrk_first) *first;
	__typeof__(ubrk_next) *next;
	__typeof__(ubrk_getRuleStatus) *get_rule_status;
};

/* Return the functions, opening the library on the first call (one that
 * cannot be loaded ends the process: dynlib.h). */
const struct icu_lib *icu_lib(void);

#endif
