/*
 * curl-lib: libcurl opened on first use (see curl-lib.h).
 */
#include "base/curl-lib.h"
#include "base/dynlib.h"

#include <stddef.h>

#define SYM(f) { "curl_" #f, offsetof(struct curl_lib, f) }

static const struct dynlib_sym syms[] = {
	SYM(easy_init),
	SYM(easy_setopt),
	SYM(easy_getinfo),
	SYM(easy_cleanup),
	SYM(easy_strerror),
	SYM(easy_unescape),
	SYM(free),
	SYM(multi_init),
	SYM(multi_setopt),
	SYM(multi_add_handle),
	SYM(multi_remove_handle),
	SYM(multi_perform),
	SYM(multi_info_read),
	SYM(multi_poll),
	SYM(multi_cleanup),
	SYM(slist_append),
	SYM(slist_free_all),
	SYM(getdate),
	SYM(url),
	SYM(url_cleanup),
	SYM(url_set),
	SYM(url_get),
	SYM(url_strerror),
	SYM(version_info),
	SYM(global_init),
};

/* libcurl's global set-up, before any thread can use libcurl: it is not
 * thread-safe in older versions */
static void loaded(void *table)
{
	((struct curl_lib *)table)->global_init(CURL_GLOBAL_DEFAULT);
}

static struct curl_lib table;
static struct dynlib lib = DYNLIB_INIT("libcurl.so.4", "HTTP and URLs need libcurl 7.66 or later",
				       syms, &table, loaded);

const struct curl_lib *curl_lib(void)
{
	return dynlib_get(&lib);
}
