#!/usr/bin/env python3
"""Checks for the browser test, stdlib only.

  dom FILE [--tables N] [--svgs N] [--rows N] [--shown-rows N] [--sorted-desc KEY]
      FILE is Chromium's --dump-dom output. The page's script must have run to the end
      (<body data-ready="ok">) and recorded no error; counts are exact.
  png FILE --width W --height H --min-colours N
      The screenshot has the size asked for and at least N distinct colours (not blank).
  widths FILE --max PX
      FILE is a --dump-dom of a page whose <body data-table-widths="..."> lists its tables'
      widths in pixels; each must be at most PX.
  count-rows REPORT.json [--op OP] [--verdict VERDICT]
      Prints how many result rows match, as the page's filter would show them.
"""
import argparse
import json
import struct
import sys
import zlib
from html.parser import HTMLParser


class PageDom(HTMLParser):
    """Counts tables, charts and result rows; remembers <body> attributes and row cells."""

    def __init__(self):
        super().__init__()
        self.body = {}
        self.tables = self.svgs = 0
        self.tables_stack = []  # per open table: {"sortable", "keys", "rows"}
        self.finished_tables = []
        self.in_tbody = False
        self.row = None
        self.cell = None
        self.script_errors = None
        self.in_errors = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        elif tag == "svg":
            self.svgs += 1
        elif tag == "table":
            self.tables += 1
            self.tables_stack.append({"sortable": "sortable" in a.get("class", "").split(), "keys": [], "rows": []})
        elif tag == "th" and self.tables_stack:
            self.tables_stack[-1]["keys"].append(a.get("data-key"))
        elif tag == "tbody":
            self.in_tbody = True
        elif tag == "tr" and self.in_tbody and self.tables_stack:
            self.row = {"hidden": "hidden" in a, "cells": [], "data": a}
            self.tables_stack[-1]["rows"].append(self.row)
        elif tag == "td" and self.row is not None:
            self.cell = {"sort": a.get("data-sort"), "text": ""}
            self.row["cells"].append(self.cell)
        elif tag == "pre" and a.get("id") == "script-errors":
            self.in_errors, self.script_errors = True, ""

    def handle_endtag(self, tag):
        if tag == "table" and self.tables_stack:
            self.finished_tables.append(self.tables_stack.pop())
        elif tag == "tbody":
            self.in_tbody = False
        elif tag == "tr":
            self.row = None
        elif tag == "td":
            self.cell = None
        elif tag == "pre":
            self.in_errors = False

    def handle_data(self, data):
        if self.cell is not None:
            self.cell["text"] += data
        if self.in_errors:
            self.script_errors += data


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def expect_count(name, actual, wanted):
    if wanted is not None and actual != wanted:
        fail(f"{name}: expected {wanted}, found {actual}")


def sort_values(table, key):
    index = table["keys"].index(key)
    values = []
    for row in table["rows"]:
        if row["hidden"]:
            continue
        raw = row["cells"][index]["sort"]
        raw = raw if raw is not None else row["cells"][index]["text"].strip()
        try:
            values.append(float(raw))
        except ValueError:
            values.append(None)
    return values


def check_dom(args):
    page = PageDom()
    with open(args.file, encoding="utf-8") as f:
        page.feed(f.read())
    if page.body.get("data-ready") != "ok":
        fail(f"{args.file}: the page script did not finish (data-ready={page.body.get('data-ready')!r})")
    if page.script_errors:
        fail(f"{args.file}: script errors: {page.script_errors.strip()}")
    rows = [row for table in page.finished_tables if table["sortable"] for row in table["rows"]]
    shown = [row for row in rows if not row["hidden"]]
    expect_count("tables", page.tables, args.tables)
    expect_count("svg charts", page.svgs, args.svgs)
    expect_count("table rows", len(rows), args.rows)
    expect_count("rows shown", len(shown), args.shown_rows)
    if args.shown_rows is not None and page.body.get("data-shown-rows") != str(args.shown_rows):
        fail(f"body data-shown-rows is {page.body.get('data-shown-rows')!r}, expected {args.shown_rows}")
    if args.sorted_desc:
        for table in page.finished_tables:
            if args.sorted_desc in table["keys"]:
                values = [v for v in sort_values(table, args.sorted_desc) if v is not None]
                if values != sorted(values, reverse=True):
                    fail(f"column {args.sorted_desc} is not sorted descending: {values}")
    print(f"ok: {args.file}: {page.tables} tables, {page.svgs} charts, {len(shown)}/{len(rows)} rows shown")


def png_pixels(path, max_rows):
    """Decodes an 8-bit RGB or RGBA PNG (what Chromium writes); returns (width, height, rows)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(f"{path} is not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, colour_type = header[:4]
    if depth != 8 or colour_type not in (2, 6):
        fail(f"{path}: unsupported PNG (bit depth {depth}, colour type {colour_type})")
    bpp = 4 if colour_type == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * bpp
    previous = bytearray(stride)
    rows = []
    for y in range(min(height, max_rows)):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up = previous[i]
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + ((left + up) >> 1)) & 255
            elif kind == 4:
                upper_left = previous[i - bpp] if i >= bpp else 0
                p = left + up - upper_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else upper_left)) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, bpp, rows


def check_png(args):
    width, height, bpp, rows = png_pixels(args.file, max_rows=700)
    expect_count("screenshot width", width, args.width)
    expect_count("screenshot height", height, args.height)
    colours = set()
    for line in rows:
        for x in range(0, len(line), bpp):
            colours.add(line[x:x + 3])
    if len(colours) < args.min_colours:
        fail(f"{args.file}: only {len(colours)} distinct colours in the top 700 rows; the page looks blank")
    print(f"ok: {args.file}: {width}x{height}, {len(colours)} distinct colours in the top 700 rows")


def check_widths(args):
    page = PageDom()
    with open(args.file, encoding="utf-8") as f:
        page.feed(f.read())
    widths = page.body.get("data-table-widths")
    if not widths:
        fail(f"{args.file}: no table widths recorded")
    values = [float(w) for w in widths.split()]
    if max(values) > args.max:
        fail(f"{args.file}: a table is {max(values):.0f} px wide, more than {args.max} (widths {widths})")
    print(f"ok: {args.file}: {len(values)} tables, the widest {max(values):.0f} px")


def count_rows(args):
    with open(args.report, encoding="utf-8") as f:
        report = json.load(f)

    def verdict(row):
        return row["status"] if row["status"] in ("skipped", "error") else row["disposition"]

    matching = [r for r in report["results"]
                if (args.op is None or r["op"] == args.op) and (args.verdict is None or verdict(r) == args.verdict)]
    print(len(matching))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    dom = sub.add_parser("dom")
    dom.add_argument("file")
    for name in ("--tables", "--svgs", "--rows", "--shown-rows"):
        dom.add_argument(name, type=int)
    dom.add_argument("--sorted-desc")
    png = sub.add_parser("png")
    png.add_argument("file")
    png.add_argument("--width", type=int)
    png.add_argument("--height", type=int)
    png.add_argument("--min-colours", type=int, default=64)
    widths = sub.add_parser("widths")
    widths.add_argument("file")
    widths.add_argument("--max", type=float, required=True)
    rows = sub.add_parser("count-rows")
    rows.add_argument("report")
    rows.add_argument("--op")
    rows.add_argument("--verdict")
    args = parser.parse_args()
    {"dom": check_dom, "png": check_png, "widths": check_widths, "count-rows": count_rows}[args.command](args)


if __name__ == "__main__":
    main()
