#!/usr/bin/env python3
"""PyTorch baselines for the NCHW normalizations beside normbench's kb suite: BatchNorm2d in training
(F.batch_norm with running statistics, momentum 0.1) and GroupNorm (F.group_norm), fp32, eager and
torch.compile, each the median of CUDA-event samples with the L2 flushed first. Default shapes: the
kb suite's batchnorm_train 16x64x256x256 and 64x64x512x512 and groupnorm G=8 at 16x64x256x256 and
112x64x512x512.
  python3 scripts/device/torch_nchw.py --out $OUT/torch_nchw.json          (about 1-2 min on an H100)
  python3 scripts/device/torch_nchw.py --cases batchnorm_train:16x64x256x256,groupnorm:16x64x256x256:8
"""
import argparse
import os
import sys
import time

import torch
import torch._dynamo
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_timing import (add_sampling_options, attempt, first_call_seconds, measure,  # noqa: E402
                          begin_run, write_json)

EPS = 1e-5
MOMENTUM = 0.1
DEFAULT_CASES = ("batchnorm_train:16x64x256x256,batchnorm_train:64x64x512x512,"
                 "groupnorm:16x64x256x256:8,groupnorm:112x64x512x512:8")


def batchnorm_train(x, w, b, running_mean, running_var, groups):
    return F.batch_norm(x, running_mean, running_var, w, b, training=True, momentum=MOMENTUM, eps=EPS)


def groupnorm(x, w, b, running_mean, running_var, groups):
    return F.group_norm(x, groups, w, b, EPS)


OPS = {"batchnorm_train": batchnorm_train, "groupnorm": groupnorm}


def parse_case(text):
    """op:NxCxHxW[:G] -> (op, (n, c, h, w), groups)."""
    parts = text.split(":")
    if len(parts) not in (2, 3) or parts[0] not in OPS:
        raise ValueError(text)
    dims = tuple(int(v) for v in parts[1].lower().split("x"))
    groups = int(parts[2]) if len(parts) == 3 else 0
    if len(dims) != 4 or min(dims) < 1 or (parts[0] == "groupnorm" and (groups < 1 or dims[1] % groups)):
        raise ValueError(text)
    return parts[0], dims, groups


def run_case(op, dims, groups, opts, flush):
    n, c, h, w = dims
    case = {"op": op, "shape": {"n": n, "c": c, "h": h, "w": w}, "dtype": "fp32", "timings": {}, "compile_s": {},
            "errors": {}}
    if groups:
        case["shape"]["g"] = groups
    print(f"  {op} {dims}" + (f" G={groups}" if groups else ""), flush=True)
    torch._dynamo.reset()
    x = torch.randn(n, c, h, w, device="cuda")
    weight = torch.rand(c, device="cuda") + 0.5
    bias = torch.rand(c, device="cuda") - 0.5
    running_mean = torch.zeros(c, device="cuda")
    running_var = torch.ones(c, device="cuda")
    forward = OPS[op]
    compiled = torch.compile(forward, dynamic=False)
    args = (x, weight, bias, running_mean, running_var, groups)
    with torch.no_grad():
        attempt(case, "eager", lambda: measure(lambda: forward(*args), opts, flush))

        def compiled_run():
            case["compile_s"]["compile"] = first_call_seconds(lambda: compiled(*args))
            return measure(lambda: compiled(*args), opts, flush)
        attempt(case, "compile", compiled_run)
    essential = 2 * x.numel() * x.element_size()  # read x, write y
    for t in case["timings"].values():
        t["gbps_essential"] = essential / (t["median_ms"] * 1e-3) / 1e9
    del x, args
    torch.cuda.empty_cache()
    return case


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default_out = os.path.join(os.environ["OUT"], "torch_nchw.json") if os.environ.get("OUT") else "torch_nchw.json"
    p.add_argument("--out", default=default_out)
    p.add_argument("--cases", default=DEFAULT_CASES, help="comma-separated op:NxCxHxW[:G]")
    add_sampling_options(p)
    opts = p.parse_args()
    try:
        opts.case_list = [parse_case(s) for s in opts.cases.split(",") if s]
    except ValueError as e:
        p.error(f"--cases: expected op:NxCxHxW[:G] with op in {sorted(OPS)} and G dividing C (got {e})")
    if not opts.case_list:
        p.error("--cases: no case")
    return opts


def main():
    opts = parse_args()
    doc, flush, t0 = begin_run("torch_nchw.py", opts.out, "forward under no_grad (batch_norm training=True updates "
                                 "the running statistics); torch.compile dynamic=False, dynamo reset per case",
                                 eps=EPS, momentum=MOMENTUM, cases=[])
    for op, dims, groups in opts.case_list:
        doc["cases"].append(run_case(op, dims, groups, opts, flush))
        doc["wall_s"] = time.perf_counter() - t0
        write_json(opts.out, doc)  # after every case: a cut-off run keeps what it measured
    print("\nmedian ms (GB/s of x read + y written)")
    for c in doc["cases"]:
        cells = [f"{t['median_ms']:.4f} ({t['gbps_essential']:.0f})" if (t := c["timings"].get(k)) else "failed"
                 for k in ("eager", "compile")]
        print(f"{c['op']:<16} {str(tuple(c['shape'].values())):>24} eager {cells[0]:>18} compile {cells[1]:>18}")
    print(f"\n{len(doc['cases'])} cases, {doc['wall_s']:.0f} s; JSON: {opts.out}")


if __name__ == "__main__":
    main()
