// SPDX-License-Identifier: GPL-2.0-only
#include "sys/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/u64map.h"
#include "util/msgs.h"

int fol_cgroup_root(char *out, size_t len)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char dev[64], dir[4096], type[64];
	int found = 0;

	while (f && !found && fscanf(f, "%63s %4095s %63s %*[^\n]", dev, dir, type) == 3)
		if (!strcmp(type, "cgroup2") && strlen(dir) < len) {
			strcpy(out, dir);
			found = 1;
		}
	if (f)
		fclose(f);
	return found ? 0 : -ENOENT;
}

static int cgroup_id(const char *dir, uint64_t *id)
{
	struct {
		struct file_handle fh;
		unsigned char bytes[64];
	} h;
	int mount_id;

	h.fh.handle_bytes = sizeof(h.bytes);
	if (name_to_handle_at(AT_FDCWD, dir, &h.fh, &mount_id, 0) < 0)
		return -errno;
	if (h.fh.handle_bytes < sizeof(*id))
		return -EINVAL;
	memcpy(id, h.fh.f_handle, sizeof(*id));
	return 0;
}

/* fn on the cgroup at dir and on each below it, depth first (depth bounds the walk) until
 * fn returns non-zero: that, 0, or cgroup_id()'s error for dir. A cgroup removed while
 * we look is passed over. */
static int walk(const char *dir, int depth, int (*fn)(const char *dir, uint64_t id, void *ctx),
		void *ctx)
{
	struct dirent *de;
	uint64_t id = 0;
	DIR *d;
	int ret = cgroup_id(dir, &id);

	if (!ret)
		ret = fn(dir, id, ctx);
	if (ret || depth > 64 || !(d = opendir(dir)))
		return ret;
	while (!ret && (de = readdir(d))) {
		char sub[4096];

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name) >= sizeof(sub))
			continue;
		ret = walk(sub, depth + 1, fn, ctx);
		if (ret == -ENOENT)
			ret = 0;
	}
	closedir(d);
	return ret;
}

static int add_id(const char *dir, uint64_t id, void *ctx)
{
	struct fol_cgroups *c = ctx;

	(void)dir;
	return fol_u64map_put(c->ids, id, NULL) ? 0 : -ENOMEM;
}

struct wanted {
	uint64_t id;
	char dir[4096 + 256];
};

int fol_cgroup_alive(const char *root, const char *path, uint64_t id)
{
	char dir[4096 + 256];
	uint64_t now;
	int ret;

	if (strstr(path, "..") || (size_t)snprintf(dir, sizeof(dir), "%s%s", root, path) >= sizeof(dir))
		return -EINVAL;
	ret = cgroup_id(dir, &now);
	if (ret == -ENOENT || ret == -ENOTDIR)
		return 0;
	return ret ? ret : !id || now == id;
}

/* 1 when dir is the cgroup wanted (its directory kept). */
static int is_wanted(const char *dir, uint64_t id, void *ctx)
{
	struct wanted *w = ctx;

	if (id != w->id)
		return 0;
	return (size_t)snprintf(w->dir, sizeof(w->dir), "%s", dir) < sizeof(w->dir) ? 1 : -ENAMETOOLONG;
}

int fol_cgroup_path_of_id(uint64_t id, char *buf, size_t len)
{
	struct wanted w;
	char root[4096];
	size_t n;
	int ret = fol_cgroup_root(root, sizeof(root));

	w.id = id;
	if (!ret)
		ret = walk(root, 0, is_wanted, &w);
	if (ret <= 0)
		return ret ? ret : -ENOENT;
	n = strlen(root);
	return (size_t)snprintf(buf, len, "%s", w.dir[n] ? w.dir + n : "/") < len ? 0 : -ENAMETOOLONG;
}

