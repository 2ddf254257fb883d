/*
 * replay: run a fuzz target over the files of its seed corpus without
 * libFuzzer (gcc builds), printing TAP: one check per file. A crash or a
 * sanitizer report fails the test; a clean return is a pass.
 */
#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int count;

static void replay_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!fp) {
		printf("not ok %d - cannot open %s\n", ++count, path);
		return;
	}
	do {
		if (len + 65536 > cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		n = fread(buf + len, 1, cap - len, fp);
		len += n;
	} while (n > 0);
	fclose(fp);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	printf("ok %d - %s\n", ++count, path);
	fflush(stdout);
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void replay(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	char **names = NULL;
	size_t nr = 0;

	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
		replay_file(path);
		return;
	}
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		names = realloc(names, (nr + 1) * sizeof(*names));
		if (!names)
			abort();
		names[nr] = malloc(strlen(path) + strlen(e->d_name) + 2);
		if (!names[nr])
			abort();
		snprintf(names[nr], strlen(path) + strlen(e->d_name) + 2, "%s/%s", path, e->d_name);
		nr++;
	}
	closedir(d);
	qsort(names, nr, sizeof(*names), cmp);
	for (size_t i = 0; i < nr; i++) {
		replay(names[i]);
		free(names[i]);
	}
	free(names);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		replay(argv[i]);
	printf("1..%d\n", count);
	return 0;
}
