#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The BPF programs' stack along their calls, as the kernel's verifier adds it up.

Each BPF-to-BPF call stacks the callee's frame on the caller's, every frame rounded up
to 32 bytes, and the verifier refuses a program whose deepest chain passes 512 bytes.
Older verifiers track less and count the same: Debian's 6.1 refused fault_exit ("combined
stack size of 5 calls is 544") that 6.18 loaded, and only a guest showed it. This reads
the linked object (llvm-objdump) and fails the build when a chain passes the limit.

Usage: check-bpf-stack.py OBJECT [--print]
"""
import re
import subprocess
import sys

LIMIT = 512  # MAX_BPF_STACK
FRAME = 32   # the verifier rounds each frame up to this


def objdump(*args):
    return subprocess.run(["llvm-objdump", *args], check=True, capture_output=True, text=True).stdout


def functions(obj):
    """(section, first instruction, end) -> name, of every function symbol."""
    out = []
    for line in objdump("-t", obj).splitlines():
        m = re.match(r"([0-9a-f]+) .{6}F (\S+)\s+([0-9a-f]+)\s+(?:\.hidden )?(\S+)$", line)
        if m:
            addr, size = int(m.group(1), 16), int(m.group(3), 16)
            out.append((m.group(2), addr // 8, (addr + size) // 8, m.group(4)))
    return out


def walk(obj, funcs):
    """Each function's deepest stack offset, and the functions it calls."""
    def owner(sec, idx):
        for s, lo, hi, name in funcs:
            if s == sec and lo <= idx < hi:
                return name
        return None

    depth = {f[3]: 0 for f in funcs}
    calls = {f[3]: set() for f in funcs}
    sec, pending, fp = None, None, set()
    for line in objdump("-dr", obj).splitlines():
        m = re.match(r"Disassembly of section (\S+):", line)
        if m:
            sec = m.group(1)
            continue
        # A call relocated against a function goes to it; against a section, to the
        # instruction imm + 1 of that section (libbpf's reading).
        m = re.match(r"\s+[0-9a-f]+:\s+R_BPF_64_32\s+(\S+)", line)
        if m and pending:
            fn, target, imm = pending
            calls[fn].discard(target)
            sym = m.group(1)
            calls[fn].add(owner(sym, imm + 1) if sym.startswith(".") else sym)
            pending = None
            continue
        m = re.match(r"\s+(\d+):\t((?:[0-9a-f]{2} ){7}[0-9a-f]{2})\s+(.*)$", line)
        if not m:
            continue
        idx, raw, text = int(m.group(1)), m.group(2).split(), m.group(3)
        fn = owner(sec, idx)
        pending = None
        if fn is None:
            continue
        for off in re.findall(r"r10 - (\d+)", text):
            depth[fn] = max(depth[fn], int(off))
        # A pointer into the frame: rN = r10, then rN += -off.
        a = re.match(r"r(\d+) = r10$", text)
        b = re.match(r"r(\d+) \+= -(\d+)$", text)
        if b and b.group(1) in fp:
            depth[fn] = max(depth[fn], int(b.group(2)))
        elif a:
            fp.add(a.group(1))
        else:
            d = re.match(r"[rw](\d+) ", text)
            if d:
                fp.discard(d.group(1))
        if raw[0] == "85" and raw[1] == "10":  # call, src_reg 1: another BPF function
            imm = int.from_bytes(bytes.fromhex("".join(raw[4:8])), "little", signed=True)
            target = owner(sec, idx + imm + 1)
            if target:
                calls[fn].add(target)
            pending = (fn, target, imm)
    return depth, calls


def frame(d):
    return (max(d, 1) + FRAME - 1) // FRAME * FRAME


def deepest(fn, depth, calls, seen=()):
    """The deepest chain from fn: (bytes, [(function, frame)...])."""
    best = (0, [])
    for c in sorted(calls.get(fn, ())):
        if c in seen or c not in depth:
            continue
        best = max(best, deepest(c, depth, calls, seen + (fn,)), key=lambda x: x[0])
    return frame(depth[fn]) + best[0], [(fn, frame(depth[fn]))] + best[1]


def main():
    obj = sys.argv[1]
    funcs = functions(obj)
    depth, calls = walk(obj, funcs)
    worst, bad = None, 0
    for sec, _, _, name in funcs:
        if sec == ".text":
            continue  # not a program: reached through one
        total, chain = deepest(name, depth, calls)
        text = " + ".join(f"{f} {n}" for f, n in chain)
        if "--print" in sys.argv:
            print(f"{name}: {total} bytes ({text})")
        if total > LIMIT:
            print(f"check-bpf-stack: {obj}: {name}'s calls stack {total} bytes, past the "
                  f"verifier's {LIMIT} ({text}); older kernels refuse it: move a large "
                  "local into a per-CPU array", file=sys.stderr)
            bad = 1
        if worst is None or total > worst[0]:
            worst = (total, name, text)
    if worst and not bad:
        print(f"ok - the BPF programs' deepest calls stack {worst[0]} of the verifier's {LIMIT} "
              f"bytes ({worst[1]})")
    return bad


if __name__ == "__main__":
    sys.exit(main())
