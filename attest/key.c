/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Ed25519 keys: reading PEM files, making a key pair, signing and checking
 * signatures, and the key id (SHA-256 of the raw public key).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "attest/attest.h"
#include "attest/encode.h"
#include "attest/key.h"

struct attest_key {
	EVP_PKEY	*pkey;
};

/* The reason of OpenSSL's last error, or a fallback; clears the queue. */
static const char *
ssl_reason(const char *fallback)
{
	unsigned long e = ERR_peek_last_error();
	const char *r = e ? ERR_reason_error_string(e) : NULL;

	ERR_clear_error();
	return r != NULL ? r : fallback;
}

/* Encrypted keys are refused rather than prompted for. */
static int
no_passphrase(char *buf, int size, int rwflag, void *arg)
{
	*(int *)arg = 1;
	return -1;
}

static struct attest_key *
key_read(const char *path, bool private, char *err, size_t errlen)
{
	struct attest_key *k;
	struct stat st = { 0 };
	EVP_PKEY *pkey;
	int encrypted = 0;
	FILE *f;

	if (OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, NULL) != 1) {
		snprintf(err, errlen, "%s: OpenSSL failed to start", path);
		return NULL;
	}
	if ((f = fopen(path, "re")) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	/* As ssh does: a private key others may read is no longer private. */
	if (private && (fstat(fileno(f), &st) == -1 ||
	    (st.st_mode & (S_IRWXG | S_IRWXO)) != 0)) {
		snprintf(err, errlen, "%s: permissions %04o are too open: the "
		    "private key must be readable by its owner only (chmod "
		    "600 %s)", path, (unsigned)(st.st_mode & 07777), path);
		fclose(f);
		return NULL;
	}
	pkey = private ? PEM_read_PrivateKey(f, NULL, no_passphrase,
	    &encrypted) : PEM_read_PUBKEY(f, NULL, NULL, NULL);
	fclose(f);
	if (pkey == NULL) {
		snprintf(err, errlen, "%s: %s", path, encrypted ?
		    "encrypted keys are not supported" : private ?
		    "not a PEM private key" : "not a PEM public key");
		ERR_clear_error();
		return NULL;
	}
	if (EVP_PKEY_get_id(pkey) != EVP_PKEY_ED25519) {
		snprintf(err, errlen, "%s: not an Ed25519 key", path);
		EVP_PKEY_free(pkey);
		return NULL;
	}
	if ((k = calloc(1, sizeof(*k))) == NULL) {
		snprintf(err, errlen, "out of memory");
		EVP_PKEY_free(pkey);
		return NULL;
	}
	k->pkey = pkey;
	return k;
}

struct attest_key *
attest_key_read_private(const char *path, char *err, size_t errlen)
{
	return key_read(path, true, err, errlen);
}

struct attest_key *
attest_key_read_public(const char *path, char *err, size_t errlen)
{
	return key_read(path, false, err, errlen);
}

void
attest_key_free(struct attest_key *k)
{
	if (k == NULL)
		return;
	EVP_PKEY_free(k->pkey);
	free(k);
}

int
key_id(const struct attest_key *k, char out[65])
{
	unsigned char raw[32], sha[32];
	size_t len = sizeof(raw);

	if (EVP_PKEY_get_raw_public_key(k->pkey, raw, &len) != 1 ||
	    len != sizeof(raw) || attest_sha256(raw, len, sha) == -1) {
		ERR_clear_error();
		return -1;
	}
	encode_hex(sha, sizeof(sha), out);
	return 0;
}

int
key_sign(const struct attest_key *k, const void *msg, size_t len,
    unsigned char sig[64])
{
	EVP_MD_CTX *ctx;
	size_t siglen = 64;
	int rv = -1;

	if ((ctx = EVP_MD_CTX_new()) == NULL)
		return -1;
	if (EVP_DigestSignInit(ctx, NULL, NULL, NULL, k->pkey) == 1 &&
	    EVP_DigestSign(ctx, sig, &siglen, msg, len) == 1 && siglen == 64)
		rv = 0;
	EVP_MD_CTX_free(ctx);
	ERR_clear_error();
	return rv;
}

int
key_verify(const struct attest_key *k, const void *msg, size_t len,
    const unsigned char sig[64])
{
	EVP_MD_CTX *ctx;
	int rv = -1;

	if ((ctx = EVP_MD_CTX_new()) == NULL)
		return -1;
	if (EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, k->pkey) == 1 &&
	    EVP_DigestVerify(ctx, sig, 64, msg, len) == 1)
		rv = 0;
	EVP_MD_CTX_free(ctx);
	ERR_clear_error();
	return rv;
}

/* Create path exclusively with mode, write the PEM, close. */
static int
write_pem(const char *path, mode_t mode, EVP_PKEY *pkey, bool private,
    char *err, size_t errlen)
{
	FILE *f;
	int fd, ok;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    mode);
	if (fd == -1) {
		snprintf(err, errlen, "%s: %s%s", path, strerror(errno),
		    errno == EEXIST ? " (not overwritten)" : "");
		return -1;
	}
	/* The mode exactly, whatever the umask. */
	if (fchmod(fd, mode) == -1 || (f = fdopen(fd, "w")) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		unlink(path);
		return -1;
	}
	ok = private ? PEM_write_PrivateKey(f, pkey, NULL, NULL, 0, NULL,
	    NULL) : PEM_write_PUBKEY(f, pkey);
	if (fflush(f) != 0 || fsync(fileno(f)) == -1)
		ok = 0;
	if (fclose(f) != 0 || ok != 1) {
		snprintf(err, errlen, "%s: %s", path,
		    ssl_reason("cannot write the key"));
		unlink(path);
		return -1;
	}
	return 0;
}

int
attest_keygen(const char *path, char *err, size_t errlen)
{
	EVP_PKEY *pkey = NULL;
	char *pub = NULL;
	int rv = -1;

	if (asprintf(&pub, "%s.pub", path) == -1) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (access(pub, F_OK) == 0) {
		snprintf(err, errlen, "%s: exists (not overwritten)", pub);
		goto out;
	}
	if (OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, NULL) != 1 ||
	    (pkey = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519")) == NULL) {
		snprintf(err, errlen, "cannot make a key: %s",
		    ssl_reason("OpenSSL failed"));
		goto out;
	}
	if (write_pem(path, 0600, pkey, true, err, errlen) == -1)
		goto out;
	if (write_pem(pub, 0644, pkey, false, err, errlen) == -1) {
		unlink(path);
		goto out;
	}
	rv = 0;
out:
	EVP_PKEY_free(pkey);
	free(pub);
	return rv;
}
