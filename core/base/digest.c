/*
 * digest: SHA-256 through OpenSSL EVP (see digest.h).
 */
#include "base/digest.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sha256_ctx {
	EVP_MD_CTX *md;
};

struct sha256_ctx *sha256_new(void)
{
	struct sha256_ctx *c = malloc(sizeof(*c));

	if (!c || !(c->md = EVP_MD_CTX_new()) ||
	    EVP_DigestInit_ex(c->md, EVP_sha256(), NULL) != 1) {
		fprintf(stderr, "fatal: cannot initialise SHA-256\n");
		abort();
	}
	return c;
}

void sha256_update(struct sha256_ctx *c, const void *data, size_t len)
{
	if (len)
		EVP_DigestUpdate(c->md, data, len);
}

void sha256_final(struct sha256_ctx *c, char out[72])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	EVP_DigestFinal_ex(c->md, md, &n);
	EVP_MD_CTX_free(c->md);
	free(c);
	memcpy(out, "sha256:", 7);
	for (unsigned i = 0; i < 32; i++) {
		out[7 + 2 * i] = hex[md[i] >> 4];
		out[8 + 2 * i] = hex[md[i] & 15];
	}
	out[71] = '\0';
}

void sha256_hex(const void *data, size_t len, char out[72])
{
	struct sha256_ctx *c = sha256_new();

	sha256_update(c, data, len);
	sha256_final(c, out);
}

void sha256_base64(const void *data, size_t len, char out[45])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (EVP_Digest(data, len, md, &n, EVP_sha256(), NULL) != 1 || n != 32) {
		fprintf(stderr, "fatal: SHA-256 failed\n");
		abort();
	}
	EVP_EncodeBlock((unsigned char *)out, md, 32);
}
