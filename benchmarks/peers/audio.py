#!/usr/bin/env python3
"""torchaudio and scipy.signal peers of the audio benchmark suite (benchmarks/audio.cpp).

  audio.py WORKLOAD --peer torchaudio|scipy --input FILE --shape 32,64000 \
           --target-s 0.4 --threads 2 --result FILE

Reads the float32 input the harness wrote (raw bytes, C order, --shape),
times the workload with the harness's policy, writes the float32 result's
bytes to --result (ember_bench compares them with Ember's) and prints
{"median_s", "min_s", "reps"}, or {"skip": why}. A scipy workload whose
algorithm differs from torchaudio's by design (resample_poly's filter) prints
"unchecked": why instead of writing a result. The workloads' parameters are
those of benchmarks/audio.cpp: keep the two in step.
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_timing import time_runs  # noqa: E402  (the harness's timing policy)

SR = 16000
STFT = dict(n_fft=400, hop_length=160)
N_MELS = 80


def lfilter_order8_coefficients(np, signal):
    """An 8th-order Butterworth lowpass at 0.2 x Nyquist: benchmarks/audio.cpp holds the same numbers."""
    b, a = signal.butter(8, 0.2)
    return b, a


def torchaudio_workloads(torch, torchaudio, x):
    T = torchaudio.transforms
    F = torchaudio.functional
    kaldi = torchaudio.compliance.kaldi
    spec = T.Spectrogram(**STFT)
    mel = T.MelSpectrogram(sample_rate=SR, n_mels=N_MELS, **STFT)
    mfcc = T.MFCC(sample_rate=SR, n_mfcc=40, melkwargs=dict(n_mels=N_MELS, **STFT))
    r48 = T.Resample(48000, 16000)
    r44 = T.Resample(44100, 16000)
    griffin = T.GriffinLim(n_fft=400, hop_length=160, n_iter=32, rand_init=False)
    stretch = T.TimeStretch(hop_length=160, n_freq=201, fixed_rate=1.25)
    import numpy as np
    from scipy import signal
    b, a = lfilter_order8_coefficients(np, signal)
    bt = torch.tensor(b, dtype=torch.float32)
    at = torch.tensor(a, dtype=torch.float32)
    return {
        "spectrogram": lambda: spec(x),
        "melspectrogram": lambda: mel(x),
        "mfcc": lambda: mfcc(x),
        "resample_48k_16k": lambda: r48(x),
        "resample_44k1_16k": lambda: r44(x),
        "lowpass_biquad": lambda: F.lowpass_biquad(x, SR, 1000.0),
        "lfilter_order8": lambda: F.lfilter(x, at, bt, clamp=False),
        "griffinlim_32": lambda: griffin(x),
        "kaldi_fbank": lambda: kaldi.fbank(x, num_mel_bins=N_MELS, sample_frequency=SR, dither=0.0),
        # x is a complex spectrogram stored as [..., freq, time, 2].
        "timestretch": lambda: torch.view_as_real(stretch(torch.view_as_complex(x.contiguous()))),
    }


def scipy_workloads(np, signal, x):
    # float32 coefficients keep scipy's lfilter in float32, as the other sides are.
    b, a = (c.astype(np.float32) for c in lfilter_order8_coefficients(np, signal))
    # lowpass_biquad's coefficients (torchaudio's RBJ cookbook formulas, Q = 0.707).
    w0 = 2 * np.pi * 1000.0 / SR
    alpha = np.sin(w0) / 2 / 0.707
    bq_b = np.array([(1 - np.cos(w0)) / 2, 1 - np.cos(w0), (1 - np.cos(w0)) / 2], dtype=np.float32)
    bq_a = np.array([1 + alpha, -2 * np.cos(w0), 1 - alpha], dtype=np.float32)
    return {
        "lowpass_biquad": (lambda: np.clip(signal.lfilter(bq_b, bq_a, x, axis=-1), -1, 1), None),
        "lfilter_order8": (lambda: signal.lfilter(b, a, x, axis=-1), None),
        "resample_48k_16k": (lambda: signal.resample_poly(x, 1, 3, axis=-1),
                             "scipy's resample_poly designs another filter than torchaudio's sinc kernel"),
        "resample_44k1_16k": (lambda: signal.resample_poly(x, 160, 441, axis=-1),
                              "scipy's resample_poly designs another filter than torchaudio's sinc kernel"),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("workload")
    p.add_argument("--peer", choices=["torchaudio", "scipy"], required=True)
    p.add_argument("--input", required=True)
    p.add_argument("--shape", required=True)
    p.add_argument("--target-s", type=float, default=0.4)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--result", required=True)
    args = p.parse_args()
    try:
        import numpy as np
        import torch
        import torchaudio
        from scipy import signal
    except ImportError as e:
        print(json.dumps({"skip": f"{sys.executable}: {e}"}))
        return
    torch.set_num_threads(args.threads)
    shape = [int(s) for s in args.shape.split(",")]
    data = np.fromfile(args.input, dtype=np.float32).reshape(shape)
    unchecked = None
    if args.peer == "torchaudio":
        call = torchaudio_workloads(torch, torchaudio, torch.from_numpy(data))[args.workload]
        with torch.no_grad():
            times, result = time_runs(call, args.target_s)
        result = result.contiguous().numpy()
        version = {"torchaudio": torchaudio.__version__}
    else:
        call, unchecked = scipy_workloads(np, signal, data)[args.workload]
        times, result = time_runs(call, args.target_s)
        import scipy
        version = {"scipy": scipy.__version__}
    line = {"median_s": statistics.median(times), "min_s": min(times), "reps": len(times), **version}
    if unchecked:
        line["unchecked"] = unchecked
    else:
        with open(args.result, "wb") as f:
            f.write(np.ascontiguousarray(result, dtype=np.float32).tobytes())
    print(json.dumps(line))


if __name__ == "__main__":
    main()
