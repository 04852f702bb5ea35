#!/usr/bin/python3
"""torch.utils.data.DataLoader's cost per batch over the trivial dataset of
loader_overhead.cpp (get() returns its index), for docs/datasets.md.
Run with Debian's python3: /usr/bin/python3 tests/datasets/tools/loader_overhead_torch.py"""
import statistics
import time

import torch
from torch.utils.data import DataLoader, Dataset


class Trivial(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return i


def main():
    torch.set_num_threads(2)
    print(f"torch {torch.__version__}")
    print(f"{'workers':8} {'batch':8} {'persistent':11} {'batches':10} us/batch")
    for batch_size in (1, 64):
        batches = 2000 if batch_size == 1 else 500
        dataset = Trivial(batches * batch_size)
        for workers in (0, 1, 2):
            for persistent in (False, True):
                if persistent and workers == 0:
                    continue
                loader = DataLoader(dataset, batch_size=batch_size, num_workers=workers,
                                    persistent_workers=persistent)
                times = []
                for _ in range(4):
                    t0 = time.perf_counter()
                    for _batch in loader:
                        pass
                    times.append(time.perf_counter() - t0)
                median = statistics.median(times[1:])
                print(f"{workers:<8} {batch_size:<8} {'yes' if persistent else 'no':11} {batches:<10} "
                      f"{median / batches * 1e6:.1f}")


if __name__ == "__main__":
    main()
