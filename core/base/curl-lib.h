/*
 * curl-lib: libcurl's functions, from libcurl.so.4 opened on first use
 * (dynlib.h says why).
 *
 * Every call of libcurl in core/ and cmd/ goes through curl_lib(): the
 * first call opens the library and runs curl_global_init once; later ones
 * return the same table. Thread-safe. Each pointer has the type
 * <curl/curl.h> declares for its function (__typeof__). The options of the
 * variadic setopt and getinfo take exactly the types libcurl documents
 * (long, curl_off_t, pointers), as there is no type-checking macro on a
 * call through a pointer.
 */
#ifndef EVALSET_CURL_LIB_H
#define EVALSET_CURL_LIB_H

#include <curl/curl.h>

struct curl_lib {
	__typeof__(curl_easy_init) *easy_init;
	__typeof__(curl_easy_setopt) *easy_setopt;
	__typeof__(curl_easy_getinfo) *easy_getinfo;
	__typeof__(curl_easy_cleanup) *easy_cleanup;
	__typeof__(curl_easy_strerror) *easy_strerror;
	__typeof__(curl_easy_unescape) *easy_unescape;
	__typeof__(curl_free) *free;
	__typeof__(curl_multi_init) *multi_init;
	__typeof__(curl_multi_setopt) *multi_setopt;
	__typeof__(curl_multi_add_handle) *multi_add_handle;
	__typeof__(curl_multi_remove_handle) *multi_remove_handle;
	__typeof__(curl_multi_perform) *multi_perform;
	__typeof__(curl_multi_info_read) *multi_info_read;
	__typeof__(curl_multi_poll) *multi_poll;
	__typeof__(curl_multi_cleanup) *multi_cleanup;
	__typeof__(curl_slist_append) *slist_append;
	__typeof__(curl_slist_free_all) *slist_free_all;
	__typeof__(curl_getdate) *getdate;
	__typeof__(curl_url) *url;
	__typeof__(curl_url_cleanup) *url_cleanup;
	__typeof__(curl_url_set) *url_set;
	__typeof__(curl_url_get) *url_get;
	__typeof__(curl_url_strerror) *url_strerror;
	__typeof__(curl_version_info) *version_info;
	__typeof__(curl_global_init) *global_init;
};

/* Return libcurl's functions, opening the library on the first call (a
 * library that cannot be loaded ends the process: dynlib.h). */
const struct curl_lib *curl_lib(void);

#endif
