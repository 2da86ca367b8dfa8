#!/usr/bin/env python3
"""Prints a report's verdicts by op and variant: dispositions, the distributions that failed a
hard check (unwritten, NaN/Inf placement, changed input) with the first failure, the inconclusive
checks and the fragile distributions.   verdict_digest.py REPORT.json"""
import collections
import json
import sys

report = json.load(open(sys.argv[1]))
print("summary:", report["summary"])
by_op = collections.defaultdict(collections.Counter)
hard = collections.defaultdict(list)
fragile = collections.Counter()
inconclusive = collections.Counter()
for row in report["results"]:
    by_op[row["op"]][row["disposition"]] += 1
    v = row.get("validation") or {}
    for d in v.get("per_distribution") or []:
        if d.get("hard_failed"):
            hard[(row["op"], row["variant"], d["distribution"])].append(row["problem"] + ": " + (d.get("failure") or ""))
    for f in v.get("fragile") or []:
        fragile[(row["op"], row["variant"], f["distribution"])] += 1
    for c in v.get("inconclusive_checks") or []:
        inconclusive[(row["op"], c.split(":")[0])] += 1
for op, counts in by_op.items():
    print(f"{op:24s} " + ", ".join(f"{k} {n}" for k, n in sorted(counts.items())))
print("hard failures (op, variant, distribution): cases, first")
for key, cases in sorted(hard.items()):
    print(f"  {key}: {len(cases)}, {cases[0][:160]}")
print("fragile (op, variant, distribution): cases")
for key, n in sorted(fragile.items()):
    print(f"  {key}: {n}")
print("inconclusive checks (op, distribution): count")
for key, n in sorted(inconclusive.items()):
    print(f"  {key}: {n}")
