#!/usr/bin/env python3
"""ONNX Runtime's int8 CPU execution of torchvision's quantized classifiers: an
external peer of the models suite's quantized workloads
(benchmarks/models_quantized.cpp), beside quantized_models.py.
  ort_quantized_models.py WORKLOAD --dir SCRATCH --target-s 0.4 --threads 2 --result FILE
WORKLOAD is <model>_ort_b<batch> (model resnet18 or mobilenet_v2). --dir holds the
harness's files (quantized_models.py's docstring). The model is quantized exactly
as quantized_models.py does on the onednn engine (per-channel qint8 weights,
MinMax quint8 activations, the harness's calibration batch), exported with
torch.onnx.export (opset 13: QuantizeLinear / DequantizeLinear around float
Conv / Gemm / Add carrying torch's scales and zero points) to
SCRATCH/qmodels.<model>.int8.onnx, and run by onnxruntime-node
(ort_quantized_models.js; ORT fuses the pairs into QLinearConv, QLinearAdd, QGemm).
onnxruntime-node comes from scripts/install_ort.sh; $EMBER_ORT_DIR names its
folder (default <repo>/build/ort). Prints {"median_s", "min_s", "reps"} or
{"skip": why}; the logits (float32) go to --result.

  ort_quantized_models.py --write-inputs --dir SCRATCH [--check]
writes harness-format files from torchvision's seeded random-init models (to run
the peer without ember_bench), and with --check runs every workload and prints
the largest logit difference against torch's own onednn int8 model.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from quantized_models import quantized_model  # noqa: E402  (the same quantization as the torch peer)

MODELS = ("resnet18", "mobilenet_v2")
BATCHES = (1, 8)


def ort_dir():
    return os.environ.get("EMBER_ORT_DIR", os.path.join(os.path.dirname(os.path.dirname(HERE)), "build", "ort"))


def export_int8(np, torch, directory, name):
    """torch's onednn int8 model -> a QDQ ONNX file; returns its path."""
    model = quantized_model(np, torch, directory, name, "onednn")
    path = os.path.join(directory, f"qmodels.{name}.int8.onnx")
    example = torch.zeros(1, 3, 224, 224)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, example, path, opset_version=13, input_names=["input"],
                          output_names=["logits"], dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}})
    return path, model


def run_workload(np, torch, directory, workload, target_s, threads, result):
    """Returns the peer's JSON dict (and the torch model, for --check)."""
    name, engine, batch = workload.rsplit("_", 2)
    if engine != "ort" or name not in MODELS:
        return {"skip": f"unknown workload {workload} (expected <{'|'.join(MODELS)}>_ort_b<batch>)"}, None
    if shutil.which("node") is None:
        return {"skip": "node not found (apt-get install nodejs)"}, None
    if not os.path.isdir(os.path.join(ort_dir(), "node_modules", "onnxruntime-node")):
        return {"skip": f"onnxruntime-node not in {ort_dir()} (scripts/install_ort.sh; EMBER_ORT_DIR)"}, None
    path, model = export_int8(np, torch, directory, name)
    env = dict(os.environ, EMBER_ORT_DIR=ort_dir())
    proc = subprocess.run(["node", os.path.join(HERE, "ort_quantized_models.js"), path,
                           os.path.join(directory, f"qmodels.input_{batch}.bin"), batch[1:], str(target_s),
                           str(threads), result], capture_output=True, text=True, env=env)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        return {"skip": f"node exited {proc.returncode}: {proc.stderr.strip().splitlines()[-1:]}"}, None
    return json.loads(lines[-1]), model


def write_inputs(np, torch, directory):
    """Harness-format files (quantized_models.py's docstring) from seeded torchvision models."""
    from torchvision.models import quantization as qmodels

    os.makedirs(directory, exist_ok=True)
    torch.manual_seed(27)
    for name in MODELS:
        model = getattr(qmodels, name)(weights=None, quantize=False)
        # torchvision's random init leaves MobileNetV2's activations near 1e-9 (all
        # logits quantize to 0); batch-norm statistics from random images keep
        # every layer's activations near unit scale, so the check compares real logits.
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.reset_running_stats()
                m.momentum = None
        model.train()
        with torch.no_grad():
            model(torch.rand(8, 3, 224, 224))
        model.eval()
        spec = []
        for i, (key, value) in enumerate(model.state_dict().items()):
            value = value.contiguous()
            spec.append([key, list(value.shape), str(value.dtype).replace("torch.", "")])
            value.numpy().tofile(os.path.join(directory, f"qmodels.{name}.w{i}.bin"))
        with open(os.path.join(directory, f"qmodels.{name}.weights.json"), "w") as f:
            json.dump(spec, f)
    torch.rand(4, 3, 224, 224).numpy().tofile(os.path.join(directory, "qmodels.calibration.bin"))
    for batch in BATCHES:
        torch.rand(batch, 3, 224, 224).numpy().tofile(os.path.join(directory, f"qmodels.input_b{batch}.bin"))


