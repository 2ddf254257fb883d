/*
 * llmbatch-internal: what the four files of batch jobs share. The driver
 * (llmbatch.c: submitting, polling, handing results over) calls the finding
 * of an interrupted run's batch (llmbatch-find.c) and the parsing of result
 * lines (llmbatch-results.c), which call the provider and journal helpers
 * (llmbatch-io.c); none calls back up.
 */
#ifndef LLMBATCH_INTERNAL_H
#define LLMBATCH_INTERNAL_H

#include "base/strbuf.h"
#include "base/strmap.h"
#include "llm/journal.h"
#include "llm/llm.h"
#include "llm/llmbatch.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A batch an earlier run was about to create: its tag and what it carries. */
struct intent {
	char *tag;
	int round;
	double at;                    /* when it was journaled (seconds since the epoch) */
	char **keys;
	size_t nr_keys;
};

/* One batch this run waits for. */
struct pending {
	char *id;
	int round;
	char **keys;
	size_t nr_keys;
	size_t finished;   /* requests the provider counts as finished, at the last poll */
	bool ended;
};

struct run {
	struct llm *l;
	const struct llmbatch_options *o;
	struct llmbatch_stats *st;
	enum llm_provider provider;
	bool azure;
	char endpoint[24];            /* digest of the base URL: which endpoint a journal record is for */
	struct strbuf root;           /* where /files and /batches are (OpenAI, Azure) */
	struct strbuf query;          /* the base URL's "?..." (Azure's api-version), or "" */
	struct journal journal;
	struct pending *p;
	size_t nr_p, alloc_p;
	struct strmap carried;        /* custom id -> 1: in a pending batch */
	struct strmap done;           /* batch id -> 1: ended in the journal */
	struct strmap body_of;        /* custom id -> request index + 1 */
	struct strmap longer;         /* custom id -> its body with twice the max_tokens (a truncated reply) */
	struct strmap known;          /* batch id -> 1: named by any record of the batch journal */
	struct strmap settled;        /* tag -> 1: its intent has a "created" or "abandoned" record */
	struct intent *in;
	size_t nr_in, alloc_in;
	unsigned tag_serial;          /* makes this run's tags distinct */
	const struct llmbatch_request *reqs;
	size_t nr_reqs;
	int64_t deadline_at;          /* monotonic ms when the job must stop (--deadline); 0: none */
	int64_t wait_start;           /* monotonic ms of the first poll (0: none yet) */
};

struct reply {
	long status;
	struct strbuf body;
	char error[256];
};

/* llmbatch-io.c: one HTTP request at a time, and the batch journal */
int batch_call(struct run *b, const char *method, const char *url, const char *const *headers,
		const char *body, size_t len, struct reply *r);
int batch_refused(struct run *b, const char *what, const struct reply *r);
/* GET the results file at 'url' that a poll reply named: refused (reported,
 * ERR_REMOTE) unless it is on the base URL's scheme, host and port, the
 * only place the job's credentials go. Return 0 (whatever the status),
 * ERR_REMOTE, ERR_INTERRUPTED or HTTP_DEADLINE_PASSED. */
int batch_get_results(struct run *b, const char *url, struct reply *r);
/* Milliseconds left before the job's deadline (INT64_MAX: none). */
int64_t batch_time_left(const struct run *b);
bool batch_ok_status(const struct reply *r);
void batch_url_of(struct run *b, const char *path, struct strbuf *out);
/* a record of the batch journal read back (journal_read's callback; data is the run) */
int batch_read_record(const cJSON *rec, long line, void *data);
const char *batch_jstr(const cJSON *o, const char *key);
struct pending *batch_add_pending(struct run *b, const char *id, int round);
int batch_journal_created(struct run *b, const struct pending *p, const char *file_id, const char *tag,
			   bool found);
int batch_journal_intent(struct run *b, const char *tag, const size_t *idx, size_t n, int round);
int batch_journal_abandoned(struct run *b, const char *tag);
int batch_journal_ended(struct run *b, const struct pending *p, const char *status, size_t ok, size_t failed);


/* llmbatch-results.c: the result lines of a batch.
 * Note in 'digests' (custom id -> digest of its result) each result of the
 * line 'line' whose custom id 'mine' holds (any custom id when 'mine' is
 * NULL). Return 1 when the line gives its custom id another result than an
 * earlier line did (its id in '*cid', borrowed from 'line'), else 0. */
int batch_note_result(const cJSON *line, const struct strmap *mine, struct strmap *digests,
		      const char **cid);

/* llmbatch-find.c: settle the intents of an interrupted run (look their batch up) */
int batch_settle_intents(struct run *b);

#endif
