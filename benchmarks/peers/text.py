#!/usr/bin/env python3
"""python3-sentencepiece peer of the text benchmark suite (benchmarks/text.cpp).

  text.py sp_encode --model FILE --input FILE --peer-threads 1 \
          --target-s 0.4 --threads 2 --result FILE

Reads the sentences the harness wrote (one a line), times
SentencePieceProcessor.encode(sentences, out_type=int, num_threads=--peer-threads)
(the library's own batch loop) with the harness's policy, writes every id,
concatenated as int64, to --result (ember_bench compares them with Ember's) and
prints {"median_s", "min_s", "reps"}, or {"skip": why}. --threads (the suite's
count) is accepted and ignored: the peer's thread count is --peer-threads.
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
    p.add_argument("workload", choices=["sp_encode"])
    p.add_argument("--model", required=True)
    p.add_argument("--input", required=True)
    p.add_argument("--peer-threads", type=int, default=1)
    p.add_argument("--target-s", type=float, default=0.4)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--result", required=True)
    args = p.parse_args()
    try:
        import numpy as np
        import sentencepiece as spm
    except ImportError as e:
        print(json.dumps({"skip": f"{sys.executable}: {e}"}))
        return
    sp = spm.SentencePieceProcessor(model_file=args.model)
    with open(args.input, encoding="utf-8") as f:
        sentences = f.read().split("\n")[:-1]
    times, result = time_runs(lambda: sp.encode(sentences, out_type=int, num_threads=args.peer_threads),
                              args.target_s)
    flat = np.fromiter((i for ids in result for i in ids), dtype=np.int64)
    with open(args.result, "wb") as f:
        f.write(flat.tobytes())
    print(json.dumps({"median_s": statistics.median(times), "min_s": min(times), "reps": len(times),
                      "sentencepiece": spm.__version__}))


if __name__ == "__main__":
    main()
