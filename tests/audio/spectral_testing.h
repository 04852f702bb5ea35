#pragma once
// Helpers shared by tests/audio/test_spectral*.cpp: torchaudio 0.13 fixtures of
// scripts/fixtures/audio_spectral.py and error-message checks.
#include <gtest/gtest.h>

#include <functional>
#include <initializer_list>
#include <string>

#include <ember/ember.h>

#include "npy.h"

namespace spectral_testing {

inline ember::Tensor fixture(const std::string& name) {
  return ember::testing::load_npy(ember::testing::fixture_path("audio/spectral/" + name + ".npy"));
}

// A complex fixture (saved as view_as_real).
inline ember::Tensor complex_fixture(const std::string& name) { return ember::view_as_complex(fixture(name)); }

// max |actual - expected| <= tol, same shape and dtype (complex compared as real pairs).
inline void expect_close(const ember::Tensor& actual, const ember::Tensor& expected, double tol) {
  ASSERT_EQ(actual.sizes().vec(), expected.sizes().vec());
  ASSERT_EQ(actual.dtype(), expected.dtype());
  const ember::Tensor a = actual.is_complex() ? ember::view_as_real(actual.resolve_conj()) : actual;
  const ember::Tensor e = expected.is_complex() ? ember::view_as_real(expected.resolve_conj()) : expected;
  const double diff = (a.to(ember::kFloat64) - e.to(ember::kFloat64)).abs().max().item<double>();
  EXPECT_LE(diff, tol);
}

// fn throws an ember::Error whose message holds every one of `parts`.
inline void expect_error(const std::function<void()>& fn, std::initializer_list<std::string> parts) {
  try {
    fn();
    ADD_FAILURE() << "no ember::Error thrown";
  } catch (const ember::Error& e) {
    const std::string message = e.what();
    for (const std::string& part : parts) EXPECT_NE(message.find(part), std::string::npos) << message;
  }
}

}  // namespace spectral_testing
