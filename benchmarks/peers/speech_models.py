#!/usr/bin/env python3
"""torchaudio 0.13's speech models: the peers of the audio suite's model workloads
(benchmarks/speech_models.cpp).

  speech_models.py WORKLOAD --dir SCRATCH --target-s 0.4 --threads 2 --result FILE

WORKLOAD is wav2letter_train_step, convtasnet_fwd_bwd or wavernn_infer. The
harness writes, under --dir, the model's weights (`<workload>.weights.safetensors`,
Ember's state_dict, read here into the torchaudio model with strict=True) and
its inputs (`<workload>.<name>.bin`, raw C-order data whose dtype and shape are
in `<workload>.inputs.json`). This script times the workload with the harness's
policy (peer_timing.py), writes its check result (float32) to --result and
prints {"median_s", "min_s", "reps"}, or {"skip": why}. The settings below are
speech_models.cpp's: keep the two in step.
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_timing import time_runs  # noqa: E402  (the harness's timing policy)

# Wav2Letter's training step.
W2L_CLASSES = 29
W2L_MFCC = dict(sample_rate=16000, n_mfcc=13, melkwargs=dict(n_fft=400, hop_length=160, n_mels=40))
W2L_SGD = dict(lr=0.01, momentum=0.9)
# WaveRNN: torchaudio's WAVERNN_10K_EPOCHS_8BITS_LJSPEECH configuration.
WAVERNN = dict(upsample_scales=[5, 5, 11], n_classes=256, hop_length=275, n_res_block=10, n_rnn=512, n_fc=512,
               kernel_size=5, n_freq=80, n_hidden=128, n_output=128)

DTYPES = {"F32": "float32", "F64": "float64", "I64": "int64", "I32": "int32"}


def load_safetensors(np, torch, path):
    """The tensors of a safetensors file (8-byte header length, JSON header, data)."""
    with open(path, "rb") as f:
        raw = f.read()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    data = raw[8 + n:]
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        array = np.frombuffer(data[begin:end], dtype=DTYPES[info["dtype"]]).reshape(info["shape"])
        out[name] = torch.from_numpy(array.copy())
    return out


def load_inputs(np, torch, directory, workload):
    with open(os.path.join(directory, workload + ".inputs.json")) as f:
        spec = json.load(f)
    return {name: torch.from_numpy(np.fromfile(os.path.join(directory, f"{workload}.{name}.bin"),
                                               dtype=info["dtype"]).reshape(info["shape"]))
            for name, info in spec.items()}


def model_with_weights(np, torch, net, directory, workload):
    net.load_state_dict(load_safetensors(np, torch, os.path.join(directory, workload + ".weights.safetensors")),
                        strict=True)
    return net


def wav2letter_train_step(np, torch, torchaudio, directory, target_s):
    """MFCC features, Wav2Letter, CTC loss, an SGD step. Checks the first two
    steps' losses (the second one sees the first update)."""
    x = load_inputs(np, torch, directory, "wav2letter_train_step")
    net = model_with_weights(np, torch, torchaudio.models.Wav2Letter(W2L_CLASSES, "mfcc", W2L_MFCC["n_mfcc"]),
                             directory, "wav2letter_train_step")
    net.train()
    mfcc = torchaudio.transforms.MFCC(**W2L_MFCC)
    opt = torch.optim.SGD(net.parameters(), **W2L_SGD)
    waveform, targets, target_lengths = x["waveform"], x["targets"], x["target_lengths"]
    losses = []

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.no_grad():
            features = mfcc(waveform)
        log_probs = net(features).permute(2, 0, 1)  # [frames, N, classes]
        input_lengths = torch.full((log_probs.size(1),), log_probs.size(0), dtype=torch.int64)
        loss = torch.nn.functional.ctc_loss(log_probs, targets, input_lengths, target_lengths)
        loss.backward()
        opt.step()
        losses.append(loss.item())

    times, _ = time_runs(step, target_s)
    return times, np.array(losses[:2], dtype=np.float32)


def convtasnet_fwd_bwd(np, torch, torchaudio, directory, target_s):
    """conv_tasnet_base's forward, MSE to the sources, backward. Checks the loss
    and the squared norm of the encoder's gradient."""
    x = load_inputs(np, torch, directory, "convtasnet_fwd_bwd")
    net = model_with_weights(np, torch, torchaudio.models.conv_tasnet_base(num_sources=2), directory,
                             "convtasnet_fwd_bwd")
    net.train()
    mixture, sources = x["mixture"], x["sources"]

    def step():
        net.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(net(mixture), sources)
        loss.backward()
        return torch.stack([loss.detach(), net.encoder.weight.grad.pow(2).sum()])

    times, result = time_runs(step, target_s)
    return times, result.numpy()


def wavernn_infer(np, torch, torchaudio, directory, target_s):
    """WaveRNN.infer with its multinomial sampling, timed. The check replays the
    classes Ember drew (x.classes, [steps, N]) through torchaudio's infer and
    returns each step's log-probability of them ([N, steps])."""
    x = load_inputs(np, torch, directory, "wavernn_infer")
    net = model_with_weights(np, torch, torchaudio.models.WaveRNN(**WAVERNN), directory, "wavernn_infer")
    net.eval()
    mel = x["specgram"]
    with torch.inference_mode():
        times, _ = time_runs(lambda: net.infer(mel), target_s)
    classes = x["classes"]
    log_probs = []
    sample = torch.multinomial

    def replay(posterior, num_samples):
        step = len(log_probs)
        chosen = classes[step].unsqueeze(1)
        log_probs.append(posterior.gather(1, chosen).log().squeeze(1))
        return chosen

    torch.multinomial = replay  # torchaudio's infer calls torch.multinomial(posterior, 1)
    try:
        with torch.inference_mode():
            net.infer(mel)
    finally:
        torch.multinomial = sample
    return times, torch.stack(log_probs, dim=1).numpy()


WORKLOADS = {f.__name__: f for f in (wav2letter_train_step, convtasnet_fwd_bwd, wavernn_infer)}


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
        import torchaudio
    except ImportError as e:
        print(json.dumps({"skip": f"{sys.executable}: {e}"}))
        return
    torch.set_num_threads(args.threads)
    times, result = WORKLOADS[args.workload](np, torch, torchaudio, args.dir, args.target_s)
    with open(args.result, "wb") as f:
        f.write(np.ascontiguousarray(result, dtype=np.float32).tobytes())
    print(json.dumps({"median_s": statistics.median(times), "min_s": min(times), "reps": len(times),
                      "torchaudio": torchaudio.__version__}))


if __name__ == "__main__":
    main()
