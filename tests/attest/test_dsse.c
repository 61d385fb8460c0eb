/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_dsse: the in-toto form of the report (SPEC 7.1).  DSSE's PAE byte
 * for byte, base64 in either alphabet, subjects refused in the statement
 * (how one is taken: test_subject.c), an envelope written and verified,
 * and every envelope that is not the key owner's statement refused by
 * the check that should catch it: payload, signature and key id altered,
 * and statements the key did sign (the test holds it) that are not what
 * harn-egressd writes.
 */
#include <errno.h>
#include <fcntl.h>
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
#include "attest/dsse.h"
#include "attest/encode.h"
#include "attest/key.h"

#define NELEM(t)	(sizeof(t) / sizeof((t)[0]))

static char dir[] = "/tmp/test_dsse.XXXXXX";
static char keypath[256], pubpath[256], otherpub[256], envpath[256];
static char out1[256], out2[256], out3[256];

/* ---------------------------------------------------------------- */
/* PAE and base64. */

static void
pae_bytes(void **state)
{
	static const struct {
		const char	*type;
		const char	*body;
		size_t		 len;
		const char	*want;
		size_t		 wantlen;
	} rows[] = {
		/* DSSE's protocol.md test vector. */
		{ "http://example.com/HelloWorld", "hello world", 11,
		  "DSSEv1 29 http://example.com/HelloWorld 11 hello world",
		  54 },
		{ "", "", 0, "DSSEv1 0  0 ", 12 },
		/* Lengths count bytes: a NUL and a space in the body. */
		{ "t", "a\0 b", 4, "DSSEv1 1 t 4 a\0 b", 17 },
		/* A multi-byte character is two bytes of the type. */
		{ "\xc3\xa9", "{}", 2, "DSSEv1 2 \xc3\xa9 2 {}", 16 },
		{ ATTEST_DSSE_PAYLOAD_TYPE, "0123456789", 10,
		  "DSSEv1 28 application/vnd.in-toto+json 10 0123456789", 52 },
	};
	unsigned char *got;
	size_t i, len;

	for (i = 0; i < NELEM(rows); i++) {
		got = dsse_pae(rows[i].type, (const unsigned char *)rows[i].body,
		    rows[i].len, &len);
		assert_non_null(got);
		if (len != rows[i].wantlen ||
		    memcmp(got, rows[i].want, len) != 0)
			fail_msg("row %zu: %zu bytes, want %zu", i, len,
			    rows[i].wantlen);
		free(got);
	}
}

static void
base64_either_alphabet(void **state)
{
	static const struct {
		const char	*in;
		const char	*want;	/* NULL: refused */
		size_t		 len;
	} rows[] = {
		{ "aGVsbG8gd29ybGQ=", "hello world", 11 },
		{ "aGVsbG8gd29ybGQ", "hello world", 11 },	/* unpadded */
		{ "", "", 0 },
		{ "-_8=", "\xfb\xff", 2 },			/* URL-safe */
		{ "+/8=", "\xfb\xff", 2 },			/* standard */
		{ "+/8", "\xfb\xff", 2 },
		{ "+/9=", NULL, 0 },		/* unused bits set */
		{ "aGVsbG8=gd29y", NULL, 0 },	/* padding inside */
		{ "aGVsbG8gd29ybGQ==", NULL, 0 },	/* too much padding */
		{ "aGVsb", NULL, 0 },		/* one character over */
		{ "aGVs bG8=", NULL, 0 },	/* a space */
		{ "aGVs\nbG8=", NULL, 0 },
		{ "aGVs*G8=", NULL, 0 },
		{ "=", NULL, 0 },
	};
	unsigned char *got;
	size_t i, len;

	for (i = 0; i < NELEM(rows); i++) {
		got = encode_base64_decode_any(rows[i].in, &len);
		if (rows[i].want == NULL) {
			if (got != NULL)
				fail_msg("row %zu (%s): accepted", i,
				    rows[i].in);
			continue;
		}
		if (got == NULL || len != rows[i].len ||
		    memcmp(got, rows[i].want, len) != 0)
			fail_msg("row %zu (%s): wrong bytes", i, rows[i].in);
		free(got);
	}
}

