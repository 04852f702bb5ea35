#pragma once
// Helpers for the speech-dataset tests: the committed corpora
// (tests/data/datasets/datasets_speech, written by
// scripts/fixtures/datasets_speech.py) and torchaudio 0.13's samples for them.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <ember/core/tensor.h>

#include "formats_test_util.h"

namespace ember::testing {

inline std::string speech_dir() { return fixture_path("datasets/datasets_speech"); }

inline const IValue& speech_expected() {
  static const IValue value = [] {
    const std::string text = read_bytes(speech_dir() + "/expected.json");
    return serialize::json::parse(text, "expected.json");
  }();
  return value;
}

// A waveform against torchaudio's record of it: shape, float32, the float64
// sum and sum of |x| (relative 1e-9: the same decoder, summed in the same
// order only up to rounding) and the first values exactly.
inline void expect_waveform(const Tensor& w, const IValue& rec) {
  std::vector<int64_t> shape;
  for (const IValue& d : at(rec, "shape").to_list()) shape.push_back(d.to_int());
  ASSERT_EQ(std::vector<int64_t>(w.sizes().begin(), w.sizes().end()), shape);
  ASSERT_EQ(w.dtype(), kFloat32);
  const Tensor c = w.contiguous();
  const float* p = c.data_ptr<float>();
  double sum = 0, abs_sum = 0;
  for (int64_t i = 0; i < c.numel(); ++i) {
    sum += p[i];
    abs_sum += std::abs(static_cast<double>(p[i]));
  }
  const double want_sum = at(rec, "sum").to_double();
  const double want_abs = at(rec, "abs_sum").to_double();
  EXPECT_NEAR(sum, want_sum, 1e-9 * std::max(1.0, want_abs));
  EXPECT_NEAR(abs_sum, want_abs, 1e-9 * std::max(1.0, want_abs));
  const auto& head = at(rec, "head").to_list();
  for (size_t i = 0; i < head.size(); ++i) EXPECT_EQ(static_cast<double>(p[i]), head[i].to_double()) << "value " << i;
}

inline const std::vector<IValue>& as_list(const IValue& v) { return v.to_list(); }

}  // namespace ember::testing

namespace ember::testing {

// ../shared/data/generated/speech (EMBER_SHARED_DATA overrides ../shared/data),
// found from the repository or a worktree beside it; "" when absent.
inline std::string shared_speech_dir() {
  if (const char* env = std::getenv("EMBER_SHARED_DATA")) {
    const std::string p = std::string(env) + "/generated/speech";
    return std::filesystem::is_directory(p) ? p : "";
  }
  const std::string repo = std::string(EMBER_TEST_DATA_DIR) + "/../..";
  for (const char* up : {"/..", "/../.."}) {
    const std::string candidate = repo + up + "/shared/data/generated/speech";
    if (std::filesystem::is_directory(candidate)) return candidate;
  }
  return "";
}

}  // namespace ember::testing
