/* SPDX-License-Identifier: GPL-2.0-only */
/* The host's stand-in for libbpf's bpf/bpf_core_read.h (bpf_helpers.h says why): the
 * programs compiled here read no field by CO-RE but through kernel.bpf.h's structs. */
