#!/usr/bin/env python3
"""torchaudio peer of the io benchmark suite (benchmarks/io.cpp, audio_load_*).

  io_torchaudio.py --input audio.flac --target-s 0.4 --threads 2 --result FILE

Times torchaudio.load(path) (its default sox_io backend in torchaudio 0.13:
float32 [channels, frames] in [-1, 1]) with the harness's policy, writes the
last waveform's float32 bytes to --result (ember_bench compares them exactly
with Ember's) and prints {"median_s", "min_s", "reps"}, or {"skip": why}.
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_timing import time_runs  # noqa: E402  (the harness's timing policy)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--input", required=True)
    p.add_argument("--target-s", type=float, default=0.4)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--result", required=True)
    args = p.parse_args()
    try:
        import torch
        import torchaudio
    except ImportError as e:
        print(json.dumps({"skip": f"{sys.executable}: {e}"}))
        return
    torch.set_num_threads(args.threads)
    times, (waveform, _) = time_runs(lambda: torchaudio.load(args.input), args.target_s)
    with open(args.result, "wb") as f:
        f.write(waveform.contiguous().numpy().tobytes())
    print(json.dumps({"median_s": statistics.median(times), "min_s": min(times), "reps": len(times),
                      "torchaudio": torchaudio.__version__, "backend": torchaudio.get_audio_backend()}))


if __name__ == "__main__":
    main()
