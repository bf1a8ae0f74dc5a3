// SPDX-License-Identifier: GPL-2.0-only
/* The names and buckets of summary.h: what text, JSON and the TUI call things. */
#include "model/summary.h"

#include <stdio.h>
#include <string.h>

static const char *const class_names[FOL_NR_CLASSES] = {
	"anon_alloc", "anon_zero", "wp_reuse", "wp_copy", "file", "swap_in", "other", "special",
};

static const struct {
	const char *name, *text;
} unknown_names[FOL_NR_UNKNOWN] = {
	[FOL_U_BEFORE] = { "before_recording", "anonymous folios allocated before the recording "
		"began (during exec, before the events were enabled)" },
	[FOL_U_NOT_SEEDED] = { "not_seeded", "anonymous folios not among those read from the "
		"page tables at the start (exec or attach): not naturally aligned, or made since "
		"by the kernel without a recorded fault (collapse, migration, get_user_pages)" },
	[FOL_U_MOVED_UNALIGNED] = { "moved_unaligned", "folios read from the page tables at "
		"attach that mremap moved to an address not aligned to their size (such a run is "
		"not kept)" },
	[FOL_U_MREMAP_UNSEEN] = { "mremap_unseen", "memory of a process that moved it with "
		"mremap where the recording has no sys_exit_mremap (destination unknown)" },
	[FOL_U_FILE_CACHED] = { "file_cached", "file pages already in the page cache (the "
		"program's and its libraries' text and data): no folio was added in the fault, so "
		"its order is not in the events; the programs did not read it inside the fault "
		"(the samples path, or a fault that neither took its mm's lock nor raised a file "
		"RSS counter in a way the kernel traced), and there is no page cache read at the "
		"end (a live view, or a recording made before foliostat read it)" },
	[FOL_U_SWAP_CACHE] = { "swap_cache", "swap-ins served from the swap cache: the folio "
		"was allocated outside the fault, and the RSS counters did not say its size" },
	[FOL_U_ZERO_PAGE] = { "zero_page", "read faults that mapped a zero page where the huge "
		"zero page could have served (the first of a PMD-sized range of an anonymous VMA "
		"without MADV_NOHUGEPAGE): the events do not tell it from the 4K zero page" },
	[FOL_U_FILE_EVICTED] = { "file_evicted", "file pages already in the page cache at the "
		"fault, but no longer at the end of the recording, when the page cache was read" },
	[FOL_U_FILE_UNREAD] = { "file_unread", "file pages already in the page cache, of files "
		"that could not be read at the end of the recording (deleted, replaced, not a "
		"regular file)" },
};

const char *fol_unknown_name(enum fol_unknown u)
{
	return u < FOL_NR_UNKNOWN ? unknown_names[u].name : "?";
}

const char *fol_unknown_text(enum fol_unknown u)
{
	return u < FOL_NR_UNKNOWN ? unknown_names[u].text : "?";
}

const char *fol_class_name(enum fol_class c)
{
	return c < FOL_NR_CLASSES ? class_names[c] : "?";
}

int fol_class_parse(const char *s)
{
	for (int i = 0; i < FOL_NR_CLASSES; i++)
		if (!strcmp(s, class_names[i]))
			return i;
	return -1;
}

int fol_reuse_bucket(uint64_t n)
{
	int b = 0;

	while (n > 1 && b < FOL_REUSE_BUCKETS - 1) {
		n >>= 1;
		b++;
	}
	return b;
}

const char *fol_reuse_bucket_label(int b)
{
	static const char *const labels[FOL_REUSE_BUCKETS] = {
		"1", "2-3", "4-7", "8-15", "16-31", "32-63", "64-127", "128-255", "256-511", "512+",
	};

	return b >= 0 && b < FOL_REUSE_BUCKETS ? labels[b] : "?";
}

static const struct {
	const char *name, *key;
} call_names[FOL_NR_CALLS] = {
	[FOL_CALL_MUNMAP] = { "munmap", "munmap" },
	[FOL_CALL_MREMAP] = { "mremap", "mremap" },
	[FOL_CALL_MPROTECT] = { "mprotect", "mprotect" },
	[FOL_CALL_MADV_DONTNEED] = { "madvise(DONTNEED)", "madvise_dontneed" },
	[FOL_CALL_MADV_FREE] = { "madvise(FREE)", "madvise_free" },
	[FOL_CALL_MADV_COLD] = { "madvise(COLD)", "madvise_cold" },
	[FOL_CALL_MADV_PAGEOUT] = { "madvise(PAGEOUT)", "madvise_pageout" },
	[FOL_CALL_MADV_COLLAPSE] = { "madvise(COLLAPSE)", "madvise_collapse" },
	[FOL_CALL_MADV_POPULATE] = { "madvise(POPULATE)", "madvise_populate" },
	[FOL_CALL_MADV_OTHER] = { "madvise(other)", "madvise_other" },
	[FOL_CALL_MMAP_POPULATE] = { "mmap(POPULATE)", "mmap_populate" },
	[FOL_CALL_MLOCK] = { "mlock", "mlock" },
};

int fol_call_frees_user(enum fol_call c)
{
	return c != FOL_CALL_MPROTECT && c != FOL_CALL_MADV_COLD && !fol_call_populates(c);
}

int fol_call_populates(enum fol_call c)
{
	return c == FOL_CALL_MADV_POPULATE || c == FOL_CALL_MMAP_POPULATE || c == FOL_CALL_MLOCK;
}

const char *fol_call_name(enum fol_call c)
{
	return (unsigned)c < FOL_NR_CALLS ? call_names[c].name : "?";
}

const char *fol_call_key(enum fol_call c)
{
	return (unsigned)c < FOL_NR_CALLS ? call_names[c].key : "?";
}

/* vmscan:mm_vmscan_write_folio names a page frame, and no split is traced: a folio split
 * out of sight (partly mapped, queued for a deferred split and split before the write,
 * its unmapped pages freed by another task) whose first page alone is written looks
 * written whole (the cow selftest on a swap file: 24 such where every size's swpout
 * moved by 0). The kernel's count bounds them. */
uint64_t fol_swapout_bound(struct fol_swapout *sw, int order, uint64_t *most)
{
	uint64_t keep, over;

	if (order < 0 || order > FOL_MAX_ORDER)
		return 0;
	keep = sw->whole[order] < *most ? sw->whole[order] : *most;
	over = sw->whole[order] - keep;
	*most -= keep;
	sw->whole[order] = keep;
	sw->split[order] += over;
	sw->pieces[order] += over;
	return over;
}

void fol_swapout_add(struct fol_swapout *to, const struct fol_swapout *from)
{
	for (int i = 0; i <= FOL_MAX_ORDER; i++) {
		to->whole[i] += from->whole[i];
		to->split[i] += from->split[i];
		to->pieces[i] += from->pieces[i];
	}
	to->unknown += from->unknown;
}
