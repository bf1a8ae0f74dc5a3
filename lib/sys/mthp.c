// SPDX-License-Identifier: GPL-2.0-only
#include "sys/mthp.h"
#include "util/errors.h"

#include "util/parse.h"
#include "util/msgs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

int fol_mthp_read_policy(const char *path, char *out, size_t len)
{
	char buf[128], *lb, *rb;
	int ret = fol_sysfs_read(path, buf, sizeof(buf));

	if (ret)
		return ret;
	lb = strchr(buf, '[');
	rb = lb ? strchr(lb, ']') : NULL;
	if (!lb || !rb || (size_t)(rb - lb - 1) >= len)
		return -FOL_E_BAD_FORMAT;
	memcpy(out, lb + 1, (size_t)(rb - lb - 1));
	out[rb - lb - 1] = '\0';
	return 0;
}

int fol_huge_zero_policy(const char *enabled, const char *pmd_enabled, int use_zero_page, int pmd_order)
{
	const char *policy = enabled;

	if (use_zero_page < 0 || !policy || pmd_order <= 0)
		return FOL_HZ_UNKNOWN;
	if (pmd_enabled && strcmp(pmd_enabled, "inherit"))
		policy = pmd_enabled;
	if (!use_zero_page || !strcmp(policy, "never"))
		return FOL_HZ_NONE;
	if (!strcmp(policy, "always"))
		return FOL_HZ_ALWAYS;
	return !strcmp(policy, "madvise") ? FOL_HZ_MADVISE : FOL_HZ_UNKNOWN;
}

int fol_huge_zero_now(const char *root, int pmd_order)
{
	char thp[128], path[192], enabled[16], pmd[16], zero[16];
	long page = sysconf(_SC_PAGESIZE);
	int have_pmd;

	if (pmd_order <= 0 || page <= 0)
		return FOL_HZ_UNKNOWN;
	snprintf(thp, sizeof(thp), "%s/sys/kernel/mm/transparent_hugepage", root);
	snprintf(path, sizeof(path), "%s/enabled", thp);
	if (fol_mthp_read_policy(path, enabled, sizeof(enabled)))
		return FOL_HZ_UNKNOWN;
	snprintf(path, sizeof(path), "%s/hugepages-%lukB/enabled", thp, ((unsigned long)page << pmd_order) >> 10);
	have_pmd = !fol_mthp_read_policy(path, pmd, sizeof(pmd));
	snprintf(path, sizeof(path), "%s/use_zero_page", thp);
	if (fol_sysfs_read(path, zero, sizeof(zero)))
		return FOL_HZ_UNKNOWN;
	return fol_huge_zero_policy(enabled, have_pmd ? pmd : NULL, atoi(zero) != 0, pmd_order);
}

