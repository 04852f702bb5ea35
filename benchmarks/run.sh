#!/usr/bin/env bash
# Builds ember_bench (Release) and runs one suite, Ember vs libtorch (or the
# workload's other peers: raw libjpeg / libpng; torchvision, PyAV, torchaudio in
# Python), side by side.
#   benchmarks/run.sh <suite> [--filter SUBSTR] [--target-s SECONDS] [--list]
# Suites: core, autograd, nn, fft, io, data, models, audio, text (the text
# suite is its own binary, ember_bench_text, without libtorch), distributed
# (ember_bench_distributed: 2 rank processes per side, vs torch.distributed gloo).
# Environment: EMBER_BENCH_OUT (results folder, default bench-results/),
#   EMBER_BENCH_BUILD (build folder, default build-bench/), EMBER_BENCH_THREADS (2),
#   EMBER_BENCH_JOBS (build jobs, 2), EMBER_BENCH_EXCLUSIVE (1: run under the build
#   lock so that no build shares the cores with the timings; 0: don't),
#   EMBER_BENCH_PYTHON (the io suite's Python peers, default /usr/bin/python3).
#   EMBER_ORT_DIR (onnxruntime-node for the quantized models' ORT peer: scripts/install_ort.sh).
set -euo pipefail

suite=${1:-}
if [[ -z "$suite" || "$suite" == -* ]]; then
  sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
shift

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${EMBER_BENCH_BUILD:-$root/build-bench}
out=${EMBER_BENCH_OUT:-$root/bench-results}
threads=${EMBER_BENCH_THREADS:-2}
jobs=${EMBER_BENCH_JOBS:-2}
lock=/tmp/ember-build.lock  # shared by every build on this machine

generator=()
if [[ ! -f "$build/CMakeCache.txt" ]] && command -v ninja >/dev/null; then generator=(-G Ninja); fi
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DEMBER_BUILD_BENCHMARKS=ON -DEMBER_BUILD_TESTS=OFF -DEMBER_WITH_CUDA="${EMBER_WITH_CUDA:-OFF}" >/dev/null
bench=ember_bench
if [[ "$suite" == text ]]; then bench=ember_bench_text; fi
# The distributed suite: rank processes on both sides, no libtorch in the binary.
if [[ "$suite" == distributed ]]; then bench=ember_bench_distributed; fi
CCACHE_BASEDIR=$(dirname "$root") flock "$lock" cmake --build "$build" --target "$bench" -j "$jobs"

commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
if ! git -C "$root" diff --quiet HEAD 2>/dev/null; then commit="$commit+dirty"; fi
cmd=(env OMP_NUM_THREADS="$threads" "$build/benchmarks/$bench" "$suite"
     --threads "$threads" --out "$out" --commit "$commit" "$@")
if [[ "${EMBER_BENCH_EXCLUSIVE:-1}" == 1 ]]; then
  flock "$lock" "${cmd[@]}"
else
  "${cmd[@]}"
fi
