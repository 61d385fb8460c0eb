/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_attest: the report's encodings (canonical form, base64, hex,
 * timestamps), Ed25519 keys, and verification refusing every report that
 * is not exactly what was signed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "attest/attest.h"
#include "attest/encode.h"

#define NELEM(t)	(sizeof(t) / sizeof((t)[0]))

static char dir[] = "/tmp/test_attest.XXXXXX";
static char keypath[256], pubpath[256], otherpub[256], report[256];

/* ---------------------------------------------------------------- */
/* Encodings. */

/* SPEC 7's canonical form, byte for byte. */
static void
canonical_form(void **state)
{
	static const struct {
		const char *json, *want;
	} rows[] = {
		{ "{\"b\": 1, \"a\": {\"d\": [1, 2], \"c\": null}}",
		  "{\"a\":{\"c\":null,\"d\":[1,2]},\"b\":1}" },
		/* Byte order, not locale order: upper case before lower. */
		{ "{\"b\":1,\"B\":2,\"_\":3,\"a\":4}",
		  "{\"B\":2,\"_\":3,\"a\":4,\"b\":1}" },
		{ "[\"q\\\"b\\\\s/\"]", "[\"q\\\"b\\\\s/\"]" },
		{ "[\"\\b\\f\\n\\r\\t\"]", "[\"\\b\\f\\n\\r\\t\"]" },
		/* Other controls as \u00XX, upper-case hex. */
		{ "[\"\\u0001\\u001f\\u000b\"]", "[\"\\u0001\\u001F\\u000B\"]" },
		/* DEL and non-ASCII as themselves (UTF-8). */
		{ "[\"\\u007f\\u00e9\\u2028\"]",
		  "[\"\x7f\xc3\xa9\xe2\x80\xa8\"]" },
		{ "{\"n\":-0,\"m\":9223372036854775807,\"t\":true}",
		  "{\"m\":9223372036854775807,\"n\":0,\"t\":true}" },
	};
	json_error_t e;
	json_t *j;
	char *got;
	size_t i;

	for (i = 0; i < NELEM(rows); i++) {
		j = json_loads(rows[i].json, 0, &e);
		assert_non_null(j);
		got = encode_canonical(j);
		assert_non_null(got);
		if (strcmp(got, rows[i].want) != 0)
			fail_msg("row %zu: got %s want %s", i, got,
			    rows[i].want);
		free(got);
		json_decref(j);
	}
}

static void
base64_strict(void **state)
{
	unsigned char b[64], out[64];
	char *s, bad[100];
	size_t i;

	for (i = 0; i < sizeof(b); i++)
		b[i] = (unsigned char)(i * 37 + 11);
	s = encode_base64(b, sizeof(b));
	assert_non_null(s);
	assert_int_equal(strlen(s), 88);
	assert_int_equal(encode_base64_decode(s, out, 64), 0);
	assert_memory_equal(out, b, 64);
	/* Another length, a changed padding, a stray character: refused. */
	assert_int_equal(encode_base64_decode(s, out, 63), -1);
	snprintf(bad, sizeof(bad), "%.86s", s);
	assert_int_equal(encode_base64_decode(bad, out, 64), -1);
	snprintf(bad, sizeof(bad), "%s", s);
	bad[85] = bad[85] == 'B' ? 'C' : 'B';	/* unused bits set */
	assert_int_equal(encode_base64_decode(bad, out, 64), -1);
	snprintf(bad, sizeof(bad), "%s", s);
	bad[10] = '*';
	assert_int_equal(encode_base64_decode(bad, out, 64), -1);
	free(s);
}

static void
hex_and_time(void **state)
{
	unsigned char b[3] = { 0x00, 0xab, 0xff }, sha[32];
	char hex[65], t[33];
	char *argv[] = { "a", "b c", "", NULL };

	encode_hex(b, 3, hex);
	assert_string_equal(hex, "00abff");
	assert_true(encode_is_hex("00abff", 3));
	assert_false(encode_is_hex("00ABff", 3));
	assert_false(encode_is_hex("00abf", 3));
	assert_false(encode_is_hex("00abff0", 3));
	encode_time(0, t);
	assert_string_equal(t, "1970-01-01T00:00:00.000Z");
	encode_time(1796215800123LL, t);
	assert_string_equal(t, "2026-12-02T12:50:00.123Z");
	/* Each argument followed by one NUL (SPEC 7). */
	attest_argv_sha256(argv, sha);
	encode_hex(sha, 32, hex);
	assert_string_equal(hex, "cdecc7ce15716cf7f3b637aef821efe6c2d1f69f"
	    "2d21d088939ee7701a990bee");
	attest_run_id(t);
	assert_true(encode_is_hex(t, 16));
}

/* ---------------------------------------------------------------- */
/* Keys, writing and verifying. */

