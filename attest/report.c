/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The attestation report (SPEC 7): built from what the run recorded,
 * signed over its canonical form (or put in a signed in-toto envelope,
 * SPEC 7.1), and written atomically (a temporary file beside it, then a
 * rename) into a directory held open from the start.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "config.h"
#include "attest/attest.h"
#include "attest/dsse.h"
#include "attest/encode.h"
#include "attest/key.h"

struct attest_out {
	int	 dirfd;
	char	*name;
	char	*path;	/* as given: it must still lead to the report */
};

void
attest_run_id(char out[33])
{
	unsigned char b[16];
	size_t got = 0;
	ssize_t n;

	while (got < sizeof(b)) {
		n = getrandom(b + got, sizeof(b) - got, 0);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			abort();	/* no kernel randomness: nothing is safe */
		got += (size_t)n;
	}
	encode_hex(b, sizeof(b), out);
}

bool
attest_is_utf8(const char *s)
{
	json_t *j = json_string(s);

	json_decref(j);
	return j != NULL;
}

int
attest_argv_sha256(char *const *argv, unsigned char out[32])
{
	EVP_MD_CTX *ctx;
	unsigned n = 0;
	size_t i;
	int ok;

	if (OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, NULL) != 1 ||
	    (ctx = EVP_MD_CTX_new()) == NULL)
		return -1;
	ok = EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	for (i = 0; ok == 1 && argv[i] != NULL; i++)
		ok = EVP_DigestUpdate(ctx, argv[i], strlen(argv[i]) + 1);
	if (ok == 1)
		ok = EVP_DigestFinal_ex(ctx, out, &n);
	EVP_MD_CTX_free(ctx);
	return ok == 1 && n == 32 ? 0 : -1;
}

