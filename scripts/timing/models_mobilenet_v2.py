#!/usr/bin/python3
"""torchvision 0.14 side of scripts/timing/models_mobilenet_v2.cpp.

  models_mobilenet_v2.py export <dir>      writes <dir>/mobilenet_v2.pt (the
      state_dict of a seeded torchvision mobilenet_v2, 1000 classes, BatchNorm
      statistics from one training-mode forward), <dir>/mobilenet_v2_eager.ts
      (torch.jit.script of it, eval mode: eager semantics, run by libtorch's
      interpreter) and <dir>/mobilenet_v2_frozen.ts (torch.jit.freeze:
      BatchNorm folded into the convolutions, constants inlined), and <dir>/mobilenet_v2_out.pt (eval logits of a fixed input).
  models_mobilenet_v2.py time <threads>    times torch in Python (eager, eval,
      no_grad): one line per workload, median milliseconds per forward.
"""
import sys
import time
import warnings

import torch
import torchvision

WORKLOADS = [(1, "nchw"), (1, "cl"), (8, "nchw"), (8, "cl")]


def build():
    torch.manual_seed(0)
    model = torchvision.models.mobilenet_v2()
    model.train()
    with torch.no_grad():
        model(torch.randn(8, 3, 224, 224))  # non-trivial running statistics
    return model.eval()


def export(out_dir):
    model = build()
    torch.save(model.state_dict(), f"{out_dir}/mobilenet_v2.pt")
    with torch.no_grad():
        x = torch.linspace(-1, 1, 2 * 3 * 224 * 224).reshape(2, 3, 224, 224)
        torch.save({"input": x, "logits": model(x)}, f"{out_dir}/mobilenet_v2_out.pt")
    scripted = torch.jit.script(model)
    scripted.save(f"{out_dir}/mobilenet_v2_eager.ts")
    # torch.jit.optimize_for_inference's output (MKLDNN constants) cannot be
    # saved and loaded back in torch 1.13; freeze alone folds the BatchNorms.
    frozen = torch.jit.freeze(torch.jit.script(build()))
    frozen.save(f"{out_dir}/mobilenet_v2_frozen.ts")


def median_ms(fn, reps):
    for _ in range(5):
        fn()
    t = []
    for _ in range(reps):
        a = time.perf_counter()
        fn()
        t.append((time.perf_counter() - a) * 1e3)
    t.sort()
    return t[len(t) // 2]


def time_eager(threads):
    torch.set_num_threads(threads)
    model = build()
    for batch, layout in WORKLOADS:
        fmt = torch.channels_last if layout == "cl" else torch.contiguous_format
        m = model.to(memory_format=fmt)
        x = torch.randn(batch, 3, 224, 224).contiguous(memory_format=fmt)
        with torch.no_grad():
            ms = median_ms(lambda: m(x), 60 if batch == 1 else 20)
        print(f"mobilenet_v2_b{batch}_{layout} {ms:.3f}")


if __name__ == "__main__":
    warnings.filterwarnings("ignore")
    if sys.argv[1] == "export":
        export(sys.argv[2])
    else:
        time_eager(int(sys.argv[2]) if len(sys.argv) > 2 else 2)
