#!/bin/sh
# models.quant_models: Debian's torch writes quantized torchvision models
# (scripts/fixtures/quant_models.py: float and converted state_dicts, inputs,
# torch's outputs) into WORK_DIR, then the QuantizedModels tests read them.
# Exit 77 (skipped) when /usr/bin/python3 cannot import torch and torchvision.
# Usage: quant_models_check.sh TESTS_BINARY SOURCE_DIR WORK_DIR
set -e
tests=$1 src=$2 work=$3
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import torch, torchvision' 2>/dev/null ||
  { echo "no torch/torchvision for /usr/bin/python3: skipped"; exit 77; }
rm -rf "$work" && mkdir -p "$work"
/usr/bin/python3 "$src/scripts/fixtures/quant_models.py" "$work"
EMBER_QUANT_MODELS_DIR="$work" "$tests" --gtest_filter='QuantizedModels.*'
