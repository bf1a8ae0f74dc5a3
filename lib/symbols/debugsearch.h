/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef FOL_DEBUGSEARCH_H
#define FOL_DEBUGSEARCH_H

#include <elfutils/libdwfl.h>

/*
 * Where a module's separate debug info is looked for, kept inside one root directory.
 * libdwfl's dwfl_standard_find_debuginfo joins a file's .gnu_debuglink to its directory
 * and opens what it names: in an archive, a packed binary whose link was "../" twelve
 * times and a path opened that path on the host (a FIFO blocked the report forever;
 * /dev/zero and /etc/shadow were opened). Here every candidate is opened through
 * fol_open_recorded (symbols.h): under the root, regular files only, nothing that blocks.
 *
 * The places are libdwfl's, in its order: /usr/lib/debug/.build-id/xx/rest.debug of the
 * module's build-id; the debug link (a bare file name: one with a '/' is refused) in the
 * file's directory, its .debug/ and /usr/lib/debug/ + the directory. A file found must
 * have the module's build-id when it has one, and the link's CRC when it is not 0. The
 * dwz file a debug file names in .gnu_debugaltlink is looked for by its build-id, then by
 * the name (relative to the debug file's directory, still under the root), and must have
 * that build-id.
 */

struct fol_debug_search {
	const char *root; /* NULL or "" for /; files are reported to libdwfl as root + path */
	int inflate;	  /* the build-id's debug file inflated (debugfile.h), kept in the cache */
};

/* Set s (which must outlive mod's Dwfl) as the module's search. */
void fol_debug_search_set(Dwfl_Module *mod, struct fol_debug_search *s);

/* A Dwfl_Callbacks.find_debuginfo: a descriptor and its name (malloc'd, root + path), or
 * -1 (nothing found). Without a search set, the root is /. */
int fol_debug_search_find(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name);

#endif