/* ---------------------------------------------------------------- */
/* Files. (How a subject is taken: test_subject.c.) */

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* ---------------------------------------------------------------- */
/* Writing and verifying envelopes. */

static void
sample(struct attest_report *r, struct attest_sandbox *sb,
    struct attest_subject *subj, size_t n)
{
	static char *argv[] = { "make", "SECRET=hunter2", NULL };
	const struct attest_take how = { .max = UINT64_MAX };
	size_t i;

	memset(r, 0, sizeof(*r));
	memset(sb, 0, sizeof(*sb));
	attest_run_id(r->run_id);
	r->started_ms = 1796215800123LL;
	r->ended_ms = r->started_ms + 1500;
	r->argv = argv;
	snprintf(r->policy.source, sizeof(r->policy.source), "/etc/egress.conf");
	r->policy.rules = 4;
	sb->profile = "worktree";
	sb->network_mode = "managed";
	sb->seccomp = true;
	r->sandbox = sb;
	snprintf(r->listen[0], sizeof(r->listen[0]), "127.0.0.1:41234");
	r->nlisten = 1;
	r->allow = 12;
	r->by_reason[EGRESS_R_ALLOW_RULE] = 12;
	r->log.offset = -1;
	r->log.complete = true;
	attest_sha256("", 0, r->log.sha256);
	r->exited = true;
	r->format = ATTEST_DSSE;
	for (i = 0; i < n; i++)
		(void)attest_subject_take(&subj[i], AT_FDCWD, subj[i].name,
		    &how);
	r->subjects = subj;
	r->nsubjects = n;
}

static struct attest_key *
private_key(void)
{
	struct attest_key *k;
	char err[ATTEST_ERR_MAX];

	k = attest_key_read_private(keypath, err, sizeof(err));
	if (k == NULL)
		fail_msg("%s", err);
	return k;
}

static int
write_envelope(const struct attest_report *r, const struct attest_key *k)
{
	struct attest_out *o;
	char err[ATTEST_ERR_MAX];
	int rv;

	if ((o = attest_out_open(envpath, err, sizeof(err))) == NULL)
		fail_msg("%s", err);
	rv = attest_write(o, r, k, err, sizeof(err));
	attest_out_free(o);
	return rv;
}

/* Verify text with pub and the files c names; *failed as verify says. */
static int
verify_with(const char *text, const char *pub, struct attest_check *c,
    const char **failed)
{
	struct attest_key *k;
	char why[ATTEST_ERR_MAX];
	int rv;

	if ((k = attest_key_read_public(pub, why, sizeof(why))) == NULL)
		fail_msg("%s", why);
	rv = attest_verify(text, strlen(text), k, c, failed, why,
	    sizeof(why));
	attest_key_free(k);
	return rv;
}

static int
verify_text(const char *text, const char **failed)
{
	struct attest_check c = { NULL };

	return verify_with(text, pubpath, &c, failed);
}

static char *
read_text(const char *path)
{
	json_error_t e;
	json_t *j;
	char *text;
	FILE *f;
	long n;

	/* The file is the envelope's canonical form and a newline. */
	assert_non_null(f = fopen(path, "r"));
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	rewind(f);
	assert_non_null(text = calloc(1, (size_t)n + 1));
	assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	assert_true(n > 0 && text[n - 1] == '\n');
	assert_non_null(j = json_loads(text, 0, &e));
	{
		char *canon = encode_canonical(j);

		assert_non_null(canon);
		assert_int_equal(strlen(canon) + 1, (size_t)n);
		assert_memory_equal(canon, text, (size_t)n - 1);
		free(canon);
	}
	json_decref(j);
	return text;
}

