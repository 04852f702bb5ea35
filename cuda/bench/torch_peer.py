"""The workloads of ember_cuda_bench with PyTorch on the same GPU (docs/cuda.md).

Prints one JSON line per workload, as ember_cuda_bench does; timed the same
way (a pair of CUDA events around each run, median of --reps after 3 warm-ups).
"""
import argparse
import json

import torch


def median_ms(f, reps):
    for _ in range(3):
        f()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        f()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]


def report(name, ms, nbytes):
    print(json.dumps({"name": name, "ms": round(ms, 4), "bytes": nbytes, "gbps": round(nbytes / (ms * 1e-3) / 1e9, 1)}),
          flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--numel", type=int, default=256 << 20)
    p.add_argument("--reps", type=int, default=20)
    args = p.parse_args()
    n, reps = args.numel, args.reps
    torch.manual_seed(0)
    a = torch.randn(n, device="cuda")
    b = torch.randn(n, device="cuda")
    out = torch.empty(n, device="cuda")
    fb = 4 * n
    report("copy", median_ms(lambda: out.copy_(a), reps), 2 * fb)
    report("add", median_ms(lambda: torch.add(a, b, out=out), reps), 3 * fb)
    report("mul", median_ms(lambda: torch.mul(a, b, out=out), reps), 3 * fb)
    report("exp", median_ms(lambda: torch.exp(a, out=out), reps), 2 * fb)
    report("add_scalar", median_ms(lambda: a + 1.5, reps), 2 * fb)
    report("sum", median_ms(lambda: a.sum(), reps), fb)
    cols = 4096
    rows = n // cols
    m = a.view(rows, cols)
    report("sum_rows", median_ms(lambda: m.sum(1), reps), fb + 4 * rows)
    report("sum_cols", median_ms(lambda: m.sum(0), reps), fb + 4 * cols)
    report("amax_rows", median_ms(lambda: m.amax(1), reps), fb + 4 * rows)
    report("argmax_rows", median_ms(lambda: m.argmax(1), reps), fb + 8 * rows)
    report("var_rows", median_ms(lambda: m.var(1), reps), fb + 4 * rows)
    h = a[: n // 2].to(torch.bfloat16)
    report("sum_bf16", median_ms(lambda: h.sum(), reps), 2 * (n // 2))

    # Softmax, layer-norm-style statistics (mean and biased variance of each
    # row from reductions, then normalized) on an [8192, 8192] view of a.
    side = 8192
    if n >= side * side:
        x = a[: side * side].view(side, side)
        xb = 4 * side * side
        report("softmax_8192x8192_float32", median_ms(lambda: torch.softmax(x, 1), reps), 2 * xb)

        def layer_norm_style():
            mu = x.mean(1, keepdim=True)
            v = x.var(1, correction=0, keepdim=True)
            return (x - mu) * torch.rsqrt(v + 1e-5)

        report("layer_norm_style_8192x8192", median_ms(layer_norm_style, reps), 2 * xb)
    # Launch and engine overhead: 1,000 small elementwise ops on 1,024 floats,
    # forward and backward.
    t = torch.randn(1024, device="cuda", requires_grad=True)

    def autograd_chain():
        t.grad = None
        y = t
        for i in range(1000):
            y = y * 1.0001 if i % 2 == 0 else y + 0.5
        y.sum().backward()

    report("autograd_chain_1000_ops", median_ms(autograd_chain, reps), 0)


if __name__ == "__main__":
    main()
