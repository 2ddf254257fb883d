/*
 * fuzz-qrels: the TREC qrels reader on arbitrary bytes. Whatever loads must
 * hold the invariants of qrels.h: each question's judgments sorted by docno
 * without duplicates, levels[] counting the non-negative grades, and every
 * judgment found again through the hash table (both hash functions agree).
 */
#include "fuzz.h"
#include "base/error.h"
#include "score/qrels.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

static void quiet(const char *prefix, const char *msg)
{
	(void)prefix;
	(void)msg;
}

static void check_query(const struct qrels *qr, const struct qrels_query *q)
{
	long counted = 0, nonneg = 0;

	if (qrels_find(qr, q->qid, strlen(q->qid)) != q)
		__builtin_trap();
	for (size_t i = 0; i < q->nr; i++) {
		const struct qrel *j = &q->j[i];
		char *pad;

		if (i && strcmp(q->j[i - 1].doc, j->doc) >= 0)
			__builtin_trap();
		if (j->len != strlen(j->doc) || j->hash != qrels_hash(j->doc, j->len))
			__builtin_trap();
		pad = xcalloc(j->len + 8, 1);
		memcpy(pad, j->doc, j->len);
		if (qrels_hash_padded(pad, j->len) != j->hash)
			__builtin_trap();
		free(pad);
		if (qrels_query_lookup(q, j->doc, j->len, j->hash) != (long)i)
			__builtin_trap();
		if (j->rel >= 0)
			nonneg++;
	}
	for (int g = 0; g < q->nr_levels; g++) {
		if (q->levels[g] < 0)
			__builtin_trap();
		counted += q->levels[g];
	}
	if (counted != nonneg)
		__builtin_trap();
	if (qrels_query_lookup(q, "\001absent", 7, qrels_hash("\001absent", 7)) != -1)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct qrels qr;

	set_error_routine(quiet);
	set_warning_routine(quiet);
	qrels_init(&qr);
	if (qrels_load(&qr, fuzz_temp_file(data, size)) == 0) {
		for (size_t i = 0; i < qr.nr; i++)
			check_query(&qr, &qr.q[i]);
	}
	qrels_release(&qr);
	return 0;
}
