/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit: summarize decision logs (SPEC 5) for an auditor, or (--suggest)
 * print the rules that admit what they asked for (--full: a whole
 * policy).  Logs are read from
 * files or stdin, plain or gzip-compressed (rotated logs), one after
 * another as one log.  A malformed line is named by file and line,
 * counted and skipped; nothing from it is printed.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "attest/attest.h"
#include "cli/cli.h"

#define LINE_CAP	(64 * 1024)	/* the proxy writes under 1 KiB */
#define CHUNK		(64 * 1024)
#define TOP_DEFAULT	10
#define TOP_MAX		1000000

struct reader {
	struct audit	*audit;
	const char	*name;
	uint64_t	 lineno;
	char		*line;		/* LINE_CAP bytes */
	size_t		 len;
	bool		 too_long;	/* skipping to the end of the line */
};

static void
end_line(struct reader *r)
{
	char why[128];
	bool bad;

	r->lineno++;
	if (!r->too_long)
		bad = audit_line(r->audit, r->line, r->len, why,
		    sizeof(why)) == -1;
	else {
		audit_malformed(r->audit);
		snprintf(why, sizeof(why), "line too long (over %d bytes)",
		    LINE_CAP);
		bad = true;
	}
	if (bad)
		cli_error("%s:%" PRIu64 ": malformed record: %s", r->name,
		    r->lineno, why);
	r->len = 0;
	r->too_long = false;
}

static void
feed(struct reader *r, const char *p, size_t n)
{
	const char *nl;
	size_t k;

	while (n > 0) {
		nl = memchr(p, '\n', n);
		k = nl != NULL ? (size_t)(nl - p) : n;
		if (!r->too_long && k <= LINE_CAP - r->len) {
			memcpy(r->line + r->len, p, k);
			r->len += k;
		} else
			r->too_long = true;
		if (nl == NULL)
			return;
		end_line(r);
		p = nl + 1;
		n -= k + 1;
	}
}

/* zlib reads a plain file as it is, and every member of a gzip file. */
static gzFile
open_log(const char *path)
{
	gzFile gz;
	int fd;

	if (strcmp(path, "-") == 0)
		fd = dup(STDIN_FILENO);	/* gzclose must not close stdin */
	else
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd == -1)
		return NULL;
	if ((gz = gzdopen(fd, "rb")) == NULL) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	gzbuffer(gz, CHUNK);
	return gz;
}

static const char *
gz_strerror(gzFile gz)
{
	const char *msg;
	int code;

	msg = gzerror(gz, &code);
	return code == Z_ERRNO ? strerror(errno) : msg;
}

static void
read_error(const struct reader *r, const char *msg)
{
	if (r->lineno == 0)
		cli_error("%s: %s", r->name, msg);
	else
		cli_error("%s: after line %" PRIu64 ": %s", r->name,
		    r->lineno, msg);
}

/* Count one log.  -1 when it cannot be opened or read to its end. */
static int
audit_file(struct audit *a, const char *path, char *line, char *buf)
{
	struct reader r = { .audit = a, .line = line };
	gzFile gz;
	int n, code, rv = 0;

	r.name = strcmp(path, "-") == 0 ? "(stdin)" : path;
	if ((gz = open_log(path)) == NULL) {
		cli_error("%s: %s", r.name, strerror(errno));
		return -1;
	}
	while ((n = gzread(gz, buf, CHUNK)) > 0)
		feed(&r, buf, n);
	gzerror(gz, &code);
	if (n < 0) {
		read_error(&r, gz_strerror(gz));
		rv = -1;
	} else if (code == Z_BUF_ERROR) {
		/* zlib's end of a file cut inside a gzip member. */
		read_error(&r, "compressed log cut short");
		rv = -1;
	} else if (r.len > 0 || r.too_long)
		end_line(&r);	/* the last line, without its newline */
	gzclose(gz);
	return rv;
}

static int
parse_top(const char *s, size_t *top)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || v > TOP_MAX)
		return -1;
	*top = v;
	return 0;
}