int fol_cgroups_resolve(const char *path, struct fol_cgroups *out, struct fol_msgs *why)
{
	char root[4096], dir[4096 + 256];
	struct stat st;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!*path) {
		fol_msgs_add(why, "an empty cgroup path: give a cgroup's path (or / for every "
				      "task's)");
		return -EINVAL;
	}
	if (fol_cgroup_root(root, sizeof(root))) {
		fol_msgs_add(why, "no cgroup2 file system is mounted (mount -t cgroup2 none "
				      "/sys/fs/cgroup)");
		return -ENOENT;
	}
	while (*path == '/')
		path++;
	if (strlen(path) + 2 > sizeof(out->path) || strstr(path, "..")) {
		fol_msgs_add(why, "'%s': give a cgroup's path under %s", path, root);
		return -EINVAL;
	}
	snprintf(out->path, sizeof(out->path), "/%s", path);
	while (strlen(out->path) > 1 && out->path[strlen(out->path) - 1] == '/')
		out->path[strlen(out->path) - 1] = '\0';
	snprintf(dir, sizeof(dir), "%s%s", root, out->path);
	/* A cgroup is a directory: its files (cgroup.procs...) have ids of their own. */
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		fol_msgs_add(why, "cgroup '%s' (%s): no such cgroup", out->path, dir);
		return -ENOENT;
	}
	out->ids = fol_u64map_new(1);
	if (!out->ids)
		return -ENOMEM;
	ret = walk(dir, 0, add_id, out);
	if (ret)
		fol_msgs_add(why, "cgroup '%s' (%s): %s", out->path, dir,
			 ret == -ENOENT || ret == -ENOTDIR ? "no such cgroup" : strerror(-ret));
	return ret;
}

static int by_id(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

cJSON *fol_cgroups_json(const struct fol_cgroups *c)
{
	cJSON *o = cJSON_CreateObject(), *ids = o ? cJSON_AddArrayToObject(o, "ids") : NULL;
	uint64_t *v = malloc((fol_u64map_capacity(c->ids) + 1) * sizeof(*v));
	size_t pos = 0, n = 0;
	char hex[24];

	if (!ids || !v) {
		cJSON_Delete(o);
		free(v);
		return NULL;
	}
	cJSON_AddStringToObject(o, "path", c->path);
	/* In order, as a set is written: the same scope, the same chunk. */
	while (fol_u64map_next(c->ids, &pos, &v[n]))
		n++;
	qsort(v, n, sizeof(*v), by_id);
	/* 64-bit ids do not fit a JSON number: hex strings. */
	for (size_t i = 0; i < n; i++) {
		snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)v[i]);
		cJSON_AddItemToArray(ids, cJSON_CreateString(hex));
	}
	free(v);
	return o;
}

int fol_cgroups_from_json(const cJSON *j, struct fol_cgroups *out)
{
	const char *path = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "path"));
	const cJSON *ids = cJSON_GetObjectItemCaseSensitive(j, "ids"), *i;

	memset(out, 0, sizeof(*out));
	if (!path || !cJSON_IsArray(ids) || strlen(path) >= sizeof(out->path))
		return -EINVAL;
	strcpy(out->path, path);
	out->ids = fol_u64map_new(1);
	if (!out->ids)
		return -ENOMEM;
	cJSON_ArrayForEach(i, ids)
	{
		const char *s = cJSON_GetStringValue(i);
		char *end;
		unsigned long long v;

		if (!s || strncmp(s, "0x", 2))
			continue;
		errno = 0;
		v = strtoull(s + 2, &end, 16);
		if (errno || *end || end == s + 2)
			continue;
		if (!fol_u64map_put(out->ids, v, NULL))
			return -ENOMEM;
	}
	return 0;
}

int fol_cgroups_clone(const struct fol_cgroups *from, struct fol_cgroups *to)
{
	*to = *from;
	if (!from->ids)
		return 0;
	to->ids = fol_u64map_clone(from->ids);
	return to->ids ? 0 : -ENOMEM;
}

int fol_cgroups_has(const struct fol_cgroups *c, uint64_t id)
{
	return c->ids && fol_u64map_get(c->ids, id) != NULL;
}

