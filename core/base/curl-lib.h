/*
 * curl-lib: libcurl's functions, from libcurl.so.4 opened on first use
 * (dynlib.h says why).
 *
 * Every call of libcurl in core/ and cmd/ goes through curl_lib(): the
 * first call opens the library and runs curl_global_init once; later ones
 * return the same table. Thread-safe. The pointers have the types of
 * <curl/curl.h>; the options of the variadic setopt and getinfo take
 * exactly the types libcurl documents (long, curl_off_t, pointers), as
 * there is no type-checking macro on a call through a pointer.
 */
#ifndef EVALSET_CURL_LIB_H
#define EVALSET_CURL_LIB_H

#include <curl/curl.h>

struct curl_lib {
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	void (*easy_cleanup)(CURL *);
	const char *(*easy_strerror)(CURLcode);
	char *(*easy_unescape)(CURL *, const char *, int, int *);
	void (*free)(void *);
	CURLM *(*multi_init)(void);
	CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
	CURLMcode (*multi_add_handle)(CURLM *, CURL *);
	CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
	CURLMcode (*multi_perform)(CURLM *, int *);
	CURLMsg *(*multi_info_read)(CURLM *, int *);
	CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned int, int, int *);
	CURLMcode (*multi_cleanup)(CURLM *);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void (*slist_free_all)(struct curl_slist *);
	time_t (*getdate)(const char *, const time_t *);
	CURLU *(*url)(void);
	void (*url_cleanup)(CURLU *);
	CURLUcode (*url_set)(CURLU *, CURLUPart, const char *, unsigned int);
	CURLUcode (*url_get)(const CURLU *, CURLUPart, char **, unsigned int);
	const char *(*url_strerror)(CURLUcode);
	curl_version_info_data *(*version_info)(CURLversion);
	CURLcode (*global_init)(long);
};

/* Return libcurl's functions, opening the library on the first call (a
 * library that cannot be loaded ends the process: dynlib.h). */
const struct curl_lib *curl_lib(void);

#endif
