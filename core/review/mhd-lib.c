/*
 * mhd-lib: libmicrohttpd opened on first use (see mhd-lib.h).
 */
#include "review/mhd-lib.h"
#include "base/dynlib.h"

#include <pthread.h>
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

static struct mhd_lib lib;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
	dynlib_load("libmicrohttpd.so.12", "the review page needs libmicrohttpd 0.9.71 or later", syms,
		    sizeof(syms) / sizeof(syms[0]), &lib);
}

const struct mhd_lib *mhd_lib(void)
{
	pthread_once(&once, load);
	return &lib;
}
