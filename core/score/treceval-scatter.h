/*
 * treceval-scatter: what the two files of the scattered pass share (see
 * treceval-scatter.c for the method). treceval-scatter.c holds the main
 * pass over the run (on one or two threads) and the driver;
 * treceval-settle.c what follows it: each question settled, and the
 * passes that read the run again when a question needs its lines. Only
 * these two files include this header.
 */
#ifndef EVALSET_TRECEVAL_SCATTER_H
#define EVALSET_TRECEVAL_SCATTER_H

#include "score/treceval-internal.h"

#include "base/strbuf.h"
#include "score/run.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct sc_rec {
	double score;
	uint64_t key;
};

struct sc_chunk {
	struct sc_chunk *next;
	uint32_t nr, cap;
	struct sc_rec r[];
};

struct sc_judged {
	double score;
	const char *doc;    /* the qrels' copy */
	uint64_t key;
	int rel;            /* grade, or REL_UNJUDGED */
	uint32_t q;         /* qrels index */
	uint32_t len;       /* of doc */
	long before;        /* lines ranked between the previous judged one and this one */
};

#define QF_LONG 1u          /* a docid of the question is keyed by its hash */
#define QF_TIE  2u          /* its ranking needs the docids (see treceval-scatter.c) */
#define QF_CUT  4u          /* evaluated from its lines (see scatter_eval_cut, treceval-settle.c) */

struct qhot {               /* a slot of the qid table, two per cache line */
	uint64_t key;           /* the qid's key (sc_key) */
	struct sc_rec *end;     /* the free part of its last chunk: 'room' records */
	uint32_t len;           /* the qid's length */
	uint32_t idx;           /* qrels index + 1; 0: an empty slot */
	uint16_t room;
	uint16_t flags;
};

struct qcold {
	struct sc_chunk *head, *tail;
	size_t nr_rec;          /* lines kept in the chunks (not judged), once closed */
	uint32_t j0, nr_j;      /* its judged documents in 'j', after the pass */
};

struct sc_cut {             /* a line of a question marked QF_CUT */
	size_t q, doc;          /* qrels index; docid's offset in cut_docs */
	long line;
	double score;
	uint32_t len;
};

struct sc_dup {             /* a docid key met twice in one question */
	size_t q;
	uint64_t key;
	char *doc;              /* the first such line met by the check pass (copy) */
	size_t len;
	long line;
};

#define SC_BLOCK (1u << 20)     /* arena block from malloc */
#define SC_POPULATE (2u << 20)  /* of the reserved block, made present at once */

/*
 * Where the chunks are carved from: a block reserved for the whole pass
 * when the run's size is known (its pages made present SC_POPULATE at a
 * time, far cheaper than one page fault a page), then blocks from malloc
 * if it runs out.
 */
struct sc_block {
	char *p;
	size_t len;
	bool mapped;            /* reserved with mmap: released with munmap */
};

struct sc_arena {
	char *at, *end;         /* the free part of the newest block */
	char *present;          /* of a reserved block: its pages before this are present */
	struct sc_block *blocks;
	size_t nr, alloc;
};

#define SC_CHUNK_MAX 64u     /* lines per chunk at most */

struct scatter {
	const struct qrels *qr;
	struct qhot *hot;       /* the qid table */
	size_t *slot_of;        /* qrels index -> its slot in 'hot' */
	struct qcold *cold;     /* by qrels index */
	size_t qmask;
	int qbits;
	uint64_t *jtag;         /* judgment table: a tag (never 0), 0 empty */
	uint64_t *jbits_set;    /* a bit per tag's bits 1.., so that most misses skip 'jtag' */
	size_t jbits_mask;
	uint32_t *jq, *jx;      /* its query, and index in that query's judgments */
	size_t jmask;
	int jbits;
	struct sc_arena arena;
	struct sc_judged *j;
	size_t nr_j, alloc_j;
	struct sc_dup *dup;
	size_t nr_dup, alloc_dup;
	size_t nr_q;            /* questions indexed */
	const char *path;
	bool copy;              /* a second thread's: the index is the first's */
	unsigned want;          /* 0: every indexed question; else those with this flag */
	struct sc_cut *cut;     /* the lines of the questions marked QF_CUT */
	size_t nr_cut, alloc_cut;
	struct strbuf cut_docs; /* their docids, each followed by 8 NULs */
};

/* The judged lines of question 'c' in 'sc': NULL when 'sc' holds none at all. */
static inline struct sc_judged *sc_judged_of(const struct scatter *sc, const struct qcold *c)
{
	return sc->j ? sc->j + c->j0 : NULL;
}

/*
 * The key of the id of 'len' bytes at 's' (7 more readable bytes follow
 * when 'padded'): see treceval-scatter.c. Sets '*hashed' when it is a hash.
 */
