#!/usr/bin/env bash
# The main job: builds Ember's apps (Release, build/) and runs them end to end.
#   1. ember-train, given no data, generates 6,360 images of six shapes (JPEG and
#      PNG files in ImageFolder layout), trains a ResNet-18 from ember::models on
#      them (SGD with a one-cycle schedule, DataLoader workers, random crops and
#      flips) and requires 95% validation accuracy; it saves a resumable
#      checkpoint (model, optimizer, schedule, preprocessing) and metrics.json.
#   2. ember-classify labels held-out images with that checkpoint.
# Extra arguments go to ember-train (see build/apps/ember-train --help), e.g.
#   scripts/train.sh --epochs 3 --model mobilenet_v3_small
# Environment: EMBER_BUILD_DIR (default build), EMBER_TRAIN_OUT (default
# $EMBER_BUILD_DIR/ember-train-out: data, checkpoints, metrics).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${EMBER_BUILD_DIR:-build}
out=${EMBER_TRAIN_OUT:-$build/ember-train-out}
mkdir -p "$build"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" --target ember-train ember-classify
"$build/apps/ember-train" --output "$out" --min-accuracy 0.95 "$@"
echo
echo "ember-classify with $out/best.safetensors on held-out images:"
mapfile -t images < <(find "$out/data/test" -name '*_000[01].*' | sort)
"$build/apps/ember-classify" --checkpoint "$out/best.safetensors" "${images[@]}"
