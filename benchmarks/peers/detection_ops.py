#!/usr/bin/env python3
"""torchvision 0.14's detection ops: the peers of the models suite's nms and
roi_align workloads (benchmarks/detection_ops.cpp).
  detection_ops.py WORKLOAD --dir SCRATCH --target-s 0.4 --threads 2 --result FILE
WORKLOAD is nms_10k, roi_align_fwd, roi_align_fwd_bwd or focal_loss_fwd_bwd. The harness writes,
under --dir, the inputs (`<workload>.<name>.bin`, raw C-order data whose dtype
and shape are in `<workload>.inputs.json`). This script times the workload with
the harness's policy (peer_timing.py), writes its check result to --result
(int64 keep indices for nms, float32 sums otherwise) and prints {"median_s",
"min_s", "reps"}, or {"skip": why}. The settings below are detection_ops.cpp's:
keep the two in step.
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_timing import time_runs  # noqa: E402  (the harness's timing policy)

NMS_THRESHOLD = 0.5
ROI_OUTPUT = (7, 7)
ROI_SCALE = 1.0 / 8
ROI_SAMPLING = 2


def load_inputs(np, torch, directory, workload):
    """The inputs, copied into memory from torch's allocator: NumPy madvises
    its large arrays into transparent huge pages, which makes roi_align's
    scattered reads about 2x faster than on the tensors a torchvision model
    hands it (measured here), so the peer would not run as in a pipeline."""
    with open(os.path.join(directory, workload + ".inputs.json")) as f:
        spec = json.load(f)
    return {name: torch.from_numpy(np.fromfile(os.path.join(directory, f"{workload}.{name}.bin"),
                                               dtype=info["dtype"]).reshape(info["shape"])).clone()
            for name, info in spec.items()}


def nms_10k(np, torch, ops, directory, target_s):
    x = load_inputs(np, torch, directory, "nms_10k")
    times, keep = time_runs(lambda: ops.nms(x["boxes"], x["scores"], NMS_THRESHOLD), target_s)
    return times, keep.numpy().astype(np.int64)


def roi_align_fwd(np, torch, ops, directory, target_s):
    x = load_inputs(np, torch, directory, "roi_align")
    with torch.no_grad():
        times, out = time_runs(lambda: ops.roi_align(x["features"], x["rois"], ROI_OUTPUT, ROI_SCALE, ROI_SAMPLING),
                               target_s)
    return times, out.sum(dim=(1, 2, 3)).numpy().astype(np.float32)


def roi_align_fwd_bwd(np, torch, ops, directory, target_s):
    x = load_inputs(np, torch, directory, "roi_align")
    features = x["features"].clone().requires_grad_()

    def step():
        features.grad = None
        out = ops.roi_align(features, x["rois"], ROI_OUTPUT, ROI_SCALE, ROI_SAMPLING)
        (out * x["gout"]).sum().backward()
        return features.grad

    times, grad = time_runs(step, target_s)
    return times, grad.sum(dim=(0, 2, 3)).numpy().astype(np.float32)


def focal_loss_fwd_bwd(np, torch, ops, directory, target_s):
    x = load_inputs(np, torch, directory, "focal_loss")
    logits = x["logits"].clone().requires_grad_()

    def step():
        logits.grad = None
        loss = ops.sigmoid_focal_loss(logits, x["targets"], 0.25, 2.0, "sum")
        loss.backward()
        return loss

    times, loss = time_runs(step, target_s)
    return times, np.array([loss.item(), logits.grad.sum().item()], dtype=np.float32)


WORKLOADS = {f.__name__: f for f in (nms_10k, roi_align_fwd, roi_align_fwd_bwd, focal_loss_fwd_bwd)}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("workload", choices=sorted(WORKLOADS))
    p.add_argument("--dir", required=True)
    p.add_argument("--target-s", type=float, default=0.4)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--result", required=True)
    args = p.parse_args()
    try:
        import numpy as np
        import torch
        import torchvision
        from torchvision import ops
    except ImportError as e:
        print(json.dumps({"skip": f"{sys.executable}: {e}"}))
        return
    torch.set_num_threads(args.threads)
    times, result = WORKLOADS[args.workload](np, torch, ops, args.dir, args.target_s)
    with open(args.result, "wb") as f:
        f.write(np.ascontiguousarray(result).tobytes())
    print(json.dumps({"median_s": statistics.median(times), "min_s": min(times), "reps": len(times),
                      "torchvision": torchvision.__version__}))


if __name__ == "__main__":
    main()