static inline uint64_t sc_key(const char *s, size_t len, bool padded, bool *hashed)
{
	uint64_t w = 0, k, v;
	unsigned sh;

	if (len - 1 >= 8) {
		*hashed = true;
		return padded ? qrels_hash_padded(s, len) : qrels_hash(s, len);
	}
	if (padded)
		memcpy(&w, s, 8);  /* one load: a copy of variable length costs a call or a rep movs */
	else
		memcpy(&w, s, len);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	k = w;
#else
	k = __builtin_bswap64(w);
#endif
	/* the id's bytes from the top, zeros below them */
	sh = 64 - 8 * (unsigned)len;
	k = k >> sh << sh;
	/* a NUL inside: strcmp would stop there, so the bytes do not give the order */
	v = k | ((1ULL << sh) - 1);
	if ((v - 0x0101010101010101ULL) & ~v & 0x8080808080808080ULL) {
		*hashed = true;
		return padded ? qrels_hash_padded(s, len) : qrels_hash(s, len);
	}
	return k;
}

static inline size_t sc_qslot(const struct scatter *sc, uint64_t key)
{
	return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> (64 - sc->qbits));
}

static inline uint64_t sc_jtag(uint64_t key, size_t q)
{
	return ((key ^ ((uint64_t)q * 0xD6E8FEB86659FD93ULL)) * 0x9E3779B97F4A7C15ULL) | 1;
}

/*
 * Return the question of the qid of 'len' bytes at 'qid' (its key 'key',
 * 'hashed' as sc_key set it, first slot 'at') when it is one to evaluate,
 * or NULL.
 */
static inline __attribute__((always_inline)) struct qhot *
scatter_probe(const struct scatter *sc, uint64_t key, bool hashed, const char *qid, size_t len, size_t at)
{
	struct qhot *h;

	for (; (h = &sc->hot[at])->idx; at = (at + 1) & sc->qmask) {
		if (h->key != key || h->len != len)
			continue;
		if (hashed && memcmp(sc->qr->q[h->idx - 1].qid, qid, len))
			continue;
		return sc->want && !(h->flags & sc->want) ? NULL : h;
	}
	return NULL;
}

#define SC_AHEAD 8   /* lines whose qid slot is prefetched ahead (the later passes) */

/*
 * Call 'fn' for each line of the batch 'g' whose question is to be
 * evaluated. The qid slot of a line is prefetched SC_AHEAD lines ahead, so
 * that in a shuffled run the lookups of consecutive lines overlap.
 */
static inline __attribute__((always_inline)) int
scatter_batch(struct scatter *sc, const struct trec_group *g,
	      int (*fn)(struct scatter *, struct qhot *, const struct trec_line *, bool))
{
	uint64_t key[SC_AHEAD];
	size_t slot[SC_AHEAD];
	bool hashed[SC_AHEAD];

	for (size_t i = 0; i < g->nr + SC_AHEAD; i++) {
		size_t r = i % SC_AHEAD;

		if (i >= SC_AHEAD) {
			size_t k = i - SC_AHEAD;
			struct qhot *h = scatter_probe(sc, key[r], hashed[r],
						       g->qids ? g->qids[k] : g->qid,
						       g->qids ? g->qid_lens[k] : g->qid_len, slot[r]);
			int ret;

			if (h && (ret = fn(sc, h, &g->lines[k], g->padded)))
				return ret;
		}
		if (i < g->nr) {
			const char *qid = g->qids ? g->qids[i] : g->qid;
			size_t len = g->qids ? g->qid_lens[i] : g->qid_len;

			hashed[r] = false;
			key[r] = sc_key(qid, len, g->padded, &hashed[r]);
			slot[r] = sc_qslot(sc, key[r]);
			__builtin_prefetch(&sc->hot[slot[r]]);
		}
	}
	return 0;
}

/*
 * Settle every question of 'sc' after the main pass, on two threads when
 * 'threads' is 2: check it for docids met twice (noted in sc->dup) and
 * count the lines before each of its judged documents (into their
 * 'before'), as the options 'o' need. Set '*cuts' when a question was
 * marked QF_CUT; return whether one was marked QF_TIE.
 */
bool scatter_settle_all(struct scatter *sc, const struct te_options *o, int threads, bool *cuts);

/*
 * Read the run of 'sc' again where settling left questions that need
 * their lines: to report docids met twice (sc->dup) at their lines, to
 * count the ranks of the questions marked QF_TIE ('ties'), and to
 * evaluate those marked QF_CUT ('cuts'), whose rows go to st->out.
 * Return 0 or -1 (reported).
 */
int scatter_rescan(struct scatter *sc, struct te_state *st, bool ties, bool cuts);

#endif
