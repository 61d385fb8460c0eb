/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Limits on the command (SPEC 2): its processes (RLIMIT_NPROC, counted in
 * its own user namespace, or on top of its uid's others), each private
 * tmpfs (size=, nr_inodes=), and, where cgroup v2 is delegated to the
 * caller, its memory.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/internal.h"

/*
 * The tasks uid has already (RLIMIT_NPROC counts threads): without a
 * user namespace of its own the command's limit counts them too (the
 * caller's shell, editor, other builds), so it is that many more.
 */
static unsigned
procs_of(uid_t uid)
{
	char path[300], line[128];
	struct dirent *de;
	unsigned n = 0, threads;
	unsigned long u;
	bool mine;
	DIR *d;
	FILE *f;

	if ((d = opendir("/proc")) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", de->d_name);
		if ((f = fopen(path, "re")) == NULL)
			continue;
		mine = false;
		while (fgets(line, sizeof(line), f) != NULL) {
			if (sscanf(line, "Uid: %lu", &u) == 1)
				mine = u == uid;
			else if (mine && sscanf(line, "Threads: %u",
			    &threads) == 1) {
				n += threads;
				break;
			}
		}
		(void)fclose(f);
	}
	(void)closedir(d);
	return n;
}

int
limits_apply_rlimits(const struct sandbox_limits *l, bool shared_uid,
    char *err, size_t errlen)
{
	struct rlimit rl;
	rlim_t max;

	if (l->max_procs == 0)
		return 0;
	max = l->max_procs;
	if (shared_uid)
		max += procs_of(getuid());
	if (getrlimit(RLIMIT_NPROC, &rl) == -1) {
		snprintf(err, errlen, "RLIMIT_NPROC: %s", strerror(errno));
		return -1;
	}
	/* Never above what the caller was allowed. */
	if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > max)
		rl.rlim_max = max;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NPROC, &rl) == -1) {
		snprintf(err, errlen, "RLIMIT_NPROC %u: %s", l->max_procs,
		    strerror(errno));
		return -1;
	}
	return 0;
}

/* One inode per 4 KiB: a tmpfs of empty files fills as fast as one of data. */
void
limits_tmpfs_options(const struct sandbox_limits *l, char *buf, size_t len)
{
	unsigned long long size = l->tmpfs_size, inodes;

	if (size == 0) {
		snprintf(buf, len, "mode=1777");
		return;
	}
	inodes = size / 4096 > 1024 ? size / 4096 : 1024;
	snprintf(buf, len, "mode=1777,size=%llu,nr_inodes=%llu", size, inodes);
}

/* This process's cgroup v2 directory, or NULL with why set. */
static char *
own_cgroup(char *why, size_t whylen)
{
	char line[PATH_MAX + 64], mnt[PATH_MAX] = "", rel[PATH_MAX] = "";
	char fstype[64], *dir, *p;
	FILE *f;

	if ((f = fopen("/proc/self/cgroup", "re")) != NULL) {
		while (fgets(line, sizeof(line), f) != NULL)
			if (strncmp(line, "0::", 3) == 0 &&
			    sscanf(line + 3, "%4095s", rel) != 1)
				rel[0] = '\0';
		(void)fclose(f);
	}
	if (rel[0] == '\0') {
		snprintf(why, whylen, "no cgroup v2 hierarchy here");
		return NULL;
	}
	if ((f = fopen("/proc/self/mountinfo", "re")) == NULL) {
		snprintf(why, whylen, "mountinfo: %s", strerror(errno));
		return NULL;
	}
	while (mnt[0] == '\0' && fgets(line, sizeof(line), f) != NULL) {
		/* ... mountpoint opts [optional...] - fstype source opts */
		if ((p = strstr(line, " - ")) == NULL ||
		    sscanf(p + 3, "%63s", fstype) != 1 ||
		    strcmp(fstype, "cgroup2") != 0 ||
		    sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1)
			mnt[0] = '\0';
	}
	(void)fclose(f);
	if (mnt[0] == '\0') {
		snprintf(why, whylen, "cgroup v2 is not mounted");
		return NULL;
	}
	if (asprintf(&dir, "%s%s", mnt, strcmp(rel, "/") == 0 ? "" : rel) ==
	    -1) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	return dir;
}

static bool
file_has_word(const char *path, const char *word)
{
	char buf[1024], *tok, *save;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	(void)close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	for (tok = strtok_r(buf, " \n", &save); tok != NULL;
	    tok = strtok_r(NULL, " \n", &save))
		if (strcmp(tok, word) == 0)
			return true;
	return false;
}

/*
 * Delegated: memory is enabled for our cgroup's children, and we may
 * make a child and move a process into it.
 */
static char *
delegated(char *why, size_t whylen)
{
	char *dir, path[PATH_MAX];

	if ((dir = own_cgroup(why, whylen)) == NULL)
		return NULL;
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
	if (!file_has_word(path, "memory")) {
		snprintf(why, whylen, "the memory controller is not enabled "
		    "for the children of %s (cgroup v2 memory not delegated)",
		    dir);
		free(dir);
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if (access(dir, W_OK | X_OK) == -1 || access(path, W_OK) == -1) {
		snprintf(why, whylen, "%s: %s (cgroup v2 not delegated to "
		    "this user)", dir, strerror(errno));
		free(dir);
		return NULL;
	}
	return dir;
}

bool
limits_memory_available(char *why, size_t whylen)
{
	char *dir = delegated(why, whylen);

	free(dir);
	return dir != NULL;
}

static int
write_text(const char *dir, const char *file, const char *text)
{
	char path[PATH_MAX];
	size_t len = strlen(text);
	int fd, rv;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	rv = write(fd, text, len) == (ssize_t)len ? 0 : -1;
	if (close(fd) == -1)
		rv = -1;
	return rv;
}

char *
limits_memory_cgroup(const struct sandbox_limits *l, pid_t pid, char *err,
    size_t errlen)
{
	char *dir, *cg = NULL, num[32];

	if ((dir = delegated(err, errlen)) == NULL)
		return NULL;
	if (asprintf(&cg, "%s/harn-egressd.%ld", dir, (long)pid) == -1) {
		cg = NULL;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (mkdir(cg, 0755) == -1 && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", cg, strerror(errno));
		goto fail;
	}
	snprintf(num, sizeof(num), "%llu", (unsigned long long)l->max_memory);
	if (write_text(cg, "memory.max", num) == -1) {
		snprintf(err, errlen, "%s/memory.max: %s", cg, strerror(errno));
		goto fail;
	}
	/* No swap beyond the limit, where the kernel has swap accounting. */
	(void)write_text(cg, "memory.swap.max", "0");
	snprintf(num, sizeof(num), "%ld", (long)pid);
	if (write_text(cg, "cgroup.procs", num) == -1) {
		snprintf(err, errlen, "%s/cgroup.procs: %s", cg,
		    strerror(errno));
		goto fail;
	}
	goto out;
fail:
	(void)rmdir(cg);
	free(cg);
	cg = NULL;
out:
	free(dir);
	return cg;
}

void
limits_memory_cgroup_remove(char *cg)
{
	if (cg == NULL)
		return;
	(void)rmdir(cg);
	free(cg);
}
