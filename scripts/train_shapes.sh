#!/usr/bin/env bash
# The main job: builds Ember (Release, build/) and runs the end-to-end training
# example examples/train_shapes (generated data, CNN, AdamW + OneCycleLR,
# checkpoint save and reload). Extra arguments go to ember_train_shapes, e.g.
#   scripts/train_shapes.sh --epochs 2 --channels-last
set -euo pipefail
cd "$(dirname "$0")/.."
build=${EMBER_BUILD_DIR:-build}
mkdir -p "$build"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" --target ember_train_shapes
exec "$build/examples/ember_train_shapes" --checkpoint "$build/shapes.safetensors" "$@"
