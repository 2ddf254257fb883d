/*
 * digest: SHA-256 through OpenSSL's EVP interface, as "sha256:<hex>".
 */
#ifndef EVALSET_DIGEST_H
#define EVALSET_DIGEST_H

#include <stddef.h>

#define DIGEST_HEX_LEN 71 /* "sha256:" + 64 hex digits */

struct sha256_ctx;

/* Write "sha256:<64 hex>" of 'len' bytes of 'data' into 'out' (72 bytes). */
void sha256_hex(const void *data, size_t len, char out[72]);

/* Write the SHA-256 of 'len' bytes of 'data' in base64 into 'out' (45 bytes,
 * NUL included): the form a Content-Security-Policy hash takes. */
void sha256_base64(const void *data, size_t len, char out[45]);

/* Incremental hashing; sha256_new never returns NULL (aborts on OOM). */
struct sha256_ctx *sha256_new(void);
void sha256_update(struct sha256_ctx *c, const void *data, size_t len);
/* Finish into 'out' and free 'c'. */
void sha256_final(struct sha256_ctx *c, char out[72]);

#endif
