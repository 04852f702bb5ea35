#!/usr/bin/env python3
"""Input-pipeline peers of the data benchmark suite (benchmarks/data_pipeline.cpp).

ember_bench runs it once per workload and peer on the ImageFolder tree it wrote:

  data_pipeline.py torch_dataloader     --root DIR --workers N --batch 32 --crop 224
  data_pipeline.py torch_dataloader_pil ...

One run is one epoch of torch.utils.data.DataLoader(shuffle=True, batch_size,
num_workers; persistent_workers off, the default) over
torchvision.datasets.ImageFolder:
  - torch_dataloader: images decoded by torchvision.io.decode_jpeg, then the
    tensor transforms RandomResizedCrop(crop, antialias=True),
    RandomHorizontalFlip, ConvertImageDtype(float32), Normalize(ImageNet);
  - torch_dataloader_pil: PIL's loader and transforms, RandomResizedCrop(crop)
    (PIL always antialiases), RandomHorizontalFlip, ToTensor, Normalize.
Workers set torch.set_num_threads(1), as torch's DataLoader does in its worker
processes. It times runs with the harness's policy, writes what both sides must
agree on (each batch's shape, then the sum of all labels: [batches + 1, 4]
int64) to --result, and prints one JSON line {"median_s", "min_s", "reps"}, or
{"skip": why} when torch or torchvision cannot be imported.
"""
import argparse
import json
import statistics
import sys

from peer_timing import time_runs


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("peer", choices=["torch_dataloader", "torch_dataloader_pil"])
    p.add_argument("--root", required=True)
    p.add_argument("--workers", type=int, required=True)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--crop", type=int, default=224)
    p.add_argument("--target-s", type=float, default=0.4)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--result", required=True)
    return p.parse_args()


def main():
    args = parse_args()
    try:
        import numpy as np
        import torch
        import torchvision
        from torchvision import datasets, transforms as T
        from torchvision.io import ImageReadMode, decode_jpeg, read_file
    except ImportError as e:  # the peer is absent here: not an error of the benchmark
        print(json.dumps({"skip": f"{sys.executable}: {e}"}))
        return
    torch.set_num_threads(args.threads)
    mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    if args.peer == "torch_dataloader":
        transform = T.Compose([T.RandomResizedCrop(args.crop, antialias=True), T.RandomHorizontalFlip(),
                               T.ConvertImageDtype(torch.float32), T.Normalize(mean, std)])
        loader = lambda path: decode_jpeg(read_file(path), ImageReadMode.RGB)
        dataset = datasets.ImageFolder(args.root, transform=transform, loader=loader)
    else:
        transform = T.Compose([T.RandomResizedCrop(args.crop), T.RandomHorizontalFlip(), T.ToTensor(),
                               T.Normalize(mean, std)])
        dataset = datasets.ImageFolder(args.root, transform=transform)

    def epoch():
        data = torch.utils.data.DataLoader(dataset, batch_size=args.batch, shuffle=True,
                                           num_workers=args.workers)
        rows, label_sum = [], 0
        for images, labels in data:
            rows.append(list(images.shape))
            label_sum += int(labels.sum())
        rows.append([label_sum, 0, 0, 0])
        return np.array(rows, dtype=np.int64)

    times, result = time_runs(epoch, args.target_s, warmup=1, max_s=30.0)  # epochs take seconds
    with open(args.result, "wb") as f:
        f.write(result.tobytes())
    print(json.dumps({"median_s": statistics.median(times), "min_s": min(times), "reps": len(times),
                      "torchvision": torchvision.__version__}))


if __name__ == "__main__":
    main()