static int
audit_all(struct audit *a, char **paths, int n)
{
	char *line, *buf;
	int i, rv = 0;

	line = malloc(LINE_CAP);
	buf = malloc(CHUNK);
	if (line == NULL || buf == NULL) {
		cli_error("out of memory");
		rv = EXIT_RUNTIME;
	} else if (n == 0)
		rv = audit_file(a, "-", line, buf) == 0 ? 0 : EXIT_RUNTIME;
	else
		for (i = 0; i < n; i++)
			if (audit_file(a, paths[i], line, buf) == -1)
				rv = EXIT_RUNTIME;
	free(line);
	free(buf);
	return rv;
}

/* The page, whole or not at all: a temporary file beside it, renamed. */
static int
write_html(const struct audit *a, const char *path, size_t top)
{
	char tmp[PATH_MAX];
	FILE *f;
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp)) {
		cli_error("audit --html %s: name too long", path);
		return -1;
	}
	if ((fd = mkstemp(tmp)) == -1) {
		cli_error("audit --html %s: %s", path, strerror(errno));
		return -1;
	}
	(void)fchmod(fd, 0644);
	if ((f = fdopen(fd, "w")) == NULL) {
		cli_error("audit --html %s: %s", path, strerror(errno));
		(void)close(fd);
		(void)unlink(tmp);
		return -1;
	}
	if (audit_html(a, f, top) == -1 || fflush(f) != 0 ||
	    fsync(fileno(f)) != 0) {
		cli_error("audit --html %s: cannot write the page", path);
		(void)fclose(f);
		(void)unlink(tmp);
		return -1;
	}
	if (fclose(f) != 0 || rename(tmp, path) == -1) {
		cli_error("audit --html %s: %s", path, strerror(errno));
		(void)unlink(tmp);
		return -1;
	}
	return 0;
}

/* What the command line asked for. */
struct audit_args {
	const char	*html;		/* NULL: no page */
	size_t		 top;
	bool		 json, suggest, full;
};

/* 0, or -1 after saying what is wrong (a usage error). */
static int
parse_args(int argc, char **argv, struct audit_args *o)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "top", required_argument, NULL, 't' },
		{ "suggest", no_argument, NULL, 's' },
		{ "html", required_argument, NULL, 'h' },
		{ "full", no_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	memset(o, 0, sizeof(*o));
	o->top = TOP_DEFAULT;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case 'j': o->json = true; break;
		case 's': o->suggest = true; break;
		case 'f': o->full = true; break;
		case 'h': o->html = optarg; break;
		case 't':
			if (parse_top(optarg, &o->top) == -1) {
				cli_error("audit: --top wants a number from 0 "
				    "to %d", TOP_MAX);
				return -1;
			}
			break;
		default:
			goto usage;
		}
	}
	if (o->suggest + o->json + (o->html != NULL) > 1) {
		cli_error("audit: one of --json, --suggest and --html");
		goto usage;
	}
	if (o->full && !o->suggest) {
		cli_error("audit: --full goes with --suggest");
		goto usage;
	}
	return 0;
usage:
	cli_error("usage: harn-egressd audit [--json | --html FILE] [--top N] "
	    "[LOG...] | audit --suggest [--full] [LOG...]");
	return -1;
}

int
cmd_audit(int argc, char **argv)
{
	struct audit_args o;
	struct audit *a;
	int rv, out;

	if (parse_args(argc, argv, &o) == -1)
		return EXIT_USAGE;
	if ((a = audit_new()) == NULL) {
		cli_error("out of memory");
		return EXIT_RUNTIME;
	}
	rv = audit_all(a, argv + optind, argc - optind);
	/*
	 * The summary of what could be read, even when a log could not; a
	 * suggestion only from logs read whole (it admits what they hold).
	 */
	if (o.suggest && rv != 0)
		cli_error("audit: no suggestion: a log could not be read whole");
	else if (o.html != NULL) {
		if (write_html(a, o.html, o.top) == -1)
			rv = EXIT_RUNTIME;
	} else {
		out = o.full ? audit_suggest_full(a, stdout) : o.suggest ?
		    audit_suggest(a, stdout) : audit_print(a, stdout, o.json,
		    o.top);
		if (out == -1 || fflush(stdout) != 0) {
			cli_error("audit: cannot write the %s", o.suggest ?
			    "suggestion" : "summary");
			rv = EXIT_RUNTIME;
		}
	}
	audit_free(a);
	return rv;
}
