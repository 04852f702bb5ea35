#!/usr/bin/env bash
# The one script of a GPU session (docs/cuda.md, "Running the GPU check").
#
#   scripts/gpu_check.sh fetch [DIR]   on a Debian 12 development machine: downloads
#                                      the .deb files core needs into DIR (default
#                                      .gpu-debs, about 20 MB) with apt-get download
#   scripts/gpu_check.sh run [DIR]     on the GPU machine (CUDA 13, PyTorch, CMake,
#                                      ninja, no package registry): unpacks DIR's
#                                      .debs into a prefix, builds Ember::core,
#                                      Ember::cuda and their tests with CUDA, runs
#                                      `ctest -L cuda`, the benchmark against PyTorch
#                                      and, while time is left, Ember::distributed's
#                                      ProcessGroupNCCL tests, compute-sanitizer and
#                                      core's device-generic suites on CUDA
#
# `run` writes under $OUT (default ./gpu-check-out): gpu_check.log (everything),
# summary.txt (one line per stage, printed last), ctest-cuda.xml, bench.md and the
# raw benchmark lines. Stages after the ctest run only while the budget
# (GPU_CHECK_BUDGET_S, default 480 s from the start) allows, each under a timeout,
# so that the whole run stays inside a device call's limit.
set -uo pipefail
cd "$(dirname "$0")/.."

# Exactly the packages core's build needs beyond CUDA, CMake, ninja and a
# C++ compiler: OpenBLAS (OpenMP flavour) with its Fortran runtime, oneDNN with
# the OpenCL loader it links, GoogleTest and zlib (core links it: TorchScript
# archives; the runtime package too, which its libz.so link points into); then
# what Ember::distributed adds (the NCCL stage): Gloo and the libraries
# libgloo.so.0 needs at link and run time (hiredis, ibverbs and its netlink
# libraries), about 0.6 MB.
DEBS=(libopenblas-openmp-dev libopenblas0-openmp libgfortran5 libquadmath0
      libdnnl-dev libdnnl2 ocl-icd-libopencl1 libgtest-dev zlib1g-dev zlib1g
      libgloo-dev libgloo0 libhiredis0.14 libibverbs1 libnl-3-200 libnl-route-3-200)

mode=${1:-}
debs_dir=${2:-.gpu-debs}

if [[ $mode == fetch ]]; then
  set -e
  mkdir -p "$debs_dir"
  (cd "$debs_dir" && apt-get download "${DEBS[@]}")
  du -sh "$debs_dir"
  echo "carry $debs_dir to the GPU machine (.gitignore ignores .gpu-debs/; another folder must be ignored too)"
  exit 0
fi
if [[ $mode != run ]]; then
  sed -n '2,18p' "$0"
  exit 2
fi

OUT=${OUT:-$PWD/gpu-check-out}
mkdir -p "$OUT"
log=$OUT/gpu_check.log
summary=$OUT/summary.txt
: >"$log"
: >"$summary"
start=$(date +%s)
budget=${GPU_CHECK_BUDGET_S:-480}
jobs=$(nproc)
build=${EMBER_BUILD_DIR:-build-gpu}

note() { echo "$*" | tee -a "$summary" "$log"; }
elapsed() { echo $(($(date +%s) - start)); }
left() { echo $((budget - $(elapsed))); }
# stage NAME LIMIT_S CMD...: runs CMD under a timeout, logging, and notes its result.
stage() {
  local name=$1 limit=$2
  shift 2
  local t0=$(date +%s)
  echo "=== $name (limit ${limit}s) ===" >>"$log"
  timeout --kill-after=10 "$limit" "$@" >>"$log" 2>&1
  local rc=$?
  note "$(printf '%-28s rc=%-3s %4ss' "$name" "$rc" $(($(date +%s) - t0)))"
  return $rc
}

{
  nvidia-smi -L
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv
  nvcc --version | tail -2
  cmake --version | head -1
  python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.get_device_name())'
} >>"$log" 2>&1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
note "GPU: ${gpu:-none found}; $jobs cores; budget ${budget}s"

