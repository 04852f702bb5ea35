#!/usr/bin/env bash
# Times MobileNetV2 inference (batch 1 and 8, NCHW and channels-last) with
# Ember against libtorch (Debian's libtorch-dev) in one process, the same
# weights and thread count: scripts/timing/models_mobilenet_v2.sh [threads]
# [build dir]. Exports torchvision's model with Debian's python3, builds
# ember_models in the build dir if needed, compiles models_mobilenet_v2.cpp
# against both libraries, runs it, then prints torch's Python eager numbers as
# a rough extra reference. Not a test: numbers depend on the machine's load.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
threads="${1:-2}"
build="${2:-$root/build}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$root/scripts/timing/models_mobilenet_v2.py" export "$work"
cmake --build "$build" --target ember_models -j2 > /dev/null
torch_inc=/usr/include/torch/csrc/api/include
g++ -std=c++20 -O2 -I"$root/core/include" -I"$root/io/include" -I"$root/vision/include" \
  -I"$root/models/include" -isystem "$torch_inc" \
  "$root/scripts/timing/models_mobilenet_v2.cpp" -o "$work/models_mobilenet_v2" \
  -L"$build/core" -L"$build/io" -L"$build/vision" -L"$build/models" \
  -lember_models -lember_vision -lember_core -ltorch -ltorch_cpu -lc10 \
  -Wl,-rpath,"$build/core:$build/io:$build/vision:$build/models"
"$work/models_mobilenet_v2" "$work" "$threads"
echo "torch (Python, eager, no_grad), median ms:"
/usr/bin/python3 "$root/scripts/timing/models_mobilenet_v2.py" time "$threads"
