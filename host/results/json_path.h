/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Metric paths for "mmubench compare": where a number lives in an
 * mmubench document, and which array holds the samples.
 *
 *   [AGG:]SEG.SEG...    AGG is sum (default), max, min or mean
 *   SEG = KEY           an object member (\. \[ \\ escape those chars)
 *       | KEY[]         every element; the first [] is the sample axis
 *                       (results.runs[]: one sample per run); a later []
 *                       aggregates the elements with AGG
 *       | KEY[*]        one row per element, named by its "name" member
 *                       (or KEY[i]); at most one, before any later []
 *       | KEY[N]        element N
 *       | KEY[K=V]      the element whose member K is the string V
 *
 * e.g. results.runs[].zap.zap_total_ms,
 *      max:results.runs[].phases[*].vcpus[].latency_ns.p99
 */
#ifndef HOST_RESULTS_JSON_PATH_H
#define HOST_RESULTS_JSON_PATH_H

#include <jansson.h>

enum jp_sel { JP_KEY, JP_ALL, JP_EACH, JP_INDEX, JP_MATCH };
enum jp_agg { JP_SUM, JP_MAX, JP_MIN, JP_MEAN };

struct jp_seg {
	char *key;
	enum jp_sel sel;
	size_t index;
	char *mkey, *mval;
	size_t src_end;		/* where the segment ends in the text */
};

struct jpath {
	char *text;
	enum jp_agg agg;
	struct jp_seg *seg;
	size_t n;
	size_t axis;		/* the sample axis: first JP_ALL */
};

/* -1 with the reason in @err if @text is not a valid metric path. */
int jpath_parse(const char *text, struct jpath *p, char *err, size_t len);
void jpath_free(struct jpath *p);

/* The array of samples in @doc, or NULL with where the path broke. */
const json_t *jpath_samples(const struct jpath *p, const json_t *doc,
			       char *why, size_t len);

/* Called once per row with a value in one sample; label "" without [*]. */
typedef int (*jp_emit)(void *ctx, const char *label, double v);

/*
 * Evaluate the path in sample @i (an element of jpath_samples()).
 * Returns the number of values emitted (0: absent, reason in @why), or
 * -1 if the path names something that is not a number (@why says what),
 * or the emitter's negative return.
 */
int jpath_eval(const struct jpath *p, const json_t *sample, size_t i,
	       jp_emit emit, void *ctx, char *why, size_t len);

#endif