# Core's dependencies, unpacked (not installed: no dpkg database is touched).
prefix=${GPU_CHECK_PREFIX:-/tmp/ember-deps}
mkdir -p "$prefix"
ls "$debs_dir"/*.deb >/dev/null 2>&1 || { note "no .deb files in $debs_dir (run: scripts/gpu_check.sh fetch)"; exit 1; }
for f in "$debs_dir"/*.deb; do dpkg-deb -x "$f" "$prefix"; done
lib=$prefix/usr/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH=$lib:$lib/openblas-openmp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# NCCL for ProcessGroupNCCL: the CUDA toolkit's, else PyTorch's wheel (nvidia/nccl).
nccl_root=
if [[ -f /usr/local/cuda/include/nccl.h ]]; then
  nccl_root=/usr/local/cuda
else
  nccl_root=$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null)
fi
note "NCCL: ${nccl_root:-not found (the NCCL stage is skipped)}"
[[ -n $nccl_root ]] && export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$nccl_root/lib:$nccl_root/lib64
# Ember::distributed needs Gloo: without its .debs (fetched before they were
# listed) the core-only build leaves it out rather than failing.
with_distributed=OFF
if ls "$debs_dir"/libgloo-dev_*.deb >/dev/null 2>&1; then with_distributed=ON; else note "no libgloo-dev .deb: the NCCL stage is skipped"; fi

stage configure 120 cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DEMBER_CORE_ONLY=ON -DEMBER_WITH_CUDA=ON -DEMBER_CUDA_ARCHITECTURES=90 \
  -DEMBER_BUILD_EXAMPLES=OFF -DEMBER_BUILD_DIFFFUZZ=OFF -DEMBER_BUILD_APPS=OFF \
  -DEMBER_CORE_ONLY_DISTRIBUTED=$with_distributed -DEMBER_BUILD_DISTRIBUTED=$with_distributed \
  -DEMBER_WITH_NCCL=AUTO -DNCCL_ROOT="$nccl_root" \
  -DCMAKE_PREFIX_PATH="$prefix/usr" -DGTest_DIR="$lib/cmake/GTest" \
  -DEMBER_OPENBLAS_LIBRARY="$lib/openblas-openmp/libopenblas.so" \
  -DEMBER_OPENBLAS_INCLUDE_DIR="$prefix/usr/include/x86_64-linux-gnu/openblas-openmp" \
  -DEMBER_DNNL_LIBRARY="$lib/libdnnl.so" -DEMBER_DNNL_INCLUDE_DIR="$prefix/usr/include" ||
  { tail -40 "$log"; exit 1; }

stage build-cuda $(($(left) - 60)) cmake --build "$build" -j "$jobs" --target ember_cuda_tests ember_cuda_bench ||
  { grep -E "error|FAILED" "$log" | head -40; cat "$summary"; exit 1; }

stage ctest-cuda 180 ctest --test-dir "$build" -L cuda --output-on-failure -j 4 --timeout 120 \
  --output-junit "$OUT/ctest-cuda.xml"
grep -E "tests passed|tests failed|\(Failed\)|\(SEGFAULT\)|\(Timeout\)" "$log" | tail -15 >>"$summary"

if (($(left) > 60)); then
  stage bench-ember 60 sh -c "'$build/cuda/ember_cuda_bench' > '$OUT/bench-ember.jsonl'"
  stage bench-torch 60 sh -c "python3 cuda/bench/torch_peer.py > '$OUT/bench-torch.jsonl'"
  python3 cuda/bench/compare.py "$OUT/bench-ember.jsonl" "$OUT/bench-torch.jsonl" "$gpu" >"$OUT/bench.md" 2>>"$log" &&
    cat "$OUT/bench.md" >>"$summary"
fi

# ProcessGroupNCCL (docs/distributed.md): Ember::distributed, Ember::distributed_nccl
# and the NCCL suite (the Gloo suite runs on every CI machine). One GPU: the single-rank
# collectives, the stream semantics, the watchdog and the init timeout run; the
# cases needing a GPU per rank skip. NCCL's bootstrap on the loopback interface.
if (($(left) > 150)) && grep -q "ProcessGroupNCCL ON" "$log"; then
  if stage build-nccl $(($(left) - 90)) cmake --build "$build" -j "$jobs" --target ember_distributed_nccl_tests; then
    NCCL_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME:-lo} NCCL_DEBUG=${NCCL_DEBUG:-WARN} \
      stage nccl-tests $(($(left) > 150 ? 150 : $(left) - 5)) "$build/tests/distributed/ember_distributed_nccl_tests" \
      --gtest_output="xml:$OUT/nccl-tests.xml"
    grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests? ran" "$log" | tail -8 >>"$summary"
  fi
fi

# compute-sanitizer needs a Firecracker machine (KINDS.md); skipped on failure to start.
if (($(left) > 90)) && command -v compute-sanitizer >/dev/null; then
  # racecheck (shared-memory hazards: the softmax block reductions) on the
  # softmax tests and the multi-stream backward tests, briefly, first.
  stage racecheck 60 compute-sanitizer --tool racecheck --error-exitcode 3 \
    "$build/tests/cuda/ember_cuda_tests" \
    --gtest_filter='CudaTest.Softmax*:CudaTest.LargeSoftmax*:CudaTest.Backward*:CudaTest.Branches*'
  # (tests that time a spinning kernel against the host are left out: the tool slows the host)
  stage memcheck $(($(left) - 60)) compute-sanitizer --tool memcheck --error-exitcode 3 \
    "$build/tests/cuda/ember_cuda_tests" \
    --gtest_filter='CudaTest.*-CudaTest.Events*:CudaTest.Synchronize*:CudaTest.CoreEvents*:CudaTest.TensorRecordStream*'
fi

# Core's device-generic suites on CUDA: the biggest build, last.
if (($(left) > 150)); then
  if stage build-core-tests $(($(left) - 60)) cmake --build "$build" -j "$jobs" --target ember_core_tests; then
    stage core-on-cuda $(($(left) - 5)) "$build/tests/core/ember_core_tests" \
      --gtest_filter='*/cuda:Device*' --gtest_brief=1
    grep -E "^\[  (PASSED|FAILED) |tests? ran" "$log" | tail -5 >>"$summary"
  fi
fi

note "total $(elapsed)s"
cat "$summary"
