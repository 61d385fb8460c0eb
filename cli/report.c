/* SPDX-License-Identifier: Apache-2.0 */
/* The attestation report of one service or run (SPEC 7, 7.1). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/report.h"
#include "cli/subjects.h"

static int64_t
now_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* The same existing file (hard links and other spellings included). */
static bool
same_file(const char *path, const struct stat *other)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_dev == other->st_dev &&
	    st.st_ino == other->st_ino;
}

/*
 * What the report could not write at the end is refused now, before
 * anything starts: text that is not UTF-8, a report over the key.
 */
static int
check_inputs(const struct options *opt)
{
	struct stat key;

	if (opt->cmd != NULL && !attest_is_utf8(opt->cmd[0])) {
		cli_error("--attest: the command's name is not UTF-8 text; "
		    "the report could not name it");
		return -1;
	}
	if (opt->sign_key != NULL && stat(opt->sign_key, &key) == 0 &&
	    same_file(opt->attest, &key)) {
		cli_error("--attest %s: is the signing key", opt->attest);
		return -1;
	}
	return 0;
}

/* Options that shape a report, given without one. */
static int
check_no_report(const struct options *opt)
{
	if (opt->sign_key != NULL) {
		cli_error("--sign-key %s: no report to sign (add --attest FILE)",
		    opt->sign_key);
		return -1;
	}
	if (opt->attest_format != NULL) {
		cli_error("--attest-format %s: no report to write (add --attest "
		    "FILE)", opt->attest_format);
		return -1;
	}
	if (opt->nsubjects > 0) {
		cli_error("--attest-subject %s: no report to name it (add "
		    "--attest FILE --attest-format dsse)", opt->subjects[0]);
		return -1;
	}
	if (opt->subject_max_given) {
		cli_error("--attest-subject-max: no report to take subjects "
		    "for (add --attest FILE --attest-format dsse)");
		return -1;
	}
	return 0;
}

/*
 * The in-toto form: signed (an envelope without a signature is not one),
 * with at least one subject (--attest-subject, else the decision log's
 * file), each named once, as text, and neither the report nor the key.
 */
static int
check_dsse(const struct options *opt)
{
	struct stat st;
	size_t i, j;

	if (opt->sign_key == NULL) {
		cli_error("--attest-format dsse: an envelope must be signed "
		    "(add --sign-key KEY)");
		return -1;
	}
	if (opt->nsubjects == 0 && (opt->log == NULL ||
	    strcmp(opt->log, "-") == 0)) {
		cli_error("--attest-format dsse: no subject (add "
		    "--attest-subject FILE for each output, or --log FILE: "
		    "the decision log is the subject by default)");
		return -1;
	}
	for (i = 0; i < opt->nsubjects; i++) {
		if (opt->subjects[i][0] == '\0' ||
		    !attest_is_utf8(opt->subjects[i])) {
			cli_error("--attest-subject: %s; the statement could "
			    "not hold it", opt->subjects[i][0] == '\0' ?
			    "an empty name" : "a name that is not UTF-8 text");
			return -1;
		}
		for (j = 0; j < i; j++)
			if (strcmp(opt->subjects[i], opt->subjects[j]) == 0) {
				cli_error("--attest-subject %s: given twice",
				    opt->subjects[i]);
				return -1;
			}
		if (strcmp(opt->subjects[i], opt->attest) == 0 ||
		    (stat(opt->subjects[i], &st) == 0 &&
		    same_file(opt->attest, &st))) {
			cli_error("--attest-subject %s: is the report",
			    opt->subjects[i]);
			return -1;
		}
		if (stat(opt->subjects[i], &st) == 0 &&
		    same_file(opt->sign_key, &st)) {
			cli_error("--attest-subject %s: is the signing key",
			    opt->subjects[i]);
			return -1;
		}
	}
	return 0;
}

/*
 * The subjects, by name; their digests are taken at the end.  The
 * decision log, by default or by the name --log gave it, is our own file.
 */
