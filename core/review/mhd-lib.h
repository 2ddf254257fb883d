/*
 * mhd-lib: libmicrohttpd's functions, from libmicrohttpd.so.12 opened when
 * the review page is first served (core/base/dynlib.h says why).
 *
 * Every call of libmicrohttpd goes through mhd_lib(): the first call opens
 * the library, later ones return the same table. Thread-safe. The pointers
 * have the types of <microhttpd.h>; the variadic ones take exactly the
 * argument types libmicrohttpd documents for each option.
 */
#ifndef EVALSET_MHD_LIB_H
#define EVALSET_MHD_LIB_H

#include <stdarg.h>
#include <stdint.h>
#include <sys/socket.h>
#include <microhttpd.h>

struct mhd_lib {
	struct MHD_Daemon *(*start_daemon)(unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *,
					   MHD_AccessHandlerCallback, void *, ...);
	void (*stop_daemon)(struct MHD_Daemon *);
	enum MHD_Result (*run_wait)(struct MHD_Daemon *, int32_t);
	const union MHD_DaemonInfo *(*get_daemon_info)(struct MHD_Daemon *, enum MHD_DaemonInfoType, ...);
	const union MHD_ConnectionInfo *(*get_connection_info)(struct MHD_Connection *,
							       enum MHD_ConnectionInfoType, ...);
	const char *(*lookup_connection_value)(struct MHD_Connection *, enum MHD_ValueKind, const char *);
	struct MHD_Response *(*create_response_from_buffer)(size_t, void *, enum MHD_ResponseMemoryMode);
	enum MHD_Result (*add_response_header)(struct MHD_Response *, const char *, const char *);
	enum MHD_Result (*queue_response)(struct MHD_Connection *, unsigned int, struct MHD_Response *);
	void (*destroy_response)(struct MHD_Response *);
};

/* Return libmicrohttpd's functions, opening the library on the first call
 * (a library that cannot be loaded ends the process: dynlib.h). */
const struct mhd_lib *mhd_lib(void);

#endif
