#pragma once
// Helpers for the audio tests: the fixture tables written by
// scripts/fixtures/io_audio.py, exact tensor comparison, backend checks.
#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <ember/ember.h>
#include <ember/io/audio.h>

#include "io/io_test_util.h"
#include "npy.h"

namespace ember::testing {

inline std::string audio_src(const std::string& name) { return io_data("audio/" + name); }
inline std::string audio_fixture(const std::string& name) { return io_data("io_audio/" + name); }

// Rows of a TSV with a header line, as column -> value maps.
inline std::vector<std::map<std::string, std::string>> read_tsv(const std::string& path) {
  std::ifstream f(path);
  EMBER_CHECK(f.good(), "read_tsv: cannot open ", path);
  auto split = [](const std::string& line) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, '\t')) cells.push_back(cell);
    return cells;
  };
  std::string line;
  std::getline(f, line);
  const auto header = split(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(f, line)) {
    if (line.empty()) continue;
    const auto cells = split(line);
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

inline bool has_backend(const std::string& name) {
  const auto b = audio::list_audio_backends();
  return std::find(b.begin(), b.end(), name) != b.end();
}

// Same dtype, shape and values (bit for bit).
inline ::testing::AssertionResult same_tensor(const Tensor& expected, const Tensor& actual) {
  if (expected.dtype() != actual.dtype()) {
    return ::testing::AssertionFailure() << "dtype " << dtype_name(actual.dtype()) << ", expected "
                                         << dtype_name(expected.dtype());
  }
  if (expected.sizes() != actual.sizes()) {
    return ::testing::AssertionFailure() << "shape " << actual.sizes() << ", expected "
                                         << expected.sizes();
  }
  if (expected.numel() == 0) return ::testing::AssertionSuccess();
  if (!equal(expected, actual)) {
    const Tensor d = (expected.to(kFloat64) - actual.to(kFloat64)).abs();
    return ::testing::AssertionFailure() << "values differ, max |diff| " << d.max().item<double>();
  }
  return ::testing::AssertionSuccess();
}

// Same shape and max |expected - actual| <= tol (as float64).
inline ::testing::AssertionResult close_tensor(const Tensor& expected, const Tensor& actual, double tol) {
  if (expected.sizes() != actual.sizes()) {
    return ::testing::AssertionFailure() << "shape " << actual.sizes() << ", expected "
                                         << expected.sizes();
  }
  if (expected.numel() == 0) return ::testing::AssertionSuccess();
  const double d = (expected.to(kFloat64) - actual.to(kFloat64)).abs().max().item<double>();
  if (d > tol) return ::testing::AssertionFailure() << "max |diff| " << d << " > " << tol;
  return ::testing::AssertionSuccess();
}

// Effect chains as written in effects.tsv: "gain -n;rate 8000".
inline std::vector<std::vector<std::string>> parse_effects(const std::string& s) {
  std::vector<std::vector<std::string>> effects;
  std::stringstream chain(s);
  std::string one;
  while (std::getline(chain, one, ';')) {
    std::vector<std::string> args;
    std::stringstream words(one);
    std::string w;
    while (words >> w) args.push_back(w);
    effects.push_back(args);
  }
  return effects;
}

inline std::vector<uint8_t> file_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

}  // namespace ember::testing
