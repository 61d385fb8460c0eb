/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A proxy's memory and CPU time from /proc, summed over the process and
 * its descendants: dante and squid serve from child processes, and the
 * memory a connection costs lives there.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/loadgen.h"

#define PROC_MAX	4096

struct ptab {
	pid_t	 pid[PROC_MAX], ppid[PROC_MAX];
	int	 n;
};

/* Fields of /proc/PID/stat after the command name (which may hold
 * spaces and parentheses): state is field 3, ppid 4, utime 14. */
static int
stat_fields(pid_t pid, char *buf, size_t size, char **rest)
{
	char path[64];
	FILE *f;
	size_t n;
	char *paren;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	if ((paren = strrchr(buf, ')')) == NULL)
		return -1;
	*rest = paren + 1;
	return 0;
}

static void
ptab_load(struct ptab *t)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	char buf[1024], *rest;
	int ppid;
	char state;

	t->n = 0;
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL && t->n < PROC_MAX) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		if (stat_fields(atoi(e->d_name), buf, sizeof(buf),
		    &rest) == -1 || sscanf(rest, " %c %d", &state, &ppid) != 2)
			continue;
		t->pid[t->n] = atoi(e->d_name);
		t->ppid[t->n] = ppid;
		t->n++;
	}
	closedir(d);
}

/* root and its descendants into out (at most max); returns how many. */
static int
proc_tree(pid_t root, pid_t *out, int max)
{
	static struct ptab t;
	int n = 0, i, j;

	ptab_load(&t);
	out[n++] = root;
	/* out grows as children are found. */
	for (i = 0; i < n; i++)
		for (j = 0; j < t.n && n < max; j++)
			if (t.ppid[j] == out[i])
				out[n++] = t.pid[j];
	return n;
}

/* The number after "key" in a file of "Key:   N kB" lines. */
static int
kib_field(pid_t pid, const char *file, const char *key, uint64_t *out)
{
	char path[64], line[256];
	size_t kl = strlen(key);
	unsigned long long v;
	FILE *f;
	int found = -1;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, key, kl) == 0 &&
		    sscanf(line + kl, " %llu", &v) == 1) {
			*out = v;
			found = 0;
			break;
		}
	fclose(f);
	return found;
}

int
proc_mem(pid_t root, struct proc_mem *m)
{
	static pid_t pids[PROC_MAX];
	uint64_t v, rss;
	int n, i;

	memset(m, 0, sizeof(*m));
	if (kib_field(root, "status", "VmRSS:", &v) == -1)
		return -1;
	n = proc_tree(root, pids, PROC_MAX);
	for (i = 0; i < n; i++) {
		if (kib_field(pids[i], "status", "VmRSS:", &rss) == -1)
			continue;
		m->rss_kib += rss;
		m->nprocs++;
		/* smaps_rollup: Linux 4.14 and later; without it, RSS. */
		if (kib_field(pids[i], "smaps_rollup", "Pss:", &v) == 0)
			m->pss_kib += v;
		else
			m->pss_kib += rss;
	}
	return 0;
}

int
proc_cpu_ticks(pid_t root, uint64_t *ticks)
{
	static pid_t pids[PROC_MAX];
	char buf[1024], *rest;
	unsigned long long ut, st, cut, cst;
	int n, i;

	*ticks = 0;
	n = proc_tree(root, pids, PROC_MAX);
	for (i = 0; i < n; i++) {
		if (stat_fields(pids[i], buf, sizeof(buf), &rest) == -1 ||
		    sscanf(rest, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u"
		    " %llu %llu %llu %llu", &ut, &st, &cut, &cst) != 4) {
			if (i == 0)
				return -1;
			continue;
		}
		*ticks += ut + st;
		/* Children the root reaped during the run count once, here. */
		if (i == 0)
			*ticks += cut + cst;
	}
	return 0;
}
