/*
 * mhd-lib: libmicrohttpd opened on first use (see mhd-lib.h).
 */
#include "review/mhd-lib.h"
#include "base/dynlib.h"

#include <stddef.h>

#define SYM(f) { "MHD_" #f, offsetof(struct mhd_lib, f) }

static const struct dynlib_sym syms[] = {
	SYM(start_daemon),
	SYM(stop_daemon),
	SYM(run_wait),
	SYM(get_daemon_info),
	SYM(get_connection_info),
	SYM(lookup_connection_value),
	SYM(create_response_from_buffer),
	SYM(add_response_header),
	SYM(queue_response),
	SYM(destroy_response),
};

static struct mhd_lib table;
static struct dynlib lib = DYNLIB_INIT("libmicrohttpd.so.12",
				       "the review page needs libmicrohttpd 0.9.71 or later", syms,
				       &table, NULL);

const struct mhd_lib *mhd_lib(void)
{
	return dynlib_get(&lib);
}