/* The statement an envelope carries. */
static json_t *
statement_of(const char *text)
{
	unsigned char *payload;
	json_t *env, *st;
	size_t len;

	assert_non_null(env = json_loads(text, 0, NULL));
	payload = encode_base64_decode_any(json_string_value(
	    json_object_get(env, "payload")), &len);
	assert_non_null(payload);
	st = json_loadb((const char *)payload, len, 0, NULL);
	assert_non_null(st);
	free(payload);
	json_decref(env);
	return st;
}

static void
round_trip(void **state)
{
	struct attest_subject subj[2] = { { .name = out1 }, { .name = out2 } };
	const char *files[] = { out1, out2 };
	struct attest_check c = { .subjects = files, .nsubjects = 2 };
	struct attest_report r;
	struct attest_sandbox sb;
	struct attest_key *k = private_key();
	const char *failed;
	char *text, id[65];
	json_t *st, *s;

	sample(&r, &sb, subj, 2);
	assert_int_equal(write_envelope(&r, k), 0);
	text = read_text(envpath);
	assert_int_equal(verify_with(text, pubpath, &c, &failed), 0);
	assert_null(failed);
	assert_int_equal(c.form, ATTEST_DSSE);
	/* The envelope and its statement, member by member. */
	assert_int_equal(key_id(k, id), 0);
	assert_non_null(strstr(text, "\"payloadType\":\"application/vnd."
	    "in-toto+json\""));
	assert_non_null(strstr(text, id));
	assert_null(strstr(text, "hunter2"));
	st = statement_of(text);
	assert_string_equal(json_string_value(json_object_get(st, "_type")),
	    "https://in-toto.io/Statement/v1");
	assert_string_equal(json_string_value(json_object_get(st,
	    "predicateType")), ATTEST_PREDICATE_TYPE);
	assert_int_equal(json_array_size(json_object_get(st, "subject")), 2);
	s = json_array_get(json_object_get(st, "subject"), 0);
	assert_string_equal(json_string_value(json_object_get(s, "name")),
	    out1);
	assert_string_equal(json_string_value(json_object_get(json_object_get(
	    s, "digest"), "sha256")), "5891b5b522d5df086d0ff0b110fbd9d21bb4fc"
	    "7163af34d08286a2e846f6be03");
	s = json_object_get(st, "predicate");
	assert_string_equal(json_string_value(json_object_get(s, "schema")),
	    ATTEST_SCHEMA);
	assert_null(json_object_get(s, "signature"));
	assert_int_equal(json_array_size(json_object_get(s,
	    "subjects_refused")), 0);
	json_decref(st);
	/* Another key's public half. */
	assert_int_equal(verify_with(text, otherpub, &c, &failed), 1);
	assert_string_equal(failed, "key_id");
	/* No key: no envelope (it would not be one). */
	assert_int_equal(write_envelope(&r, NULL), -1);
	free(text);
	attest_key_free(k);
}

/* A signed envelope's text, written by harn-egressd's code. */
static char *
good_envelope(void)
{
	struct attest_subject subj[2] = { { .name = out1 }, { .name = out2 } };
	struct attest_report r;
	struct attest_sandbox sb;
	struct attest_key *k = private_key();

	sample(&r, &sb, subj, 2);
	assert_int_equal(write_envelope(&r, k), 0);
	attest_key_free(k);
	return read_text(envpath);
}

