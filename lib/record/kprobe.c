// SPDX-License-Identifier: GPL-2.0-only
#include "record/kprobe.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <tracefs.h>
#include <unistd.h>

#include "record/tracepoint.h"
#include "util/msgs.h"

static int supported(void)
{
	char path[4200];
	const char *dir = fol_tp_tracefs_dir();

	if (!dir)
		return 0;
	snprintf(path, sizeof(path), "%s/kprobe_events", dir);
	return access(path, F_OK) == 0;
}

int fol_kprobes_create(struct fol_kprobes *k, struct fol_msgs *why)
{
	char ev[32], ret_ev[32];
	struct tracefs_dynevent *probe, *retprobe;

	memset(k, 0, sizeof(*k));
	if (!supported()) {
		fol_msgs_add(why, "this kernel has no kprobe events (CONFIG_KPROBE_EVENTS)");
		return -ENODEV;
	}
	snprintf(ev, sizeof(ev), "wp_%d", (int)getpid());
	snprintf(ret_ev, sizeof(ret_ev), "wp_ret_%d", (int)getpid());
	probe = tracefs_kprobe_alloc(FOL_KPROBE_SYSTEM, ev, "do_wp_page", NULL);
	/* $retval is the handler's vm_fault_t: VM_FAULT_WRITE and friends. */
	retprobe = tracefs_kretprobe_alloc(FOL_KPROBE_SYSTEM, ret_ev, "do_wp_page", "ret=$retval", 0);
	if (!probe || !retprobe) {
		tracefs_dynevent_free(probe);
		tracefs_dynevent_free(retprobe);
		fol_msgs_add(why, "cannot describe the kprobes on do_wp_page");
		return -ENOMEM;
	}
	k->ev[0] = probe;
	k->ev[1] = retprobe;
	for (int i = 0; i < 2; i++) {
		if (tracefs_dynevent_create(k->ev[i])) {
			int e = errno ? -errno : -EIO;

			fol_msgs_add(why, "cannot create the kprobe %s on do_wp_page: %s",
				 i ? ret_ev : ev, strerror(-e));
			fol_kprobes_destroy(k);
			for (int j = i; j < 2; j++) {
				tracefs_dynevent_free(k->ev[j]);
				k->ev[j] = NULL;
			}
			return e;
		}
		snprintf(k->names[i], sizeof(k->names[i]), "%s:%s", FOL_KPROBE_SYSTEM, i ? ret_ev : ev);
		k->n = i + 1;
	}
	return 0;
}

int fol_kprobes_destroy(struct fol_kprobes *k)
{
	int ret = 0;

	for (int i = k->n - 1; i >= 0; i--) {
		if (!k->ev[i])
			continue;
		if (tracefs_dynevent_destroy(k->ev[i], false) && !ret)
			ret = errno ? -errno : -EBUSY;
		tracefs_dynevent_free(k->ev[i]);
		k->ev[i] = NULL;
	}
	k->n = 0;
	return ret;
}

int fol_kprobes_count(void)
{
	struct tracefs_dynevent **all;
	int n = 0;

	if (!supported())
		return 0;
	all = tracefs_dynevent_get_all(TRACEFS_DYNEVENT_KPROBE | TRACEFS_DYNEVENT_KRETPROBE,
				       FOL_KPROBE_SYSTEM);
	while (all && all[n])
		n++;
	tracefs_dynevent_list_free(all);
	return n;
}
