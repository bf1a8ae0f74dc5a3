/* SPDX-License-Identifier: GPL-2.0-only */
/* A system-wide recording scoped to a cgroup (v2), as perf record -a -G: the ids of the
 * cgroup and of every cgroup below it. Samples carry their task's cgroup id
 * (PERF_SAMPLE_CGROUP); libperf cannot open per-cgroup events (PERF_FLAG_PID_CGROUP), so
 * the scope is applied to the recorded samples when they are read. */
#ifndef FOL_CGROUP_H
#define FOL_CGROUP_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

struct fol_msgs;
struct fol_u64map;

struct fol_cgroups {
	char path[256];		/* from the cgroup2 root: "/a/b" */
	struct fol_u64map *ids;	/* id -> nothing: the cgroup and those below it */
};

/* Find path under the cgroup2 mount and the ids of its tree (name_to_handle_at: a kernfs
 * handle is the cgroup id). -ENOENT (no such cgroup, or no cgroup2 mount), -ENOMEM; why
 * says which. */
int fol_cgroups_resolve(const char *path, struct fol_cgroups *out, struct fol_msgs *why);
/* {"path": "/a", "ids": ["0x1f2", ...]} for the file's metadata, and back; ids that are
 * not hex strings are skipped. 0, -EINVAL (not such an object) or -ENOMEM. */
cJSON *fol_cgroups_json(const struct fol_cgroups *c);
int fol_cgroups_from_json(const cJSON *j, struct fol_cgroups *out);
int fol_cgroups_clone(const struct fol_cgroups *from, struct fol_cgroups *to);
int fol_cgroups_has(const struct fol_cgroups *c, uint64_t id);
/* A cgroup made during the recording (PERF_RECORD_CGROUP): in scope when its path is
 * the scope's or below it. */
int fol_cgroups_made(struct fol_cgroups *c, uint64_t id, const char *path);
void fol_cgroups_free(struct fol_cgroups *c);

/* Whether samples will carry the ids of the cgroups at scope (from the cgroup2 root, "/"
 * for all) and below it. The kernel takes a sample's cgroup from its task's perf_event
 * controller: on a v1 hierarchy of its own, its ids are not cgroup2's; on cgroup2 it is
 * in every cgroup implicitly, but only once the hierarchy's controllers were propagated:
 * until something writes a cgroup.subtree_control after boot (systemd does), cgroups
 * made have no perf_event state of their own and their samples name the root (seen in
 * Debian's 6.1 and 6.12 with a bare cgroup2 mount). 0 (so, or cannot be told: cgroup.stat
 * counts the states from 6.10), or -EOPNOTSUPP with why saying what to do. The rule on
 * the texts of /proc/cgroups and the scope's cgroup.stat ("" when not read), with the
 * cgroup2 root and a controller it offers for the advice: */
int fol_cgroup_perf_rule(const char *proc_cgroups, const char *stat, const char *root,
			 const char *scope, const char *controller, struct fol_msgs *why);
int fol_cgroup_perf_check(const char *scope, struct fol_msgs *why);
/* The cgroup (v2) process pid is in now, its path from the cgroup2 root ("/a/b"), from
 * /proc/PID/cgroup: 0, -ENOENT (gone, or no v2 line), -ENAMETOOLONG. */
int fol_cgroup_of_pid(int pid, char *buf, size_t len);
/* Where cgroup2 is mounted (/sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid host)
 * into out: 0, or -ENOENT (no cgroup2 mount). */
int fol_cgroup_root(char *out, size_t len);
/* Whether the cgroup at path (from root, fol_cgroup_root's) is still there, and is the
 * one of that id when id is not 0: 1; 0 when it was removed (or another cgroup was made at
 * its path since); -errno when it cannot be told. */
int fol_cgroup_alive(const char *root, const char *path, uint64_t id);
/* The path from the cgroup2 root of the cgroup whose id is id (bpf_get_current_cgroup_id),
 * found by walking the hierarchy: 0, -ENOENT (none: removed since), -ENAMETOOLONG. */
int fol_cgroup_path_of_id(uint64_t id, char *buf, size_t len);

#endif
