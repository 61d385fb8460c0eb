/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the connect broker learns of sockets without holding them, for the
 * landlock confinement, where pidfd_getfd may be refused (Docker): a unix
 * socket's type by its inode, the TCP listeners on a port (sock_diag),
 * and whether a socket is the command's (one of its processes holds it).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include "sandbox/internal.h"

#define DIAG_BUF	16384
#define MAX_TREE	4096		/* processes looked at for an owner */

int
diag_open(void)
{
	return socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
}

static int
diag_send(int fd, const void *req, size_t len, uint16_t flags)
{
	struct {
		struct nlmsghdr	nlh;
		char		body[64];
	} m;
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };

	memset(&m, 0, sizeof(m));
	m.nlh.nlmsg_len = (uint32_t)NLMSG_LENGTH(len);
	m.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	m.nlh.nlmsg_flags = NLM_F_REQUEST | flags;
	memcpy(m.body, req, len);
	return sendto(fd, &m, m.nlh.nlmsg_len, 0, (struct sockaddr *)&nl,
	    sizeof(nl)) == (ssize_t)m.nlh.nlmsg_len ? 0 : -1;
}

/* The type (SOCK_STREAM, ...) of the unix socket with inode ino; -1: none. */
int
diag_unix_type(int fd, unsigned long ino)
{
	struct unix_diag_req req = { .sdiag_family = AF_UNIX,
	    .udiag_states = ~0U, .udiag_ino = (uint32_t)ino,
	    .udiag_cookie = { INET_DIAG_NOCOOKIE, INET_DIAG_NOCOOKIE } };
	char buf[DIAG_BUF];
	struct nlmsghdr *h;
	struct unix_diag_msg *m;
	ssize_t n;
	int type = -1;

	if (diag_send(fd, &req, sizeof(req), 0) == -1 ||
	    (n = recv(fd, buf, sizeof(buf), 0)) <= 0)
		return -1;
	for (h = (void *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
		if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY)
			break;
		m = NLMSG_DATA(h);
		if (m->udiag_ino == (uint32_t)ino)
			type = m->udiag_type;
	}
	return type;
}

/* The TCP sockets listening on port, of one family. */
static int
listeners(int fd, int family, unsigned short port,
    struct diag_listener *out, size_t max, size_t *n)
{
	struct inet_diag_req_v2 req = { .sdiag_family = (uint8_t)family,
	    .sdiag_protocol = IPPROTO_TCP, .idiag_states = 1U << TCP_LISTEN };
	char buf[DIAG_BUF];
	struct nlmsghdr *h;
	struct inet_diag_msg *m;
	ssize_t len;

	if (diag_send(fd, &req, sizeof(req), NLM_F_DUMP) == -1)
		return -1;
	for (;;) {
		if ((len = recv(fd, buf, sizeof(buf), 0)) <= 0)
			return -1;
		for (h = (void *)buf; NLMSG_OK(h, (size_t)len);
		    h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR)
				return -1;
			m = NLMSG_DATA(h);
			if (ntohs(m->id.idiag_sport) != port)
				continue;
			if (*n == max)
				return -1;	/* more than we can vouch for */
			out[*n].ino = m->idiag_inode;
			out[*n].family = family;
			memcpy(out[*n].addr, m->id.idiag_src,
			    sizeof(out[*n].addr));
			(*n)++;
		}
	}
}

int
diag_tcp_listeners(int fd, unsigned short port, struct diag_listener *out,
    size_t max)
{
	size_t n = 0;

	if (listeners(fd, AF_INET, port, out, max, &n) == -1 ||
	    listeners(fd, AF_INET6, port, out, max, &n) == -1)
		return -1;
	return (int)n;
}

/* An address's bytes and port, as inet_diag's socket id holds them. */
static int
id_part(const struct sockaddr_storage *ss, uint32_t addr[4], uint16_t *port)
{
	const struct sockaddr_in *sin = (const void *)ss;
	const struct sockaddr_in6 *sin6 = (const void *)ss;

	memset(addr, 0, 4 * sizeof(uint32_t));
	if (ss->ss_family == AF_INET) {
		addr[0] = sin->sin_addr.s_addr;
		*port = sin->sin_port;
		return 0;
	}
	if (ss->ss_family == AF_INET6) {
		memcpy(addr, &sin6->sin6_addr, 16);
		*port = sin6->sin6_port;
		return 0;
	}
	return -1;
}

