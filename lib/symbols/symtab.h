/* SPDX-License-Identifier: GPL-2.0-only */
/* A module's symbols sorted by address, to name a code address without libdwfl's linear
 * search over every symbol (dwfl_module_addrinfo took a millisecond a lookup in cc1 and
 * libLLVM: most of a build report's time). Exact: it answers only where the answer is
 * certainly the one libdwfl gives, and says to ask libdwfl otherwise (symbols.c). */
#ifndef FOL_SYMTAB_H
#define FOL_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

struct fol_sym {
	uint64_t value, size;	/* module addresses, as libdwfl adjusts them */
	int bind;		/* 3 global, 2 weak, 1 local, 0 other: libdwfl's preference */
	int index;		/* in the module's symbol table: libdwfl's order */
	uint32_t shndx;		/* its section (of the module's main ELF file) */
	const char *name;	/* the module's string, valid while it is */
};

struct fol_symtab;

/* The symbols libdwfl would consider (named, defined, not a section, file or TLS
 * symbol), n of them, in any order; copied. first_global: the index libdwfl's search
 * starts at (dwfl_module_getsymtab_first_global), the ones below it searched after. NULL
 * out of memory. */
struct fol_symtab *fol_symtab_from(const struct fol_sym *v, size_t n, int first_global);
void fol_symtab_free(struct fol_symtab *t);
/* 1 and the symbol naming addr when it is certain: among the sized symbols holding addr,
 * one starts nearest below addr and binds most strongly, and the smallest such (the
 * first in the table of equals) is unique in start, binding and size; and no sizeless
 * symbol starts at addr; and, when it is of the symbols searched last, none of those
 * searched first holds addr. libdwfl then names it whatever the order of its search.
 * -1 when certainly none does: no sized symbol holds addr, and no sizeless one it could
 * take (an assembly label of addr's section, addr_shndx, that no symbol before it ends
 * past) starts at or below it: the code of a stripped file's static functions. 0: ask
 * libdwfl. */
int fol_symtab_find(const struct fol_symtab *t, uint64_t addr, uint32_t addr_shndx,
		    const struct fol_sym **sym);
/* Where fol_symtab_find says 0 because no sized symbol holds addr (a sizeless one might,
 * by libdwfl's rules): the stretch between two symbol starts that addr is inside of.
 * libdwfl's answer is the same for every address of one stretch in one section that
 * no sized symbol holds (the symbols at or below it are the same, none holds it), so
 * an answer of none can be kept for the stretch. UINT64_MAX when that is not the case
 * (a sized symbol holds addr, or a symbol starts at addr). */
uint64_t fol_symtab_stretch(const struct fol_symtab *t, uint64_t addr);
/* addr_shndx when addr's section is not known: any sizeless symbol below may count. */
#define FOL_SYMTAB_ANY_SECTION UINT32_MAX

#endif