int fol_cgroups_made(struct fol_cgroups *c, uint64_t id, const char *path)
{
	size_t n = strlen(c->path);

	if (!c->ids)
		return 0;
	/* "/" scopes everything; "/a" takes "/a" and "/a/...", not "/ab". */
	if (strcmp(c->path, "/") && (strncmp(path, c->path, n) || (path[n] && path[n] != '/')))
		return 0;
	return fol_u64map_put(c->ids, id, NULL) ? 0 : -ENOMEM;
}

void fol_cgroups_free(struct fol_cgroups *c)
{
	fol_u64map_free(c->ids);
	c->ids = NULL;
}

int fol_cgroup_of_pid(int pid, char *buf, size_t len)
{
	char path[64], line[4096];
	int ret = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	f = fopen(path, "re");
	if (!f)
		return -ENOENT;
	/* The v2 hierarchy's line is "0::PATH"; v1 lines have a number and controllers. */
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "0::", 3))
			continue;
		ret = strlen(line + 3) < len ? 0 : -ENAMETOOLONG;
		if (!ret)
			memcpy(buf, line + 3, strlen(line + 3) + 1);
		break;
	}
	fclose(f);
	return ret;
}

/* The number after name at a line's start in text (a space or a tab between, as in
 * cgroup.stat and /proc/cgroups); -1 when there is none. */
static long long stat_field(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = text; p; p = strchr(p, '\n')) {
		p += *p == '\n';
		if (!strncmp(p, name, n) && (p[n] == ' ' || p[n] == '\t'))
			return strtoll(p + n + 1, NULL, 10);
	}
	return -1;
}

int fol_cgroup_perf_rule(const char *proc_cgroups, const char *stat, const char *root,
			 const char *scope, const char *controller, struct fol_msgs *why)
{
	long long desc = stat_field(stat, "nr_descendants"), have = stat_field(stat, "nr_subsys_perf_event");
	long long hier = stat_field(proc_cgroups, "perf_event");

	if (hier > 0) {
		fol_msgs_add(why, "perf_event is a cgroup v1 hierarchy here (/proc/cgroups: "
				  "hierarchy %lld): samples carry the ids of its cgroups, not of "
				  "cgroup2's; unmount it to scope by cgroup2's", hier);
		return -EOPNOTSUPP;
	}
	if (desc < 0 || have < 0 || have >= desc + 1)
		return 0;
	fol_msgs_add(why, "%lld of the %lld cgroups at %s have perf_event's state (%s%s/cgroup.stat): "
			  "the kernel tags the others' samples with an ancestor's id. cgroup2 gives "
			  "every cgroup that state once something writes a cgroup.subtree_control "
			  "after boot (systemd does): enable and disable a controller once (echo +%s "
			  ">%s/cgroup.subtree_control; echo -%s >%s/cgroup.subtree_control), then start "
			  "again", have, desc + 1, scope, root, strcmp(scope, "/") ? scope : "",
		     controller, root, controller, root);
	return -EOPNOTSUPP;
}

/* The text of a small file (up to len - 1 bytes), or "" when it cannot be read. */
static void read_text(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n = f ? fread(out, 1, len - 1, f) : 0;

	out[n] = '\0';
	if (f)
		fclose(f);
}

int fol_cgroup_perf_check(const char *scope, struct fol_msgs *why)
{
	char root[4096], path[4096 + 300], procs[4096], stat[4096], ctl[256];

	if (fol_cgroup_root(root, sizeof(root)))
		return 0;
	read_text("/proc/cgroups", procs, sizeof(procs));
	snprintf(path, sizeof(path), "%s%s/cgroup.stat", root, strcmp(scope, "/") ? scope : "");
	read_text(path, stat, sizeof(stat));
	snprintf(path, sizeof(path), "%s/cgroup.controllers", root);
	read_text(path, ctl, sizeof(ctl));
	ctl[strcspn(ctl, " \n")] = '\0';
	return fol_cgroup_perf_rule(procs, stat, root, scope, ctl[0] ? ctl : "pids", why);
}
