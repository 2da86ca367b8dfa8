#!/usr/bin/env python3
"""Prints one line per kernel from an `ncu --csv --page raw` file: time, DRAM GB/s and bytes,
L2 hit rate, occupancy and issue activity. Kernels of the harness itself (input fills, hashes)
show up too; their names say so."""
import csv
import sys


TO_MS = {"nsecond": 1e-6, "ns": 1e-6, "usecond": 1e-3, "us": 1e-3, "msecond": 1.0, "ms": 1.0, "second": 1e3, "s": 1e3}
TO_BYTES = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "Tbyte": 1e12, "KB": 1e3, "MB": 1e6, "GB": 1e9}


def number(row, key):
    try:
        return float(row.get(key, "").replace(",", ""))
    except ValueError:
        return float("nan")


def main(path):
    with open(path, newline="") as f:
        lines = [line for line in f if line.startswith('"')]
    rows = list(csv.DictReader(lines))
    if len(rows) < 2:
        print(f"{path}: no kernels profiled")
        return
    units = rows[0]
    print(f"== {path}")
    for row in rows[1:]:
        name = row.get("Kernel Name", "?")[:60]
        t_ms = number(row, "gpu__time_duration.sum") * TO_MS.get(units.get("gpu__time_duration.sum"), float("nan"))
        rd = number(row, "dram__bytes_read.sum") * TO_BYTES.get(units.get("dram__bytes_read.sum"), float("nan"))
        wr = number(row, "dram__bytes_write.sum") * TO_BYTES.get(units.get("dram__bytes_write.sum"), float("nan"))
        gbps = (rd + wr) / (t_ms * 1e-3) / 1e9 if t_ms > 0 else float("nan")
        print(f"{name:60s} {t_ms:9.4f} ms  rd {rd/1e9:7.3f} GB  wr {wr/1e9:7.3f} GB  {gbps:6.0f} GB/s"
              f"  dram {number(row, 'dram__throughput.avg.pct_of_peak_sustained_elapsed'):5.1f}%"
              f"  L2hit {number(row, 'lts__t_sector_hit_rate.pct'):5.1f}%"
              f"  warps {number(row, 'sm__warps_active.avg.pct_of_peak_sustained_active'):5.1f}%"
              f"  issue {number(row, 'smsp__issue_active.avg.pct_of_peak_sustained_active'):5.1f}%"
              f"  regs {row.get('launch__registers_per_thread', '?')} grid {row.get('launch__grid_size', '?')}"
              f"x{row.get('launch__block_size', '?')}")


if __name__ == "__main__":
    for p in sys.argv[1:]:
        main(p)
