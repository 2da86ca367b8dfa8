#!/usr/bin/env python3
"""PyTorch baselines for the KernelBench level-2 GEMM + normalization problems (L2#33/#39, #75, #84):
the GEMM alone (F.linear and torch.mm), eager model(x) and torch.compile(model), forward in train()
mode under no_grad, in fp32 and TF32, each the median of CUDA-event samples with the L2 flushed first.
--precisions bf16 (opt-in, not in the default fp32,tf32) adds PyTorch autocast figures
(docs/notes/bf16-pipelines.md): x stored in bf16 (cast once, untimed), parameters fp32, the model
called under torch.autocast("cuda", dtype=torch.bfloat16) entered inside each timed call (so the
W -> bf16 cast is timed, as in a training step), y fp32; the GEMM alone on bf16 x, W and b.
Optional: --max-autotune (minutes) and --backward (forward+backward and backward alone of gemm_scale_bn,
and its 3 GEMMs; under autocast in bf16).
  python3 scripts/device/torch_pipelines.py --out $OUT/torch.json      (about 3-4 min on an H100)
  python3 scripts/device/torch_pipelines.py --precisions bf16 --out $OUT/torch_bf16.json
"""
import argparse
import os
import sys
import time

import torch
import torch._dynamo
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_timing import (FLUSH_BYTES, add_sampling_options, attempt, first_call_seconds, measure,  # noqa: E402
                          write_json)


# ---- KernelBench level-2 modules (same layers, same order, same parameter init) ----------------

class GemmScaleBatchNorm(nn.Module):
    """L2#33 / L2#39: Linear -> x * scale -> BatchNorm1d."""

    def __init__(self, in_features, out_features, eps=1e-5, momentum=0.1):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.scale = nn.Parameter(torch.randn(out_features))
        self.bn = nn.BatchNorm1d(out_features, eps=eps, momentum=momentum)

    def forward(self, x):
        x = self.gemm(x)
        x = x * self.scale
        x = self.bn(x)
        return x


class GemmGroupNormMinBias(nn.Module):
    """L2#75: Linear -> GroupNorm -> min over dim 1 (keepdim) -> + bias (1, N, 1, 1); out (1, N, M, 1)."""

    def __init__(self, in_features, out_features, num_groups):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.group_norm = nn.GroupNorm(num_groups, out_features)
        self.bias = nn.Parameter(torch.randn(1, out_features, 1, 1))

    def forward(self, x):
        x = self.gemm(x)
        x = self.group_norm(x)
        x = torch.min(x, dim=1, keepdim=True)[0]
        x = x + self.bias
        return x


class GemmBatchNormScaleSoftmax(nn.Module):
    """L2#84: Linear -> BatchNorm1d -> scale * x (scale of shape (1,)) -> Softmax(dim=1)."""

    def __init__(self, in_features, out_features, bn_eps=1e-5, bn_momentum=0.1):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.bn = nn.BatchNorm1d(out_features, eps=bn_eps, momentum=bn_momentum)
        self.scale = nn.Parameter(torch.ones(1))
        self.softmax = nn.Softmax(dim=1)

    def forward(self, x):
        x = self.gemm(x)
        x = self.bn(x)
        x = self.scale * x
        x = self.softmax(x)
        return x


# Shapes: (M, K, N) or (M, K, N, G); the first of each list is the small (--quick) one.
PROBLEMS = {
    "gemm_scale_bn": {
        "kb": "L2#33/#39",
        "build": lambda s: GemmScaleBatchNorm(s["K"], s["N"]),
        "shapes": [(128, 1024, 512), (1024, 8192, 8192), (16384, 4096, 4096)],
        # A transformer-sized batch (8192 tokens x hidden 4096), timed in bf16 alone as normbench's kb has it.
        "bf16_shapes": [(8192, 4096, 4096)],
    },
    "gemm_gn_min_bias": {
        "kb": "L2#75",
        "build": lambda s: GemmGroupNormMinBias(s["K"], s["N"], s["G"]),
        "shapes": [(128, 512, 256, 8), (1024, 8192, 8192, 512)],
    },
    "gemm_bn_scale_softmax": {
        "kb": "L2#84",
        "build": lambda s: GemmBatchNormScaleSoftmax(s["K"], s["N"]),
        "shapes": [(128, 1024, 512), (1024, 8192, 8192)],
    },
}
SMALL_ELEMENTS = 1 << 22  # a shape is "small" (kept by --quick) when M*K and M*N are below this
PRECISIONS = ("fp32", "tf32", "bf16")
DEFAULT_PRECISIONS = ("fp32", "tf32")  # bf16 is opt-in, so the default run time stays as it was
# The precisions run under torch.autocast, with their autocast dtype: parameters stay fp32
# (autocast's master weights), x is stored in that dtype.
AUTOCAST = {"bf16": torch.bfloat16}


