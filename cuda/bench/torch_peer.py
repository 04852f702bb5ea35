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
    # Random numbers and FFTs (cuFFT), at fixed sizes whatever --numel says.
    rn = 64 << 20
    report("randn_64M_float32", median_ms(lambda: torch.randn(rn, device="cuda"), reps), 4 * rn)
    fn = 1 << 24
    signal = torch.randn(fn, device="cuda")
    report("rfft_16M_float32", median_ms(lambda: torch.fft.rfft(signal), reps), 4 * fn + 8 * (fn // 2 + 1))
    image = torch.randn(4096, 4096, dtype=torch.complex64, device="cuda")
    report("fft2_4096x4096_complex64", median_ms(lambda: torch.fft.fft2(image), reps), 2 * 8 * 4096 * 4096)
    # Scans and sorts: cumsum of 64 M floats, sort of 16 M floats (values and int64 indices).
    if n >= 64 << 20:
        c64 = a[: 64 << 20]
        report("cumsum_64M_float32", median_ms(lambda: torch.cumsum(c64, 0), reps), 2 * 4 * (64 << 20))
        s16 = a[: 16 << 20]
        report("sort_16M_float32", median_ms(lambda: torch.sort(s16, 0), reps), (4 + 4 + 8) * (16 << 20))
    # Indexing (docs/cuda.md, "Indexing and shape kernels"): fixed sizes, random indices.
    m16, m4 = 16 << 20, 4 << 20
    rows16 = m16 // 256
    table = torch.randn(rows16, 256, device="cuda")
    pick = torch.randint(0, rows16, (rows16,), device="cuda")
    report("index_select_16M_float32_dim0", median_ms(lambda: torch.index_select(table, 0, pick), reps),
           2 * 4 * m16 + 8 * rows16)
    square = torch.randn(4096, 4096, device="cuda")
    where = torch.randint(0, 4096, (4096, 4096), device="cuda")
    report("gather_16M_float32", median_ms(lambda: torch.gather(square, 1, where), reps), (4 + 8 + 4) * m16)
    acc = torch.zeros(1 << 20, device="cuda")
    at = torch.randint(0, 1 << 20, (m4,), device="cuda")
    vals = torch.randn(m4, device="cuda")
    report("index_put_accumulate_4M_float32", median_ms(lambda: acc.index_put_((at,), vals, accumulate=True), reps),
           (4 + 8) * m4 + 2 * 4 * (1 << 20))
    z = torch.complex(a, b)
    w = torch.complex(b, a)
    zo = torch.empty(n, dtype=torch.complex64, device="cuda")
    report("mul_256M_complex64", median_ms(lambda: torch.mul(z, w, out=zo), reps), 3 * 2 * fb)

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
