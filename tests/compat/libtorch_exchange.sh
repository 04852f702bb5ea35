#!/bin/sh
# compat.libtorch_exchange: Ember writes archives with torch::save
# (LibtorchExchange.WriteForLibtorch), a libtorch program loads them with
# libtorch's torch::load, checks them against its own run of the same recipes
# and writes its own (libtorch/libtorch_exchange.cpp), and Ember loads and
# checks those (LibtorchExchange.ReadFromLibtorch).
# Usage: libtorch_exchange.sh EMBER_TESTS LIBTORCH_PROGRAM WORK_DIR
set -e
tests=$1 program=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
EMBER_LIBTORCH_EXCHANGE_DIR="$work" "$tests" --gtest_filter='LibtorchExchange.WriteForLibtorch'
"$program" check "$work"
EMBER_LIBTORCH_EXCHANGE_DIR="$work" "$tests" --gtest_filter='LibtorchExchange.ReadFromLibtorch'