def shape_dict(shape):
    return dict(zip("MKNG", shape))


def shape_label(s):
    label = f"{s['M']}x{s['K']}x{s['N']}"
    return label + (f" g{s['G']}" if "G" in s else "")


def is_small(s):
    return s["M"] * s["K"] < SMALL_ELEMENTS and s["M"] * s["N"] < SMALL_ELEMENTS


def set_precision(precision):
    """TF32 GEMMs and convolutions for tf32 only; fp32 and bf16 (autocast) leave them off."""
    tf32 = precision == "tf32"
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32


def autocast_forward(fn, precision):
    """fn itself, or for an autocast precision a callable that enters torch.autocast("cuda", dtype)
    around each call of fn, so that every call casts W and b to the low precision anew, as a
    training step does; a backward of its output runs outside the context, as autocast prescribes."""
    dtype = AUTOCAST.get(precision)
    if dtype is None:
        return fn

    def forward(x):
        with torch.autocast("cuda", dtype=dtype):
            return fn(x)
    return forward


# ---- timing ------------------------------------------------------------------------------------

def timed_compile(case, key, model, precision, opts, flush, x, mode=None):
    """Resets dynamo, compiles the model (static shapes) under no_grad, records the compile time
    and the forward time; under autocast the compiled module is called inside the context."""
    def run():
        torch._dynamo.reset()
        compiled = autocast_forward(torch.compile(model, mode=mode, dynamic=False), precision)
        with torch.no_grad():
            case["compile_s"][key] = first_call_seconds(lambda: compiled(x))
            return measure(lambda: compiled(x), opts, flush)
    return attempt(case, key, run)


def eager_forward(case, forward, x, opts, flush):
    """The eager figure. Its first, untimed call checks y's dtype: fp32 in every precision, under
    autocast too (h * scale with the fp32 scale of shape (N,) or (1,) is promoted to fp32, and
    group_norm and softmax run in fp32); another dtype is recorded as output_dtype, the run goes on."""
    dtype = forward(x).dtype
    if dtype != torch.float32:
        case["output_dtype"] = str(dtype)
        print(f"    output dtype {dtype}, expected torch.float32", flush=True)
    return measure(lambda: forward(x), opts, flush)


# ---- one (problem, shape, precision) -------------------------------------------------------------

def run_case(op, spec, s, precision, model, x, opts, flush):
    set_precision(precision)
    torch._dynamo.reset()
    low = AUTOCAST.get(precision)
    case = {
        "op": op, "kb": spec["kb"], "shape": s, "precision": precision,
        "autocast": precision if precision in AUTOCAST else None,
        "allow_tf32": {"matmul": torch.backends.cuda.matmul.allow_tf32,
                       "cudnn": torch.backends.cudnn.allow_tf32},
        "timings": {}, "compile_s": {}, "errors": {},
    }
    W, b = model.gemm.weight, model.gemm.bias
    if low is not None:
        # The problem's x is stored in the low precision; the GEMM alone runs on low-precision W and
        # b, as autocast's linear does. All cast once, untimed.
        x, W, b = x.to(low), W.detach().to(low), b.detach().to(low)
    forward = autocast_forward(model, precision)
    model.train()
    t0 = time.perf_counter()
    print(f"  {op} {shape_label(s)} {precision}", flush=True)
    with torch.no_grad():
        attempt(case, "gemm_linear", lambda: measure(lambda: F.linear(x, W, b), opts, flush))
        attempt(case, "gemm_mm", lambda: measure(lambda: torch.mm(x, W.t()), opts, flush))
        attempt(case, "eager", lambda: eager_forward(case, forward, x, opts, flush))
    timed_compile(case, "compile", model, precision, opts, flush, x)
    if opts.max_autotune:
        timed_compile(case, "compile_max", model, precision, opts, flush, x, mode="max-autotune-no-cudagraphs")
    if opts.backward and op == "gemm_scale_bn":
        run_backward(case, model, x, precision, opts, flush)
    torch._dynamo.reset()
    torch.cuda.empty_cache()

    mm = case["timings"].get("gemm_mm")
    if mm:
        case["gemm_mm_tflops"] = 2.0 * s["M"] * s["N"] * s["K"] / (mm["median_ms"] * 1e-3) / 1e12
    case["wall_s"] = time.perf_counter() - t0
    compile_s = ", ".join(f"{k} {v:.1f} s" for k, v in case["compile_s"].items())
    print(f"    done in {case['wall_s']:.1f} s (compile: {compile_s or '-'})", flush=True)
    return case


