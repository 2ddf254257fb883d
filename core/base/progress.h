/*
 * progress: one line on stderr that says how far long work has got.
 *
 * A command that can run for more than a couple of seconds (power, import
 * of a large log, chunk of a large tree, trec-eval on a large run, report
 * of a large set, generate, judge, batch polling) keeps a struct progress
 * and tells it how much is done as it goes. The line, e.g.
 *
 *   trec-eval: 41.2 of 136.0 MB (30%), 52.1 MB/s, 2 s left
 *
 * is drawn only when stderr is a terminal and --quiet is off, only once the
 * work has run PROGRESS_DELAY seconds (work that ends sooner prints
 * nothing), redrawn in place at most PROGRESS_HZ times a second, and wiped
 * by progress_end() so that what the command prints after it (its summary)
 * is exactly what it prints without a terminal. Nothing here writes to
 * stdout, and nothing is written to a log or a pipe: a CI log gets the
 * final summary only.
 *
 * EVALSET_PROGRESS_DELAY (seconds, e.g. 0) overrides the delay; tests use
 * it to see the line of work that ends in less than a second.
 */
#ifndef EVALSET_PROGRESS_H
#define EVALSET_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

#define PROGRESS_DELAY 1.0
#define PROGRESS_HZ 5
#define PROGRESS_LANES 4

enum progress_unit {
	PROGRESS_COUNT,      /* things counted: "1,234 of 5,000 questions" */
	PROGRESS_BYTES,      /* bytes, shown in MB: "41.2 of 136.0 MB" */
};

struct progress {
	const char *what;          /* the prefix, e.g. "trec-eval" (borrowed) */
	const char *noun;          /* for PROGRESS_COUNT, e.g. "questions" (borrowed) */
	enum progress_unit unit;
	double total;              /* 0 when unknown */
	double start;              /* monotonic seconds at progress_begin */
	double phase_start;        /* and at the last progress_phase (the rate's start) */
	double next_draw;          /* monotonic seconds of the next redraw */
	double delay;
	bool on;                   /* stderr is a terminal and not --quiet */
	size_t width;              /* columns of the line on screen (0: none) */
	double lane[PROGRESS_LANES]; /* done by each thread (progress_update_lane) */
	int drawing;               /* a thread is drawing (the others skip) */
};

/* Monotonic seconds (CLOCK_MONOTONIC), for durations. */
double progress_clock(void);

/*
 * Start 'p' for work called 'what' (borrowed, must outlive 'p') counting
 * 'noun' (borrowed; ignored for bytes) in 'unit', 'total' of them (0 when
 * not known in advance).
 */
void progress_begin(struct progress *p, const char *what, enum progress_unit unit,
		    const char *noun, double total);
/* Go on to another part of the same work, counting 'total' of 'noun'
 * (borrowed) from 0 (every lane too): the line keeps its place and its
 * delay. Not while threads update lanes. */
void progress_phase(struct progress *p, const char *noun, double total);
/* Say that 'done' of the total are done; draws when it is time. Cheap
 * enough to call for every question; for every line of a large file call
 * it every few thousand lines. */
void progress_update(struct progress *p, double done);
/* The same for work shared by threads: thread 'lane' (< PROGRESS_LANES)
 * has done 'done'; the line shows the sum over the lanes. Any thread may
 * call it; one draws at a time, the others go on without waiting. */
void progress_update_lane(struct progress *p, int lane, double done);
/* Turn the line off for the rest of the process (a command's --quiet,
 * where that option leaves its warnings on). */
void progress_silence(void);
/* Wipe the line, if one was drawn. 'p' may be begun again. */
void progress_end(struct progress *p);

/*
 * Write into 'buf' (of 'size' bytes) the line for 'p' with 'done' done
 * 'elapsed' seconds into its phase: done and total (and the share when the total is
 * known), the rate, and the time left when it can be estimated. Returns
 * the length written. For progress_update and tests.
 */
size_t progress_format(char *buf, size_t size, const struct progress *p, double done,
		       double elapsed);

#endif
