/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small JSON writer into a growing buffer.  The results are written
 * with write_file_atomic() once complete, so a reader never sees half.
 */
#ifndef HOST_JSON_H
#define HOST_JSON_H

#include <mmubench/types.h>

#define JSON_MAX_DEPTH	32

struct json {
	char *buf;
	size_t len, cap;
	int depth;
	bool first[JSON_MAX_DEPTH];
	bool failed;
};

void json_init(struct json *j);
void json_free(struct json *j);
void json_obj_begin(struct json *j, const char *key);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j, const char *key);
void json_arr_end(struct json *j);
void json_str(struct json *j, const char *key, const char *val);
void json_u64(struct json *j, const char *key, u64 val);
void json_s64(struct json *j, const char *key, s64 val);
void json_num(struct json *j, const char *key, double val);
void json_bool(struct json *j, const char *key, bool val);

#endif
