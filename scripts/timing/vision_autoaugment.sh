#!/usr/bin/env bash
# Times AutoAugment, RandAugment, TrivialAugmentWide, AugMix and their ops on a
# 224x224 RGB uint8 image against torchvision 0.14 (Debian's python3):
# scripts/timing/vision_autoaugment.sh [threads] [build dir] [name filter].
# Builds ember_vision in the build dir if needed, compiles vision_autoaugment.cpp
# against it, runs both sides with the same thread count and prints microseconds
# per call (random transforms: the mean over 400 draws of each draw's fastest of 5
# replays of the same seeded sequence; ops: the median) and
# torchvision / Ember. Not a test: numbers depend on the machine's load.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
threads="${1:-1}"
only="${3:-}"
build="${2:-$root/build}"
cmake --build "$build" --target ember_vision -j2 > /dev/null
bin="$(mktemp -d)/vision_autoaugment"
g++ -std=c++20 -O2 -I"$root/core/include" -I"$root/io/include" -I"$root/vision/include" \
  "$root/scripts/timing/vision_autoaugment.cpp" -o "$bin" \
  -L"$build/core" -L"$build/vision" -lember_vision -lember_core \
  -Wl,-rpath,"$build/core:$build/vision:$build/io"
ember="$("$bin" "$threads" $only)"
torch="$(/usr/bin/python3 "$root/scripts/timing/vision_autoaugment.py" "$threads" $only)"
printf "%-34s %10s %12s %8s\n" workload "ember_us" "torchvision" "ratio"
join -a1 <(sort <<< "$ember") <(sort <<< "$torch") |
  awk '{ if ($3) printf "%-34s %10.1f %12.1f %7.2fx\n", $1, $2, $3, $3 / $2; else printf "%-34s %10.1f %12s %8s\n", $1, $2, "-", "-" }'
