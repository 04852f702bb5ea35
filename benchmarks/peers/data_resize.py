#!/usr/bin/env python3
"""Image resize peers of the data benchmark suite (benchmarks/data.cpp).

ember_bench runs it once per workload and peer, as an external peer (see
ExternalPeer in benchmarks/bench.h), on the picture it wrote as raw H x W x 3
uint8 bytes:

  data_resize.py torchvision --input image.u8 --shape 1080,1920,3 --size 224,224 --layout chw [--antialias]
  data_resize.py opencv      ...  (cv2.resize, INTER_LINEAR: no antialiasing)
  data_resize.py pillow      ...  (Image.resize, BILINEAR: always antialiased) --antialias

torchvision resizes the uint8 tensor [3, H, W] with
torchvision.transforms.functional.resize (its tensor path), either contiguous
(--layout chw) or as the [3, H, W] view of the H x W x 3 array (--layout hwc,
what torchvision.io.decode_jpeg returns). OpenCV and Pillow take the H x W x 3
array, their layout, whatever --layout says. It times the call with the
harness's policy (2 warm-up runs, then runs until at least 5 and --target-s
seconds, or 2 s for a slow call), writes the last result as 3 x h x w bytes to
--result for ember_bench's check, and prints one JSON line: {"median_s",
"min_s", "reps"}; or {"skip": why} when the library cannot be imported here.
"""
import argparse
import json
import statistics
import sys

from peer_timing import time_runs


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("peer", choices=["torchvision", "opencv", "pillow"])
    p.add_argument("--input", required=True, help="raw H x W x 3 uint8 pixels")
    p.add_argument("--shape", required=True, help="H,W,3 of --input")
    p.add_argument("--size", required=True, help="h,w of the result")
    p.add_argument("--layout", choices=["chw", "hwc"], default="chw")
    p.add_argument("--antialias", action="store_true")
    p.add_argument("--target-s", type=float, default=0.4)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--result", required=True)
    return p.parse_args()


def main():
    args = parse_args()
    try:
        import numpy as np
        if args.peer == "torchvision":
            import torch
            import torchvision
            from torchvision.transforms import InterpolationMode
            from torchvision.transforms import functional as F
            version = torchvision.__version__
        elif args.peer == "opencv":
            import cv2
            version = cv2.__version__
        else:
            import PIL
            from PIL import Image
            version = PIL.__version__
    except ImportError as e:  # not an error of the benchmark: the peer is absent here
        print(json.dumps({"skip": f"{sys.executable}: {e}"}))
        return
    h, w, c = (int(s) for s in args.shape.split(","))
    oh, ow = (int(s) for s in args.size.split(","))
    hwc = np.fromfile(args.input, dtype=np.uint8).reshape(h, w, c)

    if args.peer == "torchvision":
        torch.set_num_threads(args.threads)
        view = torch.from_numpy(hwc).permute(2, 0, 1)
        image = view.contiguous() if args.layout == "chw" else view
        call = lambda: F.resize(image, [oh, ow], InterpolationMode.BILINEAR, antialias=args.antialias)
        to_chw = lambda r: r.contiguous().numpy()
    elif args.peer == "opencv":
        if args.antialias:
            print(json.dumps({"skip": "cv2.resize(INTER_LINEAR) does not antialias"}))
            return
        cv2.setNumThreads(args.threads)
        call = lambda: cv2.resize(hwc, (ow, oh), interpolation=cv2.INTER_LINEAR)
        to_chw = lambda r: np.ascontiguousarray(r.transpose(2, 0, 1))
    else:
        if not args.antialias:
            print(json.dumps({"skip": "Pillow's BILINEAR resize always antialiases"}))
            return
        image = Image.fromarray(hwc)
        call = lambda: image.resize((ow, oh), Image.BILINEAR)
        to_chw = lambda r: np.ascontiguousarray(np.asarray(r).transpose(2, 0, 1))

    times, result = time_runs(call, args.target_s)
    with open(args.result, "wb") as f:
        f.write(to_chw(result).tobytes())
    print(json.dumps({"median_s": statistics.median(times), "min_s": min(times), "reps": len(times),
                      args.peer: version}))


if __name__ == "__main__":
    main()
