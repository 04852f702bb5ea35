#pragma once
// Helpers shared by tests/audio/test_effects*.cpp: the fixtures of
// scripts/fixtures/audio_effects.py and error-message capture.
#include <gtest/gtest.h>

#include <string>

#include <ember/ember.h>

#include "npy.h"

namespace effects_testing {

inline ember::Tensor fixture(const std::string& name) {
  return ember::testing::load_npy(ember::testing::fixture_path("audio/effects/" + name + ".npy"));
}

inline double max_diff(const ember::Tensor& a, const ember::Tensor& b) {
  return (a.to(ember::kFloat64) - b.to(ember::kFloat64)).abs().max().item<double>();
}

// max |actual - expected| <= tol, same shape and dtype.
inline void expect_close(const ember::Tensor& actual, const ember::Tensor& expected, double tol) {
  ASSERT_EQ(actual.sizes().vec(), expected.sizes().vec());
  ASSERT_EQ(actual.dtype(), expected.dtype());
  EXPECT_LE(max_diff(actual, expected), tol);
}

// The message of the ember::Error that f raises ("" if none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const ember::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace effects_testing
