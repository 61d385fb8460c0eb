/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The landlock confinement (SPEC 6.5): where no namespace can be made (a
 * default Docker container, user namespaces switched off).  The command
 * shares the host's network, mounts and PIDs; what confines it:
 *
 *   - Landlock: the filesystem of SPEC 6.3 with no mount to lean on (a
 *     denied path is refused, EACCES), TCP connect only to the proxy's
 *     port and bind only to port 0 (ABI 4), abstract unix sockets and
 *     signals of processes outside out of reach (scopes, ABI 6), and no
 *     ptrace or /proc/PID/mem and environ of them (Landlock's own rule);
 *   - seccomp, and the connect broker for every connect() and the calls
 *     that change file metadata (sandbox/broker_meta.c);
 *   - init, the subreaper of everything the command starts, which ends
 *     whatever is left when the command ends (setsid and double forks
 *     included).
 *
 * A root caller's command runs as SANDBOX_UID where that uid can write
 * the roots it is given (sandbox_uid_fits) and root owns none of them
 * (sandbox_roots_root): there is no idmapped mount here to make it their
 * owner, and it must not own the host's files.  Where root owns one, it
 * keeps uid 0 (plan.c): root's files there are then its to change, as in
 * the namespaces confinement, and what it makes is root's, as there.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/internal.h"

/* May SANDBOX_UID, with no group but its own, do what on st? */
static bool
allowed(const struct stat *st, mode_t what)
{
	if (st->st_uid == SANDBOX_UID)
		return (st->st_mode & (what << 6)) == what << 6;
	if (st->st_gid == SANDBOX_GID)
		return (st->st_mode & (what << 3)) == what << 3;
	return (st->st_mode & what) == what;
}

/* Could SANDBOX_UID reach dir (search every directory above) and write it? */
static bool
fits(const char *dir)
{
	char buf[PATH_MAX];
	struct stat st;
	size_t i;

	for (i = 0; dir[i] != '\0' && i < sizeof(buf); i++) {
		if (dir[i] != '/')
			continue;
		memcpy(buf, dir, i == 0 ? 1 : i);
		buf[i == 0 ? 1 : i] = '\0';
		if (stat(buf, &st) == -1 || !allowed(&st, S_IXOTH))
			return false;
	}
	return stat(dir, &st) == 0 && allowed(&st, S_IWOTH | S_IXOTH);
}

bool
sandbox_uid_fits(const struct sandbox_request *r)
{
	size_t i;

	if (!fits(r->workspace))
		return false;
	for (i = 0; i < r->nrw_roots; i++)
		if (!fits(r->rw_roots[i]))
			return false;
	return true;
}

/* Root owns the workspace or a --write-root on disk (lstat: a root is
 * canonical, so no link is followed). */
bool
sandbox_roots_root(const struct sandbox_request *r)
{
	struct stat st;
	size_t i;

	if (lstat(r->workspace, &st) == 0 && st.st_uid == 0)
		return true;
	for (i = 0; i < r->nrw_roots; i++)
		if (lstat(r->rw_roots[i], &st) == 0 && st.st_uid == 0)
			return true;
	return false;
}
