/*
 * fuzz-logjson: the JSON Lines record parser (core/logs/logjson.h), flat fast
 * path against the full strict parser. The input is split at newlines and
 * every line goes, in order, to two readers: one with the fast path (which
 * remembers the keys of the records before), one with the full parser
 * alone. They must give the same verdict, the same message and the same
 * values for a few paths; the first line of the input is one of them.
 */
#include "fuzz.h"
#include "logs/logjson.h"
#include "logs/logread.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

#define NR_PATHS 8

static const char *const fixed[NR_PATHS - 1] = { "query", "doc", "a.b", "", "a", "list.id", "k" };

struct side {
	struct log_reader r;
	struct log_values v;
	char *line;
	int rc;
};

/* Parse 'len' bytes at 'data' with 's' (fast path 'fast'). */
static void parse(struct side *s, bool fast, const uint8_t *data, size_t len)
{
	free(s->line);
	s->line = xmalloc(len + 1);
	memcpy(s->line, data, len);  /* decoded in place */
	s->line[len] = '\0';
	log_json_fast = fast;
	s->rc = log_json_parse(&s->r, s->line, len);
	log_json_fast = true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct side a, b;
	struct log_path paths[NR_PATHS];
	const uint8_t *end = data + size, *nl = memchr(data, '\n', size);
	size_t first = nl ? (size_t)(nl - data) : size;
	char *text = xmalloc(first + 1);

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.r.format = b.r.format = LOG_FORMAT_JSONL;
	memcpy(text, data, first);
	text[first] = '\0';  /* a NUL inside just makes it shorter */
	log_path_init(&paths[0], &a.r, text);
	for (size_t k = 1; k < NR_PATHS; k++)
		log_path_init(&paths[k], &a.r, fixed[k - 1]);

	for (const uint8_t *p = data; p <= end;) {
		const uint8_t *e = memchr(p, '\n', (size_t)(end - p));
		size_t len = e ? (size_t)(e - p) : (size_t)(end - p);

		parse(&a, true, p, len);
		parse(&b, false, p, len);
		if (a.rc != b.rc || (a.rc < 0 && strcmp(a.r.why, b.r.why)))
			abort();
		for (size_t k = 0; a.rc == 0 && k < NR_PATHS; k++) {
			a.v.nr = b.v.nr = 0;
			log_json_get(&a.r, &paths[k], &a.v);
			log_json_get(&b.r, &paths[k], &b.v);
			if (a.v.nr != b.v.nr)
				abort();
			for (size_t i = 0; i < a.v.nr; i++)
				if (a.v.v[i].len != b.v.v[i].len || memcmp(a.v.v[i].s, b.v.v[i].s, a.v.v[i].len))
					abort();
		}
		if (!e)
			break;
		p = e + 1;
	}

	for (size_t k = 0; k < NR_PATHS; k++)
		log_path_release(&paths[k]);
	free(text);
	free(a.line);
	free(b.line);
	free(a.r.nodes);
	free(b.r.nodes);
	log_values_release(&a.v);
	log_values_release(&b.v);
	return 0;
}
