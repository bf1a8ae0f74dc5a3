// SPDX-License-Identifier: GPL-2.0-only
#include "sys/counters.h"

#include "sys/mthp.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	char *nl;

	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	return 0;
}

/* The policy files list every choice with the active one in brackets. */
static void add_policy(cJSON *obj, const char *key, const char *path)
{
	char buf[256];

	if (!fol_mthp_read_policy(path, buf, sizeof(buf)))
		cJSON_AddStringToObject(obj, key, buf);
}

static void add_vmstat(cJSON *snap, const char *root)
{
	char path[PATH_MAX], name[128];
	unsigned long long v;
	cJSON *vm;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/vmstat", root);
	f = fopen(path, "re");
	if (!f)
		return;
	vm = cJSON_AddObjectToObject(snap, "vmstat");
	while (fscanf(f, "%127s %llu", name, &v) == 2)
		cJSON_AddNumberToObject(vm, name, (double)v);
	fclose(f);
}

static void add_stats(cJSON *obj, const char *dir)
{
	char path[2 * PATH_MAX], buf[64];
	struct dirent *de;
	cJSON *stats;
	DIR *d = opendir(dir);

	if (!d)
		return;
	stats = cJSON_AddObjectToObject(obj, "stats");
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!read_line(path, buf, sizeof(buf)))
			cJSON_AddNumberToObject(stats, de->d_name, strtod(buf, NULL));
	}
	closedir(d);
}

static int size_cmp(const void *a, const void *b)
{
	long x = atol(*(const char *const *)a + strlen("hugepages-"));
	long y = atol(*(const char *const *)b + strlen("hugepages-"));

	return (x > y) - (x < y);
}

cJSON *fol_counters_snapshot(const char *root)
{
	char thp[PATH_MAX], path[PATH_MAX + 300];
	char *names[64];
	int n = 0;
	struct dirent *de;
	cJSON *snap = cJSON_CreateObject(), *t, *m;
	DIR *d;

	if (!snap)
		return NULL;
	add_vmstat(snap, root);
	snprintf(thp, sizeof(thp), "%s/sys/kernel/mm/transparent_hugepage", root);
	t = cJSON_AddObjectToObject(snap, "thp");
	snprintf(path, sizeof(path), "%s/enabled", thp);
	add_policy(t, "enabled", path);
	snprintf(path, sizeof(path), "%s/defrag", thp);
	add_policy(t, "defrag", path);
	snprintf(path, sizeof(path), "%s/hpage_pmd_size", thp);
	if (!read_line(path, path, sizeof(path)))
		cJSON_AddNumberToObject(t, "pmd_size", strtod(path, NULL));
	/* Whether a read fault of a THP-eligible range maps the huge zero page. */
	snprintf(path, sizeof(path), "%s/use_zero_page", thp);
	if (!read_line(path, path, sizeof(path)))
		cJSON_AddNumberToObject(t, "use_zero_page", strtod(path, NULL) != 0);
	m = cJSON_AddObjectToObject(snap, "mthp");
	d = opendir(thp);
	if (!d)
		return snap;
	while ((de = readdir(d)) && n < 64)
		if (!strncmp(de->d_name, "hugepages-", 10))
			names[n++] = strdup(de->d_name);
	closedir(d);
	qsort(names, (size_t)n, sizeof(*names), size_cmp);
	for (int i = 0; i < n; i++) {
		cJSON *sz;

		if (!names[i])
			continue;
		sz = cJSON_AddObjectToObject(m, names[i] + 10);
		snprintf(path, sizeof(path), "%s/%s/enabled", thp, names[i]);
		add_policy(sz, "enabled", path);
		snprintf(path, sizeof(path), "%s/%s/stats", thp, names[i]);
		add_stats(sz, path);
		free(names[i]);
	}
	return snap;
}

static cJSON *delta(const cJSON *b, const cJSON *a)
{
	cJSON *out, *item;

	if (cJSON_IsNumber(a))
		return cJSON_IsNumber(b) ? cJSON_CreateNumber(a->valuedouble - b->valuedouble) : NULL;
	if (cJSON_IsString(a))
		return cJSON_CreateString(a->valuestring);
	if (!cJSON_IsObject(a) || !cJSON_IsObject(b))
		return NULL;
	out = cJSON_CreateObject();
	cJSON_ArrayForEach(item, a)
	{
		cJSON *d = delta(cJSON_GetObjectItemCaseSensitive(b, item->string), item);

		if (d)
			cJSON_AddItemToObject(out, item->string, d);
	}
	return out;
}

cJSON *fol_counters_delta(const cJSON *before, const cJSON *after)
{
	if (!before || !after)
		return NULL;
	return delta(before, after);
}

int fol_swap_devices(void)
{
	FILE *f = fopen("/proc/swaps", "re");
	char line[256];
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	return n > 0 ? n - 1 : 0; /* the first line is the header */
}