static int
subjects_new(struct report *rep, const struct options *opt)
{
	size_t i, n = opt->nsubjects > 0 ? opt->nsubjects : 1;

	if ((rep->subjects = calloc(n, sizeof(*rep->subjects))) == NULL ||
	    (rep->how = calloc(n, sizeof(*rep->how))) == NULL) {
		cli_error("out of memory");
		return -1;
	}
	for (i = 0; i < n; i++) {
		rep->subjects[i].name = opt->nsubjects > 0 ?
		    opt->subjects[i] : opt->log;
		rep->how[i].own = opt->log != NULL &&
		    strcmp(rep->subjects[i].name, opt->log) == 0;
	}
	rep->subject_max = opt->subject_max;
	rep->r.subjects = rep->subjects;
	rep->r.nsubjects = n;
	rep->r.format = ATTEST_DSSE;
	return 0;
}

int
report_open(struct report *rep, const struct options *opt)
{
	char err[ATTEST_ERR_MAX];
	bool dsse;

	memset(rep, 0, sizeof(*rep));
	rep->r.log.offset = -1;
	attest_run_id(rep->r.run_id);
	rep->r.started_ms = now_ms();
	rep->r.argv = opt->cmd;
	/* No report, no digests: OpenSSL's set-up is not paid for nothing. */
	if (opt->attest == NULL)
		return check_no_report(opt);
	dsse = opt->attest_format != NULL &&
	    strcmp(opt->attest_format, "dsse") == 0;
	if (!dsse && (opt->nsubjects > 0 || opt->subject_max_given)) {
		cli_error("%s%s: the JSON report has no subjects (add "
		    "--attest-format dsse)", opt->nsubjects > 0 ?
		    "--attest-subject " : "--attest-subject-max",
		    opt->nsubjects > 0 ? opt->subjects[0] : "");
		return -1;
	}
	if (check_inputs(opt) == -1 || (dsse && (check_dsse(opt) == -1 ||
	    subjects_new(rep, opt) == -1)))
		return -1;
	/* Until a log is opened: no records, the digest of no bytes. */
	rep->r.log.complete = true;
	if (attest_sha256("", 0, rep->r.log.sha256) == -1) {
		cli_error("OpenSSL failed to start");
		return -1;
	}
	if (opt->sign_key != NULL && ((rep->key = attest_key_read_private(
	    opt->sign_key, err, sizeof(err))) == NULL ||
	    stat(opt->sign_key, &rep->key_st) == -1)) {
		if (rep->key == NULL)
			cli_error("--sign-key %s", err);
		else
			cli_error("--sign-key %s: %s", opt->sign_key,
			    strerror(errno));
		report_close(rep, false);
		return -1;
	}
	if ((rep->out = attest_out_open(opt->attest, err, sizeof(err))) ==
	    NULL) {
		cli_error("%s", err);
		report_close(rep, false);
		return -1;
	}
	rep->path = opt->attest;
	return 0;
}

int
report_policy(struct report *rep, const struct conf *c, bool reload)
{
	struct attest_policy p;
	char *abs = NULL;

	if (rep->out == NULL)
		return 0;
	memset(&p, 0, sizeof(p));
	/* A file is named so that the report still finds it from elsewhere. */
	if (strcmp(c->source, "env") != 0 && strcmp(c->source, "default") != 0)
		abs = realpath(c->source, NULL);
	snprintf(p.source, sizeof(p.source), "%s", abs ? abs : c->source);
	free(abs);
	if (!attest_is_utf8(p.source)) {
		cli_error("--attest: the policy's path is not UTF-8 text; the "
		    "report could not name it");
		return -1;
	}
	if (attest_sha256(c->bytes, c->nbytes, p.sha256) == -1) {
		cli_error("--attest: cannot hash the policy");
		return -1;
	}
	p.default_allow = egress_policy_default_allow(c->policy);
	p.block_private = egress_policy_block_private(c->policy);
	p.allow_loopback = egress_policy_allow_loopback(c->policy);
	p.report = egress_policy_report(c->policy);
	if (c->has_upstream) {
		char a[64];

		conf_sockaddr_format(&c->upstream, a, sizeof(a));
		snprintf(p.upstream, sizeof(p.upstream), "http://%s", a);
		p.upstream_parent = c->upstream_parent;
	}
	p.rules = egress_policy_nrules(c->policy);
	p.reloads = rep->r.policy.reloads + (reload ? 1 : 0);
	rep->r.policy = p;
	return 0;
}

