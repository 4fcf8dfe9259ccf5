// SPDX-License-Identifier: GPL-2.0
/*
 * host/json_read.c: what RFC 8259 accepts and rejects, and no read past
 * the input: every prefix and every one-byte corruption of a document is
 * parsed from an exact-size heap copy, so ASan sees any overrun.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../host/json_read.h"
#include "check.h"


#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))


/* Parse @len bytes of @s from a heap buffer of exactly that size. */
static struct jv *parse_exact(const char *s, size_t len, char *err,
			      size_t err_len)
{
	char *buf = malloc(len ? len : 1);
	struct jv *v;

	memcpy(buf, s, len);
	v = jread_parse(buf, len, err, err_len);
	free(buf);
	return v;
}

static bool ok(const char *s)
{
	char err[200];
	struct jv *v = parse_exact(s, strlen(s), err, sizeof(err));

	jread_free(v);
	return v != NULL;
}

static void expect_err(const char *s, const char *want)
{
	char err[200] = "";
	struct jv *v = parse_exact(s, strlen(s), err, sizeof(err));

	CHECK(!v);
	if (strcmp(err, want)) {
		printf("FAIL: %s -> \"%s\", want \"%s\"\n", s, err, want);
		failures++;
	}
	jread_free(v);
}

static const char doc[] =
"{\"scenario\": \"zap\", \"config\": {\"vcpus\": 2, \"big\": 33554432,\n"
" \"f\": -1.5e-3, \"t\": true, \"n\": null, \"s\": \"a\\\"b\\\\c\\/\\n\\u00e9\\ud83d\\ude00\"},\n"
" \"results\": {\"runs\": [{\"x\": [1, 2, [3, {}]], \"e\": []}, {}]}}";

static void test_tree(void)
{
	char err[200];
	struct jv *v = parse_exact(doc, strlen(doc), err, sizeof(err));
	const struct jv *c, *s, *runs;

	CHECK(v && v->type == JV_OBJ && v->n == 3);
	if (!v)
		return;
	c = jv_get(v, "config");
	CHECK(jv_get(c, "vcpus")->num == 2);
	CHECK(!strcmp(jv_get(c, "big")->str, "33554432"));
	CHECK(jv_get(c, "f")->num == -1.5e-3);
	CHECK(jv_get(c, "t")->type == JV_BOOL && jv_get(c, "t")->b);
	CHECK(jv_get(c, "n")->type == JV_NULL);
	s = jv_get(c, "s");
	/* e-acute is 2 bytes of UTF-8, the emoji (a surrogate pair) 4. */
	CHECK(s && !strcmp(s->str, "a\"b\\c/\n\xc3\xa9\xf0\x9f\x98\x80"));
	runs = jv_get(jv_get(v, "results"), "runs");
	CHECK(runs && runs->type == JV_ARR && runs->n == 2);
	CHECK(jv_at(jv_at(jv_get(jv_at(runs, 0), "x"), 2), 0)->num == 3);
	CHECK(!jv_at(runs, 2) && !jv_get(runs, "x") && !jv_get(c, "nope"));
	jread_free(v);
}

static void test_grammar(void)
{
	static const char *const good[] = {
		"0", "-0", "1.5", "1e5", "1E+5", "-2.5e-3", "\"\"", "[]", "{}",
		"\t\r\n [1]\n", "\"\\u0000\"", "{\"a\":{\"a\":1},\"a\":2}",
		"\"\xe2\x82\xac\"",
	};
	static const char *const bad[] = {
		"", " ", "01", "1.", ".5", "+1", "1e", "--1", "0x10", "NaN",
		"Infinity", "[1,]", "{\"a\":1,}", "{a:1}", "{'a':1}", "[1 2]",
		"tru", "nul", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"",
		"\"\\udc00\"", "\"\\ud800\\u0041\"", "\"a\nb\"", "\"\t\"",
		"[1]]", "{} {}", "/* c */ 1", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"",
		"\"\xff\"", "\"abc", "\"abc\\", "[", "{\"a\"", "{\"a\":",
		"1e999",
	};
	char deep[2 * JREAD_MAX_DEPTH + 8];

	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		if (!ok(good[i])) {
			printf("FAIL: rejected %s\n", good[i]);
			failures++;
		}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (ok(bad[i])) {
			printf("FAIL: accepted %s\n", bad[i]);
			failures++;
		}
	/* JREAD_MAX_DEPTH levels parse; one more does not. */
	memset(deep, '[', JREAD_MAX_DEPTH);
	memset(deep + JREAD_MAX_DEPTH, ']', JREAD_MAX_DEPTH);
	deep[2 * JREAD_MAX_DEPTH] = 0;
	CHECK(ok(deep));
	memset(deep, '[', JREAD_MAX_DEPTH + 1);
	memset(deep + JREAD_MAX_DEPTH + 1, ']', JREAD_MAX_DEPTH + 1);
	deep[2 * JREAD_MAX_DEPTH + 2] = 0;
	CHECK(!ok(deep));
	expect_err("{\"a\": [1,\n  2,]}", "line 2, column 5: expected a value");
	expect_err("[1] x", "line 1, column 5: unexpected data after the document");
	expect_err("\"\\ud800\"", "line 1, column 8: high surrogate \\ud800 "
		   "without its low half");
	expect_err("1e999", "line 1, column 1: number out of range");
}

/* Every prefix must fail cleanly; every corruption must not overrun. */
static void test_truncation(void)
{
	size_t n = strlen(doc);
	char err[200], *copy = malloc(n);

	for (size_t len = 0; len < n; len++) {
		struct jv *v = parse_exact(doc, len, err, sizeof(err));

		CHECK(!v);
		jread_free(v);
	}
	for (size_t i = 0; i < n; i++) {
		static const char junk[] = "\"\\[{}],:0e-u\x80\xff";

		for (size_t k = 0; k < sizeof(junk) - 1; k++) {
			memcpy(copy, doc, n);
			copy[i] = junk[k];
			jread_free(parse_exact(copy, n, err, sizeof(err)));
		}
	}
	free(copy);
}

int main(void)
{
	test_tree();
	test_grammar();
	test_truncation();
	return check_report();
}
