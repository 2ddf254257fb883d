/*
 * guards: the runtime of a coverage build for tools/cover/cases.sh.
 *
 * A program compiled with clang's -fsanitize-coverage=trace-pc-guard calls
 * __sanitizer_cov_trace_pc_guard at every edge of its control flow, with a
 * guard of its own. This runtime numbers the guards from 1 when the program
 * starts (the same numbers in every run of the same binary), marks an edge
 * the first time it is taken, and when the program exits writes the edges
 * taken as a bitmap (bit i-1 for guard i) to a new file in the folder
 * $EVALSET_COVER_DIR (nothing when it is unset). It is linked into the
 * coverage build only, compiled without the flag.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint8_t *taken;
static uint32_t nr_guards;

void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop);
void __sanitizer_cov_trace_pc_guard(uint32_t *guard);

void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop)
{
	size_t had = nr_guards / 8 + 1, need;
	uint8_t *grown;

	if (start == stop || *start)
		return;
	for (uint32_t *g = start; g < stop; g++)
		*g = ++nr_guards;
	/* another module's guards after the first's: the bits taken so far stay */
	need = nr_guards / 8 + 1;
	grown = realloc(taken, need);
	if (!grown) {
		free(taken);
		taken = NULL;  /* nothing is recorded, nothing written */
		return;
	}
	memset(grown + (taken ? had : 0), 0, need - (taken ? had : 0));
	taken = grown;
}

void __sanitizer_cov_trace_pc_guard(uint32_t *guard)
{
	uint32_t g = *guard;

	if (!g || !taken)
		return;
	taken[(g - 1) / 8] |= (uint8_t)(1u << ((g - 1) % 8));
	*guard = 0;  /* once is enough */
}

__attribute__((destructor)) static void write_taken(void)
{
	const char *dir = getenv("EVALSET_COVER_DIR");
	char path[4096];
	int fd;
	size_t n = nr_guards / 8 + 1, done = 0;

	if (!dir || !taken)
		return;
	/* a process id may come back within one case: the first free suffix */
	fd = -1;
	for (int i = 0; fd < 0 && i < 1000; i++) {
		snprintf(path, sizeof(path), "%s/%ld.%d.bits", dir, (long)getpid(), i);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	}
	if (fd < 0)
		return;
	while (done < n) {
		ssize_t w = write(fd, taken + done, n - done);

		if (w <= 0)
			break;
		done += (size_t)w;
	}
	close(fd);
}
