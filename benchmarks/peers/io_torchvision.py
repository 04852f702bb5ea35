#!/usr/bin/env python3
"""torchvision.io peer of the io benchmark suite (benchmarks/io.cpp).

ember_bench runs it once per workload, as an external peer (see ExternalPeer in
benchmarks/bench.h), with the workload's inputs in files it wrote:

  io_torchvision.py decode_jpeg --input image.jpg  --target-s 0.4 --threads 2 --result FILE
  io_torchvision.py encode_jpeg --input image.u8 --shape 3,1080,1920 --quality 75 ...
  io_torchvision.py decode_png  --input image.png ...
  io_torchvision.py encode_png  --input image.u8 --shape 3,1080,1920 --level 6 ...

It times the torchvision.io call with the harness's policy (2 warm-up runs,
then runs until at least 5 and --target-s seconds, or 2 s for a slow call),
writes the last result's bytes to --result for ember_bench's check, and
prints one JSON line: {"median_s", "min_s", "reps"}; or {"skip": why} when
torch / torchvision cannot be imported here.
"""
import argparse
import json
import statistics
import sys

from peer_timing import time_runs


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("workload", choices=["decode_jpeg", "encode_jpeg", "decode_png", "encode_png"])
    p.add_argument("--input", required=True, help="encoded file, or raw C x H x W uint8 pixels")
    p.add_argument("--shape", help="C,H,W of a raw --input (the encoders)")
    p.add_argument("--quality", type=int, default=75)
    p.add_argument("--level", type=int, default=6)
    p.add_argument("--target-s", type=float, default=0.4)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--result", required=True)
    return p.parse_args()


def make_call(args, io):
    """The timed call, with its input loaded outside the timing."""
    data = io.read_file(args.input)
    if args.workload == "decode_jpeg":
        return lambda: io.decode_jpeg(data)
    if args.workload == "decode_png":
        return lambda: io.decode_png(data)
    shape = [int(s) for s in args.shape.split(",")]
    image = data.reshape(shape)  # C x H x W, as Ember's encoders take it
    if args.workload == "encode_jpeg":
        return lambda: io.encode_jpeg(image, quality=args.quality)
    return lambda: io.encode_png(image, compression_level=args.level)


def main():
    args = parse_args()
    try:
        import torch
        import torchvision
        from torchvision import io
    except ImportError as e:  # not an error of the benchmark: the peer is absent here
        print(json.dumps({"skip": f"{sys.executable}: {e}"}))
        return
    torch.set_num_threads(args.threads)
    times, result = time_runs(make_call(args, io), args.target_s)
    with open(args.result, "wb") as f:
        f.write(result.contiguous().numpy().tobytes())
    print(json.dumps({"median_s": statistics.median(times), "min_s": min(times), "reps": len(times),
                      "torchvision": torchvision.__version__}))


if __name__ == "__main__":
    main()
