"""Timing helpers shared by the PyTorch baseline scripts: CUDA-event medians with the L2 flushed
before each sample, the compile time of a first call, errors recorded per figure, atomic JSON."""
import json
import math
import os
import sys
import time
import traceback

import torch

FLUSH_BYTES = 256 << 20


def add_sampling_options(parser, min_time=0.1, max_time=0.5, min_samples=20, max_samples=500):
    """The options measure() reads: how long and how many samples a figure takes."""
    parser.add_argument("--min-time", type=float, default=min_time,
                        help=f"seconds of measured time per figure ({min_time})")
    parser.add_argument("--max-time", type=float, default=max_time,
                        help=f"stop sampling past this many measured seconds ({max_time})")
    parser.add_argument("--min-samples", type=int, default=min_samples)
    parser.add_argument("--max-samples", type=int, default=max_samples)


def begin_run(script, out, method, **fields):
    """What a baseline script starts with: a CUDA device (else exit), the folder of its JSON, the L2
    flush buffer, and the head of its JSON: the script, torch's versions and device, how each figure
    was taken (method, after the sampling common to all), when. Returns (doc, flush, start time)."""
    if not torch.cuda.is_available():
        sys.exit(f"{script}: no CUDA device visible to torch")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    doc = {"tool": f"scripts/device/{script}", "torch": torch.__version__, "cuda": torch.version.cuda,
           "device": torch.cuda.get_device_name(),
           "method": "CUDA-event median per figure, a 256 MB buffer zeroed (untimed) before each sample to evict "
                     "the L2; " + method,
           "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    doc.update(fields)
    return doc, torch.empty(FLUSH_BYTES, dtype=torch.uint8, device="cuda"), time.perf_counter()


def percentile(sorted_values, q):
    """Linear interpolation between closest ranks, q in [0, 1]."""
    if not sorted_values:
        return None
    pos = q * (len(sorted_values) - 1)
    lo, hi = math.floor(pos), math.ceil(pos)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def measure(fn, opts, flush, setup=None, warmup=3):
    """Times fn() with CUDA events: `warmup` untimed calls, then samples until at least
    opts.min_samples and opts.min_time seconds of measured time (or opts.max_samples), stopping
    early once opts.max_time seconds are measured. Before each sample, untimed: setup() if given,
    then a 256 MB write that evicts the L2. Returns median, p10, p90, min, mean (ms) and the count."""
    for _ in range(warmup):
        if setup is not None:
            setup()
        fn()
    torch.cuda.synchronize()
    times = []
    batch = 1  # first one sample to size the batches, then about 50 ms of GPU time per batch
    while True:
        events = []
        for _ in range(batch):
            if setup is not None:
                setup()
            flush.zero_()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            events.append((start, end))
        torch.cuda.synchronize()
        times.extend(s.elapsed_time(e) for s, e in events)
        measured_s = sum(times) / 1e3
        n = len(times)
        if n >= opts.max_samples or (n >= opts.min_samples and measured_s >= opts.min_time):
            break
        if measured_s >= opts.max_time and n >= 10:
            break
        mean_ms = max(sum(times) / n, 1e-3)
        batch = int(min(max(50.0 / mean_ms, 1), opts.max_samples - n, 200))
    times.sort()
    return {
        "median_ms": percentile(times, 0.5),
        "p10_ms": percentile(times, 0.1),
        "p90_ms": percentile(times, 0.9),
        "min_ms": times[0],
        "mean_ms": sum(times) / len(times),
        "samples": len(times),
        "measured_s": sum(times) / 1e3,
    }


def first_call_seconds(fn):
    """Wall time of one call, synchronized: for a torch.compile'd callable, the compile."""
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    return time.perf_counter() - t0


def attempt(case, key, thunk):
    """Runs thunk() and stores its result under case['timings'][key]; an OOM or any other error is
    recorded under case['errors'][key] and the run goes on."""
    try:
        case["timings"][key] = thunk()
        return case["timings"][key]
    except torch.cuda.OutOfMemoryError as e:
        case["errors"][key] = "OOM: " + str(e).splitlines()[0]
    except Exception as e:  # compile failures, OOM wrapped by dynamo/inductor, ...
        message = f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"
        if "out of memory" in str(e).lower():
            message = "OOM: " + message
        case["errors"][key] = message
        traceback.print_exc(limit=3)
    print(f"    {key}: FAILED ({case['errors'][key][:160]})", flush=True)
    try:
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
    except Exception as e:  # a sticky CUDA error: later figures will fail and say so
        print(f"    (after {key}: {type(e).__name__}: {e})", flush=True)
    return None


def write_json(path, doc):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
    os.replace(tmp, path)
