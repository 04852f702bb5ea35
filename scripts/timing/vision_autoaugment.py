#!/usr/bin/python3
"""torchvision 0.14 side of scripts/timing/vision_autoaugment.cpp: the same
workloads with torchvision.transforms on tensors. Prints one line per workload:
name, microseconds per call (ops: the median; random transforms: the mean over
400 draws of each draw's fastest of 5 replays of the same seeded sequence)."""
import sys
import time

import torch
import torchvision.transforms as T
from torchvision.transforms import InterpolationMode as IM
from torchvision.transforms import autoaugment as AA


def times_us(fn, reps):
    for _ in range(5):
        fn()
    t = []
    for _ in range(reps):
        a = time.perf_counter()
        fn()
        t.append((time.perf_counter() - a) * 1e6)
    return t


def median(t):
    return sorted(t)[len(t) // 2]


def replayed_mean_us(fn, draws, replays):
    for _ in range(5):
        fn()
    best = [float("inf")] * draws
    for _ in range(replays):
        torch.manual_seed(1234)
        for d in range(draws):
            a = time.perf_counter()
            fn()
            best[d] = min(best[d], (time.perf_counter() - a) * 1e6)
    return sum(best) / draws


def main():
    threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    only = sys.argv[2] if len(sys.argv) > 2 else None
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    img = torch.randint(0, 256, (3, 224, 224), dtype=torch.uint8)
    aa, ra, ta, mix = T.AutoAugment(), T.RandAugment(), T.TrivialAugmentWide(), T.AugMix()

    def op(name, m, mode=IM.NEAREST):
        return lambda: AA._apply_op(img, name, m, interpolation=mode, fill=None)

    work = [
        ("AutoAugment_imagenet", lambda: aa(img), 400, True),
        ("RandAugment", lambda: ra(img), 400, True),
        ("TrivialAugmentWide", lambda: ta(img), 400, True),
        ("AugMix", lambda: mix(img), 200, True),
        ("op_ShearX_nearest", op("ShearX", 0.3), 200, False),
        ("op_ShearX_bilinear", op("ShearX", 0.3, IM.BILINEAR), 200, False),
        ("op_TranslateX_nearest", op("TranslateX", 60.0), 200, False),
        ("op_Rotate_nearest", op("Rotate", 30.0), 200, False),
        ("op_Rotate_bilinear", op("Rotate", 30.0, IM.BILINEAR), 200, False),
        ("op_Brightness", op("Brightness", 0.5), 400, False),
        ("op_Color", op("Color", 0.5), 400, False),
        ("op_Contrast", op("Contrast", 0.5), 400, False),
        ("op_Sharpness", op("Sharpness", 0.5), 400, False),
        ("op_Posterize", op("Posterize", 4.0), 400, False),
        ("op_Solarize", op("Solarize", 128.0), 400, False),
        ("op_AutoContrast", op("AutoContrast", 0.0), 400, False),
        ("op_Equalize", op("Equalize", 0.0), 400, False),
        ("op_Invert", op("Invert", 0.0), 400, False),
    ]
    with torch.no_grad():
        for name, fn, reps, random in work:
            if only and only not in name:
                continue
            value = replayed_mean_us(fn, reps, 5) if random else median(times_us(fn, reps))
            print(f"{name:34s} {value:10.1f}")


if __name__ == "__main__":
    main()
