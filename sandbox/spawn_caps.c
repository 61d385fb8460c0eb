/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Capabilities, dropped in init (become_command) and in the command
 * before it runs: a step that fails says so on the control socket.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/securebits.h>

#include "sandbox/spawn_int.h"

/*
 * Every capability gone, in every set, and never back through exec.  A
 * process that already holds none (a run without namespaces by a plain
 * user) cannot change its securebits or bounding set: no_new_privs then
 * keeps exec from gaining any, and the plan says the bounding set is left.
 */
void
spawn_drop_privileges(int ctl, bool have_caps)
{
	struct __user_cap_header_struct hdr = {
	    _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	int cap, in;

	if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
	    SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |
	    SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
	    SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED) == -1 &&
	    (have_caps || errno != EPERM))
		spawn_fail(ctl, AREA_UNKNOWN, -1, "securebits: %s",
		    strerror(errno));
	for (cap = 0; (in = prctl(PR_CAPBSET_READ, cap)) >= 0; cap++) {
		if (in == 0 || prctl(PR_CAPBSET_DROP, cap) == 0)
			continue;
		if (have_caps || errno != EPERM)
			spawn_fail(ctl, AREA_UNKNOWN, -1, "bounding set: %s",
			    strerror(errno));
		break;		/* the plan said so (sandbox_plan) */
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) == -1)
		spawn_fail(ctl, AREA_UNKNOWN, -1, "ambient: %s",
		    strerror(errno));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		spawn_fail(ctl, AREA_UNKNOWN, -1, "no_new_privs: %s",
		    strerror(errno));
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capset, &hdr, data) == -1)
		spawn_fail(ctl, AREA_UNKNOWN, -1, "capset: %s",
		    strerror(errno));
}

/* The bounding set emptied, by a process that may (a root caller's). */
void
spawn_drop_bounding_set(int ctl)
{
	int cap, in;

	for (cap = 0; (in = prctl(PR_CAPBSET_READ, cap)) >= 0; cap++)
		if (in == 1 && prctl(PR_CAPBSET_DROP, cap) == -1)
			spawn_fail(ctl, AREA_UNKNOWN, -1, "bounding set: %s",
			    strerror(errno));
}

/* May this process change its securebits and bounding set? */
bool
spawn_have_setpcap(void)
{
	struct __user_cap_header_struct hdr = {
	    _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data) == -1)
		return true;	/* unknown: insist, and fail loudly */
	return (data[0].effective & (1U << CAP_SETPCAP)) != 0;
}
