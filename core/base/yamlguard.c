/*
 * yamlguard: the depth pass of yamlguard.h. Invariant: at most one event is
 * alive at a time and the parser is always deleted, whatever the input.
 */
#include "base/yamlguard.h"
#include "base/error.h"

#include <stdbool.h>
#include <yaml.h>

int yaml_guard_depth(const char *buf, size_t len, const char *name, int max_depth)
{
	yaml_parser_t ps;
	yaml_event_t ev;
	int depth = 0, ret = 0;
	bool done = false;

	yaml_parser_initialize(&ps);
	yaml_parser_set_input_string(&ps, (const unsigned char *)buf, len);
	while (!done) {
		if (!yaml_parser_parse(&ps, &ev))
			break;  /* a syntax error: the real loader reports it */
		switch (ev.type) {
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (++depth > max_depth) {
				ret = error_at(name, (long)ev.start_mark.line + 1, (long)ev.start_mark.column + 1,
					       "nesting deeper than %d levels", max_depth);
				done = true;
			}
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&ps);
	return ret;
}
