/*
 * mhd-lib: libmicrohttpd's functions, from libmicrohttpd.so.12 opened when
 * the review page is first served (core/base/dynlib.h says why).
 *
 * Every call of libmicrohttpd goes through mhd_lib(): the first call opens
 * the library, later ones return the same table. Thread-safe. Each pointer
 * has the type <microhttpd.h> declares for its function (__typeof__); the
 * variadic ones take exactly the argument types libmicrohttpd documents for
 * each option.
 */
#ifndef EVALSET_MHD_LIB_H
#define EVALSET_MHD_LIB_H

#include <stdarg.h>
#include <stdint.h>
#include <sys/socket.h>
#include <microhttpd.h>

struct mhd_lib {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_run_wait) *run_wait;
	__typeof__(MHD_get_daemon_info) *get_daemon_info;
	__typeof__(MHD_get_connection_info) *get_connection_info;
	__typeof__(MHD_lookup_connection_value) *lookup_connection_value;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
};

/* Return libmicrohttpd's functions, opening the library on the first call
 * (a library that cannot be loaded ends the process: dynlib.h). */
const struct mhd_lib *mhd_lib(void);

#endif
