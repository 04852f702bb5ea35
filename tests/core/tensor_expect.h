#pragma once
// Tensor comparisons for fixture tests: same shape and dtype, values close
// (NaNs equal), compared in float64.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include "npy.h"

namespace ember::testing {

// Complex tensors are compared as [..., 2] real views (a cast to float64
// would keep only the real parts).
inline Tensor as_float64_parts(const Tensor& t) {
  return t.is_complex() ? view_as_real(t.to(kComplex128).resolve_conj()) : t.to(kFloat64);
}

inline void expect_tensor_near(const Tensor& actual, const Tensor& expected, double rtol = 1e-5,
                               double atol = 1e-6) {
  ASSERT_EQ(actual.sizes(), expected.sizes()) << "shape mismatch";
  EXPECT_EQ(actual.dtype(), expected.dtype());
  if (actual.is_complex() != expected.is_complex()) return;  // the dtype check above failed
  EXPECT_TRUE(allclose(as_float64_parts(actual), as_float64_parts(expected), rtol, atol, /*equal_nan=*/true))
      << "actual:\n" << actual << "\nexpected:\n" << expected;
}

// Loads tests/data/core/<family>/<name>.npy.
inline Tensor fixture(const std::string& family, const std::string& name) {
  return load_npy(fixture_path("core/" + family + "/" + name + ".npy"));
}

// Runs f and expects an ember::Error whose message contains `needle`.
template <class F>
void expect_error(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "expected an ember::Error containing '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << "message: " << e.what();
  }
}

}  // namespace ember::testing
