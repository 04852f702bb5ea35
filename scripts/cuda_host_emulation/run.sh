#!/bin/sh
# Runs the CUDA scan engine and the sort family's kernels on the host, without
# a GPU (docs/cuda.md, "Tests"): extract.py copies the kernels' text out of
# cuda/src/kernels/ (between fixed markers, so a renamed marker fails loudly),
# emulate_scan_sort.cpp compiles them as C++ with each block's threads as
# std::threads (a barrier for __syncthreads) and CUB's radix sort replaced by a
# stable sort on the same key bits, and checks them against the CPU kernels'
# algorithms. Usage: scripts/cuda_host_emulation/run.sh [work dir [scan|sort|unique]]
# (the scan part starts thousands of threads: slow on loaded cores).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=${1:-/tmp/ember-cuda-emulation}
mkdir -p "$work"
python3 "$here/extract.py" "$here/../../cuda/src/kernels" "$work/extracted.inc"
g++ -std=c++20 -O1 -pthread -w -I"$work" -I"$here/../../cuda/src/kernels" "$here/emulate_scan_sort.cpp" -o "$work/emulate_scan_sort"
"$work/emulate_scan_sort" ${2:-}