def float_model(np, torch, directory, name):
    """The float model the harness files describe (quantized_models.py's loading, unquantized)."""
    from collections import OrderedDict

    from torchvision.models import quantization as qmodels

    from quantized_models import read_tensor

    model = getattr(qmodels, name)(weights=None, quantize=False)
    with open(os.path.join(directory, f"qmodels.{name}.weights.json")) as f:
        spec = json.load(f)
    model.load_state_dict(OrderedDict(
        (key, read_tensor(np, torch, os.path.join(directory, f"qmodels.{name}.w{i}.bin"), shape, dtype))
        for i, (key, shape, dtype) in enumerate(spec)))
    return model.eval()


def check(np, torch, directory, target_s, threads):
    """Every workload through ORT, against torch's onednn int8 logits on the same model
    and against the float logits (both int8 runs should sit at the same distance)."""
    for name in MODELS:
        fmodel = float_model(np, torch, directory, name)
        for batch in BATCHES:
            result = os.path.join(directory, f"ort.{name}.b{batch}.bin")
            measured, model = run_workload(np, torch, directory, f"{name}_ort_b{batch}", target_s, threads, result)
            if "skip" in measured:
                print(name, batch, measured)
                continue
            x = torch.from_numpy(np.fromfile(os.path.join(directory, f"qmodels.input_b{batch}.bin"),
                                             dtype=np.float32).reshape(batch, 3, 224, 224))
            try:
                with torch.no_grad():
                    ref = model(x).numpy()
            except RuntimeError as e:  # torch 1.13's onednn MobileNetV2 at batch 8 (quantized_models.py)
                got = np.fromfile(result, dtype=np.float32).reshape(batch, -1)
                with torch.no_grad():
                    flt = fmodel(x).numpy()
                print(json.dumps({"workload": f"{name}_ort_b{batch}", **measured,
                                  "torch_onednn": str(e).splitlines()[0],
                                  "ort_vs_float": float(np.abs(got - flt).max()),
                                  "float_logit_range": float(np.abs(flt).max())}))
                continue
            got = np.fromfile(result, dtype=np.float32).reshape(ref.shape)
            with torch.no_grad():
                flt = fmodel(x).numpy()
            print(json.dumps({"workload": f"{name}_ort_b{batch}", **measured,
                              "max_abs_diff_vs_torch_onednn": float(np.abs(got - ref).max()),
                              "torch_onednn_vs_float": float(np.abs(ref - flt).max()),
                              "ort_vs_float": float(np.abs(got - flt).max()),
                              "float_logit_range": float(np.abs(flt).max()),
                              "argmax_agree": float((got.argmax(1) == ref.argmax(1)).mean())}))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("workload", nargs="?")
    p.add_argument("--dir", required=True)
    p.add_argument("--target-s", type=float, default=0.4)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--result")
    p.add_argument("--write-inputs", action="store_true")
    p.add_argument("--check", action="store_true")
    args = p.parse_args()
    try:
        import numpy as np
        import onnx  # noqa: F401  (torch.onnx.export needs it)
        import torch
    except ImportError as e:
        print(json.dumps({"skip": f"{sys.executable}: {e}"}))
        return
    torch.set_num_threads(args.threads)
    warnings.filterwarnings("ignore", message="must run observer")
    if args.write_inputs:
        write_inputs(np, torch, args.dir)
    if args.check:
        check(np, torch, args.dir, args.target_s, args.threads)
    if args.workload:
        measured, _ = run_workload(np, torch, args.dir, args.workload, args.target_s, args.threads, args.result)
        print(json.dumps(measured))


if __name__ == "__main__":
    main()
