#!/usr/bin/env python3
"""The PyTorch peer of the models suite's ember-train epoch
(benchmarks/apps_train_epoch.cpp): the script a PyTorch user would write for
what ember-train does, run on the same generated shapes dataset.

  train_epoch.py torch_script --root DIR --workers 2 --batch 32 --result FILE

One run is one epoch, start to end, as ember-train runs it with --epochs 1:
torchvision.datasets.ImageFolder over DIR/train and DIR/val (PIL's loader),
training transforms RandomCrop(32, padding=4, padding_mode="edge"),
RandomHorizontalFlip, ToTensor, Normalize(ImageNet) (ember-train's for
32-pixel ImageFolder images), torchvision's resnet18(num_classes), SGD (lr
0.05, momentum 0.9, Nesterov, weight decay 5e-4) with OneCycleLR stepped per
batch, a DataLoader with the given workers (shuffle, drop_last), one pass of
training, then accuracy on the validation split (batches of 2 x batch), then
torch.save of a resumable checkpoint (model, optimizer, scheduler, epoch).
Threads: torch.set_num_threads(--threads) in the main process (the workers
use 1, torch's default for them).

Writes [training steps, training images, validation images] (int64) to
--result, and prints one JSON line {"median_s", "min_s", "reps"}, or
{"skip": why} when torch or torchvision cannot be imported.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile

from peer_timing import time_runs


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("peer", choices=["torch_script"])
    p.add_argument("--root", required=True)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--image-size", type=int, default=32)
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
    except ImportError as e:  # the peer is absent here: not an error of the benchmark
        print(json.dumps({"skip": f"{sys.executable}: {e}"}))
        return
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    size = args.image_size
    normalize = T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
    train_t = T.Compose([T.Resize((size, size)), T.RandomCrop(size, padding=size // 8, padding_mode="edge"),
                         T.RandomHorizontalFlip(), T.ToTensor(), normalize])
    eval_t = T.Compose([T.Resize((size, size)), T.ToTensor(), normalize])
    train_set = datasets.ImageFolder(os.path.join(args.root, "train"), transform=train_t)
    val_set = datasets.ImageFolder(os.path.join(args.root, "val"), transform=eval_t)
    out_dir = tempfile.mkdtemp(prefix="ember_bench_torch_train_")

    def epoch():
        model = torchvision.models.resnet18(num_classes=len(train_set.classes))
        train_loader = torch.utils.data.DataLoader(train_set, batch_size=args.batch, shuffle=True,
                                                   num_workers=args.workers, drop_last=True)
        val_loader = torch.utils.data.DataLoader(val_set, batch_size=2 * args.batch, num_workers=args.workers)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=5e-4)
        scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.05, epochs=1,
                                                        steps_per_epoch=len(train_loader))
        model.train()
        steps = seen = correct = 0
        loss_sum = 0.0
        for images, labels in train_loader:
            optimizer.zero_grad()
            logits = model(images)
            loss = torch.nn.functional.cross_entropy(logits, labels)
            loss.backward()
            optimizer.step()
            scheduler.step()
            loss_sum += loss.item() * len(labels)
            correct += int((logits.argmax(1) == labels).sum())
            seen += len(labels)
            steps += 1
        model.eval()
        val_seen = val_correct = 0
        with torch.no_grad():
            for images, labels in val_loader:
                val_correct += int((model(images).argmax(1) == labels).sum())
                val_seen += len(labels)
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(), "epoch": 1}, os.path.join(out_dir, "checkpoint.pt"))
        return np.array([steps, seen, val_seen], dtype=np.int64)

    times, result = time_runs(epoch, args.target_s, warmup=1, min_reps=3, max_s=30.0)  # epochs take seconds
    with open(args.result, "wb") as f:
        f.write(result.tobytes())
    print(json.dumps({"median_s": statistics.median(times), "min_s": min(times), "reps": len(times),
                      "torchvision": torchvision.__version__}))


if __name__ == "__main__":
    main()