/*
 * One exact lookup (no dump): the socket whose own end is the peer's
 * address and whose other end is ours, in any state.
 */
unsigned long
diag_tcp_peer(int fd, int sock)
{
	struct inet_diag_req_v2 req = { .sdiag_protocol = IPPROTO_TCP,
	    .idiag_states = ~0U };
	struct sockaddr_storage ours, peer;
	socklen_t olen = sizeof(ours), plen = sizeof(peer);
	char buf[1024];
	struct nlmsghdr *h;
	struct inet_diag_msg *m;
	ssize_t n;

	if (fd == -1 || getsockname(sock, (struct sockaddr *)&ours, &olen) ==
	    -1 || getpeername(sock, (struct sockaddr *)&peer, &plen) == -1 ||
	    ours.ss_family != peer.ss_family ||
	    id_part(&peer, req.id.idiag_src, &req.id.idiag_sport) == -1 ||
	    id_part(&ours, req.id.idiag_dst, &req.id.idiag_dport) == -1)
		return 0;
	req.sdiag_family = (uint8_t)peer.ss_family;
	req.id.idiag_cookie[0] = req.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	if (diag_send(fd, &req, sizeof(req), 0) == -1)
		return 0;
	do {
		n = recv(fd, buf, sizeof(buf), 0);
	} while (n == -1 && errno == EINTR);
	h = (void *)buf;
	if (n <= 0 || !NLMSG_OK(h, (size_t)n) ||
	    h->nlmsg_type != SOCK_DIAG_BY_FAMILY)
		return 0;
	m = NLMSG_DATA(h);
	if (m->id.idiag_sport != req.id.idiag_sport ||
	    m->id.idiag_dport != req.id.idiag_dport)
		return 0;
	return m->idiag_inode;
}

/* A socket's inode from its /proc link ("socket:[123]"); 0: not one. */
unsigned long
diag_socket_inode(const char *link)
{
	unsigned long ino;
	char end;

	if (sscanf(link, "socket:[%lu%c", &ino, &end) != 2 || end != ']')
		return 0;
	return ino;
}

/* Does process pid hold the socket ino? */
static bool
holds(pid_t pid, unsigned long ino)
{
	char path[64], link[64];
	struct dirent *de;
	DIR *d;
	ssize_t n;
	bool found = false;

	snprintf(path, sizeof(path), "/proc/%ld/fd", (long)pid);
	if ((d = opendir(path)) == NULL)
		return false;
	while (!found && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		n = readlinkat(dirfd(d), de->d_name, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		found = diag_socket_inode(link) == ino;
	}
	(void)closedir(d);
	return found;
}

/* Append pid's children (of every one of its threads) to tree. */
static void
children(pid_t pid, pid_t *tree, size_t *n)
{
	char path[320], buf[4096], *s, *e;
	struct dirent *de;
	DIR *d;
	ssize_t len;
	long c;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
	if ((d = opendir(path)) == NULL)
		return;
	while ((de = readdir(d)) != NULL && *n < MAX_TREE) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/task/%s/children",
		    (long)pid, de->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		(void)close(fd);
		buf[len > 0 ? len : 0] = '\0';
		for (s = buf; (c = strtol(s, &e, 10)) > 0 && *n < MAX_TREE;
		    s = e)
			tree[(*n)++] = (pid_t)c;
	}
	(void)closedir(d);
}

/* Does any process below init (breadth first) satisfy match(pid, arg)? */
static bool
any_below(pid_t init, bool (*match)(pid_t, const void *), const void *arg)
{
	pid_t *tree;
	size_t n = 0, i;
	bool found = false;

	if ((tree = calloc(MAX_TREE, sizeof(*tree))) == NULL)
		return false;
	children(init, tree, &n);
	for (i = 0; i < n && !found; i++) {
		found = match(tree[i], arg);
		children(tree[i], tree, &n);
	}
	free(tree);
	return found;
}

