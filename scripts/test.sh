#!/usr/bin/env bash
# Configures, builds and runs Ember's whole test suite (ctest, every label).
# Extra arguments go to ctest, e.g. scripts/test.sh -L core
#   EMBER_BUILD_DIR   build folder (default build)
#   EMBER_SANITIZE    e.g. "address;undefined" for the sanitizer build
set -euo pipefail
cd "$(dirname "$0")/.."
build=${EMBER_BUILD_DIR:-build}
jobs=$(nproc)
mkdir -p "$build"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DEMBER_SANITIZE="${EMBER_SANITIZE:-}" >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j "$jobs"
# ctest -j runs one test process per core, each with an OpenMP thread per
# core: libgomp's default spin-waiting at every barrier then burns the cores
# the other processes need (the models suite, hundreds of parallel regions per
# forward, took 98 s instead of 33 s on 2 cores). Passive waiting avoids it.
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"
ctest --test-dir "$build" --output-on-failure -j "$jobs" "$@"
