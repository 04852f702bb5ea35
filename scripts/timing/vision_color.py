#!/usr/bin/python3
"""torchvision 0.14 side of scripts/timing/vision_color.cpp: the same
workloads with torchvision.transforms.functional on tensors. Prints one line
per workload: name, median microseconds per call."""
import sys
import time

import torch
import torchvision.transforms as T
import torchvision.transforms.functional as F


def median_us(fn, reps):
    for _ in range(3):
        fn()
    t = []
    for _ in range(reps):
        a = time.perf_counter()
        fn()
        t.append((time.perf_counter() - a) * 1e6)
    t.sort()
    return t[len(t) // 2]


def main():
    threads = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    only = sys.argv[2] if len(sys.argv) > 2 else None
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    img = torch.randint(0, 256, (3, 224, 224), dtype=torch.uint8)
    hwc = img.permute(1, 2, 0).contiguous().permute(2, 0, 1)
    batch = torch.randint(0, 256, (32, 3, 224, 224), dtype=torch.uint8)
    fimg = F.convert_image_dtype(img)
    mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    preprocess = T.Compose([T.ConvertImageDtype(torch.float32), T.Normalize(mean, std)])
    work = [
        ("to_float+normalize", lambda: F.normalize(F.convert_image_dtype(img), mean, std), 400),
        ("to_float+normalize_hwc", lambda: F.normalize(F.convert_image_dtype(hwc), mean, std), 400),
        ("to_float+normalize_batch32", lambda: F.normalize(F.convert_image_dtype(batch), mean, std), 30),
        ("to_float+normalize_compose", lambda: preprocess(img), 400),
        ("convert_image_dtype", lambda: F.convert_image_dtype(img), 400),
        ("normalize_f32", lambda: F.normalize(fimg, mean, std), 400),
        ("rgb_to_grayscale", lambda: F.rgb_to_grayscale(img), 400),
        ("adjust_brightness", lambda: F.adjust_brightness(img, 1.3), 400),
        ("adjust_contrast", lambda: F.adjust_contrast(img, 0.7), 400),
        ("adjust_saturation", lambda: F.adjust_saturation(img, 1.4), 400),
        ("adjust_hue", lambda: F.adjust_hue(img, 0.1), 100),
        ("adjust_hue_f32", lambda: F.adjust_hue(fimg, 0.1), 100),
        ("adjust_gamma", lambda: F.adjust_gamma(img, 0.8), 400),
        ("adjust_sharpness", lambda: F.adjust_sharpness(img, 2.0), 400),
        ("invert", lambda: F.invert(img), 400),
        ("posterize", lambda: F.posterize(img, 4), 400),
        ("solarize", lambda: F.solarize(img, 128.0), 400),
        ("autocontrast", lambda: F.autocontrast(img), 400),
        ("equalize", lambda: F.equalize(img), 400),
        ("gaussian_blur_k3", lambda: F.gaussian_blur(img, [3, 3], [1.0, 1.0]), 200),
        ("gaussian_blur_k23", lambda: F.gaussian_blur(img, [23, 23], [2.0, 2.0]), 100),
        ("gaussian_blur_k23_f32", lambda: F.gaussian_blur(fimg, [23, 23], [2.0, 2.0]), 100),
    ]
    with torch.no_grad():
        for name, fn, reps in work:
            if only and only not in name:
                continue
            print(f"{name:34s} {median_us(fn, reps):10.1f}")


if __name__ == "__main__":
    main()