static bool
holds_match(pid_t pid, const void *arg)
{
	return holds(pid, *(const unsigned long *)arg);
}

/* Which of a set of sockets a process holds: marked in held[]. */
struct held_set {
	const unsigned long	*inos;
	bool			*held;
	size_t			 n;
};

static bool
mark_held(pid_t pid, const void *arg)
{
	const struct held_set *hs = arg;
	char path[64], link[64];
	struct dirent *de;
	unsigned long ino;
	DIR *d;
	ssize_t len;
	size_t i;

	snprintf(path, sizeof(path), "/proc/%ld/fd", (long)pid);
	if ((d = opendir(path)) == NULL)
		return false;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || (len = readlinkat(dirfd(d),
		    de->d_name, link, sizeof(link) - 1)) <= 0)
			continue;
		link[len] = '\0';
		if ((ino = diag_socket_inode(link)) == 0)
			continue;
		for (i = 0; i < hs->n; i++)
			if (hs->inos[i] == ino)
				hs->held[i] = true;
	}
	(void)closedir(d);
	return false;		/* every process is looked at */
}

void
diag_held_mark(pid_t init, const unsigned long *inos, bool *held, size_t n)
{
	struct held_set hs = { inos, held, n };

	(void)any_below(init, mark_held, &hs);
}

/*
 * Is the socket ino held by a process below init (the command's
 * subreaper: every process the command started is below it)?
 */
bool
diag_held_below(pid_t init, unsigned long ino)
{
	return any_below(init, holds_match, &ino);
}

/* A field of /proc/PID/stat after the command name: 4 is ppid, 5 pgrp. */
static long
stat_field(pid_t pid, int field)
{
	char path[64], buf[1024], *s;
	ssize_t n;
	long v = -1;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	(void)close(fd);
	buf[n > 0 ? n : 0] = '\0';
	/* The name may hold anything, ')' included: the last one ends it. */
	if ((s = strrchr(buf, ')')) == NULL)
		return -1;
	for (i = 3, s++; i < field && s != NULL; i++)
		s = strchr(s + 1, ' ');
	if (s != NULL)
		v = strtol(s + 1, NULL, 10);
	return v;
}

/* The process a thread id belongs to; -1 when it is gone. */
pid_t
diag_tgid(pid_t tid)
{
	char path[64], line[128];
	long tgid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)tid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Tgid: %ld", &tgid) == 1)
			break;
	(void)fclose(f);
	return (pid_t)tgid;
}

/*
 * Up the parents from pid's process: below init if init is met.  Every
 * process the command started is below it (init is their subreaper).
 */
bool
diag_pid_below(pid_t init, pid_t pid)
{
	long p;
	int depth;

	if ((p = diag_tgid(pid)) <= 0)
		return false;
	for (depth = 0; depth < MAX_TREE; depth++) {
		if ((p = stat_field((pid_t)p, 4)) <= 0)
			return false;
		if (p == init)
			return true;
		if (p == 1)
			return false;
	}
	return false;
}

/* The tasks (threads) of pid's process: the entries of /proc/PID/task. */
static unsigned
tasks_of(pid_t pid)
{
	char path[64];
	struct dirent *de;
	unsigned n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
	if ((d = opendir(path)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			n++;
	(void)closedir(d);
	return n;
}

static bool
count_tasks(pid_t pid, const void *arg)
{
	unsigned *n = (unsigned *)(uintptr_t)arg;

	*n += tasks_of(pid);
	return false;
}

/* Every task of every process below init (init's own not counted). */
unsigned
diag_tasks_below(pid_t init)
{
	unsigned n = 0;

	(void)any_below(init, count_tasks, &n);
	return n;
}

static bool
in_group(pid_t pid, const void *arg)
{
	return stat_field(pid, 5) == *(const pid_t *)arg;
}

bool
diag_group_below(pid_t init, pid_t pgrp)
{
	return any_below(init, in_group, &pgrp);
}
