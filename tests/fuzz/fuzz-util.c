/*
 * fuzz-util: helpers shared by the fuzz targets.
 */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char path[4096];

/* The replay driver and libFuzzer both exit normally: leave nothing behind. */
static void remove_temp(void)
{
	if (path[0])
		unlink(path);
}

const char *fuzz_temp_file(const uint8_t *data, size_t size)
{
	const char *dir = getenv("TMPDIR");
	FILE *fp;

	if (!path[0])
		atexit(remove_temp);
	snprintf(path, sizeof(path), "%s/evalset-fuzz-%ld.in", dir && *dir ? dir : "/tmp",
		 (long)getpid());
	fp = fopen(path, "wb");
	if (!fp)
		abort();
	if (size && fwrite(data, 1, size, fp) != size)
		abort();
	fclose(fp);
	return path;
}