static void
sample(struct attest_report *r, struct attest_sandbox *sb)
{
	static char *argv[] = { "make", "SECRET=hunter2", NULL };

	memset(r, 0, sizeof(*r));
	memset(sb, 0, sizeof(*sb));
	attest_run_id(r->run_id);
	r->started_ms = 1796215800123LL;
	r->ended_ms = r->started_ms + 1500;
	r->argv = argv;
	snprintf(r->policy.source, sizeof(r->policy.source), "/etc/egress.conf");
	r->policy.rules = 4;
	r->policy.block_private = true;
	sb->profile = "worktree";
	sb->network_mode = "managed";
	sb->landlock_abi = 7;
	sb->seccomp = true;
	sb->namespaces[0] = "mount";
	sb->namespaces[1] = "net";
	r->sandbox = sb;
	snprintf(r->listen[0], sizeof(r->listen[0]), "127.0.0.1:41234");
	r->nlisten = 1;
	r->allow = 12;
	r->deny = 3;
	r->by_reason[EGRESS_R_ALLOW_RULE] = 12;
	r->by_reason[EGRESS_R_NO_ALLOW_RULE] = 3;
	r->log.records = 15;
	r->log.offset = -1;
	r->exited = true;
}

static int
write_report(const char *path, const struct attest_report *r,
    const struct attest_key *k)
{
	struct attest_out *o;
	char err[ATTEST_ERR_MAX];
	int rv;

	if ((o = attest_out_open(path, err, sizeof(err))) == NULL)
		fail_msg("%s", err);
	rv = attest_write(o, r, k, err, sizeof(err));
	attest_out_free(o);
	return rv;
}

static int
verify(const char *path, const char *pub, const char **failed)
{
	struct attest_check c = { NULL };
	struct attest_key *k;
	char why[ATTEST_ERR_MAX];
	static char text[ATTEST_REPORT_MAX];
	int rv;
	size_t len;
	FILE *f;

	if ((k = attest_key_read_public(pub, why, sizeof(why))) == NULL)
		fail_msg("%s", why);
	if ((f = fopen(path, "r")) == NULL)
		fail_msg("%s: cannot open", path);
	len = fread(text, 1, sizeof(text), f);
	fclose(f);
	rv = attest_verify(text, len, k, &c, failed, why, sizeof(why));
	attest_key_free(k);
	return rv;
}

static int
setup(void **state)
{
	char err[ATTEST_ERR_MAX], other[256];

	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(keypath, sizeof(keypath), "%s/k", dir);
	snprintf(pubpath, sizeof(pubpath), "%s/k.pub", dir);
	snprintf(other, sizeof(other), "%s/other", dir);
	snprintf(otherpub, sizeof(otherpub), "%s/other.pub", dir);
	snprintf(report, sizeof(report), "%s/report.json", dir);
	if (attest_keygen(keypath, err, sizeof(err)) == -1 ||
	    attest_keygen(other, err, sizeof(err)) == -1) {
		fprintf(stderr, "keygen: %s\n", err);
		return -1;
	}
	return 0;
}

