"""Joins ember_cuda_bench's and torch_peer.py's JSON lines into a Markdown table.

usage: compare.py EMBER.jsonl TORCH.jsonl GPU_NAME
Columns: Ember and PyTorch medians, their GB/s, PyTorch/Ember time (> 1: Ember
faster) and Ember's GB/s as a share of Ember's measured device-to-device copy.
"""
import json
import sys


def load(path):
    rows = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                r = json.loads(line)
                rows[r["name"]] = r
    return rows


def main():
    ember, torch_rows, gpu = load(sys.argv[1]), load(sys.argv[2]), sys.argv[3]
    copy = ember.get("copy", {}).get("gbps") or float("nan")
    print(f"GPU: {gpu}\n")
    print("| workload | Ember ms | PyTorch ms | Ember GB/s | PyTorch GB/s | PyTorch/Ember | Ember / copy BW |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, e in ember.items():
        t = torch_rows.get(name)
        tms = f"{t['ms']:.3f}" if t else "-"
        tbw = f"{t['gbps']:.0f}" if t else "-"
        ratio = f"{t['ms'] / e['ms']:.2f}x" if t else "-"
        print(f"| {name} | {e['ms']:.3f} | {tms} | {e['gbps']:.0f} | {tbw} | {ratio} | {e['gbps'] / copy:.0%} |")


if __name__ == "__main__":
    main()
