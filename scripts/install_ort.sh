#!/usr/bin/env bash
# Brings in ONNX Runtime's CPU runtime from the npm registry (onnxruntime-node,
# which bundles libonnxruntime.so.1 and its N-API binding), for the ONNX Runtime
# peer of the quantized-model benchmark (benchmarks/peers/ort_quantized_models.py,
# docs/quantization.md "ONNX Runtime peer").
#   scripts/install_ort.sh [DIR]      DIR defaults to $EMBER_ORT_DIR, else build/ort
# The package's postinstall script is skipped: on linux/x64 it downloads the CUDA
# and TensorRT execution providers from NuGet, which the CPU peer does not need.
set -euo pipefail

version=1.30.0
dir=${1:-${EMBER_ORT_DIR:-$(cd "$(dirname "$0")/.." && pwd)/build/ort}}
mkdir -p "$dir"
command -v npm > /dev/null || { echo "install_ort.sh: npm not found (apt-get install npm)" >&2; exit 1; }
npm install --prefix "$dir" --ignore-scripts --no-audit --no-fund "onnxruntime-node@$version" >&2

pkg=$dir/node_modules/onnxruntime-node
native=$pkg/bin/napi-v6/$(node -p 'process.platform')/$(node -p 'process.arch')
echo "onnxruntime-node $(node -p "require('$pkg/package.json').version") in $pkg"
echo "native runtime:   $(ls "$native"/libonnxruntime.so* 2> /dev/null || echo "none for this platform")"
echo "N-API binding:    $native/onnxruntime_binding.node"
header=$(find "$dir/node_modules" -name onnxruntime_c_api.h -print -quit)
# The npm packages ship no C headers; a C/C++ client of libonnxruntime.so.1 needs
# onnxruntime_c_api.h of the same release from microsoft/onnxruntime (one file).
echo "C API header:     ${header:-not in the npm packages}"
echo "peer:             EMBER_ORT_DIR=$dir"
