/*
 * t-dupindex: the index finds exactly what text_near_duplicate would find
 * (its pre-checks may only skip pairs text_near_duplicate rejects).
 */
#include "test-lib.h"
#include "../../core/dupindex.h"
#include "../../core/text.h"
#include "../../core/util.h"

#include <stdlib.h>

static const char *const known[] = {
	"How do I rotate an API key?",
	"What is the retry limit for webhooks?",
	"Which regions support single sign-on with SAML?",
	"Can I export the audit log as CSV?",
	"the and of",
};

static const char *const probes[] = {
	"how do I ROTATE an api key",                     /* same after normalisation */
	"How can I rotate an API key?",                   /* near: same content words */
	"What is the retry limit for webhook deliveries?",
	"Which regions support SAML single sign-on?",
	"Is there a limit on exported rows?",
	"the of and",
	"Totally unrelated question about billing",
	"",
};

int main(void)
{
	struct dup_index d = DUP_INDEX_INIT;
	const struct dup_entry *e;

	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		dup_index_add(&d, known[i], (int)i);
	e = dup_index_find(&d, "how do I ROTATE an api key", TEXT_NEAR_DUP_THRESHOLD);
	ok(e && e->tag == 0, "exact match after normalisation found");
	ok(dup_index_find(&d, "Totally unrelated question about billing", TEXT_NEAR_DUP_THRESHOLD) == NULL,
	   "unrelated text not a duplicate");
	for (size_t p = 0; p < ARRAY_SIZE(probes); p++) {
		bool want = false;
		for (size_t i = 0; i < ARRAY_SIZE(known); i++)
			want = want || text_near_duplicate(probes[p], known[i], TEXT_NEAR_DUP_THRESHOLD);
		e = dup_index_find(&d, probes[p], TEXT_NEAR_DUP_THRESHOLD);
		ok((e != NULL) == want, "index agrees with text_near_duplicate on '%s' (%d)", probes[p], want);
	}
	/* lower thresholds too */
	for (size_t p = 0; p < ARRAY_SIZE(probes); p++) {
		bool want = false;
		for (size_t i = 0; i < ARRAY_SIZE(known); i++)
			want = want || text_near_duplicate(probes[p], known[i], 0.3);
		e = dup_index_find(&d, probes[p], 0.3);
		ok((e != NULL) == want, "agrees at threshold 0.3 on '%s' (%d)", probes[p], want);
	}
	dup_index_release(&d);
	return test_done();
}
