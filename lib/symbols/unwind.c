// SPDX-License-Identifier: GPL-2.0-only
#include "symbols/unwind.h"
#include "symbols/debugsearch.h"
#include "symbols/recorded.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where each DWARF register of x86-64 (rax, rdx, rcx, rbx, rsi, rdi, rbp, rsp, r8..r15,
 * rip: the ABI's numbering) is among the PERF_REG_X86_* bits. */
static const int dwarf_to_perf[17] = { 0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8 };
#define PERF_REG_SP 7

struct fol_unwinder {
	char *symfs;
	struct fol_debug_search search; /* its modules', under symfs */
	Dwfl *dwfl;		/* the modules of the set of mappings given last */
	int attached;
	const struct fol_unwind_sample *s; /* the sample being unwound */
	uint64_t sp;
	uint64_t *ips;
	int n, max;
};

static const Dwfl_Callbacks offline = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = fol_debug_search_find,
	.section_address = dwfl_offline_section_address,
};

struct fol_unwinder *fol_unwinder_new(const char *symfs)
{
	struct fol_unwinder *u = calloc(1, sizeof(*u));

	if (u && symfs && !(u->symfs = strdup(symfs))) {
		free(u);
		return NULL;
	}
	if (u)
		u->search.root = u->symfs;
	return u;
}

void fol_unwinder_free(struct fol_unwinder *u)
{
	if (!u)
		return;
	if (u->dwfl)
		dwfl_end(u->dwfl);
	free(u->symfs);
	free(u);
}

/* A register of the sample, by its PERF_REG_X86_* number; 0 if it was not recorded. */
static uint64_t reg(const struct fol_unwind_sample *s, int perf_reg)
{
	uint64_t v = 0;
	int k = 0;

	if (!(s->regs_mask & (1ull << perf_reg)))
		return 0;
	for (int b = 0; b < perf_reg; b++)
		k += !!(s->regs_mask & (1ull << b));
	memcpy(&v, (const char *)s->regs + 8 * k, 8);
	return v;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	if (*thread_argp)
		return 0;
	*thread_argp = arg;
	return dwfl_pid(dwfl);
}

/* Only the copied stack is known memory: anything else (the binaries' own data) is
 * refused, and the unwind stops there. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	const struct fol_unwinder *u = arg;

	(void)dwfl;
	if (addr < u->sp || addr - u->sp > u->s->stack_size || u->s->stack_size - (addr - u->sp) < 8)
		return false;
	memcpy(result, (const char *)u->s->stack + (addr - u->sp), 8);
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct fol_unwinder *u = arg;
	Dwarf_Word regs[17];

	for (int i = 0; i < 17; i++)
		regs[i] = reg(u->s, dwarf_to_perf[i]);
	return dwfl_thread_state_registers(thread, 0, 17, regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int frame(Dwfl_Frame *state, void *arg)
{
	struct fol_unwinder *u = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation) || !pc)
		return DWARF_CB_ABORT;
	u->ips[u->n++] = pc;
	return u->n < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* The process's ELF files as libdwfl modules, each at the address its offset 0 is
 * mapped at (a file not ELF, or missing, is left out: its frames end the unwind). */
int fol_unwinder_set_maps(struct fol_unwinder *u, const struct fol_unwind_map *maps, int nmaps)
{
	if (u->dwfl)
		dwfl_end(u->dwfl);
	u->attached = 0;
	if (!(u->dwfl = dwfl_begin(&offline)))
		return -ENOMEM;
	dwfl_report_begin(u->dwfl);
	for (int i = 0; i < nmaps; i++) {
		char path[4096];
		Dwfl_Module *mod;
		int seen = 0, fd;

		if (maps[i].path[0] != '/' || maps[i].pgoff > maps[i].start)
			continue;
		for (int k = 0; k < i && !seen; k++)
			seen = !strcmp(maps[k].path, maps[i].path);
		if (seen)
			continue;
		fd = fol_open_recorded(u->symfs, maps[i].path);
		if (fd < 0)
			continue;
		snprintf(path, sizeof(path), "%s%s", u->symfs ? u->symfs : "", maps[i].path);
		/* The descriptor is the module's once reported; not when no module is made. */
		mod = dwfl_report_elf(u->dwfl, maps[i].path, path, fd, maps[i].start - maps[i].pgoff, false);
		if (mod)
			fol_debug_search_set(mod, &u->search);
		else
			close(fd);
	}
	return dwfl_report_end(u->dwfl, NULL, NULL) ? -ENOMEM : 0;
}

int fol_unwind(struct fol_unwinder *u, const struct fol_unwind_sample *s, uint64_t *ips, int max)
{
	if (!u->dwfl || max <= 0 || !s->stack_size || !(s->regs_mask & (1ull << PERF_REG_SP)))
		return 0;
	/* One state for the Dwfl's life: the sample it reads is switched under it. */
	if (!u->attached) {
		if (!dwfl_attach_state(u->dwfl, NULL, 1, &thread_callbacks, u))
			return 0;
		u->attached = 1;
	}
	u->s = s;
	u->sp = reg(s, PERF_REG_SP);
	u->ips = ips;
	u->n = 0;
	u->max = max;
	/* An unwind that stops early (no CFI for a frame, a frame above the copied stack)
	 * keeps the frames found before it. */
	dwfl_getthread_frames(u->dwfl, 1, frame, u);
	u->s = NULL;
	return u->n;
}
