/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Where a file lies in its filesystem, the same by every path that
 * reaches it: its device and its path from the filesystem's own root.
 * A directory bound at a second path (a workspace mounted twice, a
 * container's volume) has two canonical names but one of these, so
 * "is this in the command's reach" is asked of it, not of names.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/internal.h"

/* mountinfo's octal escapes (\040 for a space), undone in place. */
static void
unescape(char *s)
{
	char *out = s;

	while (*s != '\0') {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
			    (s[3] - '0'));
			s += 4;
		} else
			*out++ = *s++;
	}
	*out = '\0';
}

/* The mount fd is on, from /proc/self/fdinfo; -1 when unknown. */
static int
mount_of(int fd)
{
	char name[64], line[256];
	FILE *f;
	int id = -1;

	snprintf(name, sizeof(name), "/proc/self/fdinfo/%d", fd);
	if ((f = fopen(name, "re")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "mnt_id: %d", &id) == 1)
			break;
	(void)fclose(f);
	return id;
}

/*
 * That mount's root within its filesystem and where it is mounted,
 * from /proc/self/mountinfo.
 */
static int
mount_root(int id, char *root, char *point)
{
	char line[3 * PATH_MAX];
	FILE *f;
	int n, rv = -1;

	if ((f = fopen("/proc/self/mountinfo", "re")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		/* "ID PARENT MAJ:MIN ROOT POINT ..." */
		if (sscanf(line, "%d %*d %*s %4095s %4095s", &n, root,
		    point) == 3 && n == id) {
			unescape(root);
			unescape(point);
			rv = 0;
			break;
		}
	}
	(void)fclose(f);
	return rv;
}

int
fsid_of_fd(int fd, struct fs_id *id)
{
	char seen[PATH_MAX], root[PATH_MAX], point[PATH_MAX];
	const char *rest;
	struct stat st;
	size_t k;
	int mnt;

	id->path = NULL;
	if (fstat(fd, &st) == -1 || fd_path(fd, seen, sizeof(seen)) == -1 ||
	    strstr(seen, " (deleted)") != NULL ||
	    (mnt = mount_of(fd)) == -1 || mount_root(mnt, root, point) == -1)
		return -1;
	k = strlen(point);
	if (strcmp(point, "/") == 0)
		rest = seen;
	else if (strncmp(seen, point, k) == 0 && (seen[k] == '\0' ||
	    seen[k] == '/'))
		rest = seen + k;
	else
		return -1;
	id->dev = st.st_dev;
	if (strcmp(root, "/") == 0)
		id->path = strdup(rest[0] != '\0' ? rest : "/");
	else if (asprintf(&id->path, "%s%s", root, rest) == -1)
		id->path = NULL;
	return id->path != NULL ? 0 : -1;
}

int
fsid_of_path(const char *path, struct fs_id *id)
{
	int fd, rv;

	id->path = NULL;
	if ((fd = open(path, O_PATH | O_CLOEXEC)) == -1)
		return -1;
	rv = fsid_of_fd(fd, id);
	(void)close(fd);
	return rv;
}

bool
fsid_under(const struct fs_id *a, const struct fs_id *dir)
{
	return a->dev == dir->dev && path_under(a->path, dir->path);
}

void
fsid_free(struct fs_id *id)
{
	free(id->path);
	id->path = NULL;
}
