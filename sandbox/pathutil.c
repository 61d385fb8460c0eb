/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The small path and string utilities every file of sandbox/ uses:
 * string vectors, descriptor arrays, joining, resolving and comparing
 * paths.  A leaf: it calls nothing else of sandbox/.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sandbox/internal.h"

int
strv_add(struct strv *s, char *str)
{
	char **v;

	if (str == NULL)
		return -1;
	if (s->n + 2 > s->cap) {
		s->cap = s->cap ? s->cap * 2 : 32;
		if ((v = reallocarray(s->v, s->cap, sizeof(*v))) == NULL) {
			free(str);
			return -1;
		}
		s->v = v;
	}
	s->v[s->n++] = str;
	s->v[s->n] = NULL;
	return 0;
}

/* An array of descriptors, each closed (-1: none), then the array. */
void
fds_free(int *fds, size_t n)
{
	size_t i;

	for (i = 0; fds != NULL && i < n; i++)
		if (fds[i] != -1)
			(void)close(fds[i]);
	free(fds);
}

void
strv_free(struct strv *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

char *
path_join(const char *a, const char *b)
{
	char *s;

	if (strcmp(a, "/") == 0)
		a = "";
	return asprintf(&s, "%s/%s", a, b) == -1 ? NULL : s;
}

int
fd_path(int fd, char *buf, size_t len)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if ((n = readlink(link, buf, len - 1)) <= 0 ||
	    (size_t)n >= len - 1) {
		if (n > 0)
			errno = ENAMETOOLONG;
		return -1;
	}
	buf[n] = '\0';
	if (buf[0] != '/') {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/*
 * realpath(3) by the kernel: one open and one readlink, where glibc
 * reads every component's link.  NULL with errno as realpath's.
 */
char *
path_real(const char *path)
{
	char buf[PATH_MAX];
	int fd, rv;

	if ((fd = open(path, O_PATH | O_CLOEXEC)) == -1)
		return NULL;
	rv = fd_path(fd, buf, sizeof(buf));
	(void)close(fd);
	/* No /proc, or a name the kernel cannot give: the slow way. */
	if (rv == -1 || strstr(buf, " (deleted)") != NULL)
		return realpath(path, NULL);
	return strdup(buf);
}

bool
path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 &&
	    (path[n] == '\0' || path[n] == '/');
}

/* The canonical path, or of its nearest existing directory plus the rest. */
char *
path_canonical(const char *path)
{
	char buf[PATH_MAX], *r, *slash, *out;

	if ((r = path_real(path)) != NULL || errno != ENOENT)
		return r;
	(void)snprintf(buf, sizeof(buf), "%s", path);
	if ((slash = strrchr(buf, '/')) == NULL)
		return NULL;
	*slash = '\0';
	if ((r = path_canonical(buf[0] != '\0' ? buf : "/")) == NULL)
		return NULL;
	out = path_join(r, slash + 1);
	free(r);
	return out;
}

/* "." and ".." taken out as written, "//" as "/": no file is looked at. */
void
path_lexical(char *p)
{
	char *out = p, *c = p, *last;
	size_t n;

	while (*c != '\0') {
		c += strspn(c, "/");
		n = strcspn(c, "/");
		if (n == 0)
			break;
		if (n == 1 && c[0] == '.') {
			c += n;
			continue;
		}
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			*out = '\0';
			last = strrchr(p, '/');
			out = last != NULL ? last : p;
			c += n;
			continue;
		}
		*out++ = '/';
		memmove(out, c, n);
		out += n;
		c += n;
	}
	if (out == p)
		*out++ = '/';
	*out = '\0';
}
