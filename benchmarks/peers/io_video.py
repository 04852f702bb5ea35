#!/usr/bin/env python3
"""Video peers of the io benchmark suite (benchmarks/io.cpp, videoreader_*).

ember_bench runs it once per peer, as an external peer (see ExternalPeer in
benchmarks/bench.h), on the clip it wrote to its scratch folder:

  io_video.py torchvision --input clip.mp4 --target-s 0.4 --threads 2 --result FILE
  io_video.py pyav        --input clip.mp4 ...

One timed run decodes every frame of the first video stream to [3, H, W] /
[H, W, 3] uint8 RGB, as a user's loop over the clip would:
  torchvision: torchvision.io.VideoReader(path, "video", num_threads=threads)
               with the "video_reader" backend (torchvision's C++ decoder,
               which Ember's io::VideoReader follows);
  pyav:        av.open(path), stream.thread_count = threads, thread_type
               "AUTO" (frame + slice threads; PyAV's default is slice threads
               only, one thread for x264's single-slice frames), and
               frame.to_ndarray(format="rgb24") for every decoded frame.
After the timing (so not timed) it writes the summary ember_bench checks, as
int64: [frame count, sum of the frames' pts in us, the last frame's pts in us,
sum of the last frame's bytes, sum of byte * (index % 251 + 1) over the last
frame as [3, H, W]]. It prints {"median_s", "min_s", "reps"}, or {"skip": why}
when the module cannot be imported or the backend is missing.
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_timing import time_runs  # noqa: E402  (the harness's timing policy)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("peer", choices=["torchvision", "pyav"])
    p.add_argument("--input", required=True)
    p.add_argument("--target-s", type=float, default=0.4)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--result", required=True)
    return p.parse_args()


def torchvision_call(args):
    import torch
    import torchvision
    torch.set_num_threads(args.threads)
    torchvision.set_video_backend("video_reader")  # raises when torchvision lacks it

    def call():
        reader = torchvision.io.VideoReader(args.input, "video", num_threads=args.threads)
        pts, last = [], None
        for frame in reader:
            pts.append(frame["pts"])
            last = frame
        return pts, last["data"].numpy()  # [3, H, W]
    return call, torchvision.__version__


def pyav_call(args):
    import av

    def call():
        with av.open(args.input) as container:
            stream = container.streams.video[0]
            stream.thread_type = "AUTO"
            stream.thread_count = args.threads
            pts, last = [], None
            for frame in container.decode(stream):
                last = frame.to_ndarray(format="rgb24")  # [H, W, 3]
                pts.append(float(frame.pts * frame.time_base))
        return pts, last.transpose(2, 0, 1)
    return call, av.__version__


def summary(pts, last):
    import numpy as np
    flat = np.ascontiguousarray(last).reshape(-1).astype(np.int64)
    weights = np.arange(flat.size, dtype=np.int64) % 251 + 1
    us = [int(round(p * 1e6)) for p in pts]
    return np.array([len(pts), sum(us), us[-1], int(flat.sum()), int((flat * weights).sum())], dtype=np.int64)


def main():
    args = parse_args()
    try:
        call, version = (torchvision_call if args.peer == "torchvision" else pyav_call)(args)
    except (ImportError, RuntimeError) as e:  # the peer is absent here: not a benchmark error
        print(json.dumps({"skip": f"{sys.executable}: {args.peer}: {e}"}))
        return
    times, (pts, last) = time_runs(call, args.target_s)
    with open(args.result, "wb") as f:
        f.write(summary(pts, last).tobytes())
    print(json.dumps({"median_s": statistics.median(times), "min_s": min(times), "reps": len(times),
                      args.peer: version}))


if __name__ == "__main__":
    main()
