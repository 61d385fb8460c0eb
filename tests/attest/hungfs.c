/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hungfs: a filesystem that hangs, as a dead NFS server or a stuck FUSE
 * daemon does, for tests/attest/subjects.sh.  Its one file, app.bin, can be
 * looked up, stat'ed and opened; a read of it is never answered.  Speaks
 * the kernel's FUSE protocol on /dev/fuse itself (no libfuse); root only,
 * as it mounts.
 *
 *   hungfs MOUNTPOINT STATEFILE
 *
 * Appends "mounted" to STATEFILE once mounted and "read" when a read
 * came (left unanswered); ends when the mount is gone.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/fuse.h>

#define ROOT_NODE	1
#define FILE_NODE	2

static int dev = -1;
static const char *state;

static void
say(const char *what)
{
	FILE *f = fopen(state, "a");

	if (f != NULL) {
		fprintf(f, "%s\n", what);
		fclose(f);
	}
}

static void
reply(uint64_t unique, int err, const void *body, size_t len)
{
	struct fuse_out_header h = { (uint32_t)(sizeof(h) + len), -err,
	    unique };
	struct iovec iov[2] = { { &h, sizeof(h) }, { (void *)body, len } };

	(void)writev(dev, iov, body != NULL ? 2 : 1);
}

static void
attr(uint64_t node, struct fuse_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->ino = node;
	a->blksize = 4096;
	if (node == ROOT_NODE) {
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
	} else {
		a->mode = S_IFREG | 0644;
		a->nlink = 1;
		a->size = 6;
		a->blocks = 1;
	}
}

static void
serve(const struct fuse_in_header *in, const void *arg)
{
	union {
		struct fuse_init_out	init;
		struct fuse_entry_out	entry;
		struct fuse_attr_out	attr;
		struct fuse_open_out	open;
		struct fuse_statfs_out	statfs;
	} o;
	const struct fuse_init_in *ii = arg;

	memset(&o, 0, sizeof(o));
	switch (in->opcode) {
	case FUSE_INIT:
		o.init.major = FUSE_KERNEL_VERSION;
		o.init.minor = ii->minor < FUSE_KERNEL_MINOR_VERSION ?
		    ii->minor : FUSE_KERNEL_MINOR_VERSION;
		o.init.max_readahead = ii->max_readahead;
		o.init.max_write = 65536;
		reply(in->unique, 0, &o.init, sizeof(o.init));
		say("mounted");
		break;
	case FUSE_LOOKUP:
		if (in->nodeid != ROOT_NODE || strcmp(arg, "app.bin") != 0) {
			reply(in->unique, ENOENT, NULL, 0);
			break;
		}
		o.entry.nodeid = FILE_NODE;
		o.entry.generation = 1;
		attr(FILE_NODE, &o.entry.attr);
		reply(in->unique, 0, &o.entry, sizeof(o.entry));
		break;
	case FUSE_GETATTR:
		attr(in->nodeid, &o.attr.attr);
		reply(in->unique, 0, &o.attr, sizeof(o.attr));
		break;
	case FUSE_OPEN: case FUSE_OPENDIR:
		o.open.fh = 1;
		reply(in->unique, 0, &o.open, sizeof(o.open));
		break;
	case FUSE_STATFS:
		o.statfs.st.bsize = 4096;
		o.statfs.st.namelen = 255;
		reply(in->unique, 0, &o.statfs, sizeof(o.statfs));
		break;
	case FUSE_READ:
		say("read");		/* and never answered */
		break;
	case FUSE_FLUSH: case FUSE_RELEASE: case FUSE_RELEASEDIR:
	case FUSE_ACCESS: case FUSE_DESTROY:
		reply(in->unique, 0, NULL, 0);
		break;
	case FUSE_FORGET: case FUSE_BATCH_FORGET: case FUSE_INTERRUPT:
		break;
	default:
		reply(in->unique, ENOSYS, NULL, 0);
	}
}

int
main(int argc, char **argv)
{
	static char buf[FUSE_MIN_READ_BUFFER + (1 << 20)];
	char opts[128];
	ssize_t n;

	if (argc != 3) {
		fprintf(stderr, "usage: hungfs MOUNTPOINT STATEFILE\n");
		return 2;
	}
	state = argv[2];
	if ((dev = open("/dev/fuse", O_RDWR | O_CLOEXEC)) == -1) {
		perror("/dev/fuse");
		return 1;
	}
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,"
	    "group_id=0,allow_other", dev);
	if (mount("hungfs", argv[1], "fuse.hungfs", MS_NOSUID | MS_NODEV,
	    opts) == -1) {
		perror("mount");
		return 1;
	}
	for (;;) {
		n = read(dev, buf, sizeof(buf));
		if (n == -1 && (errno == EINTR || errno == ENOENT ||
		    errno == EAGAIN))
			continue;
		if (n < (ssize_t)sizeof(struct fuse_in_header))
			return 0;	/* ENODEV: unmounted */
		buf[n < (ssize_t)sizeof(buf) ? n : n - 1] = '\0';
		serve((const struct fuse_in_header *)buf,
		    buf + sizeof(struct fuse_in_header));
	}
}
