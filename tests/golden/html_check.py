#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# Reads back what headless Chromium made of compare --html: DOM (--dump-dom) and
# screenshot (--screenshot). Prints one line per violation; nothing when the page holds
# compare --json's figures and the screenshot shows each side's colour drawn.
# Usage: html_check.py DOM JSON PNG
#        html_check.py --strips SVG PNG: the SVG's rows (compare --format svg), screenshot
#        as PNG: each row's second side's mean drawn where its change puts it on the
#        common axis, so that rows of +4.8% and +2382% are not drawn alike.
import json
import re
import struct
import sys
import zlib
from html.parser import HTMLParser

COLOURS = ["#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377"]


class Page(HTMLParser):
    """The figure rows (data-key, data-mean, the cells' text) and the distributions."""

    def __init__(self):
        super().__init__()
        self.rows, self.cells, self.row, self.text = {}, [], None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "tr" and "data-key" in a:
            self.row = {"mean": a["data-mean"].split(), "td": []}
            self.rows[a["data-key"]] = self.row
        elif tag == "td" and self.row is not None:
            self.text = ""
        elif tag == "figure" and "data-cell" in a:
            self.cells.append((a["data-cell"], a["data-faults"].split()))

    def handle_data(self, data):
        if self.text is not None:
            self.text += data

    def handle_endtag(self, tag):
        if tag == "td" and self.row is not None and self.text is not None:
            self.row["td"].append(self.text.strip())
            self.text = None
        elif tag == "tr":
            self.row = None


def png_pixels(path):
    """(width, height, rows of RGB(A) bytes): PNG unfiltered by hand, the standard
    library has no image reader."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), "8-bit RGB(A) expected"
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def main(dom, js, png):
    page = Page()
    page.feed(open(dom, encoding="utf-8").read())
    cmp = json.load(open(js))
    nsides = len(cmp["sides"])
    for fig in cmp["figures"]:
        row = page.rows.get(fig["key"])
        if row is None:
            print("figure %s: not on the page" % fig["key"])
            continue
        for s, v in enumerate(fig["values"]):
            got = float(row["mean"][s])
            want = v["mean"] if v else float("nan")
            if not (got == want or (got != got and want != want) or abs(got - want) <= 1e-12 * abs(want)):
                print("figure %s side %d: page %r, JSON %r" % (fig["key"], s, got, want))
        if row["td"][0] != fig["label"]:
            print("figure %s: label %r, JSON %r" % (fig["key"], row["td"][0], fig["label"]))
    if len(page.rows) != len(cmp["figures"]):
        print("%d figures on the page, %d in the JSON" % (len(page.rows), len(cmp["figures"])))
    if not page.cells or any(len(f) != nsides for _, f in page.cells):
        print("latency distributions: %r" % page.cells)
    w, h, bpp, rows = png_pixels(png)
    seen = {}
    for line in rows:
        for x in range(0, w * bpp, bpp):
            k = "#%02x%02x%02x" % tuple(line[x:x + 3])
            seen[k] = seen.get(k, 0) + 1
    # A few pixels of any colour come of blending others: a side's marks are hundreds.
    for s in range(nsides):
        if seen.get(COLOURS[s % len(COLOURS)], 0) < 50:
            print("screenshot: side %d's colour %s drawn on %d pixels" % (s, COLOURS[s % len(COLOURS)],
                                                                      seen.get(COLOURS[s % len(COLOURS)], 0)))


def strips(svg, png):
    """The x of side 1's mean bar (an opaque rectangle of its colour) in each row's band
    of the screenshot, against the change the row's text gives."""
    text = open(svg, encoding="utf-8").read()
    rows = re.findall(r'<g class="row" data-key="([^"]*)" data-y="(\d+)" data-h="(\d+)">(.*?)</g>', text)
    w, h, bpp, px = png_pixels(png)
    want = tuple(int(COLOURS[1][i:i + 2], 16) for i in (1, 3, 5))
    xs = {}
    for key, y, hh, body in rows:
        change = float(re.search(r'>([+-][0-9.]+)%', body).group(1))
        hits = [x for yy in range(int(y), min(h, int(y) + int(hh)))
                for x in range(250, min(w, 250 + 420)) if tuple(px[yy][x * bpp:x * bpp + 3]) == want]
        if not hits:
            print("row %s: side 1's colour not drawn in its strip" % key)
            continue
        xs[key] = (sum(hits) / len(hits), change)
    if len(xs) != 2:
        print("strips: %d rows read, 2 wanted: %r" % (len(xs), xs))
        return
    (x1, c1), (x2, c2) = sorted(xs.values(), key=lambda v: abs(v[1]))
    zero = 250 + 420 / 2
    # A quarter of the strip apart; the small change within 20 pixels of 0, the large one
    # past 150 on its side.
    if abs(x2 - x1) < 420 / 4 or abs(x1 - zero) > 20 or (x2 - zero) * c2 < 150 * abs(c2):
        print("strips: %+.1f%% at x %.0f, %+.1f%% at x %.0f (0 at %.0f): drawn alike" % (c1, x1, c2, x2, zero))


if sys.argv[1] == "--strips":
    strips(*sys.argv[2:])
else:
    main(*sys.argv[1:])