int fol_sysfs_write(const char *path, const char *value)
{
	/* O_TRUNC as the shell's >: a plain file (the unit tests' sysfs) is rewritten whole. */
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, value, strlen(value)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

int fol_sysfs_read(const char *path, char *out, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, out, len - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	out[n] = '\0';
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

/* khugepaged.KNOB=N: one of khugepaged's numeric knobs, for a run that must see a
 * collapse in bounded time (scan_sleep_millisecs is 10 s by default). */
static int parse_knob(struct fol_mthp_set *s, const char *knob, const char *value,
		      const char *root, struct fol_msgs *why)
{
	uint64_t v;

	if (!*knob || strchr(knob, '/') || knob[0] == '.') {
		fol_msgs_add(why, "'khugepaged.%s': name a file of %s/sys/kernel/mm/"
				      "transparent_hugepage/khugepaged", knob, root);
		return -EINVAL;
	}
	if (fol_parse_u64(value, 0, 1ull << 32, 0, &v)) {
		fol_msgs_add(why, "'khugepaged.%s=%s': the value is a number", knob, value);
		return -EINVAL;
	}
	snprintf(s->want, sizeof(s->want), "%llu", (unsigned long long)v);
	snprintf(s->path, sizeof(s->path), "%s/sys/kernel/mm/transparent_hugepage/khugepaged/%s",
		 root, knob);
	s->plain = 1;
	return 0;
}

/* SIZE=POLICY, or thp=POLICY for the top-level switch. */
static int parse_policy(struct fol_mthp_set *s, const char *item, const char *value,
			const char *root, struct fol_msgs *why)
{
	uint64_t bytes;

	if (strcmp(value, "always") && strcmp(value, "madvise") && strcmp(value, "never") &&
	    strcmp(value, "inherit")) {
		fol_msgs_add(why, "'%s': the policy is always, madvise, never or inherit", value);
		return -EINVAL;
	}
	snprintf(s->want, sizeof(s->want), "%s", value);
	if (!strcasecmp(item, "thp")) {
		if (!strcmp(s->want, "inherit")) {
			fol_msgs_add(why, "thp=inherit: inherit is for mTHP sizes");
			return -EINVAL;
		}
		snprintf(s->path, sizeof(s->path), "%s/sys/kernel/mm/transparent_hugepage/enabled", root);
		return 0;
	}
	if (fol_parse_u64(item, 1024, 1ull << 40, 1, &bytes) || bytes % 1024) {
		fol_msgs_add(why, "'%s': a size is 16K, 64K, 2M...", item);
		return -EINVAL;
	}
	snprintf(s->path, sizeof(s->path),
		 "%s/sys/kernel/mm/transparent_hugepage/hugepages-%llukB/enabled", root,
		 (unsigned long long)(bytes >> 10));
	return 0;
}

int fol_mthp_parse(const char *spec, const char *root, struct fol_mthp *m, struct fol_msgs *why)
{
	char *copy = strdup(spec), *save = NULL, *item;
	int ret = 0;

	memset(m, 0, sizeof(*m));
	if (!copy)
		return -ENOMEM;
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');
		struct fol_mthp_set *s;

		if (!eq || m->n >= (int)(sizeof(m->s) / sizeof(m->s[0]))) {
			fol_msgs_add(why, "'%s': give SIZE=POLICY, e.g. 64K=always", item);
			ret = -EINVAL;
			break;
		}
		*eq = '\0';
		s = &m->s[m->n];
		ret = !strncmp(item, "khugepaged.", 11)
			      ? parse_knob(s, item + 11, eq + 1, root, why)
			      : parse_policy(s, item, eq + 1, root, why);
		if (ret)
			break;
		if (access(s->path, F_OK)) {
			fol_msgs_add(why, "%s: this kernel has no such %s (%s)", item,
				 s->plain ? "khugepaged setting" : "THP size", s->path);
			ret = -ENOENT;
			break;
		}
		m->n++;
	}
	free(copy);
	if (!ret && !m->n) {
		fol_msgs_add(why, "'%s': give SIZE=POLICY,..., e.g. 64K=always", spec);
		ret = -EINVAL;
	}
	return ret;
}

int fol_mthp_apply(struct fol_mthp *m)
{
	int ret;

	for (int i = 0; i < m->n; i++) {
		ret = m->s[i].plain ? fol_sysfs_read(m->s[i].path, m->s[i].old, sizeof(m->s[i].old))
				    : fol_mthp_read_policy(m->s[i].path, m->s[i].old, sizeof(m->s[i].old));
		if (ret)
			goto undo;
	}
	for (int i = 0; i < m->n; i++) {
		ret = fol_sysfs_write(m->s[i].path, m->s[i].want);
		if (ret)
			goto undo;
		m->s[i].applied = 1;
	}
	return 0;
undo:
	fol_mthp_restore(m);
	return ret;
}

int fol_mthp_restore(struct fol_mthp *m)
{
	int ret = 0;

	/* In reverse, so a size named twice ends as it started. */
	for (int i = m->n - 1; i >= 0; i--) {
		if (!m->s[i].applied)
			continue;
		int e = fol_sysfs_write(m->s[i].path, m->s[i].old);

		if (e && !ret)
			ret = e;
		m->s[i].applied = 0;
	}
	return ret;
}

int fol_mthp_sweep_spec(const char *value, const char *root, char *spec, size_t len, int *policy)
{
	char dir[256], want[32] = "";
	struct dirent *d;
	uint64_t bytes = 0;
	size_t used = 0;
	int pte = !strcasecmp(value, "2M-pte"), found = 0, sizes = 0;
	DIR *dp;

	if (!pte && (fol_parse_u64(value, 4096, 1ull << 40, 1, &bytes) || bytes % 1024))
		return -EINVAL;
	if (pte)
		bytes = 2u << 20;
	snprintf(want, sizeof(want), "hugepages-%llukB", (unsigned long long)(bytes >> 10));
	snprintf(dir, sizeof(dir), "%s/sys/kernel/mm/transparent_hugepage", root);
	dp = opendir(dir);
	if (!dp)
		return -ENOENT;
	spec[0] = '\0';
	while ((d = readdir(dp))) {
		unsigned long kb;
		char tail;

		char path[sizeof(dir) + 280];

		if (sscanf(d->d_name, "hugepages-%lukB%c", &kb, &tail) != 1)
			continue;
		/* A size with statistics but no policy of its own (8K on x86). */
		snprintf(path, sizeof(path), "%s/%s/enabled", dir, d->d_name);
		if (access(path, F_OK))
			continue;
		sizes++;
		found |= !strcmp(d->d_name, want);
		used += (size_t)snprintf(spec + used, used < len ? len - used : 0, "%s%luK=%s", used ? "," : "",
					 kb, strcmp(d->d_name, want) ? "never" : "always");
	}
	closedir(dp);
	/* No multi-size THP (before 6.8): only 4K and PMD THP, by the top-level switch. */
	if (!sizes && (bytes == 4096 || bytes == (2u << 20)))
		used = (size_t)snprintf(spec, len, "thp=%s", bytes == 4096 ? "never" : "always");
	else if (bytes != 4096 && !found)
		return -ENOENT;
	if (used >= len)
		return -ENAMETOOLONG;
	*policy = bytes == 4096 ? FOL_SWEEP_SMALL : pte ? FOL_SWEEP_PTE_THP
			: bytes == (2u << 20) ? FOL_SWEEP_THP : FOL_SWEEP_MTHP;
	return 0;
}
