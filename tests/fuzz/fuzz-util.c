/*
 * fuzz-util: helpers shared by the fuzz targets.
 */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

const char *fuzz_temp_file(const uint8_t *data, size_t size)
{
	static char path[64];
	FILE *fp;

	snprintf(path, sizeof(path), "/tmp/evalset-fuzz-%ld.in", (long)getpid());
	fp = fopen(path, "wb");
	if (!fp)
		abort();
	if (size && fwrite(data, 1, size, fp) != size)
		abort();
	fclose(fp);
	return path;
}
