/*
 * fuzz-text: normalisation, tokens and similarity on arbitrary bytes.
 * The input is split at the first NUL into two texts (question, chunk).
 */
#include "fuzz.h"
#include "base/error.h"
#include "text/text.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nul = memchr(data, 0, size);
	size_t la = nul ? (size_t)(nul - (const char *)data) : size;
	char *a = xstrndup((const char *)data, la);
	char *b = xstrndup(nul ? nul + 1 : "", nul ? size - la - 1 : 0);
	char *n1 = text_normalize(a, strlen(a));
	char *n2 = text_normalize_query(b, strlen(b));
	struct tokens t = TOKENS_INIT;
	double s;

	text_tokenize(a, strlen(a), &t);
	s = text_similarity(a, b) + text_overlap(a, b) + text_copied_share(a, b);
	if (s < 0 || s > 3)
		abort();
	/* normalising twice changes nothing */
	{
		char *again = text_normalize(n1, strlen(n1));
		if (strcmp(again, n1))
			abort();
		free(again);
	}
	tokens_release(&t);
	free(n1);
	free(n2);
	free(a);
	free(b);
	return 0;
}
