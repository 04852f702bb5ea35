#pragma once
// Shared pieces of the table-driven op harness (test_elementwise_ops.cpp,
// test_reduce_ops.cpp): fixture manifests, per-dtype tolerances and a value
// comparison that treats NaN, infinities and the sign of zero exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "npy.h"
#include "test_util.h"

namespace ember::testing {

// One manifest line, split on whitespace (scripts/fixtures/<family>.py writes them).
inline std::vector<std::vector<std::string>> load_manifest(const std::string& family) {
  std::ifstream f(fixture_path("core/" + family + "/manifest.txt"));
  EMBER_CHECK(f.good(), "load_manifest: no manifest for ", family,
              " (run /usr/bin/python3 scripts/gen_fixtures.py ", family, ")");
  std::vector<std::vector<std::string>> lines;
  std::string line;
  while (std::getline(f, line)) {
    std::istringstream ss(line);
    std::vector<std::string> words;
    for (std::string w; ss >> w;) words.push_back(w);
    if (!words.empty()) lines.push_back(std::move(words));
  }
  return lines;
}

inline DType dtype_from_name(const std::string& name) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (dtype_name(static_cast<DType>(i)) == name) return static_cast<DType>(i);
  EMBER_FAIL("dtype_from_name: unknown dtype '", name, "'");
}

// Fixtures store bfloat16 as float32 (numpy has no bfloat16); this reloads a
// fixture in the dtype it stands for.
inline Tensor load_fixture(const std::string& family, const std::string& name, DType dtype) {
  Tensor t = load_npy(fixture_path("core/" + family + "/" + name + ".npy"));
  return t.dtype() == dtype ? t : t.to(dtype);
}

struct Tol {
  double rtol, atol;
};
// Tolerances per result dtype. Integral and bool results are always exact.
struct Tolerances {
  Tol f16{2e-3, 1e-5};
  Tol bf16{1.6e-2, 1e-5};
  Tol f32{2e-6, 1e-7};
  Tol f64{1e-12, 1e-15};
  Tol of(DType t) const {
    switch (t) {
      case kFloat16: return f16;
      case kBFloat16: return bf16;
      case kFloat32: return f32;
      case kFloat64: return f64;
      default: return {0, 0};
    }
  }
};

// Values of `actual` against `expected` (any dtypes, any strides; same shape).
// NaN matches NaN, infinities must match exactly, and when `zero_sign` is set a
// zero must carry the expected sign (relu(-0.) is -0. in PyTorch).
inline ::testing::AssertionResult values_match(const Tensor& actual, const Tensor& expected, Tol tol,
                                              bool zero_sign = true) {
  if (actual.sizes() != expected.sizes()) {
    std::ostringstream os;
    os << "shape " << actual.sizes() << " != expected " << expected.sizes();
    return ::testing::AssertionFailure() << os.str();
  }
  // Values cross to the host first: either side may live on another device.
  Tensor a = actual.cpu().to(kFloat64).contiguous(), e = expected.cpu().to(kFloat64).contiguous();
  const double* pa = a.data_ptr<double>();
  const double* pe = e.data_ptr<double>();
  for (int64_t i = 0; i < a.numel(); ++i) {
    const double x = pa[i], y = pe[i];
    bool ok;
    if (std::isnan(y)) ok = std::isnan(x);
    else if (std::isinf(y)) ok = x == y;
    else if (y == 0 && zero_sign && x == 0) ok = std::signbit(x) == std::signbit(y);
    else ok = std::abs(x - y) <= tol.atol + tol.rtol * std::abs(y);
    if (!ok)
      return ::testing::AssertionFailure()
             << "element " << i << " (flat): got " << x << ", expected " << y << " (rtol "
             << tol.rtol << ", atol " << tol.atol << ")";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace ember::testing