int
report_log_fd(struct report *rep, int fd)
{
	struct stat st;
	off_t end;

	if (rep->out == NULL || fstat(fd, &st) == -1)
		return 0;
	if (same_file(rep->path, &st)) {
		cli_error("--attest %s: is the decision log", rep->path);
		return -1;
	}
	/*
	 * An appended file: this run's bytes start at its present end.
	 * Decision lines on stderr share it with diagnostics: no offset.
	 */
	if (fd != STDERR_FILENO && S_ISREG(st.st_mode) &&
	    (end = lseek(fd, 0, SEEK_END)) != -1) {
		rep->r.log.offset = end;
		rep->log_st = st;
	}
	return 0;
}

void
report_listen(struct report *rep, const char *bound)
{
	if (rep->r.nlisten < sizeof(rep->r.listen) / sizeof(rep->r.listen[0]))
		snprintf(rep->r.listen[rep->r.nlisten++],
		    sizeof(rep->r.listen[0]), "%s", bound);
}

void
report_log(struct report *rep, struct dlog *log, const char *path)
{
	struct dlog_totals t;

	if (rep->out == NULL)
		return;
	dlog_finish(log);
	dlog_totals(log, &t);
	rep->r.allow = t.allow;
	rep->r.deny = t.deny;
	memcpy(rep->r.by_reason, t.by_reason, sizeof(rep->r.by_reason));
	memcpy(rep->r.log.sha256, t.sha256, sizeof(t.sha256));
	rep->r.log.records = t.records;
	rep->r.log.bytes = t.bytes;
	rep->r.log.lost = t.lost;
	rep->r.log.complete = t.complete;
	/*
	 * The path must still lead to the file the records went to, unless
	 * SIGHUP reopened it (rotation): then they span the files.
	 */
	rep->log_reopened = dlog_reopened(log);
	if (rep->r.log.offset >= 0 && path != NULL &&
	    rep->log_reopened == 0 && !same_file(path, &rep->log_st))
		rep->log_moved = true;
}

int
report_close(struct report *rep, bool write)
{
	char err[ATTEST_ERR_MAX];
	int rv = 0;

	if (rep->out != NULL && write) {
		rep->r.ended_ms = now_ms();
		rv = subjects_take(rep);
		if (attest_write(rep->out, &rep->r, rep->key, err,
		    sizeof(err)) == -1) {
			cli_error("--attest: the report was not written: %s",
			    err);
			rv = -1;
		} else if (rep->log_moved) {
			cli_error("--log: the decision log was moved or "
			    "replaced during the run; the report's records are "
			    "not at the log's path");
			rv = -1;
		} else if (rep->log_reopened > 0) {
			cli_error("report %s (run %s); the decision log was "
			    "reopened %u times (SIGHUP): its records start at "
			    "offset %jd of the first file; join the files in "
			    "order to verify them", rep->path, rep->r.run_id,
			    rep->log_reopened, (intmax_t)rep->r.log.offset);
		} else
			cli_error("report %s (run %s)", rep->path,
			    rep->r.run_id);
	}
	attest_out_free(rep->out);
	attest_key_free(rep->key);
	subjects_free(rep);
	free(rep->subjects);
	rep->out = NULL;
	rep->key = NULL;
	rep->subjects = NULL;
	return rv;
}

/* The command's end: its exit code, or the signal that ended it. */
void
report_exit(struct report *rep, int code, int wstatus)
{
	rep->r.exited = true;
	rep->r.exit_code = code;
	rep->r.exit_signal = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
}

/* What the report says of the sandbox: what is in force, nothing more. */
void
report_sandbox(struct report *rep, const struct sandbox_plan *p)
{
	struct attest_sandbox *s = &rep->sandbox;
	size_t n = 0;

	memset(s, 0, sizeof(*s));
	s->profile = sandbox_profile_name(p->profile);
	s->confinement = p->refused || p->confinement == CONFINEMENT_NONE ?
	    NULL : sandbox_confinement_name(p->confinement);
	s->network_mode = p->network_mode;
	s->landlock_abi = p->refused || !p->landlock ? 0 : p->landlock_abi;
	s->seccomp = !p->refused && p->seccomp;
	if (!p->refused && p->confinement == CONFINEMENT_NAMESPACES) {
		s->namespaces[n++] = "ipc";
		s->namespaces[n++] = "mount";
		s->namespaces[n++] = "net";
		s->namespaces[n++] = "pid";
		s->namespaces[n++] = "user";
	}
	rep->r.sandbox = s;
}