static int
teardown(void **state)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void
keygen_files(void **state)
{
	char err[ATTEST_ERR_MAX];
	struct attest_key *k;
	struct stat st;

	assert_int_equal(stat(keypath, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	/* Never over an existing key. */
	assert_int_equal(attest_keygen(keypath, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not overwritten"));
	k = attest_key_read_private(keypath, err, sizeof(err));
	assert_non_null(k);
	attest_key_free(k);
	/* A public key is not a private key, and the other way round. */
	assert_null(attest_key_read_private(pubpath, err, sizeof(err)));
	assert_null(attest_key_read_public(keypath, err, sizeof(err)));
	assert_null(attest_key_read_public("/nonexistent", err, sizeof(err)));
	assert_non_null(strstr(err, "No such file"));
}

static void
sign_and_verify(void **state)
{
	struct attest_report r;
	struct attest_sandbox sb;
	struct attest_key *k;
	const char *failed;
	char err[ATTEST_ERR_MAX];
	FILE *f;
	char buf[8192];
	size_t n;

	k = attest_key_read_private(keypath, err, sizeof(err));
	assert_non_null(k);
	sample(&r, &sb);
	assert_int_equal(write_report(report, &r, k), 0);
	assert_int_equal(verify(report, pubpath, &failed), 0);
	/* Another key's public half: the key id says so. */
	assert_int_equal(verify(report, otherpub, &failed), 1);
	assert_string_equal(failed, "key_id");
	/* No argument but argv[0] is written. */
	f = fopen(report, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	assert_null(strstr(buf, "hunter2"));
	assert_non_null(strstr(buf, "\"argv0\":\"make\""));
	/* Unsigned: fails. */
	assert_int_equal(write_report(report, &r, NULL), 0);
	assert_int_equal(verify(report, pubpath, &failed), 1);
	assert_string_equal(failed, "signed");
	attest_key_free(k);
}

/* Write text as the report and verify it. */
static int
verify_text(const char *text, const char **failed)
{
	FILE *f = fopen(report, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return verify(report, pubpath, failed);
}

static char *
signed_text(void)
{
	struct attest_report r;
	struct attest_sandbox sb;
	struct attest_key *k;
	char err[ATTEST_ERR_MAX], *text;
	json_error_t e;
	json_t *j;

	k = attest_key_read_private(keypath, err, sizeof(err));
	assert_non_null(k);
	sample(&r, &sb);
	assert_int_equal(write_report(report, &r, k), 0);
	attest_key_free(k);
	j = json_load_file(report, 0, &e);
	assert_non_null(j);
	text = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT);
	json_decref(j);
	assert_non_null(text);
	/* As written: the canonical form and a newline. */
	assert_non_null(text = realloc(text, strlen(text) + 2));
	strcat(text, "\n");
	return text;
}

/* Replace the first occurrence of from with to in s (a new string). */
static char *
replace(const char *s, const char *from, const char *to)
{
	const char *p = strstr(s, from);
	char *out;

	assert_non_null(p);
	assert_true(asprintf(&out, "%.*s%s%s", (int)(p - s), s, to,
	    p + strlen(from)) != -1);
	return out;
}

static void
refusals(void **state)
{
	static const struct {
		const char *from, *to, *check;
	} rows[] = {
		{ "\"deny\":3", "\"deny\":2", "signature" },
		{ "\"deny\":3", "\"deny\":3.0", "schema" },
		{ "\"argv0\":\"make\"", "\"argv0\":\"make \"", "signature" },
		{ "\"landlock_abi\":7", "\"landlock_abi\":6", "signature" },
		{ "\"seccomp\":true", "\"seccomp\":false", "signature" },
		{ "\"process_network_mode\":\"managed\"",
		  "\"process_network_mode\":\"unrestricted\"", "signature" },
		{ "\"process_network_mode\":\"managed\"",
		  "\"process_network_mode\":\"open\"", "schema" },
		{ "\"schema\":\"harn.egress.attestation.v1\"",
		  "\"schema\":\"harn.egress.attestation.v2\"", "schema" },
		{ "\"complete\":false", "\"complete\":false,\"extra\":1",
		  "signature" },
		/* A real where nothing else looks: still not canonical. */
		{ "\"complete\":false", "\"complete\":false,\"extra\":1.5",
		  "schema" },
		/* The same content spelled otherwise. */
		{ "\"records\":15", "\"records\": 15", "canonical" },
		{ "\"schema\"", "\"sch\\u0065ma\"", "canonical" },
		{ "\"records\":15", "\"records\":15,\"extra\":1",
		  "canonical" },
		/* A second "deny" that another reader might take. */
		{ "\"deny\":3", "\"deny\":3,\"deny\":0", "json" },
		{ "\"alg\":\"ed25519\"", "\"alg\":\"rsa\"", "signed" },
		{ "\"rules\":4", "\"rules\":\"4\"", "schema" },
		{ "\"run_id\":\"", "\"run_id\":\"0", "schema" },
		{ "{", "[", "json" },
	};
	const char *failed;
	char *good = signed_text(), *bad;
	size_t i;

	assert_int_equal(verify_text(good, &failed), 0);
	for (i = 0; i < NELEM(rows); i++) {
		bad = replace(good, rows[i].from, rows[i].to);
		if (verify_text(bad, &failed) != 1 ||
		    strcmp(failed, rows[i].check) != 0)
			fail_msg("row %zu (%s -> %s): failed %s, want %s", i,
			    rows[i].from, rows[i].to, failed ? failed : "none",
			    rows[i].check);
		free(bad);
	}
	/* Pretty-printed, the same content is refused: one spelling only. */
	{
		json_t *j = json_loads(good, 0, NULL);
		char *pretty = json_dumps(j, JSON_INDENT(3));

		assert_int_equal(verify_text(pretty, &failed), 1);
		assert_string_equal(failed, "canonical");
		free(pretty);
		json_decref(j);
	}
	/* Without its final newline. */
	good[strlen(good) - 1] = '\0';
	assert_int_equal(verify_text(good, &failed), 1);
	assert_string_equal(failed, "canonical");
	assert_int_equal(verify_text("", &failed), 1);
	assert_string_equal(failed, "json");
	assert_int_equal(verify_text("null", &failed), 1);
	assert_string_equal(failed, "json");
	assert_int_equal(verify_text("{}", &failed), 1);
	assert_string_equal(failed, "schema");
	free(good);
}

static void
out_errors(void **state)
{
	char err[ATTEST_ERR_MAX];

	assert_null(attest_out_open("/nonexistent/dir/r.json", err,
	    sizeof(err)));
	assert_null(attest_out_open(dir, err, sizeof(err)));
	assert_non_null(strstr(err, "directory"));
	assert_null(attest_out_open("/tmp/", err, sizeof(err)));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(canonical_form),
		cmocka_unit_test(base64_strict),
		cmocka_unit_test(hex_and_time),
		cmocka_unit_test(keygen_files),
		cmocka_unit_test(sign_and_verify),
		cmocka_unit_test(refusals),
		cmocka_unit_test(out_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