struct attest_out *
attest_out_open(const char *path, char *err, size_t errlen)
{
	struct attest_out *o;
	char *d = NULL, *b = NULL;
	struct stat st;

	if ((o = calloc(1, sizeof(*o))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	o->dirfd = -1;
	if ((d = strdup(path)) == NULL || (b = strdup(path)) == NULL ||
	    (o->name = strdup(basename(b))) == NULL ||
	    (o->path = strdup(path)) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (path[0] == '\0' || path[strlen(path) - 1] == '/' ||
	    strcmp(o->name, ".") == 0 || strcmp(o->name, "..") == 0) {
		snprintf(err, errlen, "--attest %s: not a file name", path);
		goto fail;
	}
	/* Room for the temporary name: ".NAME.<12 hex>.tmp". */
	if (strlen(o->name) + 18 > NAME_MAX) {
		snprintf(err, errlen, "--attest %s: name too long", path);
		goto fail;
	}
	if ((o->dirfd = open(dirname(d), O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1 || faccessat(o->dirfd, ".", W_OK | X_OK,
	    AT_EACCESS) == -1) {
		snprintf(err, errlen, "--attest %s: %s", path, strerror(errno));
		goto fail;
	}
	if (fstatat(o->dirfd, o->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--attest %s: is a directory", path);
		goto fail;
	}
	free(d);
	free(b);
	return o;
fail:
	free(d);
	free(b);
	attest_out_free(o);
	return NULL;
}

void
attest_out_free(struct attest_out *o)
{
	if (o == NULL)
		return;
	if (o->dirfd != -1)
		close(o->dirfd);
	free(o->name);
	free(o->path);
	free(o);
}

static json_t *
hex_string(const unsigned char *b, size_t n)
{
	char hex[129];

	encode_hex(b, n, hex);
	return json_string(hex);
}

static json_t *
time_string(int64_t ms)
{
	char t[32];

	encode_time(ms, t);
	return json_string(t);
}

/* Counts are integers in JSON; one past INT64_MAX is not reachable. */
static json_t *
count(uint64_t n)
{
	return json_integer(n > INT64_MAX ? INT64_MAX : (json_int_t)n);
}

static json_t *
command_json(char *const *argv)
{
	unsigned char sha[32];

	if (argv == NULL)
		return json_null();
	if (attest_argv_sha256(argv, sha) == -1)
		return NULL;
	return json_pack("{s:s, s:o}", "argv0", argv[0], "argv_sha256",
	    hex_string(sha, sizeof(sha)));
}

static json_t *
policy_json(const struct attest_policy *p)
{
	return json_pack("{s:s, s:o, s:s, s:b, s:b, s:s, s:o, s:o, s:s?, s:s}",
	    "source", p->source, "sha256", hex_string(p->sha256, 32),
	    "default", p->default_allow ? "allow" : "deny",
	    "block_private", p->block_private,
	    "allow_loopback", p->allow_loopback,
	    "mode", p->report ? "report" : "enforce",
	    "rules", count(p->rules), "reloads", count(p->reloads),
	    "upstream", p->upstream[0] != '\0' ? p->upstream : NULL,
	    "upstream_resolve", p->upstream_parent ? "parent" : "local");
}

static json_t *
sandbox_json(const struct attest_sandbox *s)
{
	json_t *ns;
	size_t i;

	if (s == NULL)
		return json_null();
	if ((ns = json_array()) == NULL)
		return NULL;
	for (i = 0; i < 8 && s->namespaces[i] != NULL; i++)
		json_array_append_new(ns, json_string(s->namespaces[i]));
	return json_pack("{s:s, s:s, s:s?, s:s, s:i, s:b, s:o}", "backend",
	    "linux", "profile", s->profile, "confinement", s->confinement,
	    "process_network_mode", s->network_mode,
	    "landlock_abi", s->landlock_abi, "seccomp", s->seccomp,
	    "namespaces", ns);
}

static json_t *
decisions_json(const struct attest_report *r)
{
	json_t *by;
	int i;

	if ((by = json_object()) == NULL)
		return NULL;
	for (i = EGRESS_R_NONE + 1; i < EGRESS_R_COUNT; i++)
		if (r->by_reason[i] > 0)
			json_object_set_new(by, egress_reason_name(i),
			    count(r->by_reason[i]));
	return json_pack("{s:o, s:o, s:o}", "allow", count(r->allow), "deny",
	    count(r->deny), "by_reason", by);
}

static json_t *
log_json(const struct attest_log *l)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:b}", "sha256",
	    hex_string(l->sha256, 32), "records", count(l->records), "bytes",
	    count(l->bytes), "lost", count(l->lost), "offset",
	    l->offset >= 0 ? json_integer(l->offset) : json_null(),
	    "complete", l->complete);
}

static json_t *
exit_json(const struct attest_report *r)
{
	if (!r->exited)
		return json_null();
	return json_pack("{s:i, s:o}", "code", r->exit_code, "signal",
	    r->exit_signal ? json_integer(r->exit_signal) : json_null());
}

static json_t *
report_json(const struct attest_report *r)
{
	struct utsname u;
	json_t *listen;
	size_t i;

	if (uname(&u) == -1 || (listen = json_array()) == NULL)
		return NULL;
	for (i = 0; i < r->nlisten; i++)
		json_array_append_new(listen, json_string(r->listen[i]));
	return json_pack("{s:s, s:s, s:o, s:o, s:{s:s, s:s}, s:{s:s, s:s}, "
	    "s:o, s:o, s:o, s:{s:o}, s:o, s:o, s:o}",
	    "schema", ATTEST_SCHEMA, "run_id", r->run_id,
	    "started_at", time_string(r->started_ms),
	    "ended_at", time_string(r->ended_ms),
	    "tool", "name", PACKAGE_NAME, "version", PACKAGE_VERSION,
	    "host", "kernel", u.release, "arch", u.machine,
	    "command", command_json(r->argv),
	    "policy", policy_json(&r->policy),
	    "sandbox", sandbox_json(r->sandbox),
	    "proxy", "listen", listen,
	    "decisions", decisions_json(r),
	    "log", log_json(&r->log),
	    "exit", exit_json(r));
}

/* Sign the canonical form of the report (SPEC 7) and add the signature. */
static int
sign(json_t *report, const struct attest_key *k, char *err, size_t errlen)
{
	unsigned char sig[64];
	char id[65], *msg, *b64 = NULL;
	json_t *s;
	int rv = -1;

	if ((msg = encode_signed_bytes(report)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (key_id(k, id) == -1 || key_sign(k, msg, strlen(msg), sig) == -1 ||
	    (b64 = encode_base64(sig, sizeof(sig))) == NULL) {
		snprintf(err, errlen, "cannot sign the report");
		goto out;
	}
	s = json_pack("{s:s, s:s, s:s}", "alg", "ed25519", "key_id", id,
	    "value", b64);
	if (s == NULL || json_object_set_new(report, "signature", s) == -1) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	rv = 0;
out:
	free(msg);
	free(b64);
	return rv;
}

static int
write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		if ((n = write(fd, buf, len)) == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* A new temporary file beside the report: a random name, never followed. */
static int
open_temp(struct attest_out *o, char *tmp, size_t len)
{
	char rnd[33];
	int fd, tries;

	for (tries = 0; tries < 8; tries++) {
		attest_run_id(rnd);
		snprintf(tmp, len, ".%s.%.12s.tmp", o->name, rnd);
		fd = openat(o->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd != -1 || errno != EEXIST)
			return fd;
	}
	return -1;
}

/* The report in its format, as the file's text (without its newline). */
static char *
report_text(const struct attest_report *r, const struct attest_key *k,
    char *err, size_t errlen)
{
	json_t *j, *st;
	char *text = NULL, *payload;

	if ((j = report_json(r)) == NULL) {
		snprintf(err, errlen, "cannot build the report");
		return NULL;
	}
	if (r->format == ATTEST_JSON) {
		if ((k == NULL || sign(j, k, err, errlen) == 0) &&
		    (text = encode_canonical(j)) == NULL)
			snprintf(err, errlen, "out of memory");
		json_decref(j);
		return text;
	}
	if (k == NULL) {
		snprintf(err, errlen, "an envelope needs a signing key");
		json_decref(j);
		return NULL;
	}
	if ((st = dsse_statement(j, r->subjects, r->nsubjects)) == NULL ||
	    (payload = encode_canonical(st)) == NULL) {
		snprintf(err, errlen, "cannot build the statement");
		json_decref(st);
		return NULL;
	}
	text = dsse_envelope(payload, k, err, errlen);
	free(payload);
	json_decref(st);
	return text;
}

int
attest_write(struct attest_out *o, const struct attest_report *r,
    const struct attest_key *k, char *err, size_t errlen)
{
	char tmp[4200], *text;
	struct stat st, at;
	int fd, rv = -1;

	if ((text = report_text(r, k, err, errlen)) == NULL)
		return -1;
	if ((fd = open_temp(o, tmp, sizeof(tmp))) == -1) {
		snprintf(err, errlen, "%s: %s", o->name, strerror(errno));
		goto out;
	}
	if (write_all(fd, text, strlen(text)) == -1 ||
	    write_all(fd, "\n", 1) == -1 || fsync(fd) == -1 ||
	    fstat(fd, &st) == -1) {
		snprintf(err, errlen, "%s: %s", o->name, strerror(errno));
		close(fd);
		unlinkat(o->dirfd, tmp, 0);
		goto out;
	}
	if (close(fd) == -1 ||
	    renameat(o->dirfd, tmp, o->dirfd, o->name) == -1) {
		snprintf(err, errlen, "%s: %s", o->name, strerror(errno));
		unlinkat(o->dirfd, tmp, 0);
		goto out;
	}
	(void)fsync(o->dirfd);
	/*
	 * The directory held open may have been moved (by the confined
	 * command, say) and another put in its place: then the path given
	 * leads elsewhere, maybe to an older report, and the caller is told.
	 */
	if (stat(o->path, &at) == -1 || at.st_dev != st.st_dev ||
	    at.st_ino != st.st_ino) {
		snprintf(err, errlen, "%s: the report's directory was moved or "
		    "replaced during the run; the path no longer leads to "
		    "this report", o->path);
		goto out;
	}
	rv = 0;
out:
	free(text);
	return rv;
}
