#!/usr/bin/env python3
"""torchvision 0.14's quantized classifiers: the peer of the models suite's
quantized workloads (benchmarks/models_quantized.cpp).
  quantized_models.py WORKLOAD --dir SCRATCH --target-s 0.4 --threads 2 --result FILE
WORKLOAD is <model>_<engine>_b<batch>: model resnet18 or mobilenet_v2, engine
onednn or qnnpack. The harness writes, under --dir, the float quantizable
model's state_dict (qmodels.<model>.w<i>.bin, raw; keys, shapes and dtypes in
qmodels.<model>.weights.json), the calibration batch (qmodels.calibration.bin)
and the input (qmodels.input_b<batch>.bin), all float32 [N, 3, 224, 224]. The
model goes through torchvision's quantize_model steps (eval, fuse_model,
torchvision's qconfig for the engine, prepare, one calibration pass,
convert) on the given engine. Prints {"median_s", "min_s", "reps"} or {"skip": why}; the
logits (float32) go to --result.
"""
import argparse
import json
import os
import statistics
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_timing import time_runs  # noqa: E402  (the harness's timing policy)

DTYPES = {"float32": "float32", "int64": "int64"}


def read_tensor(np, torch, path, shape, dtype="float32"):
    return torch.from_numpy(np.fromfile(path, dtype=DTYPES[dtype]).reshape(shape)).clone()


def quantized_model(np, torch, directory, name, engine):
    from collections import OrderedDict

    from torchvision.models import quantization as qmodels

    torch.backends.quantized.engine = engine
    model = getattr(qmodels, name)(weights=None, quantize=False)
    with open(os.path.join(directory, f"qmodels.{name}.weights.json")) as f:
        spec = json.load(f)
    sd = OrderedDict()
    for i, (key, shape, dtype) in enumerate(spec):
        sd[key] = read_tensor(np, torch, os.path.join(directory, f"qmodels.{name}.w{i}.bin"), shape, dtype)
    model.load_state_dict(sd, strict=True)
    model.eval()
    model.fuse_model(is_qat=False)
    # torchvision's quantize_model qconfigs: MinMax activations; per-channel
    # weights for fbgemm (the serialized models, run here on onednn), per-tensor
    # for qnnpack.
    q = torch.ao.quantization
    weight = q.default_per_channel_weight_observer if engine == "onednn" else q.default_weight_observer
    model.qconfig = q.QConfig(activation=q.default_observer, weight=weight)
    torch.ao.quantization.prepare(model, inplace=True)
    calibration = read_tensor(np, torch, os.path.join(directory, "qmodels.calibration.bin"), [-1, 3, 224, 224])
    with torch.no_grad():
        model(calibration)
    torch.ao.quantization.convert(model, inplace=True)
    return model


def run(np, torch, directory, workload, target_s):
    model_name, rest = workload.rsplit("_", 2)[0], workload.rsplit("_", 2)[1:]
    engine, batch = rest[0], int(rest[1][1:])
    if engine not in torch.backends.quantized.supported_engines:
        return None, f"torch has no {engine} engine here ({torch.backends.quantized.supported_engines})"
    model = quantized_model(np, torch, directory, model_name, engine)
    x = read_tensor(np, torch, os.path.join(directory, f"qmodels.input_b{batch}.bin"), [batch, 3, 224, 224])
    try:
        with torch.no_grad():
            times, out = time_runs(lambda: model(x), target_s)
    except RuntimeError as e:
        # torch 1.13's onednn engine cannot run MobileNetV2 at batch 8 ("could
        # not create a primitive descriptor for a reorder primitive").
        return None, f"torch {torch.__version__} on {engine} fails: {str(e).splitlines()[0]}"
    return (times, out.numpy().astype(np.float32)), None


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("workload")
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
    # prepare() warns about the FloatFunctionals a model never calls (torch's
    # and Ember's models alike get the default scale 1, zero point 0 there).
    warnings.filterwarnings("ignore", message="must run observer")
    measured, skip = run(np, torch, args.dir, args.workload, args.target_s)
    if skip:
        print(json.dumps({"skip": skip}))
        return
    times, result = measured
    with open(args.result, "wb") as f:
        f.write(np.ascontiguousarray(result).tobytes())
    print(json.dumps({"median_s": statistics.median(times), "min_s": min(times), "reps": len(times),
                      "torchvision": torchvision.__version__}))


if __name__ == "__main__":
    main()