def run_backward(case, model, x, precision, opts, flush):
    """Forward+backward of gemm_scale_bn, y.backward(dy) with a fixed fp32 dy, input grad included
    (so dX = dY W is computed), grads set to None before each sample (untimed); and the three
    GEMMs alone: forward X W^T, dX = dY W, dW = dY^T X. Under autocast (bf16, x given in bf16) the
    forward runs in the context and the backward after it: dx is bf16, the parameters' grads fp32;
    the GEMMs alone take bf16 operands (W and dy cast once, untimed)."""
    low = AUTOCAST.get(precision)
    W = model.gemm.weight
    gen = torch.Generator(device=x.device).manual_seed(1234)
    dy = torch.randn(x.shape[0], W.shape[0], device=x.device, generator=gen)
    xg = x.detach().clone().requires_grad_(True)
    Wm, dym = (W.detach().to(low), dy.to(low)) if low is not None else (W, dy)

    def zero_grads():
        model.zero_grad(set_to_none=True)
        xg.grad = None

    with torch.no_grad():
        attempt(case, "bwd_gemm_fwd", lambda: measure(lambda: torch.mm(x, Wm.t()), opts, flush))
        attempt(case, "bwd_gemm_dx", lambda: measure(lambda: torch.mm(dym, Wm), opts, flush))
        attempt(case, "bwd_gemm_dw", lambda: measure(lambda: torch.mm(dym.t(), x), opts, flush))

    def forward_backward(forward):
        return measure(lambda: forward(xg).backward(dy), opts, flush, setup=zero_grads)

    # The backward alone: the forward runs in the untimed setup, y.backward(dy) is timed.
    def backward_only(forward):
        graph = {}

        def setup():
            zero_grads()
            graph["y"] = forward(xg)
        return measure(lambda: graph.pop("y").backward(dy), opts, flush, setup=setup)

    eager = autocast_forward(model, precision)
    attempt(case, "fwdbwd_eager", lambda: forward_backward(eager))
    attempt(case, "bwd_eager", lambda: backward_only(eager))

    # One compilation serves both figures; its first call (forward and backward) is timed apart.
    compiled = {}

    def compiled_forward_backward():
        torch._dynamo.reset()
        compiled["forward"] = autocast_forward(torch.compile(model, dynamic=False), precision)
        zero_grads()
        case["compile_s"]["fwdbwd_compile"] = first_call_seconds(lambda: compiled["forward"](xg).backward(dy))
        return forward_backward(compiled["forward"])
    attempt(case, "fwdbwd_compile", compiled_forward_backward)
    if "forward" in compiled:
        attempt(case, "bwd_compile", lambda: backward_only(compiled["forward"]))
    zero_grads()
    t = case["timings"]
    parts = [t.get(k) for k in ("bwd_gemm_fwd", "bwd_gemm_dx", "bwd_gemm_dw")]
    if all(parts):
        case["bwd_gemm3_sum_ms"] = sum(p["median_ms"] for p in parts)
    if t.get("bwd_gemm_dx") and t.get("bwd_gemm_dw"):
        case["bwd_gemm2_sum_ms"] = t["bwd_gemm_dx"]["median_ms"] + t["bwd_gemm_dw"]["median_ms"]


# ---- output ------------------------------------------------------------------------------------

def cell(case, key):
    t = case["timings"].get(key)
    if t:
        return f"{t['median_ms']:9.4f}"
    err = case["errors"].get(key)
    return f"{('OOM' if err.startswith('OOM') else 'err') if err else '-':>9}"


def ratio(case, key, base_ms):
    t = case["timings"].get(key)
    return f"{t['median_ms'] / base_ms:7.2f}" if t and base_ms else f"{'-':>7}"


