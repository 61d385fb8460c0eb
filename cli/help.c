/* SPDX-License-Identifier: Apache-2.0 */
/*
 * --help: every command and every option, one line each, in 80 columns
 * (SPEC 2); harn-egressd(8) is the reference.  tests/cli/cli.sh holds the
 * options here equal to the man page's and to the getopt tables'.
 */
#include <stdio.h>

#include "cli/cli.h"

#define OPT_W	22	/* the option column (a longer one pushes on) */

static const char usage_text[] =
"usage: harn-egressd --policy FILE [options]\n"
"       harn-egressd --policy FILE [options] -- CMD [ARG...]\n"
"       harn-egressd check   --policy FILE\n"
"       harn-egressd explain --policy FILE [--resolve] TARGET...\n"
"       harn-egressd verify  --pubkey FILE [--log F] [--subject F]... REPORT\n"
"       harn-egressd audit   [--json | --html FILE] [--top N] [LOG...]\n"
"       harn-egressd audit   --suggest [--full] [LOG...]\n"
"       harn-egressd doctor  [--json] [--policy FILE]\n"
"       harn-egressd keygen  --out FILE\n"
"       harn-egressd --version | --help\n";

/* A heading (name NULL) or an entry. */
static const struct {
	const char	*name;
	const char	*what;
} help[] = {
	{ NULL, "Commands:" },
	{ "(no command)", "service mode: the proxy on loopback until SIGTERM" },
	{ "-- CMD [ARG...]", "run mode: CMD confined, the proxy its only way "
	    "out" },
	{ "check", "validate the policy, print it as it is enforced" },
	{ "explain", "dry-run decisions: TARGET is host:port or a URL" },
	{ "verify", "check an attestation report (and its log, subjects)" },
	{ "audit", "summarize decision logs (stdin when no LOG is named)" },
	{ "doctor", "what this host can enforce, profile by profile" },
	{ "keygen", "make an Ed25519 key pair for --sign-key and verify" },

	{ NULL, "Policy and proxy (service and run mode):" },
	{ "--policy FILE", "the policy, egress.conf(5); else HARN_EGRESS_*" },
	{ "--listen ADDR:PORT", "listen there (repeatable; default "
	    "127.0.0.1:0)" },
	{ "--port-file FILE", "write the bound port there once listening" },
	{ "--metrics ADDR", "serve OpenMetrics at /metrics (loopback or unix:PATH)" },
	{ "--log FILE", "decision log, JSON lines (default and -: stderr)" },

	{ NULL, "Run mode, -- CMD (default --profile worktree, --confinement "
	    "auto):" },
	{ "--profile P", "os_hardened, worktree, workspace_paths, "
	    "unrestricted" },
	{ "--confinement C", "auto, namespaces or landlock (doctor says "
	    "which work)" },
	{ "--workspace DIR", "CMD's writable root (default: the current "
	    "directory)" },
	{ "--read-only-root DIR", "one more directory CMD may read "
	    "(repeatable)" },
	{ "--write-root DIR", "one more directory CMD may write (repeatable)" },
	{ "--read-deny-root PATH", "one more path CMD may not read "
	    "(repeatable)" },
	{ "--unix-socket-root DIR", "CMD may connect to unix sockets under "
	    "DIR" },
	{ "--env NAME[=VALUE]", "pass one more variable to CMD (repeatable; "
	    "not LD_*)" },
	{ "--cache-dir DIR", "CMD's caches live in DIR, kept between runs "
	    "(writable)" },
	{ "--no-sandbox", "run CMD unconfined (reported as unrestricted)" },
	{ "--quiet", "no stderr line for refusals, no summary at exit" },
	{ "--max-procs N", "CMD's processes and threads (default 512)" },
	{ "--tmpfs-size SIZE", "each private tmpfs (default 512m; N, Nk, Nm, "
	    "Ng)" },
	{ "--max-memory SIZE", "CMD's memory, where a cgroup v2 can be made" },

	{ NULL, "Attestation:" },
	{ "--attest REPORT", "at exit, write the run's attestation report" },
	{ "--attest-format F", "json (default) or dsse (an in-toto "
	    "statement)" },
	{ "--attest-subject FILE", "dsse: FILE's SHA-256 is a subject "
	    "(repeatable)" },
	{ "--attest-subject-max SIZE", "hash a subject only up to SIZE bytes "
	    "(default 1G)" },
	{ "--sign-key KEY", "sign the report with this Ed25519 key (keygen)" },
	{ "--pubkey FILE", "verify: the signer's public key (keygen's "
	    "FILE.pub)" },
	{ "--log FILE", "verify: the log holds exactly the run's records" },
	{ "--subject FILE", "verify: the statement lists FILE, with its "
	    "SHA-256" },
	{ "--out FILE", "keygen: FILE (private, 0600) and FILE.pub" },

	{ NULL, "Output:" },
	{ "--json", "audit, doctor: one JSON object, for programs" },
	{ "--top N", "audit: the N most requested hosts (default 10)" },
	{ "--html FILE", "audit: one self-contained page with plots" },
	{ "--suggest", "audit: allow lines for what the logs asked for" },
	{ "--full", "audit --suggest: a whole policy that check accepts" },
	{ "--resolve", "explain: resolve names, judge their addresses" },
	{ "--policy FILE", "doctor: say whether this policy is enforced" },
	{ "--version", "print the version" },
	{ "--help, -h", "print this text" },
};

void
cli_help(FILE *f)
{
	size_t i;

	fputs(usage_text, f);
	for (i = 0; i < sizeof(help) / sizeof(help[0]); i++) {
		if (help[i].name == NULL)
			fprintf(f, "\n%s\n", help[i].what);
		else
			fprintf(f, "  %-*s  %s\n", OPT_W, help[i].name,
			    help[i].what);
	}
	fputs("\nThe reference: harn-egressd(8), egress.conf(5).\n", f);
}
