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