def print_table(cases, opts):
    cmax = opts.max_autotune
    print("\nforward, median ms (L2 flushed); ratios against torch.mm = cuBLAS GEMM alone, no bias", flush=True)
    if any(c.get("autocast") for c in cases):
        print("bf16: eager and compile under torch.autocast (W cast inside each call), the GEMM alone on bf16 x and W")
    head = f"{'problem':22} {'shape (MxKxN)':20} {'prec':4} {'linear':>9} {'mm':>9} {'eager':>9} {'compile':>9}"
    head += f" {'cmp_max':>9}" if cmax else ""
    head += f" {'eag/mm':>7} {'cmp/mm':>7}" + (f" {'max/mm':>7}" if cmax else "")
    print(head)
    for c in cases:
        mm = c["timings"].get("gemm_mm")
        base = mm["median_ms"] if mm else None
        row = f"{c['op']:22} {shape_label(c['shape']):20} {c['precision']:4} {cell(c, 'gemm_linear')}"
        row += f" {cell(c, 'gemm_mm')} {cell(c, 'eager')} {cell(c, 'compile')}"
        row += f" {cell(c, 'compile_max')}" if cmax else ""
        row += f" {ratio(c, 'eager', base)} {ratio(c, 'compile', base)}"
        row += f" {ratio(c, 'compile_max', base)}" if cmax else ""
        print(row)
    bwd = [c for c in cases if "bwd_gemm_fwd" in c["timings"] or "fwdbwd_eager" in c["timings"]]
    if bwd:
        print("\nforward+backward (y.backward(dy), input grad included), median ms; ratios against the sum of the 3 GEMMs")
        print(f"{'problem':22} {'shape (MxKxN)':20} {'prec':4} {'fwd XWt':>9} {'dX=dYW':>9} {'dW=dYtX':>9}"
              f" {'sum3':>9} {'eager':>9} {'compile':>9} {'eag/3':>7} {'cmp/3':>7}")
        for c in bwd:
            s3 = c.get("bwd_gemm3_sum_ms")
            print(f"{c['op']:22} {shape_label(c['shape']):20} {c['precision']:4} {cell(c, 'bwd_gemm_fwd')}"
                  f" {cell(c, 'bwd_gemm_dx')} {cell(c, 'bwd_gemm_dw')} {(f'{s3:9.4f}' if s3 else '-'):>9}"
                  f" {cell(c, 'fwdbwd_eager')} {cell(c, 'fwdbwd_compile')}"
                  f" {ratio(c, 'fwdbwd_eager', s3)} {ratio(c, 'fwdbwd_compile', s3)}")
        print("\nbackward alone (forward untimed), median ms; ratios against dX and dW GEMMs alone (sum2)")
        print(f"{'problem':22} {'shape (MxKxN)':20} {'prec':4} {'sum2':>9} {'eager':>9} {'compile':>9}"
              f" {'eag/2':>7} {'cmp/2':>7}")
        for c in bwd:
            s2 = c.get("bwd_gemm2_sum_ms")
            print(f"{c['op']:22} {shape_label(c['shape']):20} {c['precision']:4} {(f'{s2:9.4f}' if s2 else '-'):>9}"
                  f" {cell(c, 'bwd_eager')} {cell(c, 'bwd_compile')}"
                  f" {ratio(c, 'bwd_eager', s2)} {ratio(c, 'bwd_compile', s2)}")
    sys.stdout.flush()


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default_out = os.path.join(os.environ["OUT"], "torch_pipelines.json") if os.environ.get("OUT") \
        else "torch_pipelines.json"
    p.add_argument("--out", default=default_out, help=f"JSON output (default {default_out})")
    p.add_argument("--problems", default="", help="comma-separated op names: " + ",".join(PROBLEMS))
    p.add_argument("--precisions", default=",".join(DEFAULT_PRECISIONS),
                   help=f"comma-separated, of {','.join(PRECISIONS)} (default {','.join(DEFAULT_PRECISIONS)}; "
                        "bf16, opt-in: the model under torch.autocast, x stored in bf16)")
    p.add_argument("--quick", action="store_true", help="only the small shapes")
    p.add_argument("--max-autotune", action="store_true",
                   help='also torch.compile(mode="max-autotune-no-cudagraphs") (minutes per shape)')
    p.add_argument("--backward", action="store_true",
                   help="also forward+backward of gemm_scale_bn (eager, compile) and its three GEMMs "
                        "(under autocast in bf16)")
    add_sampling_options(p, min_time=0.2, max_time=1.0, min_samples=30, max_samples=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="0", help="CUDA device index or name (0, cuda:1)")
    opts = p.parse_args()
    opts.problems = [x for x in opts.problems.split(",") if x]
    unknown = [x for x in opts.problems if x not in PROBLEMS]
    if unknown:
        p.error(f"unknown problem(s) {unknown}; known: {', '.join(PROBLEMS)}")
    opts.precisions = [x for x in opts.precisions.split(",") if x]
    if any(x not in PRECISIONS for x in opts.precisions):
        p.error(f"--precisions takes {','.join(PRECISIONS)}")
    return opts


