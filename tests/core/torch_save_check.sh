#!/bin/sh
# core.torch_save_check: Ember writes checkpoints (TorchSaveCheck.WriteFilesForTorch),
# Debian's torch reads them (scripts/check_torch_save.py; exit 77 = skipped
# when torch is not importable). Usage: torch_save_check.sh TESTS_BINARY SOURCE_DIR WORK_DIR
set -e
tests=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
EMBER_TORCH_SAVE_CHECK_DIR="$work" "$tests" --gtest_filter='TorchSaveCheck.*'
[ -x /usr/bin/python3 ] || { echo "no /usr/bin/python3: skipped"; exit 77; }
/usr/bin/python3 "$src/scripts/check_torch_save.py" "$work"
