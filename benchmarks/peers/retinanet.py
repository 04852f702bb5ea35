#!/usr/bin/env python3
"""torchvision 0.14's RetinaNet-ResNet50-FPN: the peer of the models suite's
RetinaNet workloads (benchmarks/detection_retinanet.cpp).
  retinanet.py WORKLOAD --dir SCRATCH --target-s 0.4 --threads 2 --result FILE
WORKLOAD is infer_800, train_step_2img, infer_320 or train_step_320 (the
model's transform at min_size = max_size = 320). The harness writes, under --dir, the
model's state_dict (retinanet.w<i>.bin, raw float32, keys and shapes in
retinanet.weights.json) and the inputs (retinanet.<name>.bin, shapes in
retinanet.inputs.json). The model is built as retinanet_resnet50_fpn builds it
with trained weights (FrozenBatchNorm2d, trainable_backbone_layers 3) and loads
the state_dict strictly. Prints {"median_s", "min_s", "reps"} or {"skip": why};
the check result (float32) goes to --result.
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_timing import time_runs  # noqa: E402  (the harness's timing policy)


def build_model(np, torch, directory, min_size=800, max_size=1333):
    from collections import OrderedDict

    from torchvision.models import resnet50
    from torchvision.models.detection.backbone_utils import _resnet_fpn_extractor
    from torchvision.models.detection.retinanet import RetinaNet
    from torchvision.ops import FrozenBatchNorm2d
    from torchvision.ops.feature_pyramid_network import LastLevelP6P7

    backbone = _resnet_fpn_extractor(resnet50(norm_layer=FrozenBatchNorm2d), 3, returned_layers=[2, 3, 4],
                                     extra_blocks=LastLevelP6P7(256, 256))
    model = RetinaNet(backbone, 91, min_size=min_size, max_size=max_size)
    with open(os.path.join(directory, "retinanet.weights.json")) as f:
        spec = json.load(f)
    sd = OrderedDict()
    for i, (key, shape) in enumerate(spec):
        data = np.fromfile(os.path.join(directory, f"retinanet.w{i}.bin"), dtype=np.float32)
        sd[key] = torch.from_numpy(data.reshape(shape)).clone()
    model.load_state_dict(sd, strict=True)
    return model


def load_inputs(np, torch, directory):
    with open(os.path.join(directory, "retinanet.inputs.json")) as f:
        spec = json.load(f)
    return {name: torch.from_numpy(np.fromfile(os.path.join(directory, f"retinanet.{name}.bin"),
                                               dtype=np.float32).reshape(shape)).clone()
            for name, shape in spec.items()}


def infer_800(np, torch, directory, target_s):
    model = build_model(np, torch, directory).eval()
    x = load_inputs(np, torch, directory)
    with torch.no_grad():
        times, out = time_runs(lambda: model([x["image0"]]), target_s)
    scores = out[0]["scores"]
    return times, np.array([scores.numel(), scores.sum().item()], dtype=np.float32)


def train_step_2img(np, torch, directory, target_s):
    model = build_model(np, torch, directory).train()
    x = load_inputs(np, torch, directory)
    images = [x["image0"], x["image1"]]
    targets = [{"boxes": x[f"boxes{i}"], "labels": x[f"labels{i}"].long()} for i in range(2)]

    def step():
        model.zero_grad(set_to_none=True)
        losses = model(images, targets)
        (losses["classification"] + losses["bbox_regression"]).backward()
        return losses

    times, losses = time_runs(step, target_s)
    return times, np.array([losses["classification"].item(), losses["bbox_regression"].item()], dtype=np.float32)


def infer_320(np, torch, directory, target_s):
    model = build_model(np, torch, directory, 320, 320).eval()
    x = load_inputs(np, torch, directory)
    with torch.no_grad():
        times, out = time_runs(lambda: model([x["image0"]]), target_s)
    scores = out[0]["scores"]
    return times, np.array([scores.numel(), scores.sum().item()], dtype=np.float32)


def train_step_320(np, torch, directory, target_s):
    model = build_model(np, torch, directory, 320, 320).train()
    x = load_inputs(np, torch, directory)
    targets = [{"boxes": x["boxes0"], "labels": x["labels0"].long()}]

    def step():
        model.zero_grad(set_to_none=True)
        losses = model([x["image0"]], targets)
        (losses["classification"] + losses["bbox_regression"]).backward()
        return losses

    times, losses = time_runs(step, target_s)
    return times, np.array([losses["classification"].item(), losses["bbox_regression"].item()], dtype=np.float32)


WORKLOADS = {f.__name__: f for f in (infer_800, train_step_2img, infer_320, train_step_320)}


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
    except ImportError as e:
        print(json.dumps({"skip": f"{sys.executable}: {e}"}))
        return
    torch.set_num_threads(args.threads)
    times, result = WORKLOADS[args.workload](np, torch, args.dir, args.target_s)
    with open(args.result, "wb") as f:
        f.write(np.ascontiguousarray(result).tobytes())
    print(json.dumps({"median_s": statistics.median(times), "min_s": min(times), "reps": len(times),
                      "torchvision": torchvision.__version__}))


if __name__ == "__main__":
    main()
