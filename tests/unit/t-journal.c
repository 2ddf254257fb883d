/*
 * t-journal: records survive, a torn last line (kill -9 mid-write) is
 * ignored and repaired, a bad line in the middle is refused with its place.
 */
#include "test-lib.h"
#include "llm/journal.h"
#include "base/fsutil.h"
#include "base/util.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct seen {
	int n;
	long sum;
	long last_line;
};

static int count(const cJSON *rec, long line, void *data)
{
	struct seen *s = data;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(rec, "v");

	s->n++;
	s->sum += cJSON_IsNumber(v) ? v->valueint : 1000;
	s->last_line = line;
	return 0;
}

static void append_raw(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_APPEND);
	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0)
			test_diag("write failed");
		close(fd);
	}
}

int main(void)
{
	char tmpl[] = "/tmp/t-journal-XXXXXX";
	char *dir = mkdtemp(tmpl);
	char *path = path_join(dir, "sub/dir/j.jsonl");
	struct journal j = JOURNAL_INIT;
	struct seen s = { 0 };

	test_capture_errors();
	is_int(journal_read(path, count, &s), 0, "missing journal reads as empty");
	is_int(s.n, 0, "no records");
	is_int(journal_open(&j, path), 0, "open creates the file and its directory");
	for (int i = 1; i <= 3; i++) {
		cJSON *r = cJSON_CreateObject();
		cJSON_AddNumberToObject(r, "v", i);
		is_int(journal_append(&j, r), 0, "append");
		cJSON_Delete(r);
	}
	journal_close(&j);
	memset(&s, 0, sizeof(s));
	journal_read(path, count, &s);
	ok(s.n == 3 && s.sum == 6, "three records read back in order (%d, %ld)", s.n, s.sum);

	/* a writer killed mid-record leaves a torn last line */
	append_raw(path, "{\"v\": 40, \"tex");
	memset(&s, 0, sizeof(s));
	is_int(journal_read(path, count, &s), 0, "torn last line is not an error");
	is_int(s.n, 3, "torn last line ignored");
	/* complete JSON without its newline is also torn */
	append_raw(path, "\n");
	append_raw(path, "{\"v\": 50}");
	memset(&s, 0, sizeof(s));
	is_int(journal_read(path, count, &s), -1, "bad line in the middle is refused");
	ok(strstr(test_captured(), "j.jsonl:4") != NULL, "error names the line");

	/* reopening cuts only the torn tail; later appends stay readable */
	{
		char *fixed = path_join(dir, "k.jsonl");
		struct journal k = JOURNAL_INIT;
		cJSON *r = cJSON_CreateObject();
		journal_open(&k, fixed);
		cJSON_AddNumberToObject(r, "v", 7);
		journal_append(&k, r);
		journal_close(&k);
		append_raw(fixed, "{\"v\": 9");
		is_int(journal_open(&k, fixed), 0, "reopen after a torn write");
		journal_append(&k, r);
		journal_close(&k);
		memset(&s, 0, sizeof(s));
		is_int(journal_read(fixed, count, &s), 0, "journal readable after repair");
		ok(s.n == 2 && s.sum == 14, "both good records kept, torn one gone (%d, %ld)", s.n, s.sum);
		cJSON_Delete(r);
		unlink(fixed);
		free(fixed);
	}
	unlink(path);
	{
		char *d = path_join(dir, "sub/dir");
		rmdir(d);
		free(d);
		d = path_join(dir, "sub");
		rmdir(d);
		free(d);
	}
	rmdir(dir);
	free(path);
	return test_done();
}
