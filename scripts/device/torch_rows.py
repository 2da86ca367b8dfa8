#!/usr/bin/env python3
"""PyTorch baselines for the row (LLM-layout) normalizations: F.rms_norm, F.layer_norm and softmax
over the last dim of (M, N), forward and backward alone, eager and torch.compile, in bf16 (default),
fp16 or fp32, each the median of CUDA-event samples with the L2 flushed first. The shapes are
normbench's `llm` suite: (4096,4096), (32768,8192), (16384,16384) and N = 256..262144 at M*N = 2^28.
Also a torch copy of 2^28 elements (x.copy_), the bandwidth ceiling as torch sees it.
  python3 scripts/device/torch_rows.py --out $OUT/torch_rows.json          (about 4-6 min on an H100)
  python3 scripts/device/torch_rows.py --quick --ops rmsnorm_rows,softmax
  python3 scripts/device/torch_rows.py --dtypes fp32 --ops softmax --shapes 32768x256,32768x512
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

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
EPS = 1e-5


def rms_forward(x, w, b):
    return F.rms_norm(x, (x.shape[-1],), w, EPS)


def layer_forward(x, w, b):
    return F.layer_norm(x, (x.shape[-1],), w, b, EPS)


def softmax_forward(x, w, b):
    return torch.softmax(x, dim=-1)


# op -> (forward, backward?, the tensors autograd differentiates, the essential bytes per element
# of x counted as normbench's byte model counts the (M, N) tensors: reads and writes of x-sized data)
OPS = {
    "rmsnorm_rows": (rms_forward, False, 2),       # read x, write y
    "layernorm_rows": (layer_forward, False, 2),
    "softmax": (softmax_forward, False, 2),
    "rmsnorm_rows_bwd": (rms_forward, True, 3),    # read x, dy, write dx
    "layernorm_rows_bwd": (layer_forward, True, 3),
}


def llm_shapes(quick):
    if quick:
        return [(4096, 4096), (1 << 14, 1 << 10)]
    shapes = [(4096, 4096), (32768, 8192), (16384, 16384)]
    n = 256
    while n <= 262144:
        shapes.append(((1 << 28) // n, n))
        n *= 2
    return shapes


def run_case(op, shape, dtype_name, opts, flush):
    forward, backward, per_element = OPS[op]
    m, n = shape
    dtype = DTYPES[dtype_name]
    case = {"op": op, "m": m, "n": n, "dtype": dtype_name, "timings": {}, "compile_s": {}, "errors": {}}
    print(f"  {op} ({m}, {n}) {dtype_name}", flush=True)
    torch._dynamo.reset()
    x = torch.randn(m, n, device="cuda", dtype=dtype)
    w = (torch.rand(n, device="cuda") + 0.5).to(dtype)
    b = (torch.rand(n, device="cuda") - 0.5).to(dtype)
    compiled = torch.compile(forward, dynamic=False)
    if not backward:
        with torch.no_grad():
            attempt(case, "eager", lambda: measure(lambda: forward(x, w, b), opts, flush))

            def compiled_run():
                case["compile_s"]["compile"] = first_call_seconds(lambda: compiled(x, w, b))
                return measure(lambda: compiled(x, w, b), opts, flush)
            attempt(case, "compile", compiled_run)
    else:
        dy = torch.randn(m, n, device="cuda", dtype=dtype)
        x.requires_grad_(True)
        w.requires_grad_(True)
        b.requires_grad_(op.startswith("layernorm"))
        wrt = [x, w] + ([b] if b.requires_grad else [])
        for key, fn in (("eager", forward), ("compile", compiled)):
            def backward_run(fn=fn, key=key):
                y = fn(x, w, b)  # the forward is untimed; its saved tensors serve every sample
                grad = lambda: torch.autograd.grad(y, wrt, dy, retain_graph=True)  # noqa: E731
                case["compile_s"][key] = first_call_seconds(grad)
                return measure(grad, opts, flush)
            attempt(case, key, backward_run)
    essential = per_element * m * n * x.element_size()
    for key, t in case["timings"].items():
        t["gbps_essential"] = essential / (t["median_ms"] * 1e-3) / 1e9
    del x, w, b
    torch.cuda.empty_cache()
    return case


def copy_ceiling(opts, flush, dtype_name):
    x = torch.empty(1 << 28, device="cuda", dtype=DTYPES[dtype_name]).normal_()
    y = torch.empty_like(x)
    t = measure(lambda: y.copy_(x), opts, flush)
    t["gbps"] = 2 * x.numel() * x.element_size() / (t["median_ms"] * 1e-3) / 1e9
    del x, y
    torch.cuda.empty_cache()
    return t


def print_table(doc):
    print("\nmedian ms (GB/s of the (M,N) tensors' reads and writes, % of torch's copy)")
    print(f"{'op':<20} {'shape':>16} {'dtype':>5} {'eager':>22} {'compile':>22}")
    for c in doc["cases"]:
        ceiling = doc["copy"].get(c["dtype"], {}).get("gbps")
        cells = []
        for key in ("eager", "compile"):
            t = c["timings"].get(key)
            if not t:
                cells.append("failed")
                continue
            pct = f" {100 * t['gbps_essential'] / ceiling:.0f}%" if ceiling else ""
            cells.append(f"{t['median_ms']:.4f} ({t['gbps_essential']:.0f}{pct})")
        print(f"{c['op']:<20} {str((c['m'], c['n'])):>16} {c['dtype']:>5} {cells[0]:>22} {cells[1]:>22}")
    for dtype, t in doc["copy"].items():
        print(f"torch copy of 2^28 {dtype}: {t['median_ms']:.4f} ms, {t['gbps']:.0f} GB/s")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default_out = os.path.join(os.environ["OUT"], "torch_rows.json") if os.environ.get("OUT") else "torch_rows.json"
    p.add_argument("--out", default=default_out)
    p.add_argument("--ops", default=",".join(OPS), help="comma-separated: " + ",".join(OPS))
    p.add_argument("--dtypes", default="bf16", help="comma-separated: bf16,fp16,fp32")
    p.add_argument("--quick", action="store_true", help="two small shapes")
    p.add_argument("--shapes", default="", help="comma-separated MxN in place of the llm shapes, e.g. 32768x256,4096x4096")
    add_sampling_options(p)
    opts = p.parse_args()
    opts.ops = [o for o in opts.ops.split(",") if o]
    opts.dtypes = [d for d in opts.dtypes.split(",") if d]
    bad = [o for o in opts.ops if o not in OPS] + [d for d in opts.dtypes if d not in DTYPES]
    if bad:
        p.error(f"unknown op or dtype: {bad}")
    opts.shape_list = llm_shapes(opts.quick)
    if opts.shapes:
        try:
            opts.shape_list = [tuple(int(v) for v in s.lower().split("x")) for s in opts.shapes.split(",") if s]
        except ValueError:
            p.error(f"--shapes: expected MxN,MxN,... (got {opts.shapes!r})")
        if not opts.shape_list or any(len(s) != 2 or min(s) < 1 for s in opts.shape_list):
            p.error(f"--shapes: expected positive MxN pairs (got {opts.shapes!r})")
    return opts


def main():
    opts = parse_args()
    doc, flush, t0 = begin_run("torch_rows.py", opts.out, "forward under no_grad; backward alone = "
                                 "torch.autograd.grad of a saved forward (retain_graph) for x, w (and b); "
                                 "torch.compile dynamic=False, dynamo reset per case",
                                 eps=EPS, copy={}, cases=[])
    for dtype in opts.dtypes:
        doc["copy"][dtype] = copy_ceiling(opts, flush, dtype)
        for op in opts.ops:
            for shape in opts.shape_list:
                doc["cases"].append(run_case(op, shape, dtype, opts, flush))
                doc["wall_s"] = time.perf_counter() - t0
                write_json(opts.out, doc)  # after every case: a cut-off run keeps what it measured
    print_table(doc)
    failed = sum(len(c["errors"]) for c in doc["cases"])
    print(f"\n{len(doc['cases'])} cases, {failed} failed figures, {doc['wall_s']:.0f} s; JSON: {opts.out}")


if __name__ == "__main__":
    main()
