#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The debuglink fuzz target's inputs (tests/fuzz/fuzz_debuglink.c): a small program built
with -g and stripped, "FOLS", its debug file, "FOLS", a dwz stand-in (the debug file
again, whose build-id the debug file's altlink names). debuglink_seeds.py DIR writes
DIR/inside (every link resolves under the symfs), DIR/outside-link (the debug link climbs
out to a FIFO, as in the archive of issue 45) and DIR/outside-alt-{abs,rel} (the altlink
names a FIFO outside, absolute and by ".."). The same program each time: gcc is given
the source on stdin, so the files are the same on one machine."""
import os
import struct
import subprocess
import sys
import tempfile
import zlib

OUT = "/tmp/foliostat-fuzz-outside"
CLIMB = "../" * 12
SOURCE = b"static int f(int x) { return x * 3 + 1; }\nint main(int c, char **v) { (void)v; return f(c); }\n"


def run(*args, **kw):
    subprocess.run(args, check=True, **kw)


def section(path, name, tail):
    data = name.encode() + b"\0"
    data += b"\0" * (-len(data) % 4) + tail
    with open(path, "wb") as f:
        f.write(data)


def build_id(path):
    out = subprocess.run(["readelf", "-n", path], check=True, capture_output=True, text=True).stdout
    return bytes.fromhex(next(l.split()[-1] for l in out.splitlines() if "Build ID" in l))


def seed(t, dest, link, alt):
    m, d, s, sec = (os.path.join(t, n) for n in ("m", "m.debug", "s", "sec"))
    d2 = d + ".alt"
    section(sec, alt, build_id(m))
    run("objcopy", "--add-section", ".gnu_debugaltlink=" + sec, d, d2)
    with open(d2, "rb") as f:
        crc = zlib.crc32(f.read())
    section(sec, link, struct.pack("<I", crc))
    run("objcopy", "--strip-all", "--remove-section=.gnu_debuglink", "--add-section",
        ".gnu_debuglink=" + sec, m, s)
    with open(dest, "wb") as f:
        for i, p in enumerate((s, d2, d)):
            with open(p, "rb") as g:
                f.write((b"FOLS" if i else b"") + g.read())


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as t:
        run("gcc", "-g", "-O1", "-x", "c", "-", "-o", os.path.join(t, "m"), input=SOURCE)
        run("objcopy", "--only-keep-debug", os.path.join(t, "m"), os.path.join(t, "m.debug"))
        seed(t, os.path.join(out, "inside"), "m.debug", "../../alt.dwz")
        seed(t, os.path.join(out, "outside-link"), CLIMB + OUT[1:] + "/m.debug", "../../alt.dwz")
        seed(t, os.path.join(out, "outside-alt-abs"), "m.debug", OUT + "/fifo")
        seed(t, os.path.join(out, "outside-alt-rel"), "m.debug", CLIMB + OUT[1:] + "/fifo")


main()
