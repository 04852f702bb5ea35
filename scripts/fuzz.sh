#!/usr/bin/env bash
# Builds Ember's libFuzzer targets (clang, ASan + UBSan) and runs each for a
# bounded time, then reports what crashed. See fuzz/README.md.
#   scripts/fuzz.sh [seconds-per-target] [target...]
#     seconds-per-target   default 60
#     target               e.g. decode_png (or ember_fuzz_decode_png); default: all
# Environment:
#   EMBER_FUZZ_BUILD_DIR  build folder (default build-fuzz); configured here when it has
#                         no CMakeCache.txt, otherwise used as it is (EMBER_BUILD_FUZZERS=ON)
#   EMBER_BUILD_LOCK      lock file the build waits on (default /tmp/ember-build.lock)
#   EMBER_BUILD_JOBS      parallel compile jobs (default 2)
#   EMBER_FUZZ_FLAGS      extra libFuzzer flags, e.g. "-jobs=2 -workers=2"
# Each run grows the target's corpus in <build>/fuzz/corpus/<target>/ and writes its log
# and any crash/leak/timeout/oom input to <build>/fuzz-runs/<target>/. Exit status 1 when
# any target failed; 2 (with the reason) when it cannot run them: no clang, an unknown
# target, a build folder configured without the fuzzers, a failed configure or build.
set -uo pipefail
cd "$(dirname "$0")/.."
die() { echo "fuzz.sh: $*" >&2; exit 2; }
seconds=${1:-60}
[[ $seconds =~ ^[0-9]+$ && $seconds -gt 0 ]] ||
  die "the first argument is the seconds per target (a positive integer), not '$seconds'"
[[ $# -gt 0 ]] && shift
build=${EMBER_FUZZ_BUILD_DIR:-build-fuzz}
lock=${EMBER_BUILD_LOCK:-/tmp/ember-build.lock}

if [[ ! -f $build/CMakeCache.txt ]]; then
  # libFuzzer (-fsanitize=fuzzer) comes with clang only: say so before CMake fails
  # with a message about a missing C compiler.
  for tool in clang clang++ cmake ninja; do
    command -v $tool >/dev/null ||
      die "$tool not found: the fuzz targets need clang with libFuzzer, CMake and Ninja (Debian: apt install clang cmake ninja-build)"
  done
  mkdir -p "$build"
  CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DEMBER_BUILD_FUZZERS=ON -DEMBER_SANITIZE="address;undefined" -DEMBER_BUILD_TESTS=OFF \
    -DEMBER_BUILD_EXAMPLES=OFF -DEMBER_WITH_CUDA=OFF >"$build/configure.log" 2>&1 ||
    { cat "$build/configure.log"; exit 2; }
fi

# Targets: those named, else every ember_fuzz_* the build defines (fuzz/CMakeLists.txt).
mapfile -t defined < <(ninja -C "$build" -t targets all 2>/dev/null | grep -o '^ember_fuzz_[a-z0-9_]*' | sort -u)
if [[ ${#defined[@]} -eq 0 ]]; then
  compiler=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
  fuzzers=$(sed -n 's/^EMBER_BUILD_FUZZERS:[A-Z]*=//p' "$build/CMakeCache.txt")
  die "no fuzz targets in $build (compiler '${compiler:-?}', EMBER_BUILD_FUZZERS=${fuzzers:-unset}): they need" \
    "clang with libFuzzer and EMBER_BUILD_FUZZERS=ON (see $build/configure.log, or use a fresh EMBER_FUZZ_BUILD_DIR)"
fi
targets=()
for t in "$@"; do
  target=ember_fuzz_${t#ember_fuzz_}
  [[ " ${defined[*]} " == *" $target "* ]] ||
    die "unknown target '$t'; $build defines: ${defined[*]#ember_fuzz_}"
  targets+=("$target")
done
[[ ${#targets[@]} -gt 0 ]] || targets=("${defined[@]}")

build_cmd=(ninja -C "$build" -j "${EMBER_BUILD_JOBS:-2}" "${targets[@]}")
command -v flock >/dev/null && build_cmd=(flock "$lock" "${build_cmd[@]}")
CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} "${build_cmd[@]}" || exit 2

failed=()
for target in "${targets[@]}"; do
  name=${target#ember_fuzz_}
  corpus=$build/fuzz/corpus/$name
  out=$build/fuzz-runs/$name
  mkdir -p "$corpus" "$out"
  echo "== $name: ${seconds}s"
  touch "$out/.started"
  # -timeout: one input taking longer is a hang; -malloc_limit_mb: one allocation
  # larger is a bug (the decoders cap their outputs well below it); the checkpoint
  # loaders also check their heap peak against their memory limit
  # (fuzz/checkpoint_memory.h), so their limits are tighter (as in fuzz/CMakeLists.txt).
  # libsox's own leaks are suppressed (fuzz/lsan_audio.supp), as in the fuzz ctest.
  case $name in
    safetensors | torch_load | torch_pickle) limits="-rss_limit_mb=1024 -malloc_limit_mb=16" ;;
    *) limits="-rss_limit_mb=2048 -malloc_limit_mb=1024" ;;
  esac
  # shellcheck disable=SC2086
  LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/fuzz/lsan_audio.supp:fast_unwind_on_malloc=0} \
  nice -n 10 "$build/fuzz/$target" -max_total_time="$seconds" -timeout=20 $limits \
    -print_final_stats=1 -artifact_prefix="$out/" ${EMBER_FUZZ_FLAGS:-} \
    "$corpus" >"$out/log.txt" 2>&1
  rc=$?
  grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "$out/log.txt" | tail -2
  # The inputs libFuzzer saved this run (crash-*, leak-*, timeout-*, oom-*, slow-unit-*).
  artifacts=$(find "$out" -maxdepth 1 -type f ! -name log.txt ! -name .started -newer "$out/.started" | sort)
  if [[ $rc -ne 0 ]]; then
    failed+=("$name")
    echo "   FAILED (exit $rc): see $out/log.txt"
    grep -m3 -E 'ERROR: |runtime error|SUMMARY' "$out/log.txt" | sed 's/^/   /'
    [[ -n $artifacts ]] && echo "$artifacts" | sed 's/^/   input: /'
  else
    echo "   ok"
  fi
done

if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz.sh: failures in: ${failed[*]}"
  exit 1
fi
echo "fuzz.sh: all ${#targets[@]} targets ran ${seconds}s without a failure"