/* An envelope of payload, signed with the test key. */
static char *
envelope_of(const char *payload, size_t len, const char *keyid)
{
	struct attest_key *k = private_key();
	unsigned char sig[64], *pae;
	char id[65], *b64p, *b64s, *text;
	size_t paelen;
	json_t *env;

	pae = dsse_pae(ATTEST_DSSE_PAYLOAD_TYPE,
	    (const unsigned char *)payload, len, &paelen);
	assert_non_null(pae);
	assert_int_equal(key_sign(k, pae, paelen, sig), 0);
	assert_int_equal(key_id(k, id), 0);
	b64p = encode_base64((const unsigned char *)payload, len);
	b64s = encode_base64(sig, 64);
	env = json_pack("{s:s, s:s, s:[{s:s, s:s}]}", "payloadType",
	    ATTEST_DSSE_PAYLOAD_TYPE, "payload", b64p, "signatures", "keyid",
	    keyid != NULL ? keyid : id, "sig", b64s);
	assert_non_null(env);
	text = json_dumps(env, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(env);
	free(pae);
	free(b64p);
	free(b64s);
	attest_key_free(k);
	return text;
}

/* The good envelope's statement changed by edit, signed again. */
static char *
resigned(void (*edit)(json_t *st))
{
	char *good = good_envelope(), *payload, *text;
	json_t *st = statement_of(good);

	edit(st);
	payload = json_dumps(st, JSON_COMPACT | JSON_SORT_KEYS);
	assert_non_null(payload);
	text = envelope_of(payload, strlen(payload), NULL);
	free(payload);
	json_decref(st);
	free(good);
	return text;
}

static json_t *
predicate(json_t *st)
{
	return json_object_get(st, "predicate");
}

static void
edit_none(json_t *st)
{
}

static void
edit_type(json_t *st)
{
	json_object_set_new(st, "_type", json_string(
	    "https://in-toto.io/Statement/v0.1"));
}

static void
edit_predicate_type(json_t *st)
{
	json_object_set_new(st, "predicateType", json_string(
	    "https://slsa.dev/provenance/v1"));
}

static void
edit_no_subject(json_t *st)
{
	json_array_clear(json_object_get(st, "subject"));
}

static void
edit_subject_digest(json_t *st)
{
	json_object_set_new(json_object_get(json_array_get(json_object_get(st,
	    "subject"), 0), "digest"), "sha256", json_string("00"));
}

static void
edit_refused(json_t *st)
{
	json_array_append_new(json_object_get(predicate(st),
	    "subjects_refused"), json_pack("{s:s, s:s}", "name", "dist/x",
	    "reason", ATTEST_REFUSED_NOT_FOUND));
}

/* An earlier build's name for the list: a subject in it fails too. */
static void
edit_unread(json_t *st)
{
	json_object_del(predicate(st), "subjects_refused");
	json_object_set_new(predicate(st), "unread_subjects", json_pack(
	    "[{s:s, s:s}]", "name", "dist/x", "reason", "missing"));
}

static void
edit_schema(json_t *st)
{
	json_object_set_new(predicate(st), "schema", json_string(
	    "harn.egress.attestation.v0"));
}

static void
edit_signature_inside(json_t *st)
{
	json_object_set_new(predicate(st), "signature", json_pack(
	    "{s:s}", "alg", "ed25519"));
}

static void
edit_real(json_t *st)
{
	json_object_set_new(predicate(st), "extra", json_real(1.5));
}

static void
edit_not_object(json_t *st)
{
	json_object_set_new(st, "predicate", json_string("report"));
}

/* What the key signed but harn-egressd would not write: refused. */
static void
signed_but_wrong(void **state)
{
	static const struct {
		void		(*edit)(json_t *);
		const char	*check;
	} rows[] = {
		{ edit_type, "statement" },
		{ edit_predicate_type, "statement" },
		{ edit_subject_digest, "statement" },
		{ edit_not_object, "statement" },
		{ edit_schema, "schema" },
		{ edit_signature_inside, "schema" },
		{ edit_real, "schema" },
		{ edit_no_subject, "subjects" },
		{ edit_refused, "subjects" },
		{ edit_unread, "subjects" },
	};
	const char *failed;
	char *text;
	size_t i;

	/* The control: signed again unchanged, it verifies. */
	text = resigned(edit_none);
	assert_int_equal(verify_text(text, &failed), 0);
	free(text);
	for (i = 0; i < NELEM(rows); i++) {
		text = resigned(rows[i].edit);
		if (verify_text(text, &failed) != 1 ||
		    strcmp(failed, rows[i].check) != 0)
			fail_msg("row %zu: failed %s, want %s", i,
			    failed ? failed : "none", rows[i].check);
		free(text);
	}
	/* Signed, but not the one spelling: pretty, or a duplicate key. */
	{
		char *good = good_envelope(), *pretty;
		json_t *st = statement_of(good);

		pretty = json_dumps(st, JSON_INDENT(1) | JSON_SORT_KEYS);
		text = envelope_of(pretty, strlen(pretty), NULL);
		assert_int_equal(verify_text(text, &failed), 1);
		assert_string_equal(failed, "canonical");
		free(text);
		free(pretty);
		json_decref(st);
		free(good);
	}
	text = envelope_of("{\"_type\":\"a\",\"_type\":\"b\"}", 26, NULL);
	assert_int_equal(verify_text(text, &failed), 1);
	assert_string_equal(failed, "statement");
	free(text);
	text = envelope_of("not json", 8, NULL);
	assert_int_equal(verify_text(text, &failed), 1);
	assert_string_equal(failed, "statement");
	free(text);
	/* Signed with our key under another key's id. */
	text = envelope_of("{}", 2, "0000000000000000000000000000000000000000"
	    "000000000000000000000000");
	assert_int_equal(verify_text(text, &failed), 1);
	assert_string_equal(failed, "key_id");
	free(text);
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

/* The value of member key ("payload", "sig", "keyid") in text. */
static char *
member(const char *text, const char *key)
{
	char pat[32];
	const char *p, *q;

	snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	assert_non_null(p = strstr(text, pat));
	p += strlen(pat);
	assert_non_null(q = strchr(p, '"'));
	return strndup(p, (size_t)(q - p));
}

/* One character of a base64 value changed to another that decodes. */
static char *
flip(const char *b64, size_t at)
{
	char *s = strdup(b64);

	s[at] = s[at] == 'A' ? 'B' : 'A';
	return s;
}

static void
tampered(void **state)
{
	char *good = good_envelope(), *payload = member(good, "payload");
	char *sig = member(good, "sig"), *kid = member(good, "keyid");
	char *bad, *val;
	const char *failed;
	unsigned char *raw;
	size_t len;
	json_t *env;

	assert_int_equal(verify_text(good, &failed), 0);
	/* The payload: one byte of the statement changed. */
	assert_non_null(raw = encode_base64_decode_any(payload, &len));
	{
		char *p = strstr((char *)raw, "\"allow\":12");
		char *b64;

		assert_non_null(p);
		p[9] = '3';
		b64 = encode_base64(raw, len);
		bad = replace(good, payload, b64);
		free(b64);
	}
	free(raw);
	assert_int_equal(verify_text(bad, &failed), 1);
	assert_string_equal(failed, "signature");
	free(bad);
	/* The payload's base64, one character. */
	val = flip(payload, 40);
	bad = replace(good, payload, val);
	assert_int_equal(verify_text(bad, &failed), 1);
	assert_string_equal(failed, "signature");
	free(bad);
	free(val);
	/* The signature. */
	val = flip(sig, 10);
	bad = replace(good, sig, val);
	assert_int_equal(verify_text(bad, &failed), 1);
	assert_string_equal(failed, "signature");
	free(bad);
	free(val);
	bad = replace(good, sig, "AAAA");
	assert_int_equal(verify_text(bad, &failed), 1);
	assert_string_equal(failed, "signed");
	free(bad);
	/* The key id. */
	val = strdup(kid);
	val[0] = val[0] == 'a' ? 'b' : 'a';
	bad = replace(good, kid, val);
	assert_int_equal(verify_text(bad, &failed), 1);
	assert_string_equal(failed, "key_id");
	free(bad);
	free(val);
	/* The envelope's shape. */
	bad = replace(good, "application/vnd.in-toto+json",
	    "application/json");
	assert_int_equal(verify_text(bad, &failed), 1);
	assert_string_equal(failed, "envelope");
	free(bad);
	bad = replace(good, payload, "not base64!");
	assert_int_equal(verify_text(bad, &failed), 1);
	assert_string_equal(failed, "envelope");
	free(bad);
	assert_non_null(env = json_loads(good, 0, NULL));
	json_array_clear(json_object_get(env, "signatures"));
	bad = json_dumps(env, JSON_COMPACT);
	assert_int_equal(verify_text(bad, &failed), 1);
	assert_string_equal(failed, "signed");
	free(bad);
	json_object_set_new(env, "signatures", json_string("x"));
	bad = json_dumps(env, JSON_COMPACT);
	assert_int_equal(verify_text(bad, &failed), 1);
	assert_string_equal(failed, "envelope");
	free(bad);
	json_decref(env);
	/* A second "payload" another reader might take. */
	bad = replace(good, "\"payloadType\"", "\"payload\":\"e30=\","
	    "\"payloadType\"");
	assert_int_equal(verify_text(bad, &failed), 1);
	assert_string_equal(failed, "json");
	free(bad);
	free(good);
	free(payload);
	free(sig);
	free(kid);
}

/* The envelope as another tool may store it: still the same statement. */
static void
respelled(void **state)
{
	char *good = good_envelope(), *payload = member(good, "payload");
	char *text, *url;
	const char *failed;
	json_t *env;
	size_t i;

	assert_non_null(env = json_loads(good, 0, NULL));
	json_object_set_new(env, "extra", json_string("ignored"));
	json_object_set_new(json_array_get(json_object_get(env, "signatures"),
	    0), "cert", json_null());
	text = json_dumps(env, JSON_INDENT(2));
	assert_int_equal(verify_text(text, &failed), 0);
	free(text);
	/* Its payload in the URL-safe alphabet, without padding. */
	url = strdup(payload);
	for (i = 0; url[i] != '\0'; i++)
		if (url[i] == '+' || url[i] == '/')
			url[i] = url[i] == '+' ? '-' : '_';
	url[strcspn(url, "=")] = '\0';
	json_object_set_new(env, "payload", json_string(url));
	text = json_dumps(env, JSON_COMPACT);
	assert_int_equal(verify_text(text, &failed), 0);
	free(text);
	free(url);
	/* Another signer beside ours, before it. */
	json_array_insert_new(json_object_get(env, "signatures"), 0,
	    json_pack("{s:s, s:s}", "keyid", "someone", "sig", "AAAA"));
	text = json_dumps(env, JSON_COMPACT);
	assert_int_equal(verify_text(text, &failed), 0);
	free(text);
	json_decref(env);
	free(payload);
	free(good);
}

/* verify --subject: a file by the statement's name, or its last part. */
static void
subject_files(void **state)
{
	static const struct {
		const char	*files[2];
		size_t		 n;
		int		 rv;
		const char	*check;	/* NULL: holds */
	} rows[] = {
		{ { out1 }, 1, 0, NULL },
		{ { out1, out2 }, 2, 0, NULL },
		{ { "elsewhere/out1.bin" }, 1, -1, "subjects" }, /* no file */
		{ { out3 }, 1, 1, "subjects" },		/* not listed */
		{ { "/nonexistent/out1.bin" }, 1, -1, "subjects" },
	};
	char *good = good_envelope(), copy[300], cmd[700];
	const char *failed;
	size_t i;

	for (i = 0; i < NELEM(rows); i++) {
		struct attest_check c = { .subjects = rows[i].files,
		    .nsubjects = rows[i].n };
		int rv = verify_with(good, pubpath, &c, &failed);

		if (rv != rows[i].rv || (rows[i].check == NULL ?
		    failed != NULL : failed == NULL ||
		    strcmp(failed, rows[i].check) != 0))
			fail_msg("row %zu: %d %s, want %d %s", i, rv,
			    failed ? failed : "none", rows[i].rv,
			    rows[i].check ? rows[i].check : "none");
	}
	/* A verifier's copy elsewhere, found by its last part. */
	snprintf(copy, sizeof(copy), "%s/copy", dir);
	assert_int_equal(mkdir(copy, 0700), 0);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s/'", out1, copy);
	assert_int_equal(system(cmd), 0);
	snprintf(copy, sizeof(copy), "%s/copy/out1.bin", dir);
	{
		const char *files[] = { copy };
		struct attest_check c = { .subjects = files, .nsubjects = 1 };

		assert_int_equal(verify_with(good, pubpath, &c, &failed), 0);
		/* Changed since: its digest is not the statement's. */
		write_file(copy, "hello!\n");
		assert_int_equal(verify_with(good, pubpath, &c, &failed), 1);
		assert_string_equal(failed, "subject_sha256");
	}
	/* A JSON report has no subjects to check against. */
	{
		struct attest_subject none[1];
		struct attest_report r;
		struct attest_sandbox sb;
		struct attest_key *k = private_key();
		const char *files[] = { out1 };
		struct attest_check c = { .subjects = files, .nsubjects = 1 };
		char *text;

		sample(&r, &sb, none, 0);
		r.format = ATTEST_JSON;
		assert_int_equal(write_envelope(&r, k), 0);
		text = read_text(envpath);
		assert_int_equal(verify_with(text, pubpath, &c, &failed), 1);
		assert_string_equal(failed, "subjects");
		assert_int_equal(c.form, ATTEST_JSON);
		c.nsubjects = 0;
		assert_int_equal(verify_with(text, pubpath, &c, &failed), 0);
		free(text);
		attest_key_free(k);
	}
	free(good);
}

/* A subject refused: listed as such, and verify fails the statement. */
static void
refused_subject(void **state)
{
	char missing[300];
	struct attest_subject subj[2] = { { .name = out1 },
	    { .name = missing } };
	struct attest_report r;
	struct attest_sandbox sb;
	struct attest_key *k = private_key();
	const char *failed;
	json_t *st, *u;
	char *text;

	snprintf(missing, sizeof(missing), "%s/dist/never-built", dir);
	sample(&r, &sb, subj, 2);
	assert_string_equal(subj[1].refused, ATTEST_REFUSED_NOT_FOUND);
	assert_int_equal(write_envelope(&r, k), 0);
	text = read_text(envpath);
	st = statement_of(text);
	assert_int_equal(json_array_size(json_object_get(st, "subject")), 1);
	u = json_array_get(json_object_get(predicate(st), "subjects_refused"),
	    0);
	assert_string_equal(json_string_value(json_object_get(u, "name")),
	    missing);
	assert_string_equal(json_string_value(json_object_get(u, "reason")),
	    "not_found");
	assert_int_equal(verify_text(text, &failed), 1);
	assert_string_equal(failed, "subjects");
	json_decref(st);
	free(text);
	/* None taken: an envelope with no subject, which verify fails too. */
	subj[0].name = missing;
	sample(&r, &sb, subj, 2);
	assert_int_equal(write_envelope(&r, k), 0);
	text = read_text(envpath);
	assert_int_equal(verify_text(text, &failed), 1);
	assert_string_equal(failed, "subjects");
	free(text);
	attest_key_free(k);
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
	snprintf(envpath, sizeof(envpath), "%s/report.dsse.json", dir);
	snprintf(out1, sizeof(out1), "%s/out1.bin", dir);
	snprintf(out2, sizeof(out2), "%s/out2.bin", dir);
	snprintf(out3, sizeof(out3), "%s/out3.bin", dir);
	if (attest_keygen(keypath, err, sizeof(err)) == -1 ||
	    attest_keygen(other, err, sizeof(err)) == -1) {
		fprintf(stderr, "keygen: %s\n", err);
		return -1;
	}
	write_file(out1, "hello\n");
	write_file(out2, "second output\n");
	write_file(out3, "not a subject\n");
	return 0;
}

static int
teardown(void **state)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pae_bytes),
		cmocka_unit_test(base64_either_alphabet),
		cmocka_unit_test(round_trip),
		cmocka_unit_test(signed_but_wrong),
		cmocka_unit_test(tampered),
		cmocka_unit_test(respelled),
		cmocka_unit_test(subject_files),
		cmocka_unit_test(refused_subject),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
