#!/usr/bin/env python3
"""Digests Nsight Compute's per-SASS-instruction counts: a file from
`ncu --section SourceCounters --page source --print-source sass --csv` (plain or gzipped), one
block per profiled kernel. For each kernel: the warp instructions executed, by opcode, and the
stall samples by reason; with --per N every count is also divided by N (a unit of work, e.g. the
warp-rows of a row kernel: rows x CTAs a row x consumer warps), and --hot F lists the lines that
executed at least F of the unit each, or, without --per, the lines holding the most stall samples.

  scripts/device/ncu-sass-digest.py sass.csv.gz [--per 524288] [--hot 0.5] [--kernel REGEX]

How counts were used: docs/notes/memory-bound-round3.md, "Twenty-fifth" and "Thirty-fourth"."""
import argparse
import collections
import csv
import gzip
import re
import sys


def read_lines(path):
    with open(path, "rb") as f:
        magic = f.read(2)
    opener = gzip.open if magic == b"\x1f\x8b" else open
    with opener(path, "rt", newline="") as f:
        return f.read().splitlines()


def kernels(lines):
    """Yields (kernel name, header, rows) for each `"Kernel Name"` block of the file."""
    name, header, rows = None, None, []
    for record in csv.reader(lines):
        if not record:
            continue
        if record[0] == "Kernel Name":
            if header:
                yield name, header, rows
            name, header, rows = record[1] if len(record) > 1 else "?", None, []
        elif record[0] == "Address":
            header = record
        elif header and len(record) == len(header):
            rows.append(record)
    if header:
        yield name, header, rows


def count(text):
    try:
        return int(text.replace(",", "") or 0)
    except ValueError:
        return 0


def opcode(source):
    words = source.split()
    if words and words[0].startswith("@"):  # a predicate guard
        words = words[1:]
    return words[0].split(".")[0] if words else "?"


def digest(name, header, rows, per, hot, top):
    executed, source = header.index("Instructions Executed"), header.index("Source")
    samples = header.index("Warp Stall Sampling (All Samples)")
    stall_columns = [i for i, h in enumerate(header) if h.startswith("stall_") and "(Not Issued)" not in h]
    by_opcode, by_stall = collections.Counter(), collections.Counter()
    total = total_samples = 0
    for r in rows:
        n = count(r[executed])
        by_opcode[opcode(r[source])] += n
        total += n
        total_samples += count(r[samples])
        for i in stall_columns:
            by_stall[header[i][len("stall_"):]] += count(r[i])
    scale = f", {total / per:.1f} a unit of {per:g}" if per else ""
    print(f"== {name[:110]}")
    print(f"  {total / 1e6:.2f} M warp instructions{scale}; {total_samples} stall samples")
    unit = per or total / 100.0
    label = "a unit" if per else "% of all"
    print(f"  by opcode ({label}): " + ", ".join(f"{op} {n / unit:.1f}" for op, n in by_opcode.most_common(top)))
    if total_samples:
        print("  stall samples (% of all): " +
              ", ".join(f"{s} {100.0 * n / total_samples:.1f}" for s, n in by_stall.most_common(10) if n))
    if per and hot is not None:
        print(f"  lines executed at least {hot:g} a unit (address, a unit, stall samples, SASS):")
        for r in rows:
            if count(r[executed]) >= hot * per:
                print(f"    {r[0][-6:]} {count(r[executed]) / per:7.2f} {count(r[samples]):7d}  {r[source].strip()}")
    elif total_samples:
        print("  lines with the most stall samples (address, samples, SASS):")
        for r in sorted(rows, key=lambda r: -count(r[samples]))[:top]:
            print(f"    {r[0][-6:]} {count(r[samples]):7d}  {r[source].strip()}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("file", help="ncu --page source --print-source sass --csv output (.gz read as it is)")
    p.add_argument("--per", type=float, default=0.0, help="divide every count by this many units of work")
    p.add_argument("--hot", type=float, default=None, help="with --per: list lines executed at least this often a unit")
    p.add_argument("--kernel", default="", help="only kernels whose name matches this regex")
    p.add_argument("--top", type=int, default=25, help="opcodes (and lines) listed")
    o = p.parse_args()
    if o.per < 0 or (o.hot is not None and o.hot < 0) or o.top <= 0:
        p.error("--per and --hot take non-negative numbers, --top a positive one")
    try:
        lines = read_lines(o.file)
    except (OSError, EOFError, gzip.BadGzipFile) as e:
        sys.exit(f"{o.file}: cannot read: {e}")
    pattern = re.compile(o.kernel)
    found = 0
    for name, header, rows in kernels(lines):
        if "Instructions Executed" not in header or not pattern.search(name):
            continue
        digest(name, header, rows, o.per, o.hot, o.top)
        found += 1
    if not found:
        sys.exit(f"{o.file}: no kernel with per-instruction counts"
                 + (f" matching {o.kernel!r}" if o.kernel else "") + " (was it made with --page source --print-source sass?)")


if __name__ == "__main__":
    main()