def main():
    opts = parse_args()
    if not torch.cuda.is_available():
        sys.exit("torch_pipelines.py: no CUDA device visible to torch")
    device = torch.device(f"cuda:{opts.device}" if opts.device.isdigit() else opts.device)
    torch.cuda.set_device(device)
    props = torch.cuda.get_device_properties(device)
    try:
        import triton
        triton_version = triton.__version__
    except Exception:
        triton_version = None
    doc = {
        "tool": "scripts/device/torch_pipelines.py",
        "torch": torch.__version__, "cuda": torch.version.cuda, "triton": triton_version,
        "cudnn": torch.backends.cudnn.version(),
        "device": torch.cuda.get_device_name(device), "capability": f"{props.major}.{props.minor}",
        "sm_count": props.multi_processor_count,
        "settings": {k: getattr(opts, k) for k in ("problems", "precisions", "quick", "max_autotune", "backward",
                                                     "min_time", "max_time", "min_samples", "max_samples", "seed")},
        "method": "CUDA-event median per figure; before each sample a 256 MB buffer is zeroed (untimed) to "
                  "evict the L2; forward figures in train() mode under torch.no_grad(); torch.compile "
                  "with dynamic=False, dynamo reset per precision; compile_s is the first (compiling) call; "
                  "bf16: x stored in bf16 (cast once, untimed), parameters fp32, the model called under "
                  "torch.autocast('cuda', bfloat16) entered inside each timed call, the GEMM alone on bf16 "
                  "x, W and b",
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "cases": [],
    }
    print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, triton {triton_version}, "
          f"{doc['device']} (sm_{props.major}{props.minor}); writing {opts.out}", flush=True)
    out_dir = os.path.dirname(os.path.abspath(opts.out))
    os.makedirs(out_dir, exist_ok=True)

    flush = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device=device)
    t_start = time.perf_counter()
    for op, spec in PROBLEMS.items():
        if opts.problems and op not in opts.problems:
            continue
        bf16_only = [shape for shape in spec.get("bf16_shapes", []) if "bf16" in opts.precisions]
        for shape in spec["shapes"] + bf16_only:
            s = shape_dict(shape)
            if opts.quick and not is_small(s):
                continue
            torch.manual_seed(opts.seed)
            try:
                model = spec["build"](s).to(device).train()
                x = torch.rand(s["M"], s["K"], device=device)
            except torch.cuda.OutOfMemoryError as e:
                for precision in ["bf16"] if shape in bf16_only else opts.precisions:
                    doc["cases"].append({"op": op, "kb": spec["kb"], "shape": s, "precision": precision,
                                         "autocast": precision if precision in AUTOCAST else None,
                                         "timings": {}, "compile_s": {},
                                         "errors": {"setup": "OOM: " + str(e).splitlines()[0]}})
                print(f"  {op} {shape_label(s)}: OOM allocating the model or input", flush=True)
                torch.cuda.empty_cache()
                continue
            for precision in ["bf16"] if shape in bf16_only else opts.precisions:
                doc["cases"].append(run_case(op, spec, s, precision, model, x, opts, flush))
                doc["wall_s"] = time.perf_counter() - t_start
                write_json(opts.out, doc)  # after every case, so a cut-off run keeps what it measured
            del model, x
            torch._dynamo.reset()
            torch.cuda.empty_cache()

    set_precision("fp32")
    doc["wall_s"] = time.perf_counter() - t_start
    write_json(opts.out, doc)
    print_table(doc["cases"], opts)
    failed = sum(len(c["errors"]) for c in doc["cases"])
    print(f"\n{len(doc['cases'])} cases, {failed} failed figures, {doc['wall_s']:.0f} s; JSON: {opts.out}", flush=True)


if __name__ == "__main__":
    main()
